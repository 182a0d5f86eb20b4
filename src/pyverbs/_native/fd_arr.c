/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * FdArr (pyverbs.device): an array of file descriptors, struct ibv_fd_arr
 * (rdma-core 57: mlx5dv_context_attr's fds).  Plain data: the fds are kept
 * in the object, whichever rdma-core it is built against; where the struct
 * exists pv_fd_arr_get() fills one for a C call, which copies it (nothing
 * keeps a pointer into the object: close() frees the array at once, and a
 * closed FdArr is an empty one).
 */
#include "fd_arr.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "state.h"

#include <stdio.h>
#include <string.h>

struct pv_fd_arr {
	PyObject_HEAD
	int *arr; /* PyMem, n entries */
	uint32_t n;
	uint32_t count; /* the entries in use: count <= n */
};

/* The ints of sequence seq, in a new PyMem array *out of *n entries. */
static int fda_parse(PyObject *seq, int **out, uint32_t *n)
{
	PyObject *fast;
	Py_ssize_t len, i;
	int *arr = NULL;

	if (PyUnicode_Check(seq) || PyBytes_Check(seq) ||
	    PyByteArray_Check(seq)) {
		PyErr_Format(PyExc_TypeError,
			     "arr must be a sequence of ints, not %.100s",
			     Py_TYPE(seq)->tp_name);
		return -1;
	}
	fast = PySequence_Fast(seq, "arr must be a sequence of ints");
	if (!fast)
		return -1;
	len = PySequence_Fast_GET_SIZE(fast);
	if ((uint64_t)len > UINT32_MAX) {
		PyErr_SetString(PyExc_OverflowError, "arr is too long");
		goto err;
	}
	arr = PyMem_Calloc(len ? len : 1, sizeof(*arr));
	if (!arr) {
		PyErr_NoMemory();
		goto err;
	}
	for (i = 0; i < len; i++)
		if (!pv_conv_int(PySequence_Fast_GET_ITEM(fast, i), &arr[i]))
			goto err;
	Py_DECREF(fast);
	*out = arr;
	*n = (uint32_t)len;
	return 0;
err:
	PyMem_Free(arr);
	Py_DECREF(fast);
	return -1;
}

/* 0 if count entries of n can be passed, else -1 (PyverbsUserError). */
static int fda_count_ok(uint32_t count, uint32_t n)
{
	if (count <= n)
		return 0;
	pv_raise_user("count %u exceeds the %u entries of arr", count, n);
	return -1;
}

/* Set arr (sequence of ints) and count, or change nothing. */
static int fda_set(struct pv_fd_arr *self, PyObject *seq, uint32_t count)
{
	uint32_t n;
	int *arr;

	if (fda_parse(seq, &arr, &n))
		return -1;
	if (fda_count_ok(count, n)) {
		PyMem_Free(arr);
		return -1;
	}
	PyMem_Free(self->arr);
	self->arr = arr;
	self->n = n;
	self->count = count;
	return 0;
}

static int fda_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "arr", "count", NULL };
	PyObject *arr = NULL, *empty = NULL;
	uint32_t count = 0;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO&:FdArr", kwlist, &arr,
					 pv_conv_u32, &count))
		return -1;
	if (!arr) {
		arr = empty = PyList_New(0);
		if (!arr)
			return -1;
	}
	rc = fda_set((struct pv_fd_arr *)obj, arr, count);
	Py_XDECREF(empty);
	return rc;
}

/* The first n fds, as a list. */
static PyObject *fda_list(struct pv_fd_arr *self, uint32_t n)
{
	PyObject *l = PyList_New(n);
	uint32_t i;

	for (i = 0; l && i < n; i++) {
		PyObject *v = PyLong_FromLong(self->arr[i]);

		if (!v) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, i, v);
	}
	return l;
}

static PyObject *fda_get_arr(PyObject *obj, void *closure)
{
	return fda_list((struct pv_fd_arr *)obj, ((struct pv_fd_arr *)obj)->n);
}

static int fda_set_arr(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_fd_arr *self = (struct pv_fd_arr *)obj;

	if (pv_refuse_delete(v, "arr"))
		return -1;
	return fda_set(self, v, self->count);
}

