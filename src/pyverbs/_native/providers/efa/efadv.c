/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The EFA objects of pyverbs.providers.efa.efadv, each a subclass of a core
 * object that it creates through libefa:
 *   EfaContext(name='')       a Context (EFA has no open-device call) with
 *                             query_efa_device() (efadv_query_device)
 *   EfaAH                     an AH with query_efa_ah() (efadv_query_ah)
 *   SRDQP(pd, init_attr)      a QP made by efadv_create_driver_qp(SRD)
 *   SRDQPEx(ctx, attr_ex, efa_init_attr)
 *                             a QPEx made by efadv_create_qp_ex, with the
 *                             SRD state-transition masks
 *   EfaCQ(ctx, attr_ex, efa_init_attr)
 *                             a CQEX made by efadv_create_cq, with
 *                             read_sgid() and is_unsolicited()
 *   EfaMR                     an MR with query() (efadv_query_mr)
 *   EfaCompCntr(ctx, attr, efa_attr=None)
 *                             a CompCntr made by efadv_create_comp_cntr
 *                             (through the core's pv_comp_cntr_setup)
 * The QPs and the CQ go through the core's creation hooks
 * (pv_qp_create_hook, pv_cqex_setup), so their checks,
 * parents and lifetime are the core's.  libefa refuses a non-EFA device in every entry point
 * (EOPNOTSUPP) except efadv_cq_from_ibv_cq_ex(), a container_of: it is only
 * called on a CQ efadv_create_cq() just made.
 */
#include "efa.h"
#include "addr.h"
#include "comp_cntr.h"
#include "context.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "mr.h"
#include "object.h"
#include "qp.h"
#include "state.h"

#include <errno.h>

/* TypeError unless o is an instance of *tp (named what). 0 or -1. */
static int efa_arg(PyObject *o, PyTypeObject *tp, const char *what)
{
	if (pv_type_ok(o, tp))
		return 0;
	PyErr_Format(PyExc_TypeError, "%s must be a %s, not %.100s", what,
		     _PyType_Name(tp), Py_TYPE(o)->tp_name);
	return -1;
}

/* ------------------------------------------------------------------ */
/* EfaContext                                                          */
/* ------------------------------------------------------------------ */

/* A plain Context(name=name): efadv has no device-open call. */
static int ectx_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "name", NULL };
	PyObject *name = NULL, *kwargs, *empty;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:EfaContext", kwlist,
					 &name))
		return -1;
	empty = PyTuple_New(0);
	kwargs = name ? Py_BuildValue("{sO}", "name", name) :
			Py_BuildValue("{ss}", "name", "");
	rc = empty && kwargs ? pv.Context->tp_init(obj, empty, kwargs) : -1;
	Py_XDECREF(empty);
	Py_XDECREF(kwargs);
	return rc;
}

static PyObject *ectx_query_efa_device(PyObject *obj, PyObject *unused)
{
	struct pv_context *self = (struct pv_context *)obj;
	struct efadv_device_attr attr;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	memset(&attr, 0, sizeof(attr));
	/* returns an errno value (EOPNOTSUPP on a non-EFA device) */
	rc = efadv_query_device(self->ctx, &attr, sizeof(attr));
	if (rc)
		return pv_raise_rc(rc, "efadv_query_device",
				   "Failed to query efa device %S",
				   self->name ? self->name : Py_None);
	return pv_efa_attr_new(pv_efa.DeviceAttr, &attr, sizeof(attr));
}

static PyMethodDef ectx_methods[] = {
	{ "query_efa_device", ectx_query_efa_device, METH_NOARGS,
	  "query_efa_device($self, /)\n--\n\n"
	  "efadv_query_device(): the device's EfaDVDeviceAttr." },
	{ NULL }
};

/* GC: inherited from the base */
PV_TYPE_SPEC(ectx, "pyverbs.providers.efa.efadv.EfaContext", struct pv_context,
	     "EfaContext(name='')\n--\n\n"
	     "A Context on the EFA device name, with the EFA queries.",
	     { Py_tp_init, ectx_init }, { Py_tp_methods, ectx_methods }, );

