/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * mlx5 flow steering (pyverbs.providers.mlx5.mlx5dv_flow):
 * Mlx5FlowMatchParameters (struct mlx5dv_flow_match_parameters, also the
 * mask and value of the DR matchers and rules), Mlx5FlowMatcherAttr,
 * Mlx5FlowMatcher (mlx5dv_create_flow_matcher), Mlx5FlowActionAttr and
 * Mlx5Flow (a Flow, mlx5dv_create_flow); the flow actions are in
 * flow_action.c.
 *
 * Lifetimes: a matcher is a child of its Context; an Mlx5Flow is a child
 * of its matcher and of every QP, flow action (its hidden handle) and DevX
 * object its action attributes name, so closing any of them closes the
 * flow first.
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "flow.h"
#include "object.h"
#include "qp.h"
#include "state.h"

#include <errno.h>

/* ---- Mlx5FlowMatchParameters ---- */

struct pv_match_params {
	PyObject_HEAD
	struct mlx5dv_flow_match_parameters *params; /* NULL: closed */
};

struct mlx5dv_flow_match_parameters *pv_mlx5_match_params(PyObject *o,
							  const char *what)
{
	struct pv_match_params *mp = (struct pv_match_params *)o;

	if (!pv_type_ok(o, pv_mlx5.FlowMatchParameters)) {
		PyErr_Format(PyExc_TypeError,
			     "%s must be a "
			     "Mlx5FlowMatchParameters, not %.100s",
			     what, Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (!mp->params) {
		pv_raise_user("Mlx5FlowMatchParameters is closed");
		return NULL;
	}
	return mp->params;
}

static int mp_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "size", "values", NULL };
	struct pv_match_params *self = (struct pv_match_params *)obj;
	struct mlx5dv_flow_match_parameters *p;
	PyObject *values, *b = NULL;
	size_t size;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O&O:Mlx5FlowMatchParameters", kwlist,
					 pv_conv_size, &size, &values))
		return -1;
	if (size > (1u << 20)) {
		PyErr_Format(PyExc_OverflowError, "size %zu is too large",
			     size);
		return -1;
	}
	if (size) {
		if (PyLong_Check(values)) {
			PyErr_SetString(PyExc_TypeError,
					"values must be bytes, not int");
			return -1;
		}
		b = PyObject_Bytes(values);
		if (!b)
			return -1;
		if ((size_t)PyBytes_GET_SIZE(b) > size) {
			PyErr_Format(PyExc_ValueError,
				     "values has %zd bytes, "
				     "more than size (%zu)",
				     PyBytes_GET_SIZE(b), size);
			Py_DECREF(b);
			return -1;
		}
	}
	/* match_buf is uint64_t[]: round the room up, zeroed */
	p = PyMem_Calloc(1, sizeof(*p) + ((size + 7) & ~(size_t)7));
	if (!p) {
		Py_XDECREF(b);
		PyErr_NoMemory();
		return -1;
	}
	p->match_sz = size;
	if (b) {
		memcpy(p->match_buf, PyBytes_AS_STRING(b), PyBytes_GET_SIZE(b));
		Py_DECREF(b);
	}
	PyMem_Free(self->params);
	self->params = p;
	return 0;
}

static PyObject *mp_close(PyObject *obj, PyObject *unused)
{
	struct pv_match_params *self = (struct pv_match_params *)obj;

	PyMem_Free(self->params);
	self->params = NULL;
	Py_RETURN_NONE;
}

static void mp_dealloc(PyObject *obj)
{
	PyTypeObject *tp = Py_TYPE(obj);

	PyMem_Free(((struct pv_match_params *)obj)->params);
	tp->tp_free(obj);
	Py_DECREF(tp);
}

static PyMethodDef mp_methods[] = {
	{ "close", mp_close, METH_NOARGS,
	  "close($self, /)\n--\n\nFree the parameters (no longer usable)." },
	{ NULL }
};

PV_TYPE_SPEC(mp, "pyverbs.providers.mlx5.mlx5dv_flow.Mlx5FlowMatchParameters",
	     struct pv_match_params,
	     "Mlx5FlowMatchParameters(size, values)\n--\n\n"
	     "A match mask or value (struct "
	     "mlx5dv_flow_match_parameters) of size bytes in the "
	     "device's Flow Table Entry Match Parameters format: "
	     "values (bytes, or an object with __bytes__, at most "
	     "size bytes) followed by zeros.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, mp_init },
	     { Py_tp_methods, mp_methods }, { Py_tp_dealloc, mp_dealloc }, );

