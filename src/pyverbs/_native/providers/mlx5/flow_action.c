/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The mlx5 flow actions of pyverbs.providers.mlx5.mlx5dv_flow, each a core
 * FlowAction: Mlx5PacketReformatFlowAction
 * (mlx5dv_create_flow_action_packet_reformat) and Mlx5ModifyFlowAction
 * (mlx5dv_create_flow_action_modify_header, rdma-core 65's API over a call
 * libmlx5 44 has).
 *
 * The core FlowAction is plain data (no lifetime links), so each action
 * keeps its ibv_flow_action in a hidden handle object, a PyverbsCM child of
 * the Context: closing the Context destroys the action and clears the
 * FlowAction's pointer; an Mlx5Flow using it is the handle's child.
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "flow.h"
#include "guard.h"
#include "object.h"
#include "state.h"

/* The hidden owner of the ibv_flow_action; parents[0] is the Context. */
struct fa_handle {
	struct pv_obj obj;
	struct ibv_flow_action *action;
	struct pv_flow_action *owner; /* borrowed; NULL once it is gone */
};

struct pv_reformat {
	struct pv_flow_action base;
	struct fa_handle *handle; /* strong, or NULL */
};

static int fah_destroy(struct pv_obj *o)
{
	struct fa_handle *self = (struct fa_handle *)o;
	int rc;

	if (!self->action)
		return 0;
	rc = ibv_destroy_flow_action(self->action); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_flow_action",
			    "Failed to destroy flow action");
		return -1;
	}
	self->action = NULL;
	if (self->owner)
		self->owner->action = NULL;
	return 0;
}

PV_TYPE_SPEC_FLAGS(fah, "pyverbs.providers.mlx5.mlx5dv_flow._FlowActionHandle",
		   struct fa_handle, Py_TPFLAGS_HAVE_GC, NULL, PV_CM_SLOTS, );

/* Close and drop the handle of self (0, or -1 with an exception set: the
 * handle is kept for a retry). */
static int rf_release(struct pv_reformat *self)
{
	struct fa_handle *h = self->handle;

	if (!h)
		return 0;
	if (pv_close(&h->obj))
		return -1;
	h->owner = NULL;
	self->handle = NULL;
	Py_DECREF(h);
	return 0;
}

/*
 * Adopt the flow action a (NULL: raise from errno with func and msg) made
 * on ctx: a hidden handle, child of ctx, owns it.  0 or -1 (a destroyed).
 */
static int fa_adopt(struct pv_reformat *self, struct pv_context *ctx,
		    struct ibv_flow_action *a, const char *func,
		    const char *msg)
{
	struct fa_handle *h;

	if (!a) {
		pv_raise_errno(func, "%s", msg);
		return -1;
	}
	h = (struct fa_handle *)PyObject_CallNoArgs(
		(PyObject *)pv_mlx5.FlowActionHandle);
	if (h) {
		pv_obj_setup(&h->obj, fah_destroy);
		h->action = a;
		if (!pv_obj_link(&h->obj, &ctx->obj)) {
			pv_obj_opened(&h->obj);
			h->owner = &self->base;
			self->handle = h;
			self->base.action = a;
			return 0;
		}
		fah_destroy(&h->obj);
		Py_DECREF(h);
		return -1;
	}
	ibv_destroy_flow_action(a); /* nothing else has it */
	return -1;
}

/* Start the constructor of a flow action (refuse a second run). */
static int fa_fresh(struct pv_reformat *self, const char *name)
{
	if (!self->handle)
		return 0;
	pv_raise_user("%s is already initialised", name);
	return -1;
}

static int rf_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "data", "reformat_type", "ft_type",
				  NULL };
	struct pv_reformat *self = (struct pv_reformat *)obj;
	unsigned int type =
		MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2;
	unsigned int ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
	PyObject *ctxo, *data = Py_None, *b = NULL;
	struct pv_context *ctx;
	Py_ssize_t len = 0;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O!|OO&O&:Mlx5PacketReformatFlowAction",
					 kwlist, pv.Context, &ctxo, &data,
					 pv_conv_uint, &type, pv_conv_uint,
					 &ft_type) ||
	    fa_fresh(self, "Mlx5PacketReformatFlowAction"))
		return -1;
	ctx = (struct pv_context *)ctxo;
	if (data != Py_None) {
		b = pv_mlx5_bytes(data, "data");
		if (!b)
			return -1;
		len = PyBytes_GET_SIZE(b);
	}
	if (pv_check_open(&ctx->obj)) {
		Py_XDECREF(b);
		return -1;
	}
	rc = fa_adopt(self, ctx,
		      mlx5dv_create_flow_action_packet_reformat(
			      ctx->ctx, len, b ? PyBytes_AS_STRING(b) : NULL,
			      type, ft_type),
		      "mlx5dv_create_flow_action_packet_reformat",
		      "Failed to create flow action packet reformat");
	Py_XDECREF(b);
	return rc;
}

