/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Mlx5QP (pyverbs.providers.mlx5.mlx5dv): a QPEx created by
 * mlx5dv_create_qp(), with the mlx5 work-request builders and setters
 * (the static inline mlx5dv_wr_* of mlx5dv.h, which only call the function
 * pointers of struct mlx5dv_qp_ex); upstream's static helpers (LAG port,
 * UDP source port, scheduling elements, DCI streams, AH mapping) are in
 * qp_static.c.
 *
 * The QPEx base (qpex.c) adopts the QP through its creation hook: the
 * checks of the init attributes, the parent links and the ibv_wr_* API
 * are the core's.  The struct mlx5dv_qp_ex is taken once, and only from a
 * QP that has an ibv_qp_ex (IBV_QP_INIT_ATTR_SEND_OPS_FLAGS).
 *
 * libmlx5 installs only the pointers the QP asked for (per QP type and
 * send-ops flags) and checks nothing it is given: every builder here
 * checks that the QP is open, inside wr_start(), that the pointer is set,
 * that the AH and mkey are open and of the QP's Context, list items and
 * counts; lists are copied into a temporary for the call.  The AHs and
 * mkeys a batch used are held until it ends, and a batch in which one was
 * closed is aborted instead of going on (libmlx5 keeps the mkey of
 * wr_mkey_configure() for the setters after it).
 */
#include "mlx5.h"
#include "addr.h"
#include "errors.h"
#include "field.h"
#include "memory.h"
#include "object.h"
#include "qp.h"
#include "state.h"
#include "wr.h"

#include <endian.h>
#include <errno.h>

#define MLX5DV_MOD "pyverbs.providers.mlx5.mlx5dv."

struct mlx5_qp {
	struct pv_qp_ex qpx;
	struct mlx5dv_qp_ex *dv;    /* NULL without an ibv_qp_ex */
	uint32_t dc_type;	    /* of the DC init attributes, 0 if none */
	int masks[3];		    /* the DC transition masks (qp.masks) */
	pv_destroy_fn base_destroy; /* QPEx's */
	PyObject *pinned;	    /* list: AHs and mkeys of the open batch */
};

#define MQP(o) ((struct mlx5_qp *)(o))

/* QPEx's wr_start, wr_complete and wr_abort (method descriptors) */
static PyObject *base_wr[3];
enum { WR_START, WR_COMPLETE, WR_ABORT };

/* ------------------------------------------------------------------ */
/* Creation                                                            */
/* ------------------------------------------------------------------ */

struct mqp_create_arg {
	PyObject *init_attr;
	PyObject *dv; /* Mlx5DVQPInitAttr or None */
};

/* The creation hook: mlx5dv_create_qp() returns NULL and sets errno. */
static struct ibv_qp *mqp_create(PyObject *self, struct ibv_context *ctx,
				 struct ibv_qp_init_attr_ex *attr, void *arg)
{
	struct mqp_create_arg *a = arg;
	struct mlx5dv_qp_init_attr *dv =
		a->dv == Py_None ?
			NULL :
			&((struct pv_mlx5_dv_qp_init_attr *)a->dv)->attr;
	struct ibv_qp *qp = mlx5dv_create_qp(ctx, attr, dv);
	PyObject *s1, *s2;
	int err;

	if (qp)
		return qp;
	err = errno ? errno : EINVAL;
	s1 = PyObject_Str(a->init_attr);
	s2 = s1 ? PyObject_Str(a->dv) : NULL;
	if (s2)
		pv_raise_code(err, "mlx5dv_create_qp",
			      "Failed to create MLX5 "
			      "QP.\nQPInitAttrEx attributes:\n%U\n"
			      "MLX5DVQPInitAttr:\n%U",
			      s1, s2);
	Py_XDECREF(s1);
	Py_XDECREF(s2);
	return NULL;
}

/* A batch is over (or the QP closed): drop what it held. */
static void mqp_unpin(struct mlx5_qp *self)
{
	Py_CLEAR(self->pinned);
}

static int mqp_destroy(struct pv_obj *o)
{
	struct mlx5_qp *self = MQP(o);

	if (self->base_destroy(o)) /* aborts an open batch */
		return -1;
	self->dv = NULL;
	mqp_unpin(self);
	return 0;
}

