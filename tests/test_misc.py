# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""_native/misc.c: pyverbs.fork, and the constants of pyverbs.mem_alloc."""
import inspect
import os
import subprocess
import sys

import pytest

import pyverbs
import pyverbs.enums as e
from pyverbs import _verbs, fork

FORK_STATES = {e.IBV_FORK_DISABLED, e.IBV_FORK_ENABLED, e.IBV_FORK_UNNEEDED}


def test_is_fork_initialized():
    state = fork.is_fork_initialized()
    assert type(state) is int and state in FORK_STATES


_FORK_INIT = r'''
import errno
from pyverbs import fork
from pyverbs.pyverbs_error import PyverbsRDMAError
before = fork.is_fork_initialized()
try:
    fork.fork_init()
    err = 0
except PyverbsRDMAError as ex:
    err = ex.error_code
    assert 'Failed to init fork support' in str(ex), ex
print(before, err, fork.is_fork_initialized())
'''


def test_fork_init():
    # in a child: ibv_fork_init() changes the process for good
    path = os.path.dirname(os.path.dirname(pyverbs.__file__))
    out = subprocess.run([sys.executable, '-c', _FORK_INIT],
                         capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=path))
    assert out.returncode == 0, out.stderr
    before, err, after = map(int, out.stdout.split())
    assert before in FORK_STATES
    if err:
        assert after in (e.IBV_FORK_DISABLED, e.IBV_FORK_UNNEEDED)
    else:
        assert after in (e.IBV_FORK_ENABLED, e.IBV_FORK_UNNEEDED)
    if before == e.IBV_FORK_UNNEEDED:
        assert after == e.IBV_FORK_UNNEEDED


def test_fork_functions_take_no_arguments():
    with pytest.raises(TypeError):
        fork.fork_init(1)
    with pytest.raises(TypeError):
        fork.is_fork_initialized(None)


def test_native_signatures():
    assert str(inspect.signature(_verbs._fork_init)) == '()'
    assert str(inspect.signature(_verbs._is_fork_initialized)) == '()'
