/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The argument helpers the mlx5 families share: the open Context argument
 * of a static method, the keyword values of an attribute's __init__ stored
 * into its fields, a DevX mailbox's bytes, Cython's TypeError for a typed
 * argument, a blocking call run without the GIL.  The lowest unit of the provider: it uses only the core, so a
 * family calls it without reaching into another family's file.
 */
#include "mlx5.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>

struct pv_context *pv_mlx5_ctx_arg(PyObject *o, const char *argname)
{
	if (!PyObject_TypeCheck(o, pv.Context)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument '%s' has incorrect type (expected "
			     "pyverbs.device.Context, got %.200s)",
			     argname, Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	return (struct pv_context *)o;
}

/* Store the given values (NULL: keep) into fields[0..n-1]. 0 or -1. */
int pv_mlx5_store_fields(PyObject *obj, const struct pv_field *fields,
			 PyObject *const *vals, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (vals[i] && pv_field_store(obj, &fields[i], vals[i]))
			return -1;
	return 0;
}

/*
 * bytes(in_) as upstream (bytes, or an object with __bytes__); a new
 * reference or NULL.  An int is refused (bytes(5) would be 5 zero bytes).
 */
PyObject *pv_mlx5_mailbox_in(PyObject *in)
{
	if (PyLong_Check(in)) {
		PyErr_Format(PyExc_TypeError,
			     "in_ must be bytes or have __bytes__, not %.100s",
			     Py_TYPE(in)->tp_name);
		return NULL;
	}
	return PyObject_Bytes(in);
}

int pv_mlx5_arg_type_error(const char *arg, const char *expected, PyObject *got)
{
	PyErr_Format(PyExc_TypeError,
		     "Argument '%s' has incorrect type "
		     "(expected %s, got %.100s)",
		     arg, expected, Py_TYPE(got)->tp_name);
	return -1;
}

ssize_t pv_mlx5_blocking(struct pv_obj *o, struct pv_obj *o2,
			 ssize_t (*fn)(void *arg), void *arg, int *err)
{
	ssize_t r;

	pv_busy_enter(o);
	if (o2)
		pv_busy_enter(o2);
	for (;;) {
		Py_BEGIN_ALLOW_THREADS
		r = fn(arg);
		*err = r < 0 ? errno : 0;
		Py_END_ALLOW_THREADS
		/* interrupted by a signal: run its handler, then wait on */
		if (r >= 0 || *err != EINTR || PyErr_CheckSignals())
			break;
	}
	if (o2)
		pv_busy_leave(o2);
	pv_busy_leave(o);
	return r;
}
