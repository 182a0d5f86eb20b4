# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Import compatibility with rdma-core 44's own test suite.

rdma-core's tests/__init__.py imports every test_*.py at load, and they
import (directly or through tests/utils.py, mlx5_base.py, efa_base.py) a long
list of pyverbs modules and names, provider modules included.  Every one of
them must import on any machine; what is not built yet is a placeholder that
raises PyverbsUserError('... is not implemented ...') when used
(pyverbs._unimplemented).

The names come from rdma_core_v44_imports.txt next to this file, derived
from Debian 12's /usr/share/doc/rdma-core/tests by parse_test_sources()
below (`python3 tests/test_imports.py` rewrites it); a test checks that the
list still matches the installed tests when they are rdma-core 44's.
"""
import ast
import gzip
import importlib
import os
import shutil
import subprocess
import sys

import pytest

from pyverbs.pyverbs_error import PyverbsUserError
from pyverbs._unimplemented import MISSING, is_placeholder
import ref_compare

HERE = os.path.dirname(os.path.abspath(__file__))
LIST = os.path.join(HERE, 'rdma_core_v44_imports.txt')
DOC_TESTS = '/usr/share/doc/rdma-core/tests'

# Modules written on other branches: until they land here, a test about one
# of them skips instead of failing.
PENDING = {'pyverbs.qp', 'pyverbs.cq', 'pyverbs.addr', 'pyverbs.wr',
           'pyverbs.mr', 'pyverbs.device', 'pyverbs.pd'}


def _read_source(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        return f.read()


def parse_test_sources(directory):
    """{(module, name)} that the .py(.gz) files of directory use: name '' for
    `import pyverbs.X`, the imported name for `from pyverbs.X import name`,
    the attribute for `alias.attr` where `import pyverbs.X as alias`."""
    uses = set()
    for fn in sorted(os.listdir(directory)):
        if not (fn.endswith('.py') or fn.endswith('.py.gz')):
            continue
        tree = ast.parse(_read_source(os.path.join(directory, fn)), fn)
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split('.')[0] == 'pyverbs':
                        uses.add((a.name, ''))
                        if a.asname:
                            aliases[a.asname] = a.name
            elif (isinstance(node, ast.ImportFrom) and node.module and
                  node.module.split('.')[0] == 'pyverbs' and not node.level):
                for a in node.names:
                    uses.add((node.module, a.name))
        # `except X as e:` rebinds an alias inside the handler
        shadowed = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and node.name in aliases:
                shadowed |= {(id(n), node.name) for stmt in node.body
                             for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and
                    isinstance(node.value, ast.Name) and
                    node.value.id in aliases and
                    (id(node), node.value.id) not in shadowed):
                uses.add((aliases[node.value.id], node.attr))
    return uses


def _load_list():
    uses = set()
    if not os.path.exists(LIST):        # (being written by __main__)
        return uses
    with open(LIST) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                mod, _, name = line.partition(' ')
                uses.add((mod, name))
    return uses


def _write_list(uses, source):
    with open(LIST, 'w') as f:
        f.write('# pyverbs modules and names used by rdma-core 44\'s tests\n'
                f'# (from {source}; regenerate with '
                '`python3 tests/test_imports.py`).\n'
                '# "<module>" alone: `import <module>`; "<module> <name>": '
                'from-import or alias.name\n')
        for mod, name in sorted(uses):
            f.write(f'{mod} {name}'.rstrip() + '\n')


USES = _load_list()
MODULES = sorted({m for m, _ in USES})


def _import(modname):
    try:
        return importlib.import_module(modname)
    except ModuleNotFoundError as ex:
        if modname in PENDING and ex.name == modname:
            pytest.skip(f'{modname} is not on this branch yet')
        raise


def _installed_tests_are_v44():
    if not os.path.isdir(DOC_TESTS):
        return False
    try:
        out = subprocess.run(['dpkg-query', '-W', '-f', '${Version}',
                              'rdma-core'], capture_output=True, text=True)
    except OSError:
        return False
    return out.returncode == 0 and out.stdout.startswith('44.')


def test_list_matches_installed_rdma_core_tests():
    if not _installed_tests_are_v44():
        pytest.skip(f'{DOC_TESTS} of rdma-core 44 not installed')
    assert parse_test_sources(DOC_TESTS) == USES


def test_list_is_plausible():
    assert ('pyverbs.enums', 'IBV_QPT_RC') in USES
    assert ('pyverbs.providers.mlx5.mlx5dv', 'Mlx5Context') in USES
    assert ('pyverbs.mem_alloc', 'posix_memalign') in USES
    assert len(MODULES) > 30


@pytest.mark.parametrize('modname', MODULES)
def test_module_has_every_name_the_tests_use(modname):
    mod = _import(modname)
    absent = sorted(n for m, n in USES
                    if m == modname and n and not hasattr(mod, n))
    assert not absent, f'{modname} lacks {absent}'


def _placeholders():
    found = []
    for mod, name in sorted(USES):
        if not name:
            continue
        try:
            obj = getattr(importlib.import_module(mod), name, None)
        except ModuleNotFoundError:
            continue
        if is_placeholder(obj):
            found.append((mod, name, obj))
    return found


def test_no_placeholder_left():
    """In a build with librdmacm, libmlx5 and libefa every upstream name the
    tests use is real (a build without them: tests/test_build_options.py)."""
    from pyverbs import _verbs
    from pyverbs._unimplemented import placeholders
    if not (getattr(_verbs, '_HAVE_RDMACM', 0) and
            getattr(_verbs, '_HAVE_MLX5', 0) and
            getattr(_verbs, '_HAVE_EFA', 0)):
        pytest.skip('built without librdmacm, libmlx5 or libefa')
    assert [f'{m}.{n}' for m, n, _ in _placeholders()] == []
    assert {m: n for m, n in placeholders().items() if n} == {}


def test_placeholder_class_attributes_raise_when_called():
    # placeholders made as fill_missing() makes them (the provider classes
    # this test used to take are implemented now)
    from pyverbs._unimplemented import _placeholder_class
    mod = 'pyverbs.providers.mlx5.mlx5dv'
    Mlx5Context = _placeholder_class('Mlx5Context', mod)
    Mlx5QP = _placeholder_class('Mlx5QP', mod)
    with pytest.raises(PyverbsUserError, match='not implemented') as ex:
        Mlx5Context.query_mlx5_port(None, 1)
    assert 'Mlx5Context.query_mlx5_port' in str(ex.value)
    with pytest.raises(PyverbsUserError, match='not implemented'):
        Mlx5QP.modify_lag_port(None, 1)
    assert not hasattr(Mlx5Context, '_private')
    assert not hasattr(Mlx5Context, '__wrapped__')


def test_missing_modules_import():
    for modname in MISSING:
        mod = _try_import(modname)
        if mod is None:
            continue
        for name in MISSING[modname]:
            assert hasattr(mod, name), (modname, name)


def _try_import(modname):
    try:
        return importlib.import_module(modname)
    except ModuleNotFoundError as ex:
        if modname in PENDING and ex.name == modname:
            return None
        raise


def test_mem_alloc_constants_are_real():
    import mmap
    import pyverbs.mem_alloc as mem
    assert mem.PROT_READ_ == mmap.PROT_READ
    assert mem.PROT_WRITE_ == mmap.PROT_WRITE
    assert mem.MAP_PRIVATE_ == mmap.MAP_PRIVATE
    assert mem.MAP_SHARED_ == mmap.MAP_SHARED
    assert mem.MAP_ANONYMOUS_ == mmap.MAP_ANONYMOUS
    for name in ('PROT_EXEC_', 'PROT_NONE_', 'MAP_FIXED_', 'MAP_STACK_',
                 'MAP_LOCKED_', 'MAP_HUGETLB_', 'MAP_POPULATE_',
                 'MAP_NORESERVE_', 'MAP_GROWSDOWN_'):
        assert type(getattr(mem, name)) is int
    assert mem.MAP_HUGETLB_ == 0x40000      # Linux, every architecture


def test_real_constants_of_placeholder_modules():
    import pyverbs.spec as spec
    import pyverbs.providers.mlx5.dr_action as dr_action
    from pyverbs.utils import be64toh
    assert spec.U32_MASK == 0xffffffff
    assert dr_action.ACTION_SIZE == 8
    assert dr_action.be64toh is be64toh


@pytest.fixture
def rdma_core_tests(tmp_path):
    """A copy of rdma-core's tests directory, decompressed."""
    for src in (os.environ.get('RDMA_CORE_TESTS'), DOC_TESTS,
                '/tmp/rdma-tests'):
        if src and os.path.isdir(src):
            break
    else:
        pytest.skip('rdma-core tests not found (Debian: rdma-core package, '
                    f'{DOC_TESTS}; or set RDMA_CORE_TESTS)')
    dst = tmp_path / 'tests'
    dst.mkdir()
    for fn in os.listdir(src):
        path = os.path.join(src, fn)
        if fn.endswith('.gz'):
            (dst / fn[:-3]).write_text(_read_source(path))
        elif os.path.isfile(path):
            shutil.copy(path, dst / fn)
    return dst


