/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Queue pairs: QP (ibv_create_qp / ibv_create_qp_ex / ibv_destroy_qp) with
 * the state transitions, query, ECE and the data path (ibv_post_send /
 * ibv_post_recv).  The attribute objects live in qp_attr.c, the ibv_wr_*
 * API (QPEx) in qpex.c.
 *
 * Nothing reaches libibverbs that could make it dereference a bad pointer:
 * the objects behind the init attributes are checked open and of the QP's
 * Context at creation; post_send() checks every WR (post.c).
 */
#include "qp.h" /* first: Python.h defines _GNU_SOURCE */
#include "addr.h"
#include "comp_cntr.h"
#include "context.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "parent_domain.h"
#include "pd.h"
#include "post.h"
#include "post_probe.h"
#include "qp_attr.h"
#include "rwq_ind_table.h"
#include "srq.h"
#include "state.h"
#include "xrcd.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* QP: creation, destruction, state transitions                        */
/* ------------------------------------------------------------------ */

int pv_qp_destroy(struct pv_obj *o)
{
	struct pv_qp *self = (struct pv_qp *)o;
	int rc;

	if (!self->qp)
		return 0;
	while (self->mcast) {
		struct pv_qp_mcast *m = self->mcast;

		/* best effort: a group the kernel no longer has is fine */
		ibv_detach_mcast(self->qp, &m->gid, m->lid);
		self->mcast = m->next;
		PyMem_Free(m);
	}
	rc = ibv_destroy_qp(self->qp); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_qp", "Failed to destroy QP");
		return -1;
	}
	self->qp = NULL;
	self->pd = NULL;
	self->scq = self->rcq = NULL;
	self->ind_table = NULL;
	self->srq = NULL;
	return 0;
}

enum { QP_TO_INIT, QP_TO_RTR, QP_TO_RTS };

/*
 * The attribute mask upstream pyverbs uses for each transition of each QP
 * type (QP._get_comp_mask), IBV_QP_STATE included.  Returns -1 (KeyError, as
 * upstream) for a type it has no table for.
 */
static int qp_trans_mask(enum ibv_qp_type t, int dst)
{
	static const int rc[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	};
	static const int uc[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
		IBV_QP_SQ_PSN,
	};
	static const int ud[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
		0,
		IBV_QP_SQ_PSN,
	};
	static const int raw[] = { IBV_QP_PORT, 0, 0 };
	static const int xrc_recv[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		IBV_QP_TIMEOUT | IBV_QP_SQ_PSN,
	};
	static const int xrc_send[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
		IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	};
	const int *m;
	PyObject *key;

	switch (t) {
	case IBV_QPT_RC:
		m = rc;
		break;
	case IBV_QPT_UC:
		m = uc;
		break;
	case IBV_QPT_UD:
		m = ud;
		break;
	case IBV_QPT_RAW_PACKET:
		m = raw;
		break;
	case IBV_QPT_XRC_RECV:
		m = xrc_recv;
		break;
	case IBV_QPT_XRC_SEND:
		m = xrc_send;
		break;
	default:
		key = PyLong_FromLong(t);
		if (key) {
			PyErr_SetObject(PyExc_KeyError, key);
			Py_DECREF(key);
		}
		return -1;
	}
	return m[dst] | IBV_QP_STATE;
}

static struct pv_qp_attr *qp_attr_arg(PyObject *v)
{
	if (pv_type_ok(v, pv.QPAttr))
		return (struct pv_qp_attr *)v;
	PyErr_Format(PyExc_TypeError, "expected a QPAttr, not %.100s",
		     Py_TYPE(v)->tp_name);
	return NULL;
}

/* One transition with upstream's mask and message; 0 or -1. */
static int qp_move(struct pv_qp *self, struct pv_qp_attr *a, int dst)
{
	static const enum ibv_qp_state state[] = { IBV_QPS_INIT, IBV_QPS_RTR,
						   IBV_QPS_RTS };
	static const char *const msg[] = {
		"Failed to modify QP state to init",
		"Failed to modify QP state to RTR",
		"Failed to modify QP state to RTS",
	};
	static const char *const name[] = { "INIT", "RTR", "RTS" };
	int mask, rc;

	if (self->masks && self->masks[dst] < 0) {
		/* upstream's table has no entry for this transition */
		PyErr_SetString(PyExc_KeyError, name[dst]);
		return -1;
	}
	mask = self->masks ? self->masks[dst] | IBV_QP_STATE :
			     qp_trans_mask(self->qp->qp_type, dst);
	if (mask < 0)
		return -1;
	a->attr.qp_state = state[dst];
	rc = ibv_modify_qp(self->qp, &a->attr, mask); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_modify_qp", msg[dst]);
		return -1;
	}
	return 0;
}

