/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Raising pyverbs exceptions from C.  The exception classes themselves are
 * the Python classes of pyverbs.pyverbs_error, looked up once at import.
 */
#include "errors.h"
#include "state.h"

#include <errno.h>
#include <stdarg.h>

/* Build PyverbsRDMAError(msg, rc) with .func = func and raise it. */
static PyObject *raise_rdma(int rc, const char *func, PyObject *msg)
{
	PyObject *exc;

	if (!msg)
		return NULL;
	exc = PyObject_CallFunction(pv.PyverbsRDMAError, "Ois", msg, rc, func);
	Py_DECREF(msg);
	if (!exc)
		return NULL;
	PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	Py_DECREF(exc);
	return NULL;
}

PyObject *pv_raise_rc(int rc, const char *func, const char *fmt, ...)
{
	va_list ap;
	PyObject *msg;

	/* Some calls return -errno, some errno: report the positive value. */
	if (rc < 0)
		rc = -rc;
	va_start(ap, fmt);
	msg = PyUnicode_FromFormatV(fmt, ap);
	va_end(ap);
	return raise_rdma(rc, func, msg);
}

PyObject *pv_raise_code(int code, const char *func, const char *fmt, ...)
{
	va_list ap;
	PyObject *msg;

	va_start(ap, fmt);
	msg = PyUnicode_FromFormatV(fmt, ap);
	va_end(ap);
	return raise_rdma(code, func, msg);
}

PyObject *pv_raise_errno(const char *func, const char *fmt, ...)
{
	int err = errno; /* before anything else can change it */
	va_list ap;
	PyObject *msg;

	if (!err)
		err = EINVAL;
	va_start(ap, fmt);
	msg = PyUnicode_FromFormatV(fmt, ap);
	va_end(ap);
	return raise_rdma(err, func, msg);
}

static PyObject *raise_plain(PyObject *cls, const char *fmt, va_list ap)
{
	PyObject *msg = PyUnicode_FromFormatV(fmt, ap);

	if (!msg)
		return NULL;
	PyErr_SetObject(cls, msg);
	Py_DECREF(msg);
	return NULL;
}

/* name(fmt, ...) raises cls(message) and returns NULL. */
#define RAISE_PLAIN(name, cls)               \
	PyObject *name(const char *fmt, ...) \
	{                                    \
		va_list ap;                  \
		va_start(ap, fmt);           \
		raise_plain(cls, fmt, ap);   \
		va_end(ap);                  \
		return NULL;                 \
	}
RAISE_PLAIN(pv_raise_user, pv.PyverbsUserError)
RAISE_PLAIN(pv_raise_error, pv.PyverbsError)

PyObject *pv_raise_unsupported(const char *what)
{
	return pv_raise_rc(EOPNOTSUPP, NULL,
			   "%s is not supported by the rdma-core this "
			   "pyverbs was built against",
			   what);
}

PyObject *pv_raise_needs(const char *what, int version)
{
	return pv_raise_rc(EOPNOTSUPP, NULL,
			   "%s needs rdma-core %d or later; this pyverbs was "
			   "built against an older one",
			   what, version);
}