/* upstream's Mlx5QP._get_comp_mask for DC QPs (-1: no entry, KeyError) */
static void mqp_set_masks(struct mlx5_qp *self)
{
	int i;

	switch (self->dc_type) {
	case 0:
		return; /* the QP type's table */
	case MLX5DV_DCTYPE_DCT:
		self->masks[0] = IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				 IBV_QP_ACCESS_FLAGS;
		self->masks[1] = IBV_QP_AV | IBV_QP_PATH_MTU |
				 IBV_QP_MIN_RNR_TIMER;
		self->masks[2] = -1;
		break;
	case MLX5DV_DCTYPE_DCI:
		self->masks[0] = IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		self->masks[1] = IBV_QP_PATH_MTU;
		self->masks[2] = IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
				 IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		for (i = 0; i < 3; i++)
			self->masks[i] = -1;
	}
	self->qpx.qp.masks = self->masks;
}

static int mqp_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "init_attr", "dv_init_attr",
				  NULL };
	struct mlx5_qp *self = MQP(obj);
	struct mqp_create_arg a;
	struct pv_qp_create_hook hook = { mqp_create, &a };
	PyObject *ctx, *init_attr, *dv;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:Mlx5QP", kwlist, &ctx,
					 &init_attr, &dv))
		return -1;
	if (!pv_type_ok(ctx, pv.Context))
		return pv_mlx5_arg_type_error("context",
					      "pyverbs.device.Context", ctx);
	if (!pv_type_ok(init_attr, pv.QPInitAttrEx))
		return pv_mlx5_arg_type_error("init_attr",
					      "pyverbs.qp.QPInitAttrEx",
					      init_attr);
	if (dv != Py_None && !pv_type_ok(dv, pv_mlx5.DVQPInitAttr))
		return pv_mlx5_arg_type_error("dv_init_attr",
					      MLX5DV_MOD "Mlx5DVQPInitAttr",
					      dv);
	a.init_attr = init_attr;
	a.dv = dv;
	if (pv_qpx_create(obj, ctx, init_attr, Py_None, &hook))
		return -1;
	self->base_destroy = self->qpx.qp.obj.destroy;
	self->qpx.qp.obj.destroy = mqp_destroy;
	if (dv != Py_None)
		self->dc_type = ((struct pv_mlx5_dv_qp_init_attr *)dv)
					->attr.dc_init_attr.dc_type;
	else
		self->dc_type = 0;
	mqp_set_masks(self);
	/* a bare container_of in libmlx5: only for its own ibv_qp_ex */
	self->dv = self->qpx.qpx ? mlx5dv_qp_ex_from_ibv_qp_ex(self->qpx.qpx) :
				   NULL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The batch: wr_start / wr_complete / wr_abort                        */
/* ------------------------------------------------------------------ */

static PyObject *mqp_base(PyObject *obj, int which)
{
	return PyObject_CallOneArg(base_wr[which], obj);
}

static PyObject *mqp_wr_start(PyObject *obj, PyObject *unused)
{
	PyObject *r = mqp_base(obj, WR_START);

	if (r)
		mqp_unpin(MQP(obj));
	return r;
}

static PyObject *mqp_wr_abort(PyObject *obj, PyObject *unused)
{
	PyObject *r = mqp_base(obj, WR_ABORT);

	if (r)
		mqp_unpin(MQP(obj));
	return r;
}

/*
 * An AH or mkey the open batch used was closed: abort the batch and raise.
 * Returns 0 when all are open, else -1.
 */
static int mqp_check_pinned(struct mlx5_qp *self)
{
	Py_ssize_t i;
	PyObject *r;

	for (i = 0; self->pinned && i < PyList_GET_SIZE(self->pinned); i++) {
		PyObject *o = PyList_GET_ITEM(self->pinned, i);

		if (!PV_OBJ(o)->closed)
			continue;
		r = mqp_base((PyObject *)self, WR_ABORT);
		Py_XDECREF(r);
		if (!r)
			return -1;
		mqp_unpin(self);
		pv_raise_user("The %s used in this batch was closed: the batch "
			      "is aborted",
			      pv_type_ok(o, pv.AH) ? "AH" : "Mlx5Mkey");
		return -1;
	}
	return 0;
}

