/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * CMID's memory and data path: reg_msgs/reg_read/reg_write (MRs on the id's
 * PD), rdma_post_recv/send/read/write/ud_send on the id's QP, and the
 * completion waits rdma_get_send_comp/rdma_get_recv_comp (GIL released, the
 * CMID busy).  The method table is cmid.c's.
 */
#include "cm.h"
#include "addr.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "mr.h"
#include "object.h"
#include "state.h"

#include <errno.h>

/* ---- memory ---- */

/* reg_msgs/reg_read/reg_write: rdma_reg_*() are ibv_reg_mr() on id->pd
 * with these access flags; the MR (on the id's PD) allocates the memory. */
static PyObject *cmid_reg(PyObject *obj, PyObject *args, PyObject *kw,
			  const char *fmt, unsigned int access)
{
	static char *kwlist[] = { "size", NULL };
	PyObject *size = NULL, *pd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &size))
		return NULL;
	if (!size)
		size = PyLong_FromLong(0);
	else
		Py_INCREF(size);
	if (!size)
		return NULL;
	pd = pv_cmid_pd_obj(obj);
	if (pd) {
		pd = PyObject_CallFunction((PyObject *)pv.MR, "OOI", pd, size,
					   access);
	}
	Py_DECREF(size);
	return pd;
}

PyObject *pv_cmid_reg_msgs(PyObject *obj, PyObject *args, PyObject *kw)
{
	return cmid_reg(obj, args, kw, "O:reg_msgs", IBV_ACCESS_LOCAL_WRITE);
}

PyObject *pv_cmid_reg_read(PyObject *obj, PyObject *args, PyObject *kw)
{
	return cmid_reg(obj, args, kw, "|O:reg_read",
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
}

PyObject *pv_cmid_reg_write(PyObject *obj, PyObject *args, PyObject *kw)
{
	return cmid_reg(obj, args, kw, "|O:reg_write",
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

/* ---- data path ---- */

/*
 * The open MR o and the length to use: len_o (None: the MR's length),
 * within the MR.  NULL on error.
 */
static struct pv_mr *cmid_mr_arg(PyObject *o, PyObject *len_o, size_t *len)
{
	struct pv_mr *mr;

	if (!pv_type_ok(o, pv.MR)) {
		PyErr_Format(PyExc_TypeError, "mr must be an MR, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	mr = (struct pv_mr *)o;
	if (pv_check_open(&mr->obj))
		return NULL;
	if (mr->mem) {
		pv_raise_user("The MR's memory is not CPU memory");
		return NULL;
	}
	if (len_o == Py_None) {
		*len = mr->length;
		return mr;
	}
	if (!pv_conv_size(len_o, len))
		return NULL;
	if (*len > mr->length) {
		pv_raise_user("length %zu exceeds the MR's %zu bytes", *len,
			      mr->length);
		return NULL;
	}
	return mr;
}

PyObject *pv_cmid_post_recv(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "mr", "length", NULL };
	struct pv_cmid *self = CMID(obj);
	PyObject *mro, *lo = Py_None;
	struct pv_mr *mr;
	size_t len;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:post_recv", kwlist,
					 &mro, &lo))
		return NULL;
	if (!(mr = cmid_mr_arg(mro, lo, &len)) || !pv_cmid_qp(self))
		return NULL;
	/* returns 0 or -1 + errno (rdma_seterrno of ibv_post_recv) */
	if (rdma_post_recv(self->id, NULL, mr->buf, len, mr->mr))
		return pv_raise_errno("rdma_post_recv",
				      "Failed to Post Receive");
	Py_RETURN_NONE;
}

PyObject *pv_cmid_post_send(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "mr", "flags", "length", NULL };
	struct pv_cmid *self = CMID(obj);
	PyObject *mro, *lo = Py_None;
	int flags = IBV_SEND_SIGNALED;
	struct pv_mr *mr;
	size_t len;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&O:post_send", kwlist,
					 &mro, pv_conv_int, &flags, &lo))
		return NULL;
	if (!(mr = cmid_mr_arg(mro, lo, &len)) || !pv_cmid_qp(self))
		return NULL;
	if (rdma_post_send(self->id, NULL, mr->buf, len, mr->mr, flags))
		return pv_raise_errno("rdma_post_send", "Failed to Post Send");
	Py_RETURN_NONE;
}

