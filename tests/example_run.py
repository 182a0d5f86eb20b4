# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Running an example of examples/ beside the C tool it imitates: the
example runs under this interpreter with the pyverbs these tests import
first on its path (installed or built in place), so the same test proves
the example with ours and, run under /usr/bin/python3, with the reference."""
import importlib
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example(name):
    """The command line that runs examples/<name>."""
    return [sys.executable, os.path.join(ROOT, 'examples', name)]


def env():
    import pyverbs
    e = dict(os.environ)
    where = os.path.dirname(os.path.dirname(os.path.abspath(
        pyverbs.__file__)))
    e['PYTHONPATH'] = os.pathsep.join(
        [where] + [p for p in e.get('PYTHONPATH', '').split(os.pathsep)
                   if p])
    return e


def need_tool(path, package):
    if not os.access(path, os.X_OK):
        pytest.skip(f'{package} ({os.path.basename(path)}) is not installed')


def run(cmd, timeout=60):
    return subprocess.run(cmd, capture_output=True, text=True, env=env(),
                          timeout=timeout)


def load(name):
    """examples/<name>.py imported as a module (for its helpers)."""
    sys.path.insert(0, os.path.join(ROOT, 'examples'))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)
