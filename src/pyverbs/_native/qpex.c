/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * QPEx: a QP with the ibv_wr_* send API (wr_start, the builders, the
 * setters, wr_complete); its DataBuffer type is in qp_attr.c.
 * QPEx refuses builders the provider did not set, calls out of
 * wr_start()/wr_complete() order, and AHs closed within a batch.
 */
#include "qp.h" /* first: Python.h defines _GNU_SOURCE */
#include "addr.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "memory.h"
#include "mw.h"
#include "object.h"
#include "qp_attr.h"
#include "state.h"
#include "wr.h"
#include "args.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* QPEx: the ibv_wr_* send API                                        */
/* ------------------------------------------------------------------ */

#define QPX(o) ((struct pv_qp_ex *)(o))

/* A batch is over: forget the AHs it used. */
/* The held list is emptied, keeping its storage for the next batch; the
 * objects are dropped once it is empty (dropping one may run code). */
static void qpx_end_batch(struct pv_qp_ex *self)
{
	PyObject *drop[16];
	Py_ssize_t i, n;

	self->in_wr = 0;
	self->batch_owner = NULL;
	n = self->held ? PyList_GET_SIZE(self->held) : 0;
	if (!n)
		return;
	if (n == 1) { /* the usual batch: one AH */
		drop[0] = PyList_GET_ITEM(self->held, 0);
		Py_SET_SIZE(self->held, 0);
		Py_DECREF(drop[0]);
		return;
	}
	if (n > 16) {
		Py_CLEAR(self->held);
		return;
	}
	for (i = 0; i < n; i++)
		drop[i] = PyList_GET_ITEM(self->held, i);
	Py_SET_SIZE(self->held, 0);
	for (i = 0; i < n; i++)
		Py_DECREF(drop[i]);
}

/* ibv_wr_start() takes a lock in some providers (rxe): a batch left open
 * is aborted before the QP is destroyed. */
static int qpx_destroy(struct pv_obj *o)
{
	struct pv_qp_ex *self = QPX(o);

	if (self->in_wr && self->qpx)
		ibv_wr_abort(self->qpx);
	qpx_end_batch(self);
	Py_CLEAR(self->held);
	if (pv_qp_destroy(o))
		return -1;
	self->qpx = NULL;
	return 0;
}

static int qpx_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "creator", "init_attr", "qp_attr", NULL };
	PyObject *creator, *init_attr, *qp_attr = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:QPEx", kwlist,
					 &creator, &init_attr, &qp_attr))
		return -1;
	return pv_qpx_create(obj, creator, init_attr, qp_attr, NULL);
}