/*
 * Upstream's automatic lower transitions: to_rtr() first moves to INIT
 * unless the QP is in INIT, to_rts() first moves to RTR unless it is in RTR.
 */
static int qp_to(struct pv_qp *self, struct pv_qp_attr *a, int dst)
{
	if (dst == QP_TO_RTS && self->qp->state != IBV_QPS_RTR &&
	    qp_to(self, a, QP_TO_RTR))
		return -1;
	if (dst == QP_TO_RTR && self->qp->state != IBV_QPS_INIT &&
	    qp_move(self, a, QP_TO_INIT))
		return -1;
	return qp_move(self, a, dst);
}

int pv_qp_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "creator", "init_attr", "qp_attr", NULL };
	PyObject *creator, *init_attr, *qp_attr = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:QP", kwlist, &creator,
					 &init_attr, &qp_attr))
		return -1;
	return pv_qp_create(obj, creator, init_attr, qp_attr, NULL);
}

/* What pv_qp_create() gathers from its arguments before creating. */
struct qp_args {
	struct pv_obj *ctx;
	struct pv_pd *pd;    /* NULL: none (a QPInitAttrEx's) */
	PyObject *pd_o;	     /* the QPInitAttrEx's pd, or None */
	int is_ex;	     /* on a Context, with a QPInitAttrEx */
	struct pv_qp_objs o; /* what the init attributes name */
};

/* Step 1: the creator (a PD, or a Context with a QPInitAttrEx) and its
 * init attributes' type; the Context and PD, open.  0 or -1. */
static int qp_creator(PyObject *creator, PyObject *init_attr,
		      const struct pv_qp_create_hook *hook, struct qp_args *q)
{
	q->pd = NULL;
	q->pd_o = Py_None;
	if (hook && hook->create && !pv_type_ok(creator, pv.Context)) {
		PyErr_Format(PyExc_TypeError,
			     "context must be a Context, not "
			     "%.100s",
			     Py_TYPE(creator)->tp_name);
		return -1;
	}
	if (pv_type_ok(creator, pv.PD)) {
		q->pd = (struct pv_pd *)creator;
		if (!pv_type_ok(init_attr, pv.QPInitAttr)) {
			PyErr_Format(PyExc_TypeError,
				     "a QP created on a PD needs a QPInitAttr, "
				     "not %.100s",
				     Py_TYPE(init_attr)->tp_name);
			return -1;
		}
		if (pv_check_open(&q->pd->obj))
			return -1;
		q->ctx = pv_obj_parent(&q->pd->obj, 0);
		q->is_ex = 0;
		return 0;
	}
	if (!pv_type_ok(creator, pv.Context)) {
		PyErr_Format(PyExc_TypeError,
			     "QP creator must be a PD or a Context, not %.100s",
			     Py_TYPE(creator)->tp_name);
		return -1;
	}
	if (!pv_type_ok(init_attr, pv.QPInitAttrEx)) {
		PyErr_Format(PyExc_TypeError,
			     "a QP created on a Context needs a "
			     "QPInitAttrEx, not %.100s",
			     Py_TYPE(init_attr)->tp_name);
		return -1;
	}
	q->ctx = PV_OBJ(creator);
	if (pv_check_open(q->ctx))
		return -1;
	q->is_ex = 1;
	q->pd_o = ((struct pv_qp_init_attr_ex *)init_attr)->pd;
	if (!q->pd_o || q->pd_o == Py_None) {
		q->pd_o = Py_None;
		return 0;
	}
	q->pd = (struct pv_pd *)q->pd_o;
	return pv_obj_check_in(&q->pd->obj, q->ctx, "PD", "QP");
}

/* ibv_create_qp_ex(), or the hook's create(), into self->qp. */
static void qp_make_ex(struct pv_qp *self, struct ibv_qp_init_attr_ex *a,
		       struct qp_args *q, const struct pv_qp_create_hook *hook)
{
	struct ibv_context *ctx = ((struct pv_context *)q->ctx)->ctx;

