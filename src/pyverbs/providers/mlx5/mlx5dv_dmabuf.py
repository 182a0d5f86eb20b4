# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Mlx5DmaBufMR (rdma-core 54's pyverbs API): a DmaBufMR registered with
mlx5dv_reg_dmabuf_mr and its mlx5 access flags (data direct).

The class is a C type of pyverbs._verbs (providers/mlx5/dmabuf_mr.c); built
against an rdma-core older than 54 it raises the error naming the version.
A build without libmlx5 keeps the name as a placeholder that names the
missing library (see pyverbs._unimplemented)."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs import _verbs as _v
from pyverbs._unimplemented import fill_missing

if getattr(_v, '_HAVE_MLX5', 0):
    from pyverbs._verbs import Mlx5DmaBufMR
del _v

fill_missing(globals(), __name__)
