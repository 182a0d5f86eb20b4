/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The EFA attribute classes, plain data over the structs of efadv.h:
 *   EfaDVDeviceAttr  struct efadv_device_attr (efadv_query_device), read-only
 *   EfaDVAHAttr      struct efadv_ah_attr (efadv_query_ah), read-only
 *   EfaQPInitAttr    struct efadv_qp_init_attr (efadv_create_qp_ex):
 *                    driver_qp_type is writable; libefa wants comp_mask and
 *                    the reserved bytes zero, so neither is settable
 *   EfaDVCQInitAttr  struct efadv_cq_init_attr (efadv_create_cq)
 * Their __str__ (as upstream prints them) is in efadv.py.
 */
#include "efa.h"
#include "field.h"
#include "state.h"

PyObject *pv_efa_attr_new(PyTypeObject *tp, const void *src, size_t len)
{
	PyObject *o = tp->tp_alloc(tp, 0);

	/* every attribute class embeds its struct right after the head */
	if (o)
		memcpy(&((struct pv_efa_ah_attr *)o)->attr, src, len);
	return o;
}

#define EFA_DATA_SPEC(prefix, pyname, st, doc, init)                         \
	PV_DATA_SPEC(prefix, "pyverbs.providers.efa.efadv." pyname, st, doc, \
		     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, init }, )

/* ---- EfaDVDeviceAttr ---- */

#define DA struct pv_efa_device_attr
static const struct pv_field da_fields[] = {
	PV_FIELD_RO(DA, attr.comp_mask, "comp_mask"),
	PV_FIELD_RO(DA, attr.max_sq_wr, "max_sq_wr"),
	PV_FIELD_RO(DA, attr.max_rq_wr, "max_rq_wr"),
	PV_FIELD_RO(DA, attr.max_sq_sge, "max_sq_sge"),
	PV_FIELD_RO(DA, attr.max_rq_sge, "max_rq_sge"),
	PV_FIELD_RO(DA, attr.inline_buf_size, "inline_buf_size"),
	PV_FIELD_RO(DA, attr.device_caps, "device_caps"),
	PV_FIELD_RO(DA, attr.max_rdma_size, "max_rdma_size"),
	PV_FIELD_END
};
#undef DA

EFA_DATA_SPEC(da, "EfaDVDeviceAttr", struct pv_efa_device_attr,
	      "EfaDVDeviceAttr()\n--\n\n"
	      "The EFA capabilities of a device (struct efadv_device_attr), "
	      "as EfaContext.query_efa_device() returns them.",
	      pv_noargs_init);

/* ---- EfaDVAHAttr ---- */

static const struct pv_field aha_fields[] = {
	PV_FIELD_RO(struct pv_efa_ah_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD_RO(struct pv_efa_ah_attr, attr.ahn, "ahn"), PV_FIELD_END
};

EFA_DATA_SPEC(aha, "EfaDVAHAttr", struct pv_efa_ah_attr,
	      "EfaDVAHAttr()\n--\n\n"
	      "The EFA attributes of an AH (struct efadv_ah_attr), as "
	      "EfaAH.query_efa_ah() returns them.",
	      pv_noargs_init);

/* ---- EfaQPInitAttr ---- */

static const struct pv_field qia_fields[] = {
	PV_FIELD_RO(struct pv_efa_qp_init_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD(struct pv_efa_qp_init_attr, attr.driver_qp_type,
		 "driver_qp_type"),
	PV_FIELD_END
};

EFA_DATA_SPEC(qia, "EfaQPInitAttr", struct pv_efa_qp_init_attr,
	      "EfaQPInitAttr()\n--\n\n"
	      "EFA attributes of an SRDQPEx (struct efadv_qp_init_attr): set "
	      "driver_qp_type (EFADV_QP_DRIVER_TYPE_SRD, 0 by default).",
	      pv_noargs_init);

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
	      cia_init);

int pv_efa_attr_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &da_spec, &pv.PyverbsObject, &pv_efa.DeviceAttr, da_fields },
		{ &aha_spec, &pv.PyverbsObject, &pv_efa.AHAttr, aha_fields },
		{ &qia_spec, &pv.PyverbsObject, &pv_efa.QPInitAttr,
		  qia_fields },
		{ &cia_spec, &pv.PyverbsObject, &pv_efa.CQInitAttr,
		  cia_fields },
		{ NULL }
	};

	return pv_add_types(m, types);
}
