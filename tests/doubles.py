# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Building and running under the recording doubles of tests/fakes/
(mlx5_double.c, efa_double.c): LD_PRELOAD libraries that make rxe look like
an mlx5 or efa device for the provider entry points under test, and log
every call they receive."""
import os
import shutil
import subprocess
import sys

import pytest

import ref_compare

HERE = os.path.dirname(os.path.abspath(__file__))
FAKES = os.path.join(HERE, 'fakes')


def rdma_core_version():
    """The rdma-core release of the headers the doubles are built against
    (pkg-config's libibverbs version 1.14.44.0 is rdma-core 44): the
    doubles define the entry points newer than 44 only when it has them."""
    try:
        v = subprocess.run(['pkg-config', '--modversion', 'libibverbs'],
                           capture_output=True, text=True,
                           check=True).stdout.split('.')
        return int(v[2])
    except (OSError, subprocess.CalledProcessError, IndexError, ValueError):
        return 44


def build(tmp_path_factory, name):
    """tests/fakes/<name>.c linked with its version script <name>.map;
    the path of the shared object (skips without a C compiler)."""
    cc = shutil.which('cc') or shutil.which('gcc')
    if not cc:
        pytest.skip('a C compiler is needed to build the test double')
    out = str(tmp_path_factory.mktemp('pvfake') / f'lib{name}.so')
    subprocess.run([cc, '-shared', '-fPIC', '-O1', '-Wall',
                    f'-DPVFAKE_RDMA={rdma_core_version()}',
                    '-Wl,--version-script=' + os.path.join(
                        FAKES, name + '.map'),
                    '-o', out, os.path.join(FAKES, name + '.c'),
                    '-libverbs', '-ldl'], check=True)
    return out


def run(double, devices_var, dev, args, tmp_path, python=None,
        pythonpath=None, name='log', env=None):
    """Run python args with the double preloaded, faking dev; the completed
    process and the call log.  python/pythonpath pick the implementation
    (default: the pyverbs these tests import)."""
    log = tmp_path / name
    full = ref_compare.child_env(reference=python not in (None,
                                                          sys.executable))
    full.update(env or {})
    full.update({devices_var: dev, 'PVFAKE_LOG': str(log),
                 # after what is preloaded already (tools/sanitize's
                 # runtimes must stay first)
                 'LD_PRELOAD': ' '.join(filter(None, (
                     full.get('LD_PRELOAD'), double))),
                 'PYTHONPATH': pythonpath or ref_compare.ours_path()})
    r = subprocess.run([python or sys.executable] + args, env=full,
                       capture_output=True, text=True, timeout=120,
                       cwd=HERE)
    text = log.read_text() if log.exists() else ''
    return r, text