/* ------------------------------------------------------------------ */
/* EfaAH                                                               */
/* ------------------------------------------------------------------ */

static PyObject *eah_query_efa_ah(PyObject *obj, PyObject *unused)
{
	struct pv_ah *self = (struct pv_ah *)obj;
	struct efadv_ah_attr attr;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	memset(&attr, 0, sizeof(attr));
	rc = efadv_query_ah(self->ah, &attr, sizeof(attr)); /* errno */
	if (rc)
		return pv_raise_rc(rc, "efadv_query_ah",
				   "Failed to query efa ah");
	return pv_efa_attr_new(pv_efa.AHAttr, &attr, sizeof(attr));
}

static PyMethodDef eah_methods[] = {
	{ "query_efa_ah", eah_query_efa_ah, METH_NOARGS,
	  "query_efa_ah($self, /)\n--\n\n"
	  "efadv_query_ah(): the AH's EfaDVAHAttr (its AH number)." },
	{ NULL }
};

/* GC: inherited from the base */
PV_TYPE_SPEC(eah, "pyverbs.providers.efa.efadv.EfaAH", struct pv_ah,
	     "EfaAH(pd, attr=None, *, wc=None, grh=None, "
	     "port_num=None)\n--\n\n"
	     "An AH (same constructor) with query_efa_ah().",
	     { Py_tp_methods, eah_methods }, );

/* ------------------------------------------------------------------ */
/* SRDQP                                                               */
/* ------------------------------------------------------------------ */

/* The creation call of SRDQP (its pv_qp_create_hook.create_on_pd). */
static struct ibv_qp *srd_create(PyObject *self, struct ibv_pd *pd,
				 struct ibv_qp_init_attr *a, void *arg)
{
	struct ibv_qp *qp;

	/* sets errno; EINVAL unless qp_type is IBV_QPT_DRIVER */
	qp = efadv_create_driver_qp(pd, a, EFADV_QP_DRIVER_TYPE_SRD);
	if (!qp)
		pv_raise_errno("efadv_create_driver_qp",
			       "Failed to create SRD QP");
	return qp;
}

/*
 * Like upstream, SRDQP keeps the transitions of its qp_type
 * (IBV_QPT_DRIVER has none: to_init() & co. raise KeyError); SRDQPEx has
 * the SRD ones.
 */
static int srd_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd", "init_attr", NULL };
	PyObject *pd, *ia;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:SRDQP", kwlist, &pd,
					 &ia))
		return -1;
	if (efa_arg(pd, pv.PD, "pd") || efa_arg(ia, pv.QPInitAttr, "init_attr"))
		return -1;
	static const struct pv_qp_create_hook hook = { .create_on_pd =
							       srd_create };

	return pv_qp_create(obj, pd, ia, Py_None, &hook);
}

/* GC: inherited from the base */
PV_TYPE_SPEC(srd, "pyverbs.providers.efa.efadv.SRDQP", struct pv_qp,
	     "SRDQP(pd, init_attr)\n--\n\n"
	     "An SRD QP on pd (efadv_create_driver_qp); init_attr is a "
	     "QPInitAttr with qp_type IBV_QPT_DRIVER.",
	     { Py_tp_init, srd_init }, );

/* ------------------------------------------------------------------ */
/* SRDQPEx                                                             */
/* ------------------------------------------------------------------ */

/* The SRD masks of to_init/to_rtr/to_rts (IBV_QP_STATE is added). */
static const int srdx_masks[] = {
	IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
	0,
	IBV_QP_SQ_PSN,
};

/* The creation hook of SRDQPEx; arg is the EfaQPInitAttr. */
static struct ibv_qp *srdx_create(PyObject *self, struct ibv_context *ctx,
				  struct ibv_qp_init_attr_ex *a, void *arg)
{
	struct efadv_qp_init_attr efa =
		((struct pv_efa_qp_init_attr *)arg)->attr;
	struct ibv_qp *qp;

