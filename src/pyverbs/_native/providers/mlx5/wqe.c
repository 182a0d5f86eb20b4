/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * WQE and CQE views of pyverbs.providers.mlx5.mlx5dv: WqeSeg, WqeCtrlSeg,
 * WqeDataSeg, Wqe and Mlx5Cqe64.  Pure byte work over the inline helpers of
 * mlx5dv.h (mlx5dv_set_ctrl_seg, mlx5dv_set_data_seg, mlx5dv_get_cqe_*):
 * no device is involved.
 *
 * The segments keep their struct inside the object (upstream allocates it
 * and frees it on close, after which its properties read freed memory);
 * the multi-byte fields are big-endian in memory and the properties
 * convert (__str__, in mlx5dv.py, prints the stored values unconverted, as
 * upstream does).
 *
 * Raw addresses (Wqe(..., addr=), WqeSeg._copy_to_buffer(addr),
 * Mlx5Cqe64(addr)) follow pyverbs.mem_alloc's policy: every access goes
 * through the fault-safe copies (pv_read_mem/pv_write_mem), so an address
 * that is not mapped raises PyverbsUserError instead of crashing.
 */
#include "mlx5.h"
#include "errors.h"
#include "field.h"
#include "memory.h"
#include "object.h"
#include "state.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* WqeSeg, WqeCtrlSeg, WqeDataSeg                                      */
/* ------------------------------------------------------------------ */

/* A WqeSeg is a PyverbsCM upstream; it owns no handle, its close() only
 * ends its use. */
struct wqe_seg {
	struct pv_obj obj;
	union {
		struct mlx5_wqe_ctrl_seg ctrl;
		struct mlx5_wqe_data_seg data;
	} seg;
	size_t size; /* 0 for the abstract WqeSeg */
};

static int seg_destroy(struct pv_obj *o)
{
	return 0;
}

static PyObject *seg_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	struct wqe_seg *self = (struct wqe_seg *)tp->tp_alloc(tp, 0);

	if (!self)
		return NULL;
	pv_obj_setup(&self->obj, seg_destroy);
	pv_obj_opened(&self->obj); /* usable even if __init__ is skipped */
	if (pv_type_ok((PyObject *)self, pv_mlx5.WqeCtrlSeg))
		self->size = sizeof(self->seg.ctrl);
	else if (pv_type_ok((PyObject *)self, pv_mlx5.WqeDataSeg))
		self->size = sizeof(self->seg.data);
	return (PyObject *)self;
}

static PyObject *seg_sizeof_base(PyObject *cls, PyObject *unused)
{
	return PyLong_FromLong(0);
}

static PyObject *seg_sizeof_ctrl(PyObject *cls, PyObject *unused)
{
	return PyLong_FromSize_t(sizeof(struct mlx5_wqe_ctrl_seg));
}

static PyObject *seg_sizeof_data(PyObject *cls, PyObject *unused)
{
	return PyLong_FromSize_t(sizeof(struct mlx5_wqe_data_seg));
}

/* Copy the open segment's bytes to the raw address addr (fault-safe). */
static int seg_copy_to(struct wqe_seg *self, uint64_t addr)
{
	if (pv_check_open(&self->obj))
		return -1;
	return pv_write_mem(addr, &self->seg, self->size);
}

