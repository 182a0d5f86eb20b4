/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * PD: a protection domain (ibv_alloc_pd / ibv_dealloc_pd), and its import
 * (ibv_import_pd / ibv_unimport_pd) where rdma-core has it.
 */
#include "pd.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "rdmacm_ops.h"
#include "state.h"
#include "wr.h"

#include <errno.h>

int pv_pd_destroy(struct pv_obj *o)
{
	struct pv_pd *self = (struct pv_pd *)o;
	int rc;

	if (!self->pd)
		return 0;
	if (self->adopted) { /* a CMID's: librdmacm frees it */
		self->pd = NULL;
		return 0;
	}
	if (self->imported) {
#if HAVE_IBV_IMPORT_PD
		ibv_unimport_pd(self->pd);
#endif
		self->pd = NULL;
		return 0;
	}
	rc = ibv_dealloc_pd(self->pd); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_dealloc_pd", "Failed to dealloc PD");
		return -1;
	}
	self->pd = NULL;
	return 0;
}

static int pd_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "creator", "handle", NULL };
	struct pv_pd *self = (struct pv_pd *)obj;
	PyObject *creator, *handle = Py_None;
	struct pv_context *ctx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:PD", kwlist, &creator,
					 &handle))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("PD is already initialised");
		return -1;
	}
	self->adopted = 0;
	if (pv_cm_ops.is_cmid(creator)) {
		/* the id's PD, a child of the id's Context wrapper */
		PyObject *ctxo;
		struct ibv_pd *pd = pv_cm_ops.cmid_pd(creator, &ctxo);

		if (!pd)
			return -1;
		pv_obj_setup(&self->obj, pv_pd_destroy);
		if (pv_obj_link(&self->obj, PV_OBJ(ctxo)))
			return -1;
		self->pd = pd;
		self->adopted = 1;
		pv_obj_opened(&self->obj);
		return 0;
	}
	if (!PyObject_TypeCheck(creator, pv.Context)) {
		PyErr_Format(PyExc_TypeError,
			     "PD creator must be a Context, not %.100s",
			     Py_TYPE(creator)->tp_name);
		return -1;
	}
	ctx = (struct pv_context *)creator;
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, pv_pd_destroy);
	if (handle != Py_None) {
#if HAVE_IBV_IMPORT_PD
		uint32_t h;

		if (!pv_conv_u32(handle, &h))
			return -1;
		self->pd = ibv_import_pd(ctx->ctx, h);
		if (!self->pd) {
			pv_raise_errno("ibv_import_pd", "Failed to import PD");
			return -1;
		}
		self->imported = 1;
#else
		pv_raise_unsupported("PD import (ibv_import_pd)");
		return -1;
#endif
	} else {
		self->pd = ibv_alloc_pd(ctx->ctx);
		if (!self->pd) {
			pv_raise_errno("ibv_alloc_pd", "Failed to allocate PD");
			return -1;
		}
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		pv_pd_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *pd_get_handle(PyObject *obj, void *closure)
{
	struct pv_pd *self = (struct pv_pd *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLong(self->pd->handle);
}

static PyObject *pd_get_pd(PyObject *obj, void *closure)
{
	struct pv_pd *self = (struct pv_pd *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->pd);
}

static PyObject *pd_get_ctx(PyObject *obj, void *closure)
{
	struct pv_obj *ctx = pv_obj_parent(&((struct pv_pd *)obj)->obj, 0);

	return Py_NewRef(ctx ? (PyObject *)ctx : Py_None);
}

static PyObject *pd_unimport(PyObject *obj, PyObject *unused)
{
	return pv_unimport(PV_OBJ(obj), ((struct pv_pd *)obj)->imported);
}

/*
 * ibv_advise_mr(): prefetch (part of) ODP MRs, given as SGEs.  With
 * IBV_ADVISE_MR_FLAG_FLUSH it waits for the pages to be mapped, so the
 * GIL is released (the PD is marked busy meanwhile).  Returns errno.
 */
static PyObject *pd_advise_mr(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "advise", "flags", "sg_list", NULL };
	struct pv_pd *self = (struct pv_pd *)obj;
	PyObject *list, *seq;
	struct ibv_sge *sges;
	unsigned int advise;
	uint32_t flags;
	Py_ssize_t i, n;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O:advise_mr", kwlist,
					 pv_conv_uint, &advise, pv_conv_u32,
					 &flags, &list))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	seq = PySequence_Fast(list, "sg_list must be a list of SGEs");
	if (!seq)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n > UINT32_MAX) {
		Py_DECREF(seq);
		return pv_raise_user("sg_list holds too many SGEs");
	}
	sges = PyMem_Calloc(n, sizeof(*sges));
	if (!sges) {
		Py_DECREF(seq);
		return PyErr_NoMemory();
	}
	for (i = 0; i < n; i++) {
		PyObject *it = PySequence_Fast_GET_ITEM(seq, i);

		if (!pv_type_ok(it, pv.SGE)) {
			PyErr_Format(PyExc_TypeError,
				     "sg_list[%zd] must be an "
				     "SGE, not %.100s",
				     i, Py_TYPE(it)->tp_name);
			goto fail;
		}
		sges[i] = ((struct pv_sge *)it)->sge;
	}
	pv_busy_enter(&self->obj);
	PV_BLOCKING_BEGIN
	rc = ibv_advise_mr(self->pd, advise, flags, sges, (uint32_t)n);
	PV_BLOCKING_END
	pv_busy_leave(&self->obj);
	PyMem_Free(sges);
	Py_DECREF(seq);
	if (rc) /* returns errno */
		return pv_raise_rc(rc, "ibv_advise_mr", "Failed to advise MR");
	return PyLong_FromLong(0);
