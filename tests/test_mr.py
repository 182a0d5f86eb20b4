# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""MR: memory ownership, read/write, buffer export, bad input."""
import errno
import mmap
import resource
import time

import pytest

from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError

# the sanitize stage of tools/run-tests runs this module's host tests under
# valgrind's memcheck (-m memcheck)
pytestmark = pytest.mark.memcheck

LOCAL_WRITE = 1
REMOTE_WRITE = 2
REMOTE_READ = 4
REMOTE_ATOMIC = 8
REREG_MR_CHANGE_PD = 2


@pytest.fixture(autouse=True)
def _memlock():
    # Registration pins memory; the VM runs with an unlimited memlock.
    yield


@pytest.mark.parametrize('creator', [None, 0, object()])
def test_mr_rejects_non_pd(creator):
    with pytest.raises(TypeError):
        MR(creator, 4096, LOCAL_WRITE)


def test_mr_unopened():
    m = MR.__new__(MR)
    m.close()
    assert m.buf == 0
    with pytest.raises(PyverbsUserError):
        m.lkey
    with pytest.raises(PyverbsUserError):
        m.read(1, 0)
    with pytest.raises(BufferError):
        memoryview(m)


def test_mr_alloc_zeroed_aligned(pd):
    with MR(pd, 10000, LOCAL_WRITE) as mr:
        assert mr.length == 10000
        assert mr.buf % resource.getpagesize() == 0
        assert mr.read(10000, 0) == bytes(10000)
        assert isinstance(mr.lkey, int) and isinstance(mr.rkey, int)
        assert mr.pd is pd
        text = str(mr)
        assert text.startswith('MR\n')
        assert f"{'lkey':22}: {mr.lkey:<20}\n" in text
        assert f"{'length':22}: {10000:<20}\n" in text


def test_mr_write_read(pd):
    with MR(pd, 64, LOCAL_WRITE) as mr:
        mr.write(b'hello', 5)
        mr.write('world', 5, 10)
        mr.write(bytearray(b'xyz'), 2, offset=20)
        assert mr.read(5, 0) == b'hello'
        assert mr.read(5, 10) == b'world'
        assert mr.read(3, 20) == b'xy\x00'
        assert mr.read(length=2, offset=11) == b'or'


@pytest.mark.parametrize('length,offset', [(-1, 0), (1, -1), (65, 0),
                                           (1, 64), (2**40, 0), (1, 2**62)])
def test_mr_read_out_of_range(pd, length, offset):
    with MR(pd, 64, LOCAL_WRITE) as mr:
        with pytest.raises((PyverbsUserError, OverflowError)):
            mr.read(length, offset)
        with pytest.raises((PyverbsUserError, OverflowError)):
            mr.write(b'x' * 100, length, offset)


def test_mr_write_longer_than_data(pd):
    with MR(pd, 64, LOCAL_WRITE) as mr:
        with pytest.raises(PyverbsUserError, match='exceeds'):
            mr.write(b'abc', 10)
        with pytest.raises(TypeError):
            mr.write(12345, 4)
        with pytest.raises(TypeError):
            mr.read('1', 0)


def test_mr_memoryview_zero_copy(pd):
    mr = MR(pd, 4096, LOCAL_WRITE)
    view = memoryview(mr)
    assert len(view) == 4096 and not view.readonly
    view[0:4] = b'abcd'
    assert mr.read(4, 0) == b'abcd'
    mr.write(b'zz', 2, 100)
    assert bytes(view[100:102]) == b'zz'
    view.release()
    mr.close()


def test_mr_close_while_exported(pd):
    mr = MR(pd, 4096, LOCAL_WRITE)
    view = memoryview(mr)
    view[0] = 7
    mr.close()                      # deregistered, memory kept for the view
    assert mr.closed
    assert view[0] == 7             # still valid memory, no crash
    view[1] = 8
    with pytest.raises(BufferError):
        memoryview(mr)
    view.release()


def test_mr_numpy_view(pd):
    np = pytest.importorskip('numpy')
    with MR(pd, 4096, LOCAL_WRITE) as mr:
        arr = np.frombuffer(mr, dtype=np.uint32)
        arr[:] = np.arange(1024, dtype=np.uint32)
        assert mr.read(8, 4) == (1).to_bytes(4, 'little') + \
            (2).to_bytes(4, 'little')
        del arr


