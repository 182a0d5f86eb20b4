# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""GID, GRH, GlobalRoute, AHAttr and AH (src/pyverbs/_native/addr.c)."""
import errno
import pickle

import pytest
from hypothesis import given, settings, strategies as st

from pyverbs.addr import GID, GRH, GlobalRoute, AHAttr, AH
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError

# the sanitize stage of tools/run-tests runs this module's host tests under
# valgrind's memcheck (-m memcheck)
pytestmark = pytest.mark.memcheck

# the host is shared: no deadline; a few dozen examples per property
PROPERTY = settings(deadline=None, max_examples=60)
LL_GID = 'fe80:0000:0000:0000:0202:c9ff:fe00:0001'
LL_RAW = bytes.fromhex('fe800000000000000202c9fffe000001')
ZERO_GID = '0000:0000:0000:0000:0000:0000:0000:0000'
FMT = '{:22}: {:<20}\n'
AH_FMT = '  {:22}: {:<20}\n'

U8, U16, U32 = 0xff, 0xffff, 0xffffffff


def gid_text(raw):
    h = raw.hex()
    return ':'.join(h[i:i + 4] for i in range(0, 32, 4))


# ---------------------------------------------------------------- GID

def test_gid_default_is_zero():
    g = GID()
    assert str(g) == ZERO_GID
    assert g.gid == ZERO_GID
    assert g.raw == bytes(16)
    assert GID(None) == g


def test_gid_parse_and_format():
    g = GID(LL_GID)
    assert str(g) == LL_GID
    assert g.gid == LL_GID
    assert g.raw == LL_RAW
    # upper case is accepted, printing is lower case (as upstream)
    assert GID(LL_GID.upper()).gid == LL_GID
    assert GID(val=LL_GID) == g


def test_gid_from_raw_bytes_and_gid():
    assert GID(LL_RAW).gid == LL_GID
    assert GID(bytearray(LL_RAW)).gid == LL_GID
    assert GID(memoryview(LL_RAW)).gid == LL_GID
    src = GID(LL_GID)
    copy = GID(src)
    assert copy == src and copy is not src
    copy.gid = ZERO_GID
    assert src.gid == LL_GID


@PROPERTY
@given(st.binary(min_size=16, max_size=16))
def test_gid_roundtrip(raw):
    text = gid_text(raw)
    g = GID(text)
    assert g.raw == raw
    assert str(g) == text
    assert GID(g.gid) == g
    assert GID(raw) == g
    assert hash(GID(text)) == hash(g)


@pytest.mark.parametrize('bad', [
    '', 'fe80::1', 'fe80:0000:0000:0000:0000:0000:0000',
    'fe80:0000:0000:0000:0000:0000:0000:0001:0000',
    'fe80:0000:0000:0000:0000:0000:0000:001',
    'fe80:0000:0000:0000:0000:0000:0000:00001',
    'fe80:0000:0000:0000:0000:0000:0000:000g',
    'fe80:0000:0000:0000:0000:0000:0000:-001',
    'fe80:0000:0000:0000:0000:0000:0000: 001',
    'fe80:0000:0000:0000:0000:0000:0000:0_01',
    'fe80-0000-0000-0000-0000-0000-0000-0001',
    'fe80:0000:0000:0000:0000:0000:0000:0001:',
    ' fe80:0000:0000:0000:0000:0000:0000:0001',
    'fe80:0000:0000:0000:0000:0000:0000:00é1',
    '\x00' * 39,
])
def test_gid_bad_strings(bad):
    with pytest.raises(PyverbsUserError, match='Invalid GID value'):
        GID(bad)
    g = GID(LL_GID)
    with pytest.raises(PyverbsUserError):
        g.gid = bad
    assert g.gid == LL_GID  # unchanged by the failed set


@pytest.mark.parametrize('bad', [12, 1.5, object(), ['fe80'], True])
def test_gid_wrong_types(bad):
    with pytest.raises(TypeError):
        GID(bad)


@pytest.mark.parametrize('n', [0, 15, 17])
def test_gid_raw_wrong_length(n):
    with pytest.raises(ValueError):
        GID(bytes(n))


