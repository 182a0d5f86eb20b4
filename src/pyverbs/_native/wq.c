/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Work queues: WQInitAttr, WQAttr, WQ (ibv_create_wq / ibv_modify_wq /
 * ibv_post_wq_recv / ibv_destroy_wq).  Receive side scaling over WQs (the
 * indirection table, RxHashConf) is in rwq_ind_table.c.
 *
 * As everywhere, the attribute objects only hold the Python objects they
 * name; the C pointers are taken when the WQ or the table is created, after
 * checking that each object is open and of the same Context.  So nothing
 * closed, of another kind or of another device reaches libibverbs, which
 * dereferences them without checks.
 *
 * Lifetimes: a WQ is a child of its Context, PD and CQ.  An indirection
 * table is a child of its Context and of every WQ of its table (as many
 * parent links as distinct WQs, reserved up front: object.c), and an RSS
 * QP is a child of its table: closing a WQ closes its tables, which close
 * their QPs, before ibv_destroy_wq() runs, which is the order libibverbs
 * needs (a WQ in a table, or a table used by a QP, is busy).
 */
#include "wq.h" /* first: Python.h defines _GNU_SOURCE */
#include "context.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "pd.h"
#include "post.h"
#include "state.h"

#include <errno.h>

/*
 * The constructors of the attribute objects: parse args and kw against
 * kwlist (all optional; fmt is "|OO...:Name", at most 8) and set the
 * attribute attrs[i] from each argument given, through its checked setter,
 * in kwlist order.  Returns 0 or -1.
 */
static int wq_attr_apply(PyObject *self, PyObject *args, PyObject *kw,
			 const char *fmt, char **kwlist,
			 const char *const *attrs)
{
	PyObject *v[8] = { NULL };
	int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &v[0], &v[1],
					 &v[2], &v[3], &v[4], &v[5], &v[6],
					 &v[7]))
		return -1;
	for (i = 0; i < 8 && kwlist[i]; i++)
		if (v[i] && PyObject_SetAttrString(self, attrs[i], v[i]))
			return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* WQInitAttr                                                          */
/* ------------------------------------------------------------------ */

/* The C pointers of attr (pd, cq, wq_context) are set by WQ() only. */
struct pv_wq_init_attr {
	PyObject_HEAD
	struct ibv_wq_init_attr attr;
	PyObject *wq_context; /* any object, or None */
	PyObject *pd;	      /* PD or None */
	PyObject *cq;	      /* CQ, CQEX or None */
};

/* A WQ's CQ: a CQ or a CQEX (upstream: a CQ). */
static int wia_check_cq(PyObject *v)
{
	if (pv_is_cq(v))
		return 0;
	PyErr_Format(PyExc_TypeError, "cq must be a CQ or a CQEX, not %.100s",
		     Py_TYPE(v)->tp_name);
	return -1;
}

#define WIA struct pv_wq_init_attr
static const struct pv_oslot wia_oslots[] = {
	PV_OSLOT(WIA, wq_context, "wq_context",
		 "Any object the user associates with the WQ."),
	PV_OSLOT_TYPE(WIA, pd, "pd", &pv.PD, "pd must be a PD",
		      "The PD of the WQ (a PD or None)."),
	PV_OSLOT_CHECK(WIA, cq, "cq", wia_check_cq,
		       "The CQ of the WQ (a CQ, a CQEX or None)."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(wia, wia_oslots)

static const struct pv_field wia_fields[] = {
	PV_FIELD(WIA, attr.wq_type, "wq_type"),
	PV_FIELD(WIA, attr.max_wr, "max_wr"),
	PV_FIELD(WIA, attr.max_sge, "max_sge"),
	PV_FIELD(WIA, attr.comp_mask, "comp_mask"),
	PV_FIELD(WIA, attr.create_flags, "create_flags"),
	PV_FIELD_END
};

static int wia_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "wq_context", "wq_pd",	"wq_cq",
				  "wq_type",	"max_wr",	"max_sge",
				  "comp_mask",	"create_flags", NULL };
	static const char *const attrs[] = { "wq_context", "pd",
					     "cq",	   "wq_type",
					     "max_wr",	   "max_sge",
					     "comp_mask",  "create_flags" };
	struct pv_wq_init_attr *self = (struct pv_wq_init_attr *)o;

	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.wq_type = IBV_WQT_RQ;
	self->attr.max_wr = 100;
	self->attr.max_sge = 1;
	pv_oslots_reset(o, wia_oslots);
	return wq_attr_apply(o, args, kw, "|OOOOOOOO:WQInitAttr", kwlist,
			     attrs);
}