static PyObject *mqp_wr_complete(PyObject *obj, PyObject *unused)
{
	struct mlx5_qp *self = MQP(obj);
	PyObject *r;

	if (!self->qpx.qp.obj.closed && pv_qpx_my_batch(&self->qpx) &&
	    mqp_check_pinned(self))
		return NULL;
	/* the batch ends whatever ibv_wr_complete() returns */
	r = mqp_base(obj, WR_COMPLETE);
	if (!self->qpx.in_wr)
		mqp_unpin(self);
	return r;
}

/* Hold o (an AH or mkey) until the batch ends. */
static int mqp_pin(struct mlx5_qp *self, PyObject *o)
{
	Py_ssize_t i;

	if (!self->pinned && !(self->pinned = PyList_New(0)))
		return -1;
	for (i = 0; i < PyList_GET_SIZE(self->pinned); i++)
		if (PyList_GET_ITEM(self->pinned, i) == o)
			return 0;
	return PyList_Append(self->pinned, o);
}

/* ------------------------------------------------------------------ */
/* The builders and setters                                            */
/* ------------------------------------------------------------------ */

/* The function pointer at offset off of the mlx5dv_qp_ex. */
#define DV_FN(dv, off) (*(void **)((char *)(dv) + (off)))

/*
 * The mlx5dv_qp_ex of self, for the builder whose pointer is at off:
 * the QP is open, has an ibv_qp_ex, is inside wr_start(), libmlx5 set
 * that pointer, and nothing the batch holds was closed.  Else NULL with
 * PyverbsUserError.
 */
static struct mlx5dv_qp_ex *mqp_batch(PyObject *obj, size_t off,
				      const char *name)
{
	struct mlx5_qp *self = MQP(obj);

	if (pv_check_open(&self->qpx.qp.obj))
		return NULL;
	if (!self->dv) {
		pv_raise_user("This Mlx5QP was created without "
			      "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: %s() is not "
			      "available",
			      name);
		return NULL;
	}
	if (!pv_qpx_my_batch(&self->qpx)) {
		pv_qpx_batch_refused(&self->qpx);
		return NULL;
	}
	if (!DV_FN(self->dv, off)) {
		pv_raise_user("%s() is not available on this QP (not in its "
			      "send ops flags or QP type, or not supported by "
			      "libmlx5)",
			      name);
		return NULL;
	}
	if (mqp_check_pinned(self))
		return NULL;
	return self->dv;
}