def test_mr_over_bytearray(pd):
    buf = bytearray(b'\x01' * 8192)
    mr = MR(pd, 0, LOCAL_WRITE | REMOTE_WRITE, address=buf)
    assert mr.length == 8192
    assert mr.read(2, 0) == b'\x01\x01'
    buf[0] = 0x42
    assert mr.read(1, 0) == b'\x42'          # same memory
    mr.write(b'\x55', 1, 1)
    assert buf[1] == 0x55
    with pytest.raises(BufferError):
        buf.extend(b'more')                  # held: cannot move
    mr.close()
    buf.extend(b'more')                      # released on close


def test_mr_over_buffer_length_checks(pd):
    buf = bytearray(100)
    with pytest.raises(PyverbsUserError, match='exceeds'):
        MR(pd, 200, LOCAL_WRITE, address=buf)
    buf.extend(b'x')                         # failure released the buffer
    with pytest.raises(TypeError):
        MR(pd, 10, LOCAL_WRITE, address=b'read-only bytes')
    with pytest.raises(TypeError):
        MR(pd, 10, LOCAL_WRITE, address=1.5)


def test_mr_over_read_only_buffer(ctx, pd):
    """bytes (read-only) can back an MR whose access lets nothing write it
    (REMOTE_READ): the peer RDMA READs it; write() and a writable view are
    refused, and so is a rereg that would add write access."""
    import pyverbs.enums as e
    from rdma_helpers import pair, poll, send_wr
    data = bytes(range(256)) * 16
    mr = MR(pd, 0, e.IBV_ACCESS_REMOTE_READ, address=data)
    assert mr.length == len(data) and mr.read(4, 1) == bytes([1, 2, 3, 4])
    with pytest.raises(PyverbsUserError, match='read-only'):
        mr.write(b'x', 1, 0)
    view = memoryview(mr)
    assert view.readonly and view[5] == 5
    view.release()
    with pytest.raises(PyverbsUserError, match='read-only'):
        mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS,
                 access=e.IBV_ACCESS_LOCAL_WRITE)
    mr.close()
    # the peer RDMA READs it (an MR on the responder QP's PD)
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64)
    try:
        ro = MR(b.pd, 0, e.IBV_ACCESS_REMOTE_READ, address=data)
        wr = send_wr(a, opcode=e.IBV_WR_RDMA_READ, length=64)
        wr.set_wr_rdma(ro.rkey, ro.buf + 64)
        a.qp.post_send(wr)
        poll(a.cq)
        assert a.mr.read(64, 0) == data[64:128]
    finally:
        a.close()
        b.close()
    with pytest.raises(TypeError, match='read-only one without write'):
        MR(pd, 0, e.IBV_ACCESS_LOCAL_WRITE, address=data)


def test_mr_over_mmap_and_numpy(pd):
    m = mmap.mmap(-1, 16384)
    with MR(pd, 16384, LOCAL_WRITE, address=m) as mr:
        m[0:3] = b'abc'
        assert mr.read(3, 0) == b'abc'
    m.close()
    np = pytest.importorskip('numpy')
    arr = np.zeros(1000, dtype=np.uint64)
    with MR(pd, 0, LOCAL_WRITE, address=arr) as mr:
        assert mr.length == 8000
        arr[1] = 0x1122334455667788
        assert mr.read(8, 8) == (0x1122334455667788).to_bytes(8, 'little')
        assert bytes(memoryview(mr)[8:16]) == mr.read(8, 8)


def test_mr_raw_address(pd):
    m = mmap.mmap(-1, 4096)
    import ctypes
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    mr = MR(pd, 4096, LOCAL_WRITE, address=addr)
    assert mr.buf == addr
    mr.write(b'raw', 3)
    assert m[0:3] == b'raw'
    with pytest.raises(BufferError):
        memoryview(mr)                      # not ours to export
    mr.close()
    del addr
    m.close()


def test_mr_bad_access_raises_rdma_error(pd):
    # Remote write without local write is refused by the verbs layer.
    with pytest.raises(PyverbsRDMAError, match='Failed to register a MR') \
            as ei:
        MR(pd, 4096, REMOTE_WRITE)
    assert ei.value.error_code == errno.EINVAL
    assert ei.value.func == 'ibv_reg_mr'