_LOAD = r'''
import os, sys
from importlib.machinery import SourceFileLoader
d = sys.argv[1]
sys.path.insert(0, d)
tests = SourceFileLoader('tests', os.path.join(d, '__init__.py')).load_module()
print(len(tests.__test_modules__))
'''


def test_rdma_core_test_suite_imports(rdma_core_tests):
    for modname in PENDING:
        _import(modname)
    import pyverbs
    env = dict(os.environ, PYTHONPATH=os.path.dirname(
        os.path.dirname(os.path.abspath(pyverbs.__file__))))
    out = subprocess.run([sys.executable, '-c', _LOAD, str(rdma_core_tests)],
                         capture_output=True, text=True, env=env,
                         cwd=str(rdma_core_tests.parent))
    assert out.returncode == 0, out.stderr[-3000:]
    n = sum(1 for f in os.listdir(rdma_core_tests)
            if f.startswith('test_') and f.endswith('.py'))
    assert int(out.stdout.split()[-1]) == n


# ------------------------------------------- Debian's python3-pyverbs (44)

_REF_NAMES = r'''
import importlib, inspect, json, sys
out = {}
for m in sys.argv[1:]:
    mod = importlib.import_module(m)
    out[m] = sorted(
        n for n in dir(mod) if not n.startswith('_') and
        (inspect.isclass(getattr(mod, n)) or callable(getattr(mod, n))) and
        getattr(getattr(mod, n), '__module__', None) == m)
print(json.dumps(out))
'''