int pv_qpx_create(PyObject *obj, PyObject *creator, PyObject *init_attr,
		  PyObject *qp_attr, const struct pv_qp_create_hook *hook)
{
	struct pv_qp_ex *self = QPX(obj);

	if (pv_qp_create(obj, creator, init_attr, qp_attr, hook))
		return -1;
	self->qp.obj.destroy = qpx_destroy;
	self->qpx = NULL;
	qpx_end_batch(self);
	if (pv_type_ok(init_attr, pv.QPInitAttrEx) &&
	    (((struct pv_qp_init_attr_ex *)init_attr)->attr.comp_mask &
	     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		self->qpx = ibv_qp_to_qp_ex(self->qp.qp);
		if (!self->qpx) {
			PyObject *et, *ev, *tb;

			pv_raise_errno("ibv_qp_to_qp_ex",
				       "Failed to create extended QP");
			PyErr_Fetch(&et, &ev, &tb);
			if (pv_close_own(&self->qp.obj))
				PyErr_WriteUnraisable(obj);
			PyErr_Restore(et, ev, tb);
			return -1;
		}
	}
	return 0;
}

/* The ibv_qp_ex of an open QPEx created with send ops flags, or NULL. */
static struct ibv_qp_ex *qpx_get_slow(PyObject *obj)
{
	struct pv_qp_ex *self = QPX(obj);

	if (pv_check_open(&self->qp.obj))
		return NULL;
	if (!self->qpx) {
		pv_raise_user("This QPEx was created without "
			      "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: the ibv_wr_* "
			      "API is not available");
		return NULL;
	}
	return self->qpx;
}

int pv_qpx_batch_refused(const struct pv_qp_ex *q)
{
	if (!q->in_wr)
		pv_raise_user("Call wr_start() before building a work request");
	else
		pv_raise_user("Another thread's wr_start() batch is open on "
			      "this QP: only that thread may build, complete "
			      "or abort it");
	return -1;
}

/* As qpx_get(), inside a wr_start() .. wr_complete() batch of this
 * thread. */
static struct ibv_qp_ex *qpx_batch_slow(PyObject *obj)
{
	struct ibv_qp_ex *qpx = qpx_get_slow(obj);

	if (qpx && !pv_qpx_my_batch(QPX(obj))) {
		pv_qpx_batch_refused(QPX(obj));
		return NULL;
	}
	return qpx;
}

/* The two inline: an open QPEx with the API (in a batch) is the data
 * path's case; the _slow versions find what is wrong and say it. */
static inline struct ibv_qp_ex *qpx_get(PyObject *obj)
{
	struct pv_qp_ex *self = QPX(obj);

	if (!self->qp.obj.closed && self->qpx)
		return self->qpx;
	return qpx_get_slow(obj);
}

static inline struct ibv_qp_ex *qpx_batch(PyObject *obj)
{
	struct pv_qp_ex *self = QPX(obj);

	if (!self->qp.obj.closed && self->qpx && pv_qpx_my_batch(self))
		return self->qpx;
	return qpx_batch_slow(obj);
}

/*
 * A provider sets only the builders of the operations the QP was created
 * for (send_ops_flags); calling a missing one would jump to NULL.
 */
static int qpx_has(const void *fn, const char *name)
{
	if (fn)
		return 1;
	pv_raise_user("%s() is not available on this QP (not in its "
		      "send_ops_flags, or not supported by the provider)",
		      name);
	return 0;
}

#define QPX_CALL(obj, fn, ...)                                      \
	do {                                                        \
		struct ibv_qp_ex *qpx_ = qpx_batch(obj);            \
		if (!qpx_ || !qpx_has((const void *)qpx_->fn, #fn)) \
			return NULL;                                \
		qpx_->fn(qpx_, ##__VA_ARGS__);                      \
	} while (0)

static PyObject *qpx_wr_start(PyObject *obj, PyObject *unused)
{
	struct ibv_qp_ex *qpx = qpx_get(obj);

	if (!qpx)
		return NULL;
	if (QPX(obj)->in_wr) { /* a second ibv_wr_start() can deadlock */
		if (!pv_qpx_my_batch(QPX(obj)))
			return (pv_qpx_batch_refused(QPX(obj)), NULL);
		return pv_raise_user("wr_start() was already called: finish "
				     "with wr_complete() or wr_abort() first");
	}
	ibv_wr_start(qpx);
	QPX(obj)->in_wr = 1;
	QPX(obj)->batch_owner = PyThreadState_Get();
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_complete(PyObject *obj, PyObject *unused)
{
	struct pv_qp_ex *self = QPX(obj);
	struct ibv_qp_ex *qpx = qpx_batch(obj);
	Py_ssize_t i;
	int rc;

	if (!qpx)
		return NULL;
	for (i = 0; self->held && i < PyList_GET_SIZE(self->held); i++) {
		PyObject *o = PyList_GET_ITEM(self->held, i);

		if (!PV_OBJ(o)->closed)
			continue;
		ibv_wr_abort(qpx);
		qpx_end_batch(self);
		return pv_raise_user("The %s given to %s() was closed: the "
				     "batch is aborted",
				     pv_type_ok(o, pv.AH) ? "AH" :
				     pv_type_ok(o, pv.MW) ? "MW" :
							    "MR",
				     pv_type_ok(o, pv.AH) ? "wr_set_ud_addr" :
							    "wr_bind_mw");
	}
	rc = ibv_wr_complete(qpx); /* returns errno */
	qpx_end_batch(self);
	if (rc)
		return pv_raise_rc(rc, "ibv_wr_complete",
				   "ibv_wr_complete failed.");
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_abort(PyObject *obj, PyObject *unused)
{
	struct ibv_qp_ex *qpx = qpx_batch(obj);

	if (!qpx)
		return NULL;
	ibv_wr_abort(qpx);
	qpx_end_batch(QPX(obj));
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_send(PyObject *obj, PyObject *unused)
{
	QPX_CALL(obj, wr_send);
	Py_RETURN_NONE;
}

int pv_u32_arg(PyObject *args, PyObject *kw, const char *fname,
	       const char *kwname, uint32_t *out)
{
	char *kwlist[] = { (char *)kwname, NULL };
	char fmt[48];

	snprintf(fmt, sizeof(fmt), "O&:%s", fname);
	return PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv_conv_u32,
					   out) ?
		       0 :
		       -1;
}

/*
 * The builders on the data path take METH_FASTCALL arguments, parsed by
 * wr.c's signature parser (positional or by keyword, as upstream's), and
 * convert small ints without a detour (pv_args_u64).
 */
PV_ARGS_SIG(qpx_imm_sig, "wr_send_imm", 1, 1, "data");
PV_ARGS_SIG(qpx_send_inv_sig, "wr_send_inv", 1, 1, "invalidate_rkey");
PV_ARGS_SIG(qpx_local_inv_sig, "wr_local_inv", 1, 1, "invalidate_rkey");
PV_ARGS_SIG(qpx_read_sig, "wr_rdma_read", 2, 2, "rkey", "remote_addr");
PV_ARGS_SIG(qpx_write_sig, "wr_rdma_write", 2, 2, "rkey", "remote_addr");
PV_ARGS_SIG(qpx_write_imm_sig, "wr_rdma_write_imm", 3, 3, "rkey", "remote_addr",
	    "data");
PV_ARGS_SIG(qpx_cmp_swp_sig, "wr_atomic_cmp_swp", 4, 4, "rkey", "remote_addr",
	    "compare", "swap");
PV_ARGS_SIG(qpx_fetch_add_sig, "wr_atomic_fetch_add", 3, 3, "rkey",
	    "remote_addr", "add");
PV_ARGS_SIG(qpx_ud_sig, "wr_set_ud_addr", 3, 3, "ah", "remote_qpn",
	    "remote_rkey");
PV_ARGS_SIG(qpx_srqn_sig, "wr_set_xrc_srqn", 1, 1, "remote_srqn");

static struct pv_args_sig *const qpx_sigs[] = { &qpx_imm_sig,
						&qpx_send_inv_sig,
						&qpx_local_inv_sig,
						&qpx_read_sig,
						&qpx_write_sig,
						&qpx_write_imm_sig,
						&qpx_cmp_swp_sig,
						&qpx_fetch_add_sig,
						&qpx_ud_sig,
						&qpx_srqn_sig,
						NULL };

/*
 * Parse the arguments of builder sig (all required) into u[], each an
 * unsigned int of at most max[i] (NULL max: 32 bits each; an entry of 0:
 * the argument is an object, left in o[i]).  Returns 0 or -1.
 */
static int qpx_args_any(const struct pv_args_sig *sig, const uint64_t *max,
			PyObject *const *args, Py_ssize_t nargs,
			PyObject *kwnames, uint64_t *u, PyObject **o)
{
	PyObject *v[4];
	int i;

	if (pv_args_parse_vc(sig, args, nargs, kwnames, v))
		return -1;
	for (i = 0; i < sig->nparams; i++) {
		uint64_t m = max ? max[i] : UINT32_MAX;

		if (!m)
			o[i] = v[i];
		else if (pv_args_u64(v[i], m, &u[i], sig->names[i]))
			return -1;
	}
	return 0;
}

/* The same, inline, with n (a constant at each call) the number of
 * parameters: the usual call, every argument by position and each a small
 * int in range, takes no more than reading them; any other goes through
 * qpx_args_any(), which checks it all over and gives the messages. */
static inline int qpx_args(const struct pv_args_sig *sig, int n,
			   const uint64_t *max, PyObject *const *args,
			   Py_ssize_t nargs, PyObject *kwnames, uint64_t *u,
			   PyObject **o)
{
	int i;

	if (!kwnames && nargs == n && n == sig->nparams && n <= sig->npos) {
		for (i = 0; i < n; i++) {
			uint64_t m = max ? max[i] : UINT32_MAX;

			if (!m)
				o[i] = args[i];
			else if (!pv_long_small(args[i], &u[i]) || u[i] > m)
				break;
		}
		if (i == n)
			return 0;
	}
	return qpx_args_any(sig, max, args, nargs, kwnames, u, o);
}

#define QPX_ARGS(sig, max, u)                                               \
	do {                                                                \
		if (qpx_args(&(sig), sizeof(u) / sizeof((u)[0]), max, args, \
			     nargs, kwnames, u, NULL))                      \
			return NULL;                                        \
	} while (0)
#define QPX_FC_PARAMS                                           \
	PyObject *obj, PyObject *const *args, Py_ssize_t nargs, \
		PyObject *kwnames

static const uint64_t qpx_rkey_addr[] = { UINT32_MAX, UINT64_MAX, UINT32_MAX,
					  UINT64_MAX };

static PyObject *qpx_wr_send_imm(QPX_FC_PARAMS)
{
	uint64_t u[1];

	QPX_ARGS(qpx_imm_sig, NULL, u);
	QPX_CALL(obj, wr_send_imm, htobe32((uint32_t)u[0]));
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_send_inv(QPX_FC_PARAMS)
{
	uint64_t u[1];

	QPX_ARGS(qpx_send_inv_sig, NULL, u);
	QPX_CALL(obj, wr_send_inv, (uint32_t)u[0]);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_local_inv(QPX_FC_PARAMS)
{
	uint64_t u[1];

	QPX_ARGS(qpx_local_inv_sig, NULL, u);
	QPX_CALL(obj, wr_local_inv, (uint32_t)u[0]);
	Py_RETURN_NONE;
}

/* Copy len bytes at a Python-given address into a new PyMem block (the
 * provider copies inline data and TSO headers in user space). */
static void *qpx_copy_in(uint64_t addr, size_t len)
{
	void *buf = PyMem_Malloc(len ? len : 1);

	if (!buf) {
		PyErr_NoMemory();
		return NULL;
	}
	if (pv_read_mem(buf, addr, len)) {
		PyMem_Free(buf);
		return NULL;
	}
	return buf;
}

static PyObject *qpx_wr_send_tso(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "hdr", "hdr_sz", "mss", NULL };
	uint64_t hdr;
	uint16_t hdr_sz, mss;
	struct ibv_qp_ex *qpx;
	void *buf;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&:wr_send_tso", kwlist,
					 pv_conv_u64, &hdr, pv_conv_u16,
					 &hdr_sz, pv_conv_u16, &mss))
		return NULL;
	qpx = qpx_batch(obj);
	if (!qpx || !qpx_has((const void *)qpx->wr_send_tso, "wr_send_tso"))
		return NULL;
	buf = qpx_copy_in(hdr, hdr_sz);
	if (!buf)
		return NULL;
	ibv_wr_send_tso(qpx, buf, hdr_sz, mss);
	PyMem_Free(buf);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_rdma_read(QPX_FC_PARAMS)
{
	uint64_t u[2];

	QPX_ARGS(qpx_read_sig, qpx_rkey_addr, u);
	QPX_CALL(obj, wr_rdma_read, (uint32_t)u[0], u[1]);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_rdma_write(QPX_FC_PARAMS)
{
	uint64_t u[2];

	QPX_ARGS(qpx_write_sig, qpx_rkey_addr, u);
	QPX_CALL(obj, wr_rdma_write, (uint32_t)u[0], u[1]);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_rdma_write_imm(QPX_FC_PARAMS)
{
	static const uint64_t max[] = { UINT32_MAX, UINT64_MAX, UINT32_MAX };
	uint64_t u[3];

	QPX_ARGS(qpx_write_imm_sig, max, u);
	QPX_CALL(obj, wr_rdma_write_imm, (uint32_t)u[0], u[1],
		 htobe32((uint32_t)u[2]));
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_atomic_cmp_swp(QPX_FC_PARAMS)
{
	static const uint64_t max[] = { UINT32_MAX, UINT64_MAX, UINT64_MAX,
					UINT64_MAX };
	uint64_t u[4];

	QPX_ARGS(qpx_cmp_swp_sig, max, u);
	QPX_CALL(obj, wr_atomic_cmp_swp, (uint32_t)u[0], u[1], u[2], u[3]);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_atomic_fetch_add(QPX_FC_PARAMS)
{
	static const uint64_t max[] = { UINT32_MAX, UINT64_MAX, UINT64_MAX };
	uint64_t u[3];

	QPX_ARGS(qpx_fetch_add_sig, max, u);
	QPX_CALL(obj, wr_atomic_fetch_add, (uint32_t)u[0], u[1], u[2]);
	Py_RETURN_NONE;
}

/* atomic_wr: 8 bytes (bytes-like) written at remote_addr atomically. */
static PyObject *qpx_wr_atomic_write(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "rkey", "remote_addr", "atomic_wr", NULL };
	uint32_t rkey;
	uint64_t addr;
	Py_buffer data;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&y*:wr_atomic_write",
					 kwlist, pv_conv_u32, &rkey,
					 pv_conv_u64, &addr, &data))
		return NULL;
	if (data.len < 8) {
		PyBuffer_Release(&data);
		PyErr_SetString(PyExc_ValueError,
				"atomic_wr must hold at least 8 bytes");
		return NULL;
	}
#if HAVE_IBV_WR_ATOMIC_WRITE
	{
		struct ibv_qp_ex *qpx = qpx_batch(obj);

		if (!qpx || !qpx_has((const void *)qpx->wr_atomic_write,
				     "wr_atomic_write")) {
			PyBuffer_Release(&data);
			return NULL;
		}
		ibv_wr_atomic_write(qpx, rkey, addr, data.buf);
	}
	PyBuffer_Release(&data);
	Py_RETURN_NONE;
#else
	PyBuffer_Release(&data);
	return pv_raise_unsupported("wr_atomic_write (ibv_wr_atomic_write)");
#endif
}

static PyObject *qpx_wr_flush(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "rkey",  "remote_addr", "length",
				  "ptype", "level",	  NULL };
	uint32_t rkey, len;
	uint64_t addr;
	uint8_t ptype, level;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&:wr_flush",
					 kwlist, pv_conv_u32, &rkey,
					 pv_conv_u64, &addr, pv_conv_u32, &len,
					 pv_conv_u8, &ptype, pv_conv_u8,
					 &level))
		return NULL;
#if HAVE_IBV_WR_FLUSH
	QPX_CALL(obj, wr_flush, rkey, addr, len, ptype, level);
	Py_RETURN_NONE;
#else
	return pv_raise_needs("ibv_wr_flush", 45);
#endif
}

/* Keep o alive, and checked open at wr_complete(), for this batch. */
static int qpx_hold(struct pv_qp_ex *self, PyObject *o)
{
	Py_ssize_t n;

	if (!self->held && !(self->held = PyList_New(0)))
		return -1;
	/* a batch often addresses every WR with one AH: hold it once */
	n = PyList_GET_SIZE(self->held);
	if (n && PyList_GET_ITEM(self->held, n - 1) == o)
		return 0;
	/* The list is this object's own (no Python code sees it) and keeps
	 * its storage from batch to batch: store in place while it has
	 * room. */
	if (((PyListObject *)self->held)->allocated > n) {
		PyList_SET_ITEM(self->held, n, Py_NewRef(o));
		Py_SET_SIZE(self->held, n + 1);
		return 0;
	}
	return PyList_Append(self->held, o);
}

/* o if it is a tp (named 'an_tp' in messages), open and of the QP's
 * Context; else NULL with an exception set. */
static struct pv_obj *qpx_same_ctx(struct pv_qp_ex *self, PyObject *o,
				   PyTypeObject *tp, const char *what,
				   const char *an_tp)
{
	if (!pv_type_ok(o, tp)) {
		PyErr_Format(PyExc_TypeError, "%s must be %s, not %.100s", what,
			     an_tp, Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	if (!pv_obj_descends_from(PV_OBJ(o), pv_obj_root(&self->qp.obj))) {
		pv_raise_user("The %s belongs to another Context than the QP",
			      what);
		return NULL;
	}
	return PV_OBJ(o);
}

/*
 * ibv_wr_bind_mw(): bind a type 2 memory window to (part of) an MR and
 * give it the new rkey.  The MW and the MR are held until the batch ends
 * and checked still open before ibv_wr_complete().  From now on the MW is
 * closed with the QP (pv_mw_bound_via()).
 */
static PyObject *qpx_wr_bind_mw(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "mw", "rkey", "bind_info", NULL };
	struct pv_qp_ex *self = QPX(obj);
	struct ibv_mw_bind_info info;
	PyObject *mwo, *infoo, *old = NULL;
	struct pv_obj *mw;
	uint32_t rkey;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O:wr_bind_mw", kwlist,
					 &mwo, pv_conv_u32, &rkey, &infoo))
		return NULL;
	if (!qpx_batch(obj) ||
	    !(mw = qpx_same_ctx(self, mwo, pv.MW, "mw", "an MW")) ||
	    pv_mw_bind_info_get(infoo, &info) ||
	    !qpx_same_ctx(self, ((struct pv_mw_bind_info *)infoo)->mr, pv.MR,
			  "bind_info's MR", "an MR"))
		return NULL;
	if (qpx_hold(self, mwo) ||
	    qpx_hold(self, ((struct pv_mw_bind_info *)infoo)->mr))
		return NULL;
	QPX_CALL(obj, wr_bind_mw, ((struct pv_mw *)mw)->mw, rkey, &info);
	pv_mw_bound_via(mwo, PV_OBJ(obj), &old);
	Py_XDECREF(old); /* last: it may free the other QP */
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_set_ud_addr(QPX_FC_PARAMS)
{
	static const uint64_t max[] = { 0, UINT32_MAX, UINT32_MAX };
	struct pv_qp_ex *self = QPX(obj);
	PyObject *o[3];
	uint64_t u[3];
	struct pv_ah *ah;

	if (qpx_args(&qpx_ud_sig, 3, max, args, nargs, kwnames, u, o))
		return NULL;
	if (!pv_type_ok(o[0], pv.AH)) {
		PyErr_Format(PyExc_TypeError, "ah must be an AH, not %.100s",
			     Py_TYPE(o[0])->tp_name);
		return NULL;
	}
	ah = (struct pv_ah *)o[0];
	/* held first: making the list may run the collector, whose
	 * finalizers may close the AH (QPX_CALL checks the QP again) */
	if (!qpx_batch(obj) || qpx_hold(self, o[0]) || pv_check_open(&ah->obj))
		return NULL;
	QPX_CALL(obj, wr_set_ud_addr, ah->ah, (uint32_t)u[1], (uint32_t)u[2]);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_set_xrc_srqn(QPX_FC_PARAMS)
{
	uint64_t u[1];

	QPX_ARGS(qpx_srqn_sig, NULL, u);
	QPX_CALL(obj, wr_set_xrc_srqn, (uint32_t)u[0]);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_set_inline_data(PyObject *obj, PyObject *args,
					PyObject *kw)
{
	static char *kwlist[] = { "addr", "length", NULL };
	struct ibv_qp_ex *qpx;
	uint64_t addr;
	size_t len;
	void *buf;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:wr_set_inline_data",
					 kwlist, pv_conv_u64, &addr,
					 pv_conv_size, &len))
		return NULL;
	qpx = qpx_batch(obj);
	if (!qpx || !qpx_has((const void *)qpx->wr_set_inline_data,
			     "wr_set_inline_data"))
		return NULL;
	buf = qpx_copy_in(addr, len);
	if (!buf)
		return NULL;
	ibv_wr_set_inline_data(qpx, buf, len);
	PyMem_Free(buf);
	Py_RETURN_NONE;
}

/* The first n items of a list/tuple of type tp, as a borrowed array. */
static PyObject *const *qpx_items(PyObject *list, Py_ssize_t n,
				  PyTypeObject *tp, const char *what)
{
	PyObject *const *items;
	Py_ssize_t i;

	if (!PyList_Check(list) && !PyTuple_Check(list)) {
		PyErr_Format(PyExc_TypeError, "%s must be a list, not %.100s",
			     what, Py_TYPE(list)->tp_name);
		return NULL;
	}
	if (n > PySequence_Fast_GET_SIZE(list)) {
		PyErr_Format(PyExc_ValueError, "%s has fewer than %zd items",
			     what, n);
		return NULL;
	}
	items = PySequence_Fast_ITEMS(list);
	for (i = 0; i < n; i++)
		if (!pv_type_ok(items[i], tp)) {
			PyErr_Format(PyExc_TypeError,
				     "%s[%zd] must be a %s, "
				     "not %.100s",
				     what, i, tp ? tp->tp_name : "?",
				     Py_TYPE(items[i])->tp_name);
			return NULL;
		}
	return items;
}

static PyObject *qpx_wr_set_inline_data_list(PyObject *obj, PyObject *args,
					     PyObject *kw)
{
	static char *kwlist[] = { "num_buf", "buf_list", NULL };
	struct ibv_data_buf *bufs = NULL;
	PyObject *const *items;
	struct ibv_qp_ex *qpx;
	PyObject *list, *res = NULL;
	size_t total = 0, off = 0, i;
	char *data = NULL;
	uint32_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O&O:wr_set_inline_data_list", kwlist,
					 pv_conv_u32, &n, &list))
		return NULL;
	qpx = qpx_batch(obj);
	if (!qpx || !qpx_has((const void *)qpx->wr_set_inline_data_list,
			     "wr_set_inline_data_list"))
		return NULL;
	items = qpx_items(list, n, pv.DataBuffer, "buf_list");
	if (!items)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t l = ((struct pv_data_buf *)items[i])->data.length;

		if (total + l < total)
			return PyErr_NoMemory();
		total += l;
	}
	bufs = PyMem_Calloc(n ? n : 1, sizeof(*bufs));
	data = PyMem_Malloc(total ? total : 1);
	if (!bufs || !data) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct ibv_data_buf *d =
			&((struct pv_data_buf *)items[i])->data;

		if (pv_read_mem(data + off, (uintptr_t)d->addr, d->length))
			goto out;
		bufs[i].addr = data + off;
		bufs[i].length = d->length;
		off += d->length;
	}
	ibv_wr_set_inline_data_list(qpx, n, bufs);
	res = Py_NewRef(Py_None);
out:
	PyMem_Free(bufs);
	PyMem_Free(data);
	return res;
}