	qp = efadv_create_qp_ex(ctx, a, &efa, sizeof(efa)); /* errno */
	if (!qp)
		pv_raise_errno("efadv_create_qp_ex",
			       "Failed to create SRD QPEx");
	return qp;
}

static int srdx_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "attr_ex", "efa_init_attr", NULL };
	PyObject *ctx, *ia, *efa;
	struct pv_qp_create_hook hook = { .create = srdx_create };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:SRDQPEx", kwlist, &ctx,
					 &ia, &efa))
		return -1;
	if (efa_arg(ctx, pv.Context, "ctx") ||
	    efa_arg(ia, pv.QPInitAttrEx, "attr_ex") ||
	    efa_arg(efa, pv_efa.QPInitAttr, "efa_init_attr"))
		return -1;
	hook.arg = efa;
	if (pv_qpx_create(obj, ctx, ia, Py_None, &hook))
		return -1;
	((struct pv_qp *)obj)->masks = srdx_masks;
	return 0;
}

/* Upstream's _get_comp_mask(dst): the mask of the transition to dst
 * ('INIT', 'RTR' or 'RTS'), IBV_QP_STATE included. */
static PyObject *srdx_get_comp_mask(PyObject *obj, PyObject *dst)
{
	static const char *const names[] = { "INIT", "RTR", "RTS" };
	size_t i;

	for (i = 0; i < 3; i++) {
		int eq = PyUnicode_Check(dst) &&
			 PyUnicode_CompareWithASCIIString(dst, names[i]) == 0;

		if (eq)
			return PyLong_FromLong(srdx_masks[i] | IBV_QP_STATE);
	}
	PyErr_SetObject(PyExc_KeyError, dst);
	return NULL;
}

/*
 * wr_set_processing_hints(hints) (rdma-core 64): efadv_wr_set_processing_hints
 * calls the QP's wr_set_processing_hints, which libefa sets only for a QP
 * created with EFADV_WR_EX_WITH_PROCESSING_HINTS in wr_flags, and which
 * sets the WR being built: both are checked (upstream calls through NULL).
 */
static PyObject *srdx_wr_set_processing_hints(PyObject *obj, PyObject *arg)
{
	struct pv_qp_ex *self = (struct pv_qp_ex *)obj;
	uint32_t hints;
#if HAVE_EFADV_QP_FROM_IBV_QP_EX
	struct efadv_qp *dv;
#endif

	if (!pv_conv_u32(arg, &hints) || pv_check_open(&self->qp.obj))
		return NULL;
#if HAVE_EFADV_QP_FROM_IBV_QP_EX
	if (!self->qpx)
		return pv_raise_user("This SRDQPEx was created without "
				     "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: the "
				     "ibv_wr_* API is not available");
	if (!pv_qpx_my_batch(self))
		return (pv_qpx_batch_refused(self), NULL);
	/* a container_of of the QP efadv_create_qp_ex() made */
	dv = efadv_qp_from_ibv_qp_ex(self->qpx);
	if (!dv || !dv->wr_set_processing_hints)
		return pv_raise_user("wr_set_processing_hints(): the SRDQPEx "
				     "was not created with "
				     "EFADV_WR_EX_WITH_PROCESSING_HINTS");
	efadv_wr_set_processing_hints(dv, hints);
	Py_RETURN_NONE;
#else
	return pv_raise_needs("efadv_wr_set_processing_hints", 64);
#endif
}

static PyMethodDef srdx_methods[] = {
	{ "_get_comp_mask", srdx_get_comp_mask, METH_O,
	  "_get_comp_mask($self, dst, /)\n--\n\n"
	  "The attribute mask of the move to dst ('INIT', 'RTR', 'RTS')." },
	{ "wr_set_processing_hints", srdx_wr_set_processing_hints, METH_O,
	  "wr_set_processing_hints($self, hints, /)\n--\n\n"
	  "Give the WR being built the processing hints hints "
	  "(EFADV_WR_PROCESSING_HINT_*), between wr_start() and "
	  "wr_complete(), on a QP created with wr_flags "
	  "EFADV_WR_EX_WITH_PROCESSING_HINTS." },
	{ NULL }
};