@pytest.mark.parametrize('bad', [-1, 2**32, 'x', None, 1.0])
def test_mr_bad_access_type(pd, bad):
    with pytest.raises((TypeError, OverflowError)):
        MR(pd, 4096, bad)


@pytest.mark.parametrize('bad', [-1, 'x', 1.0, 2**64])
def test_mr_bad_length(pd, bad):
    with pytest.raises((TypeError, OverflowError)):
        MR(pd, bad, LOCAL_WRITE)


def test_mr_closed_with_pd_and_context(ctx):
    pd = PD(ctx)
    mrs = [MR(pd, 4096, LOCAL_WRITE) for _ in range(4)]
    pd.close()
    assert all(m.closed for m in mrs)
    pd2 = PD(ctx)
    mr = MR(pd2, 4096, LOCAL_WRITE)
    ctx.close()
    assert mr.closed and pd2.closed
    with pytest.raises(PyverbsUserError):
        mr.lkey


def test_mr_on_closed_pd(pd):
    pd.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        MR(pd, 4096, LOCAL_WRITE)


def _mr_of_kind(kind, pd):
    """An MR of 4096 bytes: MR, or one of its subtypes (skipped where the
    build's rdma-core lacks it)."""
    from pyverbs import _verbs
    from pyverbs.mr import Buf, BufMR, MREx
    if kind == 'MREx' and not _verbs._HAVE_REG_MR_EX:
        pytest.skip('this build\'s rdma-core has no ibv_reg_mr_ex (59)')
    if kind == 'BufMR' and not _verbs._HAVE_BUF:
        pytest.skip('this build\'s rdma-core has no ibv_alloc_buf (64)')
    if kind == 'MREx':
        return MREx(pd, 4096, LOCAL_WRITE)
    if kind == 'BufMR':
        return BufMR(pd, Buf(pd, 4096), 4096, LOCAL_WRITE)
    return MR(pd, 4096, LOCAL_WRITE)


@pytest.mark.parametrize('kind', ['MR', 'MREx', 'BufMR'])
def test_mr_rereg(ctx, pd, kind):
    """rxe before kernel 6.5 has no rereg_mr: a clean error; argument
    checks come first.  Where it has (a PD change), the MR moves to the
    new PD.  The same for the subtypes."""
    mr = _mr_of_kind(kind, pd)
    with pytest.raises(PyverbsUserError):
        mr.rereg(REREG_MR_CHANGE_PD)             # no pd given
    with pytest.raises(TypeError):
        mr.rereg(REREG_MR_CHANGE_PD, pd=ctx)
    pd2 = PD(ctx)
    try:
        mr.rereg(REREG_MR_CHANGE_PD, pd=pd2)
    except PyverbsRDMAError as ex:
        _assert_rereg_refused(ex)
        assert mr.pd is pd
    else:
        assert mr.pd is pd2
        pd2.close()
        assert mr.closed
    mr.close()


def _assert_rereg_refused(ex):
    """rdma-core's rxe provider has no rereg_mr (up to 65, whatever the
    kernel's rxe has since 6.5): libibverbs answers EOPNOTSUPP with
    IBV_REREG_MR_ERR_CMD (-4) without asking the kernel."""
    assert ex.error_code == errno.EOPNOTSUPP
    assert ex.func == 'ibv_rereg_mr'
    assert str(ex).startswith('Failed to rereg MR (error -4)')


