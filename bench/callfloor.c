/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The interpreter's part of bench/count_instr.py's rows: a CPython extension
 * module whose methods do nothing.  The driver runs each row's Python loop,
 * statement for statement, against a Nop object standing in for the CQ, QP,
 * MR and WR classes: the same number of calls, with the same arguments, in
 * the same calling convention as pyverbs-c's methods, and the same
 * attribute stores.  What that loop costs is what the interpreter charges
 * any binding for those statements; what a binding costs beyond it (and
 * beyond the C floor) is the binding's own work.
 *
 * Built by count_instr.py with gcc against the headers of the interpreter
 * measured.  Nop instances have a __dict__, so that the driver can give a
 * Nop the method names of the object it stands in for (nop.poll =
 * nop.fastkw_pair); the loops look their methods up once, before the loop,
 * so the dict is not on the measured path.  wr_id and wr_flags are getset
 * descriptors, as QPEx's are.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>

struct nop {
	PyObject_HEAD
	PyObject *dict;
};

/* (0, ()): what `nc, wcs = cq.poll()` unpacks; built once */
static PyObject *nop_pair;

static PyObject *nop_noargs(PyObject *self, PyObject *unused)
{
	Py_RETURN_NONE;
}

static PyObject *nop_o(PyObject *self, PyObject *arg)
{
	Py_RETURN_NONE;
}

static PyObject *nop_fast(PyObject *self, PyObject *const *args,
			  Py_ssize_t nargs)
{
	Py_RETURN_NONE;
}

static PyObject *nop_fastkw(PyObject *self, PyObject *const *args,
			    Py_ssize_t nargs, PyObject *kwnames)
{
	Py_RETURN_NONE;
}

/* As fastkw, returning a 2-tuple made once (no allocation per call). */
static PyObject *nop_fastkw_pair(PyObject *self, PyObject *const *args,
				 Py_ssize_t nargs, PyObject *kwnames)
{
	Py_INCREF(nop_pair);
	return nop_pair;
}

static PyObject *nop_get(PyObject *self, void *closure)
{
	Py_RETURN_NONE;
}

/* Takes any value, deletion included, and keeps nothing. */
static int nop_set(PyObject *self, PyObject *value, void *closure)
{
	return 0;
}

static PyMethodDef nop_methods[] = {
	{ "noargs", nop_noargs, METH_NOARGS, "METH_NOARGS; returns None." },
	{ "o", nop_o, METH_O, "METH_O; returns None." },
	{ "fast", (PyCFunction)(void (*)(void))nop_fast, METH_FASTCALL,
	  "METH_FASTCALL; returns None." },
	{ "fastkw", (PyCFunction)(void (*)(void))nop_fastkw,
	  METH_FASTCALL | METH_KEYWORDS,
	  "METH_FASTCALL | METH_KEYWORDS; returns None." },
	{ "fastkw_pair", (PyCFunction)(void (*)(void))nop_fastkw_pair,
	  METH_FASTCALL | METH_KEYWORDS,
	  "METH_FASTCALL | METH_KEYWORDS; returns the same (0, ())." },
	{ NULL }
};

static PyGetSetDef nop_getset[] = {
	{ "wr_id", nop_get, nop_set, "Stores nothing.", NULL },
	{ "wr_flags", nop_get, nop_set, "Stores nothing.", NULL },
	{ NULL }
};

static int nop_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(((struct nop *)self)->dict);
	return 0;
}

static int nop_clear(PyObject *self)
{
	Py_CLEAR(((struct nop *)self)->dict);
	return 0;
}

static void nop_dealloc(PyObject *self)
{
	PyObject_GC_UnTrack(self);
	nop_clear(self);
	Py_TYPE(self)->tp_free(self);
}

static PyTypeObject nop_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "callfloor.Nop",
	.tp_basicsize = sizeof(struct nop),
	.tp_dealloc = nop_dealloc,
	.tp_getattro = PyObject_GenericGetAttr,
	.tp_setattro = PyObject_GenericSetAttr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "Methods of every calling convention, doing nothing.",
	.tp_traverse = nop_traverse,
	.tp_clear = nop_clear,
	.tp_methods = nop_methods,
	.tp_getset = nop_getset,
	.tp_dictoffset = offsetof(struct nop, dict),
	.tp_alloc = PyType_GenericAlloc,
	.tp_new = PyType_GenericNew,
	.tp_free = PyObject_GC_Del,
};

static struct PyModuleDef callfloor_module = {
	PyModuleDef_HEAD_INIT,
	.m_name = "callfloor",
	.m_doc = "No-op methods: the interpreter's part of a binding's call.",
	.m_size = -1,
};

PyMODINIT_FUNC PyInit_callfloor(void)
{
	PyObject *m;

	if (PyType_Ready(&nop_type) < 0)
		return NULL;
	if (!nop_pair && !(nop_pair = Py_BuildValue("(i())", 0)))
		return NULL;
	m = PyModule_Create(&callfloor_module);
	if (!m)
		return NULL;
	Py_INCREF(&nop_type);
	if (PyModule_AddObject(m, "Nop", (PyObject *)&nop_type) < 0) {
		Py_DECREF(&nop_type);
		Py_DECREF(m);
		return NULL;
	}
	return m;
}
