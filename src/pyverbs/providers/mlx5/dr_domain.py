# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct rules: DrDomain, in C (pyverbs._verbs, providers/mlx5/dr.c)
over libmlx5's mlx5dv_dr_domain_*.

A DrDomain is closed with its Context, and closes its tables and the
actions made on it first.  dump() also accepts bytes and path-like
objects; sync()'s flags and allow_duplicate_rules' argument are checked
(TypeError/OverflowError)."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError  # noqa: F401
from pyverbs import _verbs

if hasattr(_verbs, '_HAVE_MLX5'):      # built with libmlx5
    from pyverbs._verbs import DrDomain
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)
