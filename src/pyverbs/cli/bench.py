# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""``pyverbs bench``: perftest-style bandwidth and latency of RDMA WRITE,
READ and SEND, both ends in this process, or a server and a client over
TCP (the measuring loops are in _bench_engine, the TCP exchange in
_bench_tcp, the table, progress bar, JSON and plot in _bench_report)."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from pyverbs.cli._bench_engine import Config, Pair, Tick
    from pyverbs.cli._bench_report import Info, Progress, Row
    from pyverbs.cli._bench_tcp import Channel, Step

    # measure(test, mode, size, iters, tick): one row
    _Measure = Callable[[str, str, int, int, Tick], Row]

    class _ServeState(TypedDict):
        open: bool                  # a table is being printed
        info: Info | None           # the run's, from the first table

NAME = 'bench'
HELP = ('perftest-style bandwidth and latency of RDMA write, read and '
        'send, with a table, plot and JSON')

EPILOG = """\
Each TEST runs for each mode (--bw, --lat; --bw when neither is given) and
each message size, printing perftest's table (ib_write_bw, ib_write_lat,
...).  Both ends run in this process: an RC QP on DEV and one on PEER
(PEER may be DEV itself, a loopback), connected directly over the ports'
RoCEv2 IPv4 GIDs.

  bw   TX-DEPTH WRs kept outstanding, posted CQ-MOD at a time as one list
       whose last WR is signalled.  BW average: bytes over the time from
       the first post to the last completion; BW peak: the best rate over
       any TX-DEPTH consecutive messages; MsgRate: million messages/s.
       MB is 2^20 bytes.
  lat  write and send: ping-pong (b answers each message of a; write
       notices arrival by the last byte of the buffer), one-way time = half
       the round trip.  read: one READ at a time, post to completion.

Every completion's status is checked and, after each size, the data that
arrived is compared with what was sent.

Two processes (or machines), as perftest: start the server with --server
(it waits on --port), then the client with --connect HOST; the client
decides sizes, iterations and depths, and both print the table.

examples:
  pyverbs bench write                      # 64 KiB RDMA WRITE bandwidth
  pyverbs bench write read send --bw --lat -a -n 200 --plot rdma.png
  pyverbs bench send --lat -s 64 -d rxe0 --peer rxe1 --json lat.json
  pyverbs bench write -d rxe1 --server &
  pyverbs bench write -d rxe0 --connect 192.0.2.2 -a
"""

DEFAULT_ITERS: dict[str, int] = {'bw': 5000, 'lat': 1000}
DEFAULT_SIZE: dict[str, int] = {'bw': 65536, 'lat': 2}
MAX_SIZE = 1 << 23
MAX_ITERS = 10 ** 7         # latency keeps one time per message
MTUS: tuple[int, ...] = (256, 512, 1024, 2048, 4096)


