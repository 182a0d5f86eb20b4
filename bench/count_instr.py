#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Instructions per operation, counted by callgrind: a number that does not
depend on how loaded the machine is (wall-clock rates under emulation do).

    tools/rxe-vm run -- python3 bench/count_instr.py [--ref-python PY]

For each benchmark, runs a small driver (this file with --driver) under
`valgrind --tool=callgrind` twice, with N and 2N operations, and reports
(instructions(2N) - instructions(N)) / N: the cost of one operation with
start-up and set-up cancelled out.  Does this for this python3 (pyverbs-c)
and for --ref-python (Debian's python3-pyverbs), and prints the ratio.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.abspath(__file__)


def driver(name, n, dev):
    import pyverbs.enums as e
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    from pyverbs.wr import SGE, SendWR
    ctx = Context(name=dev)
    if name == 'poll_empty':
        poll = CQ(ctx, 64).poll
        for _ in range(n):
            poll()
    elif name == 'wr_build':
        mr = MR(PD(ctx), 4096, e.IBV_ACCESS_LOCAL_WRITE)
        buf, lkey = mr.buf, mr.lkey
        op, flags = e.IBV_WR_RDMA_WRITE, e.IBV_SEND_SIGNALED
        for i in range(n):
            SendWR(wr_id=i, opcode=op, num_sge=1, sg=[SGE(buf, 64, lkey)],
                   send_flags=flags)
    elif name == 'loop':
        for _ in range(n):
            pass
    ctx.close()


def count(python, name, n, dev, env):
    out = subprocess.run(['valgrind', '--tool=callgrind',
                          '--callgrind-out-file=/dev/null', python, HERE,
                          '--driver', name, '-n', str(n), '--dev', dev],
                         capture_output=True, text=True, env=env)
    m = re.search(r'Collected : (\d+)', out.stderr)
    if out.returncode or not m:
        sys.exit(f'{python} {name}: callgrind failed:\n{out.stderr[-2000:]}')
    return int(m.group(1))


def per_op(python, name, n, dev, env):
    return (count(python, name, 2 * n, dev, env) -
            count(python, name, n, dev, env)) / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--driver')
    ap.add_argument('-n', type=int, default=20000)
    ap.add_argument('--dev', default='rxe0')
    ap.add_argument('--ref-python', default='/usr/bin/python3')
    ap.add_argument('--only')
    args = ap.parse_args()
    if args.driver:
        return driver(args.driver, args.n, args.dev)
    ref_env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    names = args.only.split(',') if args.only else ['loop', 'poll_empty',
                                                    'wr_build']
    print(f"{'benchmark':12} {'pyverbs-c':>10} {'reference':>10} "
          f"{'ref/ours':>9}   (instructions per operation)")
    for name in names:
        o = per_op(sys.executable, name, args.n, args.dev, None)
        r = per_op(args.ref_python, name, args.n, args.dev, ref_env)
        print(f'{name:12} {o:10.0f} {r:10.0f} {r / o:9.2f}', flush=True)


if __name__ == '__main__':
    main()