/* ---- Mlx5FlowMatcherAttr ---- */

struct pv_matcher_attr {
	PyObject_HEAD
	struct mlx5dv_flow_matcher_attr attr; /* match_mask set at use */
	PyObject *mask;			      /* Mlx5FlowMatchParameters */
};

static const struct pv_oslot ma_oslots[] = {
	{ PV_OSLOT_AT(struct pv_matcher_attr, mask, "match_mask"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};

PV_OSLOTS_GC(ma, ma_oslots)

static int ma_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "match_mask",
				  "attr_type",
				  "flags",
				  "priority",
				  "match_criteria_enable",
				  "comp_mask",
				  "ft_type",
				  "ib_port",
				  NULL };
	struct pv_matcher_attr *self = (struct pv_matcher_attr *)obj;
	struct mlx5dv_flow_matcher_attr a = { .type = IBV_FLOW_ATTR_NORMAL };
	unsigned int type = IBV_FLOW_ATTR_NORMAL, ft_type = 0;
	uint32_t ib_port = 0;
	PyObject *mask;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O!|O&O&O&O&O&O&O&:Mlx5FlowMatcherAttr",
					 kwlist, pv_mlx5.FlowMatchParameters,
					 &mask, pv_conv_uint, &type,
					 pv_conv_u32, &a.flags, pv_conv_u16,
					 &a.priority, pv_conv_u8,
					 &a.match_criteria_enable, pv_conv_u64,
					 &a.comp_mask, pv_conv_uint, &ft_type,
					 pv_conv_u32, &ib_port))
		return -1;
	a.type = type;
	a.ft_type = ft_type;
#if HAVE_MLX5DV_FLOW_MATCHER_MASK_IB_PORT
	a.ib_port = ib_port;
#else
	if (ib_port) {
		pv_raise_needs("Mlx5FlowMatcherAttr(ib_port=...)", 57);
		return -1;
	}
#endif
	self->attr = a;
	pv_set_slot(&self->mask, mask);
	return 0;
}

PV_GC_TYPE_SPEC(ma, "pyverbs.providers.mlx5.mlx5dv_flow.Mlx5FlowMatcherAttr",
		struct pv_matcher_attr,
		"Mlx5FlowMatcherAttr(match_mask, "
		"attr_type=0, flags=0, priority=0, "
		"match_criteria_enable=0, comp_mask=0, ft_type=0, "
		"ib_port=0)\n--\n\n"
		"Defaults: attr_type=IBV_FLOW_ATTR_NORMAL.\n"
		"How to create an Mlx5FlowMatcher (struct "
		"mlx5dv_flow_matcher_attr): the Mlx5FlowMatchParameters "
		"mask, the match_criteria_enable bits, and with "
		"comp_mask MLX5DV_FLOW_MATCHER_MASK_FT_TYPE the flow "
		"table type ft_type, with MLX5DV_FLOW_MATCHER_MASK_IB_PORT "
		"the vport ib_port (rdma-core 57).",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, ma_init },
		PV_OSLOTS_GC_SLOTS(ma), );

/* ---- Mlx5FlowMatcher ---- */

/* parents[0] is the Context */
struct pv_flow_matcher {
	struct pv_obj obj;
	struct mlx5dv_flow_matcher *matcher;
};

static int fm_destroy(struct pv_obj *o)
{
	struct pv_flow_matcher *self = (struct pv_flow_matcher *)o;
	int rc;

	if (!self->matcher)
		return 0;
	rc = mlx5dv_destroy_flow_matcher(self->matcher); /* errno */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_destroy_flow_matcher",
			    "Destroy matcher failed.");
		return -1;
	}
	self->matcher = NULL;
	return 0;
}

