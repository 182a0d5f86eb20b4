/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A CMID's verbs objects: the Context and PD that wrap id->verbs and id->pd
 * (made on first use, children of the CMID; a passive id shares its
 * listener's), and the hooks through which the core's Context(cmid=),
 * PD(cmid) and MR(cmid, ...) reach them (struct pv_cm_ops, installed by
 * cmid.c).  Below cmid.c, cmid_qp.c and datapath.c.
 */
#include "cm.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

int pv_is_cmid(PyObject *o)
{
	return pv_type_ok(o, pv.CMID);
}

/* The handles the wrappers wrap: id->verbs (Context), id->pd (PD). */
enum cmid_handle { CMID_VERBS, CMID_PD };

static void *cmid_handle(struct pv_cmid *self, enum cmid_handle which)
{
	return which == CMID_PD ? (void *)self->id->pd :
				  (void *)self->id->verbs;
}

/* The handle of the open, bound CMID; else NULL with PyverbsUserError. */
static void *cmid_bound(struct pv_cmid *self, enum cmid_handle which)
{
	void *h;

	if (pv_check_open(&self->obj))
		return NULL;
	h = cmid_handle(self, which);
	if (!h)
		pv_raise_user("The CMID is not bound to a device yet");
	return h;
}

struct ibv_context *pv_cmid_verbs(PyObject *o)
{
	return cmid_bound(CMID(o), CMID_VERBS);
}

/*
 * The listening CMID self was taken from when it is bound to the same
 * device: its wrappers serve (as upstream, where a passive child shares
 * its listener's Context and PD).  Borrowed, or NULL.
 */
static struct pv_cmid *cmid_listener(struct pv_cmid *self)
{
	struct pv_obj *p = pv_obj_parent(&self->obj, 0);

	if (p && pv_is_cmid((PyObject *)p) && !p->closed &&
	    CMID(p)->id->verbs == self->id->verbs)
		return CMID(p);
	return NULL;
}

/* A new Context or PD of self's handle: Context(cmid=self), PD(self). */
static PyObject *cmid_wrap(struct pv_cmid *self, enum cmid_handle which)
{
	PyObject *kw, *c;

	if (which == CMID_PD)
		return PyObject_CallOneArg((PyObject *)pv.PD, (PyObject *)self);
	kw = Py_BuildValue("{sO}", "cmid", (PyObject *)self);
	if (!kw)
		return NULL;
	c = PyTuple_New(0);
	if (c)
		Py_SETREF(c, PyObject_Call((PyObject *)pv.Context, c, kw));
	Py_DECREF(kw);
	return c;
}

/* The wrapper of a handle (borrowed): the one held, None while the id has
 * no such handle, its listener's, or a new one, held from now on. */
static PyObject *cmid_wrapper(struct pv_cmid *self, enum cmid_handle which)
{
	PyObject **slot = which == CMID_PD ? &self->pd : &self->ctx;
	struct pv_cmid *l;
	PyObject *c;

	if (*slot)
		return *slot;
	if (!cmid_handle(self, which))
		return Py_None;
	l = cmid_listener(self);
	if (l) {
		c = cmid_wrapper(l, which);
		if (c)
			pv_set_slot(slot, c);
		return c;
	}
	c = cmid_wrap(self, which);
	if (c)
		*slot = c;
	return c;
}

PyObject *pv_cmid_context(struct pv_cmid *self)
{
	return cmid_wrapper(self, CMID_VERBS);
}

PyObject *pv_cmid_pd_wrapper(struct pv_cmid *self)
{
	return cmid_wrapper(self, CMID_PD);
}

struct ibv_pd *pv_cmid_pd(PyObject *o, PyObject **ctx)
{
	struct pv_cmid *self = CMID(o);

	if (!cmid_bound(self, CMID_PD))
		return NULL;
	*ctx = pv_cmid_context(self);
	if (!*ctx)
		return NULL;
	if (pv_check_open(PV_OBJ(*ctx)))
		return NULL;
	return self->id->pd;
}

PyObject *pv_cmid_pd_obj(PyObject *o)
{
	struct pv_cmid *self = CMID(o);
	PyObject *pd;

	if (pv_check_open(&self->obj))
		return NULL;
	pd = pv_cmid_pd_wrapper(self);
	if (pd == Py_None)
		return pv_raise_user("The CMID is not bound to a device yet");
	return pd;
}