	a->qp_context = self;
	a->send_cq = q->o.scq ? q->o.scq->cq : NULL;
	a->recv_cq = q->o.rcq ? q->o.rcq->cq : NULL;
	a->srq = q->o.srq ? q->o.srq->srq : NULL;
	a->xrcd = q->o.xrcd ? q->o.xrcd->xrcd : NULL;
	a->rwq_ind_tbl = q->o.ind ? q->o.ind->tbl : NULL;
	a->rx_hash_conf = q->o.rx;
	a->pd = q->pd ? q->pd->pd : NULL;
	if (hook && hook->create) {
		self->qp = hook->create((PyObject *)self, ctx, a, hook->arg);
	} else {
		self->qp = ibv_create_qp_ex(ctx, a);
		if (!self->qp)
			pv_raise_errno("ibv_create_qp_ex",
				       "Failed to create QP");
	}
	/* the key belongs to the RxHashConf: no pointer left here */
	memset(&a->rx_hash_conf, 0, sizeof(a->rx_hash_conf));
}

/* ibv_create_qp() on the PD, or the hook's create_on_pd(). */
static void qp_make_on_pd(struct pv_qp *self, struct ibv_qp_init_attr *a,
			  struct qp_args *q,
			  const struct pv_qp_create_hook *hook)
{
	a->qp_context = self;
	a->send_cq = q->o.scq ? q->o.scq->cq : NULL;
	a->recv_cq = q->o.rcq ? q->o.rcq->cq : NULL;
	a->srq = q->o.srq ? q->o.srq->srq : NULL;
	if (hook && hook->create_on_pd) {
		self->qp = hook->create_on_pd((PyObject *)self, q->pd->pd, a,
					      hook->arg);
	} else {
		self->qp = ibv_create_qp(q->pd->pd, a);
		if (!self->qp)
			pv_raise_errno("ibv_create_qp", "Failed to create QP");
	}
}

/* Step 2 is pv_qp_init_attr_objs() (qp_attr.c).  Step 3: create the QP, every object it names held (a parent domain's
 * allocators may run Python code meanwhile).  0 or -1. */
static int qp_make(struct pv_qp *self, PyObject *init_attr, struct qp_args *q,
		   const struct pv_qp_create_hook *hook)
{
	struct pv_alloc_guard guard;
	struct pv_obj *uses[6];

	pv_obj_setup(&self->obj, pv_qp_destroy);
	uses[0] = q->ctx;
	uses[1] = q->o.xrcd ? &q->o.xrcd->obj : NULL;
	uses[2] = q->o.scq ? &q->o.scq->obj : NULL;
	uses[3] = q->o.rcq ? &q->o.rcq->obj : NULL;
	uses[4] = q->o.ind ? &q->o.ind->obj : NULL;
	uses[5] = q->o.srq ? &q->o.srq->obj : NULL;
	pv_alloc_guard_begin(&guard, q->pd, uses, 6);
	if (q->is_ex)
		qp_make_ex(self,
			   &((struct pv_qp_init_attr_ex *)init_attr)->attr, q,
			   hook);
	else
		qp_make_on_pd(self,
			      &((struct pv_qp_init_attr *)init_attr)->attr, q,
			      hook);
	pv_alloc_guard_end(&guard, !self->qp);
	return self->qp ? 0 : -1;
}

/* Step 4: link the new QP to its parents and keep what it names; on
 * failure it is destroyed again.  0 or -1. */
