# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The measuring engine of ``pyverbs bench``.

An `Endpoint` is one end: a device's Context with a PD, a send CQ, a
receive CQ, one MR and an RC QP.  A `Pair` holds both ends in this one
process (two devices, or one device twice) and connects their QPs
directly (pyverbs.path, no rdma_cm) over the ports' RoCEv2 IPv4 GIDs;
_bench_tcp connects one end to a peer process instead, and reuses the
one-sided pieces here (prepare, check_arrival, stream, Receiver,
lat_read).  Each end's MR holds two areas
of the largest message size: the receive area first (what the peer writes
or sends into, what a READ lands in), then the send area (what this end
writes or sends, what the peer READs).

The loops use the package's batched data path: a bandwidth run posts a
list of WRs per ibv_post_send() (only the last one signalled, so one
completion retires the list), polls many completions per ibv_poll_cq(),
and reposts receives as lists.  Every completion's status is checked, and
after every run the destination area is compared with what was sent, so
a number is only printed for data that arrived.
"""
import dataclasses
import time
from collections.abc import Callable, Iterable
from typing import Self

import pyverbs.enums as e
from pyverbs.cq import CQ, WC
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.path import Path, establish
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

# what a run calls with the number of messages done so far
Tick = Callable[[int], object]
# a CQ's poll method
Poll = Callable[[int], tuple[int, list[WC]]]

TESTS = ('write', 'read', 'send')
OPCODES = {'write': e.IBV_WR_RDMA_WRITE, 'read': e.IBV_WR_RDMA_READ,
           'send': e.IBV_WR_SEND}
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
SIGNALED = e.IBV_SEND_SIGNALED
POLL_BATCH = 32


class BenchError(Exception):
    """A run that cannot give an honest number: a failed completion, no
    progress for too long, or data that did not arrive as sent."""


@dataclasses.dataclass
class Config:
    ib_dev: str
    peer_dev: str
    ib_port: int = 1
    gid_index: int | None = None
    max_size: int = 65536
    tx_depth: int = 128
    rx_depth: int = 512
    cq_mod: int = 32
    mtu: int | None = None           # an IBV_MTU_* value; None: the port's
    stall: float = 30.0              # seconds without progress -> error
    qp_timeout: int = 14             # ACK timeout, 4.096 us << qp_timeout


def pattern(size: int, seed: int) -> bytes:
    """size bytes of a rotating 0..255 ramp that starts at seed."""
    ramp = bytes(range(256))
    ramp = ramp[seed & 0xff:] + ramp[:seed & 0xff]
    return (ramp * (size // 256 + 1))[:size]


class Endpoint:
    """One end: a device's Context with the resources of one RC QP."""

    def __init__(self, cfg: Config, dev: str,
                 rd_atomic: int | None = None) -> None:
        self.ctx = Context(name=dev)
        try:
            self._setup(cfg, dev, rd_atomic)
        except BaseException:
            self.ctx.close()
            raise

    def _setup(self, cfg: Config, dev: str, rd_atomic: int | None) -> None:
        ctx = self.ctx
        self.name = dev
        self.cfg = cfg
        self.max_size = cfg.max_size
        attr = ctx.query_device()
        self.rd_atomic = max(1, min(attr.max_qp_rd_atom,
                                    attr.max_qp_init_rd_atom, 16))
        if rd_atomic is not None:
            self.rd_atomic = min(self.rd_atomic, rd_atomic)
        self.pd = PD(ctx)
        self.scq = CQ(ctx, cfg.tx_depth)
        self.rcq = CQ(ctx, cfg.rx_depth)
        self.mr = MR(self.pd, 2 * cfg.max_size, ACCESS)
        cap = QPCap(max_send_wr=cfg.tx_depth, max_recv_wr=cfg.rx_depth,
                    max_send_sge=1, max_recv_sge=1)
        self.qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC,
                                         scq=self.scq, rcq=self.rcq,
                                         cap=cap, sq_sig_all=0))
        port = ctx.query_port(cfg.ib_port)
        self.link_layer = port.link_layer
        self.path = Path.from_qp(self.qp, ctx, cfg.ib_port, cfg.gid_index,
                                 timeout=cfg.qp_timeout)
        self.recv_addr = self.mr.buf
        self.send_addr = self.mr.buf + cfg.max_size
        self.view = memoryview(self.mr)
        # receives span the whole receive area, so one posted for a
        # message size serves any other; rq counts those posted
        sge = SGE(self.recv_addr, cfg.max_size, self.mr.lkey)
        self.rwrs = [RecvWR(wr_id=i, num_sge=1, sg=[sge])
                     for i in range(cfg.rx_depth)]
        self.rq = 0

    def top_up(self) -> None:
        """Post receives until rx_depth of them are posted."""
        n = len(self.rwrs) - self.rq
        if n:
            self.qp.post_recv(self.rwrs[:n])
            self.rq += n

    def repost(self, n: int) -> None:
        """n receives completed: post as many again."""
        self.qp.post_recv(self.rwrs[:n])

    def close(self) -> None:
        self.view.release()
        self.ctx.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fill(self, area: str, size: int, seed: int) -> None:
        """Write the pattern into the send or receive area."""
        off = 0 if area == 'recv' else self.max_size
        self.view[off:off + size] = pattern(size, seed)

    def clear(self, area: str, size: int) -> None:
        off = 0 if area == 'recv' else self.max_size
        self.view[off:off + size] = bytes(size)


