/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Completion counters (rdma-core 65): CompCntrInitAttr and CompCntr
 * (pyverbs.comp_cntr; ibv_create_comp_cntr, ibv_destroy_comp_cntr and the
 * set/inc/read calls of its completion and error counts), CompCntrCaps
 * (pyverbs.device; Context.query_comp_cntr_caps()) and
 * QPAttachCompCntrAttr (pyverbs.qp; QP.attach_comp_cntr()): a counter
 * the device adds to as the operations of the attached QPs complete.
 *
 * A CompCntr is a child of its Context, and the parent of the QPs
 * attached to it (they must be destroyed first).  The attribute classes
 * are plain data in every build; from a build whose headers lack the
 * calls, each call raises the error naming rdma-core 65.  Providers
 * without counters (rxe among them) refuse with EOPNOTSUPP.
 */
#include "comp_cntr.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "qp.h"
#include "state.h"

#include <errno.h>
#include <string.h>

/* a counter's calls, each probed (all came with rdma-core 65) */
#define PV_HAVE_COMP_CNTR                                           \
	(HAVE_IBV_CREATE_COMP_CNTR && HAVE_IBV_DESTROY_COMP_CNTR && \
	 HAVE_IBV_SET_COMP_CNTR && HAVE_IBV_SET_ERR_COMP_CNTR &&    \
	 HAVE_IBV_INC_COMP_CNTR && HAVE_IBV_INC_ERR_COMP_CNTR &&    \
	 HAVE_IBV_READ_COMP_CNTR && HAVE_IBV_READ_ERR_COMP_CNTR)

/* ---- the attribute classes ---- */

/* struct ibv_comp_cntr_init_attr's members */
struct pv_cc_attr {
	PyObject_HEAD
	uint32_t comp_mask;
	uint32_t cntr_type; /* enum ibv_comp_cntr_type */
	uint32_t flags;
};

static const struct pv_field cca_fields[] = {
	PV_FIELD(struct pv_cc_attr, comp_mask, "comp_mask"),
	PV_FIELD(struct pv_cc_attr, cntr_type, "cntr_type"),
	PV_FIELD(struct pv_cc_attr, flags, "flags"), PV_FIELD_END
};

/* struct ibv_qp_attach_comp_cntr_attr's op_mask */
struct pv_cc_attach {
	PyObject_HEAD
	uint32_t op_mask;
};

static const struct pv_field ccq_fields[] = {
	PV_FIELD(struct pv_cc_attach, op_mask, "op_mask"), PV_FIELD_END
};

/* Store the arguments of an attribute class's __init__ into its fields
 * (n of them, each 0 unless given).  0 or -1. */
static int attr_fill(PyObject *obj, PyObject *args, PyObject *kw,
		     const char *fmt, char **kwlist,
		     const struct pv_field *fields, size_t n)
{
	PyObject *vals[3] = { NULL, NULL, NULL }, *zero;
	size_t i;
	int rc = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &vals[0],
					 &vals[1], &vals[2]))
		return -1;
	zero = PyLong_FromLong(0);
	if (!zero)
		return -1;
	for (i = 0; i < n && !rc; i++)
		rc = pv_field_store(obj, &fields[i], vals[i] ? vals[i] : zero);
	Py_DECREF(zero);
	return rc;
}

static int cca_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", "cntr_type", "flags", NULL };

	return attr_fill(obj, args, kw, "|OOO:CompCntrInitAttr", kwlist,
			 cca_fields, 3);
}

static int ccq_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "op_mask", NULL };

	return attr_fill(obj, args, kw, "|O:QPAttachCompCntrAttr", kwlist,
			 ccq_fields, 1);
}

PV_DATA_SPEC(cca, "pyverbs.comp_cntr.CompCntrInitAttr", struct pv_cc_attr,
	     "CompCntrInitAttr(comp_mask=0, cntr_type=0, flags=0)\n--\n\n"
	     "The attributes of a CompCntr (struct ibv_comp_cntr_init_attr): "
	     "cntr_type an ibv_comp_cntr_type (count work requests or bytes).",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, cca_init }, );

