/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Shared receive queues: SrqAttr (struct ibv_srq_attr), SrqInitAttr (struct
 * ibv_srq_init_attr), SrqInitAttrEx (struct ibv_srq_init_attr_ex) and SRQ
 * (ibv_create_srq / ibv_create_srq_ex / ibv_destroy_srq), with its data
 * path (ibv_post_srq_recv, ibv_post_srq_ops).  OpsWr lives in recv_wr.c
 * beside RecvWR.
 *
 * The PD, XRCD and CQ of an SrqInitAttrEx are only held by it; SRQ checks
 * them (open, of the SRQ's Context, present where the SRQ type or comp_mask
 * needs them: libibverbs dereferences them without a check) and takes their
 * pointers when it creates the SRQ.
 */
#include "srq.h" /* first: Python.h defines _GNU_SOURCE */
#include "context.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "parent_domain.h"
#include "pd.h"
#include "post.h"
#include "qp_attr.h"
#include "state.h"
#include "wr.h"
#include "xrcd.h"

#include <errno.h>

/* ------------------------------------------------------------------ */
/* SrqAttr                                                             */
/* ------------------------------------------------------------------ */

struct pv_srq_attr {
	PyObject_HEAD
	struct ibv_srq_attr attr;
};

#define SRQ_ATTR_FIELDS(st, pre, mk)                                  \
	mk(st, pre max_wr, "max_wr"), mk(st, pre max_sge, "max_sge"), \
		mk(st, pre srq_limit, "srq_limit")

static const struct pv_field sa_fields[] = {
	SRQ_ATTR_FIELDS(struct pv_srq_attr, attr., PV_FIELD), PV_FIELD_END
};

/*
 * Store max_wr, max_sge and srq_limit (the three first entries of fields)
 * from the keyword constructor "|OOO" of SrqAttr and SrqInitAttrEx: upstream
 * defaults 100, 1, 0.  Returns 0 or -1.
 */
static int srq_attr_args(PyObject *self, PyObject *args, PyObject *kw,
			 const char *fmt, const struct pv_field *fields,
			 struct ibv_srq_attr *attr)
{
	static char *kwlist[] = { "max_wr", "max_sge", "srq_limit", NULL };
	PyObject *v[3] = { NULL, NULL, NULL };
	struct ibv_srq_attr save = *attr;
	int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &v[0], &v[1],
					 &v[2]))
		return -1;
	*attr = (struct ibv_srq_attr){ .max_wr = 100, .max_sge = 1 };
	for (i = 0; i < 3; i++)
		if (v[i] && pv_field_store(self, &fields[i], v[i])) {
			*attr = save;
			return -1;
		}
	return 0;
}

static int sa_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	return srq_attr_args(obj, args, kw, "|OOO:SrqAttr", sa_fields,
			     &((struct pv_srq_attr *)obj)->attr);
}

PV_DATA_SPEC(sa, "pyverbs.srq.SrqAttr", struct pv_srq_attr,
	     "SrqAttr(max_wr=100, max_sge=1, srq_limit=0)\n--\n\n"
	     "The attributes of an SRQ (struct ibv_srq_attr), for "
	     "SRQ.modify() and from SRQ.query().",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, sa_init }, );

/* ------------------------------------------------------------------ */
/* SrqInitAttr                                                         */
/* ------------------------------------------------------------------ */

struct pv_srq_init_attr {
	PyObject_HEAD
	struct ibv_srq_init_attr attr;
};

/* Read-only, as upstream: set them through the SrqAttr given. */
static const struct pv_field sia_fields[] = {
	SRQ_ATTR_FIELDS(struct pv_srq_init_attr, attr.attr., PV_FIELD_RO),
	PV_FIELD_END
};

static int sia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr", NULL };
	struct pv_srq_init_attr *self = (struct pv_srq_init_attr *)obj;
	PyObject *attr = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:SrqInitAttr", kwlist,
					 &attr))
		return -1;
	if (attr != Py_None && !pv_type_ok(attr, pv.SrqAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "attr must be an SrqAttr or None, not %.100s",
			     Py_TYPE(attr)->tp_name);
		return -1;
	}
	memset(&self->attr, 0, sizeof(self->attr));
	if (attr != Py_None)
		self->attr.attr = ((struct pv_srq_attr *)attr)->attr;
	return 0;
}

