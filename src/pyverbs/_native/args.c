/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The fast argument parser (args.h): a signature's positional and keyword
 * arguments into an array, keyword names matched by identity with interned
 * copies first.
 */
#include "args.h" /* first: Python.h defines _GNU_SOURCE */

#include <string.h>

/* ------------------------------------------------------------------ */
/* Argument parsing for the data-path constructors and methods         */
/* ------------------------------------------------------------------ */

static int sig_assign(const struct pv_args_sig *s, PyObject *name,
		      PyObject *val, PyObject **out)
{
	int i;

	for (i = 0; i < s->nparams; i++)
		if (s->inames[i] == name)
			goto found;
	if (!PyUnicode_Check(name)) {
		PyErr_Format(PyExc_TypeError, "%s() keywords must be strings",
			     s->fname);
		return -1;
	}
	for (i = 0; i < s->nparams; i++)
		if (PyUnicode_Compare(s->inames[i], name) == 0)
			goto found;
	if (PyErr_Occurred())
		return -1;
	PyErr_Format(PyExc_TypeError,
		     "%s() got an unexpected keyword argument '%U'", s->fname,
		     name);
	return -1;
found:
	if (out[i]) {
		PyErr_Format(PyExc_TypeError,
			     "%s() got multiple values for argument '%s'",
			     s->fname, s->names[i]);
		return -1;
	}
	out[i] = val;
	return 0;
}

static int sig_positional(const struct pv_args_sig *s, PyObject *const *args,
			  Py_ssize_t nargs, PyObject **out)
{
	Py_ssize_t i;

	memset(out, 0, s->nparams * sizeof(*out));
	if (nargs > s->npos) {
		PyErr_Format(PyExc_TypeError,
			     "%s() takes at most %d positional arguments (%zd "
			     "given)",
			     s->fname, s->npos, nargs);
		return -1;
	}
	for (i = 0; i < nargs; i++)
		out[i] = args[i];
	return 0;
}

static int sig_required(const struct pv_args_sig *s, PyObject **out)
{
	int i;

	for (i = 0; i < s->nreq; i++)
		if (!out[i]) {
			PyErr_Format(PyExc_TypeError,
				     "%s() missing required argument '%s'",
				     s->fname, s->names[i]);
			return -1;
		}
	return 0;
}

/* Vectorcall / METH_FASTCALL|METH_KEYWORDS arguments into out[]. */
int pv_args_parse(const struct pv_args_sig *s, PyObject *const *args,
		  Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
	if (sig_positional(s, args, nargs, out))
		return -1;
	if (kwnames) {
		Py_ssize_t k, n = PyTuple_GET_SIZE(kwnames);

		for (k = 0; k < n; k++)
			if (sig_assign(s, PyTuple_GET_ITEM(kwnames, k),
				       args[nargs + k], out))
				return -1;
	}
	return sig_required(s, out);
}

/* tp_init style arguments into out[]. */
int pv_args_parse_tuple(const struct pv_args_sig *s, PyObject *args,
			PyObject *kw, PyObject **out)
{
	if (sig_positional(s, &PyTuple_GET_ITEM(args, 0),
			   PyTuple_GET_SIZE(args), out))
		return -1;
	if (kw) {
		Py_ssize_t pos = 0;
		PyObject *k, *v;

		while (PyDict_Next(kw, &pos, &k, &v))
			if (sig_assign(s, k, v, out))
				return -1;
	}
	return sig_required(s, out);
}

int pv_args_intern(struct pv_args_sig *s)
{
	int i;

	s->inames = PyMem_RawCalloc(s->nparams, sizeof(PyObject *));
	if (!s->inames) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < s->nparams; i++) {
		/* kept for the life of the process, like the types */
		s->inames[i] = PyUnicode_InternFromString(s->names[i]);
		if (!s->inames[i])
			return -1;
	}
	return 0;
}
