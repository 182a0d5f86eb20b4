/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The EFA attribute classes, plain data over the structs of efadv.h:
 *   EfaDVDeviceAttr  struct efadv_device_attr (efadv_query_device), read-only
 *   EfaDVAHAttr      struct efadv_ah_attr (efadv_query_ah), read-only
 *   EfaQPInitAttr    struct efadv_qp_init_attr (efadv_create_qp_ex):
 *                    driver_qp_type is writable; libefa wants comp_mask and
 *                    the reserved bytes zero, so neither is settable
 *   EfaDVCQInitAttr  struct efadv_cq_init_attr (efadv_create_cq)
 *   EfaDVMRAttr      struct efadv_mr_attr (efadv_query_mr), read-only
 *   EfaDVSQDepthAttr, EfaDVRQDepthAttr  struct efadv_sq/rq_depth_attr
 *   EfaCompCntrInitAttr  struct efadv_comp_cntr_init_attr (its two
 *                    external memories' virtual addresses)
 * The 44 classes' __str__ (as upstream prints them) is in efadv.py;
 * EfaDVMRAttr's is here.
 */
#include "efa.h"
#include "errors.h"
#include "field.h"
#include "state.h"

#include <stdio.h>

PyObject *pv_efa_attr_new(PyTypeObject *tp, const void *src, size_t len)
{
	PyObject *o = tp->tp_alloc(tp, 0);

	/* every attribute class embeds its struct right after the head */
	if (o)
		memcpy(&((struct pv_efa_ah_attr *)o)->attr, src, len);
	return o;
}

#if !HAVE_EFADV_GET_MAX_SQ_DEPTH ||                    \
	!HAVE_EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV || \
	!HAVE_EFADV_QP_INIT_ATTR_SL || !HAVE_EFADV_QP_FROM_IBV_QP_EX
/*
 * An attribute a build against an older rdma-core lacks: reading or
 * writing it raises the error naming the version that brings it.
 */
struct efa_needs {
	const char *what;
	int version;
};

static PyObject *efa_get_needs(PyObject *obj, void *closure)
{
	const struct efa_needs *n = closure;

	return pv_raise_needs(n->what, n->version);
}

static int efa_set_needs(PyObject *obj, PyObject *v, void *closure)
{
	efa_get_needs(obj, closure);
	return -1;
}

#define EFA_NEEDS(name, what, version)                    \
	{                                                 \
		name, efa_get_needs, efa_set_needs,       \
			what " (rdma-core " #version ")", \
			(void *)&(const struct efa_needs) \
		{                                         \
			what, version                     \
		}                                         \
	}

#endif

#define EFA_DATA_SPEC(prefix, pyname, st, doc, init, ...)                    \
	PV_DATA_SPEC(prefix, "pyverbs.providers.efa.efadv." pyname, st, doc, \
		     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, init }, \
		     __VA_ARGS__)

/* ---- EfaDVDeviceAttr ---- */

#define DA struct pv_efa_device_attr
static const struct pv_field da_fields[] = {
	PV_FIELD_RO(DA, attr.comp_mask, "comp_mask"),
	PV_FIELD_RO(DA, attr.max_sq_wr, "max_sq_wr"),
	PV_FIELD_RO(DA, attr.max_rq_wr, "max_rq_wr"),
	PV_FIELD_RO(DA, attr.max_sq_sge, "max_sq_sge"),
	PV_FIELD_RO(DA, attr.max_rq_sge, "max_rq_sge"),
	PV_FIELD_RO(DA, attr.inline_buf_size, "inline_buf_size"),
#if HAVE_EFADV_GET_MAX_SQ_DEPTH
	PV_FIELD_RO(DA, attr.inline_buf_size_ex, "inline_buf_size_ex"),
#endif
	PV_FIELD_RO(DA, attr.device_caps, "device_caps"),
	PV_FIELD_RO(DA, attr.max_rdma_size, "max_rdma_size"),
	PV_FIELD_END
};
#undef DA

