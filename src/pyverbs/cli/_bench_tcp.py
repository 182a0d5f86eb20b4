# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Server/client mode of ``pyverbs bench``: the two ends in two processes,
perhaps on two machines, as perftest runs (the server without a host, the
client with one).

The client opens a TCP connection and leads; every message is one line of
JSON.  It sends 'hello' (the plan, its settings, its half of the path,
its MR key and addresses); the server makes its end with those settings
and answers with its own; both move their QP to RTS and say 'rts'.  Then,
for each table, 'table' (both print the banner), and for each size 'run'
-> the server prepares its buffers and receives and answers 'ready' ->
both run their half -> the client sends 'done' with the row -> the server
checks what arrived at its end and answers 'ok' (both print the row).
'bye' ends the session; 'error' carries a failure to the other side.
"""
import dataclasses
import json
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any

from pyverbs.cli import _bench_engine as engine
from pyverbs.cli._bench_report import Info, Row
from pyverbs.path import Path, establish

# a message of the session (one JSON object)
Msg = dict[str, Any]
# a planned table: bench.plan()'s (test, mode, sizes, iters)
Step = tuple[str, str, list[int], int]

VERSION = 1
SETTINGS = ('max_size', 'tx_depth', 'rx_depth', 'cq_mod', 'mtu', 'stall',
            'qp_timeout')


class Channel:
    """JSON lines over a connected socket."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.rfile = sock.makefile('rb')

    def send(self, kind: str, **fields: object) -> None:
        fields['kind'] = kind
        self.sock.sendall(json.dumps(fields).encode() + b'\n')

    def recv(self, *kinds: str) -> Msg:
        line = self.rfile.readline(1 << 20)
        if not line:
            raise engine.BenchError('the peer closed the connection')
        try:
            msg: Msg = json.loads(line)
            kind = msg['kind']
        except (ValueError, TypeError, KeyError):
            raise engine.BenchError('the peer does not speak pyverbs '
                                    'bench')
        if kind == 'error':
            raise engine.BenchError(f'the peer failed: {msg.get("message")}')
        if kind not in kinds:
            raise engine.BenchError(f'expected {"/".join(kinds)} from the '
                                    f'peer, got {kind!r}')
        return msg

    def close(self) -> None:
        self.rfile.close()
        self.sock.close()


def _path_fields(path: Path) -> dict[str, Any]:
    d = dataclasses.asdict(path)
    d.pop('_ah', None)
    return d


def _path_of(fields: dict[str, Any]) -> Path:
    names = {f.name for f in dataclasses.fields(Path)} - {'_ah'}
    try:
        return Path(**{k: v for k, v in fields.items() if k in names})
    except TypeError as err:
        raise engine.BenchError(f'bad path from the peer: {err}')


def _my_half(end: engine.Endpoint) -> dict[str, object]:
    return {'path': _path_fields(end.path),
            'mem': engine.Remote.of(end).as_dict(),
            'rd_atomic': end.rd_atomic}


def _join(end: engine.Endpoint, ch: Channel,
          theirs: Msg) -> tuple[engine.Remote, Path]:
    """Complete end's path with the peer's half, move the QP to RTS and
    wait until the peer's is there too."""
    try:
        remote = engine.Remote(**theirs['mem'])
        rd = min(end.rd_atomic, int(theirs['rd_atomic']))
    except (KeyError, TypeError, ValueError):
        raise engine.BenchError('bad hello from the peer')
    end.path.max_rd_atomic = end.path.max_dest_rd_atomic = rd
    if end.cfg.mtu is not None:
        end.path.mtu = end.cfg.mtu
    path = end.path.connect(_path_of(theirs['path']))
    establish(end.qp, path)
    ch.send('rts')
    ch.recv('rts')
    return remote, path


def info_of(end: engine.Endpoint, path: Path, remote: engine.Remote,
            rd: int) -> Info:
    import pyverbs.enums as e
    return {'device': end.name, 'peer': remote.name,
            'tx_depth': end.cfg.tx_depth, 'cq_mod': end.cfg.cq_mod,
            'mtu': 128 << path.mtu,
            'link': 'Ethernet' if end.link_layer ==
            e.IBV_LINK_LAYER_ETHERNET else 'IB',
            'gid_index': path.sgid_index, 'rd_atomic': rd,
            'ends': [{'lid': path.slid, 'qpn': path.sqpn, 'psn': path.sq_psn,
                      'rkey': end.mr.rkey, 'vaddr': end.mr.buf,
                      'gid': path.sgid},
                     {'lid': path.dlid, 'qpn': path.dqpn, 'psn': path.rq_psn,
                      'rkey': remote.rkey, 'vaddr': remote.recv_addr,
                      'gid': path.dgid}]}