class Pair:
    """Two endpoints with their QPs connected to each other (RTS)."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.a = Endpoint(cfg, cfg.ib_dev)
        try:
            self.b = Endpoint(cfg, cfg.peer_dev)
        except BaseException:
            self.a.close()
            raise
        try:
            self._connect(cfg)
        except BaseException:
            self.close()
            raise

    def _connect(self, cfg: Config) -> None:
        a, b = self.a, self.b
        rd = min(a.rd_atomic, b.rd_atomic)
        for end in (a, b):
            end.path.max_rd_atomic = end.path.max_dest_rd_atomic = rd
            if cfg.mtu is not None:
                end.path.mtu = cfg.mtu
        self.path_a = a.path.connect(b.path)
        self.path_b = b.path.connect(a.path)
        establish(a.qp, self.path_a)
        establish(b.qp, self.path_b)

    def close(self) -> None:
        self.a.close()
        self.b.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check(wcs: Iterable[WC], what: str) -> None:
    for wc in wcs:
        if wc.status:
            raise BenchError(f'{what}: completion with status '
                             f'{wc.status} ({_status_name(wc.status)}), '
                             f'vendor error 0x{wc.vendor_err:x}')


def _status_name(status: int) -> str:
    try:
        return e.ibv_wc_status(status).name
    except ValueError:
        return 'unknown'


class _Watchdog:
    """Raises BenchError when there was no progress for `limit` seconds."""

    def __init__(self, limit: float, what: str) -> None:
        self.limit, self.what = limit, what
        self.last = time.perf_counter()

    def moved(self) -> None:
        self.last = time.perf_counter()

    def check(self) -> None:
        if time.perf_counter() - self.last > self.limit:
            raise BenchError(f'{self.what}: no progress for '
                             f'{self.limit:g} s')


def _send_group(n: int, opcode: int, sge: SGE, rkey: int | None = None,
                raddr: int | None = None) -> list[SendWR]:
    """n identical WRs, the last one signalled; its wr_id is n, the number
    of WRs its completion retires."""
    wrs = []
    for k in range(n):
        last = k == n - 1
        wr = SendWR(wr_id=n if last else 0, opcode=opcode, num_sge=1,
                    sg=[sge], send_flags=SIGNALED if last else 0)
        if rkey is not None:
            wr.set_wr_rdma(rkey, raddr)  # type: ignore[arg-type]  # with rkey
        wrs.append(wr)
    return wrs


class Remote:
    """What one end knows of the other: its name, MR key and areas."""

    def __init__(self, name: str, rkey: int, recv_addr: int,
                 send_addr: int) -> None:
        self.name, self.rkey = name, rkey
        self.recv_addr, self.send_addr = recv_addr, send_addr

    @classmethod
    def of(cls, end: Endpoint) -> Self:
        return cls(end.name, end.mr.rkey, end.recv_addr, end.send_addr)

    def as_dict(self) -> dict[str, object]:
        return dict(vars(self))


def seed_of(test: str, mode: str, size: int) -> int:
    """The first byte of the pattern sent in one run (both ends agree)."""
    return (size * 7 + TESTS.index(test) * 2 + (mode == 'lat')) & 0xff


def final_tag(iters: int) -> int:
    """The last byte of the last message of a write latency run."""
    return (iters - 1) % 255 + 1


def prepare(end: Endpoint, role: str, test: str, mode: str,
            size: int) -> None:
    """Fill what end sends and clear where its data lands before a run:
    role 'a' is the end that starts each exchange, 'b' the other."""
    seed = seed_of(test, mode, size)
    if test == 'send' and (mode == 'lat' or role == 'b'):
        end.top_up()
    if mode == 'lat' and test != 'read':        # ping-pong: both send
        end.fill('send', size, seed)
        end.clear('recv', size)
    elif (role == 'a') == (test == 'read'):     # a reads, or b receives
        end.clear('recv', size)
    else:
        end.fill('send', size, seed)


def check_arrival(end: Endpoint, role: str, test: str, mode: str, size: int,
                  iters: int) -> None:
    """Raise BenchError unless end's receive area holds what the run
    should have left there."""
    if not (mode == 'lat' and test != 'read') and \
            (role == 'a') != (test == 'read'):
        return                                  # end only sent
    want = bytearray(pattern(size, seed_of(test, mode, size)))
    if mode == 'lat' and test == 'write':
        want[-1] = final_tag(iters)
    if end.view[:size] != want:
        raise BenchError(f'{test} {mode} {size} B: the data that arrived '
                         f'at {end.name} differs from what was sent')


class Receiver:
    """The receiving end of a send bandwidth run: takes receive
    completions (each checked), reposts as many receives."""

    def __init__(self, end: Endpoint, size: int, iters: int) -> None:
        self.end, self.size, self.left = end, size, iters
        self.what = f'send bw {size} B (receive)'
        end.top_up()            # (prepare did, unless run alone)

    def step(self) -> bool:
        """Poll once; True when completions came."""
        n, wcs = self.end.rcq.poll(POLL_BATCH)
        if not n:
            return False
        _check(wcs, self.what)
        for wc in wcs:
            if wc.byte_len != self.size:
                raise BenchError(f'{self.what}: {wc.byte_len} bytes')
        self.left -= n
        self.end.repost(n)
        return True

    def run(self, stall: float) -> None:
        """Take completions until every message has arrived."""
        dog = _Watchdog(stall, self.what)
        while self.left > 0:
            if self.step():
                dog.moved()
            else:
                dog.check()


def stream(end: Endpoint, remote: Remote, test: str, size: int, iters: int,
           tick: Tick | None = None, receiver: Receiver | None = None
           ) -> tuple[float, list[tuple[float, int]]]:
    """Stream `iters` messages of `size` bytes from end to remote (READ
    them from remote for 'read'), keeping up to tx_depth WRs outstanding;
    with a receiver (both ends in this process), take its completions in
    the same loop.  Returns (start, samples): samples are (time, messages
    done), taken at each batch of completions and at the end."""
    cfg = end.cfg
    what = f'{test} bw {size} B'
    rdma: tuple[int | None, int | None]
    if test == 'read':       # remote's send area into end's receive area
        sge = SGE(end.recv_addr, size, end.mr.lkey)
        rdma = (remote.rkey, remote.send_addr)
    else:
        sge = SGE(end.send_addr, size, end.mr.lkey)
        rdma = (None, None) if test == 'send' else \
            (remote.rkey, remote.recv_addr)
    opcode = OPCODES[test]
    mod = min(cfg.cq_mod, iters)
    full = _send_group(mod, opcode, sge, *rdma)
    # None when mod divides iters: then no short group is ever due
    rest: list[SendWR] = _send_group(  # type: ignore[assignment]
        iters % mod, opcode, sge, *rdma) if iters % mod else None
    post, poll = end.qp.post_send, end.scq.poll
    clock = time.perf_counter
    window = cfg.tx_depth
    dog = _Watchdog(cfg.stall, what)
    posted = done = 0
    start = clock()
    samples = [(start, 0)]
    while done < iters or (receiver is not None and receiver.left > 0):
        while posted < iters and posted - done + mod <= window:
            group = full if iters - posted >= mod else rest
            post(group)
            posted += len(group)
        n, wcs = poll(POLL_BATCH)
        moved = False
        if n:
            _check(wcs, what)
            for wc in wcs:
                done += wc.wr_id
            samples.append((clock(), done))
            moved = True
            if tick is not None:
                tick(done)
        if receiver is not None and receiver.left > 0 and receiver.step():
            moved = True
        if moved:
            dog.moved()
        else:
            dog.check()
    end_time = clock()
    if samples[-1][0] != end_time:
        samples.append((end_time, done))
    return start, samples


def run_bw(pair: Pair, test: str, size: int, iters: int,
           tick: Tick | None = None) -> tuple[float, list[tuple[float, int]]]:
    """A bandwidth run from a to b, both in this process."""
    a, b = pair.a, pair.b
    prepare(a, 'a', test, 'bw', size)
    prepare(b, 'b', test, 'bw', size)
    rx = Receiver(b, size, iters) if test == 'send' else None
    start, samples = stream(a, Remote.of(b), test, size, iters, tick, rx)
    check_arrival(a, 'a', test, 'bw', size, iters)
    check_arrival(b, 'b', test, 'bw', size, iters)
    return start, samples


def _wait_one(poll: Poll, dog: _Watchdog, what: str) -> WC:
    """Poll until one completion comes; return it (status checked)."""
    while True:
        n, wcs = poll(1)
        if n:
            _check(wcs, what)
            dog.moved()
            return wcs[0]
        dog.check()


def _reap(cq: CQ, count: int, dog: _Watchdog, what: str) -> None:
    """Wait for `count` completions of a CQ."""
    while count:
        n, wcs = cq.poll(POLL_BATCH)
        if n:
            _check(wcs, what)
            count -= n
            dog.moved()
        else:
            dog.check()


def _signalled(i: int, iters: int, mod: int) -> bool:
    """Whether message i of a ping-pong is signalled (one in mod, and the
    last, so that each side's send queue is drained at the end)."""
    return (i + 1) % mod == 0 or i == iters - 1


def _write_pair(end: Endpoint, remote: Remote, size: int) -> list[SendWR]:
    """The unsignalled and the signalled WRITE of end's send area into
    remote's receive area."""
    sge = SGE(end.send_addr, size, end.mr.lkey)
    return [SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[sge],
                   send_flags=flags, remote_addr=remote.recv_addr,
                   rkey=remote.rkey) for flags in (0, SIGNALED)]


