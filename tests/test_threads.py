# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Threads: a thread blocked in the library never stops the others, and the
objects stay consistent under concurrent use and concurrent close.

Each stress test runs for a bounded time (STRESS_SECONDS) and then checks
that every work request is accounted for: one successful completion per
wr_id, none lost, none twice.
"""
import gc
import os
import subprocess
import sys
import threading
import time

import pytest

import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.wr import SGE, SendWR

from rdma_helpers import pair, poll

pytestmark = pytest.mark.device

STRESS_SECONDS = float(os.environ.get('PYVERBS_STRESS_SECONDS', '4'))


def write_wr(a, wr_id, size=64):
    """A signaled RDMA WRITE of size bytes from a's MR into its peer's."""
    wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(a.mr.buf, size, a.mr.lkey)],
                send_flags=e.IBV_SEND_SIGNALED)
    wr.set_wr_rdma(a.remote.mr.rkey, a.remote.mr.buf)
    return wr


def traffic(a, count):
    """count signaled 64-byte writes, at most 8 in flight; returns the
    seconds they took."""
    start = time.monotonic()
    done = posted = 0
    while done < count:
        while posted < count and posted - done < 8:
            a.qp.post_send(write_wr(a, posted))
            posted += 1
        done += len(poll(a.cq, 1))
    return time.monotonic() - start


def test_post_probe_finds_rxe_send_slow(ctx):
    """rxe rings its send doorbell with a write() system call: the probe
    of the first posts finds them slow (microseconds), so later posts may
    release the GIL; before 8 posts nothing is decided."""
    a, _b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=16)
    assert a.qp._post_probe[0] == (0, 0, 0)
    traffic(a, 4)
    timed, min_ns, slow = a.qp._post_probe[0]
    assert (timed, slow) == (4, 0) and min_ns > 0
    traffic(a, 8)
    timed, min_ns, slow = a.qp._post_probe[0]
    assert timed == 8 and min_ns >= 1000 and slow == 1, a.qp._post_probe


def test_slow_posts_let_other_threads_run(ctx):
    """With the switch interval so long that the interpreter never takes
    the GIL from a thread, another thread runs only when one gives it up.
    The main thread posts writes on rxe and polls (nothing else: no sleep,
    no blocking call) while a counting thread waits for the GIL: it must
    get to run during the posts (each post gives it a chance, which it
    wins when it wakes before the provider returns); it never would if
    post_send kept the GIL."""
    a, _b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=16)
    traffic(a, 8)       # the probe decides
    assert a.qp._post_probe[0][2] == 1
    count, stop = [0], threading.Event()

    def counter():
        # sleeps without the GIL, then waits for it: it gets it back only
        # when the main thread gives it up
        while not stop.is_set():
            count[0] += 1
            time.sleep(0.0005)

    old = sys.getswitchinterval()
    t = threading.Thread(target=counter)
    t.start()
    try:
        time.sleep(0.05)
        sys.setswitchinterval(100)
        before = count[0]
        posted = done = 0
        while count[0] - before < 3 and posted < 20000:
            while posted - done < 8:
                a.qp.post_send(write_wr(a, posted))
                posted += 1
            n, _ = a.cq.poll(1)
            done += n
        advanced = count[0] - before
        while done < posted:
            done += a.cq.poll(1)[0]
    finally:
        sys.setswitchinterval(old)
        stop.set()
        t.join(10)
    assert advanced >= 3, f'the other thread ran {advanced} times ' \
        f'during {posted} posts'


def test_released_post_reports_the_failing_wr(ctx):
    """A post made without the GIL (slow queue, another thread alive) works
    on a copy of the WRs, but a failure still names the WR it stopped at:
    a list and a chain of more writes than the send queue holds fail with
    ENOMEM at the first that did not fit, the WRs before it complete,
    bad_wr gets a copy of the failing WR, and the WRs can be posted again
    afterwards (nothing left marked or linked)."""
    a, _b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=16, cq_depth=512)
    traffic(a, 8)
    assert a.qp._post_probe[0][2] == 1
    room = a.qp.query(e.IBV_QP_CAP)[1].cap.max_send_wr
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)  # another Python thread
    t.start()
    try:
        for form in ('list', 'chain'):
            wrs = [write_wr(a, 1000 + i) for i in range(room + 8)]
            if form == 'chain':
                for x, y in zip(wrs, wrs[1:]):
                    x.next_wr = y
            bad = write_wr(a, 0)
            with pytest.raises(PyverbsRDMAError) as ex:
                a.qp.post_send(wrs if form == 'list' else wrs[0], bad)
            k = ex.value.bad_wr_index
            assert room <= k < room + 8, (k, room)
            assert bad.wr_id == 1000 + k
            got = sorted(wc.wr_id for wc in poll(a.cq, k))
            assert got == list(range(1000, 1000 + k)), got
            if form == 'chain':
                wrs[7].next_wr = None
            a.qp.post_send(wrs[:8] if form == 'list' else wrs[0])
            assert len(poll(a.cq, 8)) == 8
    finally:
        stop.set()
        t.join(10)


def test_blocked_get_cq_event_does_not_stop_traffic(ctx):
    """One thread waits in CompChannel.get_cq_event (nothing will complete
    on its CQ for a while); the main thread moves 200 writes on another
    pair meanwhile, then wakes the waiter with a completion."""
    waiting, busy = pair(ctx, e.IBV_QPT_RC, with_channel=True, msg_size=64)
    a, _b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=16)
    try:
        waiting.cq.req_notify()
        got = []

        def wait():
            waiting.channel.get_cq_event(waiting.cq)
            got.append('event')
        t = threading.Thread(target=wait)
        t.start()
        time.sleep(0.3)
        assert t.is_alive()
        traffic(a, 200)
        assert t.is_alive() and not got, 'the waiter returned by itself'
        waiting.qp.post_send(write_wr(waiting, 1))
        t.join(20)
        assert not t.is_alive()
        assert got == ['event']
        waiting.cq.ack_events(1)
        assert poll(waiting.cq, 1)[0].wr_id == 1
    finally:
        for end in (a, _b, waiting, busy):
            end.close()


def test_blocked_get_async_event_does_not_stop_traffic(dev_names):
    """One thread waits in rxe1's Context.get_async_event; the main thread
    moves 200 writes on rxe0 meanwhile; then rxe1's link goes down, which
    wakes the waiter with IBV_EVENT_PORT_ERR."""
    if not {'rxe0', 'rxe1'} <= set(dev_names):
        pytest.skip('needs rxe0 and rxe1 (the Soft-RoCE VM)')
    if os.geteuid() != 0:
        pytest.skip('needs root to toggle veth1')
    with Context(name='rxe1') as waiter_ctx, Context(name='rxe0') as ctx:
        a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=16)
        got = []
        t = threading.Thread(
            target=lambda: got.append(waiter_ctx.get_async_event()))
        t.start()
        try:
            time.sleep(0.3)
            assert t.is_alive()
            traffic(a, 200)
            assert t.is_alive() and not got
        finally:
            subprocess.run(['ip', 'link', 'set', 'veth1', 'down'],
                           check=True)
            try:
                t.join(30)
            finally:
                subprocess.run(['ip', 'link', 'set', 'veth1', 'up'],
                               check=True)
            a.close()
            b.close()
        assert not t.is_alive()
        assert got[0].event_type == e.IBV_EVENT_PORT_ERR
        # drain until the port is back, so later tests see it active
        end = time.monotonic() + 30
        while waiter_ctx.query_port(1).state != e.IBV_PORT_ACTIVE:
            assert time.monotonic() < end, 'rxe1 did not come back'
            time.sleep(0.1)


def test_concurrent_posts_on_one_qp(ctx):
    """Four threads post writes on one QP while a fifth polls its CQ: every
    wr_id completes exactly once, successfully."""
    nthreads, per_round = 4, 8
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=nthreads * per_round,
                cq_depth=4 * nthreads * per_round)
    posted = [0] * nthreads
    credits = threading.Semaphore(nthreads * per_round)
    stop = threading.Event()
    posters_done = threading.Event()
    errors = []
    seen = []

    def poster(k):
        try:
            while not stop.is_set():
                if not credits.acquire(timeout=0.1):
                    continue
                # wr_id: thread in the top bits, sequence in the rest
                a.qp.post_send(write_wr(a, (k << 32) | posted[k]))
                posted[k] += 1
        except Exception as ex:         # pragma: no cover - reported below
            errors.append(ex)

    def poller():
        try:
            end = None
            while not posters_done.is_set() or len(seen) < sum(posted):
                n, wcs = a.cq.poll(16)
                for wc in wcs[:n]:
                    assert wc.status == e.IBV_WC_SUCCESS, wc.status
                    seen.append(wc.wr_id)
                    credits.release()
                if not n and posters_done.is_set():
                    end = end or time.monotonic() + 30
                    assert time.monotonic() < end, 'completions stopped'
                    time.sleep(0.001)
        except Exception as ex:         # pragma: no cover - reported below
            errors.append(ex)

    threads = [threading.Thread(target=poster, args=(k,))
               for k in range(nthreads)]
    pt = threading.Thread(target=poller)
    for t in threads + [pt]:
        t.start()
    time.sleep(STRESS_SECONDS)
    stop.set()
    for t in threads:
        t.join(30)
    posters_done.set()
    pt.join(60)
    try:
        assert not errors, errors
        assert not pt.is_alive(), f'{len(seen)} of {sum(posted)} completed'
        expected = {(k << 32) | i for k in range(nthreads)
                    for i in range(posted[k])}
        assert len(seen) == len(expected) and set(seen) == expected
        assert all(posted), posted      # every thread got to post
    finally:
        a.close()
        b.close()


def test_concurrent_polls_of_one_cq(ctx):
    """Writes are posted from the main thread while four threads poll the
    one CQ: the completions they collect together are each wr_id once."""
    total = 400
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=64, cq_depth=128)
    got = [[] for _ in range(4)]
    stop = threading.Event()

    def poller(k):
        while not stop.is_set():
            n, wcs = a.cq.poll(4)
            got[k].extend((wc.wr_id, wc.status) for wc in wcs[:n])

    threads = [threading.Thread(target=poller, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    try:
        end = time.monotonic() + 120
        for i in range(total):
            while True:
                done = sum(map(len, got))
                if i - done < 32:
                    break
                assert time.monotonic() < end, 'completions stopped'
                time.sleep(0.0005)
            a.qp.post_send(write_wr(a, i))
        while sum(map(len, got)) < total and time.monotonic() < end:
            time.sleep(0.01)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    try:
        allwc = [x for g in got for x in g]
        assert sorted(w for w, _ in allwc) == list(range(total))
        assert {s for _, s in allwc} == {e.IBV_WC_SUCCESS}
        assert sum(1 for g in got if g) >= 2    # the work was shared
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize('victim', ['qp', 'cq', 'pd', 'ctx'])
def test_close_while_another_thread_uses_it(dev_name, victim):
    """A thread posts and polls in a loop while the main thread closes the
    QP, the CQ, the PD or the whole Context under it: the worker ends with
    a clean PyverbsError (never a crash), and everything is closed."""
    for _ in range(3):
        ctx = Context(name=dev_name)
        a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=16)
        outcome = []
        started = threading.Event()
        closed = threading.Event()

        def worker():
            i = 0
            try:
                while True:
                    a.qp.post_send(write_wr(a, i))
                    i += 1
                    started.set()
                    while True:
                        n, wcs = a.cq.poll(1)
                        if n:
                            break
                        if closed.is_set():
                            # a destroyed QP's WR in flight may never
                            # complete (7.2's rxe drops it): post again,
                            # which must refuse
                            a.qp.post_send(write_wr(a, i))
            except PyverbsError as ex:
                outcome.append(ex)
            except Exception as ex:     # pragma: no cover - reported below
                outcome.append(('unexpected', ex))

        t = threading.Thread(target=worker)
        t.start()
        assert started.wait(30)
        time.sleep(0.05)
        # the worker's posts run without the GIL (rxe's are slow): the
        # close waits for the one in flight, never refuses or starves
        {'qp': a.qp, 'cq': a.cq, 'pd': a.pd, 'ctx': ctx}[victim].close()
        closed.set()
        t.join(30)
        assert not t.is_alive()
        assert len(outcome) == 1 and isinstance(outcome[0], PyverbsError), \
            outcome
        assert 'closed' in str(outcome[0]).lower() or isinstance(
            outcome[0], PyverbsRDMAError), outcome[0]
        ctx.close()
        assert a.qp.closed and a.cq.closed and b.qp.closed


def test_close_racing_gc(dev_name):
    """Threads drop reference cycles holding verbs objects (so the
    collector finalizes them, in whatever thread it runs) while another
    thread closes their parents: no crash, no object left open."""
    deadline = time.monotonic() + STRESS_SECONDS
    errors = []
    created = []

    def churn(ctx):
        try:
            while time.monotonic() < deadline:
                try:
                    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=4)
                except PyverbsError:
                    return      # the parent was closed under us
                created.append((a.qp, a.cq, b.mr))
                cycle = [a, b]
                cycle.append(cycle)     # only the collector frees this
                del a, b, cycle
        except Exception as ex:         # pragma: no cover - reported below
            errors.append(ex)

    def collector():
        while time.monotonic() < deadline:
            gc.collect()
            time.sleep(0.01)

    rounds = 0
    while time.monotonic() < deadline:
        ctx = Context(name=dev_name)
        workers = [threading.Thread(target=churn, args=(ctx,))
                   for _ in range(2)] + [threading.Thread(target=collector)]
        for t in workers:
            t.start()
        time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
        ctx.close()
        for t in workers:
            t.join(60)
        assert not any(t.is_alive() for t in workers)
        rounds += 1
    gc.collect()
    assert not errors, errors
    assert rounds and created
    assert all(o.closed for objs in created for o in objs)


def test_qpex_batch_is_its_threads(ctx):
    """A wr_start() .. wr_complete() batch belongs to the thread that
    opened it: another thread's wr_start(), builders, wr_complete() and
    wr_abort() get a PyverbsUserError and leave the batch as it was, so
    that no WQE is written by two threads; once the batch is complete, the
    other thread opens its own, and both writes arrive."""
    from pyverbs.pyverbs_error import PyverbsUserError
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, depth=16,
                send_ops_flags=e.IBV_QP_EX_WITH_RDMA_WRITE)
    try:
        qp = a.qp
        qp.wr_start()
        qp.wr_id = 1
        qp.wr_flags = e.IBV_SEND_SIGNALED
        qp.wr_rdma_write(b.mr.rkey, b.mr.buf)
        refused = []

        def other():
            for call in (qp.wr_start, lambda: qp.wr_rdma_write(
                    b.mr.rkey, b.mr.buf + 8), lambda: qp.wr_set_sge(
                    SGE(a.mr.buf, 8, a.mr.lkey)), qp.wr_complete, qp.wr_abort):
                try:
                    call()
                    refused.append(None)
                except PyverbsUserError as ex:
                    refused.append(str(ex))

        t = threading.Thread(target=other)
        t.start()
        t.join(30)
        assert len(refused) == 5 and all(
            r and "Another thread's wr_start() batch" in r
            for r in refused), refused
        a.mr.write(b'A' * 8, 8, 0)
        qp.wr_set_sge(SGE(a.mr.buf, 8, a.mr.lkey))
        qp.wr_complete()
        assert [w.wr_id for w in poll(a.cq, 1)] == [1]

        def own_batch():
            qp.wr_start()
            qp.wr_id = 2
            qp.wr_flags = e.IBV_SEND_SIGNALED
            qp.wr_rdma_write(b.mr.rkey, b.mr.buf + 8)
            qp.wr_set_sge(SGE(a.mr.buf + 8, 8, a.mr.lkey))
            qp.wr_complete()

        a.mr.write(b'B' * 8, 8, 8)
        t = threading.Thread(target=own_batch)
        t.start()
        t.join(30)
        assert [w.wr_id for w in poll(a.cq, 1)] == [2]
        assert b.mr.read(16, 0) == b'A' * 8 + b'B' * 8
        # a builder of this thread with no batch says so, not "another"
        with pytest.raises(PyverbsUserError, match='Call wr_start'):
            qp.wr_rdma_write(b.mr.rkey, b.mr.buf)
    finally:
        a.close()
        b.close()
