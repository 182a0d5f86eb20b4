/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The module state: one global (pv) with the exception classes and every
 * type object, and pv_add_type(), which every file's init calls to make
 * its types.  The lowest unit of the native layer: it calls no other file.
 * Layers above it that must see each type being made register a hook here
 * (guard.c wraps the methods of handle types, see pv_guard_init()).
 */
#include "state.h"
#include "init.h"

struct pv_state pv;

int pv_make_type(PyObject *m, PyType_Spec *spec, PyTypeObject *base,
		 PyTypeObject **slot)
{
	PyObject *t;

	if (pv.prepare_spec && pv.prepare_spec(spec, base))
		return -1;
	t = PyType_FromModuleAndSpec(m, spec, (PyObject *)base);
	if (!t)
		return -1;
	*slot = (PyTypeObject *)t; /* a reference held for ever */
	return 0;
}

int pv_add_type(PyObject *m, PyType_Spec *spec, PyTypeObject *base,
		PyTypeObject **slot)
{
	PyTypeObject *t;

	if (pv_make_type(m, spec, base, &t))
		return -1;
	if (PyModule_AddType(m, t)) {
		Py_DECREF(t);
		return -1;
	}
	*slot = t; /* held for ever, as the module holds it */
	return 0;
}

int pv_state_init(PyObject *m)
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