static PyGetSetDef da_extra[] = {
#if !HAVE_EFADV_GET_MAX_SQ_DEPTH
	EFA_NEEDS("inline_buf_size_ex", "EfaDVDeviceAttr.inline_buf_size_ex",
		  63),
#endif
	{ NULL }
};

EFA_DATA_SPEC(da, "EfaDVDeviceAttr", struct pv_efa_device_attr,
	      "EfaDVDeviceAttr()\n--\n\n"
	      "The EFA capabilities of a device (struct efadv_device_attr), "
	      "as EfaContext.query_efa_device() returns them.",
	      pv_noargs_init, );

/* ---- EfaDVAHAttr ---- */

static const struct pv_field aha_fields[] = {
	PV_FIELD_RO(struct pv_efa_ah_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD_RO(struct pv_efa_ah_attr, attr.ahn, "ahn"), PV_FIELD_END
};

EFA_DATA_SPEC(aha, "EfaDVAHAttr", struct pv_efa_ah_attr,
	      "EfaDVAHAttr()\n--\n\n"
	      "The EFA attributes of an AH (struct efadv_ah_attr), as "
	      "EfaAH.query_efa_ah() returns them.",
	      pv_noargs_init, );

/* ---- EfaQPInitAttr ---- */

#define QIA struct pv_efa_qp_init_attr
static const struct pv_field qia_fields[] = {
	PV_FIELD_RO(QIA, attr.comp_mask, "comp_mask"),
	PV_FIELD(QIA, attr.driver_qp_type, "driver_qp_type"),
#if HAVE_EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV
	PV_FIELD(QIA, attr.flags, "flags"),
#endif
#if HAVE_EFADV_QP_INIT_ATTR_SL
	PV_FIELD(QIA, attr.sl, "sl"),
#endif
#if HAVE_EFADV_QP_FROM_IBV_QP_EX
	PV_FIELD(QIA, attr.wr_flags, "wr_flags"),
#endif
	PV_FIELD_END
};
#undef QIA

static PyGetSetDef qia_extra[] = {
#if !HAVE_EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV
	EFA_NEEDS("flags", "EfaQPInitAttr.flags", 52),
#endif
#if !HAVE_EFADV_QP_INIT_ATTR_SL
	EFA_NEEDS("sl", "EfaQPInitAttr.sl", 55),
#endif
#if !HAVE_EFADV_QP_FROM_IBV_QP_EX
	EFA_NEEDS("wr_flags", "EfaQPInitAttr.wr_flags", 64),
#endif
	{ NULL }
};

EFA_DATA_SPEC(qia, "EfaQPInitAttr", struct pv_efa_qp_init_attr,
	      "EfaQPInitAttr()\n--\n\n"
	      "EFA attributes of an SRDQPEx (struct efadv_qp_init_attr): set "
	      "driver_qp_type (EFADV_QP_DRIVER_TYPE_SRD, 0 by default), flags "
	      "(EFADV_QP_FLAGS_*, rdma-core 52), sl (the service level, 55), "
	      "wr_flags (EFADV_WR_EX_WITH_PROCESSING_HINTS, 64).",
	      pv_noargs_init, );

/* ---- EfaDVCQInitAttr ---- */

static int cia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "wc_flags", NULL };
	struct pv_efa_cq_init_attr *self = (struct pv_efa_cq_init_attr *)obj;
	uint64_t wc_flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&:EfaDVCQInitAttr",
					 kwlist, pv_conv_u64, &wc_flags))
		return -1;
	self->attr.wc_flags = wc_flags;
	return 0;
}