PV_DATA_SPEC(sia, "pyverbs.srq.SrqInitAttr", struct pv_srq_init_attr,
	     "SrqInitAttr(attr=None)\n--\n\n"
	     "How to create an SRQ on a PD (struct ibv_srq_init_attr): "
	     "max_wr, max_sge and srq_limit copied from attr (an "
	     "SrqAttr; 0 without one).  Creating the SRQ writes the "
	     "actual max_wr and max_sge back.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, sia_init }, );

/* ------------------------------------------------------------------ */
/* SrqInitAttrEx                                                       */
/* ------------------------------------------------------------------ */

struct pv_srq_init_attr_ex {
	PyObject_HEAD
	struct ibv_srq_init_attr_ex attr;
	PyObject *pd, *xrcd, *cq; /* PD, XRCD, CQ/CQEX or None */
};

#define SIAX struct pv_srq_init_attr_ex
static const struct pv_field siax_fields[] = {
	SRQ_ATTR_FIELDS(SIAX, attr.attr., PV_FIELD_RO),
	PV_FIELD(SIAX, attr.comp_mask, "comp_mask"),
	PV_FIELD(SIAX, attr.srq_type, "srq_type"),
	PV_FIELD(SIAX, attr.tm_cap.max_num_tags, "max_num_tags"),
	PV_FIELD(SIAX, attr.tm_cap.max_ops, "max_ops"),
	PV_FIELD_END
};

static const struct pv_oslot siax_oslots[] = {
	PV_OSLOT_TYPE(SIAX, pd, "pd", &pv.PD, "pd must be a PD",
		      "The PD of the SRQ (IBV_SRQ_INIT_ATTR_PD)."),
	PV_OSLOT_TYPE(SIAX, xrcd, "xrcd", &pv.XRCD, "xrcd must be an XRCD",
		      "The XRC domain of an XRC SRQ "
		      "(IBV_SRQ_INIT_ATTR_XRCD)."),
	PV_OSLOT_CHECK(SIAX, cq, "cq", pv_oslot_check_cq,
		       "The CQ (a CQ or a CQEX) of an XRC or tag-matching "
		       "SRQ (IBV_SRQ_INIT_ATTR_CQ)."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(siax, siax_oslots)

static int siax_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	struct pv_srq_init_attr_ex *self = (struct pv_srq_init_attr_ex *)obj;

	if (srq_attr_args(obj, args, kw, "|OOO:SrqInitAttrEx", siax_fields,
			  &self->attr.attr))
		return -1;
	self->attr.srq_context = NULL;
	self->attr.comp_mask = 0;
	self->attr.srq_type = IBV_SRQT_BASIC;
	self->attr.pd = NULL;
	self->attr.xrcd = NULL;
	self->attr.cq = NULL;
	self->attr.tm_cap = (struct ibv_tm_cap){ 0 };
	pv_oslots_reset(obj, siax_oslots);
	return 0;
}

PV_GC_TYPE_SPEC(siax, "pyverbs.srq.SrqInitAttrEx", struct pv_srq_init_attr_ex,
		"SrqInitAttrEx(max_wr=100, max_sge=1, srq_limit=0)\n--\n"
		"\n"
		"How to create an SRQ on a Context (struct "
		"ibv_srq_init_attr_ex): set comp_mask (IBV_SRQ_INIT_ATTR_"
		"*), srq_type (IBV_SRQT_BASIC, _XRC, _TM), pd, xrcd, cq, "
		"max_num_tags and max_ops as attributes.",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, siax_init },
		PV_OSLOTS_GC_SLOTS(siax), { Py_tp_getset, NULL },
		/* filled by pv_add_data_type() */);

/* ------------------------------------------------------------------ */
/* SRQ: creation and destruction                                       */
/* ------------------------------------------------------------------ */

static int srq_destroy(struct pv_obj *o)
{
	struct pv_srq *self = (struct pv_srq *)o;
	int rc;

	if (!self->srq)
		return 0;
	rc = ibv_destroy_srq(self->srq); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_srq", "Failed to destroy SRQ");
		return -1;
	}
	self->srq = NULL;
	return 0;
}

/*
 * The object of the SrqInitAttrEx slot name: NULL for None, or an open
 * object of ctx.  needed: the SRQ type or comp_mask asks for it (None
 * refused).  Returns 0 with *out set, or -1.
 */
static int srq_member(PyObject *v, struct pv_obj *ctx, const char *what,
		      const char *name, int needed, struct pv_obj **out)
{
	*out = NULL;
	if (!v || v == Py_None) {
		if (!needed)
			return 0;
		pv_raise_user("The SRQ needs SrqInitAttrEx.%s: its srq_type "
			      "or comp_mask asks for the %s",
			      name, what);
		return -1;
	}
	if (pv_obj_check_in(PV_OBJ(v), ctx, what, "SRQ"))
		return -1;
	*out = PV_OBJ(v);
	return 0;
}

