# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 QoS scheduling elements: Mlx5dvSchedAttr, Mlx5dvSchedNode and
Mlx5dvSchedLeaf (mlx5dv_sched_node/leaf_*, implemented in C: sched.c).
A build without libmlx5 keeps the names as placeholders that name the
missing library (see pyverbs._unimplemented)."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsRDMAError  # noqa: F401
from pyverbs import _verbs as _v
from pyverbs._unimplemented import fill_missing

if getattr(_v, '_HAVE_MLX5', 0):
    from pyverbs._verbs import Mlx5dvSchedAttr, Mlx5dvSchedNode, \
        Mlx5dvSchedLeaf

del _v

fill_missing(globals(), __name__)
