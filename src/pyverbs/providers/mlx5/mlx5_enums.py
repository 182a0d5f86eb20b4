# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct-verbs enums: every enumerator of infiniband/mlx5dv.h as a
module global (dve.MLX5DV_CONTEXT_FLAGS_DEVX), the enum classes named after
the C enums (mlx5dv_qp_init_attr_mask, ...), and upstream's names for
macros (_MLX5DV_RES_TYPE_QP, MLX5DV_FLOW_TABLE_TYPE_NIC_RX_, ...).
The values come from the header alone: no mlx5 device or libmlx5 needed.
"""
from pyverbs._enumtab import populate as _populate

_populate(globals(), 'mlx5dv', __name__)