PV_GC_TYPE_SPEC(wia, "pyverbs.wq.WQInitAttr", struct pv_wq_init_attr,
		"WQInitAttr(wq_context=None, wq_pd=None, wq_cq=None, "
		"wq_type=0, max_wr=100, max_sge=1, comp_mask=0, "
		"create_flags=0)\n--\n\n"
		"Defaults: wq_type=IBV_WQT_RQ.\n"
		"The attributes of a new WQ (struct ibv_wq_init_attr).  "
		"WQ() needs a pd and a cq; it writes the actual max_wr "
		"and max_sge back.",
		{ Py_tp_init, wia_init }, PV_OSLOTS_GC_SLOTS(wia),
		{ Py_tp_getset, NULL },
		/* filled by pv_add_data_type() */);

/* ------------------------------------------------------------------ */
/* WQAttr                                                              */
/* ------------------------------------------------------------------ */

struct pv_wq_attr {
	PyObject_HEAD
	struct ibv_wq_attr attr;
};

static const struct pv_field wqa_fields[] = {
	PV_FIELD(struct pv_wq_attr, attr.attr_mask, "attr_mask"),
	PV_FIELD(struct pv_wq_attr, attr.wq_state, "wq_state"),
	PV_FIELD(struct pv_wq_attr, attr.curr_wq_state, "curr_wq_state"),
	PV_FIELD(struct pv_wq_attr, attr.flags, "flags"),
	PV_FIELD(struct pv_wq_attr, attr.flags_mask, "flags_mask"),
	PV_FIELD_END
};

static int wqa_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr_mask", "wq_state",   "curr_wq_state",
				  "flags",     "flags_mask", NULL };

	memset(&((struct pv_wq_attr *)o)->attr, 0,
	       sizeof(((struct pv_wq_attr *)o)->attr));
	return wq_attr_apply(o, args, kw, "|OOOOO:WQAttr", kwlist,
			     (const char *const *)kwlist);
}

PV_DATA_SPEC(wqa, "pyverbs.wq.WQAttr", struct pv_wq_attr,
	     "WQAttr(attr_mask=0, wq_state=0, curr_wq_state=0, "
	     "flags=0, flags_mask=0)\n--\n\n"
	     "How to modify a WQ (struct ibv_wq_attr): attr_mask "
	     "(IBV_WQ_ATTR_*) says which fields apply.",
	     { Py_tp_init, wqa_init }, );

/* ------------------------------------------------------------------ */
/* WQ                                                                  */
/* ------------------------------------------------------------------ */

#define WQ(o) ((struct pv_wq *)(o))

static int wq_destroy(struct pv_obj *o)
{
	struct pv_wq *self = WQ(o);
	int rc;

	if (!self->wq)
		return 0;
	rc = ibv_destroy_wq(self->wq); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_wq", "Failed to dealloc WQ");
		return -1;
	}
	self->wq = NULL;
	return 0;
}

/*
 * The PD or CQ v of the init attributes: given, open and of Context ctx;
 * else NULL with PyverbsUserError (what: "pd", "cq").
 */
