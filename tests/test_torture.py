# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Torture: many threads doing random verbs operations on shared objects,
closing them (parents included) under each other, from inside hostile
arguments and from finalizers run by the cyclic collector.

Per seed (random.Random, one deterministic choice sequence per thread):

- one Context on the device; pools of live objects on it: PDs, CQs (some on
  a CompChannel), MRs, type-2 MWs, AHs, SRQs, connected RC and UD loopback
  pairs (rdma_helpers.pair), RC QPs on an SRQ connected to themselves, and
  (pyverbs built with rdma_cm) CM ids on a non-blocking event channel that
  connect to a listener over 192.0.2.1;
- 4-6 workers pick random operations: create, post_send/post_recv of real
  WRs, poll, req_notify, ack_events, modify (RESET/INIT/RTR/RTS/ERR), query,
  rereg, bind MW, resize, close (parents too: PD, CompChannel, rarely the
  Context itself), CM steps.  Arguments are often hostile: ints whose
  __index__, and sequences whose __len__/__iter__/__getitem__, close an
  object (often the one being called, or its parent), sleep (releasing the
  GIL) or run the collector before returning a valid value; and cyclic
  garbage whose __del__ closes an object, made just before a call while the
  collector thresholds are (1, 1, 1) so that collections run inside calls;
- a collector thread (gc.collect(), thresholds toggled between (1, 1, 1)
  and the defaults) which also posts a signalled write every ~50 ms on a
  heartbeat pair whose CQ is on a CompChannel;
- a CompChannel reader: req_notify + get_cq_event + ack_events on the
  heartbeat CQ, in a loop;
- an async-event reader: Context.get_async_event() in a loop (events come
  from CQ overflows, QPs going to error and armed SRQ limits).  At the end
  it is woken the way a program would: by causing an event (an SRQ limit,
  see wake_async_reader).  Closing the Context while it blocks is refused
  (PyverbsUserError: a blocking call is using it), so the Context can only
  be closed after the reader has left the call;
- a watchdog: a thread with no completed operation for STALL seconds (the
  async reader only while it is not inside get_async_event) gets every
  stack dumped (faulthandler) and fails the seed, as does the watchdog
  itself waking STALL seconds late (no Python thread could run: a call
  held the GIL that long); faulthandler's own timer
  kills the process if the whole seed overruns (a deadlock holding the GIL
  stops the watchdog thread too).

Every operation must end in success or in PyverbsError, TypeError,
ValueError or OverflowError; anything else (SystemError, an AttributeError,
an exception from a finalizer of another type, a crash, a hang) fails.
Counts per operation and outcome are printed.  At the end everything is
closed, and the process's open file descriptors and the kernel's RDMA
resources (`rdma resource show`, when the tool is there) must be back to
their values at the start.

Run as a script for many seeds (each in a child process, so a crash names
its seed):

    python3 tests/test_torture.py --seeds 20 --seconds 4 [--first 1]

