# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""An empty module, as upstream's is.

Upstream pyverbs declares libmlx5's direct-verbs C API for Cython in
libmlx5.pxd and, from rdma-core 50 on, ships an empty module of the same
name beside it; this one exists so that
`import pyverbs.providers.mlx5.libmlx5` works the same.  The mlx5 API is
pyverbs.providers.mlx5.mlx5dv and its sibling modules.
"""