/* ibv_create_srq_ex() from a Context; links fills the parents to link. */
static int srq_create_ex(struct pv_srq *self, struct pv_context *ctx,
			 struct pv_srq_init_attr_ex *ia, struct pv_obj **links,
			 int *nlinks)
{
	struct ibv_srq_init_attr_ex *a = &ia->attr;
	uint32_t mask = a->comp_mask;
	enum ibv_srq_type type = a->srq_type;
	struct pv_obj *pd, *xrcd, *cq, *uses[3];
	struct pv_alloc_guard guard;

	/*
	 * libibverbs and the providers create every SRQ on a PD and take the
	 * XRCD and CQ of the types that have one without checking them.
	 */
	if (srq_member(ia->pd, &ctx->obj, "PD", "pd", 1, &pd) ||
	    srq_member(ia->xrcd, &ctx->obj, "XRCD", "xrcd",
		       type == IBV_SRQT_XRC || (mask & IBV_SRQ_INIT_ATTR_XRCD),
		       &xrcd) ||
	    srq_member(ia->cq, &ctx->obj, "CQ", "cq",
		       type == IBV_SRQT_XRC || type == IBV_SRQT_TM ||
			       (mask & IBV_SRQ_INIT_ATTR_CQ),
		       &cq))
		return -1;
	a->srq_context = self;
	a->pd = ((struct pv_pd *)pd)->pd;
	a->xrcd = xrcd ? ((struct pv_xrcd *)xrcd)->xrcd : NULL;
	a->cq = cq ? ((struct pv_cq *)cq)->cq : NULL;
	uses[0] = &ctx->obj;
	uses[1] = xrcd;
	uses[2] = cq;
	/* a ParentDomain's Python allocators may run inside */
	pv_alloc_guard_begin(&guard, (struct pv_pd *)pd, uses, 3);
	self->srq = ibv_create_srq_ex(ctx->ctx, a);
	if (!self->srq)
		pv_raise_errno("ibv_create_srq_ex",
			       "Failed to create SRQ (errno is %d)", errno);
	pv_alloc_guard_end(&guard, !self->srq);
	if (!self->srq)
		return -1;
	links[(*nlinks)++] = &ctx->obj;
	links[(*nlinks)++] = pd;
	if (xrcd)
		links[(*nlinks)++] = xrcd;
	if (cq)
		links[(*nlinks)++] = cq;
	return 0;
}

static int srq_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "creator", "attr", NULL };
	struct pv_srq *self = (struct pv_srq *)obj;
	struct pv_alloc_guard guard;
	struct pv_obj *links[4];
	PyObject *creator, *attr;
	int nlinks = 0, i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:SRQ", kwlist, &creator,
					 &attr))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("SRQ is already initialised");
		return -1;
	}
	if (pv_type_ok(creator, pv.PD)) {
		struct pv_pd *pd = (struct pv_pd *)creator;
		struct ibv_srq_init_attr *a;

		if (!pv_type_ok(attr, pv.SrqInitAttr)) {
			PyErr_Format(PyExc_TypeError,
				     "an SRQ created on a PD needs an "
				     "SrqInitAttr, not %.100s",
				     Py_TYPE(attr)->tp_name);
			return -1;
		}
		if (pv_check_open(&pd->obj))
			return -1;
		pv_obj_setup(&self->obj, srq_destroy);
		a = &((struct pv_srq_init_attr *)attr)->attr;
		a->srq_context = self;
		pv_alloc_guard_begin(&guard, pd, NULL, 0);
		self->srq = ibv_create_srq(pd->pd, a);
		if (!self->srq)
			pv_raise_errno("ibv_create_srq",
				       "Failed to create SRQ (errno is %d)",
				       errno);
		pv_alloc_guard_end(&guard, !self->srq);
		if (!self->srq)
			return -1;
		links[nlinks++] = &pd->obj;
	} else if (pv_type_ok(creator, pv.Context)) {
		if (!pv_type_ok(attr, pv.SrqInitAttrEx)) {
			PyErr_Format(PyExc_TypeError,
				     "an SRQ created on a Context needs an "
				     "SrqInitAttrEx, not %.100s",
				     Py_TYPE(attr)->tp_name);
			return -1;
		}
		if (pv_check_open(PV_OBJ(creator)))
			return -1;
		pv_obj_setup(&self->obj, srq_destroy);
		if (srq_create_ex(self, (struct pv_context *)creator,
				  (struct pv_srq_init_attr_ex *)attr, links,
				  &nlinks))
			return -1;
	} else {
		PyErr_Format(PyExc_TypeError,
			     "SRQ creator must be a PD or a Context, not "
			     "%.100s",
			     Py_TYPE(creator)->tp_name);
		return -1;
	}
	for (i = 0; i < nlinks; i++)
		if (pv_obj_link(&self->obj, links[i])) {
			PyObject *et, *ev, *tb;

			PyErr_Fetch(&et, &ev, &tb);
			if (srq_destroy(&self->obj))
				PyErr_WriteUnraisable(obj);
			/* drops the links made */
			pv_close_own(&self->obj);
			PyErr_Restore(et, ev, tb);
			return -1;
		}
	pv_obj_opened(&self->obj);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SRQ: methods                                                        */