static int qp_adopt(struct pv_qp *self, struct qp_args *q)
{
	struct pv_obj *links[8];
	int nlinks = 0, i;

	if (q->is_ex) {
		links[nlinks++] = q->ctx;
		if (q->pd)
			links[nlinks++] = &q->pd->obj;
		if (q->o.xrcd)
			links[nlinks++] = &q->o.xrcd->obj;
		if (q->o.ind)
			links[nlinks++] = &q->o.ind->obj;
	} else {
		links[nlinks++] = &q->pd->obj;
	}
	if (q->o.scq)
		links[nlinks++] = &q->o.scq->obj;
	if (q->o.rcq && q->o.rcq != q->o.scq)
		links[nlinks++] = &q->o.rcq->obj;
	if (q->o.srq)
		links[nlinks++] = &q->o.srq->obj;
	if (pv_obj_reserve_parents(&self->obj, nlinks)) {
		pv_qp_destroy(&self->obj);
		return -1;
	}
	for (i = 0; i < nlinks; i++)
		if (pv_obj_link(&self->obj, links[i])) {
			pv_qp_destroy(&self->obj);
			/* drops the links made */
			pv_close_own(&self->obj);
			return -1;
		}
	self->pd = q->pd;
	self->scq = q->o.scq;
	self->rcq = q->o.rcq;
	self->ind_table = q->o.ind;
	self->srq = q->o.srq;
	self->qp_type = self->qp->qp_type;
	pv_set_slot(&self->qp_context,
		    q->o.qp_context ? q->o.qp_context : Py_None);
	pv_obj_opened(&self->obj);
	return 0;
}

/*
 * Step 5, with qp_attr: upstream moves UD and raw packet QPs to RTS and
 * the connected types (which need the remote QPN) to INIT.  On failure the
 * QP is closed again.  0 or -1.
 */
static int qp_first_state(struct pv_qp *self, struct pv_qp_attr *qa)
{
	PyObject *et, *ev, *tb;
	int dst;

	switch (self->qp_type) {
	case IBV_QPT_UD:
	case IBV_QPT_RAW_PACKET:
		dst = QP_TO_RTS;
		break;
	default:
		dst = QP_TO_INIT;
	}
	if (qp_trans_mask(self->qp_type, dst) >= 0 && !qp_to(self, qa, dst))
		return 0;
	PyErr_Fetch(&et, &ev, &tb);
	if (pv_close_own(&self->obj))
		PyErr_WriteUnraisable((PyObject *)self);
	PyErr_Restore(et, ev, tb);
	return -1;
}

int pv_qp_create(PyObject *obj, PyObject *creator, PyObject *init_attr,
		 PyObject *qp_attr, const struct pv_qp_create_hook *hook)
{
	struct pv_qp *self = (struct pv_qp *)obj;
	struct pv_qp_attr *qa = NULL;
	struct qp_args q;

	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("QP is already initialised");
		return -1;
	}
	if (qp_attr != Py_None && !(qa = qp_attr_arg(qp_attr)))
		return -1;
	if (qp_creator(creator, init_attr, hook, &q) ||
	    pv_qp_init_attr_objs(init_attr, q.is_ex, q.ctx, q.pd_o, &q.o) ||
	    qp_make(self, init_attr, &q, hook) || qp_adopt(self, &q))
		return -1;
	return qa ? qp_first_state(self, qa) : 0;
}

static inline int qp_open(struct pv_qp *self)
{
	return pv_check_open(&self->obj);
}

static PyObject *qp_to_meth(PyObject *obj, PyObject *args, PyObject *kw,
			    int dst)
{
	static char *kwlist[] = { "qp_attr", NULL };
	static const char *const fmt[] = { "O:to_init", "O:to_rtr",
					   "O:to_rts" };
	struct pv_qp *self = (struct pv_qp *)obj;
	struct pv_qp_attr *a;
	PyObject *arg;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt[dst], kwlist, &arg))
		return NULL;
	if (qp_open(self) || !(a = qp_attr_arg(arg)) || qp_to(self, a, dst))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *qp_to_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	return qp_to_meth(obj, args, kw, QP_TO_INIT);
}

static PyObject *qp_to_rtr(PyObject *obj, PyObject *args, PyObject *kw)
{
	return qp_to_meth(obj, args, kw, QP_TO_RTR);
}

static PyObject *qp_to_rts(PyObject *obj, PyObject *args, PyObject *kw)
{
	return qp_to_meth(obj, args, kw, QP_TO_RTS);
}

static PyObject *qp_modify(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "qp_attr", "comp_mask", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	PyObject *attr;
	struct pv_qp_attr *a;
	uint32_t mask;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:modify", kwlist, &attr,
					 pv_conv_u32, &mask))
		return NULL;
	if (qp_open(self) || !(a = qp_attr_arg(attr)))
		return NULL;
	rc = ibv_modify_qp(self->qp, &a->attr, (int)mask); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_modify_qp", "Failed to modify QP");
	Py_RETURN_NONE;
}