def _send_pair(end: Endpoint, size: int) -> list[SendWR]:
    sge = SGE(end.send_addr, size, end.mr.lkey)
    return [SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge],
                   send_flags=flags) for flags in (0, SIGNALED)]


def _spin(view: memoryview, idx: int, tag: int, dog: _Watchdog) -> None:
    """Wait until view[idx] == tag (a WRITE has landed)."""
    spins = 0
    while view[idx] != tag:
        spins += 1
        if not spins & 0xffff:
            dog.check()


def lat_write(pair: Pair, size: int, iters: int,
              tick: Tick | None = None) -> list[int]:
    """Ping-pong of RDMA WRITEs, both ends in this process: a writes into
    b's receive area, b sees the last byte change and writes back.
    Returns one-way times (half of each round trip) in nanoseconds."""
    cfg = pair.cfg
    a, b = pair.a, pair.b
    what = f'write lat {size} B'
    prepare(a, 'a', 'write', 'lat', size)
    prepare(b, 'b', 'write', 'lat', size)
    last = size - 1
    send_last = a.max_size + last
    wa, wb = _write_pair(a, Remote.of(b), size), _write_pair(b, Remote.of(a),
                                                             size)
    av, bv = a.view, b.view
    apost, bpost = a.qp.post_send, b.qp.post_send
    mod = min(cfg.cq_mod, cfg.tx_depth)
    dog = _Watchdog(cfg.stall, what)
    clock = time.perf_counter_ns
    out = [0] * iters
    for i in range(iters):
        tag = i % 255 + 1
        sig = _signalled(i, iters, mod)
        av[send_last] = tag
        bv[send_last] = tag
        t0 = clock()
        apost(wa[sig])
        _spin(bv, last, tag, dog)
        bpost(wb[sig])
        _spin(av, last, tag, dog)
        out[i] = (clock() - t0) // 2
        dog.moved()
        if sig:
            _reap(a.scq, 1, dog, what)
            _reap(b.scq, 1, dog, what)
            if tick is not None:
                tick(i + 1)
    check_arrival(a, 'a', 'write', 'lat', size, iters)
    check_arrival(b, 'b', 'write', 'lat', size, iters)
    return out