/* ------------------------------------------------------------------ */

static inline int srq_open(struct pv_srq *self)
{
	return pv_check_open(&self->obj);
}

static struct pv_srq_attr *srq_attr_arg(PyObject *v)
{
	if (pv_type_ok(v, pv.SrqAttr))
		return (struct pv_srq_attr *)v;
	PyErr_Format(PyExc_TypeError, "attr must be an SrqAttr, not %.100s",
		     Py_TYPE(v)->tp_name);
	return NULL;
}

static PyObject *srq_modify(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr", "comp_mask", NULL };
	struct pv_srq *self = (struct pv_srq *)obj;
	struct pv_srq_attr *a;
	PyObject *attr;
	uint32_t mask;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:modify", kwlist, &attr,
					 pv_conv_u32, &mask))
		return NULL;
	if (srq_open(self) || !(a = srq_attr_arg(attr)))
		return NULL;
	/* IBV_SRQ_MAX_WR resizes, IBV_SRQ_LIMIT arms the limit event */
	rc = ibv_modify_srq(self->srq, &a->attr, (int)mask); /* errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_modify_srq",
				   "Failed to modify SRQ");
	Py_RETURN_NONE;
}

static PyObject *srq_query(PyObject *obj, PyObject *unused)
{
	struct pv_srq *self = (struct pv_srq *)obj;
	struct pv_srq_attr *a;
	int rc;

	if (srq_open(self))
		return NULL;
	a = (struct pv_srq_attr *)PyObject_CallNoArgs((PyObject *)pv.SrqAttr);
	if (!a)
		return NULL;
	rc = ibv_query_srq(self->srq, &a->attr); /* returns errno */
	if (rc) {
		Py_DECREF(a);
		return pv_raise_rc(rc, "ibv_query_srq", "Failed to query SRQ");
	}
	return (PyObject *)a;
}

static PyObject *srq_get_srq_num(PyObject *obj, PyObject *unused)
{
	struct pv_srq *self = (struct pv_srq *)obj;
	uint32_t srqn;
	int rc;

	if (srq_open(self))
		return NULL;
	/* only XRC SRQs have a number; returns errno (EOPNOTSUPP) */
	rc = ibv_get_srq_num(self->srq, &srqn);
	if (rc)
		return pv_raise_rc(rc, "ibv_get_srq_num",
				   "Failed to retrieve SRQ number");
	return PyLong_FromUnsignedLong(srqn);
}

/* ibv_post_srq_recv() returns an errno value. */
static int srq_post_recv_c(PyObject *obj, void *head, void **bad)
{
	return ibv_post_srq_recv(((struct pv_srq *)obj)->srq, head,
				 (struct ibv_recv_wr **)bad);
}

static const struct pv_post_ops srq_recv_ops = {
	.send = 0,
	.method = "post_recv",
	.func = "ibv_post_srq_recv",
	.msg = "Failed to post receive to SRQ.",
	.post = srq_post_recv_c,
	.probe = offsetof(struct pv_srq, recv_probe),
};

static PyObject *srq_post_recv(PyObject *obj, PyObject *const *args,
			       Py_ssize_t nargs, PyObject *kwnames)
{
	return pv_post(obj, &srq_recv_ops, IBV_QPT_RC, args, nargs, kwnames);
}

/* The OpsWr argument what (bad_wr may be None: NULL, no error). */
static struct pv_ops_wr *srq_ops_arg(PyObject *v, const char *what, int none_ok)
{
	if (none_ok && v == Py_None)
		return NULL;
	if (pv_type_ok(v, pv.OpsWr))
		return (struct pv_ops_wr *)v;
	PyErr_Format(PyExc_TypeError, "%s must be an OpsWr%s, not %.100s", what,
		     none_ok ? " or None" : "", Py_TYPE(v)->tp_name);
	return NULL;
}

/*
 * post_srq_ops(wr, bad_wr=None): the OpsWr chain in one ibv_post_srq_ops()
 * (a chain is valid C memory while its head lives: wr.c).  The provider
 * writes tm.handle of an added tag back into its OpsWr.
 */