#define MQP_BATCH(obj, fn) \
	mqp_batch(obj, offsetof(struct mlx5dv_qp_ex, fn), #fn)

/* o: an open tp of the QP's Context, pinned for the batch; else NULL. */
static struct pv_obj *mqp_obj_arg(PyObject *obj, PyObject *o, PyTypeObject *tp,
				  const char *arg, const char *tname,
				  const char *what)
{
	struct mlx5_qp *self = MQP(obj);

	if (!pv_type_ok(o, tp)) {
		pv_mlx5_arg_type_error(arg, tname, o);
		return NULL;
	}
	if (pv_obj_check_in(PV_OBJ(o), pv_obj_root(&self->qpx.qp.obj), what,
			    "QP") ||
	    mqp_pin(self, o))
		return NULL;
	return PV_OBJ(o);
}

static struct ibv_ah *mqp_ah(PyObject *obj, PyObject *o)
{
	struct pv_obj *ah =
		mqp_obj_arg(obj, o, pv.AH, "ah", "pyverbs.addr.AH", "AH");

	return ah ? ((struct pv_ah *)ah)->ah : NULL;
}

static struct mlx5dv_mkey *mqp_mkey(PyObject *obj, PyObject *o)
{
	struct pv_obj *k = mqp_obj_arg(obj, o, pv_mlx5.Mkey, "mkey",
				       "pyverbs.providers.mlx5.mlx5dv_mkey."
				       "Mlx5Mkey",
				       "Mlx5Mkey");

	return k ? ((struct pv_mlx5_mkey *)k)->mkey : NULL;
}

/*
 * The items of lst (any sequence), each a tp, copied into a new PyMem
 * array (elsz bytes each, from offset off of the item): at most 65535 of
 * them (the uint16_t count of libmlx5).  NULL with an exception set.
 */
static void *mqp_array(PyObject *lst, PyTypeObject *tp, const char *what,
		       size_t off, size_t elsz, uint16_t *n)
{
	PyObject *seq = PySequence_Fast(lst, "expected a list");
	PyObject *const *items;
	Py_ssize_t len, i;
	char *buf;

	if (!seq) {
		PyErr_Format(PyExc_TypeError, "%s must be a list, not %.100s",
			     what, Py_TYPE(lst)->tp_name);
		return NULL;
	}
	len = PySequence_Fast_GET_SIZE(seq);
	if (len > UINT16_MAX) {
		Py_DECREF(seq);
		PyErr_Format(PyExc_OverflowError,
			     "%s has %zd items: at most "
			     "%d fit the uint16_t count",
			     what, len, UINT16_MAX);
		return NULL;
	}
	items = PySequence_Fast_ITEMS(seq);
	for (i = 0; i < len; i++)
		if (!pv_type_ok(items[i], tp)) {
			PyErr_Format(PyExc_TypeError,
				     "%s[%zd] must be a %s, "
				     "not %.100s",
				     what, i, tp->tp_name,
				     Py_TYPE(items[i])->tp_name);
			Py_DECREF(seq);
			return NULL;
		}
	buf = PyMem_Calloc(len ? len : 1, elsz);
	if (!buf) {
		Py_DECREF(seq);
		return PyErr_NoMemory();
	}
	for (i = 0; i < len; i++)
		memcpy(buf + i * elsz, (char *)items[i] + off, elsz);
	Py_DECREF(seq);
	*n = (uint16_t)len;
	return buf;
}

static struct ibv_sge *mqp_sges(PyObject *lst, uint16_t *n)
{
	return mqp_array(lst, pv.SGE, "sge_list", offsetof(struct pv_sge, sge),
			 sizeof(struct ibv_sge), n);
}

static struct mlx5dv_mr_interleaved *mqp_interleaved(PyObject *lst, uint16_t *n)
{
	return mqp_array(lst, pv_mlx5.MrInterleaved, "mr_interleaved_lst",
			 offsetof(struct pv_mlx5_mr_interleaved, mr),
			 sizeof(struct mlx5dv_mr_interleaved), n);
}

static PyObject *mqp_wr_set_dc_addr(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ah", "remote_dctn", "remote_dc_key", NULL };
	struct mlx5dv_qp_ex *dv;
	struct ibv_ah *ah;
	PyObject *aho;
	uint32_t dctn;
	uint64_t key;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&:wr_set_dc_addr",
					 kwlist, &aho, pv_conv_u32, &dctn,
					 pv_conv_u64, &key))
		return NULL;
	if (!(dv = MQP_BATCH(obj, wr_set_dc_addr)) || !(ah = mqp_ah(obj, aho)))
		return NULL;
	mlx5dv_wr_set_dc_addr(dv, ah, dctn, key);
	Py_RETURN_NONE;
}

static PyObject *mqp_wr_set_dc_addr_stream(PyObject *obj, PyObject *args,
					   PyObject *kw)
{
	static char *kwlist[] = { "ah", "remote_dctn", "remote_dc_key",
				  "stream_id", NULL };
	struct mlx5dv_qp_ex *dv;
	struct ibv_ah *ah;
	PyObject *aho;
	uint32_t dctn;
	uint64_t key;
	uint16_t stream;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "OO&O&O&:wr_set_dc_addr_stream",
					 kwlist, &aho, pv_conv_u32, &dctn,
					 pv_conv_u64, &key, pv_conv_u16,
					 &stream))
		return NULL;
	if (!(dv = MQP_BATCH(obj, wr_set_dc_addr_stream)) ||
	    !(ah = mqp_ah(obj, aho)))
		return NULL;
	mlx5dv_wr_set_dc_addr_stream(dv, ah, dctn, key, stream);
	Py_RETURN_NONE;
}

/*
 * wr_raw_wqe(wqe): the WQE at wqe.address, whose size libmlx5 takes from
 * the DS field of its control segment (16-byte units), is copied first
 * (an unreadable address raises instead of crashing).
 */