static PyObject *seg_copy_to_buffer(PyObject *obj, PyObject *arg)
{
	uint64_t addr;

	if (!pv_conv_u64(arg, &addr) ||
	    seg_copy_to((struct wqe_seg *)obj, addr))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *seg_get_addr(PyObject *obj, void *closure)
{
	struct wqe_seg *self = (struct wqe_seg *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromVoidPtr(&self->seg);
}

static PyMethodDef seg_methods[] = {
	{ "sizeof", seg_sizeof_base, METH_NOARGS | METH_STATIC,
	  "sizeof()\n--\n\nThe size of the segment in bytes (0: abstract)." },
	{ "_copy_to_buffer", seg_copy_to_buffer, METH_O,
	  "_copy_to_buffer($self, addr, /)\n--\n\n"
	  "Copy the segment's bytes to the raw address addr." },
	{ NULL }
};

PV_GC_TYPE_SPEC(seg, "pyverbs.providers.mlx5.mlx5dv.WqeSeg", struct wqe_seg,
		"WqeSeg()\n--\n\n"
		"The base of the WQE segments (abstract: sizeof() is 0).",
		{ Py_tp_new, seg_new }, { Py_tp_methods, seg_methods },
		PV_CM_SLOTS, );

/*
 * The big-endian fields of the segments: one getter and one setter walk
 * this table.  bits is the field's width; byte-wide fields need no
 * swapping but share the range check.
 */
struct seg_field {
	Py_ssize_t offset; /* in struct wqe_seg */
	unsigned char bits;
};

#define SEG_FIELD(member, bits) { offsetof(struct wqe_seg, member), bits }

static const struct seg_field ctrl_fields[] = {
	SEG_FIELD(seg.ctrl.opmod_idx_opcode, 32),
	SEG_FIELD(seg.ctrl.qpn_ds, 32),
	SEG_FIELD(seg.ctrl.signature, 8),
	SEG_FIELD(seg.ctrl.fm_ce_se, 8),
	SEG_FIELD(seg.ctrl.imm, 32),
};

static const struct seg_field data_fields[] = {
	SEG_FIELD(seg.data.byte_count, 32),
	SEG_FIELD(seg.data.lkey, 32),
	SEG_FIELD(seg.data.addr, 64),
};

/* The stored (big-endian) value of field f, unconverted. */
static uint64_t seg_raw(struct wqe_seg *self, const struct seg_field *f)
{
	char *p = (char *)self + f->offset;
	uint32_t v32;
	uint64_t v64;

	switch (f->bits) {
	case 8:
		return *(uint8_t *)p;
	case 32:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

static PyObject *seg_field_get(PyObject *obj, void *closure)
{
	struct wqe_seg *self = (struct wqe_seg *)obj;
	const struct seg_field *f = closure;
	uint64_t v;

	if (pv_check_open(&self->obj))
		return NULL;
	v = seg_raw(self, f);
	if (f->bits == 32)
		v = be32toh((uint32_t)v);
	else if (f->bits == 64)
		v = be64toh(v);
	return PyLong_FromUnsignedLongLong(v);
}

static int seg_field_set(PyObject *obj, PyObject *value, void *closure)
{
	struct wqe_seg *self = (struct wqe_seg *)obj;
	const struct seg_field *f = closure;
	char *p = (char *)self + f->offset;
	uint64_t v;

	if (pv_refuse_delete(value, "a segment field") ||
	    pv_check_open(&self->obj) ||
	    pv_to_u64(value, f->bits == 64 ? UINT64_MAX : (1ULL << f->bits) - 1,
		      &v, "value"))
		return -1;
	if (f->bits == 8) {
		*(uint8_t *)p = (uint8_t)v;
	} else if (f->bits == 32) {
		uint32_t be = htobe32((uint32_t)v);

		memcpy(p, &be, 4);
	} else {
		uint64_t be = htobe64(v);

		memcpy(p, &be, 8);
	}
	return 0;
}

/* ---- WqeCtrlSeg ---- */

static int ctrl_set(struct wqe_seg *self, PyObject *args, PyObject *kw,
		    const char *fmt)
{
	static char *kwlist[] = { "pi",	       "opcode",   "opmod",
				  "qp_num",    "fm_ce_se", "ds",
				  "signature", "imm",	   NULL };
	uint16_t pi = 0;
	uint8_t opcode = 0, opmod = 0, fm_ce_se = 0, ds = 0, signature = 0;
	uint32_t qp_num = 0, imm = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv_conv_u16,
					 &pi, pv_conv_u8, &opcode, pv_conv_u8,
					 &opmod, pv_conv_u32, &qp_num,
					 pv_conv_u8, &fm_ce_se, pv_conv_u8, &ds,
					 pv_conv_u8, &signature, pv_conv_u32,
					 &imm) ||
	    pv_check_open(&self->obj))
		return -1;
	mlx5dv_set_ctrl_seg(&self->seg.ctrl, pi, opcode, opmod, qp_num,
			    fm_ce_se, ds, signature, imm);
	return 0;
}

static int ctrl_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	return ctrl_set((struct wqe_seg *)obj, args, kw,
			"|O&O&O&O&O&O&O&O&:WqeCtrlSeg");
}

static PyObject *ctrl_set_ctrl_seg(PyObject *obj, PyObject *args, PyObject *kw)
{
	if (ctrl_set((struct wqe_seg *)obj, args, kw,
		     "O&O&O&O&O&O&O&O&:set_ctrl_seg"))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef ctrl_methods[] = {
	{ "set_ctrl_seg", (PyCFunction)(void (*)(void))ctrl_set_ctrl_seg,
	  METH_VARARGS | METH_KEYWORDS,
	  "set_ctrl_seg($self, /, pi, opcode, opmod, qp_num, fm_ce_se, ds, "
	  "signature, imm)\n--\n\n"
	  "Fill the control segment (mlx5dv_set_ctrl_seg)." },
	{ "sizeof", seg_sizeof_ctrl, METH_NOARGS | METH_STATIC,
	  "sizeof()\n--\n\nThe size of a control segment (16)." },
	{ NULL }
};

static PyGetSetDef ctrl_getset[] = {
	{ "addr", seg_get_addr, NULL, "The address of the segment's bytes.",
	  NULL },
	{ "opmod_idx_opcode", seg_field_get, seg_field_set,
	  "opmod, WQE index and opcode (host order).",
	  (void *)&ctrl_fields[0] },
	{ "qpn_ds", seg_field_get, seg_field_set,
	  "QP number and data size in 16-byte units (host order).",
	  (void *)&ctrl_fields[1] },
	{ "signature", seg_field_get, seg_field_set, "The signature byte.",
	  (void *)&ctrl_fields[2] },
	{ "fm_ce_se", seg_field_get, seg_field_set,
	  "Fence mode, completion and solicited-event flags.",
	  (void *)&ctrl_fields[3] },
	{ "imm", seg_field_get, seg_field_set, "Immediate data (host order).",
	  (void *)&ctrl_fields[4] },
	{ NULL }
};

PV_GC_TYPE_SPEC(ctrl, "pyverbs.providers.mlx5.mlx5dv.WqeCtrlSeg",
		struct wqe_seg,
		"WqeCtrlSeg(pi=0, opcode=0, opmod=0, qp_num=0, "
		"fm_ce_se=0, ds=0, signature=0, imm=0)\n--\n\n"
		"A WQE control segment (struct mlx5_wqe_ctrl_seg) filled "
		"by mlx5dv_set_ctrl_seg.",
		{ Py_tp_init, ctrl_init }, { Py_tp_methods, ctrl_methods },
		{ Py_tp_getset, ctrl_getset }, PV_CM_SLOTS, );

/* ---- WqeDataSeg ---- */

static int data_set(struct wqe_seg *self, PyObject *args, PyObject *kw,
		    const char *fmt)
{
	static char *kwlist[] = { "length", "lkey", "addr", NULL };
	uint32_t length = 0, lkey = 0;
	uint64_t addr = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv_conv_u32,
					 &length, pv_conv_u32, &lkey,
					 pv_conv_u64, &addr) ||
	    pv_check_open(&self->obj))
		return -1;
	mlx5dv_set_data_seg(&self->seg.data, length, lkey, addr);
	return 0;
}