PV_DATA_SPEC(ccq, "pyverbs.qp.QPAttachCompCntrAttr", struct pv_cc_attach,
	     "QPAttachCompCntrAttr(op_mask=0)\n--\n\n"
	     "Which operations of a QP a counter counts (struct "
	     "ibv_qp_attach_comp_cntr_attr): op_mask of "
	     "ibv_qp_attach_comp_cntr_op bits.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, ccq_init }, );

/* struct ibv_comp_cntr_caps */
struct pv_cc_caps {
	PyObject_HEAD
	uint64_t max_value;
	uint32_t max_counters;
	uint32_t supported_qp_attach_ops;
};

static const struct pv_field ccc_fields[] = {
	PV_FIELD_RO(struct pv_cc_caps, max_counters, "max_counters"),
	PV_FIELD_RO(struct pv_cc_caps, max_value, "max_value"),
	PV_FIELD_RO(struct pv_cc_caps, supported_qp_attach_ops,
		    "supported_qp_attach_ops"),
	PV_FIELD_END
};

PV_DATA_SPEC(ccc, "pyverbs.device.CompCntrCaps", struct pv_cc_caps,
	     "CompCntrCaps()\n--\n\n"
	     "A device's completion counter capabilities, as "
	     "Context.query_comp_cntr_caps() returns them.",
	     { Py_tp_new, PyType_GenericNew },
	     { Py_tp_init, pv_noargs_init }, );

/* ---- CompCntr ---- */

static int cntr_destroy(struct pv_obj *o)
{
#if PV_HAVE_COMP_CNTR
	struct pv_comp_cntr *self = (struct pv_comp_cntr *)o;
	int rc;

	if (!self->cntr)
		return 0;
	rc = ibv_destroy_comp_cntr(self->cntr); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_comp_cntr",
			    "Failed to destroy comp_cntr");
		return -1;
	}
	self->cntr = NULL;
#endif
	return 0;
}

#if PV_HAVE_COMP_CNTR
/* CompCntr's creation call (pv_comp_cntr_setup's default) */
static struct ibv_comp_cntr *cntr_create(struct ibv_context *ctx,
					 struct ibv_comp_cntr_init_attr *attr,
					 void *arg)
{
	struct ibv_comp_cntr *c = ibv_create_comp_cntr(ctx, attr);

	if (!c) /* NULL, errno */
		pv_raise_errno("ibv_create_comp_cntr",
			       "Failed to create comp_cntr");
	return c;
}
#endif

/* comp_cntr.h */
int pv_comp_cntr_setup(PyObject *obj, PyObject *ctxo, PyObject *attro,
		       const char *func, pv_comp_cntr_create_fn create,
		       void *arg)
{
	struct pv_comp_cntr *self = (struct pv_comp_cntr *)obj;
	struct pv_context *ctx;

	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("%s is already initialised",
			      _PyType_Name(Py_TYPE(obj)));
		return -1;
	}
	if (!PyObject_TypeCheck(attro, pv.CompCntrInitAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "attr must be a CompCntrInitAttr, not %.100s",
			     Py_TYPE(attro)->tp_name);
		return -1;
	}
	if (!(ctx = pv_context_arg(ctxo, "ctx")))
		return -1;
	pv_obj_setup(&self->obj, cntr_destroy);
#if PV_HAVE_COMP_CNTR
	if (create) {
		struct pv_cc_attr *a = (struct pv_cc_attr *)attro;
		struct ibv_comp_cntr_init_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.comp_mask = a->comp_mask;
		attr.type = (enum ibv_comp_cntr_type)a->cntr_type;
		attr.flags = a->flags;
		self->cntr = create(ctx->ctx, &attr, arg);
		if (!self->cntr)
			return -1;
		if (pv_obj_link(&self->obj, &ctx->obj)) {
			cntr_destroy(&self->obj);
			return -1;
		}
		pv_obj_opened(&self->obj);
		return 0;
	}
#else
	(void)create;
	(void)arg;
#endif
	pv_raise_needs(func, 65);
	return -1;
}

static int cntr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "attr", NULL };
	PyObject *ctxo, *attro;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:CompCntr", kwlist, &ctxo,
					 &attro))
		return -1;
#if PV_HAVE_COMP_CNTR
	return pv_comp_cntr_setup(obj, ctxo, attro, "ibv_create_comp_cntr",
				  cntr_create, NULL);
#else
	return pv_comp_cntr_setup(obj, ctxo, attro, "ibv_create_comp_cntr",
				  NULL, NULL);
