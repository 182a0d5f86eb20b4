# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""SGE, RecvWR and SendWR (src/pyverbs/_native/wr.c)."""
import ctypes
import gc
import socket
import sys
import weakref

import pytest
from hypothesis import given, settings, strategies as st

import pyverbs.enums as e
from pyverbs.pyverbs_error import PyverbsUserError
from pyverbs.wr import SGE, RecvWR, SendWR, send_flags_to_str

# the sanitize stage of tools/run-tests runs this module's host tests under
# valgrind's memcheck (-m memcheck)
pytestmark = pytest.mark.memcheck

# the host is shared: no deadline; a few dozen examples per property
PROPERTY = settings(deadline=None, max_examples=60)
FMT = '{:22}: {:<20}\n'
U32, U64 = 0xffffffff, 0xffffffffffffffff


def sges(n, base=0x1000):
    return [SGE(base + 0x100 * i, 0x10 + i, 0x20 + i) for i in range(n)]


def sge_tuple(s):
    return (s.addr, s.length, s.lkey)


# ---------------------------------------------------------------- SGE

def test_sge_construct():
    s = SGE(0x1000, 64, 0x12)
    assert sge_tuple(s) == (0x1000, 64, 0x12)
    assert sge_tuple(SGE(addr=1, length=2, lkey=3)) == (1, 2, 3)
    assert sge_tuple(SGE(1, lkey=3, length=2)) == (1, 2, 3)
    assert sge_tuple(SGE(U64, U32, U32)) == (U64, U32, U32)


@pytest.mark.parametrize('args,kwargs', [
    ((), {}), ((1, 2), {}), ((1, 2, 3, 4), {}),
    ((1, 2), {'lkey': 3, 'foo': 4}),
    ((1, 2, 3), {'addr': 1}),
    ((1, 2), {'length': 3}),
    ((1, 2), {3: 4}),
])
def test_sge_bad_signature(args, kwargs):
    with pytest.raises(TypeError):
        SGE(*args, **kwargs)


@pytest.mark.parametrize('name,top', [('addr', U64), ('length', U32),
                                      ('lkey', U32)])
def test_sge_field_ranges(name, top):
    args = {'addr': 0, 'length': 0, 'lkey': 0}
    for bad in (top + 1, -1):
        with pytest.raises(OverflowError):
            SGE(**dict(args, **{name: bad}))
    for bad in (1.0, '1', None, True):
        with pytest.raises(TypeError):
            SGE(**dict(args, **{name: bad}))
    s = SGE(**args)
    setattr(s, name, top)
    assert getattr(s, name) == top
    with pytest.raises(OverflowError):
        setattr(s, name, top + 1)
    with pytest.raises(TypeError):
        setattr(s, name, 2.0)
    assert getattr(s, name) == top


# around the digit sizes of CPython's ints (30-bit digits; 2**60: two), where
# the data path's small-int reading (pv_long_small) hands over to the
# converter
EDGES = sorted({s * (b + d) for b in (2 ** 15, 2 ** 30, 2 ** 31, 2 ** 32,
                                      2 ** 60, 2 ** 63, 2 ** 64)
                for d in (-1, 0, 1) for s in (1, -1)} | {0, 1, -1})


@pytest.mark.parametrize('v', EDGES)
def test_positional_ints_at_digit_edges(v):
    """By position (the parser's inline path), each value is taken exactly
    when it is in range, and refused with OverflowError otherwise."""
    for name, top in (('addr', U64), ('length', U32), ('lkey', U32)):
        args = {'addr': 0, 'length': 0, 'lkey': 0}
        args[name] = v
        pos = (args['addr'], args['length'], args['lkey'])
        if 0 <= v <= top:
            assert getattr(SGE(*pos), name) == v
        else:
            with pytest.raises(OverflowError):
                SGE(*pos)
    wr = SendWR()
    if 0 <= v <= U32:
        wr.set_wr_rdma(v, v)
        assert (wr.rdma_rkey, wr.rdma_remote_addr) == (v, v)
    elif 0 <= v <= U64:
        with pytest.raises(OverflowError):
            wr.set_wr_rdma(v, v)
        wr.set_wr_rdma(0, v)
        assert wr.rdma_remote_addr == v
    else:
        with pytest.raises(OverflowError):
            wr.set_wr_rdma(0, v)