static int data_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	return data_set((struct wqe_seg *)obj, args, kw, "|O&O&O&:WqeDataSeg");
}

static PyObject *data_set_data_seg(PyObject *obj, PyObject *args, PyObject *kw)
{
	if (data_set((struct wqe_seg *)obj, args, kw, "O&O&O&:set_data_seg"))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef data_methods[] = {
	{ "set_data_seg", (PyCFunction)(void (*)(void))data_set_data_seg,
	  METH_VARARGS | METH_KEYWORDS,
	  "set_data_seg($self, /, length, lkey, addr)\n--\n\n"
	  "Fill the data segment (mlx5dv_set_data_seg)." },
	{ "sizeof", seg_sizeof_data, METH_NOARGS | METH_STATIC,
	  "sizeof()\n--\n\nThe size of a data segment (16)." },
	{ NULL }
};

/* addr is the segment's address field here, as upstream (it shadows the
 * base's address of the bytes). */
static PyGetSetDef data_getset[] = {
	{ "byte_count", seg_field_get, seg_field_set,
	  "The byte count (host order).", (void *)&data_fields[0] },
	{ "lkey", seg_field_get, seg_field_set, "The lkey (host order).",
	  (void *)&data_fields[1] },
	{ "addr", seg_field_get, seg_field_set,
	  "The buffer address (host order).", (void *)&data_fields[2] },
	{ NULL }
};

PV_GC_TYPE_SPEC(data, "pyverbs.providers.mlx5.mlx5dv.WqeDataSeg",
		struct wqe_seg,
		"WqeDataSeg(length=0, lkey=0, addr=0)\n--\n\n"
		"A WQE data segment (struct mlx5_wqe_data_seg) filled by "
		"mlx5dv_set_data_seg.",
		{ Py_tp_init, data_init }, { Py_tp_methods, data_methods },
		{ Py_tp_getset, data_getset }, PV_CM_SLOTS, );

/* ------------------------------------------------------------------ */
/* Wqe                                                                 */
/* ------------------------------------------------------------------ */

/*
 * The WQE's bytes: the segments (WqeSeg instances, or raw PRM bytes:
 * anything bytes() accepts) one after the other, in a buffer of pyverbs
 * (freed on close) or at the caller's raw address (written fault-safe,
 * never freed).
 */
struct wqe {
	struct pv_obj obj;
	PyObject *segments; /* list or tuple of them, for __str__ */
	char *buf;	    /* ours, or NULL */
	uint64_t addr;
};

static int wqe_destroy(struct pv_obj *o)
{
	struct wqe *self = (struct wqe *)o;

	free(self->buf);
	self->buf = NULL;
	self->addr = 0;
	return 0;
}

static int wqe_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "segments", "addr", NULL };
	struct wqe *self = (struct wqe *)obj;
	PyObject *segs, *fast, *parts;
	uint64_t addr = 0, at;
	size_t total = 0;
	Py_ssize_t n, i;
	int rc = -1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&:Wqe", kwlist, &segs,
					 pv_conv_u64, &addr))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Wqe is already initialised");
		return -1;
	}
	fast = PySequence_Fast(segs, "segments must be a sequence");
	if (!fast)
		return -1;
	n = PySequence_Fast_GET_SIZE(fast);
	/* every segment's bytes, checked before anything is written */
	parts = PyList_New(n);
	if (!parts)
		goto out;
	for (i = 0; i < n; i++) {
		PyObject *s = PySequence_Fast_GET_ITEM(fast, i), *b;

		if (pv_type_ok(s, pv_mlx5.WqeSeg)) {
			struct wqe_seg *sg = (struct wqe_seg *)s;

			if (pv_check_open(&sg->obj))
				goto out;
			b = PyBytes_FromStringAndSize((char *)&sg->seg,
						      sg->size);
		} else {
			/* raw bytes: len() and bytes() must agree (upstream
			 * allocates len() bytes and copies bytes()) */
			Py_ssize_t len = PyObject_Size(s);

			if (len < 0)
				goto out;
			b = PyObject_CallOneArg((PyObject *)&PyBytes_Type, s);
			if (b && PyBytes_GET_SIZE(b) != len) {
				PyErr_Format(PyExc_ValueError,
					     "segment %zd: len() is %zd but "
					     "bytes() has %zd",
					     i, len, PyBytes_GET_SIZE(b));
				Py_CLEAR(b);
			}
		}
		if (!b)
			goto out;
		total += PyBytes_GET_SIZE(b);
		PyList_SET_ITEM(parts, i, b);
	}
	pv_obj_setup(&self->obj, wqe_destroy);
	if (!addr) {
		self->buf = calloc(total ? total : 1, 1);
		if (!self->buf) {
			PyErr_NoMemory();
			goto out;
		}
		addr = (uintptr_t)self->buf;
	}
	for (i = 0, at = addr; i < n; i++) {
		PyObject *b = PyList_GET_ITEM(parts, i);
		Py_ssize_t len = PyBytes_GET_SIZE(b);

		if (self->buf)
			memcpy((char *)(uintptr_t)at, PyBytes_AS_STRING(b),
			       len);
		else if (pv_write_mem(at, PyBytes_AS_STRING(b), len))
			goto out;
		at += len;
	}
	self->addr = addr;
	Py_INCREF(fast); /* segs itself when a list or tuple */
	Py_XSETREF(self->segments, fast);
	pv_obj_opened(&self->obj);
	rc = 0;
