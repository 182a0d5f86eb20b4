# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What ``pyverbs bench`` prints and draws: perftest's table layout, the
statistics behind its columns, a progress bar on stderr, the JSON file
and the plot.

Results are plain dicts, one per (test, mode, size):

    {'test': 'write', 'mode': 'bw', 'size': 4096, 'iters': 5000,
     'bw_peak': MB/s, 'bw_avg': MB/s, 'msg_rate': Mpps}
    {'test': 'write', 'mode': 'lat', 'size': 2, 'iters': 1000,
     't_min': .., 't_max': .., 't_typical': .., 't_avg': .., 't_stdev': ..,
     'p99': .., 'p999': ..}                       (microseconds)

MB is 2**20 bytes, as in perftest's MB/sec.
"""
import json
import math
import sys
import time
from collections.abc import Sequence
from types import ModuleType
from typing import Any, TextIO

# A result row (the dicts above) and the run's description (banner()'s
# info): JSON data, as they travel between the two processes.
Row = dict[str, Any]
Info = dict[str, Any]

MB = 1 << 20
SEPARATOR = '-' * 87
# perftest 4.5's column headers and row layouts (tabs included), so that
# tools that parse its output parse ours
BW_HEADER = (' #bytes     #iterations    BW peak[MB/sec]    '
             'BW average[MB/sec]   MsgRate[Mpps]')
BW_ROW = ' %-7d    %-10d       %-7.2f            %-7.2f\t\t   %-7.6f'
LAT_HEADER = (' #bytes #iterations    t_min[usec]    t_max[usec]  '
              't_typical[usec]    t_avg[usec]    t_stdev[usec]   '
              '99% percentile[usec]   99.9% percentile[usec] ')
LAT_ROW = (' %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       '
           '%-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f')
TITLES = {('write', 'bw'): 'RDMA_Write BW Test',
          ('read', 'bw'): 'RDMA_Read BW Test',
          ('send', 'bw'): 'Send BW Test',
          ('write', 'lat'): 'RDMA_Write Latency Test',
          ('read', 'lat'): 'RDMA_Read Latency Test',
          ('send', 'lat'): 'Send Latency Test'}
PLOT_HINT = ('--plot needs matplotlib, which is not installed: '
             'pip install pyverbs-c[plot]')


# ---- numbers ----

def bw_result(test: str, size: int, iters: int, start: float,
              samples: Sequence[tuple[float, int]], window: int) -> Row:
    """The bandwidth row of a run: samples are (time, messages done) from
    its start; the peak is the best rate over any stretch of at least
    `window` messages (the whole run if it is shorter)."""
    end, done = samples[-1]
    elapsed = max(end - start, 1e-9)
    window = max(1, min(window, done))
    best = done / elapsed
    j0 = 0
    for t, n in samples:
        # the latest earlier sample still `window` messages behind
        while j0 + 1 < len(samples) and samples[j0 + 1][1] <= n - window:
            j0 += 1
        t0, n0 = samples[j0]
        if n - n0 >= window and t > t0:
            best = max(best, (n - n0) / (t - t0))
    return {'test': test, 'mode': 'bw', 'size': size, 'iters': iters,
            'bw_peak': best * size / MB, 'bw_avg': done * size / elapsed / MB,
            'msg_rate': done / elapsed / 1e6}


def _percentile(ordered: Sequence[float], q: float) -> float:
    """The smallest value with at least q of all values at or below it."""
    k = max(0, math.ceil(q * len(ordered)) - 1)
    return ordered[min(k, len(ordered) - 1)]


def lat_result(test: str, size: int, times_ns: Sequence[int]) -> Row:
    """The latency row of a run from its per-message times."""
    us = sorted(t / 1000.0 for t in times_ns)
    n = len(us)
    avg = sum(us) / n
    var = sum((x - avg) ** 2 for x in us) / n
    return {'test': test, 'mode': 'lat', 'size': size, 'iters': n,
            't_min': us[0], 't_max': us[-1], 't_typical': us[n // 2],
            't_avg': avg, 't_stdev': math.sqrt(var),
            'p99': _percentile(us, 0.99), 'p999': _percentile(us, 0.999)}


# ---- the table ----

def table_header(mode: str) -> list[str]:
    return [SEPARATOR, BW_HEADER if mode == 'bw' else LAT_HEADER]


def format_row(r: Row) -> str:
    if r['mode'] == 'bw':
        return BW_ROW % (r['size'], r['iters'], r['bw_peak'], r['bw_avg'],
                         r['msg_rate'])
    return LAT_ROW % (r['size'], r['iters'], r['t_min'], r['t_max'],
                      r['t_typical'], r['t_avg'], r['t_stdev'], r['p99'],
                      r['p999'])


def format_table(results: Sequence[Row]) -> list[str]:
    """Header, one row per result (all of one mode), closing separator."""
    lines = table_header(results[0]['mode'])
    lines += [format_row(r) for r in results]
    lines.append(SEPARATOR)
    return lines


def _gid_bytes(gid: str | None) -> str:
    """perftest's GID line: the 16 bytes in decimal, two digits each."""
    import ipaddress
    raw = ipaddress.IPv6Address(gid).packed if gid else bytes(16)
    return ':'.join('%02d' % x for x in raw)


