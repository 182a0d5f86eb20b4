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
 *                             read_sgid()
 * The QPs and the CQ go through the core's creation hooks
 * (pv_qp_create_hook, pv_cqex_setup), so their checks,
 * parents and lifetime are the core's.  libefa refuses a non-EFA device in every entry point
 * (EOPNOTSUPP) except efadv_cq_from_ibv_cq_ex(), a container_of: it is only
 * called on a CQ efadv_create_cq() just made.
 */
#include "efa.h"
#include "addr.h"
#include "context.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
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

static PyMethodDef srdx_methods[] = {
	{ "_get_comp_mask", srdx_get_comp_mask, METH_O,
	  "_get_comp_mask($self, dst, /)\n--\n\n"
	  "The attribute mask of the move to dst ('INIT', 'RTR', 'RTS')." },
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

static PyMethodDef ecq_methods[] = {
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

int pv_efadv_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &ectx_spec, &pv.Context, &pv_efa.Context },
		{ &eah_spec, &pv.AH, &pv_efa.AH },
		{ &srd_spec, &pv.QP, &pv_efa.SRDQP },
		{ &srdx_spec, &pv.QPEx, &pv_efa.SRDQPEx },
		{ &ecq_spec, &pv.CQEX, &pv_efa.CQ },
		{ NULL }
	};

	return pv_add_types(m, types);
}