static int fm_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "attr", NULL };
	struct pv_flow_matcher *self = (struct pv_flow_matcher *)obj;
	struct mlx5dv_flow_matcher_attr attr;
	struct pv_matcher_attr *ma;
	struct pv_context *ctx;
	PyObject *ctxo, *mao;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!:Mlx5FlowMatcher",
					 kwlist, pv.Context, &ctxo,
					 pv_mlx5.FlowMatcherAttr, &mao))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5FlowMatcher is already initialised");
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj))
		return -1;
	ma = (struct pv_matcher_attr *)mao;
	attr = ma->attr;
	attr.match_mask =
		ma->mask ? pv_mlx5_match_params(ma->mask, "match_mask") : NULL;
	if (!attr.match_mask) {
		if (!PyErr_Occurred())
			pv_raise_user("Mlx5FlowMatcherAttr has no match_mask");
		return -1;
	}
	pv_obj_setup(&self->obj, fm_destroy);
	self->matcher = mlx5dv_create_flow_matcher(ctx->ctx, &attr);
	if (!self->matcher) {
		pv_raise_errno("mlx5dv_create_flow_matcher",
			       "Flow matcher creation failed.");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		fm_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

PV_GC_TYPE_SPEC(fm, "pyverbs.providers.mlx5.mlx5dv_flow.Mlx5FlowMatcher",
		struct pv_flow_matcher,
		"Mlx5FlowMatcher(context, attr)\n--\n\n"
		"A flow matcher (mlx5dv_create_flow_matcher) built from "
		"an Mlx5FlowMatcherAttr.  Closing it (or its Context) "
		"closes its flows first.",
		{ Py_tp_init, fm_init }, PV_CM_SLOTS, );

/* ---- Mlx5FlowActionAttr ---- */

/* rdma-core 60's type, a fixed number whatever the headers */
#define AA_COUNTERS_DEVX_WITH_OFFSET 8

struct pv_action_attr {
	PyObject_HEAD
	struct mlx5dv_flow_action_attr attr; /* type; pointers set at use */
	PyObject *qp;			     /* QP (type DEST_IBV_QP) */
	PyObject *action; /* FlowAction (type IBV_FLOW_ACTION) */
	PyObject *devx;	  /* Mlx5DevxObj (DEST_DEVX, COUNTERS_DEVX...) */
	uint32_t offset;  /* in the bulk (COUNTERS_DEVX_WITH_OFFSET) */
};

static const struct pv_oslot aa_oslots[] = {
	{ PV_OSLOT_AT(struct pv_action_attr, qp, "qp"),
	  .flags = PV_OSLOT_HIDDEN },
	{ PV_OSLOT_AT(struct pv_action_attr, action, "action"),
	  .flags = PV_OSLOT_HIDDEN },
	{ PV_OSLOT_AT(struct pv_action_attr, devx, "devx_obj"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};

PV_OSLOTS_GC(aa, aa_oslots)

/* v is None or an instance of tp (TypeError naming what otherwise). */
static int none_or(PyObject *v, PyTypeObject *tp, const char *what)
{
	if (v == Py_None || pv_type_ok(v, tp))
		return 0;
	PyErr_Format(PyExc_TypeError, "%s must be a %s or None, not %.100s",
		     what, _PyType_Name(tp), Py_TYPE(v)->tp_name);
	return -1;
}

/* The action types that name a DevX object. */
static int aa_is_devx(unsigned int type)
{
	return type == MLX5DV_FLOW_ACTION_DEST_DEVX ||
	       type == MLX5DV_FLOW_ACTION_COUNTERS_DEVX ||
	       type == AA_COUNTERS_DEVX_WITH_OFFSET;
}

/* v is None or an open Mlx5DevxObj; 0 or -1. */
static int none_or_devx(PyObject *v)
{
	return v == Py_None || pv_mlx5_devx_obj_get(v) ? 0 : -1;
}

/* Set a DevX action of type on self (obj: an Mlx5DevxObj, required). */
static int aa_init_devx(struct pv_action_attr *self, unsigned int type,
			PyObject *obj, uint32_t offset)
{
#if !HAVE_MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET
	if (type == AA_COUNTERS_DEVX_WITH_OFFSET) {
		pv_raise_needs("MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET",
			       60);
		return -1;
	}
#endif
	if (obj == Py_None) { /* upstream dereferences None */
		pv_raise_user("Action attr of type %u needs a DevX obj", type);
		return -1;
	}
	self->attr.type = type;
	self->offset = offset;
	pv_set_slot(&self->devx, obj);
	return 0;
}

static int aa_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "action_type", "qp",	   "flow_action",
				  "obj",	 "offset", NULL };
	struct pv_action_attr *self = (struct pv_action_attr *)obj;
	PyObject *typeo = Py_None, *qp = Py_None, *fa = Py_None;
	PyObject *devx = Py_None;
	uint32_t offset = 0;
	unsigned int type;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOOO&:Mlx5FlowActionAttr",
					 kwlist, &typeo, &qp, &fa, &devx,
					 pv_conv_u32, &offset))
		return -1;
	if (none_or(qp, pv.QP, "qp") ||
	    none_or(fa, pv.FlowAction, "flow_action") || none_or_devx(devx))
		return -1;
	memset(&self->attr, 0, sizeof(self->attr));
	Py_CLEAR(self->qp);
	Py_CLEAR(self->action);
	Py_CLEAR(self->devx);
	self->offset = 0;
	if (typeo == Py_None)
		return 0;
	if (!pv_conv_uint(typeo, &type))
		return -1;
	if (aa_is_devx(type))
		return aa_init_devx(self, type, devx, offset);
	switch (type) {
	case MLX5DV_FLOW_ACTION_DEST_IBV_QP:
		pv_set_slot(&self->qp, qp);
		break;
	case MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION:
		self->attr.type = type;
		pv_set_slot(&self->action, fa);
		break;
	default:
		pv_raise_user("Unsupported action type: %S.", typeo);
		return -1;
	}
	return 0;
}

