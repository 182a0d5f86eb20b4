# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct verbs: Mlx5Context, Mlx5QP, Mlx5CQ, DevX objects, UAR/VAR/PP, ...

Not implemented yet: the names of upstream's module are placeholders that
raise PyverbsUserError when used (see pyverbs._unimplemented)."""
from pyverbs._unimplemented import fill_missing

# mlx5ctx

# mlx5qp

# mlx5objs


fill_missing(globals(), __name__)