def test_gid_setter_and_set_gid():
    g = GID()
    g.gid = LL_GID
    assert g.raw == LL_RAW
    g._set_gid(ZERO_GID)
    assert g.raw == bytes(16)
    g.gid = GID(LL_GID)
    assert str(g) == LL_GID
    with pytest.raises(AttributeError):
        del g.gid
    with pytest.raises(AttributeError):
        g.raw = bytes(16)


def test_gid_equality_hash_repr_pickle():
    a, b = GID(LL_GID), GID(LL_RAW)
    assert a == b and not (a != b)
    assert a != GID()
    assert a != LL_GID  # a GID never equals a str
    assert len({a, b, GID()}) == 2
    assert repr(a) == f"GID('{LL_GID}')"
    assert pickle.loads(pickle.dumps(a)) == a
    with pytest.raises(TypeError):
        a < b


def test_gid_subclass():
    class MyGID(GID):
        pass
    g = MyGID(LL_GID)
    assert g == GID(LL_GID)
    assert repr(g).startswith('MyGID(')


# ---------------------------------------------------------------- GRH

def test_grh_defaults_and_print():
    h = GRH()
    assert (h.sgid, h.dgid) == (ZERO_GID, ZERO_GID)
    assert (h.version_tclass_flow, h.paylen, h.next_hdr, h.hop_limit) == \
        (0, 0, 0, 1)
    assert str(h) == (FMT.format('DGID', ZERO_GID) +
                      FMT.format('SGID', ZERO_GID) +
                      FMT.format('version tclass flow', 0) +
                      FMT.format('paylen', 0) +
                      FMT.format('next header', 0) +
                      FMT.format('hop limit', 1))


def test_grh_args():
    s, d = GID(LL_GID), GID(ZERO_GID)
    h = GRH(s, d, 0x60000000, 100, 0x1b, 64)
    assert (h.sgid, h.dgid) == (LL_GID, ZERO_GID)
    assert (h.version_tclass_flow, h.paylen, h.next_hdr, h.hop_limit) == \
        (0x60000000, 100, 0x1b, 64)
    h2 = GRH(dgid=LL_GID, sgid=LL_RAW, hop_limit=3)
    assert h2.dgid == LL_GID and h2.sgid == LL_GID and h2.hop_limit == 3
    h2.dgid = ZERO_GID
    h2.sgid = GID()
    assert h2.dgid == h2.sgid == ZERO_GID
    with pytest.raises(PyverbsUserError):
        h2.dgid = 'nope'
    with pytest.raises(TypeError):
        GRH(sgid=5)


GRH_FIELDS = [('version_tclass_flow', U32), ('paylen', U16),
              ('next_hdr', U8), ('hop_limit', U8)]
GR_FIELDS = [('flow_label', U32), ('sgid_index', U8), ('hop_limit', U8),
             ('traffic_class', U8)]
AHATTR_FIELDS = [('dlid', U16), ('sl', U8), ('src_path_bits', U8),
                 ('static_rate', U8), ('port_num', U8), ('is_global', U8)]


def check_field_ranges(obj, name, top):
    setattr(obj, name, top)
    assert getattr(obj, name) == top
    setattr(obj, name, 0)
    assert getattr(obj, name) == 0
    for bad in (top + 1, -1, 1 << 64):
        with pytest.raises(OverflowError):
            setattr(obj, name, bad)
    assert getattr(obj, name) == 0
    for bad in (1.0, '1', None, b'\x01'):
        with pytest.raises(TypeError):
            setattr(obj, name, bad)
    with pytest.raises(AttributeError):
        delattr(obj, name)


@pytest.mark.parametrize('name,top', GRH_FIELDS)
def test_grh_field_ranges(name, top):
    check_field_ranges(GRH(), name, top)
    with pytest.raises(OverflowError):
        GRH(**{name: top + 1})
    with pytest.raises(TypeError):
        GRH(**{name: 1.5})