@PROPERTY
@given(st.integers(0, U64), st.integers(0, U32), st.integers(0, U32))
def test_sge_fields_property(addr, length, lkey):
    s = SGE(addr, length, lkey)
    assert sge_tuple(s) == (addr, length, lkey)
    s.addr, s.length, s.lkey = lkey, lkey, length
    assert sge_tuple(s) == (lkey, lkey, length)


def test_sge_index_objects():
    class Idx:
        def __index__(self):
            return 7
    assert sge_tuple(SGE(Idx(), Idx(), Idx())) == (7, 7, 7)


def test_sge_print():
    s = SGE(0x1000, 64, 0x12)
    assert str(s) == (FMT.format('Address', '0x1000') +
                      FMT.format('Length', 64) +
                      FMT.format('Key', '0x12'))
    assert repr(s) == 'SGE(addr=0x1000, length=64, lkey=0x12)'


def test_sge_close_and_with():
    s = SGE(1, 2, 3)
    with s as same:
        assert same is s
    s.close()
    assert sge_tuple(s) == (1, 2, 3)


def test_sge_subclass():
    class MySGE(SGE):
        pass
    s = MySGE(1, 2, lkey=3)
    assert type(s) is MySGE and sge_tuple(s) == (1, 2, 3)
    s.extra = 5
    r = RecvWR(sg=[s])
    assert type(r.sg_list[0]) is SGE
    with pytest.raises(TypeError):
        MySGE(1, 2)


def test_sge_read():
    data = b'0123456789abcdef'
    buf = ctypes.create_string_buffer(data, len(data))
    s = SGE(ctypes.addressof(buf), len(data), 0)
    assert s.read(16, 0) == data
    assert s.read(4, 2) == b'2345'
    assert s.read(length=3, offset=13) == b'def'
    assert s.read(0, 16) == b''
    buf[0] = b'X'
    assert s.read(1, 0) == b'X'  # reads the memory, not a copy


@pytest.mark.parametrize('length,offset', [(17, 0), (1, 16), (16, 1),
                                           (-1, 0), (0, -1), (0, 17),
                                           (1 << 62, 1 << 62)])
def test_sge_read_out_of_bounds(length, offset):
    buf = ctypes.create_string_buffer(16)
    s = SGE(ctypes.addressof(buf), 16, 0)
    with pytest.raises(PyverbsUserError):
        s.read(length, offset)


@pytest.mark.parametrize('addr', [0, 8, 0xdead0000, U64 - 4, 1 << 62])
def test_sge_read_bogus_address(addr):
    s = SGE(addr, 64, 0)
    with pytest.raises(PyverbsUserError, match='Cannot read'):
        s.read(64, 0)
    with pytest.raises(PyverbsUserError):
        s.read(1, 63)


def test_sge_read_types():
    s = SGE(0, 8, 0)
    with pytest.raises(TypeError):
        s.read(1.0, 0)
    with pytest.raises(TypeError):
        s.read(1)
    with pytest.raises(TypeError):
        s.read(1, 0, 0)


# ---------------------------------------------------------------- RecvWR

def test_recv_wr_without_sge():
    """A RecvWR may have no SGE (upstream since rdma-core 57: a receive
    of no data, e.g. for a zero-length send or an RDMA write with
    immediate); a SendWR keeps its rule (test_send_wr_needs_sge)."""
    for kw in ({}, {'num_sge': 0}, {'num_sge': 0, 'sg': sges(1)},
               {'sg': []}, {'sg': None}, {'num_sge': 0, 'sg': None}):
        r = RecvWR(**kw)
        assert r.num_sge == 0 and r.sg_list == [] and r.next_wr is None
        assert str(r) == FMT.format('WR ID', 0) + FMT.format('Num SGE', 0)
    r = RecvWR(5, 0, None, RecvWR(6))
    assert (r.wr_id, r.num_sge, r.next_wr.wr_id) == (5, 0, 6)
    r.sg_list = sges(2)
    assert r.num_sge == 2
    with pytest.raises(PyverbsUserError, match='holds 2 SGEs'):
        r.num_sge = 3
    r.num_sge = 0
    assert r.sg_list == []
    for kw in ({'num_sge': 1}, {'num_sge': 2, 'sg': None}):
        with pytest.raises(PyverbsUserError,
                           match='num_sge is [12] but no sg was given'):
            RecvWR(**kw)


