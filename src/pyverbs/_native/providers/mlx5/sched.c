/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5.mlx5dv_sched: Mlx5dvSchedAttr, Mlx5dvSchedNode
 * and Mlx5dvSchedLeaf (mlx5dv_sched_node/leaf_create/modify/destroy).
 *
 * A node or leaf is a child of its Context and, when its attribute names a
 * parent node, of that node: closing the parent closes the elements below
 * it first, as the scheduling tree requires.  The attribute holds its
 * parent node object, and its pointer is taken when the attribute is used,
 * so a closed parent is refused instead of being handed to libmlx5.
 *
 * Upstream derives these from PyverbsObject with a C-only close(); here
 * they are PyverbsCM handles (close(), with) like every other handle.
 * Upstream ignores modify()'s result; here a failure raises
 * PyverbsRDMAError, and a success makes the new attribute the element's.
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <string.h>

struct pv_sched_attr {
	PyObject_HEAD
	struct mlx5dv_sched_attr attr; /* parent filled at use */
	PyObject *parent;	       /* Mlx5dvSchedNode or NULL */
};

/* The libmlx5 calls and words of a node or a leaf: create returns NULL
 * and sets errno, modify and destroy return an errno value. */
struct sched_kind {
	const char *name; /* the Python class */
	const char *what; /* "sched node" */
	void *(*create)(struct ibv_context *ctx,
			const struct mlx5dv_sched_attr *attr);
	int (*modify)(void *elem, const struct mlx5dv_sched_attr *attr);
	int (*destroy)(void *elem);
	const char *create_fn, *modify_fn, *destroy_fn;
};

/* parents[0] is the Context, parents[1] the parent node if any */
struct sched_elem {
	struct pv_obj obj;
	void *handle; /* struct mlx5dv_sched_node / _leaf */
	const struct sched_kind *kind;
	PyObject *attr; /* the Mlx5dvSchedAttr */
};

/* The typed libmlx5 calls of a node or a leaf, on void * handles. */
#define SCHED_CALLS(k)                                                       \
	static void *k##_create(struct ibv_context *ctx,                     \
				const struct mlx5dv_sched_attr *attr)        \
	{                                                                    \
		return mlx5dv_sched_##k##_create(ctx, attr);                 \
	}                                                                    \
	static int k##_modify(void *h, const struct mlx5dv_sched_attr *attr) \
	{                                                                    \
		return mlx5dv_sched_##k##_modify(h, attr);                   \
	}                                                                    \
	static int k##_destroy(void *h)                                      \
	{                                                                    \
		return mlx5dv_sched_##k##_destroy(h);                        \
	}

SCHED_CALLS(node)
SCHED_CALLS(leaf)

static const struct sched_kind node_kind = {
	"Mlx5dvSchedNode",
	"sched node",
	node_create,
	node_modify,
	node_destroy,
	"mlx5dv_sched_node_create",
	"mlx5dv_sched_node_modify",
	"mlx5dv_sched_node_destroy",
};

static const struct sched_kind leaf_kind = {
	"Mlx5dvSchedLeaf",
	"sched leaf",
	leaf_create,
	leaf_modify,
	leaf_destroy,
	"mlx5dv_sched_leaf_create",
	"mlx5dv_sched_leaf_modify",
	"mlx5dv_sched_leaf_destroy",
};

/* ---- Mlx5dvSchedAttr ---- */

static const struct pv_field attr_fields[] = {
	PV_FIELD_RO(struct pv_sched_attr, attr.bw_share, "bw_share"),
	PV_FIELD_RO(struct pv_sched_attr, attr.max_avg_bw, "max_avg_bw"),
	PV_FIELD_RO(struct pv_sched_attr, attr.flags, "flags"),
	PV_FIELD_RO(struct pv_sched_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD_END
};

static int attr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "parent_sched_node", "bw_share",
				  "max_avg_bw",	       "flags",
				  "comp_mask",	       NULL };
	struct pv_sched_attr *self = (struct pv_sched_attr *)obj;
	PyObject *parent = Py_None;
	uint32_t bw_share = 0, max_avg_bw = 0, flags = 0;
	uint64_t comp_mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO&O&O&O&:Mlx5dvSchedAttr",
					 kwlist, &parent, pv_conv_u32,
					 &bw_share, pv_conv_u32, &max_avg_bw,
					 pv_conv_u32, &flags, pv_conv_u64,
					 &comp_mask))
		return -1;
	if (parent != Py_None && !pv_type_ok(parent, pv_mlx5.SchedNode)) {
		PyErr_Format(PyExc_TypeError,
			     "parent_sched_node must be a "
			     "Mlx5dvSchedNode or None, not %.100s",
			     Py_TYPE(parent)->tp_name);
		return -1;
	}
	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.bw_share = bw_share;
	self->attr.max_avg_bw = max_avg_bw;
	self->attr.flags = flags;
	self->attr.comp_mask = comp_mask;
	Py_XSETREF(self->parent, parent == Py_None ? NULL : Py_NewRef(parent));
	return 0;
}