def test_mr_rereg_pd_and_access_traffic(ctx):
    """Re-registration of an MR's PD and access, checked by traffic: moved
    to the responder's PD with REMOTE_WRITE, an RDMA WRITE lands in it;
    its access back to LOCAL_WRITE alone, the same WRITE is refused; a QP
    of the PD it left cannot use it locally.  Where ibv_rereg_mr refuses
    (rxe: see _assert_rereg_refused) the test skips after checking the
    refusal and that the MR is as it was."""
    import pyverbs.enums as e
    from pyverbs.wr import SendWR
    from rdma_helpers import pair, poll, poll_one, recv_wr, send_wr
    change = e.IBV_REREG_MR_CHANGE_PD | e.IBV_REREG_MR_CHANGE_ACCESS
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64)
    with a, b:
        mr = MR(a.pd, 64, LOCAL_WRITE)
        keys = (mr.lkey, mr.rkey)
        try:
            mr.rereg(change, pd=b.pd, access=LOCAL_WRITE | REMOTE_WRITE)
        except PyverbsRDMAError as ex:
            _assert_rereg_refused(ex)
            assert mr.pd is a.pd and (mr.lkey, mr.rkey) == keys
            mr.close()
            pytest.skip(f'{ctx.name} cannot re-register MRs: '
                        'ibv_rereg_mr answers EOPNOTSUPP (rdma-core\'s rxe '
                        'provider has no rereg_mr)')
        assert mr.pd is b.pd
        wr = send_wr(a, b'into the moved MR', opcode=e.IBV_WR_RDMA_WRITE)
        wr.set_wr_rdma(mr.rkey, mr.buf)
        a.qp.post_send(wr)
        poll(a.cq)
        assert mr.read(17, 0) == b'into the moved MR'
        mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, access=LOCAL_WRITE)
        mr.write(bytes(17), 17, 0)
        wr.set_wr_rdma(mr.rkey, mr.buf)
        a.qp.post_send(wr)
        assert poll_one(a.cq).status == e.IBV_WC_REM_ACCESS_ERR
        assert mr.read(17, 0) == bytes(17)
        mr.close()
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64)
    with a, b:
        mr = MR(a.pd, 64, LOCAL_WRITE)
        mr.rereg(e.IBV_REREG_MR_CHANGE_PD, pd=b.pd)
        b.qp.post_recv(recv_wr(b))
        wr = SendWR(num_sge=1, sg=[mr.sge(8, 0)])
        a.qp.post_send(wr)
        assert poll_one(a.cq).status == e.IBV_WC_LOC_PROT_ERR
        mr.close()


def test_mr_many_sizes(pd):
    for size in (1, 100, 4095, 4096, 4097, 1 << 20):
        with MR(pd, size, LOCAL_WRITE | REMOTE_READ | REMOTE_WRITE) as mr:
            mr.write(b'\xff', 1, size - 1)
            assert mr.read(1, size - 1) == b'\xff'


# ---- memory windows ----

MW_TYPE_1, MW_TYPE_2 = 1, 2
ACCESS_MW_BIND = 16


def test_mw_alloc_and_close(ctx, pd):
    from pyverbs.mr import MW
    mws = [MW(pd, MW_TYPE_1), MW(pd, MW_TYPE_2)]
    assert [m.type for m in mws] == [MW_TYPE_1, MW_TYPE_2]
    assert all(isinstance(m.rkey, int) for m in mws)
    assert str(mws[0]).startswith('MW\n')
    with pytest.raises(PyverbsRDMAError, match='Failed to allocate MW'):
        MW(pd, 3)
    with pytest.raises(TypeError):
        MW(ctx, MW_TYPE_1)
    pd.close()
    assert all(m.closed for m in mws)
    with pytest.raises(PyverbsUserError):
        mws[0].rkey


def test_mw_bind_info_checks(pd):
    from pyverbs.mr import MWBind, MWBindInfo
    mr = MR(pd, 4096, LOCAL_WRITE | ACCESS_MW_BIND)
    info = MWBindInfo(mr, mr.buf, 4096, REMOTE_WRITE)
    assert (info.addr, info.length, info.mr) == (mr.buf, 4096, mr)
    bind = MWBind(info, 2, wr_id=7)
    assert bind.wr_id == 7
    with pytest.raises(TypeError):
        MWBindInfo(pd, 0, 0, 0)
    with pytest.raises(OverflowError):
        MWBindInfo(mr, -1, 0, 0)
    mr.close()
    with pytest.raises(PyverbsUserError):
        MWBind(info, 2)                      # its MR is gone


def test_mw_bind_close_host():
    """close() and with (upstream's are context managers): never
    initialised objects close (again and again), and are refused."""
    from pyverbs.mr import MWBind, MWBindInfo
    info = MWBindInfo.__new__(MWBindInfo)
    info.close()
    with info as same:
        assert same is info
    info.close()
    with pytest.raises(PyverbsUserError, match='MWBindInfo is closed'):
        MWBind(info, 2)
    bind = MWBind.__new__(MWBind)
    with bind:
        pass
    bind.close()


