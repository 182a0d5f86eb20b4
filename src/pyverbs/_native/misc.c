/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Small module-level functions and constants behind pyverbs.fork and
 * pyverbs.mem_alloc: ibv_fork_init()/ibv_is_fork_initialized(), and the
 * <sys/mman.h> constants mem_alloc exports (PROT_READ_, MAP_PRIVATE_, ...).
 */
#include <errno.h>
#include <sys/mman.h>

#include "pyverbs.h"

PyDoc_STRVAR(misc_fork_init_doc,
"_fork_init($module, /)\n--\n\n"
"ibv_fork_init(): make registered memory safe across fork().\n"
"Raises PyverbsRDMAError if libibverbs refuses (e.g. after resources\n"
"were already created).");

static PyObject *misc_fork_init(PyObject *m, PyObject *unused)
{
	int rc = ibv_fork_init();	/* returns 0 or an errno */

	if (rc)
		return pv_raise_rc(rc, "ibv_fork_init",
				   "Failed to init fork support");
	Py_RETURN_NONE;
}

PyDoc_STRVAR(misc_is_fork_initialized_doc,
"_is_fork_initialized($module, /)\n--\n\n"
"ibv_is_fork_initialized(): IBV_FORK_DISABLED (0), IBV_FORK_ENABLED (1)\n"
"or IBV_FORK_UNNEEDED (2, the kernel makes fork safe by itself).");

static PyObject *misc_is_fork_initialized(PyObject *m, PyObject *unused)
{
	return PyLong_FromLong(ibv_is_fork_initialized());
}

PyDoc_STRVAR(misc_errno_doc,
"_errno($module, /)\n--\n\n"
"The C errno of the calling thread, as the last C call left it.");

static PyObject *misc_errno(PyObject *m, PyObject *unused)
{
	return PyLong_FromLong(errno);
}

static PyMethodDef misc_methods[] = {
	{ "_errno", misc_errno, METH_NOARGS, misc_errno_doc },
	{ "_fork_init", misc_fork_init, METH_NOARGS, misc_fork_init_doc },
	{ "_is_fork_initialized", misc_is_fork_initialized, METH_NOARGS,
	  misc_is_fork_initialized_doc },
	{ NULL }
};

#define MMAN(n) { #n "_", n }

static const struct {
	const char *name;
	long value;
} misc_mman[] = {
	MMAN(PROT_EXEC), MMAN(PROT_READ), MMAN(PROT_WRITE), MMAN(PROT_NONE),
	MMAN(MAP_PRIVATE), MMAN(MAP_SHARED), MMAN(MAP_FIXED),
	MMAN(MAP_ANONYMOUS), MMAN(MAP_STACK), MMAN(MAP_LOCKED),
	MMAN(MAP_HUGETLB), MMAN(MAP_POPULATE), MMAN(MAP_NORESERVE),
	MMAN(MAP_GROWSDOWN),
};

/* _verbs._mman_constants: {'PROT_READ_': 1, ...} for pyverbs.mem_alloc. */
static int misc_add_mman(PyObject *m)
{
	PyObject *d = PyDict_New();
	size_t i;

	if (!d)
		return -1;
	for (i = 0; i < sizeof(misc_mman) / sizeof(misc_mman[0]); i++) {
		PyObject *v = PyLong_FromLong(misc_mman[i].value);

		if (!v || PyDict_SetItemString(d, misc_mman[i].name, v)) {
			Py_XDECREF(v);
			Py_DECREF(d);
			return -1;
		}
		Py_DECREF(v);
	}
	if (PyModule_AddObject(m, "_mman_constants", d)) {
		Py_DECREF(d);
		return -1;
	}
	return 0;
}

int pv_misc_init(PyObject *m)
{
	if (PyModule_AddFunctions(m, misc_methods))
		return -1;
	return misc_add_mman(m);
}