/* The attribute o as a struct for one call on Context ctx: its parent
 * node must be open and of ctx (*parent: that node or NULL).  0 or -1. */
static int attr_get(PyObject *o, struct pv_obj *ctx,
		    struct mlx5dv_sched_attr *out, struct pv_obj **parent)
{
	struct pv_sched_attr *a = (struct pv_sched_attr *)o;

	if (!pv_type_ok(o, pv_mlx5.SchedAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "sched_attr must be a "
			     "Mlx5dvSchedAttr, not %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = a->attr;
	*parent = NULL;
	if (a->parent) {
		struct sched_elem *p = (struct sched_elem *)a->parent;

		if (pv_obj_check_in(&p->obj, ctx, "parent Mlx5dvSchedNode",
				    "sched element"))
			return -1;
		out->parent = p->handle;
		*parent = &p->obj;
	}
	return 0;
}

/* The parent node is held but is no attribute (upstream has none). */
static const struct pv_oslot attr_oslots[] = {
	{ PV_OSLOT_AT(struct pv_sched_attr, parent, "parent_sched_node"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};

PV_OSLOTS_GC(attr, attr_oslots)

PV_GC_TYPE_SPEC(attr, "pyverbs.providers.mlx5.mlx5dv_sched.Mlx5dvSchedAttr",
		struct pv_sched_attr,
		"Mlx5dvSchedAttr(parent_sched_node=None, bw_share=0, "
		"max_avg_bw=0, flags=0, comp_mask=0)\n--\n\n"
		"The attributes of a scheduling element (struct "
		"mlx5dv_sched_attr); parent_sched_node None for the "
		"root.",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, attr_init },
		PV_OSLOTS_GC_SLOTS(attr), { Py_tp_getset, NULL }, );

/* ---- Mlx5dvSchedNode, Mlx5dvSchedLeaf ---- */

static int elem_destroy(struct pv_obj *o)
{
	struct sched_elem *self = (struct sched_elem *)o;
	int rc;

	if (!self->handle)
		return 0;
	rc = self->kind->destroy(self->handle); /* errno value */
	if (rc) {
		pv_raise_rc(rc, self->kind->destroy_fn,
			    "Failed to destroy a %s", self->kind->what);
		return -1;
	}
	self->handle = NULL;
	return 0;
}

static int elem_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "sched_attr", NULL };
	struct sched_elem *self = (struct sched_elem *)obj;
	const struct sched_kind *kind =
		pv_type_ok(obj, pv_mlx5.SchedLeaf) ? &leaf_kind : &node_kind;
	struct mlx5dv_sched_attr attr;
	struct pv_obj *parent;
	struct pv_context *ctx;
	PyObject *ctxo, *attro;
	char fmt[32];

	snprintf(fmt, sizeof(fmt), "O!O:%s", kind->name);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv.Context,
					 &ctxo, &attro))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("%s is already initialised", kind->name);
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj) ||
	    attr_get(attro, &ctx->obj, &attr, &parent))
		return -1;
	pv_obj_setup(&self->obj, elem_destroy);
	self->kind = kind;
	self->handle = kind->create(ctx->ctx, &attr);
	if (!self->handle) {
		pv_raise_errno(kind->create_fn, "Failed to create %s",
			       kind->what);
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj) ||
	    (parent && pv_obj_link(&self->obj, parent))) {
		pv_mlx5_undo_create(&self->obj);
		return -1;
	}
	Py_INCREF(attro);
	Py_XSETREF(self->attr, attro);
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *elem_modify(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "sched_attr", NULL };
	struct sched_elem *self = (struct sched_elem *)obj;
	struct mlx5dv_sched_attr attr;
	struct pv_obj *parent;
	PyObject *attro;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:modify", kwlist,
					 &attro) ||
	    pv_check_open(&self->obj) ||
	    attr_get(attro, pv_obj_root(&self->obj), &attr, &parent))
		return NULL;
	rc = self->kind->modify(self->handle, &attr);
	if (rc)
		return pv_raise_rc(rc, self->kind->modify_fn,
				   "Failed to modify %s", self->kind->what);
	Py_INCREF(attro);
	Py_XSETREF(self->attr, attro);
	Py_RETURN_NONE;
}