out:
	if (rc)
		wqe_destroy(&self->obj);
	Py_XDECREF(parts);
	Py_DECREF(fast);
	return rc;
}

static PyObject *wqe_get_address(PyObject *obj, void *closure)
{
	struct wqe *self = (struct wqe *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLongLong(self->addr);
}

static PyObject *wqe_str(PyObject *obj)
{
	struct wqe *self = (struct wqe *)obj;
	PyObject *fast, *acc;
	Py_ssize_t i, n;

	if (pv_check_open(&self->obj))
		return NULL;
	fast = PySequence_Fast(self->segments, "segments must be a sequence");
	if (!fast)
		return NULL;
	acc = PyUnicode_FromString("");
	n = PySequence_Fast_GET_SIZE(fast);
	for (i = 0; acc && i < n; i++) {
		PyObject *s = PySequence_Fast_GET_ITEM(fast, i);
		PyObject *part =
			PyUnicode_FromFormat("Segment type %R #%zd:\n%S",
					     (PyObject *)Py_TYPE(s), i, s);

		if (!part) {
			Py_CLEAR(acc);
			break;
		}
		PyUnicode_AppendAndDel(&acc, part);
	}
	Py_DECREF(fast);
	return acc;
}

static int wqe_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct wqe *)obj)->segments);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int wqe_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(((struct wqe *)obj)->segments);
	return 0;
}

