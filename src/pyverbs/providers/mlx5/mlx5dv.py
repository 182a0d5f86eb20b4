# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct verbs: Mlx5Context, Mlx5QP, Mlx5CQ, DevX objects, UAR/VAR/PP, ...

Not implemented yet: the names of upstream's module are placeholders that
raise PyverbsUserError when used (see pyverbs._unimplemented)."""
from pyverbs._unimplemented import fill_missing

# mlx5ctx

# mlx5qp

# mlx5objs
from pyverbs import _verbs as _mlx5objs
if getattr(_mlx5objs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5DevxObj, Mlx5UMEM, Mlx5DevxEq,
                                Mlx5DevxMsiVector, Mlx5DmOpAddr, WqeSeg,
                                WqeCtrlSeg, WqeDataSeg, Wqe, Mlx5Cqe64)
    from pyverbs.providers.mlx5 import _mlx5objs_str
    _mlx5objs_str.install(globals())
del _mlx5objs


fill_missing(globals(), __name__)
