# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The measuring engine of ``pyverbs bench``.

Both ends of the connection live in this one process: a `Pair` opens two
devices (or one device twice), gives each end a PD, a send CQ, a receive
CQ, one MR and an RC QP, and connects the QPs directly (pyverbs.path, no
rdma_cm) over the ports' RoCEv2 IPv4 GIDs.  Each end's MR holds two areas
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

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.path import Path, establish
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

TESTS = ('write', 'read', 'send')
OPCODES = {'write': e.IBV_WR_RDMA_WRITE, 'read': e.IBV_WR_RDMA_READ,
           'send': e.IBV_WR_SEND}
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)
SIGNALED = e.IBV_SEND_SIGNALED
# 4.096 us << 18, about 1 s before a retransmission: under software
# emulation a shorter timeout resends packets that are only late
QP_TIMEOUT = 18
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


def pattern(size, seed):
    """size bytes of a rotating 0..255 ramp that starts at seed."""
    ramp = bytes(range(256))
    ramp = ramp[seed & 0xff:] + ramp[:seed & 0xff]
    return (ramp * (size // 256 + 1))[:size]


class Endpoint:
    """One end: a device's Context with the resources of one RC QP."""

    def __init__(self, cfg, dev, rd_atomic=None):
        self.ctx = Context(name=dev)
        try:
            self._setup(cfg, dev, rd_atomic)
        except BaseException:
            self.ctx.close()
            raise

    def _setup(self, cfg, dev, rd_atomic):
        ctx = self.ctx
        self.name = dev
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
                                 timeout=QP_TIMEOUT)
        self.recv_addr = self.mr.buf
        self.send_addr = self.mr.buf + cfg.max_size
        self.view = memoryview(self.mr)
        # receives span the whole receive area, so one posted for a
        # message size serves any other; rq counts those posted
        sge = SGE(self.recv_addr, cfg.max_size, self.mr.lkey)
        self.rwrs = [RecvWR(wr_id=i, num_sge=1, sg=[sge])
                     for i in range(cfg.rx_depth)]
        self.rq = 0

    def top_up(self):
        """Post receives until rx_depth of them are posted."""
        n = len(self.rwrs) - self.rq
        if n:
            self.qp.post_recv(self.rwrs[:n])
            self.rq += n

    def repost(self, n):
        """n receives completed: post as many again."""
        self.qp.post_recv(self.rwrs[:n])

    def close(self):
        self.view.release()
        self.ctx.close()

    def fill(self, area, size, seed):
        """Write the pattern into the send or receive area."""
        off = 0 if area == 'recv' else self.max_size
        self.view[off:off + size] = pattern(size, seed)

    def clear(self, area, size):
        off = 0 if area == 'recv' else self.max_size
        self.view[off:off + size] = bytes(size)

    def holds(self, area, size, seed):
        off = 0 if area == 'recv' else self.max_size
        return self.view[off:off + size] == pattern(size, seed)


class Pair:
    """Two endpoints with their QPs connected to each other (RTS)."""

    def __init__(self, cfg):
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

    def _connect(self, cfg):
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

    def close(self):
        self.a.close()
        self.b.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _check(wcs, what):
    for wc in wcs:
        if wc.status:
            raise BenchError(f'{what}: completion with status '
                             f'{wc.status} ({_status_name(wc.status)}), '
                             f'vendor error 0x{wc.vendor_err:x}')


def _status_name(status):
    try:
        return e.ibv_wc_status(status).name
    except ValueError:
        return 'unknown'


class _Watchdog:
    """Raises BenchError when there was no progress for `limit` seconds."""

    def __init__(self, limit, what):
        self.limit, self.what = limit, what
        self.last = time.perf_counter()

    def moved(self):
        self.last = time.perf_counter()

    def check(self):
        if time.perf_counter() - self.last > self.limit:
            raise BenchError(f'{self.what}: no progress for '
                             f'{self.limit:g} s')


def _send_group(n, opcode, sge, rkey=None, raddr=None):
    """n identical WRs, the last one signalled; its wr_id is n, the number
    of WRs its completion retires."""
    wrs = []
    for k in range(n):
        last = k == n - 1
        wr = SendWR(wr_id=n if last else 0, opcode=opcode, num_sge=1,
                    sg=[sge], send_flags=SIGNALED if last else 0)
        if rkey is not None:
            wr.set_wr_rdma(rkey, raddr)
        wrs.append(wr)
    return wrs


def _endpoints(pair, test, size):
    """(local SGE, remote rkey, remote address, source end, source area,
    destination end, destination area) of a test from a to b."""
    a, b = pair.a, pair.b
    if test == 'read':       # a copies b's send area into a's receive area
        return (SGE(a.recv_addr, size, a.mr.lkey), b.mr.rkey, b.send_addr,
                b, 'send', a, 'recv')
    return (SGE(a.send_addr, size, a.mr.lkey), b.mr.rkey, b.recv_addr,
            a, 'send', b, 'recv')


def _verify(dst, area, size, seed, what):
    if not dst.holds(area, size, seed):
        raise BenchError(f'{what}: the data that arrived at {dst.name} '
                         f'differs from what was sent')


def run_bw(pair, test, size, iters, tick=None):
    """Stream `iters` messages of `size` bytes from a to b (a READs from b
    for 'read'), keeping up to tx_depth WRs outstanding.  Returns
    (start, samples): samples are (time, messages done) taken at each
    batch of completions, the last one at the end of the run."""
    cfg = pair.cfg
    a, b = pair.a, pair.b
    what = f'{test} bw {size} B'
    seed = size * 7 + 1
    sge, rkey, raddr, src, sarea, dst, darea = _endpoints(pair, test, size)
    src.fill(sarea, size, seed)
    dst.clear(darea, size)
    opcode = OPCODES[test]
    mod = min(cfg.cq_mod, iters)
    remote = (None, None) if test == 'send' else (rkey, raddr)
    full = _send_group(mod, opcode, sge, *remote)
    rest = _send_group(iters % mod, opcode, sge, *remote) \
        if iters % mod else None
    is_send = test == 'send'
    received = 0
    if is_send:
        b.top_up()
        rpoll, repost = b.rcq.poll, b.repost
    else:
        received = iters
    post, poll = a.qp.post_send, a.scq.poll
    clock = time.perf_counter
    window = cfg.tx_depth
    dog = _Watchdog(cfg.stall, what)
    posted = done = 0
    start = clock()
    samples = [(start, 0)]
    while done < iters or received < iters:
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
        if is_send and received < iters:
            n, wcs = rpoll(POLL_BATCH)
            if n:
                _check(wcs, what + ' (receive)')
                for wc in wcs:
                    if wc.byte_len != size:
                        raise BenchError(f'{what}: received {wc.byte_len} '
                                         f'bytes')
                received += n
                repost(n)
                moved = True
        if moved:
            dog.moved()
        else:
            dog.check()
    end = clock()
    if samples[-1][0] != end:
        samples.append((end, done))
    _verify(dst, darea, size, seed, what)
    return start, samples


def _wait_one(poll, dog, what):
    """Poll until one completion comes; return it (status checked)."""
    while True:
        n, wcs = poll(1)
        if n:
            _check(wcs, what)
            dog.moved()
            return wcs[0]
        dog.check()


def _reap(cq, count, dog, what):
    """Wait for `count` completions of a CQ."""
    while count:
        n, wcs = cq.poll(POLL_BATCH)
        if n:
            _check(wcs, what)
            count -= n
            dog.moved()
        else:
            dog.check()


def lat_write(pair, size, iters, tick=None):
    """Ping-pong of RDMA WRITEs: a writes into b's receive area, b sees the
    last byte change and writes back.  Returns one-way times (half of
    each round trip) in nanoseconds."""
    cfg = pair.cfg
    a, b = pair.a, pair.b
    what = f'write lat {size} B'
    seed = size * 7 + 3
    last = size - 1
    send_last = a.max_size + last
    for end in (a, b):
        end.fill('send', size, seed)
        end.clear('recv', size)

    def wrs(src, dst):
        sge = SGE(src.send_addr, size, src.mr.lkey)
        return [SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1, sg=[sge],
                       send_flags=flags, remote_addr=dst.recv_addr,
                       rkey=dst.mr.rkey) for flags in (0, SIGNALED)]
    wa, wb = wrs(a, b), wrs(b, a)
    av, bv = a.view, b.view
    apost, bpost = a.qp.post_send, b.qp.post_send
    mod = min(cfg.cq_mod, cfg.tx_depth)
    dog = _Watchdog(cfg.stall, what)
    clock = time.perf_counter_ns
    out = [0] * iters
    tag = 0
    for i in range(iters):
        tag = i % 255 + 1
        sig = (i + 1) % mod == 0 or i == iters - 1
        av[send_last] = tag
        bv[send_last] = tag
        t0 = clock()
        apost(wa[sig])
        spins = 0
        while bv[last] != tag:
            spins += 1
            if not spins & 0xffff:
                dog.check()
        bpost(wb[sig])
        while av[last] != tag:
            spins += 1
            if not spins & 0xffff:
                dog.check()
        out[i] = (clock() - t0) // 2
        dog.moved()
        if sig:
            _reap(a.scq, 1, dog, what)
            _reap(b.scq, 1, dog, what)
            if tick is not None:
                tick(i + 1)
    # the whole message arrived: the pattern with the last tag at its end
    for end in (a, b):
        got = end.view[:size]
        if got[:last] != pattern(size, seed)[:last] or got[last] != tag:
            raise BenchError(f'{what}: the data that arrived at '
                             f'{end.name} differs from what was sent')
    return out


