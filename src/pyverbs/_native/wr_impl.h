/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Private to the work-request files: what wr.c (the shared machinery and
 * the registration of the types), sge.c (SGE), recv_wr.c (RecvWR, OpsWr)
 * and send_wr.c (SendWR) need from one another.  The helpers that the
 * constructors call on every WR are static inline here, so that they still
 * inline into each type's data path.
 */
#ifndef PV_WR_IMPL_H
#define PV_WR_IMPL_H

#include "args.h"
#include "field.h"
#include "state.h"

#include <infiniband/verbs.h>
#include <string.h>

/* num_sge given by the caller: C int, >= 0 (NULL: -1, "not given"). */
static inline int pv_wr_num_sge(PyObject *v, int *out)
{
	int64_t x;

	if (!v) {
		*out = -1;
		return 0;
	}
	if (pv_to_i64(v, 0, INT_MAX, &x, "num_sge"))
		return -1;
	*out = (int)x;
	return 0;
}

/* ------------------------------------------------------------------ */
/* SGEs and their storage in a WR                                      */
/* ------------------------------------------------------------------ */

static inline int pv_wr_is_sge(PyObject *o)
{
	return Py_IS_TYPE(o, pv.SGE) || PyObject_TypeCheck(o, pv.SGE);
}

/* wr.c */
int pv_wr_sg_collect(const char *fname, PyObject *sg, int *num_sge,
		     PyObject *const **items, int *none, PyObject **one);
int pv_wr_sg_store(struct ibv_sge **list, struct ibv_sge *inl,
		   PyObject *const *items, int n);

/* Lazily GC-tracked: a WR only joins the collector once it holds a
 * reference (next_wr, ah). */
static inline void pv_wr_track(PyObject *self)
{
	if (!PyObject_GC_IsTracked(self))
		PyObject_GC_Track(self);
}

/* A zeroed, untracked object of type tp (exact: the type itself). */
static inline PyObject *pv_wr_alloc(PyTypeObject *tp, PyTypeObject *exact,
				    size_t size)
{
	PyObject *o;

	if (tp != exact)
		return tp->tp_alloc(tp, 0);
	o = PyObject_GC_New(PyObject, tp); /* untracked; refs tp */
	if (o)
		memset((char *)o + sizeof(PyObject), 0,
		       size - sizeof(PyObject));
	return o;
}

/* ------------------------------------------------------------------ */
/* What RecvWR, SendWR and OpsWr share                                 */
/* ------------------------------------------------------------------ */

/*
 * The WR objects have the same members around different C structs (struct
 * ibv_recv_wr, struct ibv_send_wr, struct ibv_ops_wr), so the members sit
 * at different offsets.  A kind gives them to one implementation of what
 * all do: chaining (next_wr), the SGE attributes, copying, deallocating.  The
 * kinds are constant, so the compiler can fold them into the data path's
 * inline helpers.
 */
struct pv_wr_kind {
	const char *name;	       /* "SendWR", for messages */
	PyTypeObject **type;	       /* what next_wr may be */
	size_t wr, wr_size;	       /* the struct ibv_*_wr */
	size_t next, sg_list, num_sge; /* of its members */
	size_t sge_inline, sg_cap, next_wr;
	inquiry clear; /* the type's tp_clear */
};

/* sg: where the WR struct keeps sg_list and num_sge ("wr.", "wr.tm.add.") */
#define PV_WR_KIND_SG(st, cls, tp, clear_fn, sg)  \
	{ .name = (cls),                          \
	  .type = (tp),                           \
	  .wr = offsetof(st, wr),                 \
	  .wr_size = sizeof(((st *)0)->wr),       \
	  .next = offsetof(st, wr.next),          \
	  .sg_list = offsetof(st, sg sg_list),    \
	  .num_sge = offsetof(st, sg num_sge),    \
	  .sge_inline = offsetof(st, sge_inline), \
	  .sg_cap = offsetof(st, sg_cap),         \
	  .next_wr = offsetof(st, next_wr),       \
	  .clear = (clear_fn) }
#define PV_WR_KIND(st, cls, tp, clear_fn) \
	PV_WR_KIND_SG(st, cls, tp, clear_fn, wr.)

