# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""QP attribute objects (host) and QP creation, transitions, query, modify
and lifetime (device)."""
import errno
import gc

import pytest

import pyverbs.enums as e
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.qp import (ECE, QP, QPAttr, QPCap, QPInitAttr, QPInitAttrEx,
                        QPRateLimitAttr)

# the sanitize stage of tools/run-tests runs this module's host tests under
# valgrind's memcheck (-m memcheck)
pytestmark = pytest.mark.memcheck

U8, U16, U32, U64, I32 = 2**8 - 1, 2**16 - 1, 2**32 - 1, 2**64 - 1, 2**31 - 1

CAP_FIELDS = ['max_send_wr', 'max_recv_wr', 'max_send_sge', 'max_recv_sge',
              'max_inline_data']

# QPAttr field -> largest value (all unsigned)
QPATTR_FIELDS = {
    'qp_state': U32, 'cur_qp_state': U32, 'path_mtu': U32,
    'path_mig_state': U32, 'qkey': U32, 'rq_psn': U32, 'sq_psn': U32,
    'dest_qp_num': U32, 'qp_access_flags': U32, 'pkey_index': U16,
    'alt_pkey_index': U16, 'en_sqd_async_notify': U8, 'sq_draining': U8,
    'max_rd_atomic': U8, 'max_dest_rd_atomic': U8, 'min_rnr_timer': U8,
    'port_num': U8, 'timeout': U8, 'retry_cnt': U8, 'rnr_retry': U8,
    'alt_port_num': U8, 'alt_timeout': U8, 'rate_limit': U32,
}

QPIAX_FIELDS = {'qp_type': U32, 'comp_mask': U32, 'create_flags': U32,
                'max_tso_header': U16, 'source_qpn': U32,
                'send_ops_flags': U64}

BAD_TYPES = [None, 1.0, '1', b'1', True, [1]]


def check_unsigned_field(obj, name, top):
    setattr(obj, name, top)
    assert getattr(obj, name) == top
    setattr(obj, name, 0)
    assert getattr(obj, name) == 0
    for bad in (-1, top + 1, 2**70):
        with pytest.raises(OverflowError):
            setattr(obj, name, bad)
    assert getattr(obj, name) == 0
    for bad in BAD_TYPES:
        with pytest.raises(TypeError):
            setattr(obj, name, bad)
    with pytest.raises(AttributeError):
        delattr(obj, name)


# ---------------------------------------------------------------- QPCap

def test_qpcap_defaults():
    c = QPCap()
    assert [getattr(c, f) for f in CAP_FIELDS] == [1, 10, 1, 1, 0]


def test_qpcap_positional_and_keywords():
    c = QPCap(2, 3, 4, 5, 6)
    assert [getattr(c, f) for f in CAP_FIELDS] == [2, 3, 4, 5, 6]
    c = QPCap(max_inline_data=64, max_recv_wr=7)
    assert [getattr(c, f) for f in CAP_FIELDS] == [1, 7, 1, 1, 64]


@pytest.mark.parametrize('field', CAP_FIELDS)
def test_qpcap_field_range(field):
    check_unsigned_field(QPCap(), field, U32)
    with pytest.raises(OverflowError):
        QPCap(**{field: -1})
    with pytest.raises(TypeError):
        QPCap(**{field: 1.5})


def test_qpcap_bad_arguments():
    with pytest.raises(TypeError):
        QPCap(1, 2, 3, 4, 5, 6)
    with pytest.raises(TypeError):
        QPCap(max_send_wrs=1)
    with pytest.raises(TypeError):
        QPCap(1, max_send_wr=2)


def test_qpcap_str():
    assert str(QPCap(3, 4, 5, 6, 7)) == (
        'max send wrs        : 3                   \n'
        'max recv wrs        : 4                   \n'
        'max send sges       : 5                   \n'
        'max recv sges       : 6                   \n'
        'max inline data     : 7                   \n')


# ------------------------------------------------------------ QPInitAttr

def test_qpinitattr_defaults():
    a = QPInitAttr()
    assert a.qp_type == e.IBV_QPT_UD
    assert a.sq_sig_all == 1
    assert a.send_cq is None and a.recv_cq is None and a.srq is None
    assert a.qp_context is None
    # cap=None leaves the capabilities zero, as upstream
    assert [getattr(a, f) for f in CAP_FIELDS] == [0] * 5
    assert [getattr(a.cap, f) for f in CAP_FIELDS] == [0] * 5


def test_qpinitattr_cap_copy():
    a = QPInitAttr(qp_type=e.IBV_QPT_RC, cap=QPCap(5, 6, 2, 3, 16),
                   sq_sig_all=0)
    assert (a.qp_type, a.sq_sig_all) == (e.IBV_QPT_RC, 0)
    assert [getattr(a, f) for f in CAP_FIELDS] == [5, 6, 2, 3, 16]
    cap = a.cap
    cap.max_send_wr = 99            # a copy: the attributes do not change
    assert a.max_send_wr == 5
    a.cap = cap
    assert a.max_send_wr == 99
    a.cap = None                    # ignored, as upstream
    assert a.max_send_wr == 99
    with pytest.raises(TypeError):
        a.cap = 5
    with pytest.raises(TypeError):
        QPInitAttr(cap=object())


def test_qpinitattr_cap_keywords():
    a = QPInitAttr(cap=QPCap(5, 6), max_send_wr=8, max_inline_data=32)
    assert (a.max_send_wr, a.max_recv_wr, a.max_inline_data) == (8, 6, 32)
    with pytest.raises(TypeError):
        QPInitAttr(qkey=1)


@pytest.mark.parametrize('field', CAP_FIELDS + ['qp_type'])
def test_qpinitattr_field_range(field):
    check_unsigned_field(QPInitAttr(), field, U32)


def test_qpinitattr_sq_sig_all_is_int():
    a = QPInitAttr()
    a.sq_sig_all = -1
    assert a.sq_sig_all == -1
    with pytest.raises(OverflowError):
        a.sq_sig_all = 2**31
    with pytest.raises(TypeError):
        a.sq_sig_all = None


def test_qpinitattr_objects():
    ctx_obj = {'any': 'object'}
    a = QPInitAttr(qp_context=ctx_obj)
    assert a.qp_context is ctx_obj
    for bad in (1, object(), QPCap()):
        with pytest.raises(PyverbsUserError, match='Expected CQ/CQEX'):
            QPInitAttr(scq=bad)
        with pytest.raises(PyverbsUserError, match='Expected CQ/CQEX'):
            a.recv_cq = bad
    a.send_cq = None
    with pytest.raises(TypeError, match='SRQ'):
        QPInitAttr(srq=object())
    with pytest.raises(TypeError):
        a.srq = 1
    a.srq = None
    for name in ('send_cq', 'recv_cq', 'srq', 'qp_context', 'cap'):
        with pytest.raises(AttributeError):
            delattr(a, name)


def test_qpinitattr_gc_cycle():
    a = QPInitAttr()
    a.qp_context = [a]
    del a
    assert gc.collect() >= 1


def test_qpinitattr_str():
    a = QPInitAttr(qp_type=e.IBV_QPT_RC, cap=QPCap(9, 8, 7, 6, 5),
                   sq_sig_all=0)
    assert str(a) == (
        'QP type             : RC                  \n'
        'SQ sig. all         : 0                   \n'
        'QP caps:\n'
        '    max send WR         : 9                   \n'
        '    max recv WR         : 8                   \n'
        '    max send SGE        : 7                   \n'
        '    max recv SGE        : 6                   \n'
        '    max inline data     : 5                   \n')
    names = {e.IBV_QPT_UC: 'UC', e.IBV_QPT_UD: 'UD',
             e.IBV_QPT_RAW_PACKET: 'Raw Packet', 99: 'Unknown (99)'}
    for t, name in names.items():
        assert str(QPInitAttr(qp_type=t)).startswith(
            f'QP type             : {name:<20}\n')


# ---------------------------------------------------------- QPInitAttrEx

def test_qpinitattrex_defaults():
    a = QPInitAttrEx()
    assert (a.qp_type, a.sq_sig_all, a.comp_mask) == (e.IBV_QPT_UD, 0, 0)
    assert (a.create_flags, a.max_tso_header, a.source_qpn,
            a.send_ops_flags) == (0, 0, 0, 0)
    for name in ('send_cq', 'recv_cq', 'srq', 'pd', 'xrcd', 'ind_table',
                 'hash_conf', 'qp_context'):
        assert getattr(a, name) is None, name
    assert [getattr(a, f) for f in CAP_FIELDS] == [0] * 5


def test_qpinitattrex_keywords():
    a = QPInitAttrEx(qp_type=e.IBV_QPT_RC, cap=QPCap(4, 5, 1, 1, 0),
                     sq_sig_all=1, comp_mask=e.IBV_QP_INIT_ATTR_PD,
                     create_flags=2, max_tso_header=3, source_qpn=4,
                     send_ops_flags=5, max_recv_sge=2)
    assert (a.qp_type, a.sq_sig_all, a.comp_mask, a.create_flags,
            a.max_tso_header, a.source_qpn, a.send_ops_flags) == \
        (e.IBV_QPT_RC, 1, e.IBV_QP_INIT_ATTR_PD, 2, 3, 4, 5)
    assert (a.max_send_wr, a.max_recv_wr, a.max_recv_sge) == (4, 5, 2)
    b = QPInitAttrEx(e.IBV_QPT_UC, None, None, None, None, None, 1, 1)
    assert (b.qp_type, b.sq_sig_all, b.comp_mask) == (e.IBV_QPT_UC, 1, 1)


@pytest.mark.parametrize('field', list(QPIAX_FIELDS) + CAP_FIELDS)
def test_qpinitattrex_field_range(field):
    check_unsigned_field(QPInitAttrEx(), field, QPIAX_FIELDS.get(field, U32))


def test_qpinitattrex_objects():
    a = QPInitAttrEx()
    with pytest.raises(TypeError):
        a.pd = object()
    with pytest.raises(TypeError):
        QPInitAttrEx(pd=1)
    for name in ('xrcd', 'ind_table', 'hash_conf', 'srq'):
        with pytest.raises(TypeError):
            QPInitAttrEx(**{name: object()})
        setattr(a, name, None)
    with pytest.raises(PyverbsUserError):
        QPInitAttrEx(scq=1)


def test_qpinitattrex_mask_flags_str():
    a = QPInitAttrEx()
    assert a.mask_to_str(0) == ''
    assert a.mask_to_str(0x3f) == ('PD XRCD Create Flags Max TSO header '
                                   'Indirection Table RX hash ')
    assert a.flags_to_str(0x1f) == ('Block self mcast loopback Scatter FCS '
                                    'CVLAN stripping Source QPN '
                                    'PCI write end padding ')


def test_qpinitattrex_str():
    a = QPInitAttrEx(qp_type=e.IBV_QPT_RC, comp_mask=5, create_flags=2,
                     max_tso_header=9, source_qpn=77,
                     cap=QPCap(1, 2, 3, 4, 5), sq_sig_all=1)
    assert str(a) == (
        'QP type             : RC                  \n'
        'SQ sig. all         : 1                   \n'
        'QP caps:\n'
        '  max send WR       : 1                   \n'
        '  max recv WR       : 2                   \n'
        '  max send SGE      : 3                   \n'
        '  max recv SGE      : 4                   \n'
        '  max inline data   : 5                   \n'
        'comp mask           : PD Create Flags     \n'
        'create flags        : Scatter FCS         \n'
        'max TSO header      : 9                   \n'
        'Source QPN          : 77                  \n')


# ---------------------------------------------------------------- QPAttr

def test_qpattr_defaults():
    a = QPAttr()
    assert (a.qp_state, a.cur_qp_state, a.port_num, a.path_mtu) == \
        (e.IBV_QPS_INIT, e.IBV_QPS_RESET, 1, e.IBV_MTU_1024)
    for name in QPATTR_FIELDS:
        if name not in ('qp_state', 'cur_qp_state', 'port_num', 'path_mtu'):
            assert getattr(a, name) == 0, name
    assert a.ah_attr.port_num == 0 and a.alt_ah_attr.dlid == 0
    assert a.cap.max_send_wr == 0


def test_qpattr_positional():
    a = QPAttr(e.IBV_QPS_RTR, e.IBV_QPS_INIT, 2, e.IBV_MTU_4096)
    assert (a.qp_state, a.cur_qp_state, a.port_num, a.path_mtu) == \
        (e.IBV_QPS_RTR, e.IBV_QPS_INIT, 2, e.IBV_MTU_4096)
    with pytest.raises(TypeError):
        QPAttr(1, 2, 3, 4, 5)


def test_qpattr_every_field_as_keyword():
    values = {name: (i + 1) for i, name in enumerate(QPATTR_FIELDS)}
    a = QPAttr(**values)
    for name, v in values.items():
        assert getattr(a, name) == v, name
    a = QPAttr(cap=QPCap(3, 4, 5, 6, 7), qp_state=e.IBV_QPS_RTS)
    assert (a.cap.max_recv_wr, a.qp_state) == (4, e.IBV_QPS_RTS)
    with pytest.raises(TypeError):
        QPAttr(qp_typo=1)
    with pytest.raises(TypeError):
        QPAttr(e.IBV_QPS_RTS, qp_state=e.IBV_QPS_RTS)


@pytest.mark.parametrize('field', list(QPATTR_FIELDS))
def test_qpattr_field_range(field):
    check_unsigned_field(QPAttr(), field, QPATTR_FIELDS[field])
    with pytest.raises(OverflowError):
        QPAttr(**{field: QPATTR_FIELDS[field] + 1})


def test_qpattr_ah_attr_copies():
    from pyverbs.addr import AHAttr, GID, GlobalRoute
    gid = 'fe80:0000:0000:0000:0202:c9ff:fe00:0001'
    gr = GlobalRoute(dgid=GID(gid), flow_label=5, sgid_index=2,
                     hop_limit=64, traffic_class=3)
    ah = AHAttr(dlid=3, sl=2, src_path_bits=1, static_rate=4, is_global=1,
                port_num=1, gr=gr)
    a = QPAttr(ah_attr=ah)
    got = a.ah_attr
    assert got is not ah
    assert (got.dlid, got.sl, got.src_path_bits, got.static_rate,
            got.is_global, got.port_num) == (3, 2, 1, 4, 1, 1)
    assert (str(got.dgid), got.flow_label, got.sgid_index, got.hop_limit,
            got.traffic_class) == (gid, 5, 2, 64, 3)
    ah.dlid = 7                     # copied in: a does not change
    assert a.ah_attr.dlid == 3
    got.dlid = 8                    # copied out: a does not change
    assert a.ah_attr.dlid == 3
    a.alt_ah_attr = AHAttr(dlid=9, port_num=2)
    assert (a.alt_ah_attr.dlid, a.alt_ah_attr.port_num) == (9, 2)
    assert a.ah_attr.dlid == 3
    a.ah_attr = None                # ignored, as upstream
    assert a.ah_attr.dlid == 3
    for name in ('ah_attr', 'alt_ah_attr'):
        with pytest.raises(TypeError):
            setattr(a, name, QPCap())
        with pytest.raises(AttributeError):
            delattr(a, name)


def test_qpattr_str():
    from pyverbs.addr import AHAttr, GID, GlobalRoute
    a = QPAttr(e.IBV_QPS_RTS, e.IBV_QPS_RTR, 1, e.IBV_MTU_2048,
               qkey=0x11, rq_psn=2, sq_psn=3, dest_qp_num=4,
               qp_access_flags=e.IBV_ACCESS_LOCAL_WRITE |
               e.IBV_ACCESS_REMOTE_READ, cap=QPCap(1, 2, 3, 4, 5),
               pkey_index=6, alt_pkey_index=7, en_sqd_async_notify=1,
               sq_draining=1, max_rd_atomic=8, max_dest_rd_atomic=9,
               min_rnr_timer=10, timeout=11, retry_cnt=12, rnr_retry=13,
               alt_port_num=2, alt_timeout=14, rate_limit=15)
    a.ah_attr = AHAttr(dlid=3, sl=2, src_path_bits=1, static_rate=4,
                       is_global=1, port_num=1,
                       gr=GlobalRoute(dgid=GID('fe80:0000:0000:0000:0000:'
                                               '0000:0000:0001'),
                                      flow_label=5, sgid_index=2,
                                      hop_limit=64, traffic_class=3))
    f = '{:22}: {:<20}\n'
    i = '  {:22}: {:<20}\n'
    g = '    {:22}: {:<20}\n'

    def ah(port, sl, bits, dlid, rate, is_global):
        # upstream prints the port number twice
        return (i.format('port num', port) + i.format('sl', sl) +
                i.format('source path bits', bits) +
                i.format('dlid', dlid) + i.format('port num', port) +
                i.format('static rate', rate) +
                i.format('is global', is_global))
    expected = (
        f.format('QP state', 'RTS') + f.format('QP current state', 'RTR') +
        f.format('Path MTU', 2048) + f.format('Path mig. state', 'Migrated') +
        f.format('QKey', 17) + f.format('RQ PSN', 2) +
        f.format('SQ PSN', 3) + f.format('Dest QP number', 4) +
        f.format('QP access flags', 'Local write Remote read ') +
        'QP caps:\n' + i.format('max send WR', 1) +
        i.format('max recv WR', 2) + i.format('max send SGE', 3) +
        i.format('max recv SGE', 4) + i.format('max inline data', 5) +
        'AH Attr:\n' + ah(1, 2, 1, 3, 4, 1) +
        g.format('dgid', 'fe80:0000:0000:0000:0000:0000:0000:0001') +
        g.format('flow label', 5) + g.format('sgid index', 2) +
        g.format('hop limit', 64) + g.format('traffic_class', 3) +
        'Alt. AH Attr:\n' + ah(0, 0, 0, 0, 0, 0) +
        f.format('PKey index', 6) + f.format('Alt. PKey index', 7) +
        f.format('En. SQD async notify', 1) + f.format('SQ draining', 1) +
        f.format('Max RD atomic', 8) + f.format('Max dest. RD atomic', 9) +
        f.format('Min RNR timer', 10) + f.format('Port number', 1) +
        f.format('Timeout', 11) + f.format('Retry counter', 12) +
        f.format('RNR retry', 13) + f.format('Alt. port number', 2) +
        f.format('Alt. timeout', 14) + f.format('Rate limit', 15))
    assert str(a) == expected


# ------------------------------------------------------------------- ECE

def test_ece():
    c = ECE()
    assert (c.vendor_id, c.options, c.comp_mask) == (0, 0, 0)
    c = ECE(1, 2, comp_mask=3)
    assert (c.vendor_id, c.options, c.comp_mask) == (1, 2, 3)
    check_unsigned_field(c, 'options', U32)
    assert str(ECE(0x15b3, 0x10, 1)) == (
        'ECE:\n'
        'Vendor ID             : 0x15b3                \n'
        'Options               : 0x10                  \n'
        'Comp Mask             : 0x1                   \n')
    with ECE() as c:                # a PyverbsCM, as upstream
        pass


RATE_LIMIT_FIELDS = {'rate_limit': U32, 'max_burst_sz': U32,
                     'typical_pkt_sz': U16, 'comp_mask': U32}


def test_rate_limit_attr():
    """QPRateLimitAttr (upstream since rdma-core 64): struct
    ibv_qp_rate_limit_attr's four fields, range-checked, upstream's
    printed form."""
    import inspect
    from pyverbs.base import PyverbsObject
    assert issubclass(QPRateLimitAttr, PyverbsObject)
    assert str(inspect.signature(QPRateLimitAttr)) == (
        '(rate_limit=0, max_burst_sz=0, typical_pkt_sz=0, comp_mask=0)')
    a = QPRateLimitAttr()
    assert [getattr(a, f) for f in RATE_LIMIT_FIELDS] == [0, 0, 0, 0]
    a = QPRateLimitAttr(5000, 64, typical_pkt_sz=1500, comp_mask=1)
    assert [getattr(a, f) for f in RATE_LIMIT_FIELDS] == [5000, 64, 1500, 1]
    assert str(a) == (
        'Rate limit (kbps)     : 5000                \n'
        'Max burst size        : 64                  \n'
        'Typical packet size   : 1500                \n'
        'Comp mask             : 1                   \n')
    for field, top in RATE_LIMIT_FIELDS.items():
        check_unsigned_field(a, field, top)
        assert getattr(QPRateLimitAttr(**{field: top}), field) == top
        with pytest.raises(OverflowError):
            QPRateLimitAttr(**{field: top + 1})
        with pytest.raises(OverflowError):
            QPRateLimitAttr(**{field: -1})
        with pytest.raises(TypeError):
            QPRateLimitAttr(**{field: '1'})
    with pytest.raises(TypeError):
        QPRateLimitAttr(1, 2, 3, 4, 5)
    with pytest.raises(TypeError):
        QPRateLimitAttr(rate=1)


# ---------------------------------------------------- QP without a device

@pytest.mark.parametrize('creator', [None, 1, object(), QPCap()])
def test_qp_rejects_bad_creator(creator):
    with pytest.raises(TypeError):
        QP(creator, QPInitAttr())


def test_qp_needs_init_attr():
    with pytest.raises(TypeError):
        QP()
    with pytest.raises(TypeError):
        QP(None)


def test_qp_unopened():
    from pyverbs.wr import RecvWR, SendWR, SGE
    qp = QP.__new__(QP)
    assert qp.qp == 0 and qp.pd is None and qp.scq is None
    for name in ('qp_num', 'qp_state', 'qp_type'):
        with pytest.raises(PyverbsUserError):
            getattr(qp, name)
    sge = SGE(0, 0, 0)
    with pytest.raises(PyverbsUserError):
        qp.post_send(SendWR(num_sge=1, sg=[sge]))
    with pytest.raises(PyverbsUserError):
        qp.post_recv(RecvWR(num_sge=1, sg=[sge]))
    with pytest.raises(PyverbsUserError):
        qp.to_rts(QPAttr())
    with pytest.raises(PyverbsUserError):
        qp.modify(QPAttr(), 1)
    with pytest.raises(PyverbsUserError):
        qp.query(1)
    with pytest.raises(PyverbsUserError):
        str(qp)
    with pytest.raises(PyverbsUserError):
        qp.establish(1, 2)
    with pytest.raises(PyverbsUserError):
        qp.modify_rate_limit(QPRateLimitAttr())
    for bad in (None, QPAttr(), 5):
        with pytest.raises(TypeError, match='QPRateLimitAttr'):
            qp.modify_rate_limit(bad)
    qp.close()
    qp.close()


def test_qpex_unopened_and_databuffer():
    from pyverbs.qp import DataBuffer, QPEx
    assert issubclass(QPEx, QP)
    qp = QPEx.__new__(QPEx)
    for call in (qp.wr_start, qp.wr_send, qp.wr_complete, qp.wr_abort,
                 lambda: qp.wr_rdma_write(1, 2), lambda: qp.wr_id):
        with pytest.raises(PyverbsUserError):
            call()
    with pytest.raises(TypeError):
        qp.wr_rdma_write(1)
    with pytest.raises(OverflowError):
        qp.wr_rdma_write(-1, 0)
    d = DataBuffer(0x1000, 64)
    assert (d.addr, d.length) == (0x1000, 64)
    with pytest.raises(OverflowError):
        DataBuffer(-1, 1)
    with pytest.raises(TypeError):
        DataBuffer(1.0, 1)


# ----------------------------------------------------------- on a device

def qia(cq, qp_type, **kw):
    return QPInitAttr(qp_type=qp_type, scq=cq, rcq=cq,
                      cap=QPCap(max_send_wr=4, max_recv_wr=4), **kw)


def qiax(cq, pd, qp_type, **kw):
    return QPInitAttrEx(qp_type=qp_type, scq=cq, rcq=cq, pd=pd,
                        comp_mask=e.IBV_QP_INIT_ATTR_PD,
                        cap=QPCap(max_send_wr=4, max_recv_wr=4), **kw)


QP_TYPES = [e.IBV_QPT_RC, e.IBV_QPT_UC, e.IBV_QPT_UD]
# upstream: with qp_attr, UD goes to RTS, connected types to INIT
STATE_WITH_ATTR = {e.IBV_QPT_RC: e.IBV_QPS_INIT, e.IBV_QPT_UC: e.IBV_QPS_INIT,
                   e.IBV_QPT_UD: e.IBV_QPS_RTS}


@pytest.mark.parametrize('qp_type', QP_TYPES)
@pytest.mark.parametrize('ex', [False, True])
@pytest.mark.parametrize('with_attr', [False, True])
def test_create_qp(ctx, pd, cq, port, qp_type, ex, with_attr):
    attr = QPAttr(port_num=port, qkey=0x1234) if with_attr else None
    if ex:
        qp = QP(ctx, qiax(cq, pd, qp_type), attr)
    else:
        qp = QP(pd, qia(cq, qp_type), attr)
    with qp:
        assert qp.qp_type == qp_type
        assert qp.qp_state == (STATE_WITH_ATTR[qp_type] if with_attr
                               else e.IBV_QPS_RESET)
        assert qp.qp_num > 1 and qp.qp != 0
        assert qp.pd is pd and qp.scq is cq and qp.rcq is cq
        assert str(qp) == ('{:22}: {:<20}\n'.format('QP type', {
            e.IBV_QPT_RC: 'RC', e.IBV_QPT_UC: 'UC',
            e.IBV_QPT_UD: 'UD'}[qp_type]) +
            '{:22}: {:<20}\n'.format('  number', qp.qp_num) +
            '{:22}: {:<20}\n'.format('  state', {
                e.IBV_QPS_RESET: 'Reset', e.IBV_QPS_INIT: 'Init',
                e.IBV_QPS_RTS: 'RTS'}[qp.qp_state]))
    assert qp.closed and qp.qp == 0
    with pytest.raises(PyverbsUserError):
        qp.qp_num


def test_create_writes_back_caps(pd, cq):
    attr = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                      cap=QPCap(max_send_wr=3, max_recv_wr=3,
                                max_inline_data=1))
    with QP(pd, attr) as qp:
        # ibv_create_qp() reports the actual capabilities (>= requested)
        assert attr.max_send_wr >= 3 and attr.max_recv_wr >= 3
        qa, qi = qp.query(e.IBV_QP_CAP | e.IBV_QP_STATE)
        assert qa.qp_state == e.IBV_QPS_RESET
        assert qi.cap.max_send_wr >= 3 and qi.cap.max_recv_wr >= 3
        assert qi.max_inline_data >= 1
        assert qi.send_cq is cq and qi.recv_cq is cq


def test_qp_context_kept(pd, cq):
    marker = object()
    with QP(pd, qia(cq, e.IBV_QPT_UD, qp_context=marker)) as qp:
        assert qp.qp_context is marker


def test_distinct_cqs(ctx, pd, cq):
    from pyverbs.cq import CQ
    with CQ(ctx, 8) as rcq:
        attr = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=rcq)
        qp = QP(pd, attr)
        assert qp.scq is cq and qp.rcq is rcq
        _, qi = qp.query(e.IBV_QP_CAP)
        assert qi.recv_cq is rcq
    assert qp.closed and not cq.closed


def test_create_illegal_caps(pd, cq):
    attr = qia(cq, e.IBV_QPT_UD)
    attr.max_send_wr = U32
    with pytest.raises(PyverbsRDMAError, match='Failed to create QP') as ex:
        QP(pd, attr)
    assert ex.value.error_code not in (0, -1)


def test_create_missing_cq_refused(ctx, pd, cq):
    with pytest.raises(PyverbsUserError, match='send CQ'):
        QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, rcq=cq))
    with pytest.raises(PyverbsUserError, match='receive CQ'):
        QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq))
    attr = qiax(cq, None, e.IBV_QPT_RC)
    with pytest.raises(PyverbsUserError, match='pd'):
        QP(ctx, attr)
    attr = qiax(cq, pd, e.IBV_QPT_RC,)
    attr.comp_mask |= e.IBV_QP_INIT_ATTR_XRCD
    with pytest.raises(PyverbsUserError, match='XRCD'):
        QP(ctx, attr)


def test_wrong_init_attr_type(ctx, pd, cq):
    with pytest.raises(TypeError):
        QP(pd, qiax(cq, pd, e.IBV_QPT_RC))
    with pytest.raises(TypeError):
        QP(ctx, qia(cq, e.IBV_QPT_RC))
    with pytest.raises(TypeError):
        QP(pd, qia(cq, e.IBV_QPT_RC), QPCap())


def test_cq_of_another_context_refused(ctx2, pd, cq):
    from pyverbs.cq import CQ
    from pyverbs.pd import PD
    with CQ(ctx2, 8) as other:
        with pytest.raises(PyverbsUserError, match='another Context'):
            QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=other, rcq=other))
        with pytest.raises(PyverbsUserError, match='another Context'):
            QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=other))
    with PD(ctx2) as pd2:
        with pytest.raises(PyverbsUserError, match='another Context'):
            QP(pd.ctx, qiax(cq, pd2, e.IBV_QPT_RC))


def test_closed_parents_refused(ctx, pd, cq):
    from pyverbs.cq import CQ
    from pyverbs.pd import PD
    c = CQ(ctx, 4)
    c.close()
    with pytest.raises(PyverbsUserError):
        QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=c, rcq=c))
    p = PD(ctx)
    p.close()
    with pytest.raises(PyverbsUserError):
        QP(p, qia(cq, e.IBV_QPT_RC))


def test_ud_transitions(pd, cq, port):
    # upstream's test_modify_ud_qp
    with QP(pd, qia(cq, e.IBV_QPT_UD)) as qp:
        qa = QPAttr(port_num=port)
        qa.qkey = 0x123
        qp.to_init(qa)
        assert qa.qp_state == e.IBV_QPS_INIT    # set by to_init, upstream
        assert qp.qp_state == e.IBV_QPS_INIT
        assert qp.query(e.IBV_QP_QKEY)[0].qkey == 0x123
        qp.to_rtr(qa)
        assert qp.qp_state == e.IBV_QPS_RTR
        qa.sq_psn = 0x45
        qp.to_rts(qa)
        assert qp.qp_state == e.IBV_QPS_RTS
        assert qp.query(e.IBV_QP_SQ_PSN)[0].sq_psn == 0x45
        qa.qp_state = e.IBV_QPS_RESET
        qp.modify(qa, e.IBV_QP_STATE)
        assert qp.qp_state == e.IBV_QPS_RESET
        # to_rts from RESET goes through INIT and RTR by itself
        qp.to_rts(QPAttr(port_num=port, qkey=7, sq_psn=9))
        assert qp.qp_state == e.IBV_QPS_RTS
        assert qp.query(e.IBV_QP_SQ_PSN)[0].sq_psn == 9


def test_rc_to_rts_and_query(ctx, pd, cq, port, gid_index):
    from pyverbs.addr import AHAttr, GlobalRoute
    with QP(pd, qia(cq, e.IBV_QPT_RC), QPAttr(port_num=port)) as qp:
        assert qp.qp_state == e.IBV_QPS_INIT
        gr = GlobalRoute(dgid=ctx.query_gid(port, gid_index),
                         sgid_index=gid_index)
        attr = QPAttr(port_num=port, path_mtu=e.IBV_MTU_1024,
                      dest_qp_num=qp.qp_num, rq_psn=0x111, sq_psn=0x222,
                      max_dest_rd_atomic=1, max_rd_atomic=1,
                      min_rnr_timer=12, timeout=14, retry_cnt=7,
                      rnr_retry=7,
                      ah_attr=AHAttr(port_num=port, is_global=1, gr=gr))
        qp.to_rtr(attr)
        assert qp.qp_state == e.IBV_QPS_RTR
        qp.to_rts(attr)
        assert qp.qp_state == e.IBV_QPS_RTS
        qa, _ = qp.query(e.IBV_QP_STATE | e.IBV_QP_DEST_QPN |
                         e.IBV_QP_RQ_PSN | e.IBV_QP_SQ_PSN | e.IBV_QP_AV |
                         e.IBV_QP_TIMEOUT)
        assert (qa.qp_state, qa.dest_qp_num, qa.rq_psn, qa.sq_psn,
                qa.timeout) == (e.IBV_QPS_RTS, qp.qp_num, 0x111, 0x222, 14)
        assert qa.ah_attr.is_global == 1
        assert str(qa.ah_attr.dgid) == str(gr.dgid)


def test_modify_bad_attrs(pd, cq, port):
    with QP(pd, qia(cq, e.IBV_QPT_RC)) as qp:
        # RESET -> RTR is not a valid transition
        bad = QPAttr(qp_state=e.IBV_QPS_RTR)
        with pytest.raises(PyverbsRDMAError, match='Failed to modify QP') \
                as ex:
            qp.modify(bad, e.IBV_QP_STATE)
        assert ex.value.error_code == errno.EINVAL
        assert qp.qp_state == e.IBV_QPS_RESET
        # RTR without the path attributes its type needs
        qp.to_init(QPAttr(port_num=port))
        with pytest.raises(PyverbsRDMAError, match='Failed to modify QP'):
            qp.modify(QPAttr(qp_state=e.IBV_QPS_RTR), e.IBV_QP_STATE)
        # to_rtr() on RoCE without a GRH in the path
        with pytest.raises(PyverbsRDMAError,
                           match='Failed to modify QP state to RTR'):
            qp.to_rtr(QPAttr(port_num=port, dest_qp_num=qp.qp_num))
        assert qp.qp_state == e.IBV_QPS_INIT
        with pytest.raises(PyverbsRDMAError,
                           match='Failed to modify QP state to init'):
            QP(pd, qia(cq, e.IBV_QPT_RC), QPAttr(port_num=77))
        with pytest.raises(TypeError):
            qp.modify(None, e.IBV_QP_STATE)
        with pytest.raises(OverflowError):
            qp.modify(QPAttr(), -1)
        with pytest.raises(TypeError):
            qp.to_rts(None)


def test_query_data_in_order(pd, cq, port):
    with QP(pd, qia(cq, e.IBV_QPT_UD), QPAttr(port_num=port)) as qp:
        assert qp.query_data_in_order(e.IBV_WR_SEND) in (0, 1)


def test_modify_rate_limit_on_rxe(pd, cq, port):
    """ibv_modify_qp_rate_limit(): rxe has no such op, so libibverbs
    answers EOPNOTSUPP, a clean PyverbsRDMAError; the QP is unchanged.
    (Upstream's test_raw_qp_rate_limit_modify needs a RAW_PACKET QP, which
    rxe has not either: it skips.)"""
    with QP(pd, qia(cq, e.IBV_QPT_UD), QPAttr(port_num=port)) as qp:
        for attr in (QPRateLimitAttr(rate_limit=0),
                     QPRateLimitAttr(5000, 1024, 1500)):
            try:
                qp.modify_rate_limit(attr)
            except PyverbsRDMAError as ex:
                assert ex.error_code == errno.EOPNOTSUPP
                assert ex.func == 'ibv_modify_qp_rate_limit'
                assert 'Failed to modify QP rate limit' in str(ex)
            else:
                pytest.skip('the device limits QP rates')
        assert qp.qp_state == e.IBV_QPS_RTS
    with pytest.raises(PyverbsUserError):
        qp.modify_rate_limit(QPRateLimitAttr())


def test_ece_on_rxe(pd, cq):
    with QP(pd, qia(cq, e.IBV_QPT_RC)) as qp:
        qp.set_ece(ECE())       # vendor_id 0: nothing to do
        try:
            ece = qp.query_ece()
        except PyverbsRDMAError as ex:
            assert ex.error_code == errno.EOPNOTSUPP
        else:
            assert isinstance(ece, ECE)
        with pytest.raises(TypeError):
            qp.set_ece(QPAttr())


@pytest.mark.parametrize('closer', ['pd', 'cq', 'ctx'])
def test_close_cascades(dev_name, closer):
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.pd import PD
    ctx = Context(name=dev_name)
    objs = {'ctx': ctx, 'pd': PD(ctx), 'cq': CQ(ctx, 8)}
    qp = QP(objs['pd'], qia(objs['cq'], e.IBV_QPT_RC))
    qpx = QP(ctx, qiax(objs['cq'], objs['pd'], e.IBV_QPT_UD))
    objs[closer].close()
    assert qp.closed and qpx.closed
    with pytest.raises(PyverbsUserError):
        qp.qp_state
    with pytest.raises(PyverbsUserError):
        qpx.to_init(QPAttr())
    ctx.close()


def test_recv_cq_close_cascades(ctx, pd, cq):
    from pyverbs.cq import CQ
    rcq = CQ(ctx, 8)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=rcq))
    rcq.close()
    assert qp.closed and not cq.closed and not pd.closed


def test_qp_keeps_parents_alive(dev_name):
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.pd import PD
    ctx = Context(name=dev_name)
    cq = CQ(ctx, 8)
    qp = QP(PD(ctx), qia(cq, e.IBV_QPT_UD))
    del cq
    gc.collect()
    assert not qp.pd.closed and not qp.scq.closed
    assert qp.qp_state == e.IBV_QPS_RESET
    ctx.close()
    assert qp.closed


def test_qp_reinit_refused(pd, cq):
    with QP(pd, qia(cq, e.IBV_QPT_UD)) as qp:
        with pytest.raises(PyverbsUserError):
            qp.__init__(pd, qia(cq, e.IBV_QPT_UD))


def test_establish(pd, cq, port, ctx, gid_index):
    from pyverbs.addr import AHAttr, GlobalRoute
    with QP(pd, qia(cq, e.IBV_QPT_UD)) as qp:
        qp.establish(qkey=0x77, local_psn=5, port_num=port)
        assert qp.qp_state == e.IBV_QPS_RTS
        qa, _ = qp.query(e.IBV_QP_QKEY | e.IBV_QP_SQ_PSN)
        assert (qa.qkey, qa.sq_psn) == (0x77, 5)
    with QP(pd, qia(cq, e.IBV_QPT_RC)) as qp:
        with pytest.raises(PyverbsUserError, match='ah_attr'):
            qp.establish(qp.qp_num, 1)
        gr = GlobalRoute(dgid=ctx.query_gid(port, gid_index),
                         sgid_index=gid_index)
        qp.establish(qp.qp_num, 0x10, AHAttr(port_num=port, is_global=1,
                                             gr=gr),
                     local_psn=0x20, port_num=port, timeout=10)
        assert qp.qp_state == e.IBV_QPS_RTS
        qa, _ = qp.query(e.IBV_QP_RQ_PSN | e.IBV_QP_SQ_PSN |
                         e.IBV_QP_TIMEOUT | e.IBV_QP_ACCESS_FLAGS)
        assert (qa.rq_psn, qa.sq_psn, qa.timeout) == (0x10, 0x20, 10)
        assert qa.qp_access_flags == (e.IBV_ACCESS_LOCAL_WRITE |
                                      e.IBV_ACCESS_REMOTE_WRITE |
                                      e.IBV_ACCESS_REMOTE_READ)


def test_attach_detach_mcast(ctx, pd):
    """attach_mcast/detach_mcast (beyond upstream; python-rdma's QP has
    them): a UD QP joins and leaves a multicast GID (given as a GID, its
    string or 16 bytes); other QP types, bad GIDs and closed QPs raise."""
    from pyverbs.addr import GID
    from pyverbs.cq import CQ
    mgid = 'ff0e:0000:0000:0000:0000:ffff:e001:0109'   # 224.1.1.9 on RoCE
    cq = CQ(ctx, 8)
    ud = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                           cap=QPCap()))
    ud.attach_mcast(GID(mgid))
    ud.detach_mcast(mgid, 0)
    ud.attach_mcast(bytes.fromhex(mgid.replace(':', '')), lid=0)
    ud.detach_mcast(gid=GID(mgid))
    with pytest.raises(PyverbsRDMAError) as ex:
        ud.detach_mcast(mgid)                   # not attached any more
    assert ex.value.func == 'ibv_detach_mcast'
    for bad in (None, 'not a gid', b'short', 1.5):
        with pytest.raises((TypeError, ValueError, PyverbsUserError)):
            ud.attach_mcast(bad)
    with pytest.raises((OverflowError, ValueError, PyverbsUserError)):
        ud.attach_mcast(mgid, 2**16)
    rc = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap()))
    with pytest.raises(PyverbsRDMAError) as ex:
        rc.attach_mcast(mgid)
    assert ex.value.func == 'ibv_attach_mcast'
    assert ex.value.error_code == errno.EINVAL
    # the kernel refuses to destroy an attached QP: close leaves first
    ud.attach_mcast(mgid)
    ud.close()
    with pytest.raises(PyverbsUserError):
        ud.attach_mcast(mgid)
    rc.close()
    cq.close()
