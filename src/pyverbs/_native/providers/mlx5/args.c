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
#include "context.h"
#include "errors.h"
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
		PV_BLOCKING_BEGIN
		r = fn(arg);
		*err = r < 0 ? errno : 0;
		PV_BLOCKING_END
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

PyObject *pv_mlx5_export_size(int which)
{
#if HAVE_MLX5DV_DEVX_OBJ_EXPORT
	struct mlx5dv_export_sizes sizes;

	memset(&sizes, 0, sizeof(sizes));
	mlx5dv_get_export_sizes(&sizes); /* inline: _mlx5dv_get_export_sizes */
	switch (which) {
	case PV_MLX5_EXPORT_VAR:
		return PyLong_FromUnsignedLong(sizes.var_attrs_size);
	case PV_MLX5_EXPORT_UMEM:
		return PyLong_FromUnsignedLong(sizes.devx_umem_attrs_size);
	default:
		return PyLong_FromUnsignedLong(sizes.devx_obj_attrs_size);
	}
#else
	(void)which;
	return pv_raise_needs("mlx5dv_get_export_sizes", 63);
#endif
}

/* The export size of which as a C value; 0 with an exception set. */
static size_t export_size(int which)
{
	PyObject *n = pv_mlx5_export_size(which);
	size_t v;

	if (!n)
		return 0;
	v = PyLong_AsSize_t(n);
	Py_DECREF(n);
	if (v == (size_t)-1 && PyErr_Occurred())
		return 0;
	if (!v)
		pv_raise_user("libmlx5 reports an empty export");
	return v;
}

PyObject *pv_mlx5_export(int which, int (*fn)(void *handle, void *data),
			 void *handle, const char *func, const char *msg)
{
	PyObject *b;
	size_t size;
	int rc;

	if (!fn)
		return pv_raise_needs(func, 63);
	size = export_size(which);
	if (!size)
		return NULL;
	b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
	if (!b)
		return NULL;
	memset(PyBytes_AS_STRING(b), 0, size);
	rc = fn(handle, PyBytes_AS_STRING(b)); /* an errno value */
	if (rc) {
		Py_DECREF(b);
		return pv_raise_rc(rc, func, "%s", msg);
	}
	return b;
}

PyObject *pv_mlx5_import(PyObject *args, PyObject *kw,
			 const struct pv_mlx5_import *imp)
{
	static char *kwlist[] = { "context", "data", NULL };
	PyObject *ctxo, *data, *empty, *o = NULL;
	struct pv_context *ctx;
	Py_buffer view;
	size_t size;
	void *h;

	if (!PyArg_ParseTupleAndKeywords(args, kw, imp->fmt, kwlist, &ctxo,
					 &data) ||
	    !pv_mlx5_ctx_arg(ctxo, "context"))
		return NULL;
	if (!imp->import)
		return pv_raise_needs(imp->func, 63);
	size = export_size(imp->which);
	if (!size || PyObject_GetBuffer(data, &view, PyBUF_SIMPLE))
		return NULL;
	/* libmlx5 reads the whole export: a shorter buffer would be read
	 * past its end */
	if ((size_t)view.len != size) {
		PyErr_Format(PyExc_ValueError,
			     "data must be the %zu bytes of an export, not %zd",
			     size, view.len);
		goto out;
	}
	ctx = pv_mlx5_ctx_arg(ctxo, "context"); /* checked again after the
						  * buffer's code */
	empty = ctx ? PyTuple_New(0) : NULL;
	o = empty ? imp->type->tp_new(imp->type, empty, NULL) : NULL;
	Py_XDECREF(empty);
	if (!o)
		goto out;
	h = imp->import(ctx->ctx, view.buf); /* NULL + errno */
	if (!h) {
		pv_raise_errno(imp->func, "%s", imp->msg);
		Py_CLEAR(o);
		goto out;
	}
	imp->adopt(o, h);
	if (pv_obj_link(PV_OBJ(o), &ctx->obj)) {
		pv_mlx5_undo_create(PV_OBJ(o));
		Py_CLEAR(o);
		goto out;
	}
	pv_obj_opened(PV_OBJ(o));
out:
	PyBuffer_Release(&view);
	return o;
}

void pv_mlx5_undo_create(struct pv_obj *o)
{
	PyObject *et, *ev, *tb;

	PyErr_Fetch(&et, &ev, &tb);
	if (o->destroy(o))
		PyErr_WriteUnraisable((PyObject *)o);
	PyErr_Restore(et, ev, tb);
}
