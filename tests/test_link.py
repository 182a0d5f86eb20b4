# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What the built extension asks of rdma-core's libraries at run time.

Every versioned symbol pyverbs._verbs imports from libibverbs, librdmacm,
libmlx5 or libefa must carry a version that rdma-core 44 defines (the floor:
IBVERBS_1.14, RDMACM_1.3, MLX5_1.24, EFA_1.2), unless the symbol is one
meson.build probes for (a newer symbol used only where the build found it),
and a version the library found at run time defines.  The header-inline
provider calls (mlx5dv_wr_*, efadv_wc_*) must never appear as symbols:
there is no such export, so referencing one would fail at load time.
"""
import os
import re
import shutil
import subprocess

import pytest

import pyverbs._verbs as _verbs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the newest version of each library's symbols in rdma-core 44
FLOOR = {'IBVERBS': (1, 14), 'RDMACM': (1, 3), 'MLX5': (1, 24),
         'EFA': (1, 2)}
LIBS = {'IBVERBS': 'libibverbs.so.1', 'RDMACM': 'librdmacm.so.1',
        'MLX5': 'libmlx5.so.1', 'EFA': 'libefa.so.1'}
INLINE_ONLY = re.compile(r'^(mlx5dv_wr_|efadv_wc_|mlx5dv_set_|'
                         r'mlx5dv_get_cqe|mlx5dv_ts_to_ns$)')


def _readelf(*args):
    if not shutil.which('readelf'):
        pytest.skip('binutils (readelf) is not installed')
    return subprocess.run(['readelf', '-W'] + list(args), check=True,
                          capture_output=True, text=True).stdout


def _imports():
    """{symbol: version} of the extension's undefined versioned symbols."""
    out = {}
    for line in _readelf('--dyn-syms', _verbs.__file__).splitlines():
        f = line.split()
        if len(f) >= 8 and f[6] == 'UND' and '@' in f[7]:
            name, ver = f[7].split('@', 1)
            out[name] = ver.split()[0]
    return out


def _probed():
    """Names meson.build probes for (quoted identifiers in its lists)."""
    with open(os.path.join(ROOT, 'meson.build')) as f:
        return set(re.findall(r"'(_{0,2}(?:ibv|rdma|mlx5dv|efadv|IBV|RDMA|"
                              r"MLX5DV|EFADV)_\w+)'", f.read()))


def _loaded_path(soname):
    """The file of soname this process has mapped (the one in use)."""
    with open('/proc/self/maps') as f:
        for line in f:
            path = line.split()[-1]
            if os.path.basename(path).startswith(soname):
                return path
    return None


def _defined_versions(path):
    out = _readelf('-V', path)
    return set(re.findall(r'Name: ([A-Z0-9]+_[0-9.]+)\s*$', out, re.M))


def _split(ver):
    m = re.fullmatch(r'([A-Z0-9]+)_(\d+)\.(\d+)', ver)
    if not m:
        return None, None
    return m.group(1), (int(m.group(2)), int(m.group(3)))


def test_rdma_core_symbols_within_the_floor_or_probed():
    probed = _probed()
    beyond = []
    for name, ver in sorted(_imports().items()):
        lib, num = _split(ver)
        # _ibv_x: the entry point of the header's inline ibv_x()
        if lib in FLOOR and num > FLOOR[lib] and \
                name.lstrip('_') not in probed:
            beyond.append(f'{name}@{ver}')
    assert not beyond, ('symbols newer than rdma-core 44 used without a '
                        f'meson probe: {beyond}')


def test_versions_defined_by_the_libraries_in_use():
    imports = _imports()
    for lib, soname in LIBS.items():
        wanted = {v for v in imports.values() if _split(v)[0] == lib}
        if not wanted:
            continue
        path = _loaded_path(soname)
        assert path, f'{soname} is referenced but not loaded'
        missing = wanted - _defined_versions(path)
        assert not missing, f'{path} lacks {sorted(missing)}'


def test_no_header_inline_provider_call_as_symbol():
    bad = sorted(n for n in _imports() if INLINE_ONLY.match(n))
    # names without a version too (an unversioned reference would also
    # fail to resolve)
    for line in _readelf('--dyn-syms', _verbs.__file__).splitlines():
        f = line.split()
        if len(f) >= 8 and f[6] == 'UND' and INLINE_ONLY.match(
                f[7].split('@')[0]):
            bad.append(f[7])
    assert not bad, bad


def needed(path):
    """The DT_NEEDED entries of the shared object at path."""
    return re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]',
                      _readelf('-d', path))


def test_needs_only_rdma_core_and_libc():
    """At run time the extension needs rdma-core's libraries and libc,
    nothing else (no libpython: the interpreter provides it), and each
    optional library only where the build found it."""
    got = needed(_verbs.__file__)
    allowed = {'libibverbs.so.1', 'librdmacm.so.1', 'libmlx5.so.1',
               'libefa.so.1', 'libc.so.6'}
    if os.environ.get('PYVERBS_SANITIZED'):
        # tools/sanitize's build links the sanitizer runtimes (and libm,
        # libgcc_s that UBSan's runtime brings in)
        allowed |= {'libasan.so.8', 'libubsan.so.1', 'libm.so.6',
                    'libgcc_s.so.1'}
    assert 'libibverbs.so.1' in got
    assert set(got) <= allowed, got
    for flag, lib in (('_HAVE_RDMACM', 'librdmacm.so.1'),
                      ('_HAVE_MLX5', 'libmlx5.so.1'),
                      ('_HAVE_EFA', 'libefa.so.1')):
        assert (lib in got) == bool(getattr(_verbs, flag, 0)), (lib, got)