PyObject *pv_qp_query_pair(PyObject *obj, struct ibv_qp *(*get)(PyObject *),
			   uint32_t mask, const struct pv_qp *owner)
{
	struct pv_qp_init_attr *ia;
	struct pv_qp_attr *a;
	PyObject *res = NULL;
	struct ibv_qp *qp;
	int rc;

	a = (struct pv_qp_attr *)PyObject_CallNoArgs((PyObject *)pv.QPAttr);
	if (!a)
		return NULL;
	ia = (struct pv_qp_init_attr *)PyObject_CallNoArgs(
		(PyObject *)pv.QPInitAttr);
	if (!ia || !(qp = get(obj)))
		goto out;
	rc = ibv_query_qp(qp, &a->attr, (int)mask, &ia->attr);
	if (rc) { /* returns errno */
		pv_raise_rc(rc, "ibv_query_qp", "Failed to query QP");
		goto out;
	}
	/* filled from the slots when a QP is created, never earlier */
	ia->attr.send_cq = ia->attr.recv_cq = NULL;
	ia->attr.srq = NULL;
	ia->attr.qp_context = NULL;
	/* Upstream leaves these None; naming the QP's own objects is more
	 * useful and prints the same. */
	if (owner) {
		pv_set_slot(&ia->scq,
			    owner->scq ? (PyObject *)owner->scq : Py_None);
		pv_set_slot(&ia->rcq,
			    owner->rcq ? (PyObject *)owner->rcq : Py_None);
		pv_set_slot(&ia->srq,
			    owner->srq ? (PyObject *)owner->srq : Py_None);
		pv_set_slot(&ia->qp_context,
			    owner->qp_context ? owner->qp_context : Py_None);
	}
	res = PyTuple_Pack(2, (PyObject *)a, (PyObject *)ia);
out:
	Py_DECREF(a);
	Py_XDECREF(ia);
	return res;
}

/* The ibv_qp of an open QP (pv_qp_query_pair()'s get). */
static struct ibv_qp *qp_handle(PyObject *obj)
{
	return qp_open((struct pv_qp *)obj) ? NULL : ((struct pv_qp *)obj)->qp;
}

static PyObject *qp_query(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr_mask", NULL };
	uint32_t mask;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:query", kwlist,
					 pv_conv_u32, &mask))
		return NULL;
	return pv_qp_query_pair(obj, qp_handle, mask, (struct pv_qp *)obj);
}

static PyObject *qp_query_data_in_order(PyObject *obj, PyObject *args,
					PyObject *kw)
{
	static char *kwlist[] = { "op", "flags", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	uint32_t op, flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&:query_data_in_order",
					 kwlist, pv_conv_u32, &op, pv_conv_u32,
					 &flags))
		return NULL;
	if (qp_open(self))
		return NULL;
	return PyLong_FromLong(
		ibv_query_qp_data_in_order(self->qp, (enum ibv_wr_opcode)op,
					   flags));
}

static PyObject *qp_set_ece(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ece", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	struct pv_ece *ece;
	PyObject *arg;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:set_ece", kwlist, &arg))
		return NULL;
	if (qp_open(self))
		return NULL;
	if (!pv_type_ok(arg, pv.ECE)) {
		PyErr_Format(PyExc_TypeError, "expected an ECE, not %.100s",
			     Py_TYPE(arg)->tp_name);
		return NULL;
	}
	ece = (struct pv_ece *)arg;
	if (ece->ece.vendor_id == 0) /* upstream: nothing to set */
		Py_RETURN_NONE;
	rc = ibv_set_ece(self->qp, &ece->ece); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_set_ece", "Failed to set ECE");
	Py_RETURN_NONE;
}

/* attach_mcast/detach_mcast(gid, lid): join or leave a multicast group
 * (UD QPs); gid is a GID, its string or its 16 bytes. */