/* GC: inherited from the base */
PV_TYPE_SPEC(srdx, "pyverbs.providers.efa.efadv.SRDQPEx", struct pv_qp_ex,
	     "SRDQPEx(ctx, attr_ex, efa_init_attr)\n--\n\n"
	     "An SRD QPEx on ctx (efadv_create_qp_ex); attr_ex is a "
	     "QPInitAttrEx (qp_type IBV_QPT_DRIVER), efa_init_attr an "
	     "EfaQPInitAttr.  to_init/to_rtr/to_rts use the SRD masks "
	     "(INIT: PKEY_INDEX|PORT|QKEY, RTR: none, RTS: SQ_PSN).",
	     { Py_tp_init, srdx_init }, { Py_tp_methods, srdx_methods }, );

/* ------------------------------------------------------------------ */
/* EfaCQ                                                               */
/* ------------------------------------------------------------------ */

struct efa_cq {
	struct pv_cq cq;
	/* efadv_cq_from_ibv_cq_ex() of the open CQ: its wc_read_sgid is
	 * set only when the CQ has EFADV_WC_EX_WITH_SGID */
	struct efadv_cq *dv;
	struct efadv_cq_init_attr efa; /* for the creation call */
};

/* The creation call of EfaCQ (pv_cqex_setup()); arg is the EfaCQ. */
static struct ibv_cq_ex *ecq_create(struct ibv_context *ctx,
				    struct ibv_cq_init_attr_ex *a, void *arg)
{
	struct efa_cq *self = arg;
	struct ibv_cq_ex *cq;

	cq = efadv_create_cq(ctx, a, &self->efa, sizeof(self->efa));
	if (!cq) {
		pv_raise_errno("efadv_create_cq", "Failed to create EFA CQ");
		return NULL;
	}
	self->dv = efadv_cq_from_ibv_cq_ex(cq);
	return cq;
}

static int ecq_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "attr_ex", "efa_init_attr", NULL };
	struct efa_cq *self = (struct efa_cq *)obj;
	PyObject *ctx, *ia, *efa;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:EfaCQ", kwlist, &ctx,
					 &ia, &efa))
		return -1;
	if (efa_arg(ctx, pv.Context, "ctx"))
		return -1;
	if (ia == Py_None) { /* CQEX takes None for its defaults */
		PyErr_SetString(PyExc_TypeError,
				"attr_ex must be a CqInitAttrEx, not None");
		return -1;
	}
	if (efa != Py_None && efa_arg(efa, pv_efa.CQInitAttr, "efa_init_attr"))
		return -1;
	if (!self->cq.obj.closed || self->cq.obj.nparents) {
		pv_raise_user("EfaCQ is already initialised");
		return -1;
	}
	memset(&self->efa, 0, sizeof(self->efa));
	if (efa != Py_None)
		self->efa = ((struct pv_efa_cq_init_attr *)efa)->attr;
	self->dv = NULL;
	return pv_cqex_setup(obj, ctx, ia, ecq_create, self);
}

/*
 * efadv_wc_read_sgid() calls dv->wc_read_sgid, which libefa sets only for
 * a CQ with EFADV_WC_EX_WITH_SGID, and which reads the current completion:
 * both are checked (upstream calls through NULL, or reads a stale CQE).
 */
static PyObject *ecq_read_sgid(PyObject *obj, PyObject *unused)
{
	struct efa_cq *self = (struct efa_cq *)obj;
	union ibv_gid gid;

	if (pv_check_open(&self->cq.obj))
		return NULL;
	if (!self->cq.polling || !self->cq.current)
		return pv_raise_user("read_sgid(): no current completion "
				     "(start_poll() or poll_next() did not "
				     "return 0)");
	if (!self->dv || !self->dv->wc_read_sgid)
		return pv_raise_user("read_sgid(): the EfaCQ was not created "
				     "with EFADV_WC_EX_WITH_SGID");
	memset(&gid, 0, sizeof(gid));
	/* nonzero when the completion has no source GID (its AH is known) */
	if (efadv_wc_read_sgid(self->dv, &gid))
		Py_RETURN_NONE;
	return pv_gid_new(&gid);
}