static struct pv_obj *wq_parent_arg(PyObject *v, struct pv_obj *ctx,
				    const char *what)
{
	if (!v || v == Py_None) {
		pv_raise_user("WQInitAttr has no %s: a WQ needs one", what);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(v)))
		return NULL;
	if (!pv_obj_descends_from(PV_OBJ(v), ctx)) {
		pv_raise_user("The %s belongs to another Context than the WQ",
			      what);
		return NULL;
	}
	return PV_OBJ(v);
}

static int wq_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "attr", NULL };
	struct pv_wq *self = WQ(obj);
	struct pv_wq_init_attr *ia;
	struct pv_obj *ctx, *links[3];
	PyObject *ctxo, *attro;
	int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!:WQ", kwlist,
					 pv.Context, &ctxo, pv.WQInitAttr,
					 &attro))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("WQ is already initialised");
		return -1;
	}
	ctx = PV_OBJ(ctxo);
	ia = (struct pv_wq_init_attr *)attro;
	if (pv_check_open(ctx))
		return -1;
	links[0] = ctx;
	links[1] = wq_parent_arg(ia->pd, ctx, "pd");
	if (!links[1])
		return -1;
	links[2] = wq_parent_arg(ia->cq, ctx, "cq");
	if (!links[2])
		return -1;

	pv_obj_setup(&self->obj, wq_destroy);
	ia->attr.wq_context = self;
	ia->attr.pd = ((struct pv_pd *)links[1])->pd;
	ia->attr.cq = ((struct pv_cq *)links[2])->cq;
	/* NULL + errno; writes the actual max_wr and max_sge back */
	self->wq = ibv_create_wq(((struct pv_context *)ctx)->ctx, &ia->attr);
	if (!self->wq)
		pv_raise_errno("ibv_create_wq", "Failed to create WQ");
	ia->attr.wq_context = NULL;
	ia->attr.pd = NULL;
	ia->attr.cq = NULL;
	if (!self->wq)
		return -1;
	for (i = 0; i < 3; i++)
		if (pv_obj_link(&self->obj, links[i])) {
			wq_destroy(&self->obj);
			/* drops the links made */
			pv_close_own(&self->obj);
			return -1;
		}
	pv_set_slot(&self->wq_context,
		    ia->wq_context ? ia->wq_context : Py_None);
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *wq_modify(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "wq_attr", NULL };
	struct pv_wq *self = WQ(obj);
	PyObject *attr;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!:modify", kwlist,
					 pv.WQAttr, &attr))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	rc = ibv_modify_wq(self->wq, &((struct pv_wq_attr *)attr)->attr);
	if (rc) /* returns errno */
		return pv_raise_rc(rc, "ibv_modify_wq", "Failed to modify WQ");
	Py_RETURN_NONE;
}

/* ibv_post_wq_recv() on an open WQ; returns errno */
static int wq_recv_c(PyObject *obj, void *head, void **bad)
{
	return ibv_post_wq_recv(WQ(obj)->wq, head, (struct ibv_recv_wr **)bad);
}

static const struct pv_post_ops wq_recv_ops = {
	.send = 0,
	.method = "post_recv",
	.func = "ibv_post_wq_recv",
	.msg = "Failed to post recv",
	.post = wq_recv_c,
	.probe = offsetof(struct pv_wq, recv_probe),
};

static PyObject *wq_post_recv(PyObject *obj, PyObject *const *args,
			      Py_ssize_t nargs, PyObject *kwnames)
{
	return pv_post(obj, &wq_recv_ops, IBV_QPT_RC, args, nargs, kwnames);
}

static PyObject *wq_get_wqn(PyObject *obj, void *c)
{
	struct pv_wq *self = WQ(obj);

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLong(self->wq->wq_num);
}

/* The state libibverbs keeps in ibv_wq (set by ibv_modify_wq). */
static PyObject *wq_get_state(PyObject *obj, void *c)
{
	struct pv_wq *self = WQ(obj);

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->wq->state);
}

static PyObject *wq_get_wq(PyObject *obj, void *c)
{
	struct pv_wq *self = WQ(obj);

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->wq);
}