def test_every_upstream_class_and_function_exists():
    """Every class and function upstream 44 defines in each module (from
    Debian's python3-pyverbs, when installed) exists here."""
    py = '/usr/bin/python3'
    mods = sorted(set(MISSING) | {'pyverbs.utils', 'pyverbs.fork',
                                  'pyverbs.base'})
    env = ref_compare.child_env(reference=True)
    if not os.path.exists(py):
        pytest.skip('no /usr/bin/python3')
    out = subprocess.run([py, '-I', '-c', _REF_NAMES, *mods], cwd='/',
                         capture_output=True, text=True, env=env)
    if out.returncode:
        pytest.skip('reference pyverbs (python3-pyverbs) not installed')
    import json
    absent = []
    for modname, names in json.loads(out.stdout).items():
        mod = _try_import(modname)
        if mod is None:
            continue
        absent += [f'{modname}.{n}' for n in names if not hasattr(mod, n)]
    assert not absent


if __name__ == '__main__':
    src = sys.argv[1] if len(sys.argv) > 1 else DOC_TESTS
    _write_list(parse_test_sources(src),
                'Debian 12 rdma-core 44.0-2, ' + DOC_TESTS
                if src == DOC_TESTS else src)


# Run in a fresh interpreter: python3 -c _WITHOUT_LIBRARY [--simulate] LIB...
# checks that the build lacks each LIB (librdmacm, libmlx5, libefa) -- or,
# with --simulate, makes a full build look so before any module over it is
# imported -- and that every name of OPTIONAL_API over those libraries is a
# placeholder whose error names the library and the packages that bring it.
# Prints {lib: names checked} as JSON.
_WITHOUT_LIBRARY = r'''
import importlib, json, sys
from pyverbs import _verbs
args = sys.argv[1:]
simulate = args[:1] == ['--simulate']
libs = args[1:] if simulate else args
FLAGS = {'librdmacm': '_HAVE_RDMACM', 'libmlx5': '_HAVE_MLX5',
         'libefa': '_HAVE_EFA'}
# what the error must name: Debian's and Fedora's build packages, Debian's
# run-time one
PACKAGES = {'librdmacm': ('librdmacm-dev', 'librdmacm-devel', 'librdmacm1'),
            'libmlx5': ('libibverbs-dev', 'rdma-core-devel'),
            'libefa': ('libibverbs-dev', 'rdma-core-devel')}
for lib in libs:
    if simulate:
        if hasattr(_verbs, FLAGS[lib]):
            delattr(_verbs, FLAGS[lib])   # as a build that did not find it
    else:
        assert not hasattr(_verbs, FLAGS[lib]), 'built with ' + lib
# simulating, a module imported already (pyverbs.device, by pyverbs)
# was made with the flags: it cannot tell
imported = set(sys.modules) if simulate else set()
if not simulate:
    if 'libmlx5' in libs:
        assert not hasattr(_verbs, 'Mlx5Context')
    if 'librdmacm' in libs:
        assert not hasattr(_verbs, 'CMID')
        assert not hasattr(_verbs, '_rdma_device_list')
from pyverbs._unimplemented import OPTIONAL_API, OPTIONAL_LIBS, is_placeholder
from pyverbs.pyverbs_error import PyverbsUserError
names = [(m, n) for m, ns in OPTIONAL_API.items() for n in ns]
names.append(('pyverbs.device', 'rdma_get_devices'))
count = dict.fromkeys(libs, 0)
for modname, name in names:
    what = f'{modname}.{name}'
    lib = [lib for p, (_, lib) in OPTIONAL_LIBS.items()
           if what.startswith(p)][0]
    if lib not in libs or modname in imported:
        continue
    obj = getattr(importlib.import_module(modname), name)
    assert is_placeholder(obj), what
    try:
        obj()
    except PyverbsUserError as ex:
        msg = str(ex)
        assert f'{what} needs {lib}: this pyverbs-c was built without it' \
            in msg, msg
        assert all(p in msg for p in PACKAGES[lib]), msg
    else:
        raise AssertionError(what)
    count[lib] += 1
print(json.dumps(count))
'''