exits 0 only when every seed passed.  PYVERBS_TORTURE_SECONDS sets the
pytest run's seconds per seed (default 4).
"""
import argparse
import collections
import faulthandler
import gc
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import traceback

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import pyverbs.enums as e                                    # noqa: E402
from pyverbs.addr import AH, AHAttr, GlobalRoute             # noqa: E402
from pyverbs.cq import CQ, CompChannel                       # noqa: E402
from pyverbs.device import Context, get_device_list          # noqa: E402
from pyverbs.mr import MR, MW, MWBind, MWBindInfo            # noqa: E402
from pyverbs.pd import PD                                    # noqa: E402
from pyverbs.pyverbs_error import PyverbsError               # noqa: E402
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr         # noqa: E402
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr            # noqa: E402
from pyverbs.wr import SGE, RecvWR, SendWR                   # noqa: E402

import rdma_helpers as rh                                    # noqa: E402

pytestmark = pytest.mark.device

ALLOWED = (PyverbsError, TypeError, ValueError, OverflowError)
SECONDS = float(os.environ.get('PYVERBS_TORTURE_SECONDS', '4'))
# Operations whose arguments stay tame (no hostile ints, sequences or
# garbage): to look past a known crash, e.g. PYVERBS_TORTURE_TAME=poll
TAME = set(filter(None, os.environ.get('PYVERBS_TORTURE_TAME', '').split(',')))
STALL = float(os.environ.get('PYVERBS_TORTURE_STALL', '10'))  # seconds without progress that fail a thread
IP0 = '192.0.2.1'       # rxe0's address in the Soft-RoCE VM
MW_BIND = getattr(e, 'IBV_ACCESS_MW_BIND', 16)
ACCESS = rh.ALL_ACCESS | MW_BIND
QPS = {'RESET': e.IBV_QPS_RESET, 'INIT': e.IBV_QPS_INIT,
       'RTR': e.IBV_QPS_RTR, 'RTS': e.IBV_QPS_RTS, 'ERR': e.IBV_QPS_ERR}
KINDS = ('pd', 'channel', 'cq', 'mr', 'mw', 'ah', 'srq', 'qp', 'cmid')

if rh.HAVE_RDMACM:
    import pyverbs.cm_enums as ce                            # noqa: E402
    from pyverbs.cmid import (AddrInfo, CMEvent,             # noqa: E402
                              CMEventChannel, CMID)


def kind_of_exc(ex):
    return type(ex).__name__


def kernel_stacks():
    """Where each thread is in the kernel (/proc/self/task: the syscall,
    wchan and, as root, the kernel stack): read at once, unlike gdb."""
    out = []
    for tid in sorted(os.listdir('/proc/self/task'), key=int):
        base = f'/proc/self/task/{tid}/'
        info = []
        for name in ('syscall', 'wchan', 'stack'):
            try:
                with open(base + name) as f:
                    info.append(f'{name}: ' + f.read().strip())
            except OSError as ex:
                info.append(f'{name}: ({ex.strerror})')
        out.append(f'task {tid} ' + ' | '.join(
            x.replace('\n', ' <- ') for x in info))
    sys.stderr.write('\n*** kernel side of each thread:\n' +
                     '\n'.join(out) + '\n')
    sys.stderr.flush()


def native_stacks():
    """Every thread's C stack (gdb, when installed): a Python stack does
    not show where a call is blocked inside the library."""
    try:
        r = subprocess.run(
            ['gdb', '-p', str(os.getpid()), '-batch', '-nx', '-q',
             '-ex', 'set pagination off', '-ex', 'thread apply all bt 25'],
            capture_output=True, text=True, timeout=90)
        out = r.stdout
    except (OSError, subprocess.SubprocessError) as ex:
        out = f'(no native stacks: {ex!r})'
    sys.stderr.write('\n*** native stacks:\n' + '\n'.join(
        ln for ln in out.splitlines() if ln.startswith(('#', 'Thread')))
        + '\n')
    sys.stderr.flush()


def open_fds():
    return len(os.listdir('/proc/self/fd'))


def resource_counts():
    """{device: {resource: count}} from `rdma resource show`, or None."""
    out = rh.device_resources()
    if out is None:
        return None
    counts = {}
    for line in out.splitlines():
        m = re.match(r'\s*\d+:\s*(\S+):\s*(.*)', line)
        if m:
            toks = m.group(2).split()
            counts[m.group(1)] = {k: int(v) for k, v in
                                  zip(toks[0::2], toks[1::2])
                                  if v.isdigit()}
    return counts


# ------------------------------------------------------ hostile arguments

class EvilInt:
    """An int whose conversion runs chaos first (closing an object,
    sleeping without the GIL, or collecting) and then returns value."""

    def __init__(self, t, value, rng, victims=()):
        self.t, self.value, self.victims = t, int(value), victims
        self.rng = random.Random(rng.random())

    def __index__(self):
        self.t.chaos(self.rng, 'index', self.victims)
        return self.value

    __int__ = __index__


class EvilSeq:
    """A sequence of valid items whose __len__, __iter__ (each step) and
    __getitem__ run chaos."""

    def __init__(self, t, items, rng, victims=()):
        self.t, self.items, self.victims = t, list(items), victims
        self.rng = random.Random(rng.random())

    def __len__(self):
        self.t.chaos(self.rng, 'len', self.victims)
        return len(self.items)

    def __iter__(self):
        for x in self.items:
            self.t.chaos(self.rng, 'iter', self.victims)
            yield x

    def __getitem__(self, i):
        self.t.chaos(self.rng, 'getitem', self.victims)
        return self.items[i]


class Garbage:
    """A reference cycle whose finalizer runs chaos: only the collector
    frees it, in whatever thread and inside whatever call it runs."""

    def __init__(self, t, rng, victims=(), payload=None):
        self.t, self.victims, self.payload = t, victims, payload
        self.rng = random.Random(rng.random())
        self.me = self

    def __del__(self):
        self.t.chaos(self.rng, 'del', self.victims)


# ------------------------------------------------------------- torture

class Torture:
    def __init__(self, seed, seconds, dev_name, log=print):
        self.seed, self.seconds, self.dev_name = seed, seconds, dev_name
        self.log = log
        self.rng = random.Random(seed)
        self.lock = threading.RLock()
        self.pools = {k: [] for k in KINDS + ('rc', 'ud', 'srqqp', 'cm')}
        self.created = []           # every handle made: all closed at end
        self.counts = collections.Counter()
        self.failures = []
        self.notes = []
        self.progress = {}
        self.stop = threading.Event()
        self.async_blocked = False
        self.ctx = None
        self.hb = None              # heartbeat: channel, cq, pd, mr, qp
        self.hb_posted = self.hb_done = 0
        self.gid_index = None
        self.mw_type2 = None        # None: unknown, str: skip reason
        self.cm_port = 20000 + (seed * 37) % 20000
        self.tl = threading.local()     # tl.op: the thread's operation
        self.current = {}               # thread name: its operation
        self.slowest = {}               # operation: (seconds, thread)
        self.frozen = 0.0               # longest gap between watchdog ticks

    # --------------------------------------------------------- bookkeeping
    def count(self, what, outcome):
        with self.lock:
            self.counts[(what, outcome)] += 1

    def fail(self, what, ex=None, tb=None):
        msg = f'{what}: {ex!r}' if ex is not None else what
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append(msg + ('\n' + tb if tb else ''))
        self.stop.set()

    def call(self, what, fn, *args):
        """Run one operation: success or an allowed exception."""
        t0 = time.monotonic()
        try:
            fn(*args)
        except ALLOWED as ex:
            self.count(what, kind_of_exc(ex))
            return False
        except BaseException as ex:     # noqa: B902 -- the bug we hunt
            self.count(what, 'BAD:' + kind_of_exc(ex))
            self.fail(what, ex, traceback.format_exc())
            return False
        finally:
            dt = time.monotonic() - t0
            if dt > self.slowest.get(what, (0,))[0]:
                self.slowest[what] = (dt, threading.current_thread().name)
        self.count(what, 'ok')
        return True

    def add(self, kind, obj):
        with self.lock:
            self.pools[kind].append(obj)
            if kind not in ('rc', 'ud', 'srqqp', 'cm'):
                self.created.append(obj)

    def pick(self, rng, kind):
        with self.lock:
            pool = self.pools[kind]
            if not pool:
                return None
            # keep the pools small: drop closed objects, then the oldest
            if len(pool) > 8:
                live = [o for o in pool if not _closed(o)]
                pool[:] = live[-8:] if live else pool[-1:]
            # mostly a live one, now and then any (maybe closed)
            if rng.random() < 0.8:
                live = [o for o in pool if not _closed(o)]
                if live:
                    return live[rng.randrange(len(live))]
            return pool[rng.randrange(len(pool))]

    def any_object(self, rng):
        kinds = [k for k in KINDS if self.pools[k]]
        if not kinds:
            return None
        return self.pick(rng, rng.choice(kinds))

    # --------------------------------------------------------------- chaos
    def chaos(self, rng, where, victims=()):
        """What a hostile callback does before returning a valid value."""
        if self.lock._is_owned():
            # a collection inside the test's own bookkeeping: closing
            # there would hold up every thread waiting for the pool lock
            self.count('chaos-' + where, 'under-pool-lock')
            return
        r = rng.random()
        try:
            if r < 0.35:
                victim = (rng.choice(victims) if victims and rng.random() < 0.7
                          else self.any_object(rng))
                if victim is not None:
                    victim.close()
                    self.count('chaos-close-' + where, 'ok')
            elif r < 0.55 and self.ctx is not None and rng.random() < 0.05:
                self.ctx.close()
                self.count('chaos-close-ctx-' + where, 'ok')
            elif r < 0.85:
                time.sleep(rng.choice((0, 0.0001, 0.001)))
            else:
                gc.collect()
        except ALLOWED as ex:
            self.count('chaos-' + where, kind_of_exc(ex))
        except BaseException as ex:     # noqa: B902 -- the bug we hunt
            self.count('chaos-' + where, 'BAD:' + kind_of_exc(ex))
            self.fail('chaos in ' + where, ex, traceback.format_exc())

    def hostile(self, rng, p):
        return rng.random() < p and getattr(self.tl, 'op', None) not in TAME

    def maybe_int(self, rng, value, victims=()):
        return EvilInt(self, value, rng, victims) \
            if self.hostile(rng, 0.4) else value

    def maybe_seq(self, rng, items, victims=()):
        # posts take a list or tuple only: an EvilSeq is a TypeError there
        return EvilSeq(self, items, rng, victims) \
            if self.hostile(rng, 0.15) else list(items)

    def garbage(self, rng, victims=(), n=None):
        for _ in range(rng.randint(1, 3) if n is None else n):
            Garbage(self, rng, victims)

    def maybe_garbage(self, rng, victims=()):
        if self.hostile(rng, 0.3):
            self.garbage(rng, victims)

    # ------------------------------------------------------------- create
    def op_create_pd(self, rng):
        self.add('pd', PD(self.ctx))

    def op_create_channel(self, rng):
        self.add('channel', CompChannel(self.ctx))

    def op_create_cq(self, rng):
        ch = self.pick(rng, 'channel') if rng.random() < 0.5 else None
        self.maybe_garbage(rng, [ch] if ch else ())
        self.add('cq', CQ(self.ctx, self.maybe_int(rng, rng.choice(
            (1, 2, 4, 16, 64)), [ch] if ch else ()), None, ch, 0))

    def op_create_mr(self, rng):
        pd = self.pick(rng, 'pd')
        if pd is None:
            return self.op_create_pd(rng)
        self.maybe_garbage(rng, [pd])
        self.add('mr', MR(pd, self.maybe_int(rng, rng.choice((64, 4096)),
                                             [pd]),
                          self.maybe_int(rng, ACCESS, [pd])))

    def op_create_mw(self, rng):
        if isinstance(self.mw_type2, str):
            self.count('create_mw', 'skipped')
            return
        pd = self.pick(rng, 'pd')
        if pd is not None:
            self.add('mw', MW(pd, self.maybe_int(rng, 2, [pd])))

    def op_create_ah(self, rng):
        pd = self.pick(rng, 'pd')
        if pd is None:
            return
        gr = GlobalRoute(dgid=self.ctx.query_gid(1, self.gid_index),
                         sgid_index=self.maybe_int(rng, self.gid_index, [pd]),
                         hop_limit=64)
        self.maybe_garbage(rng, [pd])
        self.add('ah', AH(pd, attr=AHAttr(port_num=1, is_global=1, gr=gr)))

    def op_create_srq(self, rng):
        pd = self.pick(rng, 'pd')
        if pd is None:
            return
        self.maybe_garbage(rng, [pd])
        srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=self.maybe_int(rng, 16, [pd]),
                                          max_sge=1)))
        with self.lock:
            self._srq_pd[id(srq)] = pd
        self.add('srq', srq)

    def add_end(self, end):
        for kind, obj in (('pd', end.pd), ('channel', end.channel),
                          ('cq', end.cq), ('mr', end.mr), ('qp', end.qp),
                          ('ah', end.ah)):
            if obj is not None:
                self.add(kind, obj)

    def op_create_pair(self, rng, qpt):
        kw = dict(msg_size=64, depth=8, with_channel=rng.random() < 0.3,
                  cq_depth=rng.choice((2, 4, 32)))
        if qpt == e.IBV_QPT_RC:
            kw['access'] = ACCESS
        a, b = rh.pair(self.ctx, qpt, **kw)
        for end in (a, b):
            self.add_end(end)
        self.add('rc' if qpt == e.IBV_QPT_RC else 'ud', (a, b))

    def op_create_rc(self, rng):
        self.op_create_pair(rng, e.IBV_QPT_RC)

    def op_create_ud(self, rng):
        self.op_create_pair(rng, e.IBV_QPT_UD)

    def op_create_srqqp(self, rng):
        """An RC QP on an SRQ, connected to itself (SENDs land in the
        SRQ: armed limits raise SRQ_LIMIT_REACHED async events)."""
        srq = self.pick(rng, 'srq')
        if srq is None:
            return self.op_create_srq(rng)
        with self.lock:
            pd = self._srq_pd.get(id(srq))
        if pd is None:
            return
        cq = CQ(self.ctx, rng.choice((2, 32)), None, None, 0)
        self.add('cq', cq)
        mr = MR(pd, 64, ACCESS)
        self.add('mr', mr)
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq,
                               cap=QPCap(max_send_wr=8, max_recv_wr=8)))
        self.add('qp', qp)
        connect_self(self.ctx, qp, self.gid_index)
        self.add('srqqp', (qp, srq, mr, cq))

    # ------------------------------------------------------------ data path
    def op_post_rc(self, rng):
        p = self.pick(rng, 'rc')
        if p is None:
            return
        a, b = p if rng.random() < 0.5 else p[::-1]
        n = rng.randint(1, 4)
        victims = [a.qp, a.cq, a.mr, a.pd, b.mr]
        self.maybe_garbage(rng, victims)
        wrs = []
        for i in range(n):
            wr = SendWR(wr_id=i, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                        sg=[SGE(a.mr.buf, 64, a.mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_rdma(b.mr.rkey, self.maybe_int(rng, b.mr.buf, victims))
            wrs.append(wr)
        a.qp.post_send(self.maybe_seq(rng, wrs, victims)
                       if n > 1 or rng.random() < 0.5 else wrs[0])

    def op_post_ud(self, rng):
        p = self.pick(rng, 'ud')
        if p is None:
            return
        a, b = p if rng.random() < 0.5 else p[::-1]
        victims = [a.qp, b.qp, a.ah, a.mr, b.mr, b.cq]
        self.maybe_garbage(rng, victims)
        b.qp.post_recv(self.maybe_seq(rng, [rh.recv_wr(b)], victims))
        a.qp.post_send(self.maybe_seq(rng, [rh.send_wr(a, b'ud')], victims))

    def op_post_srq(self, rng):
        p = self.pick(rng, 'srqqp')
        if p is None:
            return
        qp, srq, mr, cq = p
        victims = [qp, srq, mr, cq]
        self.maybe_garbage(rng, victims)
        wr = RecvWR(wr_id=1, num_sge=1, sg=[SGE(mr.buf, 64, mr.lkey)])
        srq.post_recv(self.maybe_seq(rng, [wr] * rng.randint(1, 3), victims))
        if rng.random() < 0.5:
            srq.modify(SrqAttr(srq_limit=self.maybe_int(rng, 1, victims)),
                       self.maybe_int(rng, e.IBV_SRQ_LIMIT, victims))
        qp.post_send(SendWR(wr_id=2, opcode=e.IBV_WR_SEND, num_sge=1,
                            sg=[SGE(mr.buf, 16, mr.lkey)],
                            send_flags=e.IBV_SEND_SIGNALED))

    def op_poll(self, rng):
        cq = self.pick(rng, 'cq')
        if cq is None:
            return
        self.maybe_garbage(rng, [cq])
        cq.poll(self.maybe_int(rng, rng.randint(1, 8), [cq]))

    def op_req_notify(self, rng):
        cq = self.pick(rng, 'cq')
        if cq is not None:
            cq.req_notify(self.maybe_int(rng, rng.randint(0, 1), [cq]))

    def op_ack_events(self, rng):
        cq = self.pick(rng, 'cq')
        if cq is not None:
            cq.ack_events(self.maybe_int(rng, rng.randint(0, 1), [cq]))

    def op_resize_cq(self, rng):
        cq = self.pick(rng, 'cq')
        if cq is not None:
            cq.resize(self.maybe_int(rng, rng.choice((4, 32, 64)), [cq]))

    # --------------------------------------------------- control and query
    def op_modify_qp(self, rng):
        qp = self.pick(rng, 'qp')
        if qp is None:
            return
        name = rng.choice(list(QPS))
        attr = QPAttr(qp_state=QPS[name], port_num=1)
        mask = e.IBV_QP_STATE
        if name == 'INIT':
            attr.pkey_index = 0
            mask |= e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT
            if rng.random() < 0.5:
                attr.qp_access_flags = rh.ALL_ACCESS
                mask |= e.IBV_QP_ACCESS_FLAGS
            else:
                attr.qkey = rh.UD_QKEY
                mask |= e.IBV_QP_QKEY
        victims = [qp]
        self.maybe_garbage(rng, victims)
        qp.modify(attr, self.maybe_int(rng, mask, victims))

    def op_reconnect(self, rng):
        """A pair back through RESET, INIT, RTR, RTS."""
        p = self.pick(rng, rng.choice(('rc', 'ud')))
        if p is None:
            return
        for end in p:
            end.qp.modify(QPAttr(qp_state=e.IBV_QPS_RESET), e.IBV_QP_STATE)
            end.ah = None
        rh.connect(*p)
        for end in p:
            if end.ah is not None:
                self.add('ah', end.ah)

    def op_query(self, rng):
        what = rng.randrange(7)
        ctx = self.ctx
        if what == 0:
            qp = self.pick(rng, 'qp')
            if qp is not None:
                self.maybe_garbage(rng, [qp])
                attr, init = qp.query(self.maybe_int(
                    rng, rng.choice((e.IBV_QP_STATE, e.IBV_QP_CAP,
                                     0x1fffff)), [qp]))
                str(attr), str(init)
        elif what == 1:
            str(ctx.query_device())
        elif what == 2:
            str(ctx.query_port(self.maybe_int(rng, 1, [ctx])))
        elif what == 3:
            str(ctx.query_gid(1, self.maybe_int(rng, self.gid_index, [])))
        elif what == 4:
            mr = self.pick(rng, 'mr')
            if mr is not None:
                (mr.lkey, mr.rkey, mr.length, mr.buf, mr.pd, str(mr))
                off = rng.randint(0, 8)
                mr.write(b'x' * 8, self.maybe_int(rng, 8, [mr]),
                         self.maybe_int(rng, off, [mr, mr.pd]))
                mr.read(self.maybe_int(rng, 8, [mr]),
                        self.maybe_int(rng, off, [mr]))
        elif what == 5:
            cq = self.pick(rng, 'cq')
            if cq is not None:
                (cq.cqe, cq.num_events, cq.comp_channel, str(cq))
            pd = self.pick(rng, 'pd')
            if pd is not None:
                (pd.handle, pd.ctx, str(pd))
        else:
            srq = self.pick(rng, 'srq')
            if srq is not None:
                str(srq.query())
                srq.get_srq_num()
            mw = self.pick(rng, 'mw')
            if mw is not None:
                (mw.rkey, mw.type, str(mw))
            ah = self.pick(rng, 'ah')
            if ah is not None:
                (ah.pd, str(ah))

    def op_rereg_mr(self, rng):
        mr = self.pick(rng, 'mr')
        if mr is None:
            return
        pd = self.pick(rng, 'pd')
        flags = rng.choice((4, 2, 6))    # CHANGE_ACCESS, CHANGE_PD, both
        victims = [mr, pd] if pd else [mr]
        self.maybe_garbage(rng, victims)
        mr.rereg(self.maybe_int(rng, flags, victims), pd if flags & 2 else
                 None, 0, 0, self.maybe_int(rng, ACCESS, victims))

    def op_bind_mw(self, rng):
        if isinstance(self.mw_type2, str):
            self.count('bind_mw', 'skipped')
            return
        p = self.pick(rng, 'rc')
        if p is None:
            return
        a, b = p
        mw = MW(b.pd, 2)
        self.add('mw', mw)
        victims = [mw, b.mr, b.qp, b.pd]
        self.maybe_garbage(rng, victims)
        info = MWBindInfo(b.mr, self.maybe_int(rng, b.mr.buf, victims),
                          self.maybe_int(rng, 32, victims),
                          e.IBV_ACCESS_REMOTE_WRITE)
        wr = SendWR(opcode=e.IBV_WR_BIND_MW,
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_bind_wr(mw, info)
        b.qp.post_send(wr)
        if rng.random() < 0.5:
            MWBind(info, e.IBV_SEND_SIGNALED)   # type 1 bind object only

    # ---------------------------------------------------------------- close
    def op_close(self, rng):
        obj = self.any_object(rng)
        if obj is not None:
            self.maybe_garbage(rng, [obj])
            obj.close()

    def op_close_parent(self, rng):
        obj = self.pick(rng, rng.choice(('pd', 'channel')))
        if obj is not None:
            obj.close()

    def op_close_ctx(self, rng):
        # refused while the async reader blocks on it (documented)
        self.ctx.close()

    def op_garbage(self, rng):
        """Cycles holding a fresh PD, left for the collector."""
        victims = [self.any_object(rng)]
        for _ in range(rng.randint(1, 4)):
            Garbage(self, rng, victims, payload=PD(self.ctx))

    # ------------------------------------------------------------------ CM
    def op_cm_create(self, rng):
        ch = CMEventChannel()
        self.add('cmid', ch)
        ch.nonblocking = True
        lid = CMID(creator=ch, port_space=ce.RDMA_PS_TCP)
        self.add('cmid', lid)
        with self.lock:
            self.cm_port += 1
            port = str(self.cm_port)
        lid.bind_addr(AddrInfo(src=IP0, src_service=port,
                               port_space=ce.RDMA_PS_TCP,
                               flags=ce.RAI_PASSIVE))
        lid.listen()
        cid = CMID(creator=ch, port_space=ce.RDMA_PS_TCP)
        self.add('cmid', cid)
        ent = {'ch': ch, 'lid': lid, 'cid': cid}
        self.add('cm', ent)
        cid.resolve_addr(AddrInfo(src=IP0, dst=IP0, dst_service=port,
                                  port_space=ce.RDMA_PS_TCP), timeout_ms=2000)

    def op_cm_step(self, rng):
        ent = self.pick(rng, 'cm')
        if ent is None:
            return
        ev = CMEvent(ent['ch'])     # EAGAIN when there is none
        try:
            t = ev.event_type
            self.count('cm_event', str(t))
            cap = QPCap(max_send_wr=4, max_recv_wr=4)
            if t == ce.RDMA_CM_EVENT_ADDR_RESOLVED:
                ent['cid'].resolve_route(2000)
            elif t == ce.RDMA_CM_EVENT_ROUTE_RESOLVED:
                ent['cid'].create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC,
                                                cap=cap))
                ent['cid'].connect()
            elif t == ce.RDMA_CM_EVENT_CONNECT_REQUEST:
                child = CMID(creator=ev, listen_id=ent['lid'])
                self.add('cmid', child)
                ent['child'] = child
                child.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, cap=cap))
                child.accept()
            elif t == ce.RDMA_CM_EVENT_ESTABLISHED:
                ent['established'] = True
        finally:
            ev.close()

    def op_cm_misc(self, rng):
        ent = self.pick(rng, 'cm')
        if ent is None:
            return
        cid = ent.get('child') if rng.random() < 0.5 else ent['cid']
        if cid is None:
            return
        r = rng.randrange(3)
        if r == 0:
            cid.query_qp(self.maybe_int(rng, e.IBV_QP_STATE, [cid]))
        elif r == 1:
            (cid.context, cid.pd, cid.qpn, cid.port_num, cid.dev_name)
        else:
            cid.disconnect()

    # --------------------------------------------------------------- threads
    def ops(self):
        table = [
            ('create_pd', 3), ('create_channel', 2), ('create_cq', 3),
            ('create_mr', 3), ('create_mw', 2), ('create_ah', 2),
            ('create_srq', 2), ('create_rc', 3), ('create_ud', 2),
            ('create_srqqp', 2), ('post_rc', 10), ('post_ud', 5),
            ('post_srq', 5), ('poll', 10), ('req_notify', 3),
            ('ack_events', 2), ('resize_cq', 1), ('modify_qp', 5),
            ('reconnect', 2), ('query', 8), ('rereg_mr', 2), ('bind_mw', 2),
            ('close', 6), ('close_parent', 2), ('close_ctx', 0.2),
            ('garbage', 2)]
        if rh.HAVE_RDMACM:
            table += [('cm_create', 1), ('cm_step', 6), ('cm_misc', 2)]
        return table

    def worker(self, name):
        rng = random.Random(f'{self.seed}-{name}')
        table = self.ops()
        names = [n for n, _ in table]
        weights = [w for _, w in table]
        while not self.stop.is_set():
            op = rng.choices(names, weights)[0]
            if self.ctx.closed:
                op = 'reopen'
                fn = self.reopen
            else:
                fn = getattr(self, 'op_' + op)
            self.tl.op = op
            self.current[f'{name}/{threading.get_native_id()}'] = op
            self.call(op, fn, rng)
            self.progress[name] = time.monotonic()

    def reopen(self, rng=None):
        """The Context was closed after all: a new one, a new heartbeat."""
        with self.lock:
            if not self.ctx.closed:
                return
            self.notes.append('the Context was closed during the run')
            ctx = Context(name=self.dev_name)
            self.created.append(ctx)
            self.ctx = ctx
            self.hb = None
            self.make_heartbeat()

    def make_heartbeat(self, keep_cq=None):
        """The comp reader's CQ (on a CompChannel) and a QP connected to
        itself that writes into its own MR with a signalled completion on
        that CQ.  With keep_cq (the reader may be blocked on it) only the
        PD, MR and QP are made again."""
        ctx = self.ctx
        hb = dict(keep_cq) if keep_cq else {}
        if not keep_cq:
            hb['channel'] = CompChannel(ctx)
            self.created.append(hb['channel'])
            hb['cq'] = CQ(ctx, 64, None, hb['channel'], 0)
            self.created.append(hb['cq'])
        hb['pd'] = PD(ctx)
        self.created.append(hb['pd'])
        hb['mr'] = MR(hb['pd'], 64, ACCESS)
        self.created.append(hb['mr'])
        hb['qp'] = QP(hb['pd'], QPInitAttr(
            qp_type=e.IBV_QPT_RC, scq=hb['cq'], rcq=hb['cq'],
            cap=QPCap(max_send_wr=16, max_recv_wr=1)))
        self.created.append(hb['qp'])
        connect_self(ctx, hb['qp'], self.gid_index)
        with self.lock:
            self.hb_posted = self.hb_done = 0
            self.hb = hb

    def collector(self, name):
        rng = random.Random(f'{self.seed}-{name}')
        default = gc.get_threshold()
        last_beat = 0
        while not self.stop.is_set():
            r = rng.random()
            if r < 0.3:
                self.call('gc.collect', gc.collect)
            elif r < 0.6:
                # (1, 1, 1) in short bursts: a collection at every
                # allocation, inside whatever call the others are in
                self.call('gc.set_threshold', gc.set_threshold, 1, 1, 1)
                time.sleep(rng.choice((0.001, 0.005)))
                self.call('gc.set_threshold', gc.set_threshold, *default)
            now = time.monotonic()
            if now - last_beat > 0.05:
                last_beat = now
                self.call('heartbeat', self.beat)
            time.sleep(rng.choice((0, 0.001, 0.01)))
            self.progress[name] = time.monotonic()
        gc.set_threshold(*default)

    def beat(self):
        """One signalled write on the heartbeat QP (at most 8 in flight);
        what was closed of the heartbeat is made again first."""
        if self.ctx.closed:
            self.reopen()
            return
        hb = self.hb
        if hb is None or hb['cq'].closed or hb['channel'].closed:
            self.make_heartbeat()
            return
        if hb['qp'].closed or hb['mr'].closed or hb['pd'].closed:
            for k in ('qp', 'mr', 'pd'):
                hb[k].close()
            self.make_heartbeat(keep_cq={'cq': hb['cq'],
                                         'channel': hb['channel']})
            return
        if self.hb_posted - self.hb_done < 8:
            mr = hb['mr']
            wr = SendWR(wr_id=self.hb_posted, opcode=e.IBV_WR_RDMA_WRITE,
                        num_sge=1, sg=[SGE(mr.buf, 8, mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_rdma(mr.rkey, mr.buf + 32)
            hb['qp'].post_send(wr)
            self.hb_posted += 1

    def comp_reader(self, name):
        while not self.stop.is_set():
            hb = self.hb
            if hb is None:
                time.sleep(0.01)
                continue
            if self.call('get_cq_event', self.one_cq_event, hb):
                self.progress[name] = time.monotonic()
            elif hb['cq'].closed or hb['channel'].closed:
                time.sleep(0.01)

    def one_cq_event(self, hb):
        cq = hb['cq']
        cq.req_notify()
        # nothing completed since the poll? then block for the next one
        n, wcs = cq.poll(16)
        if not n:
            hb['channel'].get_cq_event(cq)
            cq.ack_events(1)
            n, wcs = cq.poll(16)
        self.hb_done += n
        for wc in wcs[:n]:
            if wc.status != e.IBV_WC_SUCCESS:
                raise PyverbsError(f'heartbeat completion status {wc.status}')

    def async_reader(self, name):
        while not self.stop.is_set():
            ctx = self.ctx
            self.async_blocked = True
            try:
                ev = ctx.get_async_event()
            except ALLOWED as ex:
                self.count('get_async_event', kind_of_exc(ex))
                time.sleep(0.01)
                continue
            except BaseException as ex:     # noqa: B902
                self.count('get_async_event', 'BAD:' + kind_of_exc(ex))
                self.fail('get_async_event', ex, traceback.format_exc())
                return
            finally:
                self.async_blocked = False
                self.progress[name] = time.monotonic()
            self.count('async_event', event_name(ev.event_type))
            try:
                (ev.element, str(ev))
            except ALLOWED as ex:
                self.count('async_event_attrs', kind_of_exc(ex))

    def watchdog(self, threads):
        last = time.monotonic()
        while not self.stop.wait(0.5):
            now = time.monotonic()
            # late: no Python thread ran, a C call held the GIL
            self.frozen = max(self.frozen, now - last - 0.5)
            last = now
            if self.frozen > STALL:
                self.fail(f'every thread stopped for {self.frozen:.1f} s '
                          '(a call held the GIL)')
                return
            self.check_stall(threads)

    def check_stall(self, threads, exempt_async=True):
        now = time.monotonic()
        for t in threads:
            if not t.is_alive():
                continue
            if t.name == 'async' and exempt_async and self.async_blocked:
                continue
            idle = now - self.progress.get(t.name, now)
            if idle > STALL:
                sys.stderr.write(f'\n*** torture seed {self.seed}: thread '
                                 f'{t.name} made no progress for {STALL} s '
                                 f'(operations: {self.current}); '
                                 'all stacks:\n')
                faulthandler.dump_traceback(all_threads=True)
                kernel_stacks()
                native_stacks()
                self.fail(f'thread {t.name} hung (no progress for {STALL} s)')
                return True
        return False

    # ----------------------------------------------------------------- run
    def setup(self):
        self.ctx = Context(name=self.dev_name)
        self.created.append(self.ctx)
        self.gid_index = rh.find_gid_index(self.ctx)
        if self.gid_index is None:
            raise PyverbsError(f'{self.dev_name} has no usable GID')
        self._srq_pd = {}
        pd = PD(self.ctx)
        self.add('pd', pd)
        try:
            mw = MW(pd, 2)
            self.add('mw', mw)
            self.mw_type2 = True
        except PyverbsError as ex:
            self.mw_type2 = f'type 2 MWs are not supported: {ex}'
            self.notes.append('skipped MWs: ' + self.mw_type2)
        self.make_heartbeat()

    def run(self):
        fds0 = open_fds()
        res0 = resource_counts()
        start = time.monotonic()
        old_hook = sys.unraisablehook
        sys.unraisablehook = self.on_unraisable
        # a deadlock that holds the GIL stops the watchdog thread as well
        faulthandler.dump_traceback_later(
            self.seconds + STALL + 150, exit=True)
        # what exists now is never garbage: keep the collections that run
        # at every allocation cheap
        gc.collect()
        gc.freeze()
        self.stuck = False
        try:
            self.setup()
            self._run_threads()
            if self.stuck:
                # closing what a stuck thread uses could hang us as well
                self.notes.append('a thread is stuck: nothing closed, no '
                                  'leak checks')
            else:
                self.teardown()
                gc.collect()
                self.check_leaks(fds0, res0)
        finally:
            faulthandler.cancel_dump_traceback_later()
            gc.unfreeze()
            sys.unraisablehook = old_hook
        self.elapsed = time.monotonic() - start
        return self.report()

    def on_unraisable(self, u):
        kind = u.exc_type.__name__ if u.exc_type else '?'
        if u.exc_type and issubclass(u.exc_type, ALLOWED):
            self.count('unraisable', kind)
        else:
            self.count('unraisable', 'BAD:' + kind)
            self.fail(f'unraisable {kind} in {u.object!r}', u.exc_value,
                      ''.join(traceback.format_exception(
                          u.exc_type, u.exc_value, u.exc_traceback)))

    def _run_threads(self):
        nworkers = self.rng.randint(4, 6)
        names = [f'worker{k}' for k in range(nworkers)]
        threads = [threading.Thread(target=self.worker, args=(n,), name=n,
                                    daemon=True) for n in names]
        threads += [
            threading.Thread(target=self.collector, args=('collector',),
                             name='collector', daemon=True),
            threading.Thread(target=self.comp_reader, args=('comp',),
                             name='comp', daemon=True),
            threading.Thread(target=self.async_reader, args=('async',),
                             name='async', daemon=True)]
        now = time.monotonic()
        for t in threads:
            self.progress[t.name] = now
        dog = threading.Thread(target=self.watchdog, args=(threads,),
                               name='watchdog', daemon=True)
        for t in threads:
            t.start()
        dog.start()
        self.stop.wait(self.seconds)
        self.stop.set()
        dog.join()
        self.threads = threads
        # workers and the collector end by themselves
        end = time.monotonic() + STALL
        for t in threads:
            if t.name in ('comp', 'async'):
                continue
            t.join(max(0.1, end - time.monotonic()))
        # the comp reader may wait for one more heartbeat
        while threads[-2].is_alive() and time.monotonic() < end:
            self.call('heartbeat', self.beat)
            threads[-2].join(0.5)
        self.wake_async_reader(threads[-1])
        for t in threads:
            if t.is_alive():
                sys.stderr.write(f'\n*** torture seed {self.seed}: thread '
                                 f'{t.name} did not end; all stacks:\n')
                faulthandler.dump_traceback(all_threads=True)
                kernel_stacks()
                native_stacks()
                self.fail(f'thread {t.name} did not end')
                self.stuck = True
                break

    def wake_async_reader(self, t):
        """Cause an async event: an SRQ whose limit is reached (a SEND of
        an RC QP to itself takes one of its two receives, the limit is 2).
        Each try's objects are closed afterwards."""
        end = time.monotonic() + STALL
        tries = 0
        while t.is_alive() and time.monotonic() < end:
            tries += 1
            if self.ctx.closed:
                time.sleep(0.05)
                continue
            objs = []
            try:
                pd = PD(self.ctx)
                objs.append(pd)
                srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4, max_sge=1)))
                cq = CQ(self.ctx, 8, None, None, 0)
                mr = MR(pd, 64, ACCESS)
                qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                                       srq=srq, cap=QPCap(max_send_wr=2)))
                objs += [qp, mr, cq, srq]
                connect_self(self.ctx, qp, self.gid_index)
                for i in range(2):
                    srq.post_recv(RecvWR(wr_id=i, num_sge=1,
                                         sg=[SGE(mr.buf, 64, mr.lkey)]))
                srq.modify(SrqAttr(srq_limit=2), e.IBV_SRQ_LIMIT)
                qp.post_send(SendWR(opcode=e.IBV_WR_SEND, num_sge=1,
                                    sg=[SGE(mr.buf, 8, mr.lkey)],
                                    send_flags=e.IBV_SEND_SIGNALED))
                t.join(1.0)
            except ALLOWED as ex:
                self.count('wake_async', kind_of_exc(ex))
                time.sleep(0.05)
            finally:
                for o in objs:
                    try:
                        o.close()
                    except ALLOWED as ex:
                        self.count('wake_async_close', kind_of_exc(ex))
        self.count('wake_async_tries', str(tries))
        if t.is_alive():
            try:
                self.ctx.close()
                self.notes.append('ctx.close() with get_async_event '
                                  'blocked: no exception')
            except ALLOWED as ex:
                self.notes.append('ctx.close() with get_async_event '
                                  f'blocked: {ex!r}')
            self.fail('get_async_event could not be woken by an SRQ limit '
                      'event')

    def teardown(self):
        """Close what the Context does not own (CM ids, then their event
        channels: every one made, the pools keep only the newest), then
        the Context, which closes the rest."""
        if rh.HAVE_RDMACM:
            for kind in (CMID, CMEventChannel):
                for o in self.created:
                    if isinstance(o, kind):
                        self.call('teardown_close_cm', o.close)
        for ctx in [o for o in self.created if isinstance(o, Context)]:
            if not self.call('teardown_close_ctx', ctx.close):
                self.fail('the Context could not be closed at the end')
        left = [o for o in self.created if not _closed(o)]
        if left:
            self.fail(f'{len(left)} objects still open after closing '
                      f'everything: {left[:5]!r}')
        with self.lock:
            for k in self.pools:
                self.pools[k].clear()
            self.hb = None
        gc.collect()

    def check_leaks(self, fds0, res0):
        fds = open_fds()
        deadline = time.monotonic() + 3
        while fds != fds0 and time.monotonic() < deadline:
            time.sleep(0.1)
            gc.collect()
            fds = open_fds()
        if fds != fds0:
            self.fail(f'open file descriptors: {fds0} at the start, {fds} '
                      f'at the end: {sorted(os.listdir("/proc/self/fd"))}')
        if res0 is None:
            self.notes.append('no `rdma resource show`: kernel resource '
                              'leak check skipped')
            return
        res = resource_counts()
        while res != res0 and time.monotonic() < deadline:
            time.sleep(0.1)
            res = resource_counts()
        if res != res0:
            self.fail(f'kernel RDMA resources: {res0} at the start, {res} '
                      'at the end')

    def report(self):
        by_op = collections.defaultdict(dict)
        for (op, outcome), n in sorted(self.counts.items()):
            by_op[op][outcome] = n
        lines = [f'seed {self.seed}: {self.elapsed:.1f} s, '
                 f'{sum(self.counts.values())} operations, '
                 f'{len(self.failures)} failures']
        for op, outs in sorted(by_op.items()):
            lines.append(f'  {op:24} ' + ' '.join(
                f'{k}={v}' for k, v in sorted(outs.items())))
        slow = sorted(self.slowest.items(), key=lambda kv: -kv[1][0])[:6]
        lines.append('  slowest: ' + ', '.join(
            f'{op} {dt:.1f} s ({who})' for op, (dt, who) in slow) +
            f'; watchdog late by up to {self.frozen:.1f} s')
        for n in self.notes:
            lines.append('  note: ' + n)
        for f in self.failures:
            lines.append('  FAIL: ' + f)
        text = '\n'.join(lines)
        self.log(text)
        return text


