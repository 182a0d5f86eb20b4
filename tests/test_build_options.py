# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The build without the provider libraries (meson -Dmlx5=disabled
-Defa=disabled, what a machine without libmlx5/libefa gets): it compiles
with no warning, and every provider class of upstream stays importable and
raises an error naming the missing library."""
import os
import shutil
import subprocess
import sys

import pytest

from test_imports import _WITHOUT_LIBRARY

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _build(tmp_path, *options):
    """A fresh build of the checkout with options; fails on any compiler
    warning."""
    meson = shutil.which('meson')
    if not meson or not shutil.which('ninja'):
        pytest.skip('meson and ninja are needed (pip install .[test])')
    build = tmp_path / 'build'
    subprocess.run([meson, 'setup', str(build), ROOT, *options,
                    '-Dbuildtype=debugoptimized'],
                   check=True, capture_output=True)
    r = subprocess.run(['ninja', '-C', str(build)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'warning' not in r.stdout.lower(), r.stdout
    return build


def test_build_with_what_is_found_has_no_warning(tmp_path):
    _build(tmp_path)


def test_build_without_providers(tmp_path):
    build = _build(tmp_path, '-Dmlx5=disabled', '-Defa=disabled')
    # the Python package of the checkout with that extension
    pkg = tmp_path / 'site' / 'pyverbs'
    shutil.copytree(os.path.join(ROOT, 'src', 'pyverbs'), pkg,
                    ignore=shutil.ignore_patterns('_verbs*.so',
                                                  '__pycache__'))
    for so in build.glob('_verbs*.so'):
        shutil.copy(so, pkg)
    env = dict(os.environ, PYTHONPATH=str(tmp_path / 'site'))
    r = subprocess.run([sys.executable, '-c', _WITHOUT_LIBRARY],
                       capture_output=True, text=True, timeout=120, env=env,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) >= 90
