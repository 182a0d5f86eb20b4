# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct rules: DrRule, in C (pyverbs._verbs, providers/mlx5/dr.c).

A DrRule is closed before its DrMatcher and before any action it uses.
actions defaults to None (no action); its items must be open DrActions
(TypeError / PyverbsUserError otherwise, where upstream crashes)."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError  # noqa: F401
from pyverbs import _verbs

if hasattr(_verbs, '_HAVE_MLX5'):      # built with libmlx5
    from pyverbs._verbs import DrRule
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)
