# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs: the Python API over rdma-core (libibverbs, librdmacm, and the
mlx5 and efa direct verbs).

This is pyverbs-c: upstream pyverbs's modules, classes and printed formats,
with the native layer written in C against the CPython C API.
"""
from pyverbs.__version__ import __version__ as __version__

# rdma-core's runtime libraries the extension links, and where they come
# from: a missing one is named with the package that provides it.
_RUNTIME: dict[str, tuple[str, str]] = {
    'libibverbs.so.1': ('libibverbs1 ibverbs-providers', 'libibverbs'),
    'librdmacm.so.1': ('librdmacm1', 'librdmacm'),
    'libmlx5.so.1': ('ibverbs-providers', 'libibverbs'),
    'libefa.so.1': ('ibverbs-providers', 'libibverbs'),
}


def _load_native() -> None:
    try:
        from pyverbs import _verbs      # noqa: F401 -- loads rdma-core
    except ImportError as ex:
        for lib, (deb, rpm) in _RUNTIME.items():
            if lib in str(ex):
                raise ImportError(
                    f'pyverbs needs rdma-core\'s {lib}, which could not be '
                    f'loaded ({ex}); install it: Debian/Ubuntu: apt install '
                    f'{deb}; Fedora/RHEL: dnf install {rpm}',
                    name=ex.name, path=ex.path) from ex
        raise


_load_native()
del _load_native


def _install_formats() -> None:
    # The printed formats (__str__ and the like) of the C types: one table
    # per package, each installed here once, where the native module is
    # first imported, so that whatever module a program imports first sees
    # the formatted types.  A provider's table is empty in a build without
    # its library.
    from pyverbs import _formats
    from pyverbs.providers.efa import _formats as efa
    from pyverbs.providers.mlx5 import _formats as mlx5
    for table in (_formats.FORMATS, mlx5.FORMATS, efa.FORMATS):
        _formats.install(table)


_install_formats()
del _install_formats


def _after_full_collection(phase: str, info: dict[str, int]) -> None:
    # as CPython empties its free lists in a full collection, the
    # extension drops its kept poll answers and WCs
    if phase == 'stop' and info.get('generation') == 2:
        from pyverbs import _verbs
        _verbs._clear_free_lists()


import gc as _gc                        # noqa: E402
_gc.callbacks.append(_after_full_collection)
del _gc
