# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5dv_init_obj() views of verbs objects: Mlx5DvObj(obj_type, cq=, qp=,
pd=, srq=) and the Mlx5DvCQ, Mlx5DvQP, Mlx5DvPD, Mlx5DvSRQ it fills."""
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsRDMAError, PyverbsUserError)
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5DvObj, Mlx5DvCQ, Mlx5DvQP, Mlx5DvPD,
                                Mlx5DvSRQ)

fill_missing(globals(), __name__)