static PyObject *qpx_wr_set_sge(PyObject *obj, PyObject *arg)
{
	struct ibv_sge *s;

	if (!pv_type_ok(arg, pv.SGE)) {
		PyErr_Format(PyExc_TypeError, "expected an SGE, not %.100s",
			     Py_TYPE(arg)->tp_name);
		return NULL;
	}
	s = &((struct pv_sge *)arg)->sge;
	QPX_CALL(obj, wr_set_sge, s->lkey, s->addr, s->length);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_set_sge_list(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "num_sge", "sg_list", NULL };
	struct ibv_sge stack[16], *sg = stack;
	PyObject *const *items;
	struct ibv_qp_ex *qpx;
	PyObject *list;
	uint32_t n, i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O:wr_set_sge_list",
					 kwlist, pv_conv_u32, &n, &list))
		return NULL;
	qpx = qpx_batch(obj);
	if (!qpx ||
	    !qpx_has((const void *)qpx->wr_set_sge_list, "wr_set_sge_list"))
		return NULL;
	items = qpx_items(list, n, pv.SGE, "sg_list");
	if (!items)
		return NULL;
	if (n > 16 && !(sg = PyMem_Malloc(n * sizeof(*sg))))
		return PyErr_NoMemory();
	for (i = 0; i < n; i++)
		sg[i] = ((struct pv_sge *)items[i])->sge;
	ibv_wr_set_sge_list(qpx, n, sg);
	if (sg != stack)
		PyMem_Free(sg);
	Py_RETURN_NONE;
}

