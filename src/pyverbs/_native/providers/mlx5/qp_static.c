/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The static methods of Mlx5QP (upstream's helpers over any open QP or
 * AH): the LAG port, scheduling elements, the UDP source port, AH-to-QP
 * mapping and DCI stream channels.  Mlx5QP's method table (qp.c) names
 * them.
 */
#include "mlx5.h"
#include "addr.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "qp.h"
#include "state.h"

#include <endian.h>
#include <errno.h>

/* ------------------------------------------------------------------ */
/* Static methods: any open QP / AH                                    */
/* ------------------------------------------------------------------ */

static struct ibv_qp *any_qp(PyObject *o)
{
	if (!pv_type_ok(o, pv.QP)) {
		pv_mlx5_arg_type_error("qp", "pyverbs.qp.QP", o);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	return ((struct pv_qp *)o)->qp;
}

/* Parse fmt's (qp, value) arguments, value with conv: the QP's ibv_qp, or
 * NULL with the exception. */
static struct ibv_qp *qp_value_args(PyObject *args, PyObject *kw,
				    const char *fmt, char **kwlist,
				    int (*conv)(PyObject *, void *), void *val)
{
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &o, conv, val))
		return NULL;
	return any_qp(o);
}

PyObject *pv_mlx5_qp_query_lag_port(PyObject *unused, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = { "qp", NULL };
	uint8_t port = 0, active = 0;
	struct ibv_qp *qp;
	PyObject *o;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:query_lag_port", kwlist,
					 &o) ||
	    !(qp = any_qp(o)))
		return NULL;
	rc = mlx5dv_query_qp_lag_port(qp, &port, &active);
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_query_qp_lag_port",
				   "Failed to query QP #%u", qp->qp_num);
	return Py_BuildValue("(ii)", (int)port, (int)active);
}

PyObject *pv_mlx5_qp_modify_lag_port(PyObject *unused, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "qp", "port_num", NULL };
	struct ibv_qp *qp;
	uint8_t port;
	int rc;

	qp = qp_value_args(args, kw, "OO&:modify_lag_port", kwlist, pv_conv_u8,
			   &port);
	if (!qp)
		return NULL;
	rc = mlx5dv_modify_qp_lag_port(qp, port);
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_modify_qp_lag_port",
				   "Failed to modify lag of QP #%u",
				   qp->qp_num);
	Py_RETURN_NONE;
}

/* The leaf of an open Mlx5dvSchedLeaf (family mlx5objs) of the QP's
 * Context, NULL for None. */
static int sched_leaf(PyObject *qp, PyObject *o,
		      const struct mlx5dv_sched_leaf **out)
{
	*out = NULL;
	if (o == Py_None)
		return 0;
	if (!pv_mlx5_sched_leaf_get) {
		PyErr_SetString(PyExc_NotImplementedError,
				"Mlx5dvSchedLeaf is not available in this "
				"pyverbs-c yet");
		return -1;
	}
	*out = pv_mlx5_sched_leaf_get(o); /* checks type and open */
	if (!*out || pv_obj_check_in(PV_OBJ(o), pv_obj_root(PV_OBJ(qp)),
				     "Mlx5dvSchedLeaf", "QP"))
		return -1;
	return 0;
}

PyObject *pv_mlx5_qp_modify_qp_sched_elem(PyObject *unused, PyObject *args,
					  PyObject *kw)
{
	static char *kwlist[] = { "qp", "req_sched_leaf", "resp_sched_leaf",
				  NULL };
	const struct mlx5dv_sched_leaf *req, *resp;
	PyObject *o, *ro = Py_None, *so = Py_None;
	struct ibv_qp *qp;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO:modify_qp_sched_elem",
					 kwlist, &o, &ro, &so) ||
	    !(qp = any_qp(o)) || sched_leaf(o, ro, &req) ||
	    sched_leaf(o, so, &resp))
		return NULL;
	rc = mlx5dv_modify_qp_sched_elem(qp, req, resp);
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_modify_qp_sched_elem",
				   "Failed to modify QP #%u sched element",
				   qp->qp_num);
	Py_RETURN_NONE;
}

PyObject *pv_mlx5_qp_modify_udp_sport(PyObject *unused, PyObject *args,
				      PyObject *kw)
{
	static char *kwlist[] = { "qp", "udp_sport", NULL };
	struct ibv_qp *qp;
	uint16_t sport;
	int rc;

	qp = qp_value_args(args, kw, "OO&:modify_udp_sport", kwlist,
			   pv_conv_u16, &sport);
	if (!qp)
		return NULL;
	rc = mlx5dv_modify_qp_udp_sport(qp, sport);
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_modify_qp_udp_sport",
				   "Failed to modify UDP source port of QP #%u",
				   qp->qp_num);
	Py_RETURN_NONE;
}

PyObject *pv_mlx5_qp_map_ah_to_qp(PyObject *unused, PyObject *args,
				  PyObject *kw)
{
	static char *kwlist[] = { "ah", "qp_num", NULL };
	PyObject *o;
	uint32_t qpn;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:map_ah_to_qp", kwlist,
					 &o, pv_conv_u32, &qpn))
		return NULL;
	if (!pv_type_ok(o, pv.AH)) {
		pv_mlx5_arg_type_error("ah", "pyverbs.addr.AH", o);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	rc = mlx5dv_map_ah_to_qp(((struct pv_ah *)o)->ah, qpn);
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_map_ah_to_qp",
				   "Failed to map AH to QP #%u", qpn);
	Py_RETURN_NONE;
}

PyObject *pv_mlx5_qp_modify_dci_stream_channel_id(PyObject *unused,
						  PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "qp", "stream_id", NULL };
	struct ibv_qp *qp;
	uint16_t stream;
	int rc;

	qp = qp_value_args(args, kw, "OO&:modify_dci_stream_channel_id", kwlist,
			   pv_conv_u16, &stream);
	if (!qp)
		return NULL;
	rc = mlx5dv_dci_stream_id_reset(qp, stream);
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_dci_stream_id_reset",
				   "Failed to reset stream_id #%u for DCI "
				   "QP#%u",
				   (unsigned int)stream, qp->qp_num);
	Py_RETURN_NONE;
}
