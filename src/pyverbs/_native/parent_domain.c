/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Parent domains (pyverbs.pd): ParentDomainInitAttr, ParentDomainContext
 * and ParentDomain (ibv_alloc_parent_domain; freed by ibv_dealloc_pd).
 *
 * A parent domain is a PD that carries a PD and, optionally, allocators:
 * the provider calls alloc(pd, pd_context, size, alignment, resource_type)
 * for the buffers of the CQs, QPs, SRQs and WQs created on it (during those
 * creation calls) and free(pd, pd_context, ptr, resource_type) when it
 * destroys them.  alloc returns the buffer, NULL (failure: the creation
 * fails) or IBV_ALLOCATOR_USE_DEFAULT (the provider allocates as usual).
 * Neither can report an error otherwise.
 *
 * pyverbs passes a ParentDomainContext as pd_context, and the C
 * trampolines below call its Python functions.  A Python exception cannot
 * cross the provider: the alloc trampoline stores it in the context and
 * returns NULL (as it does for a result that is not an address), so the
 * creation fails cleanly; the creating call then raises its
 * PyverbsRDMAError with the stored exception as __cause__ (pv_alloc_guard).
 * An exception in free has nowhere to go: it is reported as unraisable.
 *
 * Lifetimes: a ParentDomain is a child of its Context and of the PD it
 * wraps, and holds its ParentDomainContext until it is closed, so the
 * trampolines' pd_context is alive whenever the provider can call them
 * (the CQs and QPs on the parent domain are its children, closed first).
 */
#include "parent_domain.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "pd.h"
#include "state.h"

#include <errno.h>

/* ---- ParentDomainContext ---- */

struct pv_pd_context {
	PyObject_HEAD
	PyObject *pd;	 /* PD or None: the callables' first argument */
	PyObject *alloc; /* callables */
	PyObject *free;
	PyObject *user_data;
	PyObject *exc; /* alloc's pending exception; None or NULL */
};

static const struct pv_oslot pdc_oslots[] = {
	{ PV_OSLOT_AT(struct pv_pd_context, pd, "pd"),
	  .flags = PV_OSLOT_HIDDEN },
	{ PV_OSLOT_AT(struct pv_pd_context, alloc, "alloc_func"),
	  .flags = PV_OSLOT_HIDDEN },
	{ PV_OSLOT_AT(struct pv_pd_context, free, "free_func"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT(struct pv_pd_context, user_data, "user_data",
		 "Any object, for the allocators' use (context.user_data)."),
	{ PV_OSLOT_AT(struct pv_pd_context, exc, "exc"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};

PV_OSLOTS_GC(pdc, pdc_oslots)

static int pdc_callable(PyObject *f, const char *name)
{
	if (PyCallable_Check(f))
		return 0;
	PyErr_Format(PyExc_TypeError, "%s must be callable, not %.100s", name,
		     Py_TYPE(f)->tp_name);
	return -1;
}

static int pdc_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd", "alloc_func", "free_func", "user_data",
				  NULL };
	struct pv_pd_context *self = (struct pv_pd_context *)obj;
	PyObject *pd, *alloc, *free, *user_data = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|O:ParentDomainContext",
					 kwlist, &pd, &alloc, &free,
					 &user_data))
		return -1;
	/* upstream takes None for pd (it is only passed back) */
	if (pd != Py_None && !PyObject_TypeCheck(pd, pv.PD)) {
		PyErr_Format(PyExc_TypeError,
			     "pd must be a PD or None, not %.100s",
			     Py_TYPE(pd)->tp_name);
		return -1;
	}
	if (pdc_callable(alloc, "alloc_func") ||
	    pdc_callable(free, "free_func"))
		return -1;
	pv_set_slot(&self->pd, pd);
	pv_set_slot(&self->alloc, alloc);
	pv_set_slot(&self->free, free);
	pv_set_slot(&self->user_data, user_data);
	Py_CLEAR(self->exc);
	return 0;
}

/* Store the current exception as the context's pending one; an earlier
 * pending exception becomes its __context__. */
static void pdc_store_exc(struct pv_pd_context *c)
{
	PyObject *t, *v, *tb;

	PyErr_Fetch(&t, &v, &tb);
	PyErr_NormalizeException(&t, &v, &tb);
	if (tb)
		PyException_SetTraceback(v, tb);
	Py_XDECREF(t);
	Py_XDECREF(tb);
	if (c->exc && c->exc != Py_None && c->exc != v)
		PyException_SetContext(v, Py_NewRef(c->exc));
	Py_XSETREF(c->exc, v);
}