static PyObject *srq_post_srq_ops(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "wr", "bad_wr", NULL };
	struct pv_srq *self = (struct pv_srq *)obj;
	PyObject *wr_o, *bad_o = Py_None, *o;
	struct pv_ops_wr *wr, *bad_wr = NULL;
	struct ibv_ops_wr *bad = NULL;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:post_srq_ops", kwlist,
					 &wr_o, &bad_o))
		return NULL;
	if (srq_open(self) || !(wr = srq_ops_arg(wr_o, "wr", 0)))
		return NULL;
	bad_wr = srq_ops_arg(bad_o, "bad_wr", 1);
	if (!bad_wr && PyErr_Occurred())
		return NULL;
	rc = ibv_post_srq_ops(self->srq, &wr->wr, &bad); /* errno */
	if (!rc)
		Py_RETURN_NONE;
	/* the failing OpsWr of the chain, copied into bad_wr as upstream */
	for (o = wr_o; bad && bad_wr && o; o = ((struct pv_ops_wr *)o)->next_wr)
		if (&((struct pv_ops_wr *)o)->wr == bad) {
			if (pv_ops_wr_copy(bad_wr, (struct pv_ops_wr *)o))
				return NULL;
			break;
		}
	return pv_raise_rc(rc, "ibv_post_srq_ops", "post SRQ ops failed.");
}

static PyObject *srq_get_srq(PyObject *obj, void *closure)
{
	struct pv_srq *self = (struct pv_srq *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->srq);
}

static PyMethodDef srq_methods[] = {
	{ "post_recv", (PyCFunction)(void (*)(void))srq_post_recv,
	  METH_FASTCALL | METH_KEYWORDS,
	  "post_recv($self, wr, bad_wr=None)\n--\n\n"
	  "Post a RecvWR (with its next_wr chain) or a list of RecvWRs in one "
	  "ibv_post_srq_recv().  On failure raises PyverbsRDMAError with "
	  "bad_wr_index, and copies the failing WR into bad_wr if given." },
	{ "modify", (PyCFunction)(void (*)(void))srq_modify,
	  METH_VARARGS | METH_KEYWORDS,
	  "modify($self, attr, comp_mask)\n--\n\n"
	  "ibv_modify_srq() with the fields of attr (an SrqAttr) selected by "
	  "comp_mask: IBV_SRQ_MAX_WR resizes, IBV_SRQ_LIMIT arms the "
	  "IBV_EVENT_SRQ_LIMIT_REACHED event." },
	{ "query", srq_query, METH_NOARGS,
	  "query($self, /)\n--\n\nThe SRQ's attributes (an SrqAttr)." },
	{ "get_srq_num", srq_get_srq_num, METH_NOARGS,
	  "get_srq_num($self, /)\n--\n\n"
	  "The SRQ number of an XRC SRQ, which XRC senders address." },
	{ "post_srq_ops", (PyCFunction)(void (*)(void))srq_post_srq_ops,
	  METH_VARARGS | METH_KEYWORDS,
	  "post_srq_ops($self, wr, bad_wr=None)\n--\n\n"
	  "Post tag-matching operations (an OpsWr with its next_wr chain) to "
	  "a tag-matching SRQ; on failure the failing one is copied into "
	  "bad_wr if given." },
	{ NULL }
};

static PyGetSetDef srq_getset[] = {
	{ "srq", srq_get_srq, NULL,
	  "Address of the struct ibv_srq (0 if closed).", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(srq, "pyverbs.srq.SRQ", struct pv_srq,
		"SRQ(creator, attr)\n--\n\n"
		"A shared receive queue.  creator is a PD (attr an "
		"SrqInitAttr, ibv_create_srq) or a Context (attr an "
		"SrqInitAttrEx, ibv_create_srq_ex).  Closing it closes "
		"the QPs created on it first.",
		{ Py_tp_init, srq_init }, { Py_tp_methods, srq_methods },
		{ Py_tp_getset, srq_getset }, PV_CM_SLOTS, );

int pv_srq_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &sa_spec, &pv.PyverbsObject, &pv.SrqAttr, sa_fields },
		{ &sia_spec, &pv.PyverbsObject, &pv.SrqInitAttr, sia_fields },
		{ &siax_spec, &pv.PyverbsObject, &pv.SrqInitAttrEx, siax_fields,
		  siax_oslots },
		{ &srq_spec, &pv.PyverbsCM, &pv.SRQ },
		{ NULL }
	};

	if (pv_add_types(m, types))
		return -1;
	return pv_obj_register_handle(pv.SRQ, offsetof(struct pv_srq, srq));
}