def connect(host: str, port: int, cfg: engine.Config,
            todo: Sequence[Step], timeout: float
            ) -> tuple[Channel, engine.Endpoint, engine.Remote, Info]:
    """Client: connect to a server; returns (channel, end, remote, info)."""
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as err:
        raise engine.BenchError(f"couldn't connect to {host}:{port}: "
                                f'{err.strerror or err}')
    sock.settimeout(None)
    ch = Channel(sock)
    end = None
    try:
        end = engine.Endpoint(cfg, cfg.ib_dev)
        ch.send('hello', version=VERSION, plan=todo,
                settings={k: getattr(cfg, k) for k in SETTINGS},
                **_my_half(end))
        theirs = ch.recv('hello')
        remote, path = _join(end, ch, theirs)
    except BaseException:
        if end is not None:
            end.close()
        ch.close()
        raise
    return ch, end, remote, info_of(end, path, remote,
                                    end.path.max_rd_atomic)


def client_run(ch: Channel, end: engine.Endpoint, remote: engine.Remote,
               test: str, mode: str, size: int, iters: int,
               tick: engine.Tick | None = None) -> Row:
    """One size, client side: returns the result row."""
    from pyverbs.cli import _bench_report as report
    ch.send('run', test=test, mode=mode, size=size, iters=iters)
    engine.prepare(end, 'a', test, mode, size)
    ch.recv('ready')
    if mode == 'bw':
        start, samples = engine.stream(end, remote, test, size, iters, tick)
        row = report.bw_result(test, size, iters, start, samples,
                               end.cfg.tx_depth)
    else:
        if test == 'write':
            times = ping_write(end, remote, size, iters, tick)
        elif test == 'send':
            times = ping_send(end, size, iters, tick)
        else:
            times = engine.lat_read(end, remote, size, iters, tick)
        row = report.lat_result(test, size, times)
    engine.check_arrival(end, 'a', test, mode, size, iters)
    ch.send('done', row=row)
    ch.recv('ok')
    return row


def listen(port: int, timeout: float | None = None) -> Channel:
    """Server: wait for one client; returns its Channel."""
    srv = socket.socket(socket.AF_INET)
    try:
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(('', port))
        srv.listen(1)
        srv.settimeout(timeout)
        sock, _ = srv.accept()
    except OSError as err:
        raise engine.BenchError(f"couldn't listen on port {port}: "
                                f'{err.strerror or err}')
    finally:
        srv.close()
    sock.settimeout(None)
    return Channel(sock)


def serve(ch: Channel, local: engine.Config, tests: Sequence[str],
          show: Callable[..., object]) -> None:
    """Server: take the client's hello, make the end, answer each run.
    local: a Config holding this side's device, port and GID index;
    tests: the tests this server agrees to run.
    show(kind, *args) prints: ('table', test, mode, info) and
    ('row', row)."""
    hello = ch.recv('hello')
    if hello.get('version') != VERSION:
        raise engine.BenchError('the client runs another version of '
                                'pyverbs bench')
    try:
        settings = {k: hello['settings'][k] for k in SETTINGS}
        cfg = dataclasses.replace(local, **settings)
        asked = [step[0] for step in hello['plan']]
    except (KeyError, TypeError, IndexError):
        raise engine.BenchError('bad hello from the client')
    other = [t for t in asked if t not in tests]
    if other:
        raise engine.BenchError(f'the client asked for {", ".join(other)}; '
                                f'this server runs {", ".join(tests)}')
    with engine.Endpoint(cfg, cfg.ib_dev) as end:
        ch.send('hello', **_my_half(end))
        remote, path = _join(end, ch, hello)
        info = info_of(end, path, remote, end.path.max_rd_atomic)
        while True:
            msg = ch.recv('table', 'run', 'bye')
            if msg['kind'] == 'bye':
                return
            if msg['kind'] == 'table':
                show('table', msg['test'], msg['mode'], info)
                continue
            _serve_run(ch, end, remote, msg, show)