def _int_in(lo: int, hi: int,
            what: str = 'a number') -> Callable[[str], int]:
    def conv(text: str) -> int:
        try:
            value = int(text, 0)
        except ValueError:
            raise argparse.ArgumentTypeError(f'{text!r} is not {what}')
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(
                f'{value} is out of range ({lo}..{hi})')
        return value
    return conv


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pyverbs.cli._bench_engine import TESTS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument('tests', nargs='+', choices=TESTS, metavar='TEST',
                        help='what to measure: write, read and/or send')
    parser.add_argument('--bw', action='store_true',
                        help='measure bandwidth (the default)')
    parser.add_argument('--lat', action='store_true',
                        help='measure latency (with --bw: both)')
    parser.add_argument('-d', '--ib-dev', metavar='DEV',
                        help='device of the sending end (default: the '
                        'first device)')
    parser.add_argument('--peer', metavar='PEER',
                        help='device of the other end (default: the '
                        'first device other than DEV, else DEV itself)')
    parser.add_argument('-i', '--ib-port', type=_int_in(1, 255),
                        default=1, metavar='PORT',
                        help='port of both devices (default 1)')
    parser.add_argument('-x', '--gid-index', type=_int_in(0, 65535),
                        metavar='INDEX', help='GID index of both ends '
                        '(default: the RoCEv2 IPv4 GID of each)')
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument('-s', '--size', type=_int_in(1, MAX_SIZE),
                       metavar='SIZE', help='message size in bytes '
                       '(default 65536 for --bw, 2 for --lat)')
    sizes.add_argument('-a', '--all', action='store_true',
                       help='every power of two from 2 B to 64 KiB '
                       '(up to --max-size)')
    parser.add_argument('--max-size', type=_int_in(2, MAX_SIZE),
                        default=65536, metavar='SIZE',
                        help='largest size of --all (default 65536)')
    parser.add_argument('-n', '--iters', type=_int_in(1, MAX_ITERS),
                        metavar='N', help='messages per size (default '
                        '5000 for --bw, 1000 for --lat)')
    parser.add_argument('-t', '--tx-depth', type=_int_in(1, 16384),
                        default=128, metavar='N',
                        help='send queue depth (default 128)')
    parser.add_argument('-r', '--rx-depth', type=_int_in(1, 16384),
                        default=512, metavar='N',
                        help='receives kept posted for send (default 512)')
    parser.add_argument('-Q', '--cq-mod', type=_int_in(1, 16384),
                        default=32, metavar='N',
                        help='one completion per N WRs (default 32)')
    parser.add_argument('-m', '--mtu', type=int, choices=MTUS,
                        metavar='MTU', help='path MTU in bytes (default: '
                        "the ports' active MTU)")
    parser.add_argument('-u', '--qp-timeout', type=_int_in(0, 31),
                        default=14, metavar='N',
                        help='ACK timeout of the QPs, 4.096 usec * 2^N '
                        '(default 14, as perftest)')
    parser.add_argument('--progress', action=argparse.BooleanOptionalAction,
                        help='progress bar on stderr (default: on a '
                        'terminal, for runs longer than a second)')
    parser.add_argument('--plot', metavar='FILE.png',
                        help='draw bandwidth and latency against size '
                        '(needs matplotlib: pip install pyverbs-c[plot])')
    parser.add_argument('--json', metavar='FILE',
                        help='write the numbers as JSON')
    parser.add_argument('--stall', type=float, default=30.0, metavar='SECS',
                        help='give up after SECS without a completion '
                        '(default 30)')
    tcp = parser.add_mutually_exclusive_group()
    tcp.add_argument('--server', action='store_true',
                     help='be the passive end of a run between two '
                     'processes: wait for a client')
    tcp.add_argument('--connect', metavar='HOST',
                     help='be the client of a server on HOST')
    parser.add_argument('-p', '--port', type=_int_in(1, 65535),
                        default=18515, metavar='PORT',
                        help='TCP port of --server/--connect (default '
                        '18515)')


def _fail(msg: str) -> int:
    print(f'pyverbs bench: {msg}', file=sys.stderr)
    return 1


def plan(args: argparse.Namespace) -> list[Step]:
    """[(test, mode, [sizes], iters)] in the order they run."""
    modes = [m for m in ('bw', 'lat') if getattr(args, m)] or ['bw']
    out: list[Step] = []
    for test in dict.fromkeys(args.tests):
        for mode in modes:
            if args.all:
                sizes = [1 << k for k in range(1, 24)
                         if 1 << k <= args.max_size]
            else:
                sizes = [args.size or DEFAULT_SIZE[mode]]
            out.append((test, mode, sizes, args.iters or DEFAULT_ITERS[mode]))
    return out


def _check_args(args: argparse.Namespace) -> str | None:
    if args.cq_mod > args.tx_depth:
        return '--cq-mod must not be larger than --tx-depth'
    if args.cq_mod > args.rx_depth:
        return '--cq-mod must not be larger than --rx-depth'
    if args.stall <= 0:
        return '--stall must be positive'
    return None