def test_recv_wr_basic():
    sg = sges(1)
    r = RecvWR(wr_id=7, num_sge=1, sg=sg)
    assert (r.wr_id, r.num_sge, r.next_wr) == (7, 1, None)
    assert [sge_tuple(s) for s in r.sg_list] == [sge_tuple(sg[0])]
    assert str(r) == FMT.format('WR ID', 7) + FMT.format('Num SGE', 1)
    # positional, in upstream's order
    r = RecvWR(3, 1, sg)
    assert (r.wr_id, r.num_sge) == (3, 1)


def test_recv_wr_num_sge_semantics():
    sg = sges(3)
    assert RecvWR(sg=sg).num_sge == 3          # not given: len(sg)
    assert RecvWR(sg=tuple(sg)).num_sge == 3
    assert RecvWR(sg=sg[0]).num_sge == 1       # a lone SGE
    r = RecvWR(num_sge=2, sg=sg)               # first num_sge of them
    assert [sge_tuple(s) for s in r.sg_list] == [sge_tuple(s)
                                                 for s in sg[:2]]
    with pytest.raises(IndexError):
        RecvWR(num_sge=4, sg=sg)
    with pytest.raises(OverflowError):
        RecvWR(num_sge=-1, sg=sg)
    with pytest.raises(TypeError):
        RecvWR(num_sge=1, sg=iter(sg))
    with pytest.raises(TypeError):
        RecvWR(num_sge=2, sg=[sg[0], 'x'])
    # only the used ones are checked, as upstream
    assert RecvWR(num_sge=1, sg=[sg[0], 'x']).num_sge == 1


def test_recv_wr_copies_sges():
    sg = sges(5)
    r = RecvWR(sg=sg)
    sg[0].addr = 0
    sg.clear()
    assert [s.addr for s in r.sg_list] == [0x1000 + 0x100 * i
                                           for i in range(5)]
    got = r.sg_list
    got[1].length = 999
    assert r.sg_list[1].length == 0x11


def test_recv_wr_num_sge_setter():
    r = RecvWR(sg=sges(3))
    r.num_sge = 1
    assert len(r.sg_list) == 1
    r.num_sge = 3  # the SGEs are still stored
    assert len(r.sg_list) == 3
    with pytest.raises(PyverbsUserError):
        r.num_sge = 4
    with pytest.raises(OverflowError):
        r.num_sge = -1
    with pytest.raises(TypeError):
        r.num_sge = 1.0
    assert r.num_sge == 3


def test_recv_wr_sg_list_setter():
    r = RecvWR(sg=sges(1))
    r.sg_list = sges(4, base=0x5000)
    assert r.num_sge == 4
    assert r.sg_list[3].addr == 0x5300
    r.sg_list = SGE(1, 2, 3)
    assert r.num_sge == 1 and sge_tuple(r.sg_list[0]) == (1, 2, 3)
    r.sg_list = []
    assert r.num_sge == 0 and r.sg_list == []
    for bad in (None, 5, [1]):
        with pytest.raises(TypeError):
            r.sg_list = bad
    assert r.num_sge == 0


def test_recv_wr_chain():
    a, b, c = (RecvWR(wr_id=i, sg=sges(1)) for i in range(3))
    a.next_wr = b
    b.next_wr = c
    assert a.next_wr is b and b.next_wr is c and c.next_wr is None
    head = RecvWR(wr_id=9, sg=sges(1), next_wr=a)
    assert head.next_wr is a
    with pytest.raises(PyverbsUserError, match='cycle'):
        c.next_wr = a
    with pytest.raises(PyverbsUserError, match='cycle'):
        a.next_wr = a
    with pytest.raises(PyverbsUserError, match='cycle'):
        c.next_wr = head
    assert c.next_wr is None
    with pytest.raises(TypeError):
        a.next_wr = SendWR(sg=sges(1))
    with pytest.raises(TypeError):
        RecvWR(sg=sges(1), next_wr=5)
    a.next_wr = None
    assert a.next_wr is None
    del b.next_wr
    assert b.next_wr is None


