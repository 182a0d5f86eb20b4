/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A CMID's QP: the init attributes rdma_create_ep()/rdma_create_qp() take
 * from a QPInitAttr, the hidden owner that ties the QP to the user's CQs
 * and SRQ, and the QP methods create_qp, query_qp and init_qp_attr (the
 * method table is cmid.c's).
 */
#include "cm.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "pd.h"
#include "qp.h"
#include "qp_attr.h"
#include "srq.h"
#include "state.h"

/* Fill *out from a QPInitAttr: the CQs and SRQ it holds must be open.
 * *cqs receives the CQ objects (borrowed, NULL if none). */
int pv_cmid_qp_init_attr(PyObject *o, struct ibv_qp_init_attr *out,
			 struct pv_obj *cqs[3])
{
	struct pv_qp_init_attr *a = (struct pv_qp_init_attr *)o;
	PyObject *objs[3];
	int i;

	if (!pv_type_ok(o, pv.QPInitAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "qp_init_attr must be a "
			     "QPInitAttr, not %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = a->attr;
	out->qp_context = NULL;
	out->send_cq = out->recv_cq = NULL;
	out->srq = NULL;
	objs[0] = a->scq;
	objs[1] = a->rcq;
	objs[2] = a->srq;
	for (i = 0; i < 3; i++) {
		cqs[i] = NULL;
		if (!objs[i] || objs[i] == Py_None)
			continue;
		if (i < 2) {
			struct pv_cq *cq =
				pv_cq_from_obj(objs[i],
					       i ? "recv_cq" : "send_cq");

			if (!cq)
				return -1;
			if (i)
				out->recv_cq = cq->cq;
			else
				out->send_cq = cq->cq;
		} else {
			if (pv_check_open(PV_OBJ(objs[i])))
				return -1;
			out->srq = ((struct pv_srq *)objs[i])->srq;
		}
		cqs[i] = PV_OBJ(objs[i]);
	}
	return 0;
}

/*
 * The id's QP when it uses CQs or an SRQ of the user's: a hidden lifetime
 * object, child of the CMID and of each of them, so that closing one of
 * them destroys the QP, not the CMID.  (The CMID itself cannot be their
 * child: the CQs may be children of the CMID's own Context, a cycle.)
 */
struct cm_qp {
	struct pv_obj obj;
	struct pv_cmid *cmid; /* its parent 0, while the QP lives */
};

static int cm_qp_destroy(struct pv_obj *o)
{
	struct cm_qp *self = (struct cm_qp *)o;

	if (self->cmid && self->cmid->id && self->cmid->id->qp)
		rdma_destroy_qp(self->cmid->id); /* void */
	self->cmid = NULL;
	return 0;
}

PV_TYPE_SPEC_FLAGS(cm_qp, "pyverbs.cmid._CMIDQP", struct cm_qp,
		   Py_TPFLAGS_HAVE_GC, NULL, PV_CM_SLOTS, );

/* Give self's new QP its owner, linked to the CQs/SRQ of cqs (none: the
 * CMID owns it directly).  0, or -1 with an exception set (the caller
 * destroys the QP). */
int pv_cmid_own_qp(struct pv_cmid *self, struct pv_obj *cqs[3])
{
	struct cm_qp *h;
	int i;

	if (!cqs[0] && !cqs[1] && !cqs[2])
		return 0;
	h = (struct cm_qp *)PyObject_CallNoArgs((PyObject *)pv.CMIDQP);
	if (!h)
		return -1;
	pv_obj_setup(&h->obj, cm_qp_destroy);
	if (pv_obj_link(&h->obj, &self->obj))
		goto fail;
	for (i = 0; i < 3; i++)
		if (cqs[i] && (i != 1 || cqs[1] != cqs[0]) &&
		    pv_obj_link(&h->obj, cqs[i]))
			goto fail;
	pv_obj_opened(&h->obj);
	h->cmid = self;
	Py_XSETREF(self->qp, (PyObject *)h);
	return 0;
fail:
	pv_close(&h->obj); /* unlinks; the QP is not its yet */
	Py_DECREF(h);
	return -1;
}

/* ---- methods ---- */

PyObject *pv_cmid_create_qp(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "qp_init", NULL };
	struct pv_cmid *self = CMID(obj);
	struct pv_obj *cqs[3];
	struct ibv_qp_init_attr attr;
	PyObject *o, *pdo, *ctx;
	struct ibv_pd *pd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:create_qp", kwlist, &o))
		return NULL;
	if (pv_cmid_qp_init_attr(o, &attr, cqs) || pv_check_open(&self->obj))
		return NULL;
	if (self->id->qp)
		return pv_raise_user("The CMID has a QP already");
	pdo = pv_cmid_pd_wrapper(self);
	if (!pdo)
		return NULL;
	if (pdo == Py_None) {
		if (!(pd = pv_cmid_pd(obj, &ctx)))
			return NULL;
	} else {
		struct pv_pd *p = pv_pd_arg(pdo);

		if (!p)
			return NULL;
		pd = p->pd;
	}
	if (rdma_create_qp(self->id, pd, &attr)) /* -1 + errno */
		return pv_raise_errno("rdma_create_qp", "Failed to Create QP");
	/* upstream shows the actual capabilities */
	((struct pv_qp_init_attr *)o)->attr.cap = attr.cap;
	if (pv_cmid_own_qp(self, cqs)) {
		rdma_destroy_qp(self->id);
		return NULL;
	}
	Py_RETURN_NONE;
}

/* The id's QP (pv_qp_query_pair()'s get). */
static struct ibv_qp *cmid_qp_handle(PyObject *obj)
{
	return pv_cmid_qp(CMID(obj));
}

PyObject *pv_cmid_query_qp(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr_mask", NULL };
	uint32_t mask;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:query_qp", kwlist,
					 pv_conv_u32, &mask))
		return NULL;
	/* the CQs and SRQ are librdmacm's: no objects for them */
	return pv_qp_query_pair(obj, cmid_qp_handle, mask, NULL);
}

PyObject *pv_cmid_init_qp_attr(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "qp_state", NULL };
	struct pv_cmid *self = CMID(obj);
	struct pv_qp_attr *a;
	PyObject *res;
	unsigned int state;
	int mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:init_qp_attr", kwlist,
					 pv_conv_uint, &state))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	a = (struct pv_qp_attr *)PyObject_CallNoArgs((PyObject *)pv.QPAttr);
	if (!a)
		return NULL;
	a->attr.qp_state = (enum ibv_qp_state)state;
	if (rdma_init_qp_attr(self->id, &a->attr, &mask)) { /* -1+errno */
		Py_DECREF(a);
		return pv_raise_errno("rdma_init_qp_attr",
				      "Failed to get QP attributes");
	}
	res = Py_BuildValue("(Oi)", (PyObject *)a, mask);
	Py_DECREF(a);
	return res;
}

int pv_cmid_qp_init_types(void)
{
	return pv_make_type(NULL, &cm_qp_spec, pv.PyverbsCM, &pv.CMIDQP);
}