def banner(test: str, mode: str, info: Info) -> list[str]:
    """The block above a table: what is measured and how (perftest's
    fields where they apply), then both ends' addresses.  info: dict with
    device, peer, tx_depth, cq_mod, mtu, link, gid_index, rd_atomic and
    ends: a list of two dicts (qpn, psn, rkey, vaddr, gid)."""
    left = [f' Device          : {info["device"]}',
            ' Number of qps   : 1',
            ' Connection type : RC']
    right = [f'Peer device    : {info["peer"]}',
             'Transport type : IB',
             'Using SRQ      : OFF']
    lines = [SEPARATOR, ' ' * 20 + TITLES[test, mode]]
    lines += [f'{lft}\t\t{rgt}' for lft, rgt in zip(left, right)]
    lines.append(' ibv_wr* API     : OFF')
    depth = info['tx_depth'] if mode == 'bw' else 1
    lines.append(f' TX depth        : {depth}')
    if mode == 'bw':
        lines.append(f' CQ Moderation   : {info["cq_mod"]}')
    lines += [f' Mtu             : {info["mtu"]}[B]',
              f' Link type       : {info["link"]}',
              f' GID index       : {info["gid_index"]}']
    if test == 'read':
        lines.append(f' Outstand reads  : {info["rd_atomic"]}')
    else:
        lines.append(' Max inline data : 0[B]')
    lines += [' rdma_cm QPs\t : OFF',
              ' Data ex. method : in process (pyverbs)', SEPARATOR]
    for label, end in zip(('local', 'remote'), info['ends']):
        lines.append(f' {label} address: LID {end["lid"]:04x} QPN '
                     f'0x{end["qpn"]:04x} PSN 0x{end["psn"]:06x} RKey '
                     f'0x{end["rkey"]:06x} VAddr 0x{end["vaddr"]:014x}')
        lines.append(f' GID: {_gid_bytes(end["gid"])}')
    return lines


# ---- progress on stderr ----