@PROPERTY
@given(st.sampled_from(GRH_FIELDS), st.data())
def test_grh_fields_property(field, data):
    name, top = field
    v = data.draw(st.integers(0, top))
    h = GRH(**{name: v})
    assert getattr(h, name) == v
    bad = data.draw(st.one_of(st.integers(top + 1, 1 << 70),
                              st.integers(-(1 << 70), -1)))
    with pytest.raises(OverflowError):
        setattr(h, name, bad)
    assert getattr(h, name) == v


# ---------------------------------------------------------------- GlobalRoute

def test_global_route_defaults_and_print():
    gr = GlobalRoute()
    assert gr.dgid == ZERO_GID
    assert (gr.flow_label, gr.sgid_index, gr.hop_limit, gr.traffic_class) == \
        (0, 0, 1, 0)
    gr = GlobalRoute(dgid=GID(LL_GID), flow_label=5, sgid_index=3,
                     hop_limit=64, traffic_class=7)
    assert str(gr) == (FMT.format('DGID', LL_GID) +
                       FMT.format('flow label', 5) +
                       FMT.format('sgid index', 3) +
                       FMT.format('hop limit', 64) +
                       FMT.format('traffic class', 7))


def test_global_route_dgid_forms():
    assert GlobalRoute(LL_GID).dgid == LL_GID
    assert GlobalRoute(dgid=LL_RAW).dgid == LL_GID
    gr = GlobalRoute()
    gr.dgid = GID(LL_GID)
    assert gr.dgid == LL_GID
    gr.dgid = ZERO_GID
    assert gr.dgid == ZERO_GID
    with pytest.raises(TypeError):
        gr.dgid = 3
    with pytest.raises(TypeError):
        GlobalRoute(dgid=3.0)
    with pytest.raises(PyverbsUserError):
        GlobalRoute(dgid='::1')
    with pytest.raises(TypeError):
        GlobalRoute(1, 2, 3, 4, 5, 6)


def test_global_route_copies_dgid():
    g = GID(LL_GID)
    gr = GlobalRoute(dgid=g)
    g.gid = ZERO_GID
    assert gr.dgid == LL_GID


@pytest.mark.parametrize('name,top', GR_FIELDS)
def test_global_route_field_ranges(name, top):
    check_field_ranges(GlobalRoute(), name, top)
    with pytest.raises(OverflowError):
        GlobalRoute(**{name: top + 1})


@PROPERTY
@given(st.sampled_from(GR_FIELDS), st.data())
def test_global_route_fields_property(field, data):
    name, top = field
    v = data.draw(st.integers(0, top))
    gr = GlobalRoute(**{name: v})
    assert getattr(gr, name) == v
    with pytest.raises(OverflowError):
        setattr(gr, name, data.draw(st.integers(top + 1, 1 << 70)))
    assert getattr(gr, name) == v


# ---------------------------------------------------------------- AHAttr

def test_ah_attr_defaults_and_print():
    a = AHAttr()
    assert (a.dlid, a.sl, a.src_path_bits, a.static_rate, a.is_global,
            a.port_num) == (0, 0, 0, 0, 0, 1)
    # the GRH fields read as None on a non-global address, as upstream
    assert (a.dgid, a.flow_label, a.sgid_index, a.hop_limit,
            a.traffic_class) == (None,) * 5
    assert str(a) == (AH_FMT.format('port num', 1) +
                      AH_FMT.format('sl', 0) +
                      AH_FMT.format('source path bits', 0) +
                      AH_FMT.format('dlid', 0) +
                      AH_FMT.format('static rate', 0) +
                      AH_FMT.format('is global', 0))