static int mod_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "ft_type", "actions", NULL };
	struct pv_reformat *self = (struct pv_reformat *)obj;
	unsigned int ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
	PyObject *ctxo, *actso = NULL;
	struct pv_context *ctx;
	uint64_t *buf;
	size_t n;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O!|O&O:Mlx5ModifyFlowAction", kwlist,
					 pv.Context, &ctxo, pv_conv_uint,
					 &ft_type, &actso) ||
	    fa_fresh(self, "Mlx5ModifyFlowAction"))
		return -1;
	ctx = (struct pv_context *)ctxo;
	buf = pv_mlx5_actions8(actso, &n);
	if (!buf)
		return -1;
	/* bytes() ran Python code: check the Context after it */
	if (pv_check_open(&ctx->obj)) {
		PyMem_Free(buf);
		return -1;
	}
	/* the 8-byte PRM actions, in the device's byte order as given */
	rc = fa_adopt(self, ctx,
		      mlx5dv_create_flow_action_modify_header(ctx->ctx,
							      n * sizeof(*buf),
							      buf, ft_type),
		      "mlx5dv_create_flow_action_modify_header",
		      "Failed to create flow action modify");
	PyMem_Free(buf);
	return rc;
}

static PyObject *rf_close(PyObject *obj, PyObject *unused)
{
	if (rf_release((struct pv_reformat *)obj))
		return NULL;
	Py_RETURN_NONE;
}

static void rf_dealloc(PyObject *obj)
{
	struct pv_reformat *self = (struct pv_reformat *)obj;
	PyTypeObject *tp = Py_TYPE(obj);

	if (self->handle) {
		self->handle->owner = NULL;
		if (pv_close(&self->handle->obj))
			PyErr_WriteUnraisable(obj);
		Py_CLEAR(self->handle);
	}
	tp->tp_free(obj);
	Py_DECREF(tp);
}

static PyObject *rf_get_closed(PyObject *obj, void *closure)
{
	return PyBool_FromLong(!((struct pv_reformat *)obj)->base.action);
}

static PyMethodDef rf_methods[] = {
	{ "close", rf_close, METH_NOARGS,
	  "close($self, /)\n--\n\nDestroy the flow action (closing the flows "
	  "using it first).  Calling it again does nothing." },
	{ NULL }
};

static PyGetSetDef rf_getset[] = { { "closed", rf_get_closed, NULL,
				     "True once the flow action is destroyed.",
				     NULL },
				   { NULL } };

PV_TYPE_SPEC(rf,
	     "pyverbs.providers.mlx5.mlx5dv_flow."
	     "Mlx5PacketReformatFlowAction",
	     struct pv_reformat,
	     "Mlx5PacketReformatFlowAction(context, data=None, "
	     "reformat_type=0, ft_type=0)\n--\n\n"
	     "Defaults: reformat_type=MLX5DV_FLOW_ACTION_PACKET_"
	     "REFORMAT_TYPE_L2_TUNNEL_TO_L2_,\n"
	     "ft_type=MLX5DV_FLOW_TABLE_TYPE_NIC_RX_.\n"
	     "A flow action that adds or removes packet headers "
	     "(mlx5dv_create_flow_action_packet_reformat); data holds "
	     "the encapsulation headers, if any.  Closing its Context "
	     "destroys it.",
	     { Py_tp_init, rf_init }, { Py_tp_dealloc, rf_dealloc },
	     { Py_tp_methods, rf_methods }, { Py_tp_getset, rf_getset }, );

PV_TYPE_SPEC(mod, "pyverbs.providers.mlx5.mlx5dv_flow.Mlx5ModifyFlowAction",
	     struct pv_reformat,
	     "Mlx5ModifyFlowAction(ctx, ft_type=0, actions=[])\n--\n\n"
	     "Defaults: ft_type=MLX5DV_FLOW_TABLE_TYPE_NIC_RX_.\n"
	     "A flow action that changes packet headers "
	     "(mlx5dv_create_flow_action_modify_header): actions is a "
	     "list of 8-byte modify-header actions in the device's "
	     "format (bytes, or objects with __bytes__).  Closing its "
	     "Context destroys it.",
	     { Py_tp_init, mod_init }, { Py_tp_dealloc, rf_dealloc },
	     { Py_tp_methods, rf_methods }, { Py_tp_getset, rf_getset }, );

struct ibv_flow_action *pv_mlx5_flow_action_get(PyObject *o,
						struct pv_obj **handle)
{
	struct pv_reformat *rf = (struct pv_reformat *)o;

	if (!(pv_type_ok(o, pv_mlx5.PacketReformatFlowAction) ||
	      pv_type_ok(o, pv_mlx5.ModifyFlowAction)) ||
	    !rf->handle || rf->handle->obj.closed)
		return NULL;
	*handle = &rf->handle->obj;
	return rf->handle->action;
}

int pv_mlx5_flow_action_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &rf_spec, &pv.FlowAction, &pv_mlx5.PacketReformatFlowAction },
		{ &mod_spec, &pv.FlowAction, &pv_mlx5.ModifyFlowAction },
		{ NULL }
	};

	if (pv_make_type(NULL, &fah_spec, pv.PyverbsCM,
			 &pv_mlx5.FlowActionHandle))
		return -1;
	return pv_add_types(m, types);
}
