/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * What cq.c (CompChannel, CQ, WC) shares with cqex.c (the extended CQ):
 * the lifetime and the common methods and attributes of both CQ types.
 * cqex.c calls down into cq.c, never the other way.
 */
#ifndef PV_CQ_IMPL_H
#define PV_CQ_IMPL_H

#include "cq.h"
#include "object.h"

struct pv_context;

/* The one argument (positional or kwname) of fname; 0 or -1. */
int pv_cq_one_arg(const char *fname, const char *kwname, PyObject *const *args,
		  Py_ssize_t nargs, PyObject *kwnames, PyObject **out);
int pv_cq_destroy(struct pv_obj *o);
/* The Context of a CQ or CQEX being initialised (ctxo, type-checked), or
 * NULL with an exception ("<name> is already initialised", TypeError). */
struct pv_context *pv_cq_init_context(struct pv_cq *self, PyObject *ctxo,
				      const char *name);
/* ctx open, channel None or an open CompChannel of ctx; 0 or -1. */
int pv_cq_check_parents(struct pv_context *ctx, PyObject *channel);
/* After creation: link the parents; on failure destroy the CQ again. */
int pv_cq_link_parents(struct pv_cq *self, struct pv_context *ctx,
		       PyObject *channel);
PyObject *pv_cq_req_notify(PyObject *obj, PyObject *const *args,
			   Py_ssize_t nargs, PyObject *kwnames);
PyObject *pv_cq_ack_events(PyObject *obj, PyObject *args, PyObject *kw);
int pv_cq_traverse(PyObject *obj, visitproc visit, void *arg);
int pv_cq_clear(PyObject *obj);
PyObject *pv_cq_repr(PyObject *obj);

PyObject *pv_cq_get_cq(PyObject *obj, void *closure);
PyObject *pv_cq_get_cqe(PyObject *obj, void *closure);
PyObject *pv_cq_get_handle(PyObject *obj, void *closure);
PyObject *pv_cq_get_comp_channel(PyObject *obj, void *closure);
PyObject *pv_cq_get_num_events(PyObject *obj, void *closure);
PyObject *pv_cq_get_cq_context(PyObject *obj, void *closure);
PyObject *pv_cq_get_ctx(PyObject *obj, void *closure);

/* The attributes of both CQ and CQEX; the docs name their own struct and
 * where cq_context comes from. */
#define CQ_GETSET(cq_doc, cq_context_doc)                                       \
	{ "cq", pv_cq_get_cq, NULL, cq_doc, NULL },                             \
		{ "cqe", pv_cq_get_cqe, NULL,                                   \
		  "The actual number of CQ entries.", NULL },                   \
		{ "handle", pv_cq_get_handle, NULL,                             \
		  "The kernel handle of the CQ.", NULL },                       \
		{ "comp_channel", pv_cq_get_comp_channel, NULL,                 \
		  "The CompChannel of the CQ, or None.", NULL },                \
		{ "num_events", pv_cq_get_num_events, NULL,                     \
		  "Completion events got by get_cq_event() and not acked yet.", \
		  NULL },                                                       \
		{ "cq_context", pv_cq_get_cq_context, NULL, cq_context_doc,     \
		  NULL },                                                       \
	{                                                                       \
		"ctx", pv_cq_get_ctx, NULL, "The Context of the CQ.", NULL      \
	}

#endif
