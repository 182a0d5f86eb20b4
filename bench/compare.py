#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Run the benchmarks against pyverbs-c, the reference pyverbs and perftest
in one go, and print ratios.  Meant for the Soft-RoCE VM:

    tools/rxe-vm run -- python3 bench/compare.py [--seconds 2]

- ours:      bench/bench.py under this python3 (pyverbs-c installed);
- reference: bench/bench.py under --ref-python (default /usr/bin/python3)
             with Debian's python3-pyverbs (unpacked by tools/fetch-reference,
             else installed);
- C:         perftest's ib_write_bw, 64-byte RDMA WRITEs (its default
             window is 128 outstanding WRs, with a completion every 100).

Absolute numbers under software emulation mean little: read the ratios.
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def reference_path():
    """Debian's python3-pyverbs as tools/fetch-reference unpacks it, if
    there; else '' (the reference installed on the system)."""
    cache = os.environ.get('PYVERBS_VM_CACHE') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
        'pyverbs-c-vm')
    path = os.path.join(cache, 'reference/usr/lib/python3/dist-packages')
    return path if os.path.isdir(os.path.join(path, 'pyverbs')) else ''


def run_bench(python, args, env=None):
    out = subprocess.run([python, os.path.join(HERE, 'bench.py')] + args,
                         capture_output=True, text=True, env=env)
    if out.returncode:
        sys.exit(f'{python} bench/bench.py failed (exit {out.returncode}):'
                 f'\n{out.stderr[-3000:]}')
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_ib_write_bw(iters, dev, peer, extra=()):
    cmd = [os.path.join(ROOT, 'tools', 'ib-write-bw-loopback'), '-q',
           '--size', '64', '--iters', str(iters), '--server-dev', peer,
           '--client-dev', dev]
    if extra:
        cmd += ['--'] + list(extra)
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r'msg_per_s=(\d+)', out.stdout)
    if not m:
        print(out.stdout, out.stderr, file=sys.stderr)
        return None
    return float(m.group(1))


def best(a, b):
    return max(a, b) if a and b else a or b


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seconds', default='2')
    ap.add_argument('--ref-python', default='/usr/bin/python3')
    ap.add_argument('--ref-path', default=reference_path(),
                    help="where the reference pyverbs is unpacked (tools/"
                    "fetch-reference); '' for the interpreter's own")
    ap.add_argument('--dev', default='rxe0')
    ap.add_argument('--peer', default='rxe1')
    ap.add_argument('--ib-iters', type=int, default=20000)
    ap.add_argument('--json', help='also write the results here')
    ap.add_argument('--only', help="bench.py's --only")
    args = ap.parse_args()
    common = ['--seconds', args.seconds, '--dev', args.dev,
              '--peer', args.peer]
    # The reference must not see this checkout or our package.
    ref_env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    if args.ref_path:
        ref_env['PYTHONPATH'] = args.ref_path
    if args.only:
        common += ['--only', args.only]
    # perftest as it comes (128 outstanding, a completion every 100 WRs),
    # and like the Python benchmark (64 outstanding, every WR signalled);
    # each before and after the Python runs, the better of the two kept
    like = ('-t', '64', '-Q', '1')
    ibbw = run_ib_write_bw(args.ib_iters, args.dev, args.peer)
    ibbw64 = run_ib_write_bw(args.ib_iters, args.dev, args.peer, like)
    ours = run_bench(sys.executable, common)
    ref = run_bench(args.ref_python, common, env=ref_env)
    ibbw = best(ibbw, run_ib_write_bw(args.ib_iters, args.dev, args.peer))
    ibbw64 = best(ibbw64, run_ib_write_bw(args.ib_iters, args.dev,
                                          args.peer, like))

    names = [k for k in ours if not k.startswith('_')]
    print(f"{'benchmark':16} {'pyverbs-c':>12} {'reference':>12} "
          f"{'ours/ref':>9} {'ours/C':>8} {'ref/C':>8}")
    for k in names:
        o, r = ours[k], ref.get(k)
        ratio = f'{o / r:9.2f}' if r else f"{'-':>9}"
        vs_c = ref_c = f"{'':>8}"
        if ibbw64 and k.startswith('write64'):
            vs_c = f'{o / ibbw64:8.2f}'
            ref_c = f'{r / ibbw64:8.2f}' if r else f"{'-':>8}"
        print(f'{k:16} {o:12,.0f} {r or 0:12,.0f} {ratio} {vs_c} {ref_c}')
    if ibbw64:
        print(f"{'ib_write_bw -t64':16} {ibbw64:12,.0f}  (perftest, 64 B, "
              f"64 outstanding, every WR signalled: the C column)")
    if ibbw:
        print(f"{'ib_write_bw':16} {ibbw:12,.0f}  (perftest's defaults: 128 "
              f"outstanding, a completion every 100 WRs)")
    print(f"write64_batch posts a list per call with pyverbs-c "
          f"({ours.get('_list_post')}) and a next_wr chain with the "
          f"reference ({ref.get('_list_post')})")
    if args.json:
        with open(args.json, 'w') as f:
            json.dump({'ours': ours, 'reference': ref, 'ib_write_bw': ibbw,
                       'ib_write_bw_t64_q1': ibbw64},
                      f, indent=1)


if __name__ == '__main__':
    main()