def test_ah_attr_global():
    gr = GlobalRoute(dgid=GID(LL_GID), flow_label=5, sgid_index=3,
                     hop_limit=64, traffic_class=7)
    a = AHAttr(dlid=3, sl=2, src_path_bits=1, static_rate=4, is_global=1,
               port_num=2, gr=gr)
    assert (a.dlid, a.sl, a.src_path_bits, a.static_rate, a.is_global,
            a.port_num) == (3, 2, 1, 4, 1, 2)
    assert (a.dgid, a.flow_label, a.sgid_index, a.hop_limit,
            a.traffic_class) == (LL_GID, 5, 3, 64, 7)
    assert str(a) == (AH_FMT.format('port num', 2) +
                      AH_FMT.format('sl', 2) +
                      AH_FMT.format('source path bits', 1) +
                      AH_FMT.format('dlid', 3) +
                      AH_FMT.format('static rate', 4) +
                      AH_FMT.format('is global', 1) +
                      AH_FMT.format('dgid', LL_GID) +
                      AH_FMT.format('flow label', 5) +
                      AH_FMT.format('sgid index', 3) +
                      AH_FMT.format('hop limit', 64) +
                      AH_FMT.format('traffic_class', 7))
    # gr was copied in
    gr.sgid_index = 9
    assert a.sgid_index == 3


def test_ah_attr_is_global_bool():
    gr = GlobalRoute(dgid=LL_GID, sgid_index=1)
    a = AHAttr(is_global=True, gr=gr, port_num=1)
    assert a.is_global == 1 and a.sgid_index == 1
    a.is_global = False
    assert a.is_global == 0 and a.dgid is None
    a.is_global = True
    assert a.dgid == LL_GID


def test_ah_attr_global_needs_gr():
    with pytest.raises(PyverbsUserError, match='gr parameter is None'):
        AHAttr(is_global=1)
    with pytest.raises(TypeError):
        AHAttr(is_global=1, gr=GID())
    with pytest.raises(TypeError):
        AHAttr(gr='fe80')


def test_ah_attr_non_global_ignores_gr():
    a = AHAttr(gr=GlobalRoute(dgid=LL_GID, sgid_index=4))
    assert a.is_global == 0
    a.is_global = 1
    assert a.dgid == ZERO_GID and a.sgid_index == 0


def test_ah_attr_grh_setters():
    a = AHAttr()
    a.flow_label = 0xfffff
    a.sgid_index = 2
    a.hop_limit = 9
    a.traffic_class = 1
    a.dgid = LL_GID
    assert a.flow_label is None  # still not global
    a.is_global = 1
    assert (a.dgid, a.flow_label, a.sgid_index, a.hop_limit,
            a.traffic_class) == (LL_GID, 0xfffff, 2, 9, 1)
    with pytest.raises(PyverbsUserError):
        a.dgid = 'x'
    with pytest.raises(OverflowError):
        a.sgid_index = 256


def test_ah_attr_gr_property():
    a = AHAttr(is_global=1, gr=GlobalRoute(dgid=LL_GID, hop_limit=5))
    gr = a.gr
    assert isinstance(gr, GlobalRoute)
    assert gr.dgid == LL_GID and gr.hop_limit == 5
    gr.hop_limit = 6  # a copy
    assert a.hop_limit == 5
    a.gr = GlobalRoute(sgid_index=7)
    assert a.sgid_index == 7 and a.dgid == ZERO_GID
    with pytest.raises(TypeError):
        a.gr = None


@pytest.mark.parametrize('name,top', AHATTR_FIELDS)
def test_ah_attr_field_ranges(name, top):
    check_field_ranges(AHAttr(), name, top)
    with pytest.raises(OverflowError):
        AHAttr(**{name: top + 1})
    with pytest.raises(TypeError):
        AHAttr(**{name: 1.5})


@PROPERTY
@given(st.sampled_from(AHATTR_FIELDS), st.data())
def test_ah_attr_fields_property(field, data):
    name, top = field
    v = data.draw(st.integers(0, top))
    a = AHAttr()
    setattr(a, name, v)
    assert getattr(a, name) == v
    with pytest.raises(OverflowError):
        setattr(a, name, data.draw(st.integers(-(1 << 70), -1)))
    assert getattr(a, name) == v


def test_ah_attr_init_from_ud_param_refuses_non_udparam():
    # the real conversion is exercised by tests/test_cmid.py in the VM
    for bad in (None, 1, AHAttr()):
        with pytest.raises(TypeError):
            AHAttr().init_from_ud_param(bad)