/* The pending exception (a new reference), now cleared; NULL if none. */
static PyObject *pdc_take_exc(struct pv_pd_context *c)
{
	PyObject *e = c->exc;

	c->exc = NULL;
	if (e == Py_None) {
		Py_DECREF(e);
		return NULL;
	}
	return e;
}

/* Report exception e (stolen) as unraisable, in the name of obj. */
static void pdc_unraisable(PyObject *e, PyObject *obj)
{
	PyObject *t, *v, *tb;

	PyErr_Fetch(&t, &v, &tb);
	PyErr_SetObject((PyObject *)Py_TYPE(e), e);
	Py_DECREF(e);
	PyErr_WriteUnraisable(obj);
	PyErr_Restore(t, v, tb);
}

/* alloc(pd, pd_context, size, alignment, resource_type) -> address */
static void *pdc_alloc(struct ibv_pd *ibpd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type)
{
	struct pv_pd_context *c = pd_context;
	int saved_errno = errno; /* the provider's, not Python's */
	PyGILState_STATE gil = PyGILState_Ensure();
	PyObject *t, *v, *tb, *r = NULL;
	void *ret = NULL;
	uint64_t addr;

	PyErr_Fetch(&t, &v, &tb);
	if (!c->alloc || c->alloc == Py_None) {
		pv_raise_user("The ParentDomainContext has no alloc_func");
	} else {
		r = PyObject_CallFunction(c->alloc, "OOKKK",
					  c->pd ? c->pd : Py_None,
					  (PyObject *)c,
					  (unsigned long long)size,
					  (unsigned long long)alignment,
					  (unsigned long long)resource_type);
	}
	if (r &&
	    !pv_to_u64(r, UINTPTR_MAX, &addr, "the address alloc_func returns"))
		ret = (void *)(uintptr_t)addr;
	else
		pdc_store_exc(c);
	Py_XDECREF(r);
	PyErr_Restore(t, v, tb);
	PyGILState_Release(gil);
	errno = saved_errno;
	return ret;
}

/* free(pd, pd_context, ptr, resource_type); its result is ignored. */
static void pdc_free(struct ibv_pd *ibpd, void *pd_context, void *ptr,
		     uint64_t resource_type)
{
	struct pv_pd_context *c = pd_context;
	int saved_errno = errno;
	PyGILState_STATE gil = PyGILState_Ensure();
	PyObject *t, *v, *tb, *r;

	PyErr_Fetch(&t, &v, &tb);
	if (c->free && c->free != Py_None) {
		r = PyObject_CallFunction(c->free, "OOKK",
					  c->pd ? c->pd : Py_None,
					  (PyObject *)c,
					  (unsigned long long)(uintptr_t)ptr,
					  (unsigned long long)resource_type);
		if (r)
			Py_DECREF(r);
		else
			PyErr_WriteUnraisable(c->free);
	}
	PyErr_Restore(t, v, tb);
	PyGILState_Release(gil);
	errno = saved_errno;
}

PV_GC_TYPE_SPEC(pdc, "pyverbs.pd.ParentDomainContext", struct pv_pd_context,
		"ParentDomainContext(pd, alloc_func, free_func, "
		"user_data=None)\n--\n\n"
		"The allocators of a parent domain, in Python.  The "
		"provider calls alloc_func(pd, context, size, alignment, "
		"resource_type), which returns an address (int), 0 to "
		"fail, or IBV_ALLOCATOR_USE_DEFAULT; and free_func(pd, "
		"context, ptr, resource_type).  pd is the PD given here, "
		"context this object.  An exception in alloc_func fails "
		"the creation that called it, and is the __cause__ of its "
		"PyverbsRDMAError.",
		{ Py_tp_init, pdc_init }, PV_OSLOTS_GC_SLOTS(pdc),
		{ Py_tp_getset, NULL },
		/* filled from pdc_oslots */);

/* ---- ParentDomainInitAttr ---- */

/*
 * The pointers of attr (pd, alloc, free, pd_context) are filled when a
 * ParentDomain is allocated, from the objects held here, so that a PD
 * closed since is refused.
 */
struct pv_pd_init_attr {
	PyObject_HEAD
	struct ibv_parent_domain_init_attr attr;
	PyObject *pd;	      /* PD */
	PyObject *pd_context; /* ParentDomainContext or None */
};