def test_mw_bind_close(ctx, pd):
    """MWBindInfo.close() lets go of its MR, MWBind.close() of its
    MWBindInfo: a bind refuses them then, cleanly."""
    import gc
    import weakref
    from pyverbs.cq import CQ
    from pyverbs.mr import MW, MWBind, MWBindInfo
    from pyverbs.qp import QP, QPCap, QPInitAttr
    import pyverbs.enums as e
    mr = MR(pd, 4096, LOCAL_WRITE | ACCESS_MW_BIND)
    with MWBindInfo(mr, mr.buf, 4096, REMOTE_WRITE) as info:
        bind = MWBind(info, e.IBV_SEND_SIGNALED)
        assert info.mr is mr
    assert info.mr is None                  # the MR is let go
    with pytest.raises(PyverbsUserError, match='MWBindInfo is closed'):
        MWBind(info, 2)
    ref = weakref.ref(mr)
    del mr
    gc.collect()
    assert ref() is None                    # nothing holds the MR now
    with CQ(ctx, 4) as cq:
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                               cap=QPCap(max_send_wr=1, max_recv_wr=1)))
        mw = MW(pd, e.IBV_MW_TYPE_1)
        with pytest.raises(PyverbsUserError, match='MWBindInfo is closed'):
            qp.bind_mw(mw, bind)            # its info was closed
        bind.close()
        bind.close()
        with pytest.raises(PyverbsUserError, match='MWBind is closed'):
            qp.bind_mw(mw, bind)
        qp.close()


@pytest.mark.parametrize('kind', ['MR', 'MREx'])
def test_mw_type1_bind_and_write(ctx, kind):
    import pyverbs.enums as e
    from pyverbs.mr import MREx, MW, MWBind, MWBindInfo
    from pyverbs import _verbs
    from rdma_helpers import pair, poll, send_wr
    if kind == 'MREx' and not _verbs._HAVE_REG_MR_EX:
        pytest.skip('this build\'s rdma-core has no ibv_reg_mr_ex (59)')
    access = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | \
        e.IBV_ACCESS_MW_BIND
    a, b = pair(ctx, e.IBV_QPT_RC, access=access)
    if kind == 'MREx':                  # the window over an MREx
        b.mr.close()
        b.mr = MREx(b.pd, 1024, access)
    mw = MW(b.pd, MW_TYPE_1)
    info = MWBindInfo(b.mr, b.mr.buf, 64, e.IBV_ACCESS_REMOTE_WRITE)
    b.qp.bind_mw(mw, MWBind(info, e.IBV_SEND_SIGNALED))
    poll(b.cq)
    wr = send_wr(a, b'through a window', opcode=e.IBV_WR_RDMA_WRITE)
    wr.set_wr_rdma(mw.rkey, b.mr.buf)
    a.qp.post_send(wr)
    poll(a.cq)
    assert b.mr.read(16, 0) == b'through a window'
    with pytest.raises(TypeError):
        b.qp.bind_mw(info, mw)
    # a window bound to the MR keeps it registered: close the window first
    mw.close()
    a.close()
    b.close()


def test_mw_type2_bind_wr_refuses_closed(ctx):
    import pyverbs.enums as e
    from pyverbs.mr import MW, MWBindInfo
    from pyverbs.wr import SendWR
    from rdma_helpers import pair, poll
    a, b = pair(ctx, e.IBV_QPT_RC, access=e.IBV_ACCESS_LOCAL_WRITE |
                e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_MW_BIND)
    mw = MW(b.pd, MW_TYPE_2)
    info = MWBindInfo(b.mr, b.mr.buf, 64, e.IBV_ACCESS_REMOTE_WRITE)
    wr = SendWR(opcode=e.IBV_WR_BIND_MW)
    wr.set_bind_wr(mw, info)
    assert wr.rkey != mw.rkey                 # a new key for the window
    b.qp.post_send(wr)
    poll(b.cq)
    mw.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        b.qp.post_send(wr)                    # never a freed MW
    a.close()
    b.close()


