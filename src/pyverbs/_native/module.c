/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs._verbs: the native layer of pyverbs.
 *
 * Multi-phase initialisation; the types are heap types created from specs.
 * The state lives in one global (pv, state.c) rather than per module object:
 * the data
 * path reaches the types without a module lookup, and the extension refuses
 * a second initialisation (subinterpreters or a re-import after deletion
 * from sys.modules would otherwise replace types under live objects).
 */
#include "init.h"

#define PV_MODULE "pyverbs._verbs"

static int initialised;

/*
 * The setup of each part, in dependency order (bases, then parents before
 * children), as CPython's _sqlite chains its setup functions.  guard.c
 * comes first: it registers the hook that wraps every handle type made
 * after it.
 */
typedef int (*pv_init_fn)(PyObject *m);

static const pv_init_fn inits[] = {
	pv_state_init,
	pv_guard_init,
	pv_object_init_types,
	pv_addr_init_types,
	pv_context_init_types,
	pv_pd_init_types,
	pv_parent_domain_init_types,
	pv_fd_arr_init_types,
	pv_xrcd_init_types,
	pv_mr_init_types,
	pv_dmah_init_types,
	pv_buf_init_types,
	pv_mr_ex_init_types,
	pv_dmabuf_init_types,
	pv_dm_init_types,
	pv_mw_init_types,
	pv_cq_init_types,
	pv_cqex_init_types,
	pv_sge_init_types,
	pv_recv_wr_init_types,
	pv_send_wr_init_types,
	pv_srq_init_types,
	pv_qp_attr_init_types,
	pv_qp_rate_limit_init_types,
	pv_qp_init_types,
	pv_qpex_init_types,
	pv_comp_cntr_init_types,
	pv_wq_init_types,
	pv_rwq_ind_table_init_types,
	pv_spec_init_types,
	pv_flow_init_types,
#if PV_HAVE_RDMACM
	pv_cm_init_types,
#endif
#if PV_HAVE_MLX5
	pv_mlx5_init_types,
#endif
#if PV_HAVE_EFA
	pv_efa_init_types,
#endif
	pv_enums_init,
};

static int verbs_exec(PyObject *m)
{
	size_t i;

	if (initialised) {
		PyErr_SetString(PyExc_ImportError,
				PV_MODULE " cannot be initialised twice in "
					  "one process");
		return -1;
	}
	for (i = 0; i < sizeof(inits) / sizeof(inits[0]); i++)
		if (inits[i](m))
			return -1;
	initialised = 1;
	return 0;
}

/*
 * Free-threaded CPython (3.13t and later): the module runs without the GIL
 * and says so.  What the GIL kept consistent is kept without it by the
 * gates of the lifetime trees (gate.c: no close while a call of another
 * thread is in the tree), atomic lifetime marks (object.h), the lists'
 * lock, the guard's critical sections on a call's object and its data
 * object (guard.c: so the data path takes a use there too), posts made in
 * place (post.h), per-call scratch memory (post.c), the memory registry's
 * critical section (memory.c), and no caches of poll answers or WCs
 * (cq.c).  The module's own state is set up once, in verbs_exec, under
 * the import lock.
 */
static PyModuleDef_Slot verbs_slots[] = { { Py_mod_exec, verbs_exec },
#ifdef Py_mod_gil
#ifdef Py_GIL_DISABLED
					  { Py_mod_gil, Py_MOD_GIL_NOT_USED },
#else
					  { Py_mod_gil, Py_MOD_GIL_USED },
#endif
#endif
					  { 0, NULL } };

static struct PyModuleDef verbs_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = PV_MODULE,
	.m_doc = "Native layer of pyverbs: libibverbs objects in C.",
	.m_size = 0,
	.m_slots = verbs_slots,
};

PyMODINIT_FUNC PyInit__verbs(void)
{
	return PyModuleDef_Init(&verbs_module);
}
