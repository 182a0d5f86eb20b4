# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Fault-injection sweeps, run under tests/fakes/faultinject.c (preloaded)
by tests/test_faultinject.py.

Usage: fault_scenario.py SHIM SCENARIO DEV GID_INDEX [FUNC ...]

SCENARIO is 'verbs' (every core verbs object on DEV) or 'cm' (rdma_cm: an
asynchronous RC connection over event channels, both sides in this thread,
and the synchronous endpoints of AddrInfo).  The scenario first runs
without a fault and the shim counts each wrapped function's calls; then,
for every function that can fail (or only the FUNCs given) and every N up
to its count, it runs again with the Nth call of that function failing
(ENOMEM, EINVAL and EAGAIN in turn), closes what the run had made, and
checks: the failure came out as a PyverbsError naming the function with
the injected errno, every object made before it closes, and the fd count,
the device's resource counts and (across repeated runs of each case) the
interpreter's allocated blocks are back where they were.  One JSON object
per line on stdout: {"baseline": {...}}, one {"case": ...} per case, then
{"summary": ...}.

FAULT_SCENARIO_LEAK=FUNC in the environment makes every run whose fault
fired in FUNC keep 64 bytes for good: the self-test of the heap check.
"""
import ctypes
import errno
import faulthandler
import gc
import json
import os
import select
import sys
import time

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cmid import (AddrInfo, CMEvent, CMEventChannel, CMID, ConnParam,
                          JoinMCAttrEx)
from pyverbs.cq import CQ, CQEX, CompChannel, CqInitAttrEx
from pyverbs.device import Context, get_device_list, rdma_get_devices
from pyverbs.fork import fork_init, is_fork_initialized
from pyverbs import _verbs
from pyverbs.comp_cntr import CompCntr, CompCntrInitAttr
from pyverbs.mr import MR, MW, Buf, BufMR, DMAHandle, DmaHandleInitAttr, MREx
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import ECE, QP, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from rdma_helpers import device_resources, settled_blocks  # noqa: E402

SHIM, SCENARIO, DEV, GIDX = (sys.argv[1], sys.argv[2], sys.argv[3],
                             int(sys.argv[4]))
ONLY = sys.argv[5:]
ERRS = (errno.ENOMEM, errno.EINVAL, errno.EAGAIN)
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_MW_BIND)
QKEY = 0x11111111
IP = '192.0.2.1'

fi = ctypes.CDLL(SHIM)
fi.fi_arm.argtypes = [ctypes.c_char_p, ctypes.c_long, ctypes.c_int]
fi.fi_calls.argtypes = [ctypes.c_char_p]
fi.fi_calls.restype = ctypes.c_long
fi.fi_fired.restype = ctypes.c_char_p
fi.fi_function.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
fi.fi_function.restype = ctypes.c_char_p


def wrapped():
    """{name: failure convention} of every function the shim wraps."""
    out, i, kind = {}, 0, ctypes.c_char_p()
    while (name := fi.fi_function(i, ctypes.byref(kind))):
        out[name.decode()] = kind.value.decode()
        i += 1
    return out


def poll(cq, n=1, timeout=10):
    got, end = [], time.monotonic() + timeout
    while len(got) < n:
        _, wcs = cq.poll(n - len(got))
        got += wcs
        if time.monotonic() > end:
            raise TimeoutError('no completion')
    for wc in got:
        if wc.status != e.IBV_WC_SUCCESS:
            raise RuntimeError(f'completion status {wc.status}')
    return got


# ------------------------------------------------------------ scenarios

def refused(fn, *args, code=errno.EOPNOTSUPP, **kw):
    """fn(*args, **kw), where rxe answers code (EOPNOTSUPP): that refusal
    is the baseline, and any other error (the injected ENOMEM, EINVAL,
    EAGAIN) goes up.  The object it made, if any, else None."""
    try:
        return fn(*args, **kw)
    except PyverbsError as ex:
        if getattr(ex, 'error_code', None) != code:
            raise
    return None


def newer_verbs(ctx, pd, keep):
    """What the build's rdma-core 59..65 brings: MREx (at an iova, over a
    Buf), Buf and BufMR (export_dmabuf_fd: ENODATA for plain memory), and
    what rxe refuses (DMAHandle, completion counters)."""
    if _verbs._HAVE_REG_MR_EX:
        keep(MREx(pd, 4096, ACCESS, iova=0x10000))
        refused(DMAHandle, ctx, DmaHandleInitAttr(comp_mask=1))
    if _verbs._HAVE_BUF:
        buf = keep(Buf(pd, 8192))
        keep(BufMR(pd, buf, 4096, ACCESS))
        keep(MREx(pd, 4096, ACCESS, buf=buf, address=buf.addr + 4096))
        if _verbs._HAVE_BUF_DMABUF_FD:
            refused(buf.export_dmabuf_fd, code=errno.ENODATA)
    if _verbs._HAVE_COMP_CNTR:
        refused(ctx.query_comp_cntr_caps)
        refused(CompCntr, ctx, CompCntrInitAttr())


def verbs(made):
    """Every core verbs object rxe has, each used, then closed in reverse
    order of creation.  What rxe refuses with EOPNOTSUPP (ECE, MR.rereg(),
    importing a Context) is called all the same: the injected errors must
    still come out.  Not here: XRCD (no XRC), DM and flows (rxe has
    none), importing a PD or MR (no imported Context to import into)."""
    def keep(o):
        made.append(o)
        return o

    fork_init()
    is_fork_initialized()
    get_device_list()
    rdma_get_devices()
    ctx = keep(Context(name=DEV))
    ctx.query_device()
    ctx.query_port(1)
    gid = ctx.query_gid(1, GIDX)
    ctx.query_pkey(1, 0)
    ctx.get_pkey_index(1, 0xffff)
    pd = keep(PD(ctx))
    mr = keep(MR(pd, 4096, ACCESS))     # (rxe has no rereg: EOPNOTSUPP)
    keep(MW(pd, e.IBV_MW_TYPE_2))
    newer_verbs(ctx, pd, keep)
    cc = keep(CompChannel(ctx))
    cq = keep(CQ(ctx, 16, None, cc, 0))
    cq.resize(32)
    keep(CQEX(ctx, CqInitAttrEx(cqe=16)))
    srq = keep(SRQ(pd, SrqInitAttr(SrqAttr(max_wr=8))))
    srq.modify(SrqAttr(srq_limit=2), e.IBV_SRQ_LIMIT)
    srq.query()
    cap = QPCap(max_send_wr=4, max_recv_wr=4)
    qa = keep(QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                                cap=cap)))
    qb = keep(QPEx(ctx, QPInitAttrEx(
        qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap, pd=pd,
        comp_mask=e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
        send_ops_flags=e.IBV_QP_EX_WITH_SEND)))
    ah_attr = AHAttr(port_num=1, is_global=1,
                     gr=GlobalRoute(dgid=gid, sgid_index=GIDX, hop_limit=64))
    for x, y in ((qa, qb), (qb, qa)):
        x.establish(y.qp_num, 0, ah_attr, timeout=18)
    qa.query(e.IBV_QP_STATE)
    qa.query_data_in_order(e.IBV_WR_SEND)
    # what rxe refuses still goes through its error path
    refused(qa.set_ece, ECE(vendor_id=0x15b3, options=1, comp_mask=0))
    refused(qa.query_ece)
    refused(mr.rereg, e.IBV_REREG_MR_CHANGE_ACCESS, access=ACCESS)
    fd = os.dup(ctx.cmd_fd)         # the Context owns it once made
    try:
        ictx = refused(Context, cmd_fd=fd)
    except BaseException:
        os.close(fd)
        raise
    if ictx is None:
        os.close(fd)
    else:
        keep(ictx)
    # a completion event through the channel
    cq.req_notify()
    qb.post_recv(RecvWR(num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)]))
    qa.post_send(SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                        sg=[SGE(mr.buf + 64, 64, mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED))
    cc.get_cq_event(cq)
    cq.ack_events(1)
    poll(cq, 2)
    # UD to itself: an AH from attributes, then one from the received WC
    ud = keep(QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                                cap=cap)))
    ud.establish(qkey=QKEY)
    ah = keep(AH(pd, attr=ah_attr))
    ud.post_recv(RecvWR(num_sge=1, sg=[SGE(mr.buf + 1024, 104, mr.lkey)]))
    swr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                 sg=[SGE(mr.buf + 2048, 64, mr.lkey)],
                 send_flags=e.IBV_SEND_SIGNALED)
    swr.set_wr_ud(ah, ud.qp_num, QKEY)
    ud.post_send(swr)
    wcs = poll(cq, 2)
    wc = [w for w in wcs if w.opcode & e.IBV_WC_RECV][0]
    keep(AH(pd, wc=wc, grh=mr.buf + 1024, port_num=1))
    while made:
        made[-1].close()
        made.pop()


def expect(ch, etype, timeout=10):
    """The next event of ch, which must be etype (never waits forever)."""
    r, _, _ = select.select([ch], [], [], timeout)
    if not r:
        raise TimeoutError(f'no CM event {etype} within {timeout} s')
    ev = CMEvent(ch)
    try:
        if ev.event_type != etype:
            raise RuntimeError(f'CM event {ev.event_str()}, wanted {etype}')
    finally:
        ev.close()


def request(sch, lid, timeout=10):
    """The id of the next connect request to lid, on sch."""
    r, _, _ = select.select([sch], [], [], timeout)
    if not r:
        raise TimeoutError('no connect request')
    ev = CMEvent(sch)
    try:
        return CMID(creator=ev, listen_id=lid)
    finally:
        ev.close()


def cm(made):
    """rdma_cm: a connection both of whose sides this thread drives over
    two event channels (listen, resolve, connect, accept, a message,
    disconnect, reject of a second request), multicast join and leave,
    then the synchronous endpoints of AddrInfo (create_ep passive and
    active).  Not here: rdma_get_request/rdma_establish (a synchronous
    accept needs a second thread, which would make the call counts
    nondeterministic) and ECE (rxe refuses it)."""
    def keep(o):
        made.append(o)
        return o

    sch, cch = keep(CMEventChannel()), keep(CMEventChannel())
    lid = keep(CMID(creator=sch))
    lid.set_option(ce.RDMA_OPTION_ID, ce.RDMA_OPTION_ID_ACK_TIMEOUT, 14, 1)
    lid.bind_addr(AddrInfo(src=IP, src_service='18590',
                           flags=ce.RAI_PASSIVE))
    lid.listen()
    cid = keep(CMID(creator=cch))
    cid.resolve_addr(AddrInfo(src=IP, dst=IP, dst_service='18590'))
    expect(cch, ce.RDMA_CM_EVENT_ADDR_RESOLVED)
    cid.resolve_route()
    expect(cch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED)
    attr = QPInitAttr(qp_type=e.IBV_QPT_RC,
                      cap=QPCap(max_send_wr=4, max_recv_wr=4))
    cid.create_qp(attr)
    cid.connect(ConnParam())
    child = keep(request(sch, lid))
    child.create_qp(attr)
    mr = child.reg_msgs(1024)
    child.post_recv(mr, 64)
    child.accept(ConnParam())
    expect(cch, ce.RDMA_CM_EVENT_ESTABLISHED)
    expect(sch, ce.RDMA_CM_EVENT_ESTABLISHED)
    cmr = cid.reg_msgs(1024)
    cid.post_send(cmr, length=64)
    cid.get_send_comp()
    child.get_recv_comp()
    cid.query_qp(e.IBV_QP_STATE)
    cid.init_qp_attr(e.IBV_QPS_RTS)
    cid.disconnect()
    expect(sch, ce.RDMA_CM_EVENT_DISCONNECTED)
    child.disconnect()
    expect(cch, ce.RDMA_CM_EVENT_DISCONNECTED)
    # a second request, rejected
    cid2 = keep(CMID(creator=cch))
    cid2.resolve_addr(AddrInfo(src=IP, dst=IP, dst_service='18590'))
    expect(cch, ce.RDMA_CM_EVENT_ADDR_RESOLVED)
    cid2.resolve_route()
    expect(cch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED)
    cid2.create_qp(attr)
    cid2.connect(ConnParam())
    child2 = keep(request(sch, lid))
    child2.reject()
    expect(cch, ce.RDMA_CM_EVENT_REJECTED)
    # multicast: two UD ids join a group (the plain and the extended
    # call), then leave it
    mc = '239.1.1.9'
    for i in range(2):
        mid = keep(CMID(creator=cch, port_space=ce.RDMA_PS_UDP))
        mid.bind_addr(AddrInfo(src=IP, port_space=ce.RDMA_PS_UDP,
                               flags=ce.RAI_PASSIVE))
        mid.resolve_addr(AddrInfo(src=IP, dst=mc))
        expect(cch, ce.RDMA_CM_EVENT_ADDR_RESOLVED)
        mid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_UD,
                                 cap=QPCap(max_send_wr=2, max_recv_wr=2)))
        if i:
            mid.join_multicast(mc_attr=JoinMCAttrEx(
                AddrInfo(src=mc), comp_mask=ce.RDMA_CM_JOIN_MC_ATTR_ADDRESS |
                ce.RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
                join_flags=ce.RDMA_MC_JOIN_FLAG_FULLMEMBER))
        else:
            mid.join_multicast(addr=AddrInfo(src=mc))
        expect(cch, ce.RDMA_CM_EVENT_MULTICAST_JOIN)
        mid.leave_multicast(AddrInfo(src=mc))
    # synchronous endpoints (no connection: their connect would block)
    pai = AddrInfo(src=IP, src_service='18591', flags=ce.RAI_PASSIVE,
                   port_space=ce.RDMA_PS_TCP)
    sync_l = keep(CMID(creator=pai))
    sync_l.listen()
    aai = AddrInfo(src=IP, dst=IP, dst_service='18591',
                   port_space=ce.RDMA_PS_TCP)
    keep(CMID(creator=aai, qp_init_attr=attr))
    while made:
        made[-1].close()
        made.pop()


# --------------------------------------------------------------- driver

def fds():
    return len(os.listdir('/proc/self/fd'))


def cleanup(made):
    """Close what a failed run left open (newest first; a close that fails
    now is a bug: no fault is armed).  The problems found."""
    problems = []
    for o in reversed(made):
        try:
            o.close()
        except Exception as ex:  # noqa: BLE001 -- reported
            problems.append(f'{type(o).__name__}.close(): {ex!r}')
        if not getattr(o, 'closed', True):
            problems.append(f'{type(o).__name__} still open')
    made.clear()
    return problems


KINDS = wrapped()
LAST_COUNTS = {}
LEAK_ON = os.environ.get('FAULT_SCENARIO_LEAK')
LEAKED = []


def run(scn, func=None, n=0, err=errno.ENOMEM):
    """One run with the nth call of func failing (func None: no fault):
    (exception or None, name of the function failed or None, cleanup
    problems)."""
    made = []
    fi.fi_arm(func.encode() if func else None, n, err)
    exc = None
    try:
        scn(made)
    except Exception as ex:  # noqa: BLE001 -- judged by the caller
        exc = ex
    fired = fi.fi_fired()
    if LEAK_ON and fired and fired.decode() == LEAK_ON:
        LEAKED.append(bytearray(64))
    if func is None:
        LAST_COUNTS.clear()
        LAST_COUNTS.update((f, fi.fi_calls(f.encode())) for f in KINDS)
    fi.fi_arm(None, 0, 0)
    return exc, fired.decode() if fired else None, cleanup(made)


# A message names the function as the C source calls it: ibv_reg_mr() is a
# macro of verbs.h that calls the exported ibv_reg_mr_iova2(), and
# ibv_query_comp_cntr_caps() an inline one calling _ibv_query_comp_cntr_caps.
CALLED_AS = {'ibv_reg_mr_iova2': 'ibv_reg_mr',
             '_ibv_query_comp_cntr_caps': 'ibv_query_comp_cntr_caps'}
# Functions that inline ones of librdmacm's rdma_verbs.h call, compiled into
# the extension: the message names the inline function the source calls.
# rdma_get_send_comp()/rdma_get_recv_comp() wait on the CQ's channel only
# when the completion is not there yet (whether they do is timing).
CALLED_INSIDE = {'ibv_get_cq_event': ('rdma_get_send_comp',
                                      'rdma_get_recv_comp')}


def judge(func, err, exc, fired, problems):
    """What is wrong with one case's outcome (empty: nothing)."""
    bad = list(problems)
    if fired != func:
        bad.append(f'the fault did not fire (fired: {fired})')
        return bad
    if exc is None:
        bad.append('the failure was swallowed: no exception')
    elif not isinstance(exc, PyverbsError):
        bad.append(f'not a PyverbsError: {exc!r}')
    else:
        names = (func, CALLED_AS.get(func, func)) + \
            CALLED_INSIDE.get(func, ())
        named = getattr(exc, 'func', None) in names or any(
            n in str(exc) for n in names)
        if not named:
            bad.append(f'does not name {func}: {exc!r} '
                       f'(func={getattr(exc, "func", None)})')
        code = getattr(exc, 'error_code', -1)
        if code not in (err, -1):
            bad.append(f'errno {code}, injected {err}: {exc!r}')
    return bad