/* The member of WR object o at offset off (wr.next is reached as a void *:
 * its C type differs between the kinds). */
#define PV_WR_AT(o, off, type) ((type *)((char *)(o) + (off)))

/* wr.c */
int pv_wr_check_next(PyObject *self, const struct pv_wr_kind *k,
		     PyObject *next);

/* Chain next (checked, or NULL) after self: wr.next and next_wr. */
static inline void pv_wr_link(PyObject *self, const struct pv_wr_kind *k,
			      PyObject *next)
{
	*PV_WR_AT(self, k->next, void *) = next ? PV_WR_AT(next, k->wr, void) :
						  NULL;
	Py_XSETREF(*PV_WR_AT(self, k->next_wr, PyObject *), Py_XNewRef(next));
	if (next)
		pv_wr_track(self);
}

/* wr.c: the getters and setters of PV_WR_GETSET (closure: the kind) */
PyObject *pv_wr_get_next(PyObject *obj, void *closure);
int pv_wr_set_next(PyObject *obj, PyObject *val, void *closure);
PyObject *pv_wr_get_num_sge(PyObject *obj, void *closure);
int pv_wr_set_num_sge(PyObject *obj, PyObject *val, void *closure);
PyObject *pv_wr_get_sg(PyObject *obj, void *closure); /* sge.c */
int pv_wr_set_sg(PyObject *obj, PyObject *val, void *closure);

/* The members that all the WR types have, in their tp_getset. */
#define PV_WR_GETSET(kind, cls)                                                        \
	{ "num_sge", pv_wr_get_num_sge, pv_wr_set_num_sge,                             \
	  "Number of SGEs used (at most the number stored).",                          \
	  (void *)&(kind) },                                                           \
		{ "next_wr", pv_wr_get_next, pv_wr_set_next,                           \
		  "The next " cls " of the list, or None.", (void *)&(kind) },         \
	{                                                                              \
		"sg_list", pv_wr_get_sg, pv_wr_set_sg,                                 \
			"The SGEs, as a list of copies; set from an SGE or a list of " \
			"SGEs.",                                                       \
			(void *)&(kind)                                                \
	}

/* wr.c */
int pv_wr_copy(PyObject *dst, PyObject *src, const struct pv_wr_kind *k);
void pv_wr_dealloc(PyObject *self, const struct pv_wr_kind *k,
		   destructor dealloc);

/* wr.c: close() and the context manager, which every WR type has */
PyObject *pv_wr_close(PyObject *self, PyObject *unused);
PyObject *pv_wr_enter(PyObject *self, PyObject *unused);
PyObject *pv_wr_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs);

#define PV_WR_CM_METHODS                                                   \
	{ "close", pv_wr_close, METH_NOARGS,                               \
	  "close($self, /)\n--\n\nDoes nothing: the memory is freed "      \
	  "with the object (upstream compatibility)." },                   \
		{ "__enter__", pv_wr_enter, METH_NOARGS,                   \
		  "__enter__($self, /)\n--\n\nReturns the object." },      \
		{ "__exit__", (PyCFunction)(void (*)(void))pv_wr_exit,     \
		  METH_FASTCALL,                                           \
		  "__exit__($self, /, *exc_info)\n--\n\nDoes nothing (as " \
		  "close())." }

/* ------------------------------------------------------------------ */
/* Types registration                                                  */
/* ------------------------------------------------------------------ */

/*
 * What pv_wr_add_type() (wr.c) needs to register a type: its spec, its
 * plain fields and other attributes, where the type object goes, the
 * vectorcall constructor of the exact type (or NULL) and the signatures to
 * intern first (NULL-terminated).
 */
struct pv_wr_type {
	PyType_Spec *spec;
	const struct pv_field *fields;
	const PyGetSetDef *extra;
	PyTypeObject **slot;
	vectorcallfunc vc;
	struct pv_args_sig *const *sigs;
};

/* Intern t's signatures, make its type.  0 or -1.  Each file registers
 * its own types with it (module.c calls their init functions). */
int pv_wr_add_type(PyObject *m, const struct pv_wr_type *t);

#endif