static PyGetSetDef wqe_getset[] = { { "address", wqe_get_address, NULL,
				      "The address of the WQE's bytes.", NULL },
				    { NULL } };

PV_GC_TYPE_SPEC(wqe, "pyverbs.providers.mlx5.mlx5dv.Wqe", struct wqe,
		"Wqe(segments, addr=0)\n--\n\n"
		"A WQE made of segments (WqeSeg instances or raw bytes in "
		"the device's format), copied one after the other into a "
		"buffer of pyverbs, or to the raw address addr when given "
		"(an unwritable address raises PyverbsUserError).",
		{ Py_tp_init, wqe_init }, { Py_tp_getset, wqe_getset },
		{ Py_tp_str, wqe_str }, { Py_tp_traverse, wqe_traverse },
		{ Py_tp_clear, wqe_clear }, );

/* ------------------------------------------------------------------ */
/* Mlx5Cqe64                                                           */
/* ------------------------------------------------------------------ */

/* A view of the 64-byte CQE at a raw address: each access copies the CQE
 * in (or the owner byte out) fault-safe. */
struct cqe64 {
	PyObject_HEAD
	uint64_t addr;
};

static int cqe64_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", NULL };

	return PyArg_ParseTupleAndKeywords(args, kw, "O&:Mlx5Cqe64", kwlist,
					   pv_conv_u64,
					   &((struct cqe64 *)obj)->addr) ?
		       0 :
		       -1;
}

static int cqe64_read(PyObject *obj, struct mlx5_cqe64 *cqe)
{
	return pv_read_mem(cqe, ((struct cqe64 *)obj)->addr, sizeof(*cqe));
}

static PyObject *cqe64_dump(PyObject *obj, PyObject *unused)
{
	struct mlx5_cqe64 cqe;
	uint32_t w[16];
	char out[16 * 9 + 1], *p = out;
	int i;

	if (cqe64_read(obj, &cqe))
		return NULL;
	memcpy(w, &cqe, sizeof(w));
	for (i = 0; i < 16; i++)
		p += sprintf(p, "%08x%c", be32toh(w[i]),
			     i % 4 == 3 ? '\n' : ' ');
	return PyUnicode_FromString(out);
}

static PyObject *cqe64_is_empty(PyObject *obj, PyObject *unused)
{
	static const struct mlx5_cqe64 zero;
	struct mlx5_cqe64 cqe;

	if (cqe64_read(obj, &cqe))
		return NULL;
	return PyBool_FromLong(!memcmp(&cqe, &zero, sizeof(cqe)));
}

enum {
	CQE_OWNER,
	CQE_SE,
	CQE_FORMAT,
	CQE_OPCODE,
	CQE_IMM_INVAL_PKEY,
	CQE_WQE_ID,
	CQE_BYTE_CNT,
	CQE_TIMESTAMP,
	CQE_WQE_COUNTER,
	CQE_SIGNATURE,
	CQE_OP_OWN,
};