static const struct pv_field cia_fields[] = {
	PV_FIELD_RO(struct pv_efa_cq_init_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD(struct pv_efa_cq_init_attr, attr.wc_flags, "wc_flags"),
	PV_FIELD_END
};

EFA_DATA_SPEC(cia, "EfaDVCQInitAttr", struct pv_efa_cq_init_attr,
	      "EfaDVCQInitAttr(wc_flags=0)\n--\n\n"
	      "EFA attributes of an EfaCQ (struct efadv_cq_init_attr): "
	      "wc_flags takes EFADV_WC_EX_WITH_SGID (for EfaCQ.read_sgid()).",
	      cia_init, );

/* ---- EfaDVMRAttr (efadv_query_mr's answer, rdma-core 50) ---- */

#define MRA struct pv_efa_mr_attr
static const struct pv_field mra_fields[] = {
	PV_FIELD_RO(MRA, attr.comp_mask, "comp_mask"),
	PV_FIELD_RO(MRA, attr.ic_id_validity, "ic_id_validity"),
	PV_FIELD_RO(MRA, attr.recv_ic_id, "recv_ic_id"),
	PV_FIELD_RO(MRA, attr.rdma_read_ic_id, "rdma_read_ic_id"),
	PV_FIELD_RO(MRA, attr.rdma_recv_ic_id, "rdma_recv_ic_id"),
	PV_FIELD_END
};

/* upstream's rows: the label in 28 columns, the value in 20 */
static PyObject *mra_str(PyObject *obj)
{
	const pv_efadv_mr_attr *a = &((MRA *)obj)->attr;
	char buf[512];

	snprintf(buf, sizeof(buf),
		 "%-28s: %-20llu\n%-28s: %-20u\n%-28s: %-20u\n"
		 "%-28s: %-20u\n%-28s: %-20u\n",
		 "comp_mask", (unsigned long long)a->comp_mask,
		 "Interconnect id validity", a->ic_id_validity,
		 "Receive interconnect id", a->recv_ic_id,
		 "RDMA read interconnect id", a->rdma_read_ic_id,
		 "RDMA receive interconnect id", a->rdma_recv_ic_id);
	return PyUnicode_FromString(buf);
}
#undef MRA

EFA_DATA_SPEC(mra, "EfaDVMRAttr", struct pv_efa_mr_attr,
	      "EfaDVMRAttr()\n--\n\n"
	      "The EFA attributes of an MR (struct efadv_mr_attr), as "
	      "EfaMR.query() returns them: which interconnect ids are valid "
	      "(ic_id_validity, EFADV_MR_ATTR_VALIDITY_*) and the ids.",
	      pv_noargs_init, { Py_tp_str, mra_str }, );

/* ---- EfaDVSQDepthAttr, EfaDVRQDepthAttr (rdma-core 63) ---- */

#define SQA struct pv_efa_sq_depth_attr
static const struct pv_field sqa_fields[] = {
	PV_FIELD(SQA, attr.comp_mask, "comp_mask"),
	PV_FIELD(SQA, attr.flags, "flags"),
	PV_FIELD(SQA, attr.max_send_sge, "max_send_sge"),
	PV_FIELD(SQA, attr.max_rdma_sge, "max_rdma_sge"),
	PV_FIELD(SQA, attr.max_inline_data, "max_inline_data"),
	PV_FIELD_END
};
#undef SQA

EFA_DATA_SPEC(sqa, "EfaDVSQDepthAttr", struct pv_efa_sq_depth_attr,
	      "EfaDVSQDepthAttr()\n--\n\n"
	      "The send queue of which efadv_get_max_sq_depth() tells the "
	      "depth (struct efadv_sq_depth_attr): flags "
	      "(EFADV_SQ_DEPTH_ATTR_INLINE_WRITE) and the SGEs and inline "
	      "data it needs.  Plain data, as upstream's (nothing takes it).",
	      pv_noargs_init, );

#define RQA struct pv_efa_rq_depth_attr
static const struct pv_field rqa_fields[] = {
	PV_FIELD(RQA, attr.comp_mask, "comp_mask"),
	PV_FIELD(RQA, attr.max_recv_sge, "max_recv_sge"), PV_FIELD_END
};
#undef RQA

EFA_DATA_SPEC(rqa, "EfaDVRQDepthAttr", struct pv_efa_rq_depth_attr,
	      "EfaDVRQDepthAttr()\n--\n\n"
	      "The receive queue of which efadv_get_max_rq_depth() tells "
	      "the depth (struct efadv_rq_depth_attr).  Plain data, as "
	      "upstream's.",
	      pv_noargs_init, );

/* ---- EfaCompCntrInitAttr (rdma-core 65) ---- */

/* EFADV_COMP_CNTR_INIT_WITH_COMP/ERR_EXTERNAL_MEM, fixed values */
#define CCA_COMP_EXT 1
#define CCA_ERR_EXT 2

/* Set the virtual address of one count (flag) from v (an int). */
static int cca_set(struct pv_efa_comp_cntr_attr *self, PyObject *v,
		   uint32_t flag)
{
	uint64_t va;

	if (pv_to_u64(v, UINTPTR_MAX, &va, "ptr"))
		return -1;
	self->flags |= flag;
	if (flag == CCA_COMP_EXT)
		self->comp_va = va;
	else
		self->err_va = va;
	return 0;
}

static int cca_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_ext_mem_ptr", "err_ext_mem_ptr", NULL };
	struct pv_efa_comp_cntr_attr *self =
		(struct pv_efa_comp_cntr_attr *)obj;
	PyObject *comp = Py_None, *err = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:EfaCompCntrInitAttr",
					 kwlist, &comp, &err))
		return -1;
	self->flags = 0;
	self->comp_va = self->err_va = 0;
	if ((comp != Py_None && cca_set(self, comp, CCA_COMP_EXT)) ||
	    (err != Py_None && cca_set(self, err, CCA_ERR_EXT)))
		return -1;
	return 0;
}