class Progress:
    """A one-line bar on a terminal, redrawn at most 10 times a second.
    It writes only to its own stream (stderr) and wipes its line before
    anything else is printed, so stdout's table stays clean even when
    both go to the same terminal."""

    WIDTH = 30

    def __init__(self, total: int, stream: TextIO | None = None,
                 enabled: bool | None = None, delay: float = 1.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:             # auto: only on a terminal, and
            enabled = self.stream.isatty()  # only for runs that last
        else:
            delay = 0.0
        self.enabled = enabled
        self.total = max(1, total)
        self.base = 0                   # messages of the finished runs
        self.label = ''
        self.start = time.monotonic()
        self.show_after = self.start + delay
        self.next_draw = 0.0
        self.drawn = False

    def begin(self, label: str) -> None:
        self.label = label

    def update(self, done_in_run: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now < self.next_draw or now < self.show_after:
            return
        self.next_draw = now + 0.1
        self.draw(self.base + done_in_run)

    def finish_run(self, count: int) -> None:
        self.base += count

    def draw(self, done: int) -> None:
        frac = min(1.0, done / self.total)
        fill = int(frac * self.WIDTH)
        bar = '#' * fill + '.' * (self.WIDTH - fill)
        self.stream.write(f'\r[{bar}] {frac * 100:5.1f}% {self.label}'
                          '\x1b[K')
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        """Wipe the bar's line (before printing, and at the end)."""
        if self.drawn:
            self.stream.write('\r\x1b[K')
            self.stream.flush()
            self.drawn = False


# ---- files ----

def write_json(path: str, meta: dict[str, object],
               results: Sequence[Row]) -> None:
    with open(path, 'w') as f:
        json.dump({'meta': meta, 'results': results}, f, indent=1)
        f.write('\n')


def load_pyplot() -> ModuleType:
    """matplotlib.pyplot on a file-only backend; ImportError with the
    hint to install the extra when matplotlib is missing."""
    # The ignores: matplotlib is an optional extra (plot), and mypy (so
    # stubtest, which analyses this module: it has no stub) must not fail
    # where it is not installed; unused-ignore where it is.
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]
    except ImportError as err:
        raise ImportError(PLOT_HINT) from err
    matplotlib.use('Agg')
    import matplotlib.pyplot  # type: ignore[import-not-found, unused-ignore]
    plt: ModuleType = matplotlib.pyplot
    return plt


def _size_label(value: float, _pos: object = None) -> str:
    """Tick label of a size axis: 2, 512, 4K, 64K, 8M."""
    value = int(round(value))
    for unit, shift in (('M', 20), ('K', 10)):
        if value >= 1 << shift and not value % (1 << shift):
            return f'{value >> shift}{unit}'
    return str(value)


def plot(path: str, results: Sequence[Row],
         title: str = 'pyverbs bench') -> None:
    """Draw bandwidth (MB/s) and latency (usec) against message size
    (log2 axis), one line per test, into an image file."""
    plt = load_pyplot()
    modes = [m for m in ('bw', 'lat') if any(r['mode'] == m
                                             for r in results)]
    if not modes:
        raise ValueError('no results to plot')
    fig, axes = plt.subplots(1, len(modes), figsize=(6 * len(modes), 4.5),
                             squeeze=False)
    colors = {'write': 'tab:blue', 'read': 'tab:orange', 'send': 'tab:green'}
    for ax, mode in zip(axes[0], modes):
        for test in ('write', 'read', 'send'):
            rows = sorted((r for r in results
                           if r['mode'] == mode and r['test'] == test),
                          key=lambda r: r['size'])
            if not rows:
                continue
            sizes = [r['size'] for r in rows]
            c = colors[test]
            if mode == 'bw':
                ax.plot(sizes, [r['bw_avg'] for r in rows], marker='o',
                        color=c, label=f'{test} average')
                ax.plot(sizes, [r['bw_peak'] for r in rows], ls=':',
                        color=c, label=f'{test} peak')
            else:
                ax.plot(sizes, [r['t_typical'] for r in rows], marker='o',
                        color=c, label=f'{test} typical')
                ax.plot(sizes, [r['p99'] for r in rows], ls=':', color=c,
                        label=f'{test} 99%')
        ax.set_xscale('log', base=2)
        ax.xaxis.set_major_formatter(_size_label)
        ax.set_xlabel('message size [bytes]')
        if mode == 'bw':
            ax.set_ylabel('bandwidth [MB/sec]')
            ax.set_title('Bandwidth')
        else:
            ax.set_yscale('log')
            ax.set_ylabel('latency [usec]')
            ax.set_title('Latency')
        ax.grid(True, which='both', alpha=0.3)
        ax.legend(fontsize='small')
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