fail:
	PyMem_Free(sges);
	Py_DECREF(seq);
	return NULL;
}

static PyMethodDef pd_methods[] = {
	{ "advise_mr", (PyCFunction)(void (*)(void))pd_advise_mr,
	  METH_VARARGS | METH_KEYWORDS,
	  "advise_mr($self, advise, flags, sg_list)\n--\n\n"
	  "Give the device advice about ODP MRs (ibv_advise_mr): advise is "
	  "_IBV_ADVISE_MR_ADVICE_PREFETCH(_WRITE/_NO_FAULT), flags "
	  "_IBV_ADVISE_MR_FLAG_FLUSH (wait until done) or 0, sg_list a list "
	  "of SGEs naming the ranges (lkeys of ODP MRs).  Returns 0." },
	{ "unimport", pd_unimport, METH_NOARGS,
	  "unimport($self, /)\n--\n\n"
	  "Release an imported PD without destroying it (ibv_unimport_pd)." },
	{ NULL }
};

static PyGetSetDef pd_getset[] = {
	{ "handle", pd_get_handle, NULL, "The kernel handle of the PD.", NULL },
	{ "pd", pd_get_pd, NULL, "Address of the struct ibv_pd (0 if closed).",
	  NULL },
	{ "ctx", pd_get_ctx, NULL, "The Context this PD belongs to.", NULL },
	{ NULL }
};

static PyObject *pd_repr(PyObject *obj)
{
	struct pv_pd *self = (struct pv_pd *)obj;

	if (self->obj.closed)
		return PyUnicode_FromFormat("<%s closed>",
					    _PyType_Name(Py_TYPE(obj)));
	return PyUnicode_FromFormat("<%s handle=%u>",
				    _PyType_Name(Py_TYPE(obj)),
				    self->pd->handle);
}

PV_GC_TYPE_SPEC(pd, "pyverbs.pd.PD", struct pv_pd,
		"PD(creator, handle=None)\n--\n\n"
		"A protection domain on a Context; with handle, import the "
		"PD of another process sharing the Context.",
		{ Py_tp_init, pd_init }, { Py_tp_methods, pd_methods },
		{ Py_tp_getset, pd_getset }, { Py_tp_repr, pd_repr },
		PV_CM_SLOTS, );

struct pv_pd *pv_pd_typed(PyObject *o)
{
	if (!PyObject_TypeCheck(o, pv.PD)) {
		PyErr_Format(PyExc_TypeError, "pd must be a PD, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	return (struct pv_pd *)o;
}

struct pv_pd *pv_pd_arg(PyObject *o)
{
	if (!pv_pd_typed(o) || pv_check_open(PV_OBJ(o)))
		return NULL;
	return (struct pv_pd *)o;
}

int pv_pd_init_types(PyObject *m)
{
	return pv_add_type(m, &pd_spec, pv.PyverbsCM, &pv.PD);
}