#endif
}

/* The counter calls, by index: set, set_err, inc, inc_err (a value in),
 * read, read_err (a value out). */
enum { CC_SET, CC_SET_ERR, CC_INC, CC_INC_ERR, CC_READ, CC_READ_ERR };

#if PV_HAVE_COMP_CNTR
static const char *const cc_names[] = { "set",	   "set_err", "inc",
					"inc_err", "read",    "read_err" };

static const struct {
	int (*in)(struct ibv_comp_cntr *c, uint64_t v);
	int (*out)(struct ibv_comp_cntr *c, uint64_t *v);
	const char *func;
} cc_ops[] = {
	{ ibv_set_comp_cntr, NULL, "ibv_set_comp_cntr" },
	{ ibv_set_err_comp_cntr, NULL, "ibv_set_err_comp_cntr" },
	{ ibv_inc_comp_cntr, NULL, "ibv_inc_comp_cntr" },
	{ ibv_inc_err_comp_cntr, NULL, "ibv_inc_err_comp_cntr" },
	{ NULL, ibv_read_comp_cntr, "ibv_read_comp_cntr" },
	{ NULL, ibv_read_err_comp_cntr, "ibv_read_err_comp_cntr" },
};
#endif

/* Call op with the value of arg (NULL: a read, returning the value). */
static PyObject *cntr_call(PyObject *obj, PyObject *arg, int op)
{
	struct pv_comp_cntr *self = (struct pv_comp_cntr *)obj;
	uint64_t v = 0;

	if (arg && !pv_conv_u64(arg, &v))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
#if PV_HAVE_COMP_CNTR
	{
		/* each returns errno */
		int rc = arg ? cc_ops[op].in(self->cntr, v) :
			       cc_ops[op].out(self->cntr, &v);

		if (rc)
			return pv_raise_rc(rc, cc_ops[op].func,
					   "Failed to %s comp_cntr",
					   cc_names[op]);
		if (arg)
			Py_RETURN_NONE;
		return PyLong_FromUnsignedLongLong(v);
	}
#else
	/* never reached: no CompCntr opens in this build */
	return pv_raise_needs("ibv_create_comp_cntr", 65);
#endif
}

#define CC_METHOD(name, op, arg)                                 \
	static PyObject *cntr_##name(PyObject *obj, PyObject *a) \
	{                                                        \
		return cntr_call(obj, arg, op);                  \
	}
CC_METHOD(set, CC_SET, a)
CC_METHOD(set_err, CC_SET_ERR, a)
CC_METHOD(inc, CC_INC, a)
CC_METHOD(inc_err, CC_INC_ERR, a)
CC_METHOD(read, CC_READ, NULL)
CC_METHOD(read_err, CC_READ_ERR, NULL)

static PyMethodDef cntr_methods[] = {
	{ "set", cntr_set, METH_O,
	  "set($self, value, /)\n--\n\nSet the completion count." },
	{ "set_err", cntr_set_err, METH_O,
	  "set_err($self, value, /)\n--\n\nSet the error count." },
	{ "inc", cntr_inc, METH_O,
	  "inc($self, amount, /)\n--\n\nAdd amount to the completion count." },
	{ "inc_err", cntr_inc_err, METH_O,
	  "inc_err($self, amount, /)\n--\n\nAdd amount to the error count." },
	{ "read", cntr_read, METH_NOARGS,
	  "read($self, /)\n--\n\nThe completion count." },
	{ "read_err", cntr_read_err, METH_NOARGS,
	  "read_err($self, /)\n--\n\nThe error count." },
	{ NULL }
};

PV_GC_TYPE_SPEC(cntr, "pyverbs.comp_cntr.CompCntr", struct pv_comp_cntr,
		"CompCntr(ctx, attr)\n--\n\n"
		"A completion counter (ibv_create_comp_cntr) on a Context, "
		"created per a CompCntrInitAttr: a completion count and an "
		"error count that the device advances for the QPs attached to "
		"it (QP.attach_comp_cntr) and that set/inc/read reach.  A child "
		"of its Context.",
		{ Py_tp_init, cntr_init }, { Py_tp_methods, cntr_methods },
		PV_CM_SLOTS, );

/* ---- the methods of Context and QP ---- */

