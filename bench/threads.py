#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Thread scaling: N threads, each with its own RC QP/CQ pair from --dev to
--peer (rxe0 -> rxe1), each moving 64-byte RDMA WRITEs (16 outstanding,
every WR signalled) for --seconds; prints the aggregate rate for each N.

    tools/rxe-vm run -- python3 bench/threads.py [--threads 1,2,4]
    tools/rxe-vm run -- python3 bench/threads.py --compare

The worker uses only API that upstream pyverbs has too, so --compare runs
the same script twice under --ref-python (/usr/bin/python3): with this
checkout's src/ and with Debian's python3-pyverbs (as bench/compare.py
does), and prints both, with the ratio.  A binding that holds the GIL
through post_send and poll serialises the threads' calls; pyverbs-c
releases it around a post whose provider call is slow (on rxe, post_send
enters the kernel; the first posts are timed, see README "Threads"), so the
others run meanwhile.  Under software emulation with few
cores, read the ratios, not the absolute numbers.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

WINDOW = 16


def worker(dev, peer, start, stop, out, k):
    import pyverbs.enums as e
    from bench import Side, connect
    from pyverbs.wr import SGE, SendWR
    a, b = Side(dev, depth=64), Side(peer, depth=64)
    try:
        connect(a.qp, a.gid_index, b.gid, b.qp.qp_num)
        connect(b.qp, b.gid_index, a.gid, a.qp.qp_num)
        wrs = []
        for i in range(WINDOW):
            wr = SendWR(wr_id=i, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                        sg=[SGE(a.mr.buf, 64, a.mr.lkey)],
                        send_flags=e.IBV_SEND_SIGNALED)
            wr.set_wr_rdma(b.mr.rkey, b.mr.buf)
            wrs.append(wr)
        post, poll = a.qp.post_send, a.cq.poll
        start.wait()
        done = outstanding = i = 0
        while not stop.is_set():
            while outstanding < WINDOW:
                post(wrs[i])
                i = (i + 1) % WINDOW
                outstanding += 1
            n, wcs = poll(WINDOW)
            for wc in wcs[:n]:
                if wc.status:
                    raise SystemExit(f'thread {k}: WC status {wc.status}')
            done += n
            outstanding -= n
        # drain what is in flight, so the contexts close cleanly
        end = time.monotonic() + 30
        while outstanding and time.monotonic() < end:
            n, _ = poll(WINDOW)
            outstanding -= n
        out[k] = done
        if k == 0 and hasattr(a.qp, '_post_probe'):
            # pyverbs-c: how long the provider's post took, and whether
            # posts release the GIL (struct pv_post_probe)
            (_, send_ns, send_slow), (_, recv_ns, _) = a.qp._post_probe
            print(f'post_send: fastest of the first posts {send_ns} ns, '
                  f'GIL released: {bool(send_slow)}', file=sys.stderr)
    finally:
        a.close()
        b.close()


def measure(dev, peer, nthreads, seconds):
    start, stop = threading.Barrier(nthreads + 1), threading.Event()
    out = [0] * nthreads
    threads = [threading.Thread(target=worker,
                                args=(dev, peer, start, stop, out, k))
               for k in range(nthreads)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    elapsed = time.perf_counter() - t0
    for t in threads:
        t.join()
    return sum(out) / elapsed


def reference_env(ref_path):
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    if ref_path:
        env['PYTHONPATH'] = ref_path
    return env


def main():
    from compare import reference_path
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dev', default='rxe0')
    ap.add_argument('--peer', default='rxe1')
    ap.add_argument('--threads', default='1,2,4')
    ap.add_argument('--seconds', type=float, default=3.0)
    ap.add_argument('--json', action='store_true',
                    help='print one JSON object {N: msg/s}')
    ap.add_argument('--compare', action='store_true',
                    help='run pyverbs-c (src/) and the reference, both under --ref-python; table')
    ap.add_argument('--ref-python', default='/usr/bin/python3')
    ap.add_argument('--ref-path', default=reference_path())
    args = ap.parse_args()
    counts = [int(n) for n in args.threads.split(',')]
    if not args.compare:
        res = {n: measure(args.dev, args.peer, n, args.seconds)
               for n in counts}
        if args.json:
            print(json.dumps(res))
        else:
            for n, r in res.items():
                print(f'{n} thread(s): {r:12,.0f} writes/s')
        return
    common = ['--dev', args.dev, '--peer', args.peer, '--threads',
              args.threads, '--seconds', str(args.seconds), '--json']
    runs = {}
    # both on the same interpreter: ours from this checkout's src/ (the
    # extension as tools/build-inplace leaves it there)
    ours_env = reference_env(os.path.join(os.path.dirname(HERE), 'src'))
    for name, py, env in (('pyverbs-c', args.ref_python, ours_env),
                          ('reference', args.ref_python,
                           reference_env(args.ref_path))):
        p = subprocess.run([py, os.path.abspath(__file__)] + common,
                           capture_output=True, text=True, env=env)
        if p.returncode:
            sys.exit(f'{name} failed (exit {p.returncode}):\n'
                     f'{p.stderr[-3000:]}')
        sys.stderr.write(''.join(sorted(set(
            line + '\n' for line in p.stderr.splitlines()
            if line.startswith('post_send:')))))
        runs[name] = json.loads(p.stdout.strip().splitlines()[-1])
    ours, ref = runs['pyverbs-c'], runs['reference']
    print(f"{'threads':>7} {'pyverbs-c':>12} {'reference':>12} "
          f"{'ours/ref':>9} {'ours xN=1':>10} {'ref xN=1':>9}")
    o1, r1 = ours[str(counts[0])], ref[str(counts[0])]
    for n in counts:
        o, r = ours[str(n)], ref[str(n)]
        print(f'{n:7d} {o:12,.0f} {r:12,.0f} {o / r:9.2f} '
              f'{o / o1:10.2f} {r / r1:9.2f}')


if __name__ == '__main__':
    main()
