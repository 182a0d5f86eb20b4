/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Registration of the mlx5 direct-verbs types into pyverbs._verbs; the
 * Python modules of pyverbs.providers.mlx5 import them from there.
 */
#include "mlx5.h"
#include "init.h"

/* _MLX5_FEATURES: which of the calls newer than rdma-core 44 this build
 * has (meson.build's probes), for the tests and for users who ask. */
static int mlx5_features(PyObject *m)
{
	static const struct {
		const char *name;
		int have;
	} f[] = {
		{ "mlx5dv_reg_dmabuf_mr", HAVE_MLX5DV_REG_DMABUF_MR },
		{ "max_dc_rd_atom", HAVE_MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM },
		{ "ooo_recv_wrs_caps", HAVE_MLX5DV_CONTEXT_MASK_OOO_RECV_WRS },
		{ "context_attr_fds", HAVE_MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY },
		{ "matcher_ib_port", HAVE_MLX5DV_FLOW_MATCHER_MASK_IB_PORT },
		{ "context_flags_blueflame",
		  HAVE_MLX5DV_CONTEXT_FLAGS_BLUEFLAME },
		{ "counters_devx_with_offset",
		  HAVE_MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET },
		{ "mlx5dv_devx_uar_export_dmabuf_fd",
		  HAVE_MLX5DV_DEVX_UAR_EXPORT_DMABUF_FD },
		{ "export_import", HAVE_MLX5DV_DEVX_OBJ_EXPORT },
	};
	PyObject *d = PyDict_New();
	size_t i;

	for (i = 0; d && i < sizeof(f) / sizeof(f[0]); i++)
		if (PyDict_SetItemString(d, f[i].name,
					 f[i].have ? Py_True : Py_False))
			Py_CLEAR(d);
	if (!d || PyModule_AddObjectRef(m, "_MLX5_FEATURES", d)) {
		Py_XDECREF(d);
		return -1;
	}
	Py_DECREF(d);
	return 0;
}

int pv_mlx5_init_types(PyObject *m)
{
	if (PyModule_AddIntConstant(m, "_HAVE_MLX5", 1) || mlx5_features(m))
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
	if (pv_mlx5_cmd_comp_init_types(m) || pv_mlx5_devx_init_types(m) ||
	    pv_mlx5_devx_event_init_types(m) || pv_mlx5_dm_op_init_types(m) ||
	    pv_mlx5_dmabuf_mr_init_types(m) || pv_mlx5_wqe_init_types(m) ||
	    pv_mlx5_sched_init_types(m))
		return -1;

	/* mlx5dr: mlx5dv_flow, dr_* */
	if (pv_mlx5_flow_action_init_types(m) || pv_mlx5_flow_init_types(m) ||
	    pv_mlx5_dr_init_types(m) || pv_mlx5_dr_action_init_types(m) ||
	    pv_mlx5_dr_meter_init_types(m))
		return -1;

	return 0;
}
