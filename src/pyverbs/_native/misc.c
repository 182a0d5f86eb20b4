/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Small module-level functions: pyverbs.fork's ibv_fork_init() and
 * ibv_is_fork_initialized(), and _errno().  (pyverbs.mem_alloc's are in
 * memory.c.)
 */
#include "cq.h"
#include "errors.h"
#include "init.h"
#include "memory.h"

#include <errno.h>

PyDoc_STRVAR(
	misc_fork_init_doc,
	"_fork_init($module, /)\n--\n\n"
	"ibv_fork_init(): make registered memory safe across fork().\n"
	"Raises PyverbsRDMAError if libibverbs refuses (e.g. after resources\n"
	"were already created).");

static PyObject *misc_fork_init(PyObject *m, PyObject *unused)
{
	int rc = ibv_fork_init(); /* returns 0 or an errno */

	if (rc)
		return pv_raise_rc(rc, "ibv_fork_init",
				   "Failed to init fork support");
	Py_RETURN_NONE;
}

PyDoc_STRVAR(
	misc_is_fork_initialized_doc,
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
	{ "_clear_free_lists", pv_cq_clear_free_lists, METH_NOARGS,
	  "_clear_free_lists()\n--\n\n"
	  "Drop the kept poll answers and WCs (done after every full "
	  "collection)." },
	{ NULL }
};

int pv_misc_init(PyObject *m)
{
	if (PyModule_AddFunctions(m, misc_methods))
		return -1;
	return pv_memory_init(m);
}