def _closed(o):
    """Whether a pool entry is closed: a handle, a pair of Ends (either
    QP), an SRQ QP tuple (its QP or SRQ), a CM entry (its channel)."""
    try:
        if isinstance(o, tuple):
            if isinstance(o[0], rh.End):
                return o[0].qp.closed or o[1].qp.closed
            return o[0].closed or o[1].closed
        if isinstance(o, dict):
            return o['ch'].closed
        return bool(o.closed)
    except ALLOWED:
        return True


def event_name(t):
    for k, v in vars(e).items():
        if k.startswith('IBV_EVENT_') and v == t:
            return k[len('IBV_EVENT_'):]
    return str(t)


def connect_self(ctx, qp, gid_index):
    """An RC QP addressed to itself through its port's GID (loopback)."""
    psn = random.getrandbits(24)
    gr = GlobalRoute(dgid=ctx.query_gid(1, gid_index), sgid_index=gid_index,
                     hop_limit=64)
    qp.establish(qp.qp_num, psn, AHAttr(port_num=1, is_global=1, gr=gr),
                 local_psn=psn, port_num=1, path_mtu=e.IBV_MTU_1024,
                 timeout=18)


# --------------------------------------------------------------- entries

def default_dev():
    names = sorted(d.name.decode() for d in get_device_list())
    return os.environ.get('PYVERBS_TEST_DEV', names[0] if names else None)