# ---------------------------------------------------------------- AH (host)

@pytest.mark.parametrize('args,kwargs', [
    ((), {}),
    ((None,), {}),
    ((AHAttr(),), {}),
    ((object(),), {'attr': AHAttr()}),
    # attr may come second positionally (pyverbs-c); the rest stays keyword
    # only, a PD is still needed, and attr is given once
    ((object(), AHAttr()), {}),
    ((None, AHAttr()), {}),
    ((object(), AHAttr()), {'attr': AHAttr()}),
    ((object(), AHAttr(), None), {}),
    ((object(), AHAttr(), None, None, 1), {}),
])
def test_ah_bad_arguments(args, kwargs):
    with pytest.raises(TypeError):
        AH(*args, **kwargs)


# ---------------------------------------------------------------- AH (device)

def roce_attr(ctx, port, gid_index):
    gr = GlobalRoute(dgid=ctx.query_gid(port, gid_index),
                     sgid_index=gid_index)
    return AHAttr(port_num=port, is_global=1, gr=gr)


def test_create_ah(ctx, pd, port, gid_index):
    attr = roce_attr(ctx, port, gid_index)
    ah = AH(pd, attr=attr)
    assert ah.ah != 0
    assert ah.pd is pd
    assert not ah.closed
    ah.close()
    assert ah.closed and ah.ah == 0 and ah.pd is None
    ah.close()  # idempotent
    with AH(pd, attr=attr) as ah2:
        assert ah2.ah != 0
    assert ah2.closed


def test_create_ah_non_global_on_roce_fails(ctx, pd, port):
    with pytest.raises(PyverbsRDMAError, match='Failed to create AH') as ex:
        AH(pd, attr=AHAttr(is_global=0, port_num=port))
    assert ex.value.error_code == errno.EINVAL


def test_create_ah_bad_attr_fails(ctx, pd, port, gid_index):
    attr = roce_attr(ctx, port, gid_index)
    attr.sgid_index = 200  # beyond the GID table
    with pytest.raises(PyverbsRDMAError, match='Failed to create AH') as ex:
        AH(pd, attr=attr)
    assert ex.value.error_code > 0
    attr = roce_attr(ctx, port, gid_index)
    attr.port_num = 7  # no such port
    with pytest.raises(PyverbsRDMAError, match='Failed to create AH'):
        AH(pd, attr=attr)


def test_ah_argument_checks(ctx, pd, port, gid_index):
    attr = roce_attr(ctx, port, gid_index)
    # positional attr (upstream: keyword only; its README writes it so)
    with AH(pd, attr) as ah:
        assert ah.ah != 0 and ah.pd is pd
    for bad in (GlobalRoute(), None, 1, 'attr'):
        with pytest.raises(TypeError, match='attr must be an AHAttr|no attr'):
            AH(pd, bad)
    with pytest.raises(TypeError):
        AH(pd, attr, attr=attr)
    with pytest.raises(TypeError):
        AH(pd, attr, None)
    with pytest.raises(PyverbsUserError):
        AH(pd, attr, port_num=1)
    with pytest.raises(TypeError):
        AH(pd, attr=GlobalRoute())
    with pytest.raises(TypeError):
        AH(pd, attr=None)
    with pytest.raises(PyverbsUserError):
        AH(pd, attr=attr, port_num=1)
    with pytest.raises(TypeError):
        AH(pd, wc=attr, port_num=1)
    pd.close()
    with pytest.raises(PyverbsUserError):
        AH(pd, attr=attr)


def test_closing_pd_closes_ah(ctx, port, gid_index):
    from pyverbs.pd import PD
    pd = PD(ctx)
    ahs = [AH(pd, attr=roce_attr(ctx, port, gid_index)) for _ in range(3)]
    pd.close()
    assert all(ah.closed and ah.ah == 0 for ah in ahs)
    ahs[0].close()