def test_recv_wr_reinit_refuses_cycle():
    a = RecvWR(sg=sges(1))
    b = RecvWR(sg=sges(1), next_wr=a)
    with pytest.raises(PyverbsUserError, match='cycle'):
        a.__init__(sg=sges(1), next_wr=b)
    a.__init__(wr_id=4, sg=sges(3))
    assert a.wr_id == 4 and a.num_sge == 3 and a.next_wr is None


@PROPERTY
@given(st.integers(0, U64))
def test_recv_wr_wr_id(v):
    r = RecvWR(wr_id=v, sg=sges(1))
    assert r.wr_id == v
    r.wr_id = U64 - v
    assert r.wr_id == U64 - v
    with pytest.raises(OverflowError):
        r.wr_id = U64 + 1 + v


def test_recv_wr_close_and_subclass():
    class MyWR(RecvWR):
        pass
    r = MyWR(wr_id=1, sg=sges(2))
    assert type(r) is MyWR and r.num_sge == 2
    with r as same:
        assert same is r
    r.close()
    assert r.num_sge == 2
    assert MyWR().num_sge == 0
    with pytest.raises(PyverbsUserError):
        MyWR(num_sge=1)


# ---------------------------------------------------------------- SendWR

def test_send_wr_needs_sge():
    for kw in ({'num_sge': 1}, {'num_sge': 0, 'sg': sges(1)},
               {'opcode': e.IBV_WR_RDMA_WRITE}, {'sg': []},
               {'opcode': e.IBV_WR_RDMA_WRITE_WITH_IMM},
               {'opcode': e.IBV_WR_SEND, 'sg': []},
               {'opcode': e.IBV_WR_SEND, 'num_sge': 2}):
        with pytest.raises(PyverbsUserError,
                           match='A WR needs at least one SGE'):
            SendWR(**kw)


@pytest.mark.parametrize('kw', [{}, {'sg': None}, {'num_sge': 0},
                                {'opcode': e.IBV_WR_SEND_WITH_IMM,
                                 'imm_data': 7},
                                {'wr_id': 3, 'sg': None, 'num_sge': 0}])
def test_send_wr_zero_length_send(kw):
    # pyverbs-c: a SEND given no sg at all is a zero-length send (upstream
    # refuses it, yet its README posts SendWR()); num_sge 0, no SGE
    w = SendWR(**kw)
    assert w.num_sge == 0 and w.sg_list == []
    assert w.opcode == kw.get('opcode', e.IBV_WR_SEND)
    # SGEs can still be given afterwards
    w.sg_list = sges(2)
    assert w.num_sge == 2 and len(w.sg_list) == 2
    # re-initialising back to no SGE drops them
    w.__init__()
    assert w.num_sge == 0 and w.sg_list == []


@pytest.mark.parametrize('kw', [{'sg': 1}, {'sg': 'sge'}, {'num_sge': 'x'},
                                {'num_sge': 1.0}, {'wr_id': None},
                                {'opcode': 1.5}, {'sg': [None]}])
def test_send_wr_zero_length_bad_types(kw):
    with pytest.raises(TypeError):
        SendWR(**kw)


@pytest.mark.parametrize('op', [e.IBV_WR_LOCAL_INV, e.IBV_WR_BIND_MW,
                                e.IBV_WR_SEND_WITH_INV])
def test_send_wr_no_sge_opcodes(op):
    w = SendWR(opcode=op)
    assert w.opcode == op and w.num_sge == 0 and w.sg_list == []
    w.imm_data = 0x1234  # invalidate_rkey shares imm_data's place
    assert w.imm_data == 0x1234


def test_send_wr_defaults():
    w = SendWR(num_sge=1, sg=sges(1))
    assert (w.wr_id, w.opcode, w.num_sge, w.imm_data, w.send_flags,
            w.next_wr) == (0, e.IBV_WR_SEND, 1, 0, e.IBV_SEND_SIGNALED, None)
    assert (w.rkey, w.rdma_remote_addr, w.rdma_rkey, w.remote_qpn,
            w.remote_qkey, w.remote_srqn, w.ah) == (0, 0, 0, 0, 0, 0, None)


