# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct verbs: Mlx5Context, Mlx5QP, Mlx5CQ, DevX objects, UAR/VAR/PP, ...

The classes are C types of pyverbs._verbs (src/pyverbs/_native/providers/
mlx5/), the printers Python (pyverbs.providers.mlx5._formats).  A build
without libmlx5 keeps every name as a placeholder whose error names the
library (see pyverbs._unimplemented)."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsError, PyverbsRDMAError, PyverbsUserError)
from pyverbs._unimplemented import fill_missing

# mlx5ctx
from pyverbs import _verbs

if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5DVContextAttr, Mlx5Context,
                                Mlx5DVContext, Mlx5DVPortAttr,
                                Mlx5DVCQInitAttr, Mlx5CQ)
    try:
        from pyverbs._verbs import Mlx5VAR, Mlx5PP, Mlx5UAR
    except ImportError:
        pass
    try:
        from pyverbs._verbs import Mlx5VfioAttr
    except ImportError:
        pass
    # upstream's printers of numbers (the printed formats of the classes
    # are pyverbs.providers.mlx5._formats's too); a build without libmlx5
    # has placeholders that name the library (fill_missing)
    from pyverbs.providers.mlx5._formats import (  # noqa: F401
        bitmask_to_str, context_comp_mask_to_str, context_flags_to_str,
        cqe_comp_to_str, dc_type_to_str, qp_comp_mask_to_str,
        qp_create_flags_to_str, qpts_to_str, send_ops_flags_to_str,
        swp_to_str, tunnel_offloads_to_str)

# mlx5qp
if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5DCIStreamInitAttr, Mlx5DVDCInitAttr,
                                Mlx5DVQPInitAttr, Mlx5QP)

# mlx5objs
from pyverbs import _verbs as _mlx5objs
if getattr(_mlx5objs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5DevxObj, Mlx5UMEM, Mlx5DevxEq,
                                Mlx5DevxMsiVector, Mlx5DmOpAddr, WqeSeg,
                                WqeCtrlSeg, WqeDataSeg, Wqe, Mlx5Cqe64,
                                Mlx5DevxCmdComp)
del _mlx5objs

fill_missing(globals(), __name__)
