/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_CQ_H
#define PV_CQ_H

#include "object.h"

#include <infiniband/verbs.h>

/* cq.c; CompChannel parents[0] is the Context */
struct pv_comp_channel {
	struct pv_obj obj;
	struct ibv_comp_channel *cc;
};

/*
 * cq.c: a CQ or a CQEX (both types share this struct).  parents[0] is the
 * Context, then the CompChannel if any (channel), then the ParentDomain if
 * any (CQEX only).  The C cq_context of the ibv_cq is this object itself
 * (borrowed: valid while the CQ is open); the user's cq_context object is
 * held in cq_context.
 */
struct pv_cq {
	struct pv_obj obj;
	struct ibv_cq *cq;		 /* also ibv_cq_ex_to_cq(cq_ex) */
	struct ibv_cq_ex *cq_ex;	 /* CQEX only, else NULL */
	PyObject *cq_context;		 /* strong, or NULL */
	struct pv_comp_channel *channel; /* borrowed: a parent, or NULL */
	unsigned int num_events;	 /* events got but not acked yet */
	unsigned char polling;		 /* CQEX: between start_poll() == 0 and
				 * end_poll() */
	unsigned char current; /* CQEX: the current completion is valid */
};

/* The struct pv_cq of a CQ or CQEX object o that is open; else NULL with
 * TypeError (not a CQ/CQEX, 'what' names the argument) or PyverbsUserError
 * (closed). */
struct pv_cq *pv_cq_from_obj(PyObject *o, const char *what);
/* Is o a CQ or a CQEX (open or not)? */
int pv_is_cq(PyObject *o);
/*
 * cqex.c: the body of CQEX.__init__, for provider subclasses (Mlx5CQ, ...):
 * check the Context ctxo and the CqInitAttrEx ia (or None), create the CQ
 * with create(ctx, attr, arg) -- NULL: ibv_create_cq_ex -- which returns
 * the CQ, or NULL with an exception set, then link and open obj.
 */
typedef struct ibv_cq_ex *(*pv_cqex_create_fn)(struct ibv_context *ctx,
					       struct ibv_cq_init_attr_ex *attr,
					       void *arg);
int pv_cqex_setup(PyObject *obj, PyObject *ctxo, PyObject *ia,
		  pv_cqex_create_fn create, void *arg);

/* cq.c: a work completion, plain data */
struct pv_wc {
	PyObject_HEAD
	struct ibv_wc wc;
};
/* A new WC holding a copy of *wc (data path: one allocation, a memcpy). */
PyObject *pv_wc_new(const struct ibv_wc *wc);
/* pyverbs._verbs._clear_free_lists() (cq.c) */
PyObject *pv_cq_clear_free_lists(PyObject *m, PyObject *unused);

#endif /* PV_CQ_H */