def warm_up(dev_name):
    """Open what the libraries keep open for the process's life (librdmacm
    opens every device once, at its first use), so the fd count compared
    at the end of a seed starts after it."""
    if rh.HAVE_RDMACM:
        ch = CMEventChannel()
        cid = CMID(creator=ch)
        try:
            cid.resolve_addr(AddrInfo(src=IP0, dst=IP0, dst_service='1'))
            CMEvent(ch).close()
        except PyverbsError:
            pass
        ch.close()
    with Context(name=dev_name):
        pass
    gc.collect()


def run_seed(seed, seconds, dev_name, log=print):
    t = Torture(seed, seconds, dev_name, log=log)
    t.run()
    return t


def set_accept_local():
    for conf in ('all', 'veth0', 'veth1'):
        try:
            with open(f'/proc/sys/net/ipv4/conf/{conf}/accept_local',
                      'w') as f:
                f.write('1')
        except OSError:
            pass


@pytest.mark.parametrize('seed', [1, 2, 3])
def test_torture(dev_name, accept_local, seed):
    warm_up(dev_name)
    t = run_seed(seed, SECONDS, dev_name)
    # the test did something: operations of every family ran and some
    # objects were really closed under others
    ops = {op for (op, outcome) in t.counts if outcome == 'ok'}
    assert not t.failures, '\n'.join(t.failures)
    assert {'create_rc', 'post_rc', 'poll', 'close'} <= ops, sorted(ops)
    assert any(op.startswith('chaos-close') for op in ops), sorted(ops)