static PyObject *cqe64_get(PyObject *obj, void *closure)
{
	struct mlx5_cqe64 c;
	unsigned long long v;

	if (cqe64_read(obj, &c))
		return NULL;
	switch ((int)(intptr_t)closure) {
	case CQE_OWNER:
		v = mlx5dv_get_cqe_owner(&c);
		break;
	case CQE_SE:
		v = mlx5dv_get_cqe_se(&c);
		break;
	case CQE_FORMAT:
		v = mlx5dv_get_cqe_format(&c);
		break;
	case CQE_OPCODE:
		v = mlx5dv_get_cqe_opcode(&c);
		break;
	case CQE_IMM_INVAL_PKEY:
		v = be32toh(c.imm_inval_pkey);
		break;
	case CQE_WQE_ID:
		v = be16toh(c.wqe_id);
		break;
	case CQE_BYTE_CNT:
		v = be32toh(c.byte_cnt);
		break;
	case CQE_TIMESTAMP:
		v = be64toh(c.timestamp);
		break;
	case CQE_WQE_COUNTER:
		v = be16toh(c.wqe_counter);
		break;
	case CQE_SIGNATURE:
		v = c.signature;
		break;
	default:
		v = c.op_own;
		break;
	}
	return PyLong_FromUnsignedLongLong(v);
}

static int cqe64_set_owner(PyObject *obj, PyObject *value, void *closure)
{
	struct cqe64 *self = (struct cqe64 *)obj;
	struct mlx5_cqe64 c;
	uint8_t v;

	if (pv_refuse_delete(value, "owner") || !pv_conv_u8(value, &v) ||
	    cqe64_read(obj, &c))
		return -1;
	mlx5dv_set_cqe_owner(&c, v);
	return pv_write_mem(self->addr + offsetof(struct mlx5_cqe64, op_own),
			    &c.op_own, 1);
}

static PyMethodDef cqe64_methods[] = {
	{ "dump", cqe64_dump, METH_NOARGS,
	  "dump($self, /)\n--\n\n"
	  "The CQE as 16 big-endian 32-bit words, four per line." },
	{ "is_empty", cqe64_is_empty, METH_NOARGS,
	  "is_empty($self, /)\n--\n\nTrue if all 64 bytes are zero." },
	{ NULL }
};

#define CQE_GET(name, id, doc) \
	{ name, cqe64_get, NULL, doc, (void *)(intptr_t)(id) }

static PyGetSetDef cqe64_getset[] = {
	{ "owner", cqe64_get, cqe64_set_owner,
	  "The owner bit (mlx5dv_get/set_cqe_owner).", (void *)CQE_OWNER },
	CQE_GET("se", CQE_SE, "The solicited-event bit."),
	CQE_GET("format", CQE_FORMAT, "The CQE format."),
	CQE_GET("opcode", CQE_OPCODE, "The CQE opcode."),
	CQE_GET("imm_inval_pkey", CQE_IMM_INVAL_PKEY,
		"Immediate data, invalidated rkey or pkey."),
	CQE_GET("wqe_id", CQE_WQE_ID, "The WQE id."),
	CQE_GET("byte_cnt", CQE_BYTE_CNT, "The byte count."),
	CQE_GET("timestamp", CQE_TIMESTAMP, "The completion timestamp."),
	CQE_GET("wqe_counter", CQE_WQE_COUNTER, "The WQE counter."),
	CQE_GET("signature", CQE_SIGNATURE, "The signature byte."),
	CQE_GET("op_own", CQE_OP_OWN, "Opcode, format, SE and owner byte."),
	{ NULL }
};

PV_TYPE_SPEC(cqe64, "pyverbs.providers.mlx5.mlx5dv.Mlx5Cqe64", struct cqe64,
	     "Mlx5Cqe64(addr)\n--\n\n"
	     "A view of the 64-byte CQE at the raw address addr; an "
	     "address that cannot be read raises PyverbsUserError.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, cqe64_init },
	     { Py_tp_methods, cqe64_methods },
	     { Py_tp_getset, cqe64_getset }, );

int pv_mlx5_wqe_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &seg_spec, &pv.PyverbsCM, &pv_mlx5.WqeSeg },
		{ &ctrl_spec, &pv_mlx5.WqeSeg, &pv_mlx5.WqeCtrlSeg },
		{ &data_spec, &pv_mlx5.WqeSeg, &pv_mlx5.WqeDataSeg },
		{ &wqe_spec, &pv.PyverbsCM, &pv_mlx5.Wqe },
		{ &cqe64_spec, &pv.PyverbsObject, &pv_mlx5.Cqe64 },
		{ NULL }
	};

	return pv_add_types(m, types);
}