static const struct pv_field pdia_fields[] = {
	PV_FIELD_RO(struct pv_pd_init_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD_END
};

static const struct pv_oslot pdia_oslots[] = {
	{ PV_OSLOT_AT(struct pv_pd_init_attr, pd, "pd"),
	  .flags = PV_OSLOT_HIDDEN },
	{ PV_OSLOT_AT(struct pv_pd_init_attr, pd_context, "pd_context"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};

PV_OSLOTS_GC(pdia, pdia_oslots)

/* what only a pd_context can give the provider */
#define PDIA_CONTEXT_BITS                         \
	(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
	 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

static int pdia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd", "pd_context", "comp_mask", NULL };
	struct pv_pd_init_attr *self = (struct pv_pd_init_attr *)obj;
	PyObject *pd, *pdc = Py_None;
	uint32_t comp_mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O!|OO&:ParentDomainInitAttr", kwlist,
					 pv.PD, &pd, &pdc, pv_conv_u32,
					 &comp_mask))
		return -1;
	if (pdc != Py_None &&
	    !PyObject_TypeCheck(pdc, pv.ParentDomainContext)) {
		PyErr_Format(PyExc_TypeError,
			     "pd_context must be a ParentDomainContext or None, "
			     "not %.100s",
			     Py_TYPE(pdc)->tp_name);
		return -1;
	}
	if (pdc == Py_None && (comp_mask & PDIA_CONTEXT_BITS)) {
		pv_raise_user("comp_mask bits ALLOCATORS/PD_CONTEXT require "
			      "pd_context to be provided");
		return -1;
	}
	pv_set_slot(&self->pd, pd);
	pv_set_slot(&self->pd_context, pdc);
	memset(&self->attr, 0, sizeof(self->attr));
	/* The Python allocators reach the provider only through pd_context,
	 * so both bits go together, as upstream sets them. */
	self->attr.comp_mask = comp_mask;
	if (pdc != Py_None)
		self->attr.comp_mask |= PDIA_CONTEXT_BITS;
	return 0;
}

PV_GC_TYPE_SPEC(pdia, "pyverbs.pd.ParentDomainInitAttr", struct pv_pd_init_attr,
		"ParentDomainInitAttr(pd, pd_context=None, comp_mask=0)\n--\n\n"
		"How to allocate a parent domain: the PD it wraps, optionally "
		"a ParentDomainContext with its allocators (comp_mask then has "
		"IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS and "
		"IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT, which without one "
		"raise PyverbsUserError), and comp_mask's other bits "
		"(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC).",
		{ Py_tp_init, pdia_init }, PV_OSLOTS_GC_SLOTS(pdia),
		{ Py_tp_getset, NULL },
		/* filled from the tables */);

/* ---- ParentDomain ---- */

/* parents[0] is the Context (as for a PD), parents[1] the PD it wraps */
struct pv_parent_domain {
	struct pv_pd pd;
	PyObject *pd_context; /* ParentDomainContext, or NULL */
};

static int pdom_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "attr", NULL };
	struct pv_parent_domain *self = (struct pv_parent_domain *)obj;
	struct ibv_parent_domain_init_attr a;
	struct pv_pd_init_attr *attr;
	struct pv_context *ctx;
	PyObject *ctxo, *attro, *pdc;
	struct pv_pd *pd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!:ParentDomain", kwlist,
					 pv.Context, &ctxo,
					 pv.ParentDomainInitAttr, &attro))
		return -1;
	if (!self->pd.obj.closed || self->pd.obj.nparents) {
		pv_raise_user("ParentDomain is already initialised");
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	attr = (struct pv_pd_init_attr *)attro;
	if (pv_check_open(&ctx->obj))
		return -1;
	if (!attr->pd || attr->pd == Py_None) {
		pv_raise_user("The ParentDomainInitAttr was not initialised");
		return -1;
	}
	pd = pv_pd_arg(attr->pd);
	if (!pd)
		return -1;
	if (!pv_obj_descends_from(&pd->obj, &ctx->obj)) {
		pv_raise_user("The PD belongs to another Context");
		return -1;
	}
	pdc = attr->pd_context && attr->pd_context != Py_None ?
		      attr->pd_context :
		      NULL;
	a = attr->attr;
	a.pd = pd->pd;
	a.td = NULL;
	a.alloc = pdc ? pdc_alloc : NULL;
	a.free = pdc ? pdc_free : NULL;
	a.pd_context = pdc; /* borrowed by the provider: held below */
	pv_obj_setup(&self->pd.obj, pv_pd_destroy);
	self->pd.pd = ibv_alloc_parent_domain(ctx->ctx, &a);
	if (!self->pd.pd) {
		pv_raise_errno("ibv_alloc_parent_domain",
			       "Failed to allocate Parent Domain");
		return -1;
	}
	self->pd.imported = 0;
	if (pv_obj_link(&self->pd.obj, &ctx->obj) ||
	    pv_obj_link(&self->pd.obj, &pd->obj)) {
		pv_pd_destroy(&self->pd.obj);
		return -1;
	}
	Py_XSETREF(self->pd_context, Py_XNewRef(pdc));
	pv_obj_opened(&self->pd.obj);
	return 0;
}