def test_mw_type2_closed_with_its_qp(ctx):
    """A type 2 window bound through a QP is closed with that QP, first: rxe
    (Linux 6.1) keeps the QP until the window is deallocated, so that a QP
    destroyed under a bound window waits 50 s in the kernel.  A window never
    bound stays open."""
    import pyverbs.enums as e
    from pyverbs.mr import MW, MWBindInfo
    from pyverbs.wr import SendWR
    from rdma_helpers import pair, poll
    a, b = pair(ctx, e.IBV_QPT_RC, access=e.IBV_ACCESS_LOCAL_WRITE |
                e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_MW_BIND)
    bound, idle = MW(b.pd, MW_TYPE_2), MW(b.pd, MW_TYPE_2)
    info = MWBindInfo(b.mr, b.mr.buf, 64, e.IBV_ACCESS_REMOTE_WRITE)
    wr = SendWR(opcode=e.IBV_WR_BIND_MW, send_flags=e.IBV_SEND_SIGNALED)
    wr.set_bind_wr(bound, info)
    b.qp.post_send([wr])
    assert poll(b.cq)[0].status == e.IBV_WC_SUCCESS
    t0 = time.monotonic()
    b.qp.close()
    assert time.monotonic() - t0 < 10, 'the QP waited for its window'
    assert bound.closed and not idle.closed
    idle.close()
    a.close()
    b.close()


def _huge_pages_free():
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('HugePages_Free:'):
                return int(line.split()[1])
    return 0


def test_mr_huge_pages(ctx, pd):
    """IBV_ACCESS_HUGETLB: the MR's memory comes from 2 MiB huge pages (the
    guest has 64): while it is registered the kernel counts them used, and
    they come back when it is closed.  The memory works from the CPU and as
    the target of an RDMA WRITE.  A kernel whose rxe checks the access
    flags of a registration against those it supports (7.2's does;
    HUGETLB is not among them) refuses it with EOPNOTSUPP: then the
    refusal is clean (the huge pages come back at once) and the same MR
    without the flag registers."""
    import pyverbs.enums as e
    from pyverbs.wr import SendWR
    from rdma_helpers import pair, poll, sge
    if _huge_pages_free() < 4:
        pytest.skip('no free 2 MiB huge pages (the test VM has 64: '
                    '/proc/sys/vm/nr_hugepages)')
    free = _huge_pages_free()
    access = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
              e.IBV_ACCESS_HUGETLB)
    size = 3 * 1024 * 1024                  # rounded up to 2 huge pages
    try:
        mr = MR(pd, size, access)
    except PyverbsRDMAError as ex:
        assert ex.error_code == errno.EOPNOTSUPP
        assert str(ex).startswith('Failed to register a MR. length: '
                                  f'{size}, access flags: {access}.')
        assert _huge_pages_free() == free
        with MR(pd, size, access & ~e.IBV_ACCESS_HUGETLB) as mr:
            assert mr.length == size
        return
    with mr:
        assert _huge_pages_free() == free - 2
        assert mr.buf % (2 * 1024 * 1024) == 0 and mr.length == size
        mr.write(b'huge', 4, size - 4)
        assert mr.read(4, size - 4) == b'huge'
    assert _huge_pages_free() == free
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64)
    with a, b, MR(b.pd, size, access) as target:
        assert _huge_pages_free() == free - 2
        a.mr.write(b'into a huge page', 16)
        wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[sge(a, 16)])
        wr.set_wr_rdma(target.rkey, target.buf + 2 * 1024 * 1024 + 8)
        a.qp.post_send(wr)
        (wc,) = poll(a.cq)
        assert wc.status == e.IBV_WC_SUCCESS
        assert target.read(16, 2 * 1024 * 1024 + 8) == b'into a huge page'
    assert _huge_pages_free() == free


# ------------------------------------------------- mem_alloc.madvise on MRs