static PyObject *mqp_wr_raw_wqe(PyObject *obj, PyObject *wqe)
{
	struct mlx5_wqe_ctrl_seg ctrl;
	struct mlx5dv_qp_ex *dv;
	uint64_t addr;
	PyObject *a;
	size_t len;
	void *buf;
	int rc;

	a = PyObject_GetAttrString(wqe, "address");
	if (!a)
		return NULL;
	rc = pv_to_u64(a, UINTPTR_MAX, &addr, "wqe.address");
	Py_DECREF(a);
	if (rc || !(dv = MQP_BATCH(obj, wr_raw_wqe)) ||
	    pv_read_mem(&ctrl, addr, sizeof(ctrl)))
		return NULL;
	len = (be32toh(ctrl.qpn_ds) & 0x3f) * 16;
	if (len < sizeof(ctrl))
		len = sizeof(ctrl);
	buf = PyMem_Malloc(len);
	if (!buf)
		return PyErr_NoMemory();
	if (pv_read_mem(buf, addr, len)) {
		PyMem_Free(buf);
		return NULL;
	}
	mlx5dv_wr_raw_wqe(dv, buf);
	PyMem_Free(buf);
	Py_RETURN_NONE;
}

static PyObject *mqp_wr_mr_interleaved(PyObject *obj, PyObject *args,
				       PyObject *kw)
{
	static char *kwlist[] = { "mkey", "access_flags", "repeat_count",
				  "mr_interleaved_lst", NULL };
	struct mlx5dv_mr_interleaved *data;
	struct mlx5dv_qp_ex *dv;
	struct mlx5dv_mkey *mkey;
	uint32_t access, repeat;
	PyObject *mko, *lst;
	uint16_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&O:wr_mr_interleaved",
					 kwlist, &mko, pv_conv_u32, &access,
					 pv_conv_u32, &repeat, &lst))
		return NULL;
	if (!(dv = MQP_BATCH(obj, wr_mr_interleaved)) ||
	    !(mkey = mqp_mkey(obj, mko)) || !(data = mqp_interleaved(lst, &n)))
		return NULL;
	mlx5dv_wr_mr_interleaved(dv, mkey, access, repeat, n, data);
	PyMem_Free(data);
	Py_RETURN_NONE;
}

static PyObject *mqp_wr_mr_list(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "mkey", "access_flags", "sge_list", NULL };
	struct mlx5dv_qp_ex *dv;
	struct mlx5dv_mkey *mkey;
	struct ibv_sge *sge;
	PyObject *mko, *lst;
	uint32_t access;
	uint16_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O:wr_mr_list", kwlist,
					 &mko, pv_conv_u32, &access, &lst))
		return NULL;
	if (!(dv = MQP_BATCH(obj, wr_mr_list)) ||
	    !(mkey = mqp_mkey(obj, mko)) || !(sge = mqp_sges(lst, &n)))
		return NULL;
	mlx5dv_wr_mr_list(dv, mkey, access, n, sge);
	PyMem_Free(sge);
	Py_RETURN_NONE;
}

static PyObject *mqp_wr_mkey_configure(PyObject *obj, PyObject *args,
				       PyObject *kw)
{
	static char *kwlist[] = { "mkey", "num_setters", "mkey_config", NULL };
	struct mlx5dv_mkey_conf_attr conf;
	struct mlx5dv_qp_ex *dv;
	struct mlx5dv_mkey *mkey;
	PyObject *mko, *co;
	uint8_t num;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O:wr_mkey_configure",
					 kwlist, &mko, pv_conv_u8, &num, &co))
		return NULL;
	if (!pv_type_ok(co, pv_mlx5.MkeyConfAttr)) {
		pv_mlx5_arg_type_error("mkey_config",
				       "pyverbs.providers.mlx5."
				       "mlx5dv_mkey.Mlx5MkeyConfAttr",
				       co);
		return NULL;
	}
	if (!(dv = MQP_BATCH(obj, wr_mkey_configure)) ||
	    !(mkey = mqp_mkey(obj, mko)))
		return NULL;
	conf = ((struct pv_mlx5_mkey_conf_attr *)co)->attr;
	mlx5dv_wr_mkey_configure(dv, mkey, num, &conf);
	Py_RETURN_NONE;
}