static PyObject *fda_get_count(PyObject *obj, void *closure)
{
	return PyLong_FromUnsignedLong(((struct pv_fd_arr *)obj)->count);
}

static int fda_set_count(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_fd_arr *self = (struct pv_fd_arr *)obj;
	uint32_t count;

	if (pv_refuse_delete(v, "count") || !pv_conv_u32(v, &count) ||
	    fda_count_ok(count, self->n))
		return -1;
	self->count = count;
	return 0;
}

static PyGetSetDef fda_getset[] = {
	{ "arr", fda_get_arr, fda_set_arr,
	  "The file descriptors (a list of ints).", NULL },
	{ "count", fda_get_count, fda_set_count,
	  "How many of them are passed (at most len(arr)).", NULL },
	{ NULL }
};

static PyObject *fda_repr(PyObject *obj)
{
	PyObject *arr = fda_get_arr(obj, NULL), *r;

	if (!arr)
		return NULL;
	r = PyUnicode_FromFormat("FdArr(%R, %u)", arr,
				 ((struct pv_fd_arr *)obj)->count);
	Py_DECREF(arr);
	return r;
}

/*
 * Upstream's layout (rdma-core 57), the fds passed: the first count.  (Its
 * own __str__ raises TypeError, formatting a list with a width.)
 */
static PyObject *fda_str(PyObject *obj)
{
	struct pv_fd_arr *self = (struct pv_fd_arr *)obj;
	PyObject *l = fda_list(self, self->count), *rep, *r = NULL;
	const char *s;
	char *buf;
	size_t size;

	if (!l)
		return NULL;
	rep = PyObject_Str(l);
	Py_DECREF(l);
	s = rep ? PyUnicode_AsUTF8(rep) : NULL;
	if (!s)
		goto out;
	size = strlen(s) + 128;
	buf = PyMem_Malloc(size);
	if (!buf) {
		PyErr_NoMemory();
		goto out;
	}
	snprintf(buf, size, "%-20s: %-20u\n%-20s: %-20s\n",
		 "Number of fd in arr", self->count, "FDs in arr", s);
	r = PyUnicode_FromString(buf);
	PyMem_Free(buf);
out:
	Py_XDECREF(rep);
	return r;
}

/* close(): free the array now; the FdArr is then empty (idempotent). */
static PyObject *fda_close(PyObject *obj, PyObject *unused)
{
	struct pv_fd_arr *self = (struct pv_fd_arr *)obj;

	PyMem_Free(self->arr);
	self->arr = NULL;
	self->n = 0;
	self->count = 0;
	Py_RETURN_NONE;
}

static PyMethodDef fda_methods[] = {
	{ "close", fda_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Free the array: the FdArr is empty from then on (arr [], count "
	  "0); closing again does nothing." },
	{ NULL }
};

static void fda_dealloc(PyObject *obj)
{
	PyTypeObject *tp = Py_TYPE(obj);

	PyMem_Free(((struct pv_fd_arr *)obj)->arr);
	tp->tp_free(obj);
	Py_DECREF(tp);
}

#if HAVE_STRUCT_IBV_FD_ARR
int pv_fd_arr_get(PyObject *o, struct ibv_fd_arr *out)
{
	struct pv_fd_arr *self = (struct pv_fd_arr *)o;

	if (!PyObject_TypeCheck(o, pv.FdArr)) {
		PyErr_Format(PyExc_TypeError,
			     "fds must be an FdArr, not %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	out->arr = self->count ? self->arr : NULL;
	out->count = self->count;
	return 0;
}
#endif

PV_TYPE_SPEC(fda, "pyverbs.device.FdArr", struct pv_fd_arr,
	     "FdArr(arr=[], count=0)\n--\n\n"
	     "An array of file descriptors (struct ibv_fd_arr): arr, a "
	     "sequence of ints, of which the first count are passed.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, fda_init },
	     { Py_tp_getset, fda_getset }, { Py_tp_methods, fda_methods },
	     { Py_tp_repr, fda_repr }, { Py_tp_str, fda_str },
	     { Py_tp_dealloc, fda_dealloc }, );

int pv_fd_arr_init_types(PyObject *m)
{
	return pv_add_type(m, &fda_spec, pv.PyverbsObject, &pv.FdArr);
}
