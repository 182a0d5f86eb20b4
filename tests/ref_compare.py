# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Run one snippet under pyverbs-c and under the reference, Debian's
python3-pyverbs of rdma-core 44 (run only by /usr/bin/python3 with the
unpacked package on its PYTHONPATH, as tools/fetch-reference leaves it), and
return both outputs for comparison.

The snippet calls show(label, fn): it prints the label and 'ok <repr>' (with
addresses replaced by 0xADDR) or the exception's class name, so that the two
implementations can be compared line by line on outcomes, whatever the
wording of their messages.
"""
import os
import subprocess
import sys

import pytest

REFERENCE_PYTHON = '/usr/bin/python3'

PRELUDE = '''
import re


def show(label, fn):
    try:
        out = 'ok ' + re.sub(r'0x[0-9a-f]+', '0xADDR', repr(fn()))
    except Exception as ex:
        out = type(ex).__name__
    print(label, out, flush=True)

'''


def ours_path():
    """The sys.path entry holding the pyverbs these tests import (installed or
    built in place), for the subprocesses that must run the same one."""
    import pyverbs
    return os.path.dirname(os.path.dirname(os.path.abspath(pyverbs.__file__)))


def reference_path():
    cache = os.environ.get('PYVERBS_VM_CACHE') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
        'pyverbs-c-vm')
    return os.path.join(cache, 'reference/usr/lib/python3/dist-packages')


# what tools/sanitize adds to the environment: for our processes only (the
# reference is not under test, and has bugs ASan would stop it on)
SANITIZER_VARS = ('LD_PRELOAD', 'ASAN_OPTIONS', 'UBSAN_OPTIONS',
                  'PYTHONMALLOC', 'PYVERBS_SANITIZED')


def child_env(pythonpath=None, reference=False):
    """The environment for a child interpreter: this one's without its
    PYTHONPATH (then pythonpath, when given); for a reference child also
    without what tools/sanitize preloads."""
    drop = {'PYTHONPATH'}
    if reference and os.environ.get('PYVERBS_SANITIZED'):
        drop.update(SANITIZER_VARS)
    env = {k: v for k, v in os.environ.items() if k not in drop}
    if pythonpath:
        env['PYTHONPATH'] = pythonpath
    return env


def run_both(code):
    """(our lines, the reference's lines) of PRELUDE + code; skips when the
    reference is not unpacked here."""
    ref = reference_path()
    if not (os.path.exists(REFERENCE_PYTHON) and
            os.path.isdir(os.path.join(ref, 'pyverbs'))):
        pytest.skip('the reference pyverbs is not unpacked '
                    '(tools/fetch-reference)')
    script = PRELUDE + code
    theirs = subprocess.run([REFERENCE_PYTHON, '-c', script],
                            env=child_env(ref, reference=True), cwd='/',
                            capture_output=True, text=True, timeout=120)
    ours = subprocess.run([sys.executable, '-c', script],
                          capture_output=True, text=True, timeout=120)
    assert theirs.returncode == 0, theirs.stderr
    assert ours.returncode == 0, ours.stderr
    return ours.stdout.splitlines(), theirs.stdout.splitlines()
