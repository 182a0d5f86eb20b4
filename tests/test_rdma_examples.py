# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The examples of python-rdma's verbs documentation
(examples/python_rdma/*.py, in Python 3 with local RoCE path resolution
in place of the SA) run between the first two devices (rxe0 and rxe1 in
the VM); each moves real data and checks it, printing 'ok:' lines."""
import os
import subprocess
import sys

import pytest

import example_run

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(os.path.dirname(HERE), 'examples', 'python_rdma')

# script -> the 'ok:' lines it prints when every check passed
SCRIPTS = {'basic.py': 2, 'ud.py': 3, 'rc_nocm.py': 2, 'wc_error.py': 2,
           'comp_channel.py': 2, 'memory.py': 4, 'buffer_pool.py': 1}


def test_every_example_is_listed():
    found = {f for f in os.listdir(EXAMPLES)
             if f.endswith('.py') and f != 'common.py'}
    assert found == set(SCRIPTS)


@pytest.mark.device
@pytest.mark.parametrize('script', sorted(SCRIPTS))
def test_example(script, dev_names):
    a, b = dev_names[0], dev_names[-1]
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, script),
                        '--a', a, '--b', b], capture_output=True, text=True,
                       env=example_run.env(), timeout=300, cwd=EXAMPLES)
    assert r.returncode == 0, r.stdout + r.stderr
    oks = [ln for ln in r.stdout.splitlines() if ln.startswith('ok:')]
    assert len(oks) == SCRIPTS[script], r.stdout