def test_wr_holding_ah_of_closed_pd(ctx, port, gid_index):
    from pyverbs.pd import PD
    from pyverbs.wr import SGE, SendWR
    pd = PD(ctx)
    ah = AH(pd, attr=roce_attr(ctx, port, gid_index))
    wr = SendWR(num_sge=1, sg=[SGE(0x1000, 8, 1)])
    wr.set_wr_ud(ah, 0x12, 0x11111111)
    assert wr.ah is ah and wr.remote_qpn == 0x12
    wr2 = SendWR(sg=[SGE(0x1000, 8, 1)], ah=ah, remote_qpn=5,
                 remote_qkey=7)
    assert wr2.ah is ah and (wr2.remote_qpn, wr2.remote_qkey) == (5, 7)
    pd.close()
    assert ah.closed
    assert wr.ah is ah and wr.ah.closed  # held, but closed
    # a closed AH cannot be set any more
    with pytest.raises(PyverbsUserError):
        wr.set_wr_ud(ah, 1, 1)
    with pytest.raises(PyverbsUserError):
        SendWR(sg=[SGE(0, 1, 1)], ah=ah, remote_qpn=1)
    # re-addressing as RDMA drops the AH
    wr.set_wr_rdma(1, 0x2000)
    assert wr.ah is None
    del wr, wr2, ah


def make_wc(**kw):
    cq = pytest.importorskip('pyverbs.cq')
    try:
        return cq.WC(**kw)
    except Exception as ex:  # WC not built in this tree yet
        pytest.skip(f'WC unavailable: {ex}')


def ipv4_grh(src, dst):
    """40 bytes as a RoCEv2 receive buffer starts: 20 unused bytes, then
    the IPv4 header of the packet."""
    import socket
    import struct
    hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 60, 0, 0, 64, 17, 0,
                      socket.inet_aton(src), socket.inet_aton(dst))
    csum = sum(struct.unpack('!10H', hdr))
    csum = (csum & 0xffff) + (csum >> 16)
    csum = ~((csum & 0xffff) + (csum >> 16)) & 0xffff
    hdr = hdr[:10] + struct.pack('!H', csum) + hdr[12:]
    return bytes(20) + hdr


def ipv4_gid(ctx, port):
    """The IPv4-mapped GID of the port (RoCEv2 over IPv4), or None."""
    for idx in range(ctx.query_port(port).gid_tbl_len):
        try:
            gid = ctx.query_gid(port, idx).gid
        except PyverbsRDMAError:
            continue
        if gid.startswith('0000:0000:0000:0000:0000:ffff'):
            return gid
    return None


def test_ah_from_wc(ctx, pd, port):
    import ctypes
    IBV_WC_GRH = 1
    dgid = ipv4_gid(ctx, port)
    if dgid is None:
        pytest.skip('needs an IPv4 RoCEv2 GID')
    ip = '.'.join(str(int(dgid[i:i + 2], 16)) for i in (30, 32, 35, 37))
    wc = make_wc(src_qp=5, wc_flags=IBV_WC_GRH)
    buf = ctypes.create_string_buffer(ipv4_grh(ip, ip), 64)
    ah = AH(pd, wc=wc, grh=ctypes.addressof(buf), port_num=port)
    assert ah.ah != 0 and ah.pd is pd
    ah.close()
    # the same 40 bytes as a GRH object
    raw = ipv4_grh(ip, ip)
    grh = GRH(sgid=raw[8:24], dgid=raw[24:40])
    with AH(pd, wc=wc, grh=grh, port_num=port) as ah:
        assert ah.ah != 0
    # an unreadable GRH address raises instead of crashing
    for bad in (8, 0xdead0000, (1 << 64) - 8):
        with pytest.raises(PyverbsUserError, match='Cannot read'):
            AH(pd, wc=wc, grh=bad, port_num=port)
    with pytest.raises(TypeError):
        AH(pd, wc=wc, grh='x', port_num=port)
    with pytest.raises(TypeError):
        AH(pd, wc=wc, grh=None)  # port_num is needed
    # no GRH in a RoCE WC: a non-global AH, which RoCE refuses
    with pytest.raises(PyverbsRDMAError, match='Failed to create AH'):
        AH(pd, wc=make_wc(wc_flags=0), grh=None, port_num=port)
