# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 over VFIO: Mlx5VfioAttr names a ConnectX PCI function bound to
vfio-pci, Mlx5VfioContext (an Mlx5Context) opens it."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsRDMAError  # noqa: F401
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import Mlx5VfioAttr, Mlx5VfioContext

fill_missing(globals(), __name__)