static PyObject *aa_get_type(PyObject *obj, void *closure)
{
	return PyLong_FromUnsignedLong(
		((struct pv_action_attr *)obj)->attr.type);
}

static int aa_set_type(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;
	unsigned int type;

	if (pv_refuse_delete(v, "type"))
		return -1;
	if (self->attr.type != MLX5DV_FLOW_ACTION_DEST_IBV_QP &&
	    !aa_is_devx(self->attr.type)) {
		pv_raise_user("Unsupported action type: %S.", v);
		return -1;
	}
	if (!pv_conv_uint(v, &type))
		return -1;
	self->attr.type = type;
	return 0;
}

/* The type of self must be type (with type -1: a DevX type); else
 * PyverbsUserError naming what. */
static int aa_has(struct pv_action_attr *self, int type, const char *what)
{
	if (type < 0 ? aa_is_devx(self->attr.type) :
		       self->attr.type == (unsigned int)type)
		return 0;
	pv_raise_user("Action attr of type %u doesn't have %s",
		      (unsigned int)self->attr.type, what);
	return -1;
}

static PyObject *aa_get_qp(PyObject *obj, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;

	if (aa_has(self, MLX5DV_FLOW_ACTION_DEST_IBV_QP, "a qp"))
		return NULL;
	return pv_get_slot(self->qp);
}

static int aa_set_qp(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;

	if (pv_refuse_delete(v, "qp") || none_or(v, pv.QP, "qp") ||
	    aa_has(self, MLX5DV_FLOW_ACTION_DEST_IBV_QP, "a qp"))
		return -1;
	pv_set_slot(&self->qp, v);
	return 0;
}

static PyObject *aa_get_action(PyObject *obj, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;

	if (aa_has(self, MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION, "an action"))
		return NULL;
	return pv_get_slot(self->action);
}

static int aa_set_action(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;

	if (pv_refuse_delete(v, "action") ||
	    none_or(v, pv.FlowAction, "action") ||
	    aa_has(self, MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION, "an action"))
		return -1;
	pv_set_slot(&self->action, v);
	return 0;
}

static PyObject *aa_get_devx(PyObject *obj, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;

	if (aa_has(self, -1, "a devx_obj"))
		return NULL;
	return pv_get_slot(self->devx);
}

static int aa_set_devx(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;

	if (pv_refuse_delete(v, "devx_obj") || aa_has(self, -1, "a devx_obj"))
		return -1;
	if (v == Py_None) {
		pv_raise_user("devx_obj must be an Mlx5DevxObj, not None");
		return -1;
	}
	if (none_or_devx(v))
		return -1;
	pv_set_slot(&self->devx, v);
	return 0;
}

static PyObject *aa_get_offset(PyObject *obj, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;

	if (aa_has(self, AA_COUNTERS_DEVX_WITH_OFFSET, "an offset"))
		return NULL;
	return PyLong_FromUnsignedLong(self->offset);
}

static int aa_set_offset(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_action_attr *self = (struct pv_action_attr *)obj;
	uint32_t offset;

	if (pv_refuse_delete(v, "offset") ||
	    aa_has(self, AA_COUNTERS_DEVX_WITH_OFFSET, "an offset") ||
	    !pv_conv_u32(v, &offset))
		return -1;
	self->offset = offset;
	return 0;
}