static PyObject *qp_mcast(PyObject *obj, PyObject *args, PyObject *kw,
			  int attach)
{
	static char *kwlist[] = { "gid", "lid", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	union ibv_gid gid;
	PyObject *g;
	uint16_t lid = 0;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 attach ? "O|O&:attach_mcast" :
						  "O|O&:detach_mcast",
					 kwlist, &g, pv_conv_u16, &lid))
		return NULL;
	if (qp_open(self) || pv_gid_from_obj(g, &gid))
		return NULL;
	if (attach) {
		struct pv_qp_mcast *m = PyMem_Malloc(sizeof(*m));

		if (!m)
			return PyErr_NoMemory();
		rc = ibv_attach_mcast(self->qp, &gid, lid); /* 0 or errno */
		if (rc) {
			PyMem_Free(m);
			return pv_raise_rc(rc, "ibv_attach_mcast",
					   "Failed to "
					   "attach QP to multicast group");
		}
		m->gid = gid;
		m->lid = lid;
		m->next = self->mcast;
		self->mcast = m;
		Py_RETURN_NONE;
	}
	rc = ibv_detach_mcast(self->qp, &gid, lid); /* 0 or errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_detach_mcast",
				   "Failed to detach QP from multicast group");
	for (struct pv_qp_mcast **p = &self->mcast; *p; p = &(*p)->next) {
		if ((*p)->lid == lid &&
		    !memcmp((*p)->gid.raw, gid.raw, sizeof(gid.raw))) {
			struct pv_qp_mcast *m = *p;

			*p = m->next;
			PyMem_Free(m);
			break;
		}
	}
	Py_RETURN_NONE;
}

static PyObject *qp_attach_mcast(PyObject *obj, PyObject *args, PyObject *kw)
{
	return qp_mcast(obj, args, kw, 1);
}

static PyObject *qp_detach_mcast(PyObject *obj, PyObject *args, PyObject *kw)
{
	return qp_mcast(obj, args, kw, 0);
}

static PyObject *qp_query_ece(PyObject *obj, PyObject *unused)
{
	struct pv_qp *self = (struct pv_qp *)obj;
	struct pv_ece *ece;
	int rc;

	if (qp_open(self))
		return NULL;
	ece = (struct pv_ece *)PyObject_CallNoArgs((PyObject *)pv.ECE);
	if (!ece)
		return NULL;
	rc = ibv_query_ece(self->qp, &ece->ece); /* returns errno */
	if (rc) {
		Py_DECREF(ece);
		return pv_raise_rc(rc, "ibv_query_ece", "Failed to query ECE");
	}
	return (PyObject *)ece;
}

/* ------------------------------------------------------------------ */
/* QP: the data path (the WR handling is post.c's)                    */
/* ------------------------------------------------------------------ */

/* ibv_post_send() and ibv_post_recv() return an errno value. */
static int qp_post_send_c(PyObject *obj, void *head, void **bad)
{
	return ibv_post_send(((struct pv_qp *)obj)->qp, head,
			     (struct ibv_send_wr **)bad);
}

static int qp_post_recv_c(PyObject *obj, void *head, void **bad)
{
	return ibv_post_recv(((struct pv_qp *)obj)->qp, head,
			     (struct ibv_recv_wr **)bad);
}

static const struct pv_post_ops qp_send_ops = {
	.send = 1,
	.method = "post_send",
	.func = "ibv_post_send",
	.msg = "Failed to post send",
	.post = qp_post_send_c,
	.probe = offsetof(struct pv_qp, send_probe),
};

static const struct pv_post_ops qp_recv_ops = {
	.send = 0,
	.method = "post_recv",
	.func = "ibv_post_recv",
	.msg = "Failed to post recv",
	.post = qp_post_recv_c,
	.probe = offsetof(struct pv_qp, recv_probe),
};

static PyObject *qp_post_send(PyObject *obj, PyObject *const *args,
			      Py_ssize_t nargs, PyObject *kwnames)
{
	return pv_post(obj, &qp_send_ops, ((struct pv_qp *)obj)->qp_type, args,
		       nargs, kwnames);
}

static PyObject *qp_post_recv(PyObject *obj, PyObject *const *args,
			      Py_ssize_t nargs, PyObject *kwnames)
{
	return pv_post(obj, &qp_recv_ops, ((struct pv_qp *)obj)->qp_type, args,
		       nargs, kwnames);
}

/* ------------------------------------------------------------------ */
/* QP: properties and type                                             */
/* ------------------------------------------------------------------ */

static PyObject *qp_get_qp_num(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;

	if (qp_open(self))
		return NULL;
	return PyLong_FromUnsignedLong(self->qp->qp_num);
}

/* The state libibverbs caches in ibv_qp (updated by ibv_modify_qp and
 * ibv_query_qp), as upstream. */
