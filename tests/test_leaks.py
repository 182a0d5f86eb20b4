# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Leaks: each object's create/use/close cycle, and each error path
(bad arguments raising, use after close raising, the device refusing),
run many times with flat counts of

- the interpreter's allocated blocks (sys.getallocatedblocks(): every
  Python object and PyMem block the extension keeps),
- the C heap in use (glibc mallinfo2().uordblks: what libibverbs and
  librdmacm allocate for us and we must free),
- open file descriptors (/proc/self/fd),
- and, on the device, the kernel's object counts (`rdma resource show`).

Host part: 10,000 cycles of everything that needs no device.  Device
part (the Soft-RoCE VM, software emulation on a shared machine): fewer,
so that each test runs in about a minute there (DEVICE_CYCLES below:
1,000 to 5,000); a leak of one block or a few bytes a cycle still shows.
"""
import ctypes
import gc
import os
import sys
import time

import pytest

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cmid import AddrInfo, CMEvent, CMID, ConnParam, JoinMCAttrEx
from pyverbs.cq import CQ, CQEX, CompChannel, CqInitAttrEx
from pyverbs.device import Context, get_device_list
from pyverbs.mr import MR, MW
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsUserError
from pyverbs.qp import QP, QPAttr, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rdma_helpers import device_resources, settled_blocks  # noqa: E402

HOST_CYCLES = 10_000
# Blocks a run may gain without a leak (caches, free lists, interned
# values settle during the warm-up; a leak of one block a cycle would show
# as thousands).
BLOCK_SLACK = 64
# C heap: 16 KiB (a leak of 8 bytes a cycle over 3,000 cycles is 24 KiB;
# libibverbs' smallest allocation for an object is larger than that).
HEAP_SLACK = 16 * 1024


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        'arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks',
        'fsmblks', 'uordblks', 'fordblks', 'keepcost')]


def _heap_fn():
    try:
        fn = ctypes.CDLL(None).mallinfo2
    except AttributeError:
        return None
    fn.restype = _Mallinfo2
    return fn


_mallinfo2 = _heap_fn()


def heap():
    """Bytes in use in the C heap (0 where glibc has no mallinfo2)."""
    return _mallinfo2().uordblks if _mallinfo2 else 0


def fds():
    return len(os.listdir('/proc/self/fd'))


def measure(fn, n, warm=200):
    """Run fn() warm times, then n times; the growth of (blocks, heap
    bytes, fds) over the n."""
    for _ in range(warm):
        fn()
    b0, h0, f0 = settled_blocks(), heap(), fds()
    for _ in range(n):
        fn()
    return (settled_blocks() - b0, heap() - h0, fds() - f0)


def assert_flat(fn, n):
    blocks, heap_bytes, nfds = measure(fn, n)
    # the numbers, for pytest -s (README quotes them)
    print(f'LEAK {fn.__qualname__.split(".")[0]}: {n} cycles, '
          f'{blocks:+} blocks, {heap_bytes:+} heap bytes, {nfds:+} fds')
    assert blocks <= BLOCK_SLACK, f'{blocks} blocks gained over {n} cycles'
    assert heap_bytes <= HEAP_SLACK, \
        f'{heap_bytes} heap bytes gained over {n} cycles'
    assert nfds == 0, f'{nfds} fds gained over {n} cycles'


def raises(exc, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc:
        return
    raise AssertionError(f'{fn} did not raise {exc}')


# ------------------------------------------------------------------- host

def _attrs():
    cap = QPCap(max_send_wr=4, max_recv_wr=4)
    QPInitAttr(qp_type=e.IBV_QPT_RC, cap=cap)
    QPInitAttrEx(qp_type=e.IBV_QPT_RC, cap=cap, comp_mask=0)
    a = QPAttr(port_num=1)
    a.qkey = 7
    str(a)
    ah = AHAttr(port_num=1, is_global=1, gr=GlobalRoute(sgid_index=1))
    str(ah)
    sge = SGE(0x1000, 64, 5)
    s = SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge])
    s.set_wr_rdma(1, 2)
    RecvWR(num_sge=2, sg=[sge, SGE(0x2000, 8, 6)])
    SrqInitAttr(SrqAttr(max_wr=8))
    CqInitAttrEx(cqe=16)
    p = ConnParam(data_len=8)
    p.set_private_data(b'12345678')


def _bad_arguments():
    raises(TypeError, SGE, 'x', 1, 2)
    raises(OverflowError, QPCap, max_send_wr=-1)
    raises(TypeError, QPInitAttr, qp_type='rc')
    raises(TypeError, PD, None)
    raises(TypeError, CQ, None, 8)
    raises(TypeError, AHAttr, gr=5)
    raises(OverflowError, ConnParam, retry=-1)
    raises(OverflowError, ConnParam, data_len=256)
    raises(TypeError, CMID, creator=1)


def _closed_use():
    c = CMID()                      # never opened: closed
    raises(PyverbsUserError, c.listen)
    raises(PyverbsUserError, c.reg_msgs, 10)
    raises(PyverbsUserError, c.set_option, 7,
           ce.RDMA_OPTION_ID_ACK_TIMEOUT, 1, 1)
    c.close()
    from pyverbs import _verbs
    from pyverbs.mr import MWBind, MWBindInfo
    from pyverbs.wq import WQ, RwqIndTable
    with MWBindInfo.__new__(MWBindInfo) as info:
        raises(PyverbsUserError, MWBind, info, 0)
    raises(PyverbsError, WQ.__new__(WQ).add_ref, 1)
    raises(PyverbsUserError, RwqIndTable.__new__(RwqIndTable).add_ref,
           QP.__new__(QP))
    root = _verbs._child_of()
    parent, child = _verbs._child_of(root), _verbs._child_of(root)
    _verbs._add_ref(parent, child)
    raises(PyverbsUserError, _verbs._add_ref, child, parent)
    root.close()


def _empty_addrinfo():
    ai = AddrInfo()                 # empty, refused where it is read
    raises(PyverbsUserError, CMID, creator=ai)
    raises(PyverbsUserError, JoinMCAttrEx, ai)
    raises(PyverbsUserError, CMID().bind_addr, ai)
    raises(TypeError, ai.get_addrinfo, src=1.5)
    raises(ValueError, ai.get_addrinfo, dst_service='1\0')
    ai.close()


def _no_such_device():
    get_device_list()
    raises(PyverbsError, Context, name='no-such-device')


def _mr_ex_and_counters():
    """The attribute classes of MREx/DMAHandle/Buf and of the completion
    counters, their bad arguments and their unopened objects."""
    from pyverbs.comp_cntr import CompCntr, CompCntrInitAttr
    from pyverbs.device import CompCntrCaps
    from pyverbs.mr import Buf, BufMR, DmaHandleInitAttr, MREx
    from pyverbs.qp import QPAttachCompCntrAttr
    str(DmaHandleInitAttr(comp_mask=7, cpu_id=1, ph=2, tph_mem_type=1))
    CompCntrInitAttr(1, 1, 0)
    QPAttachCompCntrAttr(op_mask=3)
    CompCntrCaps()
    raises(OverflowError, DmaHandleInitAttr, ph=256)
    raises(TypeError, CompCntrInitAttr, flags='x')
    raises(TypeError, MREx, None, 64)
    raises(TypeError, MREx, PD.__new__(PD), 64, dmah=1)
    raises(OverflowError, MREx, PD.__new__(PD), 64, iova=-1)
    raises(TypeError, BufMR, PD.__new__(PD), 1)
    raises(PyverbsError, MREx, PD.__new__(PD), 64)
    raises(PyverbsUserError, Buf.__new__(Buf).export_dmabuf_fd)
    raises(PyverbsUserError, CompCntr.__new__(CompCntr).read)
    raises(PyverbsUserError, CompCntr, Context.__new__(Context),
           CompCntrInitAttr())


def _providers65():
    """rdma-core 65's provider objects that need no device: made, used,
    refused (bad arguments, closed objects, a call the build lacks)."""
    from pyverbs import _verbs
    if getattr(_verbs, '_HAVE_MLX5', 0):
        from pyverbs.providers.mlx5 import mlx5dv, mlx5dv_flow as fl
        from pyverbs.providers.mlx5.mlx5dv_event import EventFD, EventHeader
        from pyverbs.providers.mlx5.dr_action import DrFlowMeterAttr
        with EventFD(1) as efd:
            efd.fd
        EventHeader(1, b'x').data
        raises(TypeError, DrFlowMeterAttr, None)
        raises(PyverbsUserError, fl.Mlx5FlowActionAttr, 5)
        raises(TypeError, mlx5dv.Mlx5DevxCmdComp, None)
        str(mlx5dv.Mlx5DVContext())
        try:
            mlx5dv.Mlx5VAR.get_export_size()    # the build may lack it
        except PyverbsError:
            pass
        raises(TypeError, mlx5dv.Mlx5VAR.import_var, None, b'')
    if getattr(_verbs, '_HAVE_EFA', 0):
        from pyverbs.providers.efa import efadv
        str(efadv.EfaDVMRAttr())
        str(efadv.EfaDVDeviceAttr())
        efadv.EfaCompCntrInitAttr(1, 2).set_comp_ext_mem_va(3)
        raises(OverflowError, efadv.EfaCompCntrInitAttr, -1)
        raises(PyverbsUserError, efadv.EfaMR.__new__(efadv.EfaMR).query)
        from pyverbs.comp_cntr import CompCntrInitAttr
        shut = Context.__new__(Context)
        # the default EfaCompCntrInitAttr made and dropped, or one given
        raises(PyverbsUserError, efadv.EfaCompCntr, shut, CompCntrInitAttr())
        raises(PyverbsUserError, efadv.EfaCompCntr, shut, CompCntrInitAttr(),
               efadv.EfaCompCntrInitAttr(1, 2))
        raises(TypeError, efadv.EfaCompCntr, shut, CompCntrInitAttr(), 1)


@pytest.mark.parametrize('fn', [_attrs, _bad_arguments, _closed_use,
                                _empty_addrinfo, _no_such_device,
                                _mr_ex_and_counters, _providers65],
                         ids=lambda f: f.__name__.strip('_'))
def test_host_cycles(fn):
    assert_flat(fn, HOST_CYCLES)


def test_measure_sees_a_leak():
    """The measure is not blind: a cycle keeping one object (and one C
    heap buffer) shows."""
    kept = []
    libc = ctypes.CDLL(None)
    libc.malloc.restype = ctypes.c_void_p
    blocks, heap_bytes, nfds = measure(
        lambda: kept.append((object(), libc.malloc(64))), 2000, warm=10)
    assert blocks >= 2000 and heap_bytes >= 2000 * 64 and nfds == 0
    libc.free.argtypes = [ctypes.c_void_p]
    for _, p in kept:
        libc.free(p)


# ----------------------------------------------------------------- device

# Measured in the guest (one cycle, TCG, the machine shared): a Context
# 1.7 ms, the light objects 9 ms, the QPs 7 ms, an RC pair to RTS with a
# message each way 8 ms, a listening CMID 2.3 ms.
# With the machine loaded by other guests, 10,000 light cycles took 279 s
# and 10,000 Contexts 143 s: the counts below keep each test near a
# minute there.
DEVICE_CYCLES = {'light': 3_000, 'context': 4_000, 'qp': 2_000,
                 'errors': 5_000, 'rts': 1_000, 'cm': 5_000}


@pytest.fixture
def flat_device():
    """The kernel's object counts back where they were after the test (the
    kernel may free a closed rdma_cm id or context a little later: up to
    10 s)."""
    before = device_resources()
    yield
    gc.collect()
    limit = time.monotonic() + 10
    while (after := device_resources()) != before and \
            time.monotonic() < limit:
        time.sleep(0.1)
    assert after == before


@pytest.fixture
def cm_warm(accept_local):
    """librdmacm opens a device (a 'ctx' in the kernel's counts) the first
    time an id resolves an address, and keeps it for the process: let it
    do so before flat_device counts."""
    from pyverbs.cmid import AddrInfo, CMEventChannel
    with CMEventChannel() as ch:
        cid = CMID(creator=ch)
        cid.resolve_addr(AddrInfo(src='192.0.2.1', dst='192.0.2.1'))
        CMEvent(ch).close()


ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE


@pytest.mark.device
def test_context_cycles(dev_name, flat_device):
    def cycle():
        with Context(name=dev_name) as c:
            c.query_device()
            c.query_port(1)
    assert_flat(cycle, DEVICE_CYCLES['context'])


@pytest.mark.device
def test_light_object_cycles(ctx, pd, gid_index, flat_device):
    gid = ctx.query_gid(1, gid_index)
    ah_attr = AHAttr(port_num=1, is_global=1,
                     gr=GlobalRoute(dgid=gid, sgid_index=gid_index))

    def cycle():
        with MR(pd, 4096, ACCESS) as mr:
            mr.write(b'x' * 64, 64)
            mr.read(64, 0)
        MW(pd, e.IBV_MW_TYPE_2).close()
        cc = CompChannel(ctx)
        cq = CQ(ctx, 8, None, cc, 0)
        cq.req_notify()
        cq.poll()
        cq.close()
        cc.close()
        CQEX(ctx, CqInitAttrEx(cqe=8)).close()
        with SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4))) as srq:
            srq.query()
        AH(pd, attr=ah_attr).close()
        p = PD(ctx)
        MR(p, 64, ACCESS)           # closed by its PD
        p.close()
    assert_flat(cycle, DEVICE_CYCLES['light'])


@pytest.mark.device
def test_device_error_path_cycles(ctx, pd, flat_device):
    """What the device or the library refuses, and use after close."""
    closed = PD(ctx)
    closed.close()
    cq = CQ(ctx, 8)

    def cycle():
        raises(PyverbsError, MR, pd, 1 << 62, ACCESS)     # too long
        raises(PyverbsError, CQ, ctx, 1 << 30)            # too deep
        raises(PyverbsError, QP, pd, QPInitAttr(          # too many WRs
            qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
            cap=QPCap(max_send_wr=1 << 30)))
        raises(PyverbsError, ctx.query_gid, 1, 100000)
        raises(PyverbsError, ctx.query_port, 77)
        raises(PyverbsUserError, MR, closed, 64, ACCESS)
        raises(PyverbsError, cq.resize, 0)
        for make in provider_refusals:          # libmlx5: not an mlx5
            raises(PyverbsError, make, ctx)
    from pyverbs import _verbs
    provider_refusals = []
    if getattr(_verbs, '_HAVE_MLX5', 0):
        from pyverbs.providers.mlx5.mlx5dv import Mlx5DevxCmdComp
        from pyverbs.providers.mlx5.mlx5dv_event import EventChannel
        provider_refusals = [Mlx5DevxCmdComp, EventChannel]
    try:
        assert_flat(cycle, DEVICE_CYCLES['errors'])
    finally:
        cq.close()


@pytest.mark.device
def test_qp_cycles(ctx, pd, flat_device):
    cq = CQ(ctx, 16)
    cap = QPCap(max_send_wr=4, max_recv_wr=4)

    def cycle():
        with QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                               cap=cap)) as qp:
            qp.query(e.IBV_QP_STATE)
        QPEx(ctx, QPInitAttrEx(
            qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap, pd=pd,
            comp_mask=e.IBV_QP_INIT_ATTR_PD |
            e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
            send_ops_flags=e.IBV_QP_EX_WITH_SEND)).close()
        with QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                               cap=cap)) as qp:
            qp.to_init(QPAttr(port_num=1))
    try:
        assert_flat(cycle, DEVICE_CYCLES['qp'])
    finally:
        cq.close()


@pytest.mark.device
def test_traffic_cycles(ctx, flat_device):
    """An RC pair built, moved to RTS, one message each way, closed."""
    from rdma_helpers import pair, poll, recv_wr, send_wr

    def cycle():
        a, b = pair(ctx, e.IBV_QPT_RC)
        with a, b:
            b.qp.post_recv(recv_wr(b))
            a.qp.post_send(send_wr(a, b'hello'))
            poll(a.cq)
            poll(b.cq)
    assert_flat(cycle, DEVICE_CYCLES['rts'])


@pytest.mark.device
def test_cm_cycles(dev_names, cm_warm, flat_device):
    from pyverbs.cmid import AddrInfo, CMEventChannel

    def cycle():
        with CMEventChannel() as ch:
            cid = CMID(creator=ch)
            cid.bind_addr(AddrInfo(src='192.0.2.1', flags=ce.RAI_PASSIVE))
            cid.listen()
            raises(PyverbsError, cid.bind_addr,     # bound already
                   AddrInfo(src='192.0.2.1', flags=ce.RAI_PASSIVE))
        assert cid.closed
    assert_flat(cycle, DEVICE_CYCLES['cm'])


@pytest.mark.device
def test_addrinfo_refill_cycles(dev_names, cm_warm, flat_device):
    """get_addrinfo() frees the list it replaces, a failed one keeps it;
    AddrInfo(...) filled at once frees its list at close."""
    ai = AddrInfo()

    def cycle():
        ai.get_addrinfo(src='192.0.2.1', dst='192.0.2.1',
                        dst_service='18630')
        raises(PyverbsError, ai.get_addrinfo, dst='abc',
               flags=ce.RAI_NUMERICHOST)
        AddrInfo(src='192.0.2.1', flags=ce.RAI_PASSIVE).close()
    assert_flat(cycle, DEVICE_CYCLES['cm'])
    assert ai.dst_addr == '192.0.2.1:18630'


@pytest.mark.device
def test_cmid_closed_while_joined(dev_names, cm_warm, flat_device):
    """A UD CMID closed while still in a multicast group: close() leaves
    the group first (the kernel will not destroy an attached QP, and
    rdma_destroy_qp() cannot say so: its QP, CQs and PD used to leak, as
    the fault-injection sweep found)."""
    from pyverbs.cmid import AddrInfo, CMEventChannel
    mc = '239.1.1.11'

    def cycle():
        with CMEventChannel() as ch:
            cid = CMID(creator=ch, port_space=ce.RDMA_PS_UDP)
            cid.bind_addr(AddrInfo(src='192.0.2.1',
                                   port_space=ce.RDMA_PS_UDP,
                                   flags=ce.RAI_PASSIVE))
            cid.resolve_addr(AddrInfo(src='192.0.2.1', dst=mc))
            CMEvent(ch).close()
            cid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_UD,
                                     cap=QPCap(max_send_wr=2,
                                               max_recv_wr=2)))
            cid.join_multicast(addr=AddrInfo(src=mc))
            ev = CMEvent(ch)
            assert ev.event_type == ce.RDMA_CM_EVENT_MULTICAST_JOIN
            ev.close()
            cid.close()             # joined: close leaves first
            assert cid.closed
    assert_flat(cycle, 300)


@pytest.mark.device
def test_mr_ex_and_buf_cycles(ctx, pd, flat_device):
    """MREx (allocated, over a bytearray) and Buf/BufMR made, used and
    closed (where the build has them), and what rxe or the build refuses:
    DMAHandle, completion counters, ranges outside a Buf, bad access."""
    from pyverbs import _verbs
    from pyverbs.comp_cntr import CompCntr, CompCntrInitAttr
    from pyverbs.mr import Buf, BufMR, DMAHandle, DmaHandleInitAttr, MREx
    have_ex, have_buf = _verbs._HAVE_REG_MR_EX, _verbs._HAVE_BUF
    target = bytearray(4096)

    def cycle():
        raises(PyverbsError, DMAHandle, ctx, DmaHandleInitAttr(comp_mask=7))
        raises(PyverbsError, CompCntr, ctx, CompCntrInitAttr())
        raises(PyverbsError, ctx.query_comp_cntr_caps)
        if not have_ex:
            raises(PyverbsError, MREx, pd, 4096, ACCESS)
            return
        with MREx(pd, 4096, ACCESS) as mr:
            mr.write(b'x' * 64, 64)
            mr.read(64, 0)
        MREx(pd, 0, ACCESS, address=target).close()
        MREx(pd, 4096, ACCESS, iova=0x1000).close()
        raises(PyverbsError, MREx, pd, 4096, e.IBV_ACCESS_REMOTE_WRITE)
        if not have_buf:
            raises(PyverbsError, Buf, pd, 4096)
            return
        b = Buf(pd, 8192)
        BufMR(pd, b, 4096, ACCESS, offset=4096).write(b'y', 1)
        MREx(pd, 4096, ACCESS, buf=b)
        raises(PyverbsError, BufMR, pd, b, 8192, ACCESS, offset=1)
        raises(PyverbsError, b.export_dmabuf_fd)
        b.close()                   # closes its two MRs
    assert_flat(cycle, DEVICE_CYCLES['light'])
