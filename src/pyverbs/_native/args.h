/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The fast argument parser of the data path (args.c): the constructors of
 * the WRs and SGEs and the data-path methods (MR.read/write, the QPEx
 * builders) take their arguments by vectorcall / METH_FASTCALL with
 * interned keyword names, and convert small ints without raising.
 */
#ifndef PV_ARGS_H
#define PV_ARGS_H

#include "base.h"
#include "field.h"

/* ------------------------------------------------------------------ */
/* Argument parsing for the data-path constructors and methods         */
/* ------------------------------------------------------------------ */

/*
 * A signature: names[0..npos) may be given by position, the rest only by
 * keyword; names[0..nreq) are required.  Keyword names are matched by
 * identity with interned copies first (call sites pass interned names),
 * then by value.
 */
struct pv_args_sig {
	const char *fname;
	const char *const *names;
	int nparams, npos, nreq;
	PyObject **inames; /* interned names, made at init */
};

#define PV_ARGS_MAX 16

/* args.c: vectorcall / METH_FASTCALL|METH_KEYWORDS arguments into out[] */
int pv_args_parse(const struct pv_args_sig *s, PyObject *const *args,
		  Py_ssize_t nargs, PyObject *kwnames, PyObject **out);

/* The same, inline for the usual call (by position only, all required
 * arguments given): nothing to check but the count.  Returns 0 or -1. */
static inline int pv_args_parse_vc(const struct pv_args_sig *s,
				   PyObject *const *args, Py_ssize_t nargs,
				   PyObject *kwnames, PyObject **out)
{
	Py_ssize_t i;

	if (kwnames || nargs < s->nreq || nargs > s->npos)
		return pv_args_parse(s, args, nargs, kwnames, out);
	for (i = 0; i < nargs; i++)
		out[i] = args[i];
	for (; i < s->nparams; i++)
		out[i] = NULL;
	return 0;
}
/* args.c: make s->inames (once, at type initialisation); 0 or -1 */
int pv_args_intern(struct pv_args_sig *s);
/* args.c: tp_init style arguments into out[] */
int pv_args_parse_tuple(const struct pv_args_sig *s, PyObject *args,
			PyObject *kw, PyObject **out);

/* A signature var, for function fn (for messages), with the given names. */
#define PV_ARGS_SIG(var, fn, npos_, nreq_, ...)                   \
	static const char *const var##_names[] = { __VA_ARGS__ }; \
	static struct pv_args_sig var = {                         \
		.fname = fn,                                      \
		.names = var##_names,                             \
		.nparams = sizeof(var##_names) / sizeof(char *),  \
		.npos = npos_,                                    \
		.nreq = nreq_,                                    \
	}

/* Unsigned conversion: small exact ints without a detour, the strict
 * converter (and its messages) for everything else.  NULL: keep *out. */
static inline int pv_args_u64(PyObject *v, uint64_t max, uint64_t *out,
			      const char *what)
{
	uint64_t x;

	if (!v)
		return 0;
	if (PyLong_CheckExact(v)) {
		int overflow;
		long long y;

		if (pv_long_small(v, &x)) {
			if (x <= max) {
				*out = x;
				return 0;
			}
		} else {
			y = PyLong_AsLongLongAndOverflow(v, &overflow);
			if (!overflow && y >= 0 &&
			    (unsigned long long)y <= max) {
				*out = y;
				return 0;
			}
		}
	}
	return pv_to_u64(v, max, out, what);
}

static inline int pv_args_u32(PyObject *v, uint32_t *out, const char *what)
{
	uint64_t x = *out;

	if (pv_args_u64(v, UINT32_MAX, &x, what))
		return -1;
	*out = x;
	return 0;
}

#endif
