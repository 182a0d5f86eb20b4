# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The rdma package (python-rdma's verbs API) without a device: IBA.GID
and GUID, the errors, the keyword structs and their MASK, IBPath (reverse,
copy, pickling, repr/from_string), the devices of a sysfs tree written
here (parsing only: the live sysfs is checked in test_rdma_verbs.py),
WCPath's GRH decoding, WCError/AsyncError, and what raises for the
missing MAD support."""
import os
import pickle
import struct

import pytest

import rdma
import rdma.devices
import rdma.ibverbs as ibv
import rdma.path
import rdma.vtools
from rdma import IBA
from rdma.path import IBPath

import pyverbs.cq
import pyverbs.enums as e


# ---- IBA ---------------------------------------------------------------

@pytest.mark.parametrize('text,expect', [
    ('fe80::1', 'fe80::1'),
    ('fe80:0000:0000:0000:c43c:60ff:febe:9cbf', 'fe80::c43c:60ff:febe:9cbf'),
    ('0000:0000:0000:0000:0000:ffff:c000:0201', '::ffff:192.0.2.1'),
    ('::ffff:192.0.2.2', '::ffff:192.0.2.2'),
])
def test_gid_text(text, expect):
    g = IBA.GID(text)
    assert str(g) == expect and len(g) == 16
    assert IBA.GID(str(g)) == g and repr(g) == f"GID('{expect}')"


def test_gid_forms_and_values():
    g = IBA.GID('fe80::2:c903:0:1491')
    assert IBA.GID(bytes(g), raw=True) == g
    assert IBA.GID(int(g)) == g and int(g.prefix()) == 0xfe80 << 48
    assert g.guid() == IBA.GUID('0002:c903:0000:1491')
    assert g == bytes(g) and g != IBA.GID('fe80::1')
    assert hash(g) == hash(IBA.GID(str(g)))
    assert pickle.loads(pickle.dumps(g)) == g
    assert IBA.GID('::ffff:10.0.0.1').ipv4() == '10.0.0.1'
    assert g.ipv4() is None
    assert int(IBA.GID()) == 0


@pytest.mark.parametrize('bad,exc', [
    ('fe80::zz', ValueError), ('', ValueError), ('1.2.3.4', ValueError),
    (1 << 128, ValueError), (-1, ValueError), (3.5, TypeError),
    ([1, 2], TypeError)])
def test_gid_bad(bad, exc):
    with pytest.raises(exc):
        IBA.GID(bad)


def test_gid_bad_raw():
    with pytest.raises(ValueError, match='16 bytes'):
        IBA.GID(b'\0' * 15, raw=True)


def test_guid():
    g = IBA.GUID('0002:c903:0000:1491')
    assert str(g) == '0002:c903:0000:1491' and int(g) == 0x2c90300001491
    assert IBA.GUID(int(g)) == g and IBA.GUID(bytes(g), True) == g
    assert pickle.loads(pickle.dumps(g)) == g
    for bad in ('0002:c903:0000', '0002:c903:0000:zzzz', '12345:0:0:0',
                'rxe0'):
        with pytest.raises(ValueError):
            IBA.GUID(bad)
    with pytest.raises(ValueError):
        IBA.GUID(b'1234567', raw=True)
    with pytest.raises(TypeError):
        IBA.GUID(1.0)


def test_to_timer():
    assert IBA.to_timer(0) == 0 and IBA.to_timer(4.096E-6) == 0
    assert IBA.to_timer(4.1E-6) == 1
    assert IBA.to_timer(4.096E-6 * 2 ** 14) == 14
    assert IBA.to_timer(1E9) == 31
    with pytest.raises(ValueError):
        IBA.to_timer(-1)


def test_iba_constants():
    assert IBA.IB_DEFAULT_QP1_QKEY == 0x80010000
    assert IBA.PKEY_DEFAULT == IBA.DEFAULT_PKEY == 0xFFFF
    assert IBA.MTU_1024 == e.IBV_MTU_1024
    assert IBA.PR_RATE_10Gb == e.IBV_RATE_10_GBPS


# ---- errors --------------------------------------------------------------

def test_syserror():
    err = rdma.SysError(12, 'ibv_alloc_pd', 'Failed to allocate PD')
    assert isinstance(err, OSError) and isinstance(err, rdma.RDMAError)
    assert err.errno == 12 and err.func == 'ibv_alloc_pd'
    assert 'ibv_alloc_pd' in str(err) and os.strerror(12) in str(err)
    again = pickle.loads(pickle.dumps(err))
    assert (again.errno, again.func, str(again)) == (12, 'ibv_alloc_pd',
                                                     str(err))
    assert 'Failed' not in str(rdma.SysError(5, 'ibv_poll_cq'))


def test_wrerror():
    err = ibv.WRError(22, 'ibv_post_send', 'Failed to post', 3)
    assert err.bad_index == 3 and err.func == 'ibv_post_send'
    assert isinstance(err, rdma.SysError)


def test_mads_are_missing():
    with pytest.raises(rdma.RDMAError, match='umad'):
        rdma.get_umad(None)
    with pytest.raises(rdma.RDMAError, match='umad'):
        rdma.path.get_mad_path(object(), 'fe80::1')
    with pytest.raises(rdma.RDMAError, match='umad'):
        rdma.path.resolve_path(object(), IBPath(None, DGID='fe80::1'))


# ---- structs -------------------------------------------------------------

def test_struct_keywords_and_mask():
    a = ibv.qp_attr(qp_state=ibv.IBV_QPS_INIT, port_num=1, qkey=5)
    assert a.MASK == e.IBV_QP_STATE | e.IBV_QP_PORT | e.IBV_QP_QKEY
    assert a.pkey_index == 0 and isinstance(a.ah_attr, ibv.ah_attr)
    a.pkey_index = 0
    assert a.MASK & e.IBV_QP_PKEY_INDEX
    assert 'qkey=5*' in str(a) and 'rq_psn=0,' in str(a)
    a.sq_draining = 1        # no mask bit
    assert not a.MASK & ~(e.IBV_QP_STATE | e.IBV_QP_PORT | e.IBV_QP_QKEY |
                          e.IBV_QP_PKEY_INDEX)
    with pytest.raises(TypeError, match="unexpected keyword argument "
                                        "'qp_stat'"):
        ibv.qp_attr(qp_stat=1)
    with pytest.raises(AttributeError, match='sq_psm'):
        a.sq_psm = 1
    assert ibv.sge(addr=1, length=2, lkey=3) == ibv.sge(addr=1, length=2,
                                                        lkey=3)
    assert ibv.sge(addr=1) != ibv.sge(addr=2)
    w = ibv.send_wr(opcode=ibv.IBV_WR_SEND, sg_list=[ibv.sge()])
    assert w.ah is None and w.wr_id == 0
    assert pickle.loads(pickle.dumps(w)) == w
    assert ibv.global_route().dgid == IBA.GID('::')


def test_struct_aliases_and_constants():
    assert ibv.ibv_qp_attr is ibv.qp_attr and ibv.ibv_sge is ibv.sge
    assert ibv.ibv_send_wr is ibv.send_wr and ibv.ibv_wc is ibv.wc
    assert ibv.IBV_QPT_UD == e.IBV_QPT_UD and ibv.IBV_WR_SEND == 2
    assert type(ibv.IBV_ACCESS_REMOTE_READ) is int
    assert ibv.wc_status_str(ibv.IBV_WC_SUCCESS) == 'success'
    assert set(ibv.__all__) <= set(dir(ibv))


def test_post_checks_without_a_device():
    # _wr_list and _pv_sges are what QP.post_send/post_recv check first
    with pytest.raises(TypeError, match='list/tuple'):
        ibv._wr_list([], ibv.send_wr)
    with pytest.raises(TypeError, match='send_wr'):
        ibv._wr_list([ibv.recv_wr()], ibv.send_wr)
    with pytest.raises(ValueError, match='Too many'):
        ibv._pv_sges([ibv.sge(), ibv.sge()], 1)
    with pytest.raises(TypeError, match='sge'):
        ibv._pv_sges([object()], 4)
    with pytest.raises(TypeError):
        ibv._pv_sges('abc', 4)


def test_ah_attr_checks():
    with pytest.raises(TypeError, match='global_route'):
        ibv._pv_ah_attr(ibv.ah_attr(is_global=1, grh=None))
    with pytest.raises(TypeError, match='IBA.GID'):
        ibv._pv_ah_attr(ibv.ah_attr(is_global=1, grh=ibv.global_route(
            dgid='fe80::1')))
    with pytest.raises(TypeError, match='ah_attr or'):
        ibv._pv_ah_attr(42)
    with pytest.raises(ValueError, match='end_port'):
        ibv._pv_ah_attr(IBPath(None))
    pv = ibv._pv_ah_attr(ibv.ah_attr(is_global=1, dlid=3, port_num=1,
                                     grh=ibv.global_route(
                                         dgid=IBA.GID('::ffff:10.0.0.1'),
                                         hop_limit=9)))
    back = ibv._from_pv_ah_attr(pv)
    assert back.grh.dgid == IBA.GID('::ffff:10.0.0.1')
    assert back.grh.hop_limit == 9 and back.dlid == 3


def test_wrong_parents():
    with pytest.raises(TypeError):
        ibv.Context(42)
    with pytest.raises(TypeError, match='PD'):
        ibv.MR(object(), bytearray(8))
    with pytest.raises(TypeError, match='Context'):
        ibv.CQ(object())
    with pytest.raises(TypeError, match='PD'):
        rdma.vtools.BufferPool(object(), 4, 64)
    with pytest.raises(TypeError, match='CQ'):
        rdma.vtools.CQPoller(object())


# ---- WCError, AsyncError -------------------------------------------------

def _wc(**kw):
    base = dict(wr_id=9, status=ibv.IBV_WC_REM_ACCESS_ERR,
                opcode=ibv.IBV_WC_RDMA_WRITE, vendor_err=0x12, qp_num=77)
    base.update(kw)
    return ibv.wc(**base)


def test_wcerror():
    err = ibv.WCError(_wc())
    assert isinstance(err, rdma.RDMAError)
    assert isinstance(err, pyverbs.cq.WCError)     # pyverbs' too
    assert err.wc.wr_id == 9 and err.status == ibv.IBV_WC_REM_ACCESS_ERR
    text = str(err)
    assert text.startswith('Error work completion - 10 remote access error')
    assert 'op=RDMA_WRITE' in text and 'vend=0x12' in text
    assert err.qp is None and err.is_rq is None
    assert 'SQ' in str(ibv.WCError(_wc(), is_rq=False, msg='boom'))
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == text and again.wc.wr_id == 9
    with pytest.raises(TypeError, match='QP or an SRQ'):
        ibv.WCError(_wc(), qp='not a qp')


def test_asyncerror():
    err = ibv.AsyncError((ibv.IBV_EVENT_QP_FATAL, 'qp'))
    assert 'QP_FATAL' in str(err) and err.event[0] == ibv.IBV_EVENT_QP_FATAL
    assert ibv._const_str('IBV_QPT_', ibv.IBV_QPT_RC) == 'RC'
    assert ibv._const_str('IBV_WC_', 12345) == '12345'


# ---- IBPath ------------------------------------------------------------

def test_path_defaults_and_bad_names():
    p = IBPath(None)
    assert (p.DLID, p.SLID, p.pkey, p.MTU, p.has_grh) == \
        (0, 0, 0xFFFF, IBA.MTU_256, False)
    assert p.dqpn is None and p.qkey is None and p.retries == 7
    with pytest.raises(TypeError, match="'dpqn'"):
        IBPath(None, dpqn=1)     # the document's typo
    with pytest.raises(TypeError):
        IBPath(None, _cached_x=1)
    with pytest.raises(rdma.RDMAError, match='end_port'):
        p.pkey_index
    with pytest.raises(rdma.RDMAError, match='end_port'):
        p.SGID_index


def test_path_reverse():
    p = IBPath(None, SLID=1, DLID=2, sqpn=3, dqpn=4, SGID='fe80::1',
               DGID='fe80::2', has_grh=True, hop_limit=3, sqpsn=5, dqpsn=6,
               srdatomic=7, drdatomic=8, sack_resp_time=9, dack_resp_time=10)
    p._cached_x = 1
    q = p.copy().reverse(for_reply=False)
    assert (q.SLID, q.DLID, q.sqpn, q.dqpn) == (2, 1, 4, 3)
    assert (q.SGID, q.DGID) == ('fe80::2', 'fe80::1') and q.hop_limit == 3
    assert (q.sqpsn, q.dqpsn, q.srdatomic, q.drdatomic) == (6, 5, 8, 7)
    assert (q.sack_resp_time, q.dack_resp_time) == (10, 9)
    assert p.reverse() is p and p.hop_limit == 255
    assert not hasattr(p, '_cached_x')


def test_path_copy_pickle_repr():
    p = IBPath(None, DGID=IBA.GID('::ffff:192.0.2.2'), qkey=0x11, dqpn=5,
               packet_life_time=12)
    p._cached_pd1_ah = object()
    c = p.copy(SL=2)
    assert c.SL == 2 and c.DGID == p.DGID and c.packet_life_time == 12
    assert '_cached_pd1_ah' not in c.__dict__
    q = pickle.loads(pickle.dumps(p))
    assert q.end_port is None and q.qkey == 0x11 and q.dqpn == 5
    assert '_cached_pd1_ah' not in q.__dict__ and q.packet_life_time == 12
    r = repr(p)
    assert r.startswith("IBPath(end_port=None, DGID=GID('::ffff:192.0.2.2')")
    assert 'qkey=0x11' in r
    s = rdma.path.from_spec_string(r)
    assert (s.DGID, s.qkey, s.dqpn) == (p.DGID, 0x11, 5)
    assert 'PKey=0xffff DQPN=5' in str(p)


def test_path_timeouts():
    p = IBPath(None, packet_life_time=10, dack_resp_time=12, resp_time=14)
    assert p.qp_timeout == pytest.approx(4.096E-6 * (2 ** 11 + 2 ** 12))
    assert p.mad_timeout == pytest.approx(4.096E-6 * (2 ** 11 + 2 ** 14))
    assert IBA.to_timer(p.qp_timeout) == 13


@pytest.mark.parametrize('bad', ['IBPath(DLID=)', 'Foo(DLID=1)',
                                 'IBPath(nosuch=1)', 'IBPath(DLID=x)',
                                 'IBPath(_cached=1)', 'nonsense'])
def test_from_spec_string_bad(bad):
    with pytest.raises(ValueError):
        rdma.path.from_spec_string(bad)


def test_from_string():
    assert rdma.path.from_string('12').DLID == 12
    assert rdma.path.from_string('0xc').DLID == 12
    p = rdma.path.from_string('::ffff:192.0.2.2')
    assert p.DGID == IBA.GID('::ffff:192.0.2.2')
    with pytest.raises(ValueError):
        rdma.path.from_string('rxe0')


def test_fill_path_rejects_negative():
    with pytest.raises(ValueError):
        rdma.path.fill_path(None, IBPath(None), max_rd_atomic=-1)


# ---- a sysfs tree ------------------------------------------------------

def _sysfs(root, name, link_layer, gids, types, pkeys, lid='0x0',
           node_guid='0002:c903:0000:1490'):
    d = root / name
    port = d / 'ports' / '1'
    (port / 'gids').mkdir(parents=True)
    (port / 'gid_attrs' / 'types').mkdir(parents=True)
    (port / 'pkeys').mkdir()
    for i, g in enumerate(gids):
        (port / 'gids' / str(i)).write_text(g + '\n')
        if types[i]:
            (port / 'gid_attrs' / 'types' / str(i)).write_text(types[i] + '\n')
    for i, pk in enumerate(pkeys):
        (port / 'pkeys' / str(i)).write_text(pk + '\n')
    for k, v in dict(lid=lid, lid_mask_count='0', sm_lid='0x1', sm_sl='0',
                     state='4: ACTIVE', phys_state='5: LinkUp',
                     rate='10 Gb/sec (1X FDR10)', cap_mask='0x0',
                     link_layer=link_layer).items():
        (port / k).write_text(v + '\n')
    (d / 'node_guid').write_text(node_guid + '\n')
    (d / 'node_type').write_text('1: CA\n')
    (d / 'fw_ver').write_text('1.0\n')


ZERO = ':'.join(['0000'] * 8)


@pytest.fixture
def fake_sysfs(tmp_path, monkeypatch):
    _sysfs(tmp_path, 'roce0', 'Ethernet',
           ['fe80:0000:0000:0000:0202:c9ff:fe00:0001',
            '0000:0000:0000:0000:0000:ffff:c000:0201',
            '0000:0000:0000:0000:0000:ffff:c000:0201', ZERO],
           ['IB/RoCE v1', 'IB/RoCE v1', 'RoCE v2', None], ['0xffff'])
    _sysfs(tmp_path, 'ib0', 'InfiniBand',
           ['fe80:0000:0000:0000:0002:c903:0000:1491', ZERO],
           [None, None], ['0x7fff', '0xffff', '0x0000'], lid='0x5',
           node_guid='0002:c903:0000:1491')
    monkeypatch.setattr(rdma.devices, 'SYS_INFINIBAND', f'{tmp_path}/')
    monkeypatch.setattr(rdma.devices, '_cached', None)
    yield tmp_path
    rdma.devices._cached = None


def test_devices(fake_sysfs):
    devs = rdma.get_devices()
    assert [d.name for d in devs] == ['ib0', 'roce0']
    assert 'ib0' in devs and devs['roce0'].name == 'roce0'
    assert rdma.get_device().name == 'ib0'
    assert rdma.get_device('0002:c903:0000:1491').name == 'ib0'
    with pytest.raises(rdma.RDMAError, match='nosuch'):
        rdma.get_device('nosuch')
    ib = rdma.get_end_port()
    assert str(ib) == 'ib0/1' and ib.port_id == 1 and ib.lid == 5
    assert ib.state == 4 and ib.phys_state == 5 and not ib.is_roce
    assert ib.parent.node_guid == IBA.GUID('0002:c903:0000:1491')
    assert ib.pkeys == [0x7fff, 0xffff, 0]
    assert ib.pkey_index(0xffff) == 1
    assert ib.default_gid == IBA.GID('fe80::2:c903:0:1491')
    assert rdma.get_end_port('roce0/1') is rdma.get_end_port('roce0')
    assert rdma.get_end_port('fe80::2:c903:0:1491') is ib
    assert rdma.get_end_port('0002:c903:0000:1491') is ib
    # python-rdma also takes the GUID and GID objects themselves
    assert rdma.get_end_port(ib.port_guid) is ib
    assert rdma.get_end_port(ib.default_gid) is ib
    assert rdma.get_device(ib.parent.node_guid) is ib.parent
    for bad in ('nosuch', 'roce0/2', 'roce0/x', 'roce0/1/1', 'fe80::99',
                IBA.GID('::'), IBA.GUID('0000:0000:0000:0000'),
                IBA.GID('fe80::99'), 'xxx'):
        with pytest.raises(rdma.RDMAError):
            rdma.get_end_port(bad)
    for bad in (1, 3.5):
        with pytest.raises(TypeError):
            rdma.get_end_port(bad)


def test_roce_port_gids(fake_sysfs):
    ep = rdma.get_end_port('roce0')
    gid = IBA.GID('::ffff:192.0.2.1')
    assert ep.gids.index(gid) == 2                   # RoCE v2 preferred
    # python-rdma's default GID is index 0 (here the link-local one)
    assert ep.default_gid == ep.gids[0] and ep.is_roce
    assert ep.ipv4_gid == gid
    # the zero entry is in the table but not among the GIDs in use
    assert ep.gids[3] == IBA.GID() and ep.gids.table_len() == 4
    assert list(ep.gids.keys()) == [0, 1, 2] and len(ep.gids) == 3
    assert IBA.GID() not in list(ep.gids)
    assert ep.gids.gid_type(2) == 'RoCE v2' and ep.gids.gid_type(3) is None
    with pytest.raises(ValueError):
        ep.gids.index(IBA.GID('::ffff:192.0.2.9'))
    with pytest.raises(ValueError):
        ep.gids.index(IBA.GID())
    assert rdma.devices.find_port_gid(rdma.get_devices(), gid) == (ep, 2)
    p = IBPath(ep, SGID=gid)
    assert p.SGID_index == 2 and p.pkey_index == 0
    p.SGID_index = 0
    assert p.SGID == ep.gids[0]
    with pytest.raises(rdma.RDMAError, match='PKey 0x1234'):
        IBPath(ep, pkey=0x1234).pkey_index
    with pytest.raises(rdma.RDMAError, match='not available'):
        IBPath(ep, SGID='fe80::9').SGID_index


def test_sa_path_and_resolution_limits(fake_sysfs):
    roce = rdma.get_end_port('roce0')
    ib = rdma.get_end_port('ib0')
    sa = ib.sa_path
    assert (sa.DLID, sa.SLID, sa.dqpn, sa.qkey) == \
        (1, 5, 1, IBA.IB_DEFAULT_QP1_QKEY)
    assert sa.pkey_index == 1 and ib.sa_path is sa
    ib.sm_change()
    assert ib.sa_path is not sa
    with pytest.raises(rdma.RDMAError, match='subnet administrator'):
        rdma.path.resolve_path(None, IBPath(ib, DGID='fe80::1'))
    with pytest.raises(ValueError, match='DGID'):
        rdma.path.resolve_path(None, IBPath(roce))
    with pytest.raises(ValueError, match="'Pkey'"):
        rdma.path.resolve_path(None, IBPath(roce, DGID='::ffff:1.2.3.4'),
                               properties={'Pkey': 1})
    with pytest.raises(TypeError):
        rdma.path.resolve_path(None, 'fe80::1')
    with pytest.raises(rdma.RDMAError, match='end_port'):
        rdma.path.resolve_path(None, IBPath(None, DGID='fe80::1'))


def test_async_event_handling(fake_sysfs):
    ep = rdma.get_end_port('ib0')
    assert ep.lid == 5
    (fake_sysfs / 'ib0' / 'ports' / '1' / 'lid').write_text('0x9\n')
    assert ep.lid == 5                               # cached
    ctx = ibv.Context.__new__(ibv.Context)           # no device needed
    ctx.handle_async_event((ibv.IBV_EVENT_LID_CHANGE, ep))
    assert ep.lid == 9
    roce = rdma.get_end_port('roce0')
    assert len(roce.gids) == 3
    (fake_sysfs / 'roce0' / 'ports' / '1' / 'gids' / '3').write_text(
        '0000:0000:0000:0000:0000:ffff:c000:0209\n')
    assert len(roce.gids) == 3                       # cached
    ctx.handle_async_event((ibv.IBV_EVENT_GID_CHANGE, roce))
    assert roce.gids[3] == IBA.GID('::ffff:192.0.2.9')
    assert len(roce.gids) == 4
    ctx.handle_async_event((ibv.IBV_EVENT_COMM_EST, None))
    for ty in (ibv.IBV_EVENT_QP_FATAL, ibv.IBV_EVENT_DEVICE_FATAL,
               ibv.IBV_EVENT_CQ_ERR):
        with pytest.raises(ibv.AsyncError):
            ctx.handle_async_event((ty, None))


# ---- WCPath ------------------------------------------------------------

def _grh_v6(sgid, dgid, tclass=5, flow=0x12345, hop=9):
    word = (6 << 28) | (tclass << 20) | flow
    return struct.pack('>IHBB', word, 0, 0x1b, hop) + bytes(sgid) + \
        bytes(dgid)


def _grh_v4(src, dst, tos=3, ttl=17):
    ip = bytes([0x45, tos]) + bytes(6) + bytes([ttl, 17]) + bytes(2) + \
        bytes(src) + bytes(dst)
    return bytes(20) + ip


def test_wcpath(fake_sysfs):
    ep = rdma.get_end_port('roce0')
    wc = ibv.wc(src_qp=33, qp_num=44, wc_flags=ibv.IBV_WC_GRH, sl=1)
    s, d = IBA.GID('::ffff:192.0.2.2'), IBA.GID('::ffff:192.0.2.1')
    buf = bytearray(8) + _grh_v6(s, d) + b'payload'
    p = ibv.WCPath(ep, wc, buf, 8, qkey=0x77)
    assert (p.sqpn, p.dqpn, p.SL, p.qkey) == (33, 44, 1, 0x77)
    assert (p.SGID, p.DGID, p.has_grh) == (s, d, True)
    assert (p.traffic_class, p.flow_label, p.hop_limit) == (5, 0x12345, 9)
    r = p.reverse()
    assert (r.SGID, r.DGID, r.dqpn, r.hop_limit) == (d, s, 33, 255)
    assert r.SGID_index == 2
    # RoCE v2 over IPv4: the IPv4 header in the last 20 bytes
    p4 = ibv.WCPath(ep, wc, _grh_v4(b'\xc0\0\2\2', b'\xc0\0\2\1'))
    assert (p4.SGID, p4.DGID) == (s, d)
    assert (p4.hop_limit, p4.traffic_class) == (17, 3)
    # no GRH flag: no addresses
    p0 = ibv.WCPath(ep, ibv.wc(src_qp=1), buf)
    assert not p0.has_grh and p0.DGID is None
    with pytest.raises(TypeError, match='40 bytes'):
        ibv.WCPath(ep, wc, bytes(39))
    with pytest.raises(TypeError, match='40 bytes'):
        ibv.WCPath(ep, wc, bytes(50), 20)
    with pytest.raises(TypeError, match="'pkeyy'"):
        ibv.WCPath(ep, wc, buf, 8, pkeyy=1)
