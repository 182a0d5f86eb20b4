# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""MREx (ibv_reg_mr_ex), DmaHandleInitAttr/DMAHandle (ibv_alloc_dmah), Buf
(ibv_alloc_buf) and BufMR (ibv_reg_buf_mr): argument checks, lifetimes,
the error naming the rdma-core version a build lacks, and, on the device,
registration and traffic.

A build against rdma-core 44 (the host's) has every name, and each call
raises PyverbsRDMAError(EOPNOTSUPP) naming the version that brings it; the
device tests check that there, and the real calls where the build has them
(tools/build-against 65, then its pytest wrapper in the guest).  rxe has
no TPH (DMAHandle: EOPNOTSUPP), no dma-buf MRs and, on kernel 6.1, no ODP.
"""
import ctypes
import errno
import inspect
import mmap
import resource

import pytest

import pyverbs.enums as e
from pyverbs import _verbs
from pyverbs.device import Context
from pyverbs.mr import MR, MREx, Buf, BufMR, DMAHandle, DmaHandleInitAttr
from pyverbs.pd import PD
from pyverbs.pyverbs_error import (PyverbsError, PyverbsRDMAError,
                                   PyverbsUserError)

pytestmark = pytest.mark.memcheck

HAVE_MR_EX = bool(_verbs._HAVE_REG_MR_EX)
HAVE_BUF = bool(_verbs._HAVE_BUF)
HAVE_DMAH = bool(_verbs._HAVE_DMAH)
PAGE = resource.getpagesize()
LW = e.IBV_ACCESS_LOCAL_WRITE
RW = e.IBV_ACCESS_REMOTE_WRITE


def needs(version):
    """pytest.raises for the error of a call the build's rdma-core lacks."""
    return pytest.raises(PyverbsRDMAError,
                         match=f'needs rdma-core {version} or later')


def assert_needs(excinfo):
    assert excinfo.value.error_code == errno.EOPNOTSUPP


# ------------------------------------------------------------------- host

def test_classes_and_modules():
    assert issubclass(MREx, MR) and issubclass(BufMR, MR)
    for cls in (MREx, Buf, BufMR, DMAHandle, DmaHandleInitAttr):
        assert cls.__module__ == 'pyverbs.mr'


@pytest.mark.parametrize('cls,params', [
    (MREx, [('pd', inspect.Parameter.empty), ('length', 0), ('access', 0),
            ('address', None), ('iova', None), ('fd', None),
            ('fd_offset', 0), ('dmah', None), ('implicit', False),
            ('buf', None)]),
    (BufMR, [('pd', inspect.Parameter.empty),
             ('buf', inspect.Parameter.empty), ('length', 0), ('access', 0),
             ('offset', 0)]),
    (Buf, [('pd', inspect.Parameter.empty),
           ('size', inspect.Parameter.empty)]),
    (DMAHandle, [('ctx', inspect.Parameter.empty),
                 ('init_attr', inspect.Parameter.empty)]),
    (DmaHandleInitAttr, [('comp_mask', 0), ('cpu_id', 0), ('ph', 0),
                         ('tph_mem_type', 0)]),
])
def test_signatures(cls, params):
    sig = inspect.signature(cls)
    assert [(p.name, p.default) for p in sig.parameters.values()] == params


def test_dmah_init_attr():
    a = DmaHandleInitAttr()
    assert (a.comp_mask, a.cpu_id, a.ph, a.tph_mem_type) == (0, 0, 0, 0)
    a = DmaHandleInitAttr(comp_mask=7, cpu_id=0xffff, ph=3,
                          tph_mem_type=0xfe)
    assert (a.comp_mask, a.cpu_id, a.ph, a.tph_mem_type) == \
        (7, 0xffff, 3, 0xfe)
    a.ph = 1
    a.cpu_id = 2**32 - 1
    assert a.ph == 1 and a.cpu_id == 2**32 - 1
    fmt = '{:22}: {:<20}\n'
    assert str(a) == ('DmaHandleInitAttr:\n' + fmt.format('comp_mask', 7) +
                      fmt.format('cpu_id', 2**32 - 1) +
                      fmt.format('ph', 1) + fmt.format('tph_mem_type', 0xfe))


@pytest.mark.parametrize('kw,exc', [
    ({'ph': 256}, OverflowError), ({'ph': -1}, OverflowError),
    ({'tph_mem_type': 256}, OverflowError),
    ({'cpu_id': 2**32}, OverflowError), ({'comp_mask': -1}, OverflowError),
    ({'cpu_id': 'x'}, TypeError), ({'ph': 1.0}, TypeError),
    ({'ph': None}, TypeError), ({'nope': 1}, TypeError)])
def test_dmah_init_attr_bad(kw, exc):
    with pytest.raises(exc):
        DmaHandleInitAttr(**kw)
    a = DmaHandleInitAttr()
    name, value = next(iter(kw.items()))
    if name != 'nope':
        with pytest.raises(exc):
            setattr(a, name, value)
        assert getattr(a, name) == 0
    with pytest.raises(AttributeError):
        del a.ph


def test_mrex_argument_types():
    pd = PD.__new__(PD)                     # never opened
    for bad in (None, 0, object(), Context.__new__(Context)):
        with pytest.raises(TypeError, match='pd must be a PD'):
            MREx(bad, 64)
    with pytest.raises(TypeError, match='dmah must be a DMAHandle'):
        MREx(pd, 64, dmah=DmaHandleInitAttr())
    with pytest.raises(TypeError, match='buf must be a Buf'):
        MREx(pd, 64, buf=bytearray(64))
    with pytest.raises(TypeError, match='address must be an int'):
        MREx(pd, 64, buf=Buf.__new__(Buf), address=bytearray(64))
    for kw in ({'iova': 'x'}, {'fd': 1.0}, {'length': 'x'},
               {'fd_offset': None}, {'access': None}):
        with pytest.raises(TypeError):
            MREx(pd, **kw)
    for kw in ({'iova': -1}, {'iova': 2**64}, {'fd': 2**31},
               {'fd_offset': -1}, {'length': -1}, {'access': 2**32}):
        with pytest.raises(OverflowError):
            MREx(pd, **kw)


def test_mrex_closed_handles():
    """The handles are checked after every argument: a closed PD, Buf or
    DMAHandle (or, from a build without ibv_reg_mr_ex, the version)."""
    pd = PD.__new__(PD)
    if not HAVE_MR_EX:
        with needs(59) as ei:
            MREx(pd, 64)
        assert_needs(ei)
        assert 'ibv_reg_mr_ex' in str(ei.value)
        return
    with pytest.raises(PyverbsUserError, match='PD object is closed'):
        MREx(pd, 64)


def test_buf_argument_types():
    for bad in (None, 1, Context.__new__(Context)):
        with pytest.raises(TypeError, match='pd must be a PD'):
            Buf(bad, 64)
    for bad in (-1, 2**64, 'x', None):
        with pytest.raises((TypeError, OverflowError)):
            Buf(PD.__new__(PD), bad)
    with pytest.raises(PyverbsUserError, match='PD object is closed'):
        Buf(PD.__new__(PD), 64)
    with pytest.raises(TypeError, match='buf must be a Buf'):
        BufMR(PD.__new__(PD), MR.__new__(MR))
    with pytest.raises(TypeError, match='pd must be a PD'):
        BufMR(None, Buf.__new__(Buf))
    for kw in ({'length': -1}, {'offset': -1}, {'offset': 2**64},
               {'access': 'x'}):
        with pytest.raises((TypeError, OverflowError)):
            BufMR(PD.__new__(PD), Buf.__new__(Buf), **kw)


def test_unopened_objects():
    b = Buf.__new__(Buf)
    assert b.addr == 0 and b.pd is None
    with pytest.raises(PyverbsUserError, match='closed'):
        b.size
    with pytest.raises(PyverbsUserError, match='closed'):
        b.export_dmabuf_fd()
    with pytest.raises(PyverbsUserError):
        str(b)
    b.close()
    for cls in (MREx, BufMR):
        m = cls.__new__(cls)
        assert m.buf == 0
        with pytest.raises(PyverbsUserError):
            m.read(1, 0)
        with pytest.raises(BufferError):
            memoryview(m)
        with pytest.raises(PyverbsUserError):
            str(m)
        m.close()
    DMAHandle.__new__(DMAHandle).close()


def test_dmah_argument_checks():
    ctx = Context.__new__(Context)
    with pytest.raises(TypeError, match='init_attr must be a '
                       'DmaHandleInitAttr'):
        DMAHandle(ctx, None)
    with pytest.raises(TypeError, match='ctx must be a Context'):
        DMAHandle(PD.__new__(PD), DmaHandleInitAttr())
    with pytest.raises(PyverbsUserError, match='Context object is closed'):
        DMAHandle(ctx, DmaHandleInitAttr())


# ----------------------------------------------------------------- device

def test_needs_on_an_older_build(ctx, pd):
    """From a build without the calls, each raises naming the version."""
    if HAVE_MR_EX and HAVE_BUF and HAVE_DMAH:
        pytest.skip('this build has ibv_reg_mr_ex, ibv_alloc_buf and '
                    'ibv_alloc_dmah (rdma-core 64 or later)')
    if not HAVE_MR_EX:
        with needs(59) as ei:
            MREx(pd, 4096, LW)
        assert_needs(ei)
    if not HAVE_DMAH:
        with needs(59) as ei:
            DMAHandle(ctx, DmaHandleInitAttr())
        assert_needs(ei)
    if not HAVE_BUF:
        with needs(64) as ei:
            Buf(pd, PAGE)
        assert_needs(ei)
        with needs(64):
            BufMR(pd, Buf.__new__(Buf))
        if HAVE_MR_EX:
            with needs(64):
                MREx(pd, PAGE, LW, buf=Buf.__new__(Buf))


need_mr_ex = pytest.mark.skipif(
    not HAVE_MR_EX, reason='this build\'s rdma-core has no ibv_reg_mr_ex '
    '(59); test_needs_on_an_older_build checks its error')
need_buf = pytest.mark.skipif(
    not HAVE_BUF, reason='this build\'s rdma-core has no ibv_alloc_buf '
    '(64); test_needs_on_an_older_build checks its error')


@need_mr_ex
def test_mrex_allocated(ctx, pd):
    mr = MREx(pd, 10000, LW | RW)
    assert isinstance(mr, MR)
    assert mr.length == 10000 and mr.buf % PAGE == 0 and mr.pd is pd
    assert mr.read(10000, 0) == bytes(10000)
    mr.write(b'hello', 5, 100)
    assert mr.read(5, 100) == b'hello'
    view = memoryview(mr)                   # its own memory: exported
    assert bytes(view[100:105]) == b'hello'
    view.release()
    sge = mr.sge(16, 100)
    assert (sge.addr, sge.length, sge.lkey) == (mr.buf + 100, 16, mr.lkey)
    fmt = '{:22}: {:<20}\n'
    assert str(mr) == ('MREx:\n' + fmt.format('lkey', mr.lkey) +
                       fmt.format('rkey', mr.rkey) +
                       fmt.format('length', 10000) +
                       fmt.format('buf', mr.buf) +
                       fmt.format('handle', mr.handle))
    pd.close()                              # closes its MRs
    assert mr.closed
    with pytest.raises(PyverbsUserError):
        mr.lkey


@need_mr_ex
def test_mrex_user_memory(pd):
    buf = bytearray(b'\x01' * 8192)
    with MREx(pd, 0, LW, address=buf) as mr:        # a buffer object
        assert mr.length == 8192
        buf[0] = 0x42
        assert mr.read(1, 0) == b'\x42'
        with pytest.raises(BufferError):
            buf.extend(b'x')                        # held
    buf.extend(b'x')
    m = mmap.mmap(-1, 4 * PAGE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    with MREx(pd, 4 * PAGE, LW, address=addr) as mr:   # a raw address
        assert mr.buf == addr
        mr.write(b'raw', 3, 5)
        assert m[5:8] == b'raw'
        with pytest.raises(BufferError, match='does not hold'):
            memoryview(mr)
    del addr
    m.close()


@need_mr_ex
def test_mrex_registration_errors(ctx, pd):
    # remote write without local write: libibverbs/the kernel refuse it,
    # with upstream's text (test_reg_mrex_bad_flags)
    for access in (RW, e.IBV_ACCESS_REMOTE_ATOMIC):
        with pytest.raises(PyverbsRDMAError, match='Failed to register MR '
                           'using extended API') as ei:
            MREx(pd, 4096, access)
        assert ei.value.func == 'ibv_reg_mr_ex'
        assert ei.value.error_code == errno.EINVAL
    # ADDR and FD together (test_reg_mrex_inval_params)
    with pytest.raises(PyverbsRDMAError) as ei:
        MREx(pd, 4096, LW, implicit=True, fd=0)
    assert ei.value.error_code == errno.EINVAL
    # a dma-buf needs an iova; with one, rxe has no dma-buf MRs
    with pytest.raises(PyverbsRDMAError) as ei:
        MREx(pd, 4096, LW, fd=0)
    assert ei.value.error_code == errno.EINVAL
    with pytest.raises(PyverbsRDMAError) as ei:
        MREx(pd, 4096, LW, fd=0, iova=0)
    assert ei.value.error_code == errno.EOPNOTSUPP
    # the PD is still usable after the failures
    with MREx(pd, 64, LW) as mr:
        assert mr.length == 64


@need_mr_ex
def test_mrex_dmah_on_rxe(ctx, pd):
    """rxe has no TPH: DMAHandle is refused with EOPNOTSUPP, and MREx
    refuses a DMAHandle that is not open."""
    attr = DmaHandleInitAttr(comp_mask=7, cpu_id=0, ph=0, tph_mem_type=0)
    with pytest.raises(PyverbsRDMAError, match='Failed to create DMA '
                       'Handle') as ei:
        DMAHandle(ctx, attr)
    assert ei.value.error_code == errno.EOPNOTSUPP
    assert ei.value.func == 'ibv_alloc_dmah'
    with pytest.raises(PyverbsUserError, match='DMAHandle object is closed'):
        MREx(pd, 4096, LW, dmah=DMAHandle.__new__(DMAHandle))


@need_mr_ex
def test_mrex_implicit_and_odp(ctx, pd):
    """Implicit ODP (SIZE_MAX from address 0): refused by rxe, whose ODP
    (kernel 6.14 and later) has no implicit MRs; the error is clean and
    leaves nothing behind."""
    access = LW | e.IBV_ACCESS_ON_DEMAND
    with pytest.raises(PyverbsRDMAError, match='extended API') as ei:
        MREx(pd, 4096, access, implicit=True)
    assert ei.value.error_code in (errno.EOPNOTSUPP, errno.EINVAL)


def _pair(ctx):
    from rdma_helpers import pair
    return pair(ctx, e.IBV_QPT_RC)


def _swap_mr(end, mr):
    end.mr.close()
    end.mr = mr


@need_mr_ex
def test_mrex_rc_traffic(ctx):
    """RC SEND/RECV between MREx on both sides (one allocated, one over a
    bytearray), then an RDMA WRITE to an MREx registered at an iova of
    our choosing: the remote address is the iova, not the memory's."""
    from rdma_helpers import poll, recv_wr, send_wr
    a, b = _pair(ctx)
    target = bytearray(1024)
    try:
        _swap_mr(a, MREx(a.pd, 1024, LW | RW))
        _swap_mr(b, MREx(b.pd, 0, LW | RW, address=target))
        b.qp.post_recv(recv_wr(b))
        a.qp.post_send(send_wr(a, b'over MREx'))
        poll(a.cq)
        poll(b.cq)
        assert bytes(target[:9]) == b'over MREx'
        # (the kernel wants the iova at the address's offset in its page:
        # MREx allocates page-aligned memory)
        iova = 0x10000000
        _swap_mr(b, MREx(b.pd, 1024, LW | RW, iova=iova))
        assert b.mr.buf != iova
        wr = send_wr(a, b'at the iova', opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(b.mr.rkey, iova + 100)
        a.qp.post_send(wr)
        poll(a.cq)
        assert b.mr.read(11, 100) == b'at the iova'
    finally:
        a.close()
        b.close()


# ---- Buf, BufMR

@need_buf
def test_buf_alloc(pd):
    b = Buf(pd, 2 * PAGE)
    assert b.size == 2 * PAGE and b.addr % PAGE == 0 and b.pd is pd
    fmt = '{:22}: {:<20}\n'
    assert str(b) == ('Buf:\n' + fmt.format('addr', b.addr) +
                      fmt.format('size', 2 * PAGE))
    with pytest.raises(PyverbsRDMAError, match='Failed to export') as ei:
        b.export_dmabuf_fd()                # plain memory: no dma-buf
    assert ei.value.error_code == errno.ENODATA
    b.close()
    assert b.addr == 0
    b.close()


@need_buf
def test_buf_mrs(ctx, pd):
    """Two MRs over disjoint halves of one Buf (ibv_reg_buf_mr, and
    ibv_reg_mr_ex with the Buf), each reaching its part."""
    b = Buf(pd, 2 * PAGE)
    mr1 = BufMR(pd, b, PAGE, LW)
    mr2 = MREx(pd, PAGE, LW, buf=b, address=b.addr + PAGE)
    mr3 = BufMR(pd, b, offset=PAGE // 2)            # length 0: to the end
    assert mr1.lkey != mr2.lkey
    assert (mr1.buf, mr2.buf, mr3.buf) == \
        (b.addr, b.addr + PAGE, b.addr + PAGE // 2)
    assert mr3.length == 2 * PAGE - PAGE // 2
    mr1.write('a' * PAGE, PAGE)
    mr2.write('b' * PAGE, PAGE)
    assert mr1.read(PAGE, 0) == b'a' * PAGE
    assert mr2.read(PAGE, 0) == b'b' * PAGE
    assert mr3.read(2, PAGE // 2 - 1) == b'ab'
    with pytest.raises(BufferError, match='does not hold'):
        memoryview(mr1)                     # the Buf's memory
    assert MREx(pd, 0, LW, buf=b).length == 2 * PAGE
    b.close()                               # closes the MRs first
    assert mr1.closed and mr2.closed and mr3.closed
    with pytest.raises(PyverbsUserError, match='Buf object is closed'):
        BufMR(pd, b, PAGE, LW)


@need_buf
@pytest.mark.parametrize('length,offset', [
    (2 * PAGE, 0), (PAGE, PAGE), (1, PAGE), (1, 2**63), (2**63, 1)])
def test_buf_mr_out_of_range(pd, length, offset):
    """A range outside the Buf: EINVAL, as libibverbs says it (pyverbs
    checks first: the MR's read/write must stay in the Buf)."""
    b = Buf(pd, PAGE)
    with pytest.raises(PyverbsRDMAError) as ei:
        BufMR(pd, b, length, LW, offset=offset)
    assert ei.value.error_code == errno.EINVAL
    with pytest.raises(PyverbsRDMAError) as ei:
        MREx(pd, length, LW, buf=b, address=(b.addr + offset) % 2**64)
    assert ei.value.error_code == errno.EINVAL
    with pytest.raises(PyverbsRDMAError) as ei:
        MREx(pd, 1, LW, buf=b, address=b.addr - 1)
    assert ei.value.error_code == errno.EINVAL
    b.close()


@need_buf
def test_buf_mr_wrong_pd(ctx, pd):
    """The Buf of another PD: libibverbs refuses (EINVAL)."""
    other = PD(ctx)
    b = Buf(pd, PAGE)
    for reg in (lambda: BufMR(other, b, PAGE, LW),
                lambda: MREx(other, PAGE, LW, buf=b)):
        with pytest.raises(PyverbsRDMAError) as ei:
            reg()
        assert ei.value.error_code == errno.EINVAL
    other.close()
    assert not b.closed
    pd.close()                              # closes the Buf
    assert b.closed


@need_buf
def test_buf_mr_close_orders(ctx):
    for first in ('mr', 'buf', 'pd', 'ctx'):
        pd = PD(ctx) if first != 'ctx' else None
        c = Context(name=ctx.name) if first == 'ctx' else None
        pd = pd or PD(c)
        b = Buf(pd, PAGE)
        mr = BufMR(pd, b, PAGE, LW)
        {'mr': mr, 'buf': b, 'pd': pd, 'ctx': c}[first].close()
        assert mr.closed
        for o in (mr, b, pd, c):
            if o is not None:
                o.close()


@need_buf
def test_buf_rc_traffic(ctx):
    """RC SEND/RECV and RDMA WRITE between a BufMR and an MREx over a
    Buf."""
    from rdma_helpers import poll, recv_wr, send_wr
    a, b = _pair(ctx)
    bufs = []
    try:
        bufs.append(Buf(a.pd, 2 * PAGE))
        bufs.append(Buf(b.pd, 2 * PAGE))
        _swap_mr(a, BufMR(a.pd, bufs[0], 1024, LW | RW, offset=PAGE))
        _swap_mr(b, MREx(b.pd, 1024, LW | RW, buf=bufs[1],
                         address=bufs[1].addr + 64))
        b.qp.post_recv(recv_wr(b))
        a.qp.post_send(send_wr(a, b'over a Buf'))
        poll(a.cq)
        poll(b.cq)
        assert b.mr.read(10, 0) == b'over a Buf'
        wr = send_wr(a, b'written', opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(b.mr.rkey, b.mr.buf + 500)
        a.qp.post_send(wr)
        poll(a.cq)
        assert b.mr.read(7, 500) == b'written'
        # it is the Buf's memory: 64 + 500 bytes into it
        assert ctypes.string_at(bufs[1].addr + 564, 7) == b'written'
    finally:
        a.close()
        b.close()
    assert all(x.closed for x in bufs)      # with their PDs


@need_buf
def test_odp_mrex_and_bufmr_rc_traffic(ctx):
    """ODP (rxe from kernel 6.14) through the newer registrations: RC
    SEND/RECV and RDMA WRITE from an ODP MREx into an ODP BufMR over a
    Buf, each access at a page start (see test_traffic's ODP note); the
    data lands in the Buf's memory."""
    from rdma_helpers import odp_or_skip, poll, recv_wr, send_wr
    with PD(ctx) as pd:
        odp_or_skip(ctx, pd, 'rc_odp_caps', e.IBV_ODP_SUPPORT_SEND |
                    e.IBV_ODP_SUPPORT_RECV | e.IBV_ODP_SUPPORT_WRITE)
    odp = LW | RW | e.IBV_ACCESS_ON_DEMAND
    a, b = _pair(ctx)
    try:
        buf = Buf(b.pd, 3 * PAGE)
        _swap_mr(a, MREx(a.pd, 2 * PAGE, odp))
        _swap_mr(b, BufMR(b.pd, buf, 2 * PAGE, odp, offset=PAGE))
        b.qp.post_recv(recv_wr(b, length=PAGE))
        a.qp.post_send(send_wr(a, b'ODP MREx to ODP BufMR'))
        poll(a.cq)
        poll(b.cq)
        assert b.mr.read(21, 0) == b'ODP MREx to ODP BufMR'
        wr = send_wr(a, b'written on demand', opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(b.mr.rkey, b.mr.buf + PAGE)
        a.qp.post_send(wr)
        poll(a.cq)
        assert ctypes.string_at(buf.addr + 2 * PAGE, 17) == \
            b'written on demand'
    finally:
        a.close()
        b.close()


@pytest.mark.skipif(not HAVE_BUF or _verbs._HAVE_BUF_DMABUF_FD,
                    reason='only a build with ibv_alloc_buf (64) but not '
                    'ibv_export_buf_dmabuf_fd (65)')
def test_buf_export_needs_65(pd):
    with needs(65):
        Buf(pd, PAGE).export_dmabuf_fd()


def test_reentrant_close_during_conversion(ctx, pd):
    """An argument's __index__ that closes the PD, Buf or DMAHandle the
    call holds: refused (they are in use), the registration goes on."""
    if not HAVE_BUF:
        pytest.skip('this build\'s rdma-core has no ibv_alloc_buf (64)')
    b = Buf(pd, PAGE)
    errors = []

    class Sneaky:
        def __index__(self):
            for o in (pd, b):
                try:
                    o.close()
                except PyverbsError as ex:
                    errors.append(ex)
            return 0

    mr = BufMR(pd, b, PAGE, LW, offset=Sneaky())
    assert len(errors) == 2 and not pd.closed and not b.closed
    mr.write(b'ok', 2)
    mr2 = MREx(pd, PAGE, LW, buf=b, iova=Sneaky())
    assert len(errors) == 4 and mr2.read(2, 0) == b'ok'
    pd.close()
    assert mr.closed and mr2.closed and b.closed