static PyObject *mqp_wr_set_mkey_access_flags(PyObject *obj, PyObject *args,
					      PyObject *kw)
{
	struct mlx5dv_qp_ex *dv;
	uint32_t access;

	if (pv_u32_arg(args, kw, "wr_set_mkey_access_flags", "access_flags",
		       &access) ||
	    !(dv = MQP_BATCH(obj, wr_set_mkey_access_flags)))
		return NULL;
	mlx5dv_wr_set_mkey_access_flags(dv, access);
	Py_RETURN_NONE;
}

static PyObject *mqp_wr_set_mkey_layout_list(PyObject *obj, PyObject *args,
					     PyObject *kw)
{
	static char *kwlist[] = { "sge_list", NULL };
	struct mlx5dv_qp_ex *dv;
	struct ibv_sge *sge;
	PyObject *lst;
	uint16_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:wr_set_mkey_layout_list",
					 kwlist, &lst))
		return NULL;
	if (!(dv = MQP_BATCH(obj, wr_set_mkey_layout_list)) ||
	    !(sge = mqp_sges(lst, &n)))
		return NULL;
	mlx5dv_wr_set_mkey_layout_list(dv, n, sge);
	PyMem_Free(sge);
	Py_RETURN_NONE;
}

static PyObject *
mqp_wr_set_mkey_layout_interleaved(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "repeat_count", "mr_interleaved_lst", NULL };
	struct mlx5dv_mr_interleaved *data;
	struct mlx5dv_qp_ex *dv;
	uint32_t repeat;
	PyObject *lst;
	uint16_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O&O:wr_set_mkey_layout_interleaved",
					 kwlist, pv_conv_u32, &repeat, &lst))
		return NULL;
	if (!(dv = MQP_BATCH(obj, wr_set_mkey_layout_interleaved)) ||
	    !(data = mqp_interleaved(lst, &n)))
		return NULL;
	mlx5dv_wr_set_mkey_layout_interleaved(dv, repeat, n, data);
	PyMem_Free(data);
	Py_RETURN_NONE;
}

/* The Mlx5CryptoAttr comes from family mlx5ctx (weak accessor). */
static PyObject *mqp_wr_set_mkey_crypto(PyObject *obj, PyObject *args,
					PyObject *kw)
{
	static char *kwlist[] = { "attr", NULL };
	struct mlx5dv_crypto_attr attr;
	struct mlx5dv_qp_ex *dv;
	PyObject *ao;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:wr_set_mkey_crypto",
					 kwlist, &ao))
		return NULL;
	if (!pv_mlx5_crypto_attr_get) {
		PyErr_SetString(PyExc_NotImplementedError,
				"wr_set_mkey_crypto() needs Mlx5CryptoAttr, "
				"which this pyverbs-c does not have yet");
		return NULL;
	}
	memset(&attr, 0, sizeof(attr));
	if (pv_mlx5_crypto_attr_get(ao, &attr) ||
	    !(dv = MQP_BATCH(obj, wr_set_mkey_crypto)))
		return NULL;
	/* attr's dek stays valid: ao is alive for the call */
	mlx5dv_wr_set_mkey_crypto(dv, &attr);
	Py_RETURN_NONE;
}

static PyObject *mqp_wr_set_mkey_sig_block(PyObject *obj, PyObject *args,
					   PyObject *kw)
{
	static char *kwlist[] = { "block_attr", NULL };
	struct pv_mlx5_sig_block_store store;
	struct mlx5dv_sig_block_attr attr;
	struct mlx5dv_qp_ex *dv;
	PyObject *ao;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:wr_set_mkey_sig_block",
					 kwlist, &ao))
		return NULL;
	if (!pv_type_ok(ao, pv_mlx5.SigBlockAttr)) {
		pv_mlx5_arg_type_error("block_attr",
				       "pyverbs.providers.mlx5."
				       "mlx5dv_mkey.Mlx5SigBlockAttr",
				       ao);
		return NULL;
	}
	if (!(dv = MQP_BATCH(obj, wr_set_mkey_sig_block)))
		return NULL;
	pv_mlx5_sig_block_attr_get(ao, &attr, &store);
	mlx5dv_wr_set_mkey_sig_block(dv, &attr);
	Py_RETURN_NONE;
}

