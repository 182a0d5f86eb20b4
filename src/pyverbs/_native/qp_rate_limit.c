/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * QP rate limits (pyverbs.qp, upstream since rdma-core 64):
 * QPRateLimitAttr, struct ibv_qp_rate_limit_attr as plain data, and
 * QP.modify_rate_limit(attr), ibv_modify_qp_rate_limit() (an inline of
 * verbs.h that rdma-core 44 has already: the provider's op, EOPNOTSUPP
 * where it has none, as rxe).
 */
#include "qp.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "state.h"

#include <stdio.h>
#include <string.h>

struct pv_qp_rate_limit_attr {
	PyObject_HEAD
	struct ibv_qp_rate_limit_attr attr;
};

#define RLA(m) PV_FIELD(struct pv_qp_rate_limit_attr, attr.m, #m)
static const struct pv_field rla_fields[] = {
	RLA(rate_limit), RLA(max_burst_sz), RLA(typical_pkt_sz),
	RLA(comp_mask),	 PV_FIELD_END,
};
#undef RLA

static int rla_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "rate_limit", "max_burst_sz",
				  "typical_pkt_sz", "comp_mask", NULL };
	struct ibv_qp_rate_limit_attr a = { 0 };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&O&O&:QPRateLimitAttr",
					 kwlist, pv_conv_u32, &a.rate_limit,
					 pv_conv_u32, &a.max_burst_sz,
					 pv_conv_u16, &a.typical_pkt_sz,
					 pv_conv_u32, &a.comp_mask))
		return -1;
	((struct pv_qp_rate_limit_attr *)obj)->attr = a;
	return 0;
}

static PyObject *rla_str(PyObject *obj)
{
	const struct ibv_qp_rate_limit_attr *a =
		&((struct pv_qp_rate_limit_attr *)obj)->attr;
	char buf[256];

	snprintf(buf, sizeof(buf),
		 "%-22s: %-20u\n%-22s: %-20u\n%-22s: %-20u\n%-22s: %-20u\n",
		 "Rate limit (kbps)", a->rate_limit, "Max burst size",
		 a->max_burst_sz, "Typical packet size",
		 (unsigned int)a->typical_pkt_sz, "Comp mask", a->comp_mask);
	return PyUnicode_FromString(buf);
}

PV_DATA_SPEC(rla, "pyverbs.qp.QPRateLimitAttr", struct pv_qp_rate_limit_attr,
	     "QPRateLimitAttr(rate_limit=0, max_burst_sz=0, typical_pkt_sz=0, "
	     "comp_mask=0)\n--\n\n"
	     "The rate limit of a QP (struct ibv_qp_rate_limit_attr): "
	     "rate_limit in kbps (0: none), the largest burst and the "
	     "typical packet in bytes.  For QP.modify_rate_limit().",
	     { Py_tp_init, rla_init }, { Py_tp_str, rla_str }, );

PyObject *pv_qp_modify_rate_limit(PyObject *obj, PyObject *arg)
{
	struct pv_qp *self = (struct pv_qp *)obj;
	struct ibv_qp_rate_limit_attr a;
	int rc;

	if (!pv_type_ok(arg, pv.QPRateLimitAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "attr must be a QPRateLimitAttr, not %.100s",
			     Py_TYPE(arg)->tp_name);
		return NULL;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	a = ((struct pv_qp_rate_limit_attr *)arg)->attr;
	rc = ibv_modify_qp_rate_limit(self->qp, &a); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_modify_qp_rate_limit",
				   "Failed to modify QP rate limit");
	Py_RETURN_NONE;
}

int pv_qp_rate_limit_init_types(PyObject *m)
{
	return pv_add_data_type(m, &rla_spec, pv.PyverbsObject, rla_fields,
				NULL, NULL, &pv.QPRateLimitAttr);
}
