# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""`import pyverbs` where one of rdma-core's runtime libraries cannot be
loaded: an ImportError that names the library and the package to install
(simulated with an unloadable file of that name first on the library
path)."""
import os
import subprocess
import sys

import pytest

import ref_compare


@pytest.mark.parametrize('lib, package', [
    ('libibverbs.so.1', 'libibverbs1'),
    ('librdmacm.so.1', 'librdmacm1'),
    ('libmlx5.so.1', 'ibverbs-providers'),
    ('libefa.so.1', 'ibverbs-providers'),
])
def test_missing_runtime_library_is_named(tmp_path, lib, package):
    import pyverbs._verbs as v
    needed = subprocess.run(['ldd', v.__file__], capture_output=True,
                            text=True).stdout
    if lib not in needed:
        pytest.skip(f'this build does not link {lib}')
    (tmp_path / lib).write_bytes(b'not a shared object')
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path),
               PYTHONPATH=ref_compare.ours_path())
    r = subprocess.run([sys.executable, '-c', 'import pyverbs'], env=env,
                       capture_output=True, text=True, timeout=60,
                       cwd=str(tmp_path))
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith('ImportError: pyverbs needs rdma-core\'s ' + lib)
    assert f'apt install {package}' in last


def test_import_works():
    r = subprocess.run([sys.executable, '-c', 'import pyverbs.device'],
                       env=dict(os.environ,
                                PYTHONPATH=ref_compare.ours_path()),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