def test_optional_libraries_missing_are_named():
    """A build without librdmacm/libmlx5/libefa keeps every name over them
    importable, and using one says which library the build lacked and
    which packages bring it."""
    import json
    r = subprocess.run([sys.executable, '-c', _WITHOUT_LIBRARY,
                        '--simulate', 'librdmacm', 'libmlx5', 'libefa'],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    count = json.loads(r.stdout)
    # upstream 44: 7 pyverbs.cmid classes, device.rdma_get_devices, and
    # aio.get_cm_event; 98 provider names
    assert count['librdmacm'] == 9
    assert count['libmlx5'] + count['libefa'] >= 90


# ------------------------------------------------- modules new in upstream 65

@pytest.mark.parametrize('modname', [
    'pyverbs.libibverbs', 'pyverbs.librdmacm',
    'pyverbs.providers.mlx5.libmlx5', 'pyverbs.providers.efa.libefa'])
def test_upstream_empty_modules_import(modname):
    """Upstream has these (empty) beside its Cython declarations from
    rdma-core 50 on; they import in every build and hold no public name."""
    mod = importlib.import_module(modname)
    assert mod.__doc__
    assert not [n for n in vars(mod) if not n.startswith('__')]


def test_version_module_and_attribute():
    """pyverbs.__version__ is the version string, re-exported from the
    pyverbs.__version__ submodule as upstream 65 does; it is the package's
    own version, the one pyproject.toml and meson.build give."""
    import re
    import pyverbs
    vmod = sys.modules['pyverbs.__version__']
    assert vmod.__version__ == pyverbs.__version__
    assert isinstance(pyverbs.__version__, str)
    ns = {}
    exec('from pyverbs.__version__ import __version__ as v', ns)
    assert ns['v'] == pyverbs.__version__
    root = os.path.dirname(HERE)
    with open(os.path.join(root, 'pyproject.toml')) as f:
        assert re.search(r'^version = "([^"]+)"', f.read(),
                         re.M).group(1) == pyverbs.__version__
    with open(os.path.join(root, 'meson.build')) as f:
        assert re.search(r"^\s*version: '([^']+)'", f.read(),
                         re.M).group(1) == pyverbs.__version__
