/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * XRCD: an XRC domain (ibv_open_xrcd / ibv_close_xrcd), which XRC SRQs and
 * XRC receive QPs share, possibly across processes through a file
 * (XRCDInitAttr's fd and oflags).  Its QPs are its children, so closing
 * the XRCD closes them first.
 */
#include "xrcd.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "state.h"

#include <errno.h>

/* ---- XRCDInitAttr ---- */

struct pv_xrcd_init_attr {
	PyObject_HEAD
	struct ibv_xrcd_init_attr attr;
};

static const struct pv_field xia_fields[] = {
	PV_FIELD(struct pv_xrcd_init_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD(struct pv_xrcd_init_attr, attr.oflags, "oflags"),
	PV_FIELD(struct pv_xrcd_init_attr, attr.fd, "fd"), PV_FIELD_END
};

static int xia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", "oflags", "fd", NULL };
	PyObject *vals[3];
	int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:XRCDInitAttr", kwlist,
					 &vals[0], &vals[1], &vals[2]))
		return -1;
	for (i = 0; i < 3; i++)
		if (pv_field_store(obj, &xia_fields[i], vals[i]))
			return -1;
	return 0;
}

PV_DATA_SPEC(xia, "pyverbs.xrcd.XRCDInitAttr", struct pv_xrcd_init_attr,
	     "XRCDInitAttr(comp_mask, oflags, fd)\n--\n\n"
	     "How to open an XRC domain (struct ibv_xrcd_init_attr): "
	     "comp_mask (IBV_XRCD_INIT_ATTR_FD | "
	     "IBV_XRCD_INIT_ATTR_OFLAGS), the open(2) flags (O_CREAT, "
	     "O_EXCL) and the file descriptor that names a domain "
	     "shared between processes (-1: a private one).",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, xia_init }, );

/* ---- XRCD ---- */

static int xrcd_destroy(struct pv_obj *o)
{
	struct pv_xrcd *self = (struct pv_xrcd *)o;
	int rc;

	if (!self->xrcd)
		return 0;
	rc = ibv_close_xrcd(self->xrcd); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_close_xrcd", "Failed to dealloc XRCD");
		return -1;
	}
	self->xrcd = NULL;
	return 0;
}

static int xrcd_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "init_attr", NULL };
	struct pv_xrcd *self = (struct pv_xrcd *)obj;
	PyObject *ctxo, *attro;
	struct pv_context *ctx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!:XRCD", kwlist,
					 pv.Context, &ctxo, pv.XRCDInitAttr,
					 &attro))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("XRCD is already initialised");
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, xrcd_destroy);
	self->xrcd = ibv_open_xrcd(ctx->ctx,
				   &((struct pv_xrcd_init_attr *)attro)->attr);
	if (!self->xrcd) {
		pv_raise_errno("ibv_open_xrcd", "Failed to allocate XRCD");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		xrcd_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *xrcd_get_xrcd(PyObject *obj, void *closure)
{
	struct pv_xrcd *self = (struct pv_xrcd *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->xrcd);
}

static PyObject *xrcd_get_ctx(PyObject *obj, void *closure)
{
	struct pv_obj *ctx = pv_obj_parent(&((struct pv_xrcd *)obj)->obj, 0);

	return Py_NewRef(ctx ? (PyObject *)ctx : Py_None);
}

static PyGetSetDef xrcd_getset[] = {
	{ "xrcd", xrcd_get_xrcd, NULL,
	  "Address of the struct ibv_xrcd (0 if closed).", NULL },
	{ "ctx", xrcd_get_ctx, NULL, "The Context of this XRC domain.", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(xrcd, "pyverbs.xrcd.XRCD", struct pv_xrcd,
		"XRCD(context, init_attr)\n--\n\n"
		"An XRC domain (ibv_open_xrcd).  Closing it closes the "
		"QPs opened on it first.",
		{ Py_tp_init, xrcd_init }, { Py_tp_getset, xrcd_getset },
		PV_CM_SLOTS, );

int pv_xrcd_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &xia_spec, &pv.PyverbsObject, &pv.XRCDInitAttr, xia_fields },
		{ &xrcd_spec, &pv.PyverbsCM, &pv.XRCD },
		{ NULL }
	};

	return pv_add_types(m, types);
}