def _pick_devices(args: argparse.Namespace) -> tuple[str, str] | None:
    from pyverbs.cli import device_list
    devices = device_list()
    if devices is None:
        return None
    names = [d.name.decode() for d in devices]
    if not names:
        print('No IB devices found', file=sys.stderr)
        return None
    dev = args.ib_dev or names[0]
    others = [n for n in names if n != dev]
    if args.server or args.connect:
        peer = dev                      # the other end is elsewhere
    else:
        peer = args.peer or (others[0] if others else dev)
    for name in (dev, peer):
        if name not in names:
            print(f"IB device '{name}' wasn't found", file=sys.stderr)
            return None
    return dev, peer


def _info(pair: Pair) -> Info:
    import pyverbs.enums as e
    a, b = pair.a, pair.b
    ends = []
    for end, path in ((a, pair.path_a), (b, pair.path_b)):
        ends.append({'lid': path.slid, 'qpn': end.qp.qp_num,
                     'psn': path.sq_psn, 'rkey': end.mr.rkey,
                     'vaddr': end.mr.buf, 'gid': path.sgid})
    link = ('Ethernet' if a.link_layer == e.IBV_LINK_LAYER_ETHERNET
            else 'IB')
    return {'device': a.name, 'peer': b.name,
            'tx_depth': pair.cfg.tx_depth, 'cq_mod': pair.cfg.cq_mod,
            'mtu': 128 << pair.path_a.mtu, 'link': link,
            'gid_index': pair.path_a.sgid_index,
            'rd_atomic': pair.path_a.max_rd_atomic, 'ends': ends}


def run(args: argparse.Namespace) -> int:
    from pyverbs.cli import _bench_report as report
    err = _check_args(args)
    if err:
        return _fail(err)
    if args.plot:
        try:                            # fail now, not after the run
            report.load_pyplot()
        except ImportError as exc:
            return _fail(str(exc))
    todo = plan(args)
    devs = _pick_devices(args)
    if devs is None:
        return 1
    from pyverbs.cli import _bench_engine as engine
    from pyverbs.pyverbs_error import PyverbsError
    biggest = max(s for _, _, sizes, _ in todo for s in sizes)
    mtu = None if args.mtu is None else MTUS.index(args.mtu) + 1
    cfg = engine.Config(ib_dev=devs[0], peer_dev=devs[1],
                        ib_port=args.ib_port, gid_index=args.gid_index,
                        max_size=biggest, tx_depth=args.tx_depth,
                        rx_depth=args.rx_depth, cq_mod=args.cq_mod, mtu=mtu,
                        stall=args.stall, qp_timeout=args.qp_timeout)
    total = sum(len(sizes) * iters for _, _, sizes, iters in todo)
    bar = report.Progress(total, enabled=args.progress)
    results: list[Row] = []
    try:
        if args.server:
            info = _serve(args, cfg, results)
        elif args.connect:
            info = _client(args, cfg, todo, bar, results)
        else:
            info = _in_process(cfg, todo, bar, results)
    except (engine.BenchError, PyverbsError, ValueError, OSError) as exc:
        bar.clear()
        return _fail(str(exc))
    except KeyboardInterrupt:
        bar.clear()
        _fail('interrupted')
        return 130
    bar.clear()
    return _save(args, cfg, info, results)


def _save(args: argparse.Namespace, cfg: Config, info: Info,
          results: list[Row]) -> int:
    from pyverbs.cli import _bench_report as report
    meta = {'device': info['device'], 'peer': info['peer'],
            'port': cfg.ib_port, 'tx_depth': info['tx_depth'],
            'cq_mod': info['cq_mod'], 'mtu': info['mtu'],
            'gid_index': info['gid_index']}
    if args.json:
        try:
            report.write_json(args.json, meta, results)
        except OSError as exc:
            return _fail(f'cannot write {args.json}: {exc}')
    if args.plot and results:
        try:
            report.plot(args.plot, results,
                        f'pyverbs bench: {info["device"]} -> '
                        f'{info["peer"]}')
        except (OSError, ValueError) as exc:
            return _fail(f'cannot write {args.plot}: {exc}')
    return 0