/* closure: 0 wr_id, 1 wr_flags, 2 comp_mask */
static PyObject *qpx_get_field(PyObject *obj, void *c)
{
	struct ibv_qp_ex *qpx = qpx_get(obj);

	if (!qpx)
		return NULL;
	switch ((intptr_t)c) {
	case 0:
		return PyLong_FromUnsignedLongLong(qpx->wr_id);
	case 1:
		return PyLong_FromUnsignedLong(qpx->wr_flags);
	default:
		return PyLong_FromUnsignedLongLong(qpx->comp_mask);
	}
}

static int qpx_set_field_any(PyObject *obj, PyObject *v, void *c)
{
	static const char *const names[] = { "wr_id", "wr_flags", "comp_mask" };
	struct ibv_qp_ex *qpx;
	uint64_t x;

	if (pv_refuse_delete(v, names[(intptr_t)c]))
		return -1;
	if (pv_args_u64(v, (intptr_t)c == 1 ? UINT32_MAX : UINT64_MAX, &x,
			names[(intptr_t)c]))
		return -1;
	qpx = qpx_get(obj);
	if (!qpx)
		return -1;
	switch ((intptr_t)c) {
	case 0:
		qpx->wr_id = x;
		break;
	case 1:
		qpx->wr_flags = (unsigned int)x;
		break;
	default:
		qpx->comp_mask = x;
	}
	return 0;
}

