/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Registration of the mlx5 direct-verbs types into pyverbs._verbs; the
 * Python modules of pyverbs.providers.mlx5 import them from there.
 */
#include "mlx5.h"
#include "init.h"

int pv_mlx5_init_types(PyObject *m)
{
	if (PyModule_AddIntConstant(m, "_HAVE_MLX5", 1))
		return -1;

	/* mlx5ctx: Mlx5Context & co. (first: Mlx5VfioContext derives from it) */
	if (pv_mlx5_context_init_types(m) || pv_mlx5_cq_init_types(m) ||
	    pv_mlx5_uar_init_types(m) || pv_mlx5_crypto_init_types(m) ||
	    pv_mlx5_objects_init_types(m) || pv_mlx5_vfio_init_types(m))
		return -1;

	/* mlx5qp: Mlx5QP, its init attrs, mlx5dv_mkey */
	if (pv_mlx5_qp_attr_init_types(m) || pv_mlx5_mkey_init_types(m) ||
	    pv_mlx5_qp_init_types(m))
		return -1;

	/* mlx5objs: DevX, WQE/CQE views, sched */
	if (pv_mlx5_devx_init_types(m) || pv_mlx5_wqe_init_types(m) ||
	    pv_mlx5_sched_init_types(m))
		return -1;

	/* mlx5dr: mlx5dv_flow, dr_* */
	if (pv_mlx5_flow_init_types(m) || pv_mlx5_dr_init_types(m) ||
	    pv_mlx5_dr_action_init_types(m))
		return -1;

	return 0;
}