/* comp_cntr.h: Context.query_comp_cntr_caps() */
PyObject *pv_ctx_query_comp_cntr_caps(PyObject *self, PyObject *unused)
{
	struct pv_context *ctx = (struct pv_context *)self;

	if (pv_check_open(&ctx->obj))
		return NULL;
#if HAVE_IBV_QUERY_COMP_CNTR_CAPS
	{
		struct ibv_comp_cntr_caps caps;
		struct pv_cc_caps *out;
		int rc;

		memset(&caps, 0, sizeof(caps));
		rc = ibv_query_comp_cntr_caps(ctx->ctx, &caps); /* errno */
		if (rc)
			return pv_raise_rc(rc, "ibv_query_comp_cntr_caps",
					   "Failed to query comp_cntr caps");
		out = (struct pv_cc_caps *)PyObject_CallNoArgs(
			(PyObject *)pv.CompCntrCaps);
		if (!out)
			return NULL;
		out->max_counters = caps.max_counters;
		out->max_value = caps.max_value;
		out->supported_qp_attach_ops = caps.supported_qp_attach_ops;
		return (PyObject *)out;
	}
#else
	return pv_raise_needs("ibv_query_comp_cntr_caps", 65);
#endif
}

/*
 * comp_cntr.h: QP.attach_comp_cntr(comp_cntr, attr).  There is no detach:
 * the QP stays attached until destroyed, and libibverbs refuses to destroy
 * a counter still attached (EBUSY).  So the QP becomes a child of the
 * counter: closing the counter (or its Context) closes the QP first.
 */
PyObject *pv_qp_attach_comp_cntr(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_cntr", "attr", NULL };
	PyObject *cntro, *attro;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!:attach_comp_cntr",
					 kwlist, pv.CompCntr, &cntro,
					 pv.QPAttachCompCntrAttr, &attro))
		return NULL;
#if HAVE_IBV_QP_ATTACH_COMP_CNTR
	{
		struct pv_comp_cntr *cntr = (struct pv_comp_cntr *)cntro;
		struct pv_qp *qp = (struct pv_qp *)self;
		struct ibv_qp_attach_comp_cntr_attr attr;
		int rc, linked;

		if (pv_check_open(&qp->obj) ||
		    pv_obj_check_in(&cntr->obj, pv_obj_root(&qp->obj),
				    "CompCntr", "QP"))
			return NULL;
		linked = pv_obj_has_parent(&qp->obj, &cntr->obj);
		if (!linked &&
		    qp->obj.nparents >= PV_MAX_PARENTS + qp->obj.nxparents)
			return pv_raise_user("The QP has no room for another "
					     "parent (the CompCntr)");
		memset(&attr, 0, sizeof(attr));
		attr.op_mask = ((struct pv_cc_attach *)attro)->op_mask;
		/* returns errno */
		rc = ibv_qp_attach_comp_cntr(qp->qp, cntr->cntr, &attr);
		if (rc)
			return pv_raise_rc(rc, "ibv_qp_attach_comp_cntr",
					   "Failed to attach comp cntr to QP");
		/* the counter is now a parent of the QP (checked open, room
		 * checked: the link cannot fail) */
		if (!linked && pv_obj_link(&qp->obj, &cntr->obj))
			return NULL;
		Py_RETURN_NONE;
	}
#else
	return pv_raise_needs("ibv_qp_attach_comp_cntr", 65);
#endif
}

int pv_comp_cntr_init_types(PyObject *m)
{
	return PyModule_AddIntConstant(m, "_HAVE_COMP_CNTR",
				       PV_HAVE_COMP_CNTR &&
					       HAVE_IBV_QUERY_COMP_CNTR_CAPS &&
					       HAVE_IBV_QP_ATTACH_COMP_CNTR) ||
	       pv_add_data_type(m, &cca_spec, pv.PyverbsObject, cca_fields,
				NULL, NULL, &pv.CompCntrInitAttr) ||
	       pv_add_data_type(m, &ccq_spec, pv.PyverbsObject, ccq_fields,
				NULL, NULL, &pv.QPAttachCompCntrAttr) ||
	       pv_add_data_type(m, &ccc_spec, pv.PyverbsObject, ccc_fields,
				NULL, NULL, &pv.CompCntrCaps) ||
	       pv_add_type(m, &cntr_spec, pv.PyverbsCM, &pv.CompCntr);
}