/* A small int stored into an open QPEx with the API, the data path's
 * case, is stored here; anything else goes through qpx_set_field_any(),
 * which checks and converts in order and gives the messages. */
static int qpx_set_field(PyObject *obj, PyObject *v, void *c)
{
	struct pv_qp_ex *self = QPX(obj);
	uint64_t x;

	if (v && pv_long_small(v, &x) && !self->qp.obj.closed && self->qpx) {
		switch ((intptr_t)c) {
		case 0:
			self->qpx->wr_id = x;
			return 0;
		case 1:
			if (x > UINT32_MAX)
				break;
			self->qpx->wr_flags = (unsigned int)x;
			return 0;
		}
	}
	return qpx_set_field_any(obj, v, c);
}

/* The RwqIndTable of an RSS QP (a parent), else or once closed None. */
static PyObject *qpx_get_ind_table(PyObject *obj, void *c)
{
	struct pv_qp *qp = (struct pv_qp *)obj;

	return pv_get_slot(qp->obj.closed || !qp->ind_table ?
				   NULL :
				   (PyObject *)qp->ind_table);
}

static int qpx_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(QPX(obj)->held);
	return pv_qp_traverse(obj, visit, arg);
}

static int qpx_clear(PyObject *obj)
{
	pv_qp_clear(obj); /* closes first: aborts an open batch */
	Py_CLEAR(QPX(obj)->held);
	return 0;
}