/*
 * is_unsolicited() (rdma-core 52): whether the current completion is an
 * unsolicited RDMA write receive.  efadv_wc_is_unsolicited() calls
 * wc_is_unsolicited, which libefa sets only with
 * EFADV_WC_EX_WITH_IS_UNSOLICITED: checked, as the current completion.
 */
static PyObject *ecq_is_unsolicited(PyObject *obj, PyObject *unused)
{
	struct efa_cq *self = (struct efa_cq *)obj;

	if (pv_check_open(&self->cq.obj))
		return NULL;
#if HAVE_EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV
	if (!self->cq.polling || !self->cq.current)
		return pv_raise_user("is_unsolicited(): no current completion "
				     "(start_poll() or poll_next() did not "
				     "return 0)");
	if (!self->dv || !self->dv->wc_is_unsolicited)
		return pv_raise_user("is_unsolicited(): the EfaCQ was not "
				     "created with "
				     "EFADV_WC_EX_WITH_IS_UNSOLICITED");
	return PyBool_FromLong(efadv_wc_is_unsolicited(self->dv));
#else
	return pv_raise_needs("efadv_wc_is_unsolicited", 52);
#endif
}

static PyMethodDef ecq_methods[] = {
	{ "is_unsolicited", ecq_is_unsolicited, METH_NOARGS,
	  "is_unsolicited($self, /)\n--\n\n"
	  "Whether the current completion is an unsolicited RDMA write "
	  "receive (a bool).  Only between a successful "
	  "start_poll()/poll_next() and end_poll(), on a CQ made with "
	  "EFADV_WC_EX_WITH_IS_UNSOLICITED." },
	{ "read_sgid", ecq_read_sgid, METH_NOARGS,
	  "read_sgid($self, /)\n--\n\n"
	  "The source GID of the current completion (a GID), or None when "
	  "libefa has none for it (the sender's AH is known).  Only between "
	  "a successful start_poll()/poll_next() and end_poll(), on a CQ made "
	  "with EFADV_WC_EX_WITH_SGID." },
	{ NULL }
};

/* GC: inherited from the base */
PV_TYPE_SPEC(ecq, "pyverbs.providers.efa.efadv.EfaCQ", struct efa_cq,
	     "EfaCQ(ctx, attr_ex, efa_init_attr)\n--\n\n"
	     "A CQEX made by efadv_create_cq(): attr_ex a CqInitAttrEx, "
	     "efa_init_attr an EfaDVCQInitAttr or None (defaults).",
	     { Py_tp_init, ecq_init }, { Py_tp_methods, ecq_methods }, );

/* ------------------------------------------------------------------ */
/* EfaMR                                                               */
/* ------------------------------------------------------------------ */

/* query() (rdma-core 50): the MR's EFA attributes (efadv_query_mr). */
static PyObject *emr_query(PyObject *obj, PyObject *unused)
{
	struct pv_mr *self = (struct pv_mr *)obj;
	pv_efadv_mr_attr attr;

	if (pv_check_open(&self->obj))
		return NULL;
	memset(&attr, 0, sizeof(attr));
#if HAVE_EFADV_QUERY_MR
	int rc = efadv_query_mr(self->mr, &attr, sizeof(attr)); /* errno */

	if (rc)
		return pv_raise_rc(rc, "efadv_query_mr",
				   "Failed to query EFA MR");
	return pv_efa_attr_new(pv_efa.MRAttr, &attr, sizeof(attr));
#else
	return pv_raise_needs("efadv_query_mr", 50);
#endif
}

static PyMethodDef emr_methods[] = {
	{ "query", emr_query, METH_NOARGS,
	  "query($self, /)\n--\n\n"
	  "The MR's EFA attributes (efadv_query_mr) as an EfaDVMRAttr." },
	{ NULL }
};

