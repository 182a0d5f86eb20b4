# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The builds without the optional libraries (meson -Drdmacm=disabled,
-Dmlx5=disabled, -Defa=disabled: what a machine without librdmacm, libmlx5
or libefa gets).  Each compiles with no warning and without the missing
library's headers, links without it, imports, keeps every upstream name
over it importable (each raising an error that names the library and its
packages), and its core verbs and enum constants are the full build's."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from pyverbs import _verbs
from test_imports import _WITHOUT_LIBRARY

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# library -> (meson option, the headers only it brings)
OPTIONAL = {'librdmacm': ('rdmacm', ('rdma/rdma_cma.h', 'rdma/rdma_verbs.h')),
            'libmlx5': ('mlx5', ()),
            'libefa': ('efa', ())}
# The build's view of the host, printed as JSON: the device list (core
# verbs), the enum tables and the librdmacm enum constants, what the
# rdma_cm-only entry points do.
_FACTS = r'''
import asyncio, json
from pyverbs import _verbs
from pyverbs.device import get_device_list
import pyverbs.cm_enums as ce
import pyverbs.librdmacm_enums as lce
import pyverbs.aio as aio
import pyverbs.cmid as cmid
from pyverbs.pyverbs_error import PyverbsUserError

def err(f, *args):
    try:
        r = f(*args)
        if asyncio.iscoroutine(r):
            r.close()
        return None
    except PyverbsUserError as ex:
        return str(ex)

print(json.dumps({
    'devices': sorted(d.name.decode() for d in get_device_list()),
    'tables': _verbs._enum_tables,
    'cm_enums': {n: int(v) for n, v in vars(ce).items()
                 if n.isupper() and isinstance(v, int)},
    'librdmacm_enums': {n: int(v) for n, v in vars(lce).items()
                        if n.isupper() and isinstance(v, int)},
    'get_cm_event': err(aio.get_cm_event, None),
    'cm_all': sorted(cmid.__all__),
}))
'''


def _build(tmp_path, *options):
    """A fresh build of the checkout with options; fails on any compiler
    warning."""
    meson = shutil.which('meson')
    if not meson or not shutil.which('ninja'):
        pytest.skip('meson and ninja are needed (pip install .[test])')
    build = tmp_path / 'build'
    # for the interpreter running the tests (a free-threaded one too), not
    # the python3 meson would find
    native = tmp_path / 'native.ini'
    native.write_text("[binaries]\npython = '%s'\n" % sys.executable)
    subprocess.run([meson, 'setup', str(build), ROOT, *options,
                    '--native-file', str(native),
                    '-Dbuildtype=debugoptimized'],
                   check=True, capture_output=True)
    r = subprocess.run(['ninja', '-C', str(build)], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'warning' not in r.stdout.lower(), r.stdout
    return build


def _site(tmp_path, build):
    """A copy of the checkout's package with the extension of build;
    returns the environment that imports it."""
    pkg = tmp_path / 'site' / 'pyverbs'
    shutil.copytree(os.path.join(ROOT, 'src', 'pyverbs'), pkg,
                    ignore=shutil.ignore_patterns('_verbs*.so',
                                                  '__pycache__'))
    for so in build.glob('_verbs*.so'):
        shutil.copy(so, pkg)
    return dict(os.environ, PYTHONPATH=str(tmp_path / 'site'))


def _python(tmp_path, env, code, *args):
    r = subprocess.run([sys.executable, '-c', code, *args],
                       capture_output=True, text=True, timeout=120, env=env,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _headers_used(build):
    """The headers the compiler read for the build's objects (ninja's
    record of the dependency files)."""
    out = subprocess.run(['ninja', '-C', str(build), '-t', 'deps'],
                         check=True, capture_output=True, text=True).stdout
    return {line.strip() for line in out.splitlines()
            if line.startswith(' ')}


def _needed(build):
    if not shutil.which('readelf'):
        return None
    so = next(build.glob('_verbs*.so'))
    out = subprocess.run(['readelf', '-d', str(so)], check=True,
                         capture_output=True, text=True).stdout
    return re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', out)


def _full_facts(tmp_path):
    """The facts of the build under test (the checkout's), which must have
    all three libraries to compare with."""
    for flag in ('_HAVE_RDMACM', '_HAVE_MLX5', '_HAVE_EFA'):
        if not getattr(_verbs, flag, 0):
            pytest.skip(f'the checkout\'s build lacks {flag[6:].lower()}: '
                        'nothing to compare with')
    # the pyverbs under test (built in place or installed)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(
        os.path.dirname(os.path.abspath(_verbs.__file__))))
    return _python(tmp_path, env, _FACTS)


def _check_without(tmp_path, libs):
    options = [f'-D{OPTIONAL[lib][0]}=disabled' for lib in libs]
    build = _build(tmp_path, *options)
    # no header of a missing library was read
    used = _headers_used(build)
    assert any(h.endswith('infiniband/verbs.h') for h in used), \
        'ninja recorded no header dependencies'
    for lib in libs:
        for h in OPTIONAL[lib][1]:
            assert not [u for u in used if u.endswith(h)], (lib, h)
    needed = _needed(build)
    if needed is not None:
        assert 'libibverbs.so.1' in needed
        for lib in libs:
            assert f'{lib}.so.1' not in needed, needed
    env = _site(tmp_path, build)
    count = _python(tmp_path, env, _WITHOUT_LIBRARY, *libs)
    if 'librdmacm' in libs:
        # 7 classes of pyverbs.cmid, rdma_get_devices, aio.get_cm_event
        assert count['librdmacm'] == 9
    if 'libmlx5' in libs and 'libefa' in libs:
        assert count['libmlx5'] + count['libefa'] >= 90
    facts = _python(tmp_path, env, _FACTS)
    full = _full_facts(tmp_path)
    # the core verbs see what the full build sees
    assert facts['devices'] == full['devices']
    # the enum constants, librdmacm's included, are the full build's
    assert facts['tables'] == full['tables']
    assert facts['cm_enums'] == full['cm_enums']
    assert facts['librdmacm_enums'] == full['librdmacm_enums']
    assert full['cm_enums']['RDMA_PS_TCP'] == 0x106
    assert facts['cm_all'] == full['cm_all']
    if 'librdmacm' in libs:
        assert 'get_cm_event needs librdmacm' in facts['get_cm_event']


def test_build_with_what_is_found_has_no_warning(tmp_path):
    _build(tmp_path)


def test_build_without_rdmacm(tmp_path):
    _check_without(tmp_path, ['librdmacm'])


def test_build_without_any_optional_library(tmp_path):
    _check_without(tmp_path, ['librdmacm', 'libmlx5', 'libefa'])