static PyObject *cca_set_comp(PyObject *obj, PyObject *ptr)
{
	if (cca_set((struct pv_efa_comp_cntr_attr *)obj, ptr, CCA_COMP_EXT))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *cca_set_err(PyObject *obj, PyObject *ptr)
{
	if (cca_set((struct pv_efa_comp_cntr_attr *)obj, ptr, CCA_ERR_EXT))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef cca_methods[] = {
	{ "set_comp_ext_mem_va", cca_set_comp, METH_O,
	  "set_comp_ext_mem_va($self, ptr, /)\n--\n\n"
	  "Keep the completion count at the virtual address ptr "
	  "(EFADV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM)." },
	{ "set_err_ext_mem_va", cca_set_err, METH_O,
	  "set_err_ext_mem_va($self, ptr, /)\n--\n\n"
	  "Keep the error count at the virtual address ptr "
	  "(EFADV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM)." },
	{ NULL }
};

PV_TYPE_SPEC(cca, "pyverbs.providers.efa.efadv.EfaCompCntrInitAttr",
	     struct pv_efa_comp_cntr_attr,
	     "EfaCompCntrInitAttr(comp_ext_mem_ptr=None, "
	     "err_ext_mem_ptr=None)\n--\n\n"
	     "EFA attributes of an EfaCompCntr (struct "
	     "efadv_comp_cntr_init_attr): the virtual addresses, if any, "
	     "where the device keeps the completion and error counts (the "
	     "memory stays the caller's: pyverbs never touches it).",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, cca_init },
	     { Py_tp_methods, cca_methods }, );

int pv_efa_attr_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &da_spec, &pv.PyverbsObject, &pv_efa.DeviceAttr, da_fields,
		  NULL, da_extra },
		{ &aha_spec, &pv.PyverbsObject, &pv_efa.AHAttr, aha_fields },
		{ &qia_spec, &pv.PyverbsObject, &pv_efa.QPInitAttr, qia_fields,
		  NULL, qia_extra },
		{ &cia_spec, &pv.PyverbsObject, &pv_efa.CQInitAttr,
		  cia_fields },
		{ &mra_spec, &pv.PyverbsObject, &pv_efa.MRAttr, mra_fields },
		{ &sqa_spec, &pv.PyverbsObject, &pv_efa.SQDepthAttr,
		  sqa_fields },
		{ &rqa_spec, &pv.PyverbsObject, &pv_efa.RQDepthAttr,
		  rqa_fields },
		{ &cca_spec, &pv.PyverbsObject, &pv_efa.CompCntrAttr },
		{ NULL }
	};

	return pv_add_types(m, types);
}