def main():
    scn = {'verbs': verbs, 'cm': cm}[SCENARIO]
    kinds = KINDS
    # warm up (imports, caches), then the baseline with counting only
    for _ in range(2):
        exc, _, problems = run(scn)
        if exc or problems:
            print(json.dumps({'error': f'the scenario fails without a '
                              f'fault: {exc!r} {problems}'}))
            return 1
    counts = dict(LAST_COUNTS)
    gc.collect()
    fd0, res0 = fds(), device_resources()
    print(json.dumps({'baseline': {f: c for f, c in counts.items() if c},
                      'kinds': kinds, 'fds': fd0}), flush=True)
    cases = bad_cases = 0
    blocks_growth = {}
    for func, kind in kinds.items():
        if kind == 'PASS' or not counts[func] or (ONLY and func not in ONLY):
            continue
        for n in range(1, counts[func] + 1):
            err = ERRS[(n - 1) % len(ERRS)]
            # run 1 warms the path's caches; the runs after it must not
            # grow the heap.  A growth can be a cache or free list filling
            # (Python 3.14 grows by a few blocks a batch of runs on the
            # error paths of a destroy, however many runs the batch has;
            # settled_blocks() lets the free-threaded build's delayed frees
            # happen before counting):
            # it counts only if 4 more runs grow it again and then 16 more
            # by a block a run at least, as anything kept by each run does
            outcome = run(scn, func, n, err)
            grow = 0
            for reps in (2, 4, 16):
                b1 = settled_blocks()
                for _ in range(reps):
                    run(scn, func, n, err)
                grow = settled_blocks() - b1
                if grow <= 0 or (reps == 16 and grow < reps):
                    grow = 0
                    break
            exc, fired, problems = outcome
            bad = judge(func, err, exc, fired, problems)
            if fds() != fd0:
                bad.append(f'fds {fds()}, baseline {fd0}')
                fd0 = fds()
            if grow > 0:
                blocks_growth[f'{func}#{n}'] = grow
                bad.append(f'the heap grew by {grow} blocks over 16 runs '
                           '(and over 2 and 4 before)')
            cases += 1
            bad_cases += bool(bad)
            print(json.dumps({'case': func, 'n': n, 'errno': err,
                              'exc': repr(exc)[:200], 'bad': bad,
                              'blocks': grow}), flush=True)
            del exc, outcome
        res = device_resources()
        if res != res0:
            print(json.dumps({'case': func, 'n': 0, 'bad': [
                f'device resources differ after {func}: {res0!r} -> '
                f'{res!r}']}), flush=True)
            bad_cases += 1
            res0 = res
    print(json.dumps({'summary': {
        'functions': sorted(f for f in kinds if counts[f] and
                            kinds[f] != 'PASS'),
        'cases': cases, 'bad': bad_cases, 'blocks_growth': blocks_growth}}),
          flush=True)
    return 0


if __name__ == '__main__':
    faulthandler.enable()
    sys.exit(main())
