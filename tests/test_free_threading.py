# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Free-threaded CPython: importing pyverbs leaves the GIL off, and objects
shared by threads that run truly in parallel stay consistent.

The tests of shared objects run on every interpreter (with the GIL they
interleave less); the device ones are in test_threads.py."""
import subprocess
import sys
import sysconfig
import threading

import pytest

from pyverbs import mem_alloc
from pyverbs.pyverbs_error import PyverbsUserError
from pyverbs.wr import SGE, SendWR

FREE_THREADED = bool(sysconfig.get_config_var('Py_GIL_DISABLED'))
MODULES = ('pyverbs', 'pyverbs.device', 'pyverbs.pd', 'pyverbs.mr',
           'pyverbs.cq', 'pyverbs.qp', 'pyverbs.wr', 'pyverbs.srq',
           'pyverbs.cmid', 'pyverbs.mem_alloc', 'pyverbs.aio', 'rdma')


@pytest.mark.skipif(not FREE_THREADED, reason='a build with the GIL: '
                    'nothing to turn off')
def test_import_leaves_the_gil_off():
    """Every module imports without turning the GIL on (the extension
    declares Py_MOD_GIL_NOT_USED) and without the warning the interpreter
    prints when it does."""
    code = ('import importlib, sys\n'
            f'for m in {MODULES!r}:\n'
            '    importlib.import_module(m)\n'
            'print(sys._is_gil_enabled())\n')
    r = subprocess.run([sys.executable, '-W', 'error::RuntimeWarning', '-c',
                        code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == 'False'
    assert 'global interpreter lock' not in r.stderr


def run_threads(n, target):
    errors = []

    def wrap(k):
        try:
            target(k)
        except BaseException as ex:    # pragma: no cover - reported below
            errors.append(ex)

    threads = [threading.Thread(target=wrap, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors


def test_work_request_shared_by_threads():
    """Four threads set one SendWR's SGEs (its SGE storage grows past the
    inline slots and shrinks), read them back, print and copy it, all at
    once: every list read is whole (1 to 5 SGEs, each one thread's), and
    nothing crashes."""
    wr = SendWR(num_sge=1, sg=[SGE(0x1000, 8, 1)])

    def work(k):
        for i in range(2000):
            n = 1 + (i + k) % 5
            wr.sg_list = [SGE(0x10000 * (k + 1) + j, 8, j) for j in range(n)]
            got = wr.sg_list
            assert 1 <= len(got) <= 5
            owners = {s.addr >> 16 for s in got}
            assert len(owners) == 1, got
            assert [s.lkey for s in got] == list(range(len(got)))
            str(wr)
            wr.num_sge = 1

    run_threads(4, work)
    assert wr.num_sge == 1 and len(wr.sg_list) == 1


def test_free_of_one_block_by_many_threads():
    """Eight threads free the same mem_alloc block at once, again and
    again: exactly one free() succeeds each time, the others get
    PyverbsUserError (never a double free)."""
    for _ in range(200):
        addr = mem_alloc.malloc(64)
        wins = []
        barrier = threading.Barrier(8)

        def free(k):
            barrier.wait()
            try:
                mem_alloc.free(addr)
                wins.append(k)
            except PyverbsUserError:
                pass

        run_threads(8, free)
        assert len(wins) == 1