static PyObject *cmid_post_rdma(PyObject *obj, PyObject *args, PyObject *kw,
				int write)
{
	static char *kwlist[] = { "mr",	  "length", "remote_addr",
				  "rkey", "flags",  NULL };
	struct pv_cmid *self = CMID(obj);
	PyObject *mro, *lo;
	uint64_t raddr;
	uint32_t rkey;
	int flags = 0, rc;
	struct pv_mr *mr;
	size_t len;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 write ? "OOO&O&|O&:post_write" :
						 "OOO&O&|O&:post_read",
					 kwlist, &mro, &lo, pv_conv_u64, &raddr,
					 pv_conv_u32, &rkey, pv_conv_int,
					 &flags))
		return NULL;
	if (lo == Py_None)
		return pv_raise_user("length must be given");
	if (!(mr = cmid_mr_arg(mro, lo, &len)) || !pv_cmid_qp(self))
		return NULL;
	if (write)
		rc = rdma_post_write(self->id, NULL, mr->buf, len, mr->mr,
				     flags, raddr, rkey);
	else
		rc = rdma_post_read(self->id, NULL, mr->buf, len, mr->mr, flags,
				    raddr, rkey);
	if (rc)
		return pv_raise_errno(write ? "rdma_post_write" :
					      "rdma_post_read",
				      write ? "Failed to Post Write" :
					      "Failed to Post Read");
	Py_RETURN_NONE;
}

PyObject *pv_cmid_post_read(PyObject *obj, PyObject *args, PyObject *kw)
{
	return cmid_post_rdma(obj, args, kw, 0);
}

PyObject *pv_cmid_post_write(PyObject *obj, PyObject *args, PyObject *kw)
{
	return cmid_post_rdma(obj, args, kw, 1);
}

PyObject *pv_cmid_post_ud_send(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "mr", "ah", "rqpn", "flags", "length", NULL };
	struct pv_cmid *self = CMID(obj);
	PyObject *mro, *aho, *lo = Py_None;
	int flags = IBV_SEND_SIGNALED;
	uint32_t rqpn = 0;
	struct pv_mr *mr;
	size_t len;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O&O&O:post_ud_send",
					 kwlist, &mro, &aho, pv_conv_u32, &rqpn,
					 pv_conv_int, &flags, &lo))
		return NULL;
	if (!pv_type_ok(aho, pv.AH))
		return PyErr_Format(PyExc_TypeError,
				    "ah must be an AH, not "
				    "%.100s",
				    Py_TYPE(aho)->tp_name);
	if (pv_check_open(PV_OBJ(aho)))
		return NULL;
	if (!(mr = cmid_mr_arg(mro, lo, &len)) || !pv_cmid_qp(self))
		return NULL;
	if (rdma_post_ud_send(self->id, NULL, mr->buf, len, mr->mr, flags,
			      ((struct pv_ah *)aho)->ah, rqpn))
		return pv_raise_errno("rdma_post_ud_send",
				      "Failed to Post Send");
	Py_RETURN_NONE;
}

/* get_send_comp / get_recv_comp: wait (GIL released) for a completion. */
static PyObject *cmid_get_comp(PyObject *obj, int send)
{
	struct pv_cmid *self = CMID(obj);
	struct ibv_wc wc;
	int rc;

	if (!pv_cmid_qp(self))
		return NULL;
	if (send ? !self->id->send_cq || !self->id->send_cq_channel :
		   !self->id->recv_cq || !self->id->recv_cq_channel)
		return pv_raise_user("The CMID's QP uses CQs of its own: poll "
				     "them instead");
	pv_busy_enter(&self->obj);
	PV_BLOCKING_BEGIN
	/* the number of completions (1), or -1 + errno */
	rc = send ? rdma_get_send_comp(self->id, &wc) :
		    rdma_get_recv_comp(self->id, &wc);
	PV_BLOCKING_END
	pv_busy_leave(&self->obj);
	if (rc < 0)
		return pv_raise_errno(
			send ? "rdma_get_send_comp" : "rdma_get_recv_comp",
			send ? "Failed to retrieve send completion" :
			       "Failed to retrieve receive completion");
	if (rc == 0)
		Py_RETURN_NONE;
	return pv_wc_new(&wc);
}

PyObject *pv_cmid_get_send_comp(PyObject *obj, PyObject *unused)
{
	return cmid_get_comp(obj, 1);
}

PyObject *pv_cmid_get_recv_comp(PyObject *obj, PyObject *unused)
{
	return cmid_get_comp(obj, 0);
}