def lat_read(end: Endpoint, remote: Remote, size: int, iters: int,
             tick: Tick | None = None) -> list[int]:
    """One RDMA READ at a time from remote's send area into end's receive
    area; returns the time from post to completion of each, in ns."""
    what = f'read lat {size} B'
    sge = SGE(end.recv_addr, size, end.mr.lkey)
    wr = SendWR(opcode=e.IBV_WR_RDMA_READ, num_sge=1, sg=[sge],
                send_flags=SIGNALED, remote_addr=remote.send_addr,
                rkey=remote.rkey)
    post, poll = end.qp.post_send, end.scq.poll
    dog = _Watchdog(end.cfg.stall, what)
    clock = time.perf_counter_ns
    out = [0] * iters
    for i in range(iters):
        t0 = clock()
        post(wr)
        while True:
            n, wcs = poll(1)
            if n:
                break
            dog.check()
        out[i] = clock() - t0
        _check(wcs, what)
        dog.moved()
        if tick is not None and not i & 63:
            tick(i + 1)
    return out


def lat_send(pair: Pair, size: int, iters: int,
             tick: Tick | None = None) -> list[int]:
    """Ping-pong of SENDs, both ends in this process: a sends to b, b
    waits for the receive completion and sends back.  Returns one-way
    times (half of each round trip) in nanoseconds."""
    cfg = pair.cfg
    a, b = pair.a, pair.b
    what = f'send lat {size} B'
    mod = _send_mod(cfg)
    prepare(a, 'a', 'send', 'lat', size)
    prepare(b, 'b', 'send', 'lat', size)
    wa, wb = _send_pair(a, size), _send_pair(b, size)
    apost, bpost = a.qp.post_send, b.qp.post_send
    apoll, bpoll = a.rcq.poll, b.rcq.poll
    dog = _Watchdog(cfg.stall, what)
    clock = time.perf_counter_ns
    out = [0] * iters
    used = 0
    for i in range(iters):
        sig = _signalled(i, iters, mod)
        t0 = clock()
        apost(wa[sig])
        wc_b = _wait_one(bpoll, dog, what)
        bpost(wb[sig])
        wc_a = _wait_one(apoll, dog, what)
        out[i] = (clock() - t0) // 2
        _check_len(wc_b, size, what)
        _check_len(wc_a, size, what)
        used += 1
        if sig:
            _reap(a.scq, 1, dog, what)
            _reap(b.scq, 1, dog, what)
            if tick is not None:
                tick(i + 1)
        if used == mod:             # give back the receives just used
            a.repost(used)
            b.repost(used)
            used = 0
    a.rq -= used
    b.rq -= used
    check_arrival(a, 'a', 'send', 'lat', size, iters)
    check_arrival(b, 'b', 'send', 'lat', size, iters)
    return out


def _send_mod(cfg: Config) -> int:
    return min(cfg.cq_mod, cfg.tx_depth, cfg.rx_depth)


def _check_len(wc: WC, size: int, what: str) -> None:
    if wc.byte_len != size:
        raise BenchError(f'{what}: received {wc.byte_len} bytes')


def _lat_read_pair(pair: Pair, size: int, iters: int,
                   tick: Tick | None = None) -> list[int]:
    prepare(pair.a, 'a', 'read', 'lat', size)
    prepare(pair.b, 'b', 'read', 'lat', size)
    out = lat_read(pair.a, Remote.of(pair.b), size, iters, tick)
    check_arrival(pair.a, 'a', 'read', 'lat', size, iters)
    return out


LAT = {'write': lat_write, 'read': _lat_read_pair, 'send': lat_send}


def run_lat(pair: Pair, test: str, size: int, iters: int,
            tick: Tick | None = None) -> list[int]:
    return LAT[test](pair, size, iters, tick)