struct mlx5dv_sched_leaf *pv_mlx5_sched_leaf_get(PyObject *obj)
{
	struct sched_elem *self = (struct sched_elem *)obj;

	if (!pv_type_ok(obj, pv_mlx5.SchedLeaf)) {
		PyErr_Format(PyExc_TypeError,
			     "expected a Mlx5dvSchedLeaf, "
			     "not %.100s",
			     Py_TYPE(obj)->tp_name);
		return NULL;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	return self->handle;
}

static PyObject *elem_get_attr(PyObject *obj, void *closure)
{
	struct sched_elem *self = (struct sched_elem *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	if (!closure)
		return Py_NewRef(self->attr);
	return PyObject_GetAttrString(self->attr, closure);
}

static int elem_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct sched_elem *)obj)->attr);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int elem_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(((struct sched_elem *)obj)->attr);
	return 0;
}

static PyMethodDef elem_methods[] = {
	{ "modify", (PyCFunction)(void (*)(void))elem_modify,
	  METH_VARARGS | METH_KEYWORDS,
	  "modify($self, /, sched_attr)\n--\n\n"
	  "Change the element's bandwidth attributes "
	  "(mlx5dv_sched_node/leaf_modify)." },
	{ NULL }
};

static PyGetSetDef elem_getset[] = {
	{ "sched_attr", elem_get_attr, NULL, "The element's Mlx5dvSchedAttr.",
	  NULL },
	{ "bw_share", elem_get_attr, NULL, "The attribute's bw_share.",
	  "bw_share" },
	{ "max_avg_bw", elem_get_attr, NULL, "The attribute's max_avg_bw.",
	  "max_avg_bw" },
	{ "flags", elem_get_attr, NULL, "The attribute's flags.", "flags" },
	{ "comp_mask", elem_get_attr, NULL, "The attribute's comp_mask.",
	  "comp_mask" },
	{ NULL }
};

PV_GC_TYPE_SPEC(node, "pyverbs.providers.mlx5.mlx5dv_sched.Mlx5dvSchedNode",
		struct sched_elem,
		"Mlx5dvSchedNode(context, sched_attr)\n--\n\n"
		"A scheduling node (mlx5dv_sched_node_create), a child "
		"of its Context and of its parent node.",
		{ Py_tp_init, elem_init }, { Py_tp_methods, elem_methods },
		{ Py_tp_getset, elem_getset },
		{ Py_tp_traverse, elem_traverse },
		{ Py_tp_clear, elem_clear }, );

PV_GC_TYPE_SPEC(leaf, "pyverbs.providers.mlx5.mlx5dv_sched.Mlx5dvSchedLeaf",
		struct sched_elem,
		"Mlx5dvSchedLeaf(context, sched_attr)\n--\n\n"
		"A scheduling leaf (mlx5dv_sched_leaf_create), to which "
		"QPs connect (Mlx5QP.modify_qp_sched_elem).",
		{ Py_tp_init, elem_init }, { Py_tp_methods, elem_methods },
		{ Py_tp_getset, elem_getset },
		{ Py_tp_traverse, elem_traverse },
		{ Py_tp_clear, elem_clear }, );

int pv_mlx5_sched_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &attr_spec, &pv.PyverbsObject, &pv_mlx5.SchedAttr,
		  attr_fields, attr_oslots },
		{ &node_spec, &pv.PyverbsCM, &pv_mlx5.SchedNode },
		{ &leaf_spec, &pv.PyverbsCM, &pv_mlx5.SchedLeaf },
		{ NULL }
	};

	return pv_add_types(m, types);
}