def _in_process(cfg: Config, todo: list[Step], bar: Progress,
                results: list[Row]) -> Info:
    from pyverbs.cli import _bench_engine as engine
    from pyverbs.cli import _bench_report as report

    def measure(test: str, mode: str, size: int, iters: int,
                tick: Tick) -> Row:
        if mode == 'bw':
            start, samples = engine.run_bw(pair, test, size, iters, tick)
            return report.bw_result(test, size, iters, start, samples,
                                    cfg.tx_depth)
        times = engine.run_lat(pair, test, size, iters, tick)
        return report.lat_result(test, size, times)

    with engine.Pair(cfg) as pair:
        info = _info(pair)
        for test, mode, sizes, iters in todo:
            _run_table(measure, test, mode, sizes, iters, info, bar,
                       results)
    return info


def _client(args: argparse.Namespace, cfg: Config, todo: list[Step],
            bar: Progress, results: list[Row]) -> Info:
    from pyverbs.cli import _bench_tcp as tcp
    ch, end, remote, info = tcp.connect(args.connect, args.port, cfg, todo,
                                        timeout=args.stall)
    try:
        def measure(test: str, mode: str, size: int, iters: int,
                    tick: Tick) -> Row:
            return tcp.client_run(ch, end, remote, test, mode, size, iters,
                                  tick)
        for test, mode, sizes, iters in todo:
            ch.send('table', test=test, mode=mode)
            _run_table(measure, test, mode, sizes, iters, info, bar,
                       results)
        ch.send('bye')
    except BaseException as exc:
        _tell(ch, exc)
        raise
    finally:
        end.close()
        ch.close()
    return info


def _serve(args: argparse.Namespace, cfg: Config,
           results: list[Row]) -> Info:
    """The server side: print the tables as the client drives them."""
    from pyverbs.cli import _bench_report as report
    from pyverbs.cli import _bench_tcp as tcp
    print(f'pyverbs bench: waiting for a client on port {args.port}',
          file=sys.stderr, flush=True)
    ch = tcp.listen(args.port)
    state: _ServeState = {'open': False, 'info': None}

    def show(kind: str, *what: Any) -> None:
        if kind == 'table':
            test, mode, info = what
            state['info'] = info
            if state['open']:
                print(report.SEPARATOR)
            print('\n'.join(report.banner(test, mode, info)))
            print('\n'.join(report.table_header(mode)), flush=True)
            state['open'] = True
        else:
            results.append(what[0])
            print(report.format_row(what[0]), flush=True)
    try:
        tcp.serve(ch, cfg, list(dict.fromkeys(args.tests)), show)
    except BaseException as exc:
        _tell(ch, exc)
        raise
    finally:
        if state['open']:
            print(report.SEPARATOR, flush=True)
        ch.close()
    if state['info'] is None:
        raise ValueError('the client ran nothing')
    return state['info']


def _tell(ch: Channel, exc: BaseException) -> None:
    """Pass a failure on to the peer (best effort: it may be gone)."""
    try:
        ch.send('error', message=str(exc) or type(exc).__name__)
    except OSError:
        pass


def _run_table(measure: _Measure, test: str, mode: str, sizes: list[int],
               iters: int, info: Info, bar: Progress,
               results: list[Row]) -> None:
    from pyverbs.cli import _bench_report as report
    bar.clear()
    print('\n'.join(report.banner(test, mode, info)))
    print('\n'.join(report.table_header(mode)), flush=True)
    for size in sizes:
        bar.begin(f'{test} {mode} {size} B')
        r = measure(test, mode, size, iters, bar.update)
        bar.finish_run(iters)
        results.append(r)
        bar.clear()
        print(report.format_row(r), flush=True)
    print(report.SEPARATOR, flush=True)