def lat_read(pair, size, iters, tick=None):
    """One RDMA READ at a time from b into a; returns the time from post
    to completion of each, in nanoseconds."""
    a = pair.a
    what = f'read lat {size} B'
    seed = size * 7 + 5
    sge, rkey, raddr, src, sarea, dst, darea = _endpoints(pair, 'read', size)
    src.fill(sarea, size, seed)
    dst.clear(darea, size)
    wr = SendWR(opcode=e.IBV_WR_RDMA_READ, num_sge=1, sg=[sge],
                send_flags=SIGNALED, remote_addr=raddr, rkey=rkey)
    post, poll = a.qp.post_send, a.scq.poll
    dog = _Watchdog(pair.cfg.stall, what)
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
    _verify(dst, darea, size, seed, what)
    return out


def lat_send(pair, size, iters, tick=None):
    """Ping-pong of SENDs: a sends to b, b waits for the receive completion
    and sends back.  Returns one-way times (half of each round trip) in
    nanoseconds."""
    cfg = pair.cfg
    a, b = pair.a, pair.b
    what = f'send lat {size} B'
    seed = size * 7 + 9
    mod = min(cfg.cq_mod, cfg.tx_depth, cfg.rx_depth)
    for end in (a, b):
        end.fill('send', size, seed)
        end.clear('recv', size)
    a.top_up()
    b.top_up()

    def wrs(src):
        sge = SGE(src.send_addr, size, src.mr.lkey)
        return [SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge],
                       send_flags=flags) for flags in (0, SIGNALED)]
    wa, wb = wrs(a), wrs(b)
    apost, bpost = a.qp.post_send, b.qp.post_send
    apoll, bpoll = a.rcq.poll, b.rcq.poll
    dog = _Watchdog(cfg.stall, what)
    clock = time.perf_counter_ns
    out = [0] * iters
    used = 0
    for i in range(iters):
        sig = (i + 1) % mod == 0 or i == iters - 1
        t0 = clock()
        apost(wa[sig])
        wc_b = _wait_one(bpoll, dog, what)
        bpost(wb[sig])
        wc_a = _wait_one(apoll, dog, what)
        out[i] = (clock() - t0) // 2
        if wc_a.byte_len != size or wc_b.byte_len != size:
            raise BenchError(f'{what}: received '
                             f'{wc_b.byte_len}/{wc_a.byte_len} bytes')
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
    for end in (a, b):
        _verify(end, 'recv', size, seed, what)
    return out


LAT = {'write': lat_write, 'read': lat_read, 'send': lat_send}


def run_lat(pair, test, size, iters, tick=None):
    return LAT[test](pair, size, iters, tick)