/* closure: the parent slot (1: PD, 2: CQ); None once closed */
static PyObject *wq_get_parent(PyObject *obj, void *c)
{
	struct pv_wq *self = WQ(obj);

	if (self->obj.closed)
		Py_RETURN_NONE;
	return pv_get_slot(
		(PyObject *)pv_obj_parent(&self->obj, (int)(intptr_t)c));
}

static PyObject *wq_get_context(PyObject *obj, void *c)
{
	return pv_get_slot(WQ(obj)->wq_context);
}

static int wq_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(WQ(obj)->wq_context);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int wq_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(WQ(obj)->wq_context);
	return 0;
}

/* add_ref(obj): upstream's; obj an RwqIndTable (object.h) */
static PyObject *wq_add_ref(PyObject *obj, PyObject *arg)
{
	if (pv_obj_add_ref(PV_OBJ(obj), arg, pv.RwqIndTable))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef wq_methods[] = {
	{ "add_ref", wq_add_ref, METH_O,
	  "add_ref($self, obj, /)\n--\n\n"
	  "Have the RwqIndTable obj (of this WQ's Context) closed before this "
	  "WQ.  A table made with this WQ already is; PyverbsError for "
	  "another type." },
	{ "modify", (PyCFunction)(void (*)(void))wq_modify,
	  METH_VARARGS | METH_KEYWORDS,
	  "modify($self, wq_attr)\n--\n\n"
	  "ibv_modify_wq() with the fields of wq_attr (a WQAttr) that its "
	  "attr_mask selects." },
	{ "post_recv", (PyCFunction)(void (*)(void))wq_post_recv,
	  METH_FASTCALL | METH_KEYWORDS,
	  "post_recv($self, wr, bad_wr=None)\n--\n\n"
	  "Post a RecvWR (with its chain) or a list of RecvWRs in one "
	  "ibv_post_wq_recv().  On failure raises PyverbsRDMAError with "
	  "bad_wr_index, and copies the failing WR into bad_wr if given." },
	{ NULL }
};

static PyGetSetDef wq_getset[] = {
	{ "wqn", wq_get_wqn, NULL, "The WQ number.", NULL },
	{ "wq_state", wq_get_state, NULL,
	  "The WQ state last set (ibv_wq.state).", NULL },
	{ "wq", wq_get_wq, NULL, "Address of the struct ibv_wq (0 if closed).",
	  NULL },
	{ "pd", wq_get_parent, NULL, "The PD of the WQ (None if closed).",
	  (void *)1 },
	{ "cq", wq_get_parent, NULL, "The CQ of the WQ (None if closed).",
	  (void *)2 },
	{ "wq_context", wq_get_context, NULL,
	  "The wq_context of the init attributes.", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(wq, "pyverbs.wq.WQ", struct pv_wq,
		"WQ(ctx, attr)\n--\n\n"
		"A work queue (ibv_create_wq) of Context ctx, made from a "
		"WQInitAttr naming its PD and CQ.  Closing it closes the "
		"indirection tables that use it first.",
		{ Py_tp_init, wq_init }, { Py_tp_methods, wq_methods },
		{ Py_tp_getset, wq_getset }, { Py_tp_traverse, wq_traverse },
		{ Py_tp_clear, wq_clear }, );

/* ------------------------------------------------------------------ */
/* Registration                                                        */
/* ------------------------------------------------------------------ */

int pv_wq_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &wia_spec, &pv.PyverbsObject, &pv.WQInitAttr, wia_fields,
		  wia_oslots },
		{ &wqa_spec, &pv.PyverbsObject, &pv.WQAttr, wqa_fields },
		{ &wq_spec, &pv.PyverbsCM, &pv.WQ },
		{ NULL }
	};

	if (pv_add_types(m, types))
		return -1;
	return pv_obj_register_handle(pv.WQ, offsetof(struct pv_wq, wq));
}