static PyGetSetDef aa_getset[] = {
	{ "type", aa_get_type, aa_set_type,
	  "The action type (enum mlx5dv_flow_action_type).", NULL },
	{ "qp", aa_get_qp, aa_set_qp,
	  "The destination QP (type MLX5DV_FLOW_ACTION_DEST_IBV_QP only).",
	  NULL },
	{ "action", aa_get_action, aa_set_action,
	  "The FlowAction (type MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION only).",
	  NULL },
	{ "devx_obj", aa_get_devx, aa_set_devx,
	  "The Mlx5DevxObj (types MLX5DV_FLOW_ACTION_DEST_DEVX, "
	  "_COUNTERS_DEVX and _COUNTERS_DEVX_WITH_OFFSET only).",
	  NULL },
	{ "offset", aa_get_offset, aa_set_offset,
	  "The counter's offset in the DevX bulk counter (type "
	  "MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET only).",
	  NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(aa, "pyverbs.providers.mlx5.mlx5dv_flow.Mlx5FlowActionAttr",
		struct pv_action_attr,
		"Mlx5FlowActionAttr(action_type=None, qp=None, "
		"flow_action=None, obj=None, offset=0)\n--\n\n"
		"One action of an Mlx5Flow (struct "
		"mlx5dv_flow_action_attr): steer to qp "
		"(MLX5DV_FLOW_ACTION_DEST_IBV_QP), apply flow_action "
		"(MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION), steer to the "
		"Mlx5DevxObj obj (_DEST_DEVX) or count in it (_COUNTERS_DEVX; "
		"_COUNTERS_DEVX_WITH_OFFSET: at offset in a bulk, rdma-core "
		"60); other types raise PyverbsUserError.",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, aa_init },
		{ Py_tp_getset, aa_getset }, PV_OSLOTS_GC_SLOTS(aa), );

/* ---- Mlx5Flow ---- */

/* An Mlx5Flow is a core Flow (struct pv_flow, destroyed the same way);
 * parents[0] is the matcher, then the QP or flow-action handle of each
 * action attribute, in order. */

/* Fill *out from the action attribute o and set *parent to the object it
 * uses (a DevX object must be of the Context ctx).  0 or -1 (TypeError,
 * PyverbsUserError). */
static int mf_action(PyObject *o, struct mlx5dv_flow_action_attr *out,
		     struct pv_obj **parent, struct pv_obj *ctx)
{
	struct pv_action_attr *aa = (struct pv_action_attr *)o;

	if (!pv_type_ok(o, pv_mlx5.FlowActionAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "action_attrs items must be "
			     "Mlx5FlowActionAttr, not %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->type = aa->attr.type;
	if (aa->attr.type == MLX5DV_FLOW_ACTION_DEST_IBV_QP) {
		if (!aa->qp || aa->qp == Py_None) {
			pv_raise_user("The DEST_IBV_QP action attr has no qp");
			return -1;
		}
		if (pv_check_open(PV_OBJ(aa->qp)))
			return -1;
		out->qp = ((struct pv_qp *)aa->qp)->qp;
		*parent = PV_OBJ(aa->qp);
		return 0;
	}
	if (aa_is_devx(aa->attr.type)) {
		struct mlx5dv_devx_obj *dobj;

		if (!aa->devx || aa->devx == Py_None) {
			pv_raise_user("The DevX action attr has no devx_obj");
			return -1;
		}
		dobj = pv_mlx5_devx_obj_get(aa->devx);
		if (!dobj || pv_obj_check_in(PV_OBJ(aa->devx), ctx, "devx_obj",
					     "Mlx5FlowMatcher"))
			return -1;
#if HAVE_MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET
		if (aa->attr.type == AA_COUNTERS_DEVX_WITH_OFFSET) {
			out->bulk_obj.obj = dobj;
			out->bulk_obj.offset = aa->offset;
		} else {
			out->obj = dobj;
		}
#else
		out->obj = dobj; /* WITH_OFFSET cannot be set here */
#endif
		*parent = PV_OBJ(aa->devx);
		return 0;
	}
	if (aa->attr.type == MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION) {
		out->action = aa->action ? pv_mlx5_flow_action_get(aa->action,
								   parent) :
					   NULL;
		if (!out->action) {
			pv_raise_user("The IBV_FLOW_ACTION action attr has no "
				      "open flow action");
			return -1;
		}
		return 0;
	}
	pv_raise_user("Unsupported action type: %u.",
		      (unsigned int)aa->attr.type);
	return -1;
}

static int mf_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "matcher", "match_value", "action_attrs",
				  "num_actions", NULL };
	struct pv_flow *self = (struct pv_flow *)obj;
	struct mlx5dv_flow_match_parameters *value;
	struct mlx5dv_flow_action_attr *attrs = NULL;
	PyObject *mato, *valo, *attrso = Py_None, *seq = NULL;
	struct pv_flow_matcher *mat;
	struct pv_obj **parents = NULL;
	size_t num = 0;
	Py_ssize_t n = 0, i;
	int ret = -1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O|OO&:Mlx5Flow", kwlist,
					 pv_mlx5.FlowMatcher, &mato, &valo,
					 &attrso, pv_conv_size, &num))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5Flow is already initialised");
		return -1;
	}
	mat = (struct pv_flow_matcher *)mato;
	if (pv_check_open(&mat->obj))
		return -1;
	value = pv_mlx5_match_params(valo, "match_value");
	if (!value)
		return -1;
	if (attrso != Py_None) {
		seq = PySequence_Fast(attrso, "action_attrs must be a list of "
					      "Mlx5FlowActionAttr");
		if (!seq)
			return -1;
		n = PySequence_Fast_GET_SIZE(seq);
	}
	if ((size_t)n != num) {
		pv_raise_user("num_actions (%zu) is not the number of "
			      "action_attrs (%zd)",
			      num, n);
		goto out;
	}
	attrs = PyMem_Calloc(n ? n : 1, sizeof(*attrs));
	parents = PyMem_Calloc(1 + n, sizeof(*parents));
	if (!attrs || !parents) {
		PyErr_NoMemory();
		goto out;
	}
	parents[0] = &mat->obj;
	for (i = 0; i < n; i++)
		if (mf_action(PySequence_Fast_GET_ITEM(seq, i), &attrs[i],
			      &parents[1 + i], pv_obj_parent(&mat->obj, 0)))
			goto out;
	pv_obj_setup(&self->obj, pv_flow_destroy);
	if (pv_obj_reserve_parents(&self->obj, 1 + n))
		goto out;
	self->flow = mlx5dv_create_flow(mat->matcher, value, n, attrs);
	if (!self->flow) {
		pv_raise_errno("mlx5dv_create_flow", "Flow creation failed.");
		goto out;
	}
	for (i = 0; i < 1 + n; i++)
		if (pv_obj_link(&self->obj, parents[i])) {
			pv_flow_destroy(&self->obj);
			goto out;
		}
	pv_obj_opened(&self->obj);
	ret = 0;
