/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The core's hooks into rdma_cm (struct pv_cm_ops, rdmacm_ops.h): the table
 * the core calls through and its defaults, those of a build without
 * librdmacm.  The cm layer installs its functions at init; the core never
 * references cm/ itself.
 */
#include "rdmacm_ops.h"
#include "errors.h"

#define NO_RDMACM "this pyverbs-c was built without librdmacm"

static int no_is_cmid(PyObject *o)
{
	return 0;
}

static struct ibv_context *no_cmid_verbs(PyObject *o)
{
	pv_raise_user(NO_RDMACM);
	return NULL;
}

static struct ibv_pd *no_cmid_pd(PyObject *o, PyObject **ctx)
{
	pv_raise_user(NO_RDMACM);
	return NULL;
}

static PyObject *no_cmid_pd_obj(PyObject *o)
{
	return pv_raise_user(NO_RDMACM);
}

static int no_ud_param_ah_attr(PyObject *o, struct ibv_ah_attr *out)
{
	PyErr_Format(PyExc_TypeError,
		     "ud_param must be a UDParam, not "
		     "%.100s (" NO_RDMACM ")",
		     Py_TYPE(o)->tp_name);
	return -1;
}

struct pv_cm_ops pv_cm_ops = {
	.is_cmid = no_is_cmid,
	.cmid_verbs = no_cmid_verbs,
	.cmid_pd = no_cmid_pd,
	.cmid_pd_obj = no_cmid_pd_obj,
	.ud_param_ah_attr = no_ud_param_ah_attr,
};

#define SET_OP(name)                                \
	do {                                        \
		if (ops->name)                      \
			pv_cm_ops.name = ops->name; \
	} while (0)

void pv_cm_set_ops(const struct pv_cm_ops *ops)
{
	SET_OP(is_cmid);
	SET_OP(cmid_verbs);
	SET_OP(cmid_pd);
	SET_OP(cmid_pd_obj);
	SET_OP(ud_param_ah_attr);
}