def test_send_wr_positional():
    sg = sges(2)
    w = SendWR(5, e.IBV_WR_RDMA_WRITE, 2, 9, sg, 0)
    assert (w.wr_id, w.opcode, w.num_sge, w.imm_data, w.send_flags) == \
        (5, e.IBV_WR_RDMA_WRITE, 2, 9, 0)
    with pytest.raises(TypeError):
        SendWR(1, 2, 1, 0, sg, 0, None, 5)  # shortcuts are keyword only
    with pytest.raises(TypeError):
        SendWR(sg=sg, bogus=1)
    with pytest.raises(TypeError):
        SendWR(1, wr_id=1, sg=sg)


def test_send_wr_print():
    w = SendWR(wr_id=9, opcode=4, imm_data=7, send_flags=0x1f,
               sg=sges(1))
    # upstream's format, 'Imm Data' line inside the 'Send flags' value
    assert str(w) == (FMT.format('WR ID', 9) + FMT.format('Num SGE', 1) +
                      FMT.format('Opcode', 4) +
                      FMT.format('Send flags',
                                 'IBV_SEND_FENCE IBV_SEND_SIGNALED '
                                 'IBV_SEND_SOLICITED IBV_SEND_INLINE '
                                 'IBV_SEND_IP_CSUM ' +
                                 FMT.format('Imm Data', 7)))


def test_send_flags_to_str():
    assert send_flags_to_str(0) == ''
    assert send_flags_to_str(e.IBV_SEND_SIGNALED) == 'IBV_SEND_SIGNALED '
    assert send_flags_to_str(e.IBV_SEND_INLINE | e.IBV_SEND_FENCE) == \
        'IBV_SEND_FENCE IBV_SEND_INLINE '
    assert send_flags_to_str(1 << 20) == ''


def test_send_wr_imm_data_is_raw():
    # upstream keeps imm_data as stored: callers pass network order
    w = SendWR(sg=sges(1), opcode=e.IBV_WR_SEND_WITH_IMM)
    w.imm_data = socket.htonl(0x12345678)
    assert w.imm_data == socket.htonl(0x12345678)
    assert SendWR(sg=sges(1), imm_data=0x12345678).imm_data == 0x12345678


SENDWR_FIELDS = [('wr_id', U64), ('opcode', U32), ('imm_data', U32),
                 ('send_flags', U32)]


@pytest.mark.parametrize('name,top', SENDWR_FIELDS)
def test_send_wr_field_ranges(name, top):
    w = SendWR(sg=sges(1), **{name: top})
    assert getattr(w, name) == top
    for bad in (top + 1, -1):
        with pytest.raises(OverflowError):
            SendWR(sg=sges(1), **{name: bad})
        with pytest.raises(OverflowError):
            setattr(w, name, bad)
    for bad in (1.0, '1', True):
        with pytest.raises(TypeError):
            SendWR(sg=sges(1), **{name: bad})
        with pytest.raises(TypeError):
            setattr(w, name, bad)
    with pytest.raises(AttributeError):
        delattr(w, name)
    assert getattr(w, name) == top


@PROPERTY
@given(st.sampled_from(SENDWR_FIELDS), st.data())
def test_send_wr_fields_property(field, data):
    name, top = field
    v = data.draw(st.integers(0, top))
    w = SendWR(sg=sges(1), **{name: v})
    assert getattr(w, name) == v
    v2 = data.draw(st.integers(0, top))
    setattr(w, name, v2)
    assert getattr(w, name) == v2
    with pytest.raises(OverflowError):
        setattr(w, name, data.draw(st.integers(top + 1, 1 << 80)))
    assert getattr(w, name) == v2


@pytest.mark.parametrize('n', [1, 2, 3, 17])
def test_send_wr_sges_stored(n):
    sg = sges(n)
    w = SendWR(sg=sg)
    assert w.num_sge == n
    assert [sge_tuple(s) for s in w.sg_list] == [sge_tuple(s) for s in sg]
    w.num_sge = 0
    assert w.sg_list == []
    w.num_sge = n
    with pytest.raises(PyverbsUserError):
        w.num_sge = n + 1
    w.sg_list = sges(1, base=0x9000)
    assert w.num_sge == 1 and w.sg_list[0].addr == 0x9000
    w.sg_list = sges(n + 3, base=0xa000)
    assert w.num_sge == n + 3 and w.sg_list[-1].addr == 0xa000 + 0x100 * (
        n + 2)