def test_torture_debug_allocator(dev_name, accept_local):
    """Two more seeds in child processes under CPython's debug allocator
    (freed memory is filled, so a use after free reads garbage at once).
    The sanitizer stage of tools/run-tests runs the whole module against
    the ASan+UBSan build too."""
    r = subprocess.run(
        [sys.executable, '-X', 'faulthandler', os.path.abspath(__file__),
         '--seeds', '2', '--first', '101', '--seconds', str(SECONDS),
         '--dev', dev_name],
        env=dict(os.environ, PYTHONMALLOC='debug'), capture_output=True,
        text=True, timeout=2 * (SECONDS + STALL + 200))
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:])
    assert '2 of 2 seeds passed' in r.stdout, r.stdout[-3000:]


# ---------------------------------------------------------------- script

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--seeds', type=int, default=10)
    ap.add_argument('--first', type=int, default=1)
    ap.add_argument('--seconds', type=float, default=SECONDS)
    ap.add_argument('--dev', default=None)
    ap.add_argument('--inline', action='store_true',
                    help='run the seeds in this process, not one child each')
    ap.add_argument('--one', type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    faulthandler.enable()
    dev = args.dev or default_dev()
    if dev is None:
        print('no RDMA device', file=sys.stderr)
        return 2
    set_accept_local()
    if args.one is not None or args.inline:
        seeds = [args.one] if args.one is not None else \
            range(args.first, args.first + args.seeds)
        warm_up(dev)
        bad = 0
        for s in seeds:
            t = run_seed(s, args.seconds, dev)
            bad += bool(t.failures)
        sys.stdout.flush()
        # os._exit: a hung daemon thread must not keep us alive
        os._exit(1 if bad else 0)
    results = []
    for s in range(args.first, args.first + args.seeds):
        cmd = [sys.executable, '-X', 'faulthandler', os.path.abspath(
            __file__), '--one', str(s), '--seconds', str(args.seconds),
            '--dev', dev]
        t0 = time.monotonic()
        try:
            rc = subprocess.run(cmd, timeout=args.seconds + STALL + 200).returncode
        except subprocess.TimeoutExpired:
            rc = 'timeout'
        dt = time.monotonic() - t0
        if isinstance(rc, int) and rc < 0:
            rc = f'killed by {signal.Signals(-rc).name}'
        results.append((s, rc, dt))
        print(f'=== seed {s}: {"passed" if rc == 0 else "FAILED"} '
              f'(exit {rc}) in {dt:.1f} s', flush=True)
    failed = [s for s, rc, _ in results if rc != 0]
    print(f'=== {len(results) - len(failed)} of {len(results)} seeds passed'
          + (f'; failed: {failed}' if failed else ''))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
