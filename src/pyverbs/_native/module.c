/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs._verbs: the native layer of pyverbs.
 *
 * Multi-phase initialisation; the types are heap types created from specs.
 * The state lives in one global (pv) rather than per module object: the data
 * path reaches the types without a module lookup, and the extension refuses
 * a second initialisation (subinterpreters or a re-import after deletion
 * from sys.modules would otherwise replace types under live objects).
 */
#include "pyverbs.h"

struct pv_state pv;
static int initialised;

int pv_add_type(PyObject *m, PyType_Spec *spec, PyTypeObject *base,
		PyTypeObject **slot)
{
	PyObject *t;

	if (pv_guard_spec(spec, base))
		return -1;
	t = PyType_FromModuleAndSpec(m, spec, (PyObject *)base);
	if (!t)
		return -1;
	if (PyModule_AddType(m, (PyTypeObject *)t)) {
		Py_DECREF(t);
		return -1;
	}
	*slot = (PyTypeObject *)t;	/* the module keeps its reference */
	return 0;
}

static int load_exceptions(void)
{
	PyObject *mod = PyImport_ImportModule("pyverbs.pyverbs_error");

	if (!mod)
		return -1;
	pv.PyverbsError = PyObject_GetAttrString(mod, "PyverbsError");
	pv.PyverbsRDMAError = PyObject_GetAttrString(mod, "PyverbsRDMAError");
	pv.PyverbsUserError = PyObject_GetAttrString(mod, "PyverbsUserError");
	Py_DECREF(mod);
	if (!pv.PyverbsError || !pv.PyverbsRDMAError || !pv.PyverbsUserError)
		return -1;
	return 0;
}

static int verbs_exec(PyObject *m)
{
	if (initialised) {
		PyErr_SetString(PyExc_ImportError,
				PV_MODULE " cannot be initialised twice in "
				"one process");
		return -1;
	}
	if (load_exceptions())
		return -1;
	/* dependency order: bases, then parents before children */
	if (pv_object_init_types(m) || pv_guard_init(m) ||
	    pv_addr_init_types(m) ||
	    pv_context_init_types(m) || pv_pd_init_types(m) ||
	    pv_parent_domain_init_types(m) || pv_fd_arr_init_types(m) ||
	    pv_xrcd_init_types(m) || pv_mr_init_types(m) ||
	    pv_dmabuf_init_types(m) || pv_dm_init_types(m) ||
	    pv_mw_init_types(m) ||
	    pv_cq_init_types(m) ||
	    pv_wr_init_types(m) || pv_srq_init_types(m) ||
	    pv_qp_attr_init_types(m) ||
	    pv_qp_init_types(m) || pv_qpex_init_types(m) ||
	    pv_wq_init_types(m) || pv_spec_init_types(m) ||
	    pv_flow_init_types(m) ||
#if PV_HAVE_RDMACM
	    pv_cm_init_types(m) ||
#endif
#if PV_HAVE_MLX5
	    pv_mlx5_init_types(m) ||
#endif
#if PV_HAVE_EFA
	    pv_efa_init_types(m) ||
#endif
	    pv_enums_init(m))
		return -1;
	initialised = 1;
	return 0;
}

/*
 * Free-threaded CPython (3.13t and later): the objects' busy marks, the
 * lifetime lists and the type table set up once in verbs_exec rely on the
 * GIL to serialise Python-level access, so the module says it needs the GIL
 * and such an interpreter turns the GIL back on when importing it.  Saying
 * Py_MOD_GIL_NOT_USED needs those made atomic or guarded by per-object
 * critical sections first, and a free-threaded interpreter to test on.
 */
static PyModuleDef_Slot verbs_slots[] = {
	{ Py_mod_exec, verbs_exec },
#ifdef Py_mod_gil
	{ Py_mod_gil, Py_MOD_GIL_USED },
#endif
	{ 0, NULL }
};

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