def test_madvise_on_mr_buffers(pd):
    """An MR's own memory is whole pages of its own, which madvise() takes
    (upstream's ODP tests empty MR buffers so that the device faults them
    back); memory the MR was given (a buffer, a raw address) is not taken
    unless it is mem_alloc's own."""
    import pyverbs.mem_alloc as mem
    page = resource.getpagesize()
    mr = MR(pd, 2 * page + 100, LOCAL_WRITE)
    for i in range(3):
        mr.write(b'\xab' * 8, 8, i * page)
    mem.madvise(mr.buf, page, mem.MADV_WILLNEED_)
    assert mr.read(8, 0) == b'\xab' * 8
    mem.madvise(mr.buf + page, page)
    assert mr.read(8, 0) == b'\xab' * 8
    assert mr.read(8, page) == bytes(8)
    mem.madvise(mr.buf, mr.length)        # its last page is its own too
    assert mr.read(8, 2 * page) == bytes(8)
    with pytest.raises(PyverbsUserError):
        mem.free(mr.buf)                  # not mem_alloc's to free
    buf = mr.buf
    mr.close()
    with pytest.raises(PyverbsUserError, match='pyverbs allocated'):
        mem.madvise(buf, page)            # freed with the MR
    ba = bytearray(3 * page)
    with MR(pd, 3 * page, LOCAL_WRITE, address=ba) as mr:
        inside = (mr.buf + page - 1) & ~(page - 1)
        with pytest.raises(PyverbsUserError, match='pyverbs allocated'):
            mem.madvise(inside, page)
    a = mem.mmap(length=2 * page)
    with MR(pd, 2 * page, LOCAL_WRITE, address=a) as mr:
        mr.write(b'cd', 2)
        mem.madvise(mr.buf, mr.length)
        assert mr.read(2, 0) == bytes(2)
    mem.munmap(a, 2 * page)


def test_mw_type2_post_send_updates_rkey(ctx):
    """Upstream 65.0: once post_send() has posted a BIND_MW WR, its window
    has the WR's rkey (MW.rkey: what RDMA through the window and a local
    invalidation name it by; a type 2 window is invalidated before it is
    bound again, and the next bind's key follows from it); a WR the post
    did not reach (from bad_wr on) leaves its window's rkey alone."""
    import pyverbs.enums as e
    from pyverbs.mr import MW, MWBindInfo
    from pyverbs.wr import SendWR
    from rdma_helpers import pair, poll, send_wr
    a, b = pair(ctx, e.IBV_QPT_RC, depth=4, cq_depth=64,
                access=e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                e.IBV_ACCESS_MW_BIND)
    with a, b:
        info = MWBindInfo(b.mr, b.mr.buf, 64, e.IBV_ACCESS_REMOTE_WRITE)
        mw = MW(b.pd, MW_TYPE_2)
        for round_ in range(3):     # bind, write, invalidate; three times
            before = mw.rkey
            wr = SendWR(opcode=e.IBV_WR_BIND_MW,
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_bind_wr(mw, info)
            assert wr.rkey != before
            b.qp.post_send(wr)
            assert mw.rkey == wr.rkey
            assert poll(b.cq)[0].status == e.IBV_WC_SUCCESS
            data = f'window key {round_}'.encode()
            w = send_wr(a, data, opcode=e.IBV_WR_RDMA_WRITE)
            w.set_wr_rdma(mw.rkey, b.mr.buf)
            a.qp.post_send(w)
            poll(a.cq)
            assert b.mr.read(len(data), 0) == data
            inv = SendWR(opcode=e.IBV_WR_LOCAL_INV, imm_data=mw.rkey)
            b.qp.post_send(inv)
            assert poll(b.cq)[0].opcode == e.IBV_WC_LOCAL_INV
        # a list that overflows the send queue: the WRs before the failing
        # one bind (and update), the rest do not
        n = b.qp.query(e.IBV_QP_CAP)[0].cap.max_send_wr
        mws = [MW(b.pd, MW_TYPE_2) for _ in range(n + 2)]
        keys = [m.rkey for m in mws]
        wrs = []
        for m in mws:
            w = SendWR(opcode=e.IBV_WR_BIND_MW)
            w.set_bind_wr(m, info)
            wrs.append(w)
        with pytest.raises(PyverbsRDMAError) as ex:
            b.qp.post_send(wrs)
        assert ex.value.bad_wr_index == n
        assert [m.rkey for m in mws[:n]] == [w.rkey for w in wrs[:n]]
        assert [m.rkey for m in mws[n:]] == keys[n:]
        # a window closed after set_bind_wr: refused, never written
        wr = SendWR(opcode=e.IBV_WR_BIND_MW)
        wr.set_bind_wr(mws[-1], info)
        mws[-1].close()
        with pytest.raises(PyverbsUserError, match='closed MW'):
            b.qp.post_send(wr)
        for m in mws + [mw]:
            m.close()
