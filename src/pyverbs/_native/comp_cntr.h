/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * comp_cntr.c: completion counters.  The methods it gives other types
 * (their method tables name these; comp_cntr.c calls neither file back):
 *   Context.query_comp_cntr_caps() -> CompCntrCaps
 *   QP.attach_comp_cntr(comp_cntr, attr)
 * and to providers, the creation hook of CompCntr's subclasses.
 */
#ifndef PV_COMP_CNTR_H
#define PV_COMP_CNTR_H

#include "base.h"
#include "object.h"

PyObject *pv_ctx_query_comp_cntr_caps(PyObject *self, PyObject *unused);

/*
 * The creation hook of CompCntr and its provider subclasses (EfaCompCntr):
 * pv_comp_cntr_setup() checks the arguments (ctx a Context, attr a
 * CompCntrInitAttr), then create() makes the counter from attr's values
 * (arg the caller's); it returns NULL with an exception set on failure.
 * The object is then a child of its Context, destroyed by
 * ibv_destroy_comp_cntr.  create NULL, or a build without the counter
 * calls, raises the error naming func and rdma-core 65.  0 or -1.
 */
struct ibv_context;
struct ibv_comp_cntr;
struct ibv_comp_cntr_init_attr;

/* A CompCntr; parents[0] is the Context */
struct pv_comp_cntr {
	struct pv_obj obj;
	struct ibv_comp_cntr *cntr;
};

typedef struct ibv_comp_cntr *(*pv_comp_cntr_create_fn)(
	struct ibv_context *ctx, struct ibv_comp_cntr_init_attr *attr,
	void *arg);
int pv_comp_cntr_setup(PyObject *self, PyObject *ctx, PyObject *attr,
		       const char *func, pv_comp_cntr_create_fn create,
		       void *arg);
PyObject *pv_qp_attach_comp_cntr(PyObject *self, PyObject *args, PyObject *kw);

#endif /* PV_COMP_CNTR_H */