def test_send_wr_sg_mutation_during_build():
    # An __index__ that empties the list runs before the SGEs are taken:
    # the WR sees the list as it is then, never freed SGEs.
    sg = sges(3)

    class Evil:
        def __index__(self):
            sg.clear()
            gc.collect()
            return 1
    with pytest.raises(PyverbsUserError, match='at least one SGE'):
        SendWR(sg=sg, wr_id=Evil(), remote_addr=Evil())
    sg.extend(sges(2))
    w = SendWR(opcode=e.IBV_WR_LOCAL_INV, sg=sg, rkey=Evil())
    assert w.num_sge == 0 and w.rdma_rkey == 1
    sg.extend(sges(2))
    assert RecvWR(sg=sg, wr_id=Evil()).num_sge == 0   # emptied first


def test_send_wr_set_wr_rdma_atomic_xrc():
    w = SendWR(sg=sges(1), opcode=e.IBV_WR_RDMA_WRITE)
    w.set_wr_rdma(0x1234, 0xdeadbeef00)
    assert (w.rdma_rkey, w.rdma_remote_addr) == (0x1234, 0xdeadbeef00)
    w.set_wr_rdma(rkey=1, addr=2)
    assert (w.rdma_rkey, w.rdma_remote_addr) == (1, 2)
    w.set_wr_atomic(rkey=5, addr=0x8000, compare_add=U64, swap=3)
    assert (w.atomic_rkey, w.atomic_remote_addr, w.compare_add, w.swap) == \
        (5, 0x8000, U64, 3)
    w.set_wr_atomic(6, 0x10, 1)
    assert (w.atomic_rkey, w.compare_add, w.swap) == (6, 1, 0)
    w.set_qp_type_xrc(0xabc)
    assert w.remote_srqn == 0xabc
    with pytest.raises(TypeError):
        w.set_wr_rdma(1)
    with pytest.raises(OverflowError):
        w.set_wr_rdma(U32 + 1, 0)
    with pytest.raises(OverflowError):
        w.set_wr_atomic(1, 2, -1)
    with pytest.raises(TypeError):
        w.set_wr_atomic(1, 2, 3, swap=4.0)
    with pytest.raises(OverflowError):
        w.set_qp_type_xrc(-1)
    with pytest.raises(TypeError):
        w.set_wr_ud(None, 1, 1)
    with pytest.raises(TypeError):
        w.set_wr_ud(SGE(1, 2, 3), 1, 1)
    with pytest.raises(TypeError):
        w.set_bind_wr(None, None)           # needs an MW and an MWBindInfo


def test_send_wr_shortcuts():
    w = SendWR(sg=sges(1), opcode=e.IBV_WR_RDMA_READ, remote_addr=0x7000,
               rkey=0x44)
    assert (w.rdma_remote_addr, w.rdma_rkey) == (0x7000, 0x44)
    w = SendWR(sg=sges(1), opcode=e.IBV_WR_ATOMIC_CMP_AND_SWP,
               remote_addr=0x8000, rkey=0x45, compare_add=1, swap=2)
    assert (w.atomic_remote_addr, w.atomic_rkey, w.compare_add, w.swap) == \
        (0x8000, 0x45, 1, 2)
    w = SendWR(sg=sges(1), compare_add=9)
    assert (w.compare_add, w.swap) == (9, 0)
    with pytest.raises(PyverbsUserError):
        SendWR(sg=sges(1), remote_qpn=3)
    with pytest.raises(PyverbsUserError):
        SendWR(sg=sges(1), remote_qkey=3)
    with pytest.raises(TypeError):
        SendWR(sg=sges(1), ah=SGE(1, 2, 3), remote_qpn=1)
    with pytest.raises(OverflowError):
        SendWR(sg=sges(1), rkey=-1)
    assert SendWR(sg=sges(1), ah=None).ah is None