/* GC and the constructor: MR's */
PV_TYPE_SPEC(emr, "pyverbs.providers.efa.efadv.EfaMR", struct pv_mr,
	     "EfaMR(creator, length=0, access=0, address=None, "
	     "implicit=False, handle=None)\n--\n\n"
	     "An MR (same constructor) with query(), its EFA attributes.",
	     { Py_tp_methods, emr_methods }, );

/* ------------------------------------------------------------------ */
/* EfaCompCntr                                                         */
/* ------------------------------------------------------------------ */

#if HAVE_EFADV_CREATE_COMP_CNTR
/* The creation hook of EfaCompCntr (pv_comp_cntr_setup()); arg is the
 * EfaCompCntrInitAttr. */
static struct ibv_comp_cntr *ecc_create(struct ibv_context *ctx,
					struct ibv_comp_cntr_init_attr *attr,
					void *arg)
{
	struct pv_efa_comp_cntr_attr *ea = arg;
	struct efadv_comp_cntr_init_attr efa;
	struct ibv_comp_cntr *c;

	memset(&efa, 0, sizeof(efa));
	efa.flags = ea->flags;
	if (ea->flags & EFADV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM) {
		efa.comp_cntr_ext_mem.type = EFADV_MEMORY_LOCATION_VA;
		efa.comp_cntr_ext_mem.ptr = (uint8_t *)(uintptr_t)ea->comp_va;
	}
	if (ea->flags & EFADV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM) {
		efa.err_cntr_ext_mem.type = EFADV_MEMORY_LOCATION_VA;
		efa.err_cntr_ext_mem.ptr = (uint8_t *)(uintptr_t)ea->err_va;
	}
	/* NULL, errno (EOPNOTSUPP on a non-EFA device) */
	c = efadv_create_comp_cntr(ctx, attr, &efa, sizeof(efa));
	if (!c)
		pv_raise_errno("efadv_create_comp_cntr",
			       "Failed to create EFA comp_cntr");
	return c;
}
#endif

static int ecc_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "attr", "efa_attr", NULL };
	PyObject *ctx, *attr, *efa = Py_None, *dflt = NULL;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:EfaCompCntr", kwlist,
					 &ctx, &attr, &efa))
		return -1;
	if (efa == Py_None) /* no external memory */
		efa = dflt =
			PyObject_CallNoArgs((PyObject *)pv_efa.CompCntrAttr);
	else if (efa_arg(efa, pv_efa.CompCntrAttr, "efa_attr"))
		return -1;
	if (!efa)
		return -1;
#if HAVE_EFADV_CREATE_COMP_CNTR
	rc = pv_comp_cntr_setup(obj, ctx, attr, "efadv_create_comp_cntr",
				ecc_create, efa);
#else
	rc = pv_comp_cntr_setup(obj, ctx, attr, "efadv_create_comp_cntr", NULL,
				efa);
#endif
	Py_XDECREF(dflt);
	return rc;
}

/* GC, methods and close: CompCntr's */
PV_TYPE_SPEC(ecc, "pyverbs.providers.efa.efadv.EfaCompCntr",
	     struct pv_comp_cntr,
	     "EfaCompCntr(ctx, attr, efa_attr=None)\n--\n\n"
	     "A CompCntr made by efadv_create_comp_cntr(): attr a "
	     "CompCntrInitAttr, efa_attr an EfaCompCntrInitAttr (where the "
	     "device keeps the counts) or None (in the device).",
	     { Py_tp_init, ecc_init }, );

int pv_efadv_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &ectx_spec, &pv.Context, &pv_efa.Context },
		{ &eah_spec, &pv.AH, &pv_efa.AH },
		{ &srd_spec, &pv.QP, &pv_efa.SRDQP },
		{ &srdx_spec, &pv.QPEx, &pv_efa.SRDQPEx },
		{ &ecq_spec, &pv.CQEX, &pv_efa.CQ },
		{ &emr_spec, &pv.MR, &pv_efa.MR },
		{ &ecc_spec, &pv.CompCntr, &pv_efa.CompCntr },
		{ NULL }
	};

	return pv_add_types(m, types);
}
