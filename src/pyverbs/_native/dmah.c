/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * DmaHandleInitAttr and DMAHandle (pyverbs.mr): a DMA handle carries the
 * TLP processing hints (TPH: the target CPU, the processing hint, the
 * memory type) that a device applies to the DMA of the MRs registered
 * with it (ibv_alloc_dmah / ibv_dealloc_dmah, rdma-core 59; MREx(dmah=)).
 *
 * The attributes are plain data kept here whatever the build's rdma-core,
 * so DmaHandleInitAttr works everywhere; DMAHandle() raises, naming
 * rdma-core 59, from a build whose headers lack ibv_alloc_dmah.  Providers
 * without TPH support (rxe among them) refuse with EOPNOTSUPP.
 */
#include "dmah.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "state.h"

#include <errno.h>
#include <string.h>

/* ---- DmaHandleInitAttr ---- */

/* struct ibv_dmah_init_attr's members, in its order */
struct pv_dmah_attr {
	PyObject_HEAD
	uint32_t comp_mask;
	uint32_t cpu_id;
	uint8_t ph;
	uint8_t tph_mem_type;
};

static const struct pv_field dia_fields[] = {
	PV_FIELD(struct pv_dmah_attr, comp_mask, "comp_mask"),
	PV_FIELD(struct pv_dmah_attr, cpu_id, "cpu_id"),
	PV_FIELD(struct pv_dmah_attr, ph, "ph"),
	PV_FIELD(struct pv_dmah_attr, tph_mem_type, "tph_mem_type"),
	PV_FIELD_END
};

static int dia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", "cpu_id", "ph", "tph_mem_type",
				  NULL };
	struct pv_dmah_attr *self = (struct pv_dmah_attr *)obj;
	PyObject *vals[4] = { NULL, NULL, NULL, NULL };
	int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO:DmaHandleInitAttr",
					 kwlist, &vals[0], &vals[1], &vals[2],
					 &vals[3]))
		return -1;
	self->comp_mask = self->cpu_id = 0;
	self->ph = self->tph_mem_type = 0;
	for (i = 0; i < 4; i++)
		if (vals[i] && pv_field_store(obj, &dia_fields[i], vals[i]))
			return -1;
	return 0;
}

static PyObject *dia_str(PyObject *obj)
{
	static const char *const names[] = { "comp_mask", "cpu_id", "ph",
					     "tph_mem_type", NULL };

	return pv_rows_str(obj, "DmaHandleInitAttr:\n", names);
}

PV_DATA_SPEC(dia, "pyverbs.mr.DmaHandleInitAttr", struct pv_dmah_attr,
	     "DmaHandleInitAttr(comp_mask=0, cpu_id=0, ph=0, "
	     "tph_mem_type=0)\n--\n\n"
	     "The attributes of a DMAHandle (struct ibv_dmah_init_attr): "
	     "comp_mask says which of cpu_id (the CPU the DMA targets), ph "
	     "(the TLP processing hint, 0-3) and tph_mem_type "
	     "(ibv_tph_mem_type: volatile or persistent memory) are given.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, dia_init },
	     { Py_tp_str, dia_str }, );

/* ---- DMAHandle ---- */

static int dmah_destroy(struct pv_obj *o)
{
#if HAVE_IBV_ALLOC_DMAH && HAVE_IBV_DEALLOC_DMAH
	struct pv_dmah *self = (struct pv_dmah *)o;
	int rc;

	if (!self->dmah)
		return 0;
	rc = ibv_dealloc_dmah(self->dmah); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_dealloc_dmah",
			    "Failed to dealloc DMA Handle");
		return -1;
	}
	self->dmah = NULL;
#endif
	return 0;
}

static int dmah_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "init_attr", NULL };
	struct pv_dmah *self = (struct pv_dmah *)obj;
	PyObject *ctxo, *attro;
	struct pv_context *ctx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:DMAHandle", kwlist,
					 &ctxo, &attro))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("DMAHandle is already initialised");
		return -1;
	}
	if (!PyObject_TypeCheck(attro, pv.DmaHandleInitAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "init_attr must be a DmaHandleInitAttr, not %.100s",
			     Py_TYPE(attro)->tp_name);
		return -1;
	}
	if (!(ctx = pv_context_arg(ctxo, "ctx")))
		return -1;
	pv_obj_setup(&self->obj, dmah_destroy);
#if HAVE_IBV_ALLOC_DMAH && HAVE_IBV_DEALLOC_DMAH
	{
		struct pv_dmah_attr *a = (struct pv_dmah_attr *)attro;
		struct ibv_dmah_init_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.comp_mask = a->comp_mask;
		attr.cpu_id = a->cpu_id;
		attr.ph = a->ph;
		attr.tph_mem_type = a->tph_mem_type;
		self->dmah = ibv_alloc_dmah(ctx->ctx, &attr); /* NULL, errno */
		if (!self->dmah) {
			pv_raise_errno("ibv_alloc_dmah",
				       "Failed to create DMA Handle");
			return -1;
		}
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		dmah_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
#else
	pv_raise_needs("ibv_alloc_dmah", 59);
	return -1;
#endif
}

PV_GC_TYPE_SPEC(dmah, "pyverbs.mr.DMAHandle", struct pv_dmah,
		"DMAHandle(ctx, init_attr)\n--\n\n"
		"A DMA handle (ibv_alloc_dmah) holding the TLP processing "
		"hints of a DmaHandleInitAttr, for MREx(dmah=).  A child of "
		"its Context; the MREx registered with it are its children.",
		{ Py_tp_init, dmah_init }, PV_CM_SLOTS, );

int pv_dmah_init_types(PyObject *m)
{
	return PyModule_AddIntConstant(m, "_HAVE_DMAH",
				       HAVE_IBV_ALLOC_DMAH &&
					       HAVE_IBV_DEALLOC_DMAH) ||
	       pv_add_data_type(m, &dia_spec, pv.PyverbsObject, dia_fields,
				NULL, NULL, &pv.DmaHandleInitAttr) ||
	       pv_add_type(m, &dmah_spec, pv.PyverbsCM, &pv.DMAHandle);
}
