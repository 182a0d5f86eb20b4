# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Re-entrancy and close races: the patterns that crashed, hung or leaked
before calls held their objects in use (src/pyverbs/_native/object.c,
"In use"; guard.c).

1. a method converts an argument whose __index__/__iter__ closes the
   object (or its parent) after the method checked it open;
2. an allocation inside a call runs the collector, whose __del__ closes
   the object;
3. a blocking destroy waits, holding the GIL, for an event reader that
   needs the GIL to ack;
4. a C struct caches a handle of an object that is closed and opened
   again by a second __init__;
5. a finalizer that cannot close its object (a blocking call) leaks it.

Plus: another thread's close() waits for a call that uses the object.
Every case must end in a result or a PyverbsError, never a crash or hang.
"""
import faulthandler
import gc
import os
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import sysconfig

import pytest

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ, CQEX, CqInitAttrEx
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsUserError
from pyverbs.qp import QP, QPCap, QPInitAttr

from rdma_helpers import find_gid_index, pair, recv_wr, send_wr

pytestmark = pytest.mark.device


class Closing:
    """An int-like and iterable argument that closes objs when converted."""

    def __init__(self, *objs, value=1):
        self.objs, self.value, self.calls = objs, value, 0

    def _close(self):
        self.calls += 1
        for o in self.objs:
            o.close()

    def __index__(self):
        self._close()
        return self.value

    def __iter__(self):
        self._close()
        return iter([])

    def __len__(self):
        self._close()
        return 0


@pytest.fixture
def watchdog():
    """A hang fails the run with every thread's stack instead of
    blocking CI."""
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def ud_qp(pd, cq):
    return QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq,
                             cap=QPCap(4, 4, 1, 1)))


# ---- 1. an argument's conversion closes the object ----

# Without the GIL the data path holds its object in use like every other
# method (guard.c): the argument's close is refused inside the call and the
# object stays open; with the GIL the close goes through and the call,
# which checks after converting its arguments, finds the object closed.
FREE_THREADED = bool(sysconfig.get_config_var('Py_GIL_DISABLED'))


def test_poll_argument_closes_cq(ctx):
    cq = CQ(ctx, 10)
    arg = Closing(cq)
    with pytest.raises(PyverbsError):
        cq.poll(arg)
    assert arg.calls == 1 and cq.closed != FREE_THREADED


@pytest.mark.parametrize('which', ['self', 'parent'])
def test_guarded_method_refuses_close_from_its_argument(ctx, which):
    """A method that holds its CQ in use: the argument's close() raises
    inside the call, so the call fails and the CQ stays open and
    usable."""
    cq = CQ(ctx, 10)
    arg = Closing(cq if which == 'self' else ctx, value=20)
    with pytest.raises(PyverbsUserError, match='inside a call'):
        cq.resize(arg)
    assert not cq.closed and not ctx.closed
    assert cq.poll() == (0, [])
    cq.resize(20)
    cq.close()


def test_cqex_wr_id_setter_argument_closes_cq(ctx):
    cq = CQEX(ctx, CqInitAttrEx(cqe=8))
    with pytest.raises(PyverbsError):
        cq.wr_id = Closing(cq)
    assert cq.closed != FREE_THREADED


def test_advise_mr_sg_list_closes_pd(ctx):
    pd = PD(ctx)
    with pytest.raises(PyverbsError):
        pd.advise_mr(e._IBV_ADVISE_MR_ADVICE_PREFETCH, 0, Closing(pd))
    assert not pd.closed
    pd.close()


def test_pd_import_handle_closes_context(ctx):
    with pytest.raises(PyverbsError):
        PD(ctx, handle=Closing(ctx))
    assert not ctx.closed
    PD(ctx).close()


def test_mr_import_handle_closes_pd(ctx):
    pd = PD(ctx)
    with pytest.raises(PyverbsError):
        MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE, handle=Closing(pd))
    assert not pd.closed
    MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE).close()


def test_ah_from_wc_port_closes_pd(ctx):
    a, b = pair(ctx, e.IBV_QPT_UD, msg_size=64)
    try:
        from rdma_helpers import poll
        b.qp.post_recv(recv_wr(b))
        a.qp.post_send(send_wr(a, b'x' * 8))
        poll(a.cq)
        wc = poll(b.cq)[0]
        with pytest.raises(PyverbsError):
            AH(b.pd, wc=wc, grh=b.mr.buf, port_num=Closing(b.pd))
        assert not b.pd.closed
    finally:
        a.close()
        b.close()


# ---- 2. the collector runs inside a call ----

def test_collector_closes_qp_inside_query(ctx):
    pd = PD(ctx)
    cq = CQ(ctx, 10)
    qp = ud_qp(pd, cq)
    refused = []

    class Cycle:
        def __del__(self):
            try:
                qp.close()
            except PyverbsUserError as ex:
                refused.append(str(ex))

    old = gc.get_threshold()
    outcomes = set()
    try:
        for _ in range(30):
            if qp.closed:
                break
            gc.disable()
            c = Cycle()
            c.me = c
            del c
            gc.set_threshold(1, 1, 1)
            gc.enable()
            try:
                qp.query(e.IBV_QP_STATE)
                outcomes.add('ok')
            except PyverbsError:
                outcomes.add('error')
    finally:
        gc.set_threshold(*old)
        gc.enable()
    gc.collect()
    # Either the collector ran inside query() (close refused there) or
    # outside (the QP closed, query() then raised): never a crash.
    assert outcomes <= {'ok', 'error'}
    assert refused or qp.closed
    ctx.close()
    assert qp.closed


# ---- 3. a blocking destroy and an event reader ----

def overflow_cq(ctx):
    """A UD pair whose send CQ (depth 1) overflows: rxe reports
    IBV_EVENT_CQ_ERR.  Returns the pair (to close)."""
    a, b = pair(ctx, e.IBV_QPT_UD, msg_size=64, depth=32, cq_depth=1)
    for i in range(a.cq.cqe + 8):
        try:
            a.qp.post_send(send_wr(a, b'overflow', wr_id=i))
        except PyverbsError:
            break           # the QP went to error
    return a, b


def test_close_cq_while_reader_needs_the_gil(ctx, watchdog):
    """The listener thread reads the CQ_ERR event without the GIL and acks
    it after taking the GIL back.  This thread keeps the GIL (switch
    interval 100 s, a busy loop) until the event is surely read, then
    closes the CQ: ibv_destroy_cq() waits for the ack, so it must run
    without the GIL."""
    got = []
    stop = threading.Event()

    def listen():
        while not stop.is_set():
            try:
                got.append(ctx.get_async_event())
            except PyverbsError as ex:
                got.append(ex)
                return

    t = threading.Thread(target=listen, daemon=True)
    t.start()
    time.sleep(0.3)
    old = sys.getswitchinterval()
    sys.setswitchinterval(100)
    try:
        a, b = overflow_cq(ctx)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            pass            # keep the GIL while the event arrives
        a.cq.close()
    finally:
        sys.setswitchinterval(old)
    a.close()
    b.close()
    assert t.is_alive()
    stop.set()
    while t.is_alive():     # one more event lets the listener see stop
        a, b = overflow_cq(ctx)
        t.join(2)
        a.close()
        b.close()
    assert any(getattr(ev, 'event_type', None) == e.IBV_EVENT_CQ_ERR
               for ev in got), got


# ---- 4. a cached handle and a second __init__ ----

def test_second_init_refused_once_opened(ctx):
    pd = PD(ctx)
    idx = find_gid_index(ctx)
    attr = AHAttr(port_num=1, is_global=1,
                  gr=GlobalRoute(dgid=ctx.query_gid(1, idx),
                                 sgid_index=idx))
    ah = AH(pd, attr=attr)
    ah.close()
    with pytest.raises(PyverbsUserError, match='already initialised'):
        ah.__init__(pd, attr=attr)
    assert ah.closed
    cq = CQ(ctx, 4)
    cq.close()
    with pytest.raises(PyverbsUserError, match='already initialised'):
        cq.__init__(ctx, 4)
    pd.close()


def test_failed_init_may_be_retried(ctx):
    pd = PD(ctx)
    mr = MR.__new__(MR)
    with pytest.raises((PyverbsError, OverflowError)):
        mr.__init__(pd, -1, e.IBV_ACCESS_LOCAL_WRITE)
    mr.__init__(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    assert not mr.closed
    pd.close()
    assert mr.closed


# ---- 5. a finalizer that cannot close now ----

def test_dropped_cq_closed_after_blocking_call(ctx, watchdog):
    """A CQ dropped while another thread waits in get_cq_event() on its
    channel: the finalizer cannot close it then; it is closed when the
    wait ends, with nothing unraisable."""
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, with_channel=True)
    cq = CQ(ctx, 4, None, a.channel)
    a.cq.req_notify()
    unraisable = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = unraisable.append
    done = threading.Event()

    def wait():
        try:
            a.channel.get_cq_event(a.cq)
        finally:
            done.set()

    t = threading.Thread(target=wait)
    try:
        t.start()
        time.sleep(0.3)
        ref = weakref.ref(cq)
        del cq
        gc.collect()
        assert not done.is_set()
        # wake the waiter: a completion on a.cq
        b.qp.post_recv(recv_wr(b))
        a.qp.post_send(send_wr(a, b'x' * 8))
        t.join(20)
        assert done.is_set()
        a.cq.ack_events(1)
        gc.collect()
        assert ref() is None or ref().closed
    finally:
        sys.unraisablehook = old_hook
        a.close()
        b.close()
    assert not unraisable, [str(u.exc_value) for u in unraisable]


# ---- another thread's close waits for the call ----

def test_close_from_another_thread_waits_for_the_call(ctx, watchdog):
    cq = CQ(ctx, 10)
    closed_at = []

    class Slow:
        def __index__(self):
            t.start()
            time.sleep(0.2)     # the other thread's close() runs now
            assert not cq.closed
            return 20

    def closer():
        cq.close()
        closed_at.append(time.monotonic())

    t = threading.Thread(target=closer)
    cq.resize(Slow())
    returned = time.monotonic()
    t.join(20)
    assert cq.closed and closed_at and closed_at[0] >= returned


def test_close_parent_from_another_thread_waits(ctx, watchdog):
    pd = PD(ctx)
    mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    seen = []

    class Slow:
        def __index__(self):
            t.start()
            time.sleep(0.2)
            seen.append((mr.closed, pd.closed))
            return int(e.IBV_ACCESS_LOCAL_WRITE)

    t = threading.Thread(target=pd.close)
    try:
        mr.rereg(e.IBV_REREG_MR_CHANGE_ACCESS, None, 0, 0, Slow())
    except PyverbsError:
        pass                # rxe may not rereg; the order is the point
    t.join(20)
    assert seen == [(False, False)]
    assert mr.closed and pd.closed


# ---- the torture test's reductions (tests/torture_repros), each alone ----

REPROS = sorted((Path(__file__).parent / 'torture_repros').glob('r*.py'))


@pytest.mark.parametrize('script', REPROS, ids=lambda p: p.stem)
def test_torture_reproduction(script):
    """Each script crashed (SIGSEGV) before; now it ends normally or with
    a PyverbsError/TypeError/ValueError, whatever malloc leaves in freed
    memory."""
    for perturb in ('0', '165'):
        r = subprocess.run([sys.executable, '-X', 'faulthandler',
                            str(script)], capture_output=True, text=True,
                           timeout=120,
                           env=dict(os.environ, MALLOC_PERTURB_=perturb))
        assert r.returncode in (0, 1), (r.returncode, r.stderr[-2000:])
        if r.returncode:
            last = r.stderr.strip().splitlines()[-1]
            assert last.startswith(('pyverbs.pyverbs_error.', 'TypeError',
                                    'ValueError', 'OverflowError')), last