static PyObject *mqp_wr_memcpy(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dest_lkey", "dest_addr", "src_lkey",
				  "src_addr",  "length",    NULL };
	struct mlx5dv_qp_ex *dv;
	uint32_t dlkey, slkey;
	uint64_t daddr, saddr;
	size_t len;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&:wr_memcpy",
					 kwlist, pv_conv_u32, &dlkey,
					 pv_conv_u64, &daddr, pv_conv_u32,
					 &slkey, pv_conv_u64, &saddr,
					 pv_conv_size, &len))
		return NULL;
	if (!(dv = MQP_BATCH(obj, wr_memcpy)))
		return NULL;
	mlx5dv_wr_memcpy(dv, dlkey, daddr, slkey, saddr, len);
	Py_RETURN_NONE;
}

/* Returns the number of WRs cancelled, or -errno. */
static PyObject *mqp_cancel_posted_send_wrs(PyObject *obj, PyObject *args,
					    PyObject *kw)
{
	static char *kwlist[] = { "wr_id", NULL };
	struct mlx5_qp *self = MQP(obj);
	uint64_t wr_id;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:cancel_posted_send_wrs",
					 kwlist, pv_conv_u64, &wr_id))
		return NULL;
	if (pv_check_open(&self->qpx.qp.obj))
		return NULL;
	if (!self->dv)
		return pv_raise_user("This Mlx5QP was created without "
				     "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: "
				     "cancel_posted_send_wrs() is not "
				     "available");
	rc = mlx5dv_qp_cancel_posted_send_wrs(self->dv, wr_id);
	if (rc < 0)
		return pv_raise_rc(-rc, "mlx5dv_qp_cancel_posted_send_wrs",
				   "Failed to cancel send WRs");
	return PyLong_FromLong(rc);
}

/* ------------------------------------------------------------------ */
/* Type                                                                */
/* ------------------------------------------------------------------ */

static int mqp_traverse(PyObject *obj, visitproc visit, void *arg)
{
	traverseproc base = PyType_GetSlot(pv.QPEx, Py_tp_traverse);

	Py_VISIT(MQP(obj)->pinned);
	return base(obj, visit, arg);
}

static int mqp_clear(PyObject *obj)
{
	inquiry base = PyType_GetSlot(pv.QPEx, Py_tp_clear);

	base(obj); /* closes first: aborts an open batch */
	Py_CLEAR(MQP(obj)->pinned);
	return 0;
}