static PyObject *qp_get_qp_state(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;

	if (qp_open(self))
		return NULL;
	return PyLong_FromLong(self->qp->state);
}

static PyObject *qp_get_qp_type(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;

	if (qp_open(self))
		return NULL;
	return PyLong_FromLong(self->qp->qp_type);
}

static PyObject *qp_get_qp(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->qp);
}

static PyObject *qp_get_parent(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;
	struct pv_obj *o = NULL;

	if (!self->obj.closed) {
		if (!strcmp(c, "pd"))
			o = self->pd ? &self->pd->obj : NULL;
		else if (!strcmp(c, "scq"))
			o = self->scq ? &self->scq->obj : NULL;
		else if (!strcmp(c, "rcq"))
			o = self->rcq ? &self->rcq->obj : NULL;
		else if (!strcmp(c, "srq"))
			o = self->srq ? &self->srq->obj : NULL;
		else if (!strcmp(c, "qp_context"))
			return pv_get_slot(self->qp_context);
	}
	return pv_get_slot((PyObject *)o);
}

int pv_qp_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct pv_qp *)obj)->qp_context);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

int pv_qp_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(((struct pv_qp *)obj)->qp_context);
	return 0;
}

static PyMethodDef qp_methods[] = {
	{ "attach_comp_cntr",
	  (PyCFunction)(void (*)(void))pv_qp_attach_comp_cntr,
	  METH_VARARGS | METH_KEYWORDS,
	  "attach_comp_cntr($self, comp_cntr, attr)\n--\n\n"
	  "Count the operations attr.op_mask names in the CompCntr "
	  "(ibv_qp_attach_comp_cntr, rdma-core 65).  There is no detach: "
	  "the QP becomes a child of the counter (closing the counter "
	  "closes the QP first)." },
	{ "to_init", (PyCFunction)(void (*)(void))qp_to_init,
	  METH_VARARGS | METH_KEYWORDS,
	  "to_init($self, qp_attr)\n--\n\n"
	  "Move the QP to INIT with the attribute mask of its type." },
	{ "to_rtr", (PyCFunction)(void (*)(void))qp_to_rtr,
	  METH_VARARGS | METH_KEYWORDS,
	  "to_rtr($self, qp_attr)\n--\n\n"
	  "Move the QP to RTR (through INIT unless it is in INIT)." },
	{ "to_rts", (PyCFunction)(void (*)(void))qp_to_rts,
	  METH_VARARGS | METH_KEYWORDS,
	  "to_rts($self, qp_attr)\n--\n\n"
	  "Move the QP to RTS (through INIT and RTR unless it is in RTR)." },
	{ "modify", (PyCFunction)(void (*)(void))qp_modify,
	  METH_VARARGS | METH_KEYWORDS,
	  "modify($self, qp_attr, comp_mask)\n--\n\n"
	  "ibv_modify_qp() with the fields of qp_attr selected by comp_mask "
	  "(IBV_QP_* bits)." },
	{ "query", (PyCFunction)(void (*)(void))qp_query,
	  METH_VARARGS | METH_KEYWORDS,
	  "query($self, attr_mask)\n--\n\n"
	  "ibv_query_qp(): (QPAttr, QPInitAttr) with at least the fields of "
	  "attr_mask." },
	{ "query_data_in_order",
	  (PyCFunction)(void (*)(void))qp_query_data_in_order,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_data_in_order($self, op, flags=0)\n--\n\n"
	  "1 if the data of op is written in order, else 0." },
	{ "set_ece", (PyCFunction)(void (*)(void))qp_set_ece,
	  METH_VARARGS | METH_KEYWORDS,
	  "set_ece($self, ece)\n--\n\n"
	  "Set the ECE options (nothing when vendor_id is 0)." },
	{ "modify_rate_limit", pv_qp_modify_rate_limit, METH_O,
	  "modify_rate_limit($self, attr, /)\n--\n\n"
	  "ibv_modify_qp_rate_limit(): set the rate limit of the QP from "
	  "attr (a QPRateLimitAttr) and nothing else." },
	{ "query_ece", qp_query_ece, METH_NOARGS,
	  "query_ece($self, /)\n--\n\nThe ECE options of the QP." },
	{ "attach_mcast", (PyCFunction)(void (*)(void))qp_attach_mcast,
	  METH_VARARGS | METH_KEYWORDS,
	  "attach_mcast($self, gid, lid=0)\n--\n\n"
	  "ibv_attach_mcast(): receive the multicast group gid (a GID, its "
	  "string or 16 bytes; lid 0 on RoCE) on this UD QP." },
	{ "detach_mcast", (PyCFunction)(void (*)(void))qp_detach_mcast,
	  METH_VARARGS | METH_KEYWORDS,
	  "detach_mcast($self, gid, lid=0)\n--\n\n"
	  "ibv_detach_mcast(): leave the multicast group gid." },
	{ "post_send", (PyCFunction)(void (*)(void))qp_post_send,
	  METH_FASTCALL | METH_KEYWORDS,
	  "post_send($self, wr, bad_wr=None)\n--\n\n"
	  "Post a SendWR (with its next_wr chain) or a list of SendWRs in one "
	  "ibv_post_send().  On failure raises PyverbsRDMAError with "
	  "bad_wr_index, and copies the failing WR into bad_wr if given." },
	{ "post_recv", (PyCFunction)(void (*)(void))qp_post_recv,
	  METH_FASTCALL | METH_KEYWORDS,
	  "post_recv($self, wr, bad_wr=None)\n--\n\n"
	  "Post a RecvWR (with its chain) or a list of RecvWRs in one "
	  "ibv_post_recv(); failures as post_send()." },
	{ NULL }
};

