// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The two base types, PyverbsObject (of every pyverbs class) and
 * PyverbsCM (of every handle object: close(), with, closed), and the
 * module functions the tests of the lifetime protocol use.  The protocol
 * itself is object.c's.
 */
#include "object.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "state.h"

#include <structmember.h>

/* ---- PyverbsObject: base of every pyverbs class ---- */

static PyObject *pobj_get_logger(PyObject *self, void *closure)
{
	PyObject *logging, *logger;

	logging = PyImport_ImportModule("logging");
	if (!logging)
		return NULL;
	logger = PyObject_CallMethod(logging, "getLogger", "s",
				     _PyType_Name(Py_TYPE(self)));
	Py_DECREF(logging);
	return logger;
}

static PyObject *pobj_set_log_level(PyObject *self, PyObject *val)
{
	PyObject *logger = pobj_get_logger(self, NULL), *r;

	if (!logger)
		return NULL;
	r = PyObject_CallMethod(logger, "setLevel", "O", val);
	Py_DECREF(logger);
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_NONE;
}

static PyMethodDef pobj_methods[] = {
	{ "set_log_level", pobj_set_log_level, METH_O,
	  "set_log_level($self, val, /)\n--\n\n"
	  "Set the level of this class's logger." },
	{ NULL }
};

static PyGetSetDef pobj_getset[] = {
	{ "logger", pobj_get_logger, NULL,
	  "The logging.Logger named after the class.", NULL },
	{ NULL }
};

PV_TYPE_SPEC(pobj, "pyverbs.base.PyverbsObject", PyObject,
	     "PyverbsObject()\n--\n\n"
	     "Base class of every pyverbs object.",
	     { Py_tp_methods, pobj_methods }, { Py_tp_getset, pobj_getset }, );

/* ---- PyverbsCM: base of every handle object ---- */

static PyObject *cm_close(PyObject *self, PyObject *unused)
{
	if (pv_close(PV_OBJ(self)))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *cm_enter(PyObject *self, PyObject *unused)
{
	return Py_NewRef(self);
}

static PyObject *cm_exit(PyObject *self, PyObject *const *args,
			 Py_ssize_t nargs)
{
	if (pv_close(PV_OBJ(self)))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *cm_get_closed(PyObject *self, void *closure)
{
	return PyBool_FromLong(PV_OBJ(self)->closed);
}

int pv_cm_traverse(PyObject *self, visitproc visit, void *arg)
{
	return pv_obj_traverse(PV_OBJ(self), visit, arg);
}

int pv_cm_clear(PyObject *self)
{
	return pv_obj_clear(PV_OBJ(self));
}

static PyObject *cm_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	PyObject *self = tp->tp_alloc(tp, 0);

	if (self)
		pv_obj_setup(PV_OBJ(self), NULL);
	return self;
}

static PyMethodDef cm_methods[] = {
	{ "close", cm_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Release the underlying resource, closing dependent objects first.\n"
	  "Calling it again does nothing." },
	{ "__enter__", cm_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nReturns the object." },
	{ "__exit__", (PyCFunction)(void (*)(void))cm_exit, METH_FASTCALL,
	  "__exit__($self, /, *exc_info)\n--\n\nCloses the object (close()), "
	  "whatever the exception." },
	{ NULL }
};

static PyGetSetDef cm_getset[] = {
	{ "closed", cm_get_closed, NULL,
	  "True once close() has released the resource.", NULL },
	{ NULL }
};

static PyMemberDef cm_members[] = { { "__weaklistoffset__", T_PYSSIZET,
				      offsetof(struct pv_obj, weakreflist),
				      READONLY },
				    { "__dictoffset__", T_PYSSIZET,
				      offsetof(struct pv_obj, dict), READONLY },
				    { NULL } };

PV_GC_TYPE_SPEC(cm, "pyverbs.base.PyverbsCM", struct pv_obj,
		"PyverbsCM()\n--\n\n"
		"Base class of pyverbs objects that own a resource; "
		"usable as a context manager.",
		{ Py_tp_new, cm_new }, { Py_tp_methods, cm_methods },
		{ Py_tp_getset, cm_getset }, { Py_tp_members, cm_members },
		{ Py_tp_traverse, pv_cm_traverse },
		{ Py_tp_clear, pv_cm_clear },
		{ Py_tp_finalize, pv_obj_finalize },
		{ Py_tp_dealloc, pv_obj_dealloc }, );

/*
 * _child_of(*parents): a new open PyverbsCM that owns no resource, linked
 * as a child to each of parents (open handle objects, in any number; one
 * may appear more than once).  It lets the tests exercise the protocol
 * (many parents, cascading close, collection) without a device.
 */
static PyObject *obj_child_of(PyObject *m, PyObject *args)
{
	Py_ssize_t n = PyTuple_GET_SIZE(args), i;
	struct pv_obj *o;

	for (i = 0; i < n; i++) {
		PyObject *p = PyTuple_GET_ITEM(args, i);

		if (!pv_type_ok(p, pv.PyverbsCM)) {
			PyErr_Format(PyExc_TypeError,
				     "parent %zd is not a "
				     "PyverbsCM but %.100s",
				     i, Py_TYPE(p)->tp_name);
			return NULL;
		}
	}
	o = PV_OBJ(PyObject_CallNoArgs((PyObject *)pv.PyverbsCM));
	if (!o)
		return NULL;
	if (pv_obj_reserve_parents(o, n))
		goto fail;
	for (i = 0; i < n; i++)
		if (pv_obj_link(o, PV_OBJ(PyTuple_GET_ITEM(args, i))))
			goto fail;
	pv_obj_opened(o);
	return (PyObject *)o;
fail:
	Py_DECREF(o); /* never opened: its finalizer drops the links */
	return NULL;
}

/*
 * _add_ref(parent, child): pv_obj_add_ref() for handle objects of any
 * type, for the tests of what WQ.add_ref and RwqIndTable.add_ref link
 * (Soft-RoCE has no WQs to show it).
 */
static PyObject *obj_add_ref(PyObject *m, PyObject *const *args,
			     Py_ssize_t nargs)
{
	if (nargs != 2 || !pv_type_ok(args[0], pv.PyverbsCM))
		return PyErr_Format(PyExc_TypeError,
				    "_add_ref() takes (parent, child)");
	if (pv_obj_add_ref(PV_OBJ(args[0]), args[1], pv.PyverbsCM))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef obj_functions[] = {
	{ "_add_ref", (PyCFunction)(void (*)(void))obj_add_ref, METH_FASTCALL,
	  "_add_ref($module, parent, child, /)\n--\n\n"
	  "add_ref() of WQ and RwqIndTable, between any handle objects (for "
	  "the tests of the lifetime protocol)." },
	{ "_child_of", obj_child_of, METH_VARARGS,
	  "_child_of($module, /, *parents)\n--\n\n"
	  "A new open PyverbsCM owning nothing, a child of each of parents "
	  "(for the tests of the lifetime protocol)." },
	{ NULL }
};

int pv_object_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &pobj_spec, NULL, &pv.PyverbsObject },
		{ &cm_spec, &pv.PyverbsObject, &pv.PyverbsCM },
		{ NULL }
	};

	if (pv_object_init() || pv_add_types(m, types))
		return -1;
	return PyModule_AddFunctions(m, obj_functions);
}