static int pdom_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct pv_parent_domain *)obj)->pd_context);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int pdom_clear(PyObject *obj)
{
	struct pv_parent_domain *self = (struct pv_parent_domain *)obj;

	pv_obj_clear(PV_OBJ(obj)); /* closes us, and our children */
	/* If that failed a child may still be open, and destroying it later
	 * calls free_func: keep the context (a leak, not a dangling
	 * pointer). */
	if (self->pd.obj.closed)
		Py_CLEAR(self->pd_context);
	return 0;
}

PV_GC_TYPE_SPEC(pdom, "pyverbs.pd.ParentDomain", struct pv_parent_domain,
		"ParentDomain(context, attr)\n--\n\n"
		"A parent domain (ibv_alloc_parent_domain): a PD, usable "
		"wherever one is (QPs, CQEX's parent_domain, MRs), whose "
		"resources the provider may allocate with the Python "
		"allocators of attr's ParentDomainContext.  A child of "
		"the Context and of the PD it wraps.",
		{ Py_tp_init, pdom_init }, { Py_tp_traverse, pdom_traverse },
		{ Py_tp_clear, pdom_clear }, );

/* ---- the guard of creation calls ---- */

/* Mark o busy and hold a reference to it (the caller's may be borrowed
 * from an attribute object that the allocators could change). */
static void guard_hold(struct pv_alloc_guard *g, struct pv_obj *o)
{
	if (g->n == (int)(sizeof(g->busy) / sizeof(g->busy[0])))
		return;
	Py_INCREF(o);
	pv_busy_enter(o);
	g->busy[g->n++] = o;
}

void pv_alloc_guard_begin(struct pv_alloc_guard *g, struct pv_pd *pd,
			  struct pv_obj *const *uses, int n)
{
	struct pv_pd_context *c;
	PyObject *stale;
	int i;

	g->n = 0;
	g->pd_context = NULL;
	if (!pd || !PyObject_TypeCheck((PyObject *)pd, pv.ParentDomain) ||
	    !((struct pv_parent_domain *)pd)->pd_context)
		return;
	g->pd_context = Py_NewRef(((struct pv_parent_domain *)pd)->pd_context);
	c = (struct pv_pd_context *)g->pd_context;
	/* left by a call that no guard watched: not this call's */
	stale = pdc_take_exc(c);
	if (stale)
		pdc_unraisable(stale, (PyObject *)pd);
	guard_hold(g, &pd->obj);
	for (i = 0; i < n; i++)
		if (uses[i] && uses[i] != &pd->obj)
			guard_hold(g, uses[i]);
}

void pv_alloc_guard_end(struct pv_alloc_guard *g, int failed)
{
	PyObject *e, *t, *v, *tb;
	int i;

	if (!g->pd_context)
		return;
	e = pdc_take_exc((struct pv_pd_context *)g->pd_context);
	if (e && failed && PyErr_Occurred()) {
		PyErr_Fetch(&t, &v, &tb);
		PyErr_NormalizeException(&t, &v, &tb);
		if (tb)
			PyException_SetTraceback(v, tb);
		PyException_SetCause(v, e); /* steals e */
		PyErr_Restore(t, v, tb);
	} else if (e) {
		/* the creation succeeded anyway: not to be lost */
		pdc_unraisable(e, g->pd_context);
	}
	Py_CLEAR(g->pd_context);
	for (i = 0; i < g->n; i++) {
		pv_busy_leave(g->busy[i]);
		Py_DECREF(g->busy[i]);
	}
	g->n = 0;
}

int pv_parent_domain_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &pdc_spec, &pv.PyverbsObject, &pv.ParentDomainContext, NULL,
		  pdc_oslots },
		{ &pdia_spec, &pv.PyverbsObject, &pv.ParentDomainInitAttr,
		  pdia_fields, pdia_oslots },
		{ &pdom_spec, &pv.PD, &pv.ParentDomain },
		{ NULL }
	};

	return pv_add_types(m, types);
}
