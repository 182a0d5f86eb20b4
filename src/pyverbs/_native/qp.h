/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_QP_H
#define PV_QP_H

#include "object.h"
#include "post_probe.h"

#include <infiniband/verbs.h>

struct pv_pd;
struct pv_cq;
struct pv_srq;
struct pv_rwq_ind_table;

/*
 * qp.c; parents: PD (created by ibv_create_qp) or Context (ibv_create_qp_ex)
 * then the PD and XRCD of the init attributes if any, the send CQ, the
 * receive CQ when distinct, and the SRQ if any.  qp->qp_context is the QP
 * object itself (borrowed: the ibv_qp never outlives it), so an async event
 * can name its QP; the user's qp_context is kept in qp_context.
 */
struct pv_qp {
	struct pv_obj obj;
	struct ibv_qp *qp;
	struct pv_pd *pd;  /* borrowed: one of parents, or NULL */
	struct pv_cq *scq; /* borrowed */
	struct pv_cq *rcq; /* borrowed */
	struct pv_rwq_ind_table *ind_table; /* borrowed: a parent, or NULL */
	struct pv_srq *srq;		    /* borrowed: a parent, or NULL */
	PyObject *qp_context;
	enum ibv_qp_type qp_type;
	/*
	 * Provider QPs whose to_init/to_rtr/to_rts masks are not their
	 * qp_type's (upstream's _get_comp_mask overrides): NULL for the
	 * qp_type's table, else masks[0..2] for INIT, RTR, RTS (without
	 * IBV_QP_STATE, which is always added); a negative entry is a
	 * transition upstream has no mask for (KeyError).
	 */
	const int *masks;
	/* the multicast groups attach_mcast() joined: the kernel refuses to
	 * destroy a QP still attached, so destroy leaves them first */
	struct pv_qp_mcast *mcast;
	struct pv_post_probe send_probe, recv_probe;
};
struct pv_qp_mcast {
	union ibv_gid gid;
	uint16_t lid;
	struct pv_qp_mcast *next;
};
/* qp_rate_limit.c: QP.modify_rate_limit(attr) */
PyObject *pv_qp_modify_rate_limit(PyObject *obj, PyObject *arg);
/* qp.c: the slots of QP, which QPEx (qpex.c) and provider QPs extend. */
int pv_qp_destroy(struct pv_obj *o);
int pv_qp_init(PyObject *obj, PyObject *args, PyObject *kw);
/*
 * The creation hook of a provider QP.  pv_qp_create() and pv_qpx_create()
 * are QP.__init__ and QPEx.__init__ with that hook; the init attributes
 * are checked and filled in as for the verbs call the hook replaces, and
 * the QP adopts what the hook made.  Return 0 or -1.
 *   - create(self, ctx, attr, arg) (Mlx5QP: mlx5dv_create_qp) replaces
 *     ibv_create_qp_ex(): the creator must be a Context and init_attr a
 *     QPInitAttrEx;
 *   - create_on_pd(self, pd, attr, arg) (SRDQP: efadv_create_driver_qp)
 *     replaces ibv_create_qp() when the creator is a PD.
 * Each returns the QP, or NULL with an exception set; a NULL member keeps
 * the verbs call.
 */
struct pv_qp_create_hook {
	struct ibv_qp *(*create)(PyObject *self, struct ibv_context *ctx,
				 struct ibv_qp_init_attr_ex *attr, void *arg);
	void *arg;
	struct ibv_qp *(*create_on_pd)(PyObject *self, struct ibv_pd *pd,
				       struct ibv_qp_init_attr *attr,
				       void *arg);
};
int pv_qp_create(PyObject *obj, PyObject *creator, PyObject *init_attr,
		 PyObject *qp_attr, const struct pv_qp_create_hook *hook);
int pv_qpx_create(PyObject *obj, PyObject *creator, PyObject *init_attr,
		  PyObject *qp_attr, const struct pv_qp_create_hook *hook);
int pv_qp_traverse(PyObject *obj, visitproc visit, void *arg);
int pv_qp_clear(PyObject *obj);
/*
 * QP.query's work, shared with CMID.query_qp: ibv_query_qp() of the QP
 * that get(obj) returns, as a new (QPAttr, QPInitAttr) pair whose
 * QPInitAttr names the send and receive CQs, SRQ and qp_context of owner;
 * owner NULL (a CMID's QP, whose CQs and SRQ are librdmacm's): None.
 * get() (NULL with an exception: closed, no QP) runs once both objects are
 * made: making them may run the collector, whose finalizers may destroy
 * the QP (a CMID's goes with a CQ of its).
 */
PyObject *pv_qp_query_pair(PyObject *obj, struct ibv_qp *(*get)(PyObject *),
			   uint32_t mask, const struct pv_qp *owner);

/*
 * qpex.c: a QPEx (a QP with the ibv_wr_* send API).  qpx is NULL unless the
 * QP was created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS.  Between wr_start()
 * and wr_complete()/wr_abort() in_wr is set and held (a list) holds the AHs
 * given to wr_set_ud_addr() and the MWs and MRs given to wr_bind_mw(),
 * checked still open before wr_complete().  A batch is the thread's that
 * opened it (batch_owner, its PyThreadState): another thread's builders,
 * wr_complete() and wr_abort() are refused (pv_qpx_batch_refused()), so
 * that two threads never write into one WQE.
 */
struct pv_qp_ex {
	struct pv_qp qp;
	struct ibv_qp_ex *qpx;
	int in_wr;
	const void *batch_owner;
	PyObject *held;
};

/* Is a batch open on q, opened by this thread? */
static inline int pv_qpx_my_batch(const struct pv_qp_ex *q)
{
	return q->in_wr && q->batch_owner == (const void *)PyThreadState_Get();
}
/* Why this thread may not build on q now (no batch, or another thread's):
 * raises PyverbsUserError and returns -1. */
int pv_qpx_batch_refused(const struct pv_qp_ex *q);

#endif /* PV_QP_H */