def test_send_wr_chain_and_cycles():
    a, b, c = (SendWR(wr_id=i, sg=sges(1)) for i in range(3))
    a.next_wr = b
    b.next_wr = c
    assert a.next_wr is b and a.next_wr.next_wr is c
    head = SendWR(sg=sges(1), next_wr=a)
    assert head.next_wr is a
    for x, y in ((c, a), (a, a), (c, head), (b, a)):
        with pytest.raises(PyverbsUserError, match='cycle'):
            x.next_wr = y
    assert c.next_wr is None and b.next_wr is c
    with pytest.raises(TypeError):
        a.next_wr = RecvWR(sg=sges(1))
    with pytest.raises(PyverbsUserError, match='cycle'):
        a.__init__(sg=sges(1), next_wr=head)
    a.next_wr = None
    assert a.next_wr is None


def test_send_wr_reinit():
    w = SendWR(sg=sges(5), wr_id=3, remote_addr=4, rkey=5)
    w.__init__(opcode=e.IBV_WR_LOCAL_INV)
    assert (w.wr_id, w.num_sge, w.opcode, w.rdma_remote_addr) == \
        (0, 0, e.IBV_WR_LOCAL_INV, 0)
    with pytest.raises(PyverbsUserError):
        w.__init__(opcode=e.IBV_WR_RDMA_WRITE)
    w.__init__()  # a zero-length send (pyverbs-c)
    assert (w.num_sge, w.opcode) == (0, e.IBV_WR_SEND)


def test_long_chain_dealloc():
    head = None
    for i in range(100000):
        head = SendWR(wr_id=i, sg=sges(1), next_wr=head)
    rhead = None
    for i in range(100000):
        rhead = RecvWR(wr_id=i, sg=sges(1), next_wr=rhead)
    assert head.wr_id == 99999
    del head, rhead  # deep chains must not overflow the C stack


def test_gc_collects_cycles_through_subclass():
    class MyWR(SendWR):
        pass
    w = MyWR(sg=sges(1))
    w2 = SendWR(sg=sges(1))
    w.next_wr = w2
    w.me = w  # a cycle through the instance dict
    ref = weakref.ref(w)
    del w, w2
    gc.collect()
    assert ref() is None


def test_refcounts_stable():
    sg = sges(3)
    before = [sys.getrefcount(s) for s in sg]
    for _ in range(100):
        SendWR(sg=sg).sg_list
        RecvWR(sg=sg, num_sge=2)
    assert [sys.getrefcount(s) for s in sg] == before
    tail = SendWR(sg=sg)
    n = sys.getrefcount(tail)
    ws = [SendWR(sg=sg, next_wr=tail) for _ in range(10)]
    assert sys.getrefcount(tail) == n + 10
    del ws
    assert sys.getrefcount(tail) == n


# ---------------------------------------------------------------- device

def test_send_wr_ud_device(ctx, pd, port, gid_index):
    from pyverbs.addr import AH, AHAttr, GlobalRoute
    gr = GlobalRoute(dgid=ctx.query_gid(port, gid_index),
                     sgid_index=gid_index)
    ah = AH(pd, attr=AHAttr(port_num=port, is_global=1, gr=gr))
    w = SendWR(sg=sges(1))
    w.set_wr_ud(ah, 0x99, 0x11111111)
    assert (w.ah, w.remote_qpn, w.remote_qkey) == (ah, 0x99, 0x11111111)
    w.set_wr_ud(ah=ah, rqpn=1, rqkey=2)
    assert (w.remote_qpn, w.remote_qkey) == (1, 2)
    w2 = SendWR(sg=sges(1), ah=ah, remote_qpn=3)
    assert (w2.ah, w2.remote_qpn, w2.remote_qkey) == (ah, 3, 0)
    with pytest.raises(TypeError):
        SendWR(sg=sges(1), ah=ah)  # needs remote_qpn
    with pytest.raises(PyverbsUserError):
        SendWR(sg=sges(1), ah=ah, remote_qpn=1, rkey=2)
    w.set_wr_atomic(1, 2, 3)
    assert w.ah is None and w.remote_qpn == 0
    ah.close()
    assert w2.ah.closed
