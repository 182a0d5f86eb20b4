/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The argument helpers the mlx5 families share: the open Context argument
 * of a static method, the keyword values of an attribute's __init__ stored
 * into its fields, a DevX mailbox's bytes, Cython's TypeError for a typed
 * argument, a blocking call run without the GIL, the bytes of an object
 * and 8-byte modify-header actions.  The lowest unit of the provider: it uses only the core, so a
 * family calls it without reaching into another family's file.
 */
#include "mlx5.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>
#include <string.h>

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

PyObject *pv_mlx5_bytes(PyObject *o, const char *what)
{
	PyObject *b;

	if (PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be bytes, not int",
			     what);
		return NULL;
	}
	b = PyObject_Bytes(o);
	if (!b && PyErr_ExceptionMatches(PyExc_TypeError)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s must be bytes, not %.100s",
			     what, Py_TYPE(o)->tp_name);
	}
	return b;
}

int pv_mlx5_action8(PyObject *o, uint64_t *out, const char *what)
{
	PyObject *b = pv_mlx5_bytes(o, what);

	if (!b)
		return -1;
	if (PyBytes_GET_SIZE(b) != 8) {
		PyErr_Format(PyExc_ValueError, "%s must be 8 bytes, not %zd",
			     what, PyBytes_GET_SIZE(b));
		Py_DECREF(b);
		return -1;
	}
	memcpy(out, PyBytes_AS_STRING(b), 8);
	Py_DECREF(b);
	return 0;
}

uint64_t *pv_mlx5_actions8(PyObject *actions, size_t *n)
{
	PyObject *seq;
	uint64_t *buf;
	Py_ssize_t i, len;

	seq = actions ? PySequence_Fast(actions, "actions must be a list of "
						 "8-byte actions") :
			PyList_New(0);
	if (!seq)
		return NULL;
	len = PySequence_Fast_GET_SIZE(seq);
	buf = PyMem_Calloc(len ? len : 1, sizeof(*buf));
	if (!buf) {
		Py_DECREF(seq);
		PyErr_NoMemory();
		return NULL;
	}
	for (i = 0; i < len; i++)
		if (pv_mlx5_action8(PySequence_Fast_GET_ITEM(seq, i), &buf[i],
				    "actions item")) {
			PyMem_Free(buf);
			Py_DECREF(seq);
			return NULL;
		}
	Py_DECREF(seq);
	*n = (size_t)len;
	return buf;
}