#define QPX_M(name, flags, sig, doc)                             \
	{ #name, (PyCFunction)(void (*)(void))qpx_##name, flags, \
	  #name "($self" sig ")\n--\n\n" doc }
#define QPX_KW (METH_VARARGS | METH_KEYWORDS)
#define QPX_FC (METH_FASTCALL | METH_KEYWORDS)

static PyMethodDef qpx_methods[] = {
	QPX_M(wr_start, METH_NOARGS, ", /",
	      "Start a batch of work requests (ibv_wr_start)."),
	QPX_M(wr_complete, METH_NOARGS, ", /",
	      "Post the batch (ibv_wr_complete)."),
	QPX_M(wr_abort, METH_NOARGS, ", /", "Drop the batch (ibv_wr_abort)."),
	QPX_M(wr_send, METH_NOARGS, ", /", "A SEND."),
	QPX_M(wr_send_imm, QPX_FC, ", data", "A SEND with immediate data."),
	QPX_M(wr_send_inv, QPX_FC, ", invalidate_rkey",
	      "A SEND with invalidate."),
	QPX_M(wr_send_tso, QPX_KW, ", hdr, hdr_sz, mss",
	      "A TSO send; hdr is the address of the header."),
	QPX_M(wr_rdma_read, QPX_FC, ", rkey, remote_addr", "An RDMA READ."),
	QPX_M(wr_rdma_write, QPX_FC, ", rkey, remote_addr", "An RDMA WRITE."),
	QPX_M(wr_rdma_write_imm, QPX_FC, ", rkey, remote_addr, data",
	      "An RDMA WRITE with immediate data."),
	QPX_M(wr_atomic_cmp_swp, QPX_FC, ", rkey, remote_addr, compare, swap",
	      "An atomic compare and swap."),
	QPX_M(wr_atomic_fetch_add, QPX_FC, ", rkey, remote_addr, add",
	      "An atomic fetch and add."),
	QPX_M(wr_atomic_write, QPX_KW, ", rkey, remote_addr, atomic_wr",
	      "An atomic write of the 8 bytes of atomic_wr."),
	QPX_M(wr_flush, QPX_KW, ", rkey, remote_addr, length, ptype, level",
	      "A FLUSH (rdma-core 45 and later)."),
	QPX_M(wr_bind_mw, QPX_KW, ", mw, rkey, bind_info",
	      "Bind a type 2 memory window (ibv_wr_bind_mw) to bind_info's "
	      "MR range, giving it the new rkey (see pyverbs.base.inc_rkey)."),
	QPX_M(wr_local_inv, QPX_FC, ", invalidate_rkey", "A local invalidate."),
	QPX_M(wr_set_ud_addr, QPX_FC, ", ah, remote_qpn, remote_rkey",
	      "Address the WR (UD); the AH must stay open until "
	      "wr_complete()."),
	QPX_M(wr_set_xrc_srqn, QPX_FC, ", remote_srqn",
	      "The remote SRQ of an XRC WR."),
	QPX_M(wr_set_inline_data, QPX_KW, ", addr, length",
	      "Inline data, copied from addr now."),
	QPX_M(wr_set_inline_data_list, QPX_KW, ", num_buf, buf_list",
	      "Inline data from num_buf DataBuffers, copied now."),
	QPX_M(wr_set_sge, METH_O, ", sge, /", "The WR's single SGE."),
	QPX_M(wr_set_sge_list, QPX_KW, ", num_sge, sg_list", "The WR's SGEs."),
	{ NULL }
};

static PyGetSetDef qpx_getset[] = {
	{ "wr_id", qpx_get_field, qpx_set_field,
	  "The wr_id of the next work requests built.", (void *)0 },
	{ "wr_flags", qpx_get_field, qpx_set_field,
	  "The send flags (IBV_SEND_*) of the next work requests built.",
	  (void *)1 },
	{ "comp_mask", qpx_get_field, qpx_set_field,
	  "The comp_mask of the ibv_qp_ex.", (void *)2 },
	{ "ind_table", qpx_get_ind_table, NULL,
	  "The RWQ indirection table of an RSS QP (None otherwise).", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(qpx, "pyverbs.qp.QPEx", struct pv_qp_ex,
		"QPEx(creator, init_attr, qp_attr=None)\n--\n\n"
		"A QP with the ibv_wr_* send API (wr_start(), wr_send(), "
		"wr_set_sge(), ..., wr_complete()); init_attr.comp_mask "
		"must include IBV_QP_INIT_ATTR_SEND_OPS_FLAGS for it.",
		{ Py_tp_init, qpx_init }, { Py_tp_methods, qpx_methods },
		{ Py_tp_getset, qpx_getset }, { Py_tp_traverse, qpx_traverse },
		{ Py_tp_clear, qpx_clear }, );

/* ------------------------------------------------------------------ */
/* Registration                                                        */
/* ------------------------------------------------------------------ */

int pv_qpex_init_types(PyObject *m)
{
	struct pv_args_sig *const *sig;

	for (sig = qpx_sigs; *sig; sig++)
		if (pv_args_intern(*sig))
			return -1;
	return pv_add_type(m, &qpx_spec, pv.QP, &pv.QPEx);
}