/* _post_probe: ((timed, min_ns, slow) of the send queue, the same of the
 * receive queue), the state of struct pv_post_probe, for tests and
 * benchmarks. */
static PyObject *qp_get_post_probe(PyObject *obj, void *closure)
{
	struct pv_qp *self = (struct pv_qp *)obj;
	const struct pv_post_probe *s = &self->send_probe;
	const struct pv_post_probe *r = &self->recv_probe;

	return Py_BuildValue("((iIi)(iIi))", s->timed, s->min_ns, s->slow,
			     r->timed, r->min_ns, r->slow);
}

static PyGetSetDef qp_getset[] = {
	{ "_post_probe", qp_get_post_probe, NULL,
	  "((timed, min_ns, slow), (timed, min_ns, slow)): how the send and "
	  "receive posts were timed and whether they are slow enough to "
	  "release the GIL (see the README's Threads section).",
	  NULL },
	{ "qp_num", qp_get_qp_num, NULL, "The QP number.", NULL },
	{ "qp_state", qp_get_qp_state, NULL,
	  "The QP state last set or queried (ibv_qp.state).", NULL },
	{ "qp_type", qp_get_qp_type, NULL, "The QP type (IBV_QPT_*).", NULL },
	{ "qp", qp_get_qp, NULL, "Address of the struct ibv_qp (0 if closed).",
	  NULL },
	{ "pd", qp_get_parent, NULL, "The PD of the QP (None if closed).",
	  "pd" },
	{ "scq", qp_get_parent, NULL, "The send CQ (None if closed).", "scq" },
	{ "rcq", qp_get_parent, NULL, "The receive CQ (None if closed).",
	  "rcq" },
	{ "srq", qp_get_parent, NULL,
	  "The SRQ the QP receives from (None if none or closed).", "srq" },
	{ "qp_context", qp_get_parent, NULL,
	  "The qp_context of the init attributes.", "qp_context" },
	{ NULL }
};

PV_GC_TYPE_SPEC(qp, "pyverbs.qp.QP", struct pv_qp,
		"QP(creator, init_attr, qp_attr=None)\n--\n\n"
		"A queue pair.  creator is a PD (init_attr a QPInitAttr, "
		"ibv_create_qp) or a Context (init_attr a QPInitAttrEx, "
		"ibv_create_qp_ex).  With qp_attr, UD and raw packet QPs "
		"are moved to RTS and the other types to INIT.",
		{ Py_tp_init, pv_qp_init }, { Py_tp_methods, qp_methods },
		{ Py_tp_getset, qp_getset }, { Py_tp_traverse, pv_qp_traverse },
		{ Py_tp_clear, pv_qp_clear }, );

int pv_qp_init_types(PyObject *m)
{
	if (pv_add_type(m, &qp_spec, pv.PyverbsCM, &pv.QP))
		return -1;
	return pv_obj_register_handle(pv.QP, offsetof(struct pv_qp, qp));
}