def _serve_run(ch: Channel, end: engine.Endpoint, remote: engine.Remote,
               msg: Msg, show: Callable[..., object]) -> None:
    try:
        test, mode = msg['test'], msg['mode']
        size, iters = int(msg['size']), int(msg['iters'])
        assert test in engine.TESTS and mode in ('bw', 'lat')
        assert 1 <= size <= end.max_size and iters >= 1
    except (KeyError, ValueError, TypeError, AssertionError):
        raise engine.BenchError('bad run request from the client')
    engine.prepare(end, 'b', test, mode, size)
    rx = engine.Receiver(end, size, iters) \
        if test == 'send' and mode == 'bw' else None
    ch.send('ready')
    if rx is not None:
        rx.run(end.cfg.stall)
    elif mode == 'lat' and test == 'write':
        pong_write(end, remote, size, iters)
    elif mode == 'lat' and test == 'send':
        pong_send(end, size, iters)
    done = ch.recv('done')
    engine.check_arrival(end, 'b', test, mode, size, iters)
    ch.send('ok')
    show('row', done['row'])


# ---- the two halves of a ping-pong, one per process ----

def ping_write(end: engine.Endpoint, remote: engine.Remote, size: int,
               iters: int, tick: engine.Tick | None = None) -> list[int]:
    """The starting half of a WRITE ping-pong between two processes."""
    return _write_half(end, remote, size, iters, tick, True)


def pong_write(end: engine.Endpoint, remote: engine.Remote, size: int,
               iters: int) -> None:
    """The answering half of a WRITE ping-pong between two processes."""
    _write_half(end, remote, size, iters, None, False)


def _write_half(end: engine.Endpoint, remote: engine.Remote, size: int,
                iters: int, tick: engine.Tick | None,
                first: bool) -> list[int]:
    """The times of the first half (empty for the answering one)."""
    cfg = end.cfg
    what = f'write lat {size} B'
    last = size - 1
    send_last = end.max_size + last
    wrs = engine._write_pair(end, remote, size)
    view, post = end.view, end.qp.post_send
    mod = min(cfg.cq_mod, cfg.tx_depth)
    dog = engine._Watchdog(cfg.stall, what)
    clock = time.perf_counter_ns
    out = [0] * iters if first else []
    for i in range(iters):
        tag = i % 255 + 1
        sig = engine._signalled(i, iters, mod)
        view[send_last] = tag
        if first:
            t0 = clock()
            post(wrs[sig])
            engine._spin(view, last, tag, dog)
            out[i] = (clock() - t0) // 2
        else:
            engine._spin(view, last, tag, dog)
            post(wrs[sig])
        dog.moved()
        if sig:
            engine._reap(end.scq, 1, dog, what)
            if tick is not None:
                tick(i + 1)
    return out


def ping_send(end: engine.Endpoint, size: int, iters: int,
              tick: engine.Tick | None = None) -> list[int]:
    """The starting half of a SEND ping-pong between two processes."""
    return _send_half(end, size, iters, tick, True)


def pong_send(end: engine.Endpoint, size: int, iters: int) -> None:
    """The answering half of a SEND ping-pong between two processes."""
    _send_half(end, size, iters, None, False)


def _send_half(end: engine.Endpoint, size: int, iters: int,
               tick: engine.Tick | None, first: bool) -> list[int]:
    """The times of the first half (empty for the answering one)."""
    cfg = end.cfg
    what = f'send lat {size} B'
    mod = engine._send_mod(cfg)
    wrs = engine._send_pair(end, size)
    post, poll = end.qp.post_send, end.rcq.poll
    dog = engine._Watchdog(cfg.stall, what)
    clock = time.perf_counter_ns
    out = [0] * iters if first else []
    used = 0
    for i in range(iters):
        sig = engine._signalled(i, iters, mod)
        if first:
            t0 = clock()
            post(wrs[sig])
            wc = engine._wait_one(poll, dog, what)
            out[i] = (clock() - t0) // 2
        else:
            wc = engine._wait_one(poll, dog, what)
            post(wrs[sig])
        engine._check_len(wc, size, what)
        used += 1
        if sig:
            engine._reap(end.scq, 1, dog, what)
            if tick is not None:
                tick(i + 1)
        if used == mod:
            end.repost(used)
            used = 0
    end.rq -= used
    return out