out:
	PyMem_Free(attrs);
	PyMem_Free(parents);
	Py_XDECREF(seq);
	return ret;
}

/* The first QP this flow steers to, or None. */
static PyObject *mf_get_qp(PyObject *obj, void *closure)
{
	struct pv_obj *o = PV_OBJ(obj);
	unsigned int i;

	for (i = 1; i < o->nparents; i++) {
		struct pv_obj *p = pv_obj_link_at(o, i)->parent;

		if (pv_type_ok((PyObject *)p, pv.QP))
			return Py_NewRef((PyObject *)p);
	}
	Py_RETURN_NONE;
}

static PyGetSetDef mf_getset[] = {
	{ "qp", mf_get_qp, NULL,
	  "The first QP this flow steers to (None if none, or closed).", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(mf, "pyverbs.providers.mlx5.mlx5dv_flow.Mlx5Flow",
		struct pv_flow,
		"Mlx5Flow(matcher, match_value, action_attrs=None, "
		"num_actions=0)\n--\n\n"
		"A steering flow of an Mlx5FlowMatcher "
		"(mlx5dv_create_flow): packets matching match_value get "
		"the actions of action_attrs (a list of num_actions "
		"Mlx5FlowActionAttr).  Closing the matcher, or a QP or "
		"flow action it uses, closes the flow first.",
		{ Py_tp_init, mf_init }, { Py_tp_getset, mf_getset },
		PV_CM_SLOTS, );

int pv_mlx5_flow_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &mp_spec, &pv.PyverbsObject, &pv_mlx5.FlowMatchParameters },
		{ &ma_spec, &pv.PyverbsObject, &pv_mlx5.FlowMatcherAttr },
		{ &fm_spec, &pv.PyverbsCM, &pv_mlx5.FlowMatcher },
		{ &aa_spec, &pv.PyverbsObject, &pv_mlx5.FlowActionAttr },
		{ &mf_spec, &pv.Flow, &pv_mlx5.Flow },
		{ NULL }
	};

	return pv_add_types(m, types);
}