#define MQP_M(name, flags, sig, doc)                             \
	{ #name, (PyCFunction)(void (*)(void))mqp_##name, flags, \
	  #name "(" sig ")\n--\n\n" doc }
/* the static methods, in qp_static.c */
#define MQP_S(name, sig, doc)                                    \
	{ #name, (PyCFunction)(void (*)(void))pv_mlx5_qp_##name, \
	  METH_VARARGS | METH_KEYWORDS | METH_STATIC,            \
	  #name "(" sig ")\n--\n\n" doc }
#define MQP_KW (METH_VARARGS | METH_KEYWORDS)

static PyMethodDef mqp_methods[] = {
	MQP_M(wr_start, METH_NOARGS, "$self, /",
	      "Start a batch of work requests (ibv_wr_start)."),
	MQP_M(wr_complete, METH_NOARGS, "$self, /",
	      "Post the batch (ibv_wr_complete); the errors of the mlx5 "
	      "builders (libmlx5 latches them) are reported here."),
	MQP_M(wr_abort, METH_NOARGS, "$self, /",
	      "Drop the batch (ibv_wr_abort)."),
	MQP_M(wr_set_dc_addr, MQP_KW, "$self, ah, remote_dctn, remote_dc_key",
	      "Address the last WR of a DCI to a DCT (mlx5dv_wr_set_dc_addr)."),
	MQP_M(wr_set_dc_addr_stream, MQP_KW,
	      "$self, ah, remote_dctn, remote_dc_key, stream_id",
	      "wr_set_dc_addr() on a DCI stream channel."),
	MQP_M(wr_raw_wqe, METH_O, "$self, wqe, /",
	      "Post the raw WQE at wqe.address (its size from its control "
	      "segment; copied first)."),
	MQP_M(wr_mr_interleaved, MQP_KW,
	      "$self, mkey, access_flags, repeat_count, mr_interleaved_lst",
	      "Configure the indirect mkey over an interleaved layout (a list "
	      "of Mlx5MrInterleaved); wr_flags must include IBV_SEND_INLINE."),
	MQP_M(wr_mr_list, MQP_KW, "$self, mkey, access_flags, sge_list",
	      "Configure the indirect mkey over a list of SGEs; wr_flags must "
	      "include IBV_SEND_INLINE."),
	MQP_M(wr_mkey_configure, MQP_KW,
	      "$self, mkey, num_setters, "
	      "mkey_config",
	      "Start configuring mkey; num_setters wr_set_mkey_* calls must "
	      "follow."),
	MQP_M(wr_set_mkey_access_flags, MQP_KW, "$self, access_flags",
	      "The access flags of the mkey being configured."),
	MQP_M(wr_set_mkey_layout_list, MQP_KW, "$self, sge_list",
	      "The layout (a list of SGEs) of the mkey being configured."),
	MQP_M(wr_set_mkey_layout_interleaved, MQP_KW,
	      "$self, repeat_count, mr_interleaved_lst",
	      "An interleaved layout for the mkey being configured."),
	MQP_M(wr_set_mkey_crypto, MQP_KW, "$self, attr",
	      "The crypto attributes (Mlx5CryptoAttr) of the mkey being "
	      "configured."),
	MQP_M(wr_set_mkey_sig_block, MQP_KW, "$self, block_attr",
	      "The block signature (Mlx5SigBlockAttr) of the mkey being "
	      "configured."),
	MQP_M(wr_memcpy, MQP_KW,
	      "$self, dest_lkey, dest_addr, src_lkey, "
	      "src_addr, length",
	      "A DMA copy of length bytes by the device."),
	MQP_M(cancel_posted_send_wrs, MQP_KW, "$self, wr_id",
	      "Cancel the posted send WRs with wr_id of a QP in SQD; returns "
	      "how many were cancelled."),
	MQP_S(query_lag_port, "qp",
	      "(port_num, active_port_num) of the QP in a LAG."),
	MQP_S(modify_lag_port, "qp, port_num",
	      "Set the LAG port the QP should use."),
	MQP_S(modify_qp_sched_elem,
	      "qp, req_sched_leaf=None, resp_sched_leaf=None",
	      "Connect the QP to requestor/responder scheduling leaves "
	      "(Mlx5dvSchedLeaf)."),
	MQP_S(modify_udp_sport, "qp, udp_sport",
	      "Set the UDP source port of a QP in RTS."),
	MQP_S(map_ah_to_qp, "ah, qp_num",
	      "Map the AH's path to the QP qp_num."),
	MQP_S(modify_dci_stream_channel_id, "qp, stream_id",
	      "Reset an errored stream of a DCI in RTS."),
	{ NULL }
};

PV_GC_TYPE_SPEC(mqp, MLX5DV_MOD "Mlx5QP", struct mlx5_qp,
		"Mlx5QP(context, init_attr, dv_init_attr)\n--\n\n"
		"A QP created by mlx5dv_create_qp() on any Context with "
		"a QPInitAttrEx and an Mlx5DVQPInitAttr (or None); its "
		"mlx5 builders need IBV_QP_INIT_ATTR_SEND_OPS_FLAGS in "
		"init_attr.comp_mask.",
		{ Py_tp_init, mqp_init }, { Py_tp_methods, mqp_methods },
		{ Py_tp_traverse, mqp_traverse }, { Py_tp_clear, mqp_clear }, );

int pv_mlx5_qp_init_types(PyObject *m)
{
	static const char *const names[] = { "wr_start", "wr_complete",
					     "wr_abort" };
	int i;

	for (i = 0; i < 3; i++) {
		/* borrowed: the QPEx type, which owns them, outlives us */
		base_wr[i] = PyDict_GetItemString(pv.QPEx->tp_dict, names[i]);
		if (!base_wr[i]) {
			PyErr_Format(PyExc_SystemError, "QPEx has no %s",
				     names[i]);
			return -1;
		}
	}
	return pv_add_type(m, &mqp_spec, pv.QPEx, &pv_mlx5.QP);
}
