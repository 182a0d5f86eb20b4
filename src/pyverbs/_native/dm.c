/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Device memory: AllocDmAttr and DM (pyverbs.device; ibv_alloc_dm,
 * ibv_import_dm, ibv_free_dm, ibv_memcpy_to/from_dm) and DMMR (pyverbs.mr;
 * ibv_reg_dm_mr), an MR over device memory.
 *
 * The CPU never addresses device memory directly: every access goes
 * through ibv_memcpy_to_dm / ibv_memcpy_from_dm, which the provider
 * implements.  The library checks neither the range nor the host buffer:
 * mlx5 compares dm_offset + length with the DM's size in 64-bit arithmetic
 * (a wrapping sum passes) and reads or writes length bytes of host memory.
 * So pyverbs checks both before the call: the range against the DM's
 * length (known for a DM it allocated) and against overflow, and the
 * length against the size of the data given.
 *
 * A DMMR is a child of its PD and of its DM: closing either deregisters
 * the MR first.
 */
#include "dm.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "mr.h"
#include "object.h"
#include "pd.h"
#include "state.h"

#include <errno.h>
#include <string.h>

/* ---- AllocDmAttr ---- */

struct pv_alloc_dm_attr {
	PyObject_HEAD
	struct ibv_alloc_dm_attr attr;
};

static const struct pv_field ada_fields[] = {
	PV_FIELD(struct pv_alloc_dm_attr, attr.length, "length"),
	PV_FIELD(struct pv_alloc_dm_attr, attr.log_align_req, "log_align_req"),
	PV_FIELD(struct pv_alloc_dm_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD_END
};

static int ada_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "length", "log_align_req", "comp_mask",
				  NULL };
	PyObject *vals[3] = { NULL, NULL, NULL };
	struct pv_alloc_dm_attr *self = (struct pv_alloc_dm_attr *)obj;
	int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO:AllocDmAttr", kwlist,
					 &vals[0], &vals[1], &vals[2]))
		return -1;
	memset(&self->attr, 0, sizeof(self->attr));
	for (i = 0; i < 3; i++)
		if (vals[i] && pv_field_store(obj, &ada_fields[i], vals[i]))
			return -1;
	return 0;
}

PV_DATA_SPEC(ada, "pyverbs.device.AllocDmAttr", struct pv_alloc_dm_attr,
	     "AllocDmAttr(length, log_align_req=0, comp_mask=0)\n--\n\n"
	     "How much device memory to allocate (struct "
	     "ibv_alloc_dm_attr): length in bytes, log2 of the "
	     "alignment required, and comp_mask (0: no extension).",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, ada_init }, );

/* ---- DM ---- */

/* parents[0] is the Context */
struct pv_dm {
	struct pv_obj obj;
	struct ibv_dm *dm;
	uint64_t length; /* allocated size (unknown if imported) */
	int imported;
};

static int dm_destroy(struct pv_obj *o)
{
	struct pv_dm *self = (struct pv_dm *)o;
	int rc;

	if (!self->dm)
		return 0;
	if (self->imported) {
		/* the exporter's DM: not ours to free */
		ibv_unimport_dm(self->dm);
		self->dm = NULL;
		return 0;
	}
	rc = ibv_free_dm(self->dm); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_free_dm", "Failed to free dm");
		return -1;
	}
	self->dm = NULL;
	return 0;
}

/* Allocate per attr, as upstream does: a device reporting no device memory
 * (max_dm_size 0) is refused before ibv_alloc_dm is called. */
static int dm_alloc(struct pv_dm *self, struct pv_context *ctx,
		    struct pv_alloc_dm_attr *attr)
{
	struct ibv_device_attr_ex dattr;
	int rc;

	memset(&dattr, 0, sizeof(dattr));
	rc = ibv_query_device_ex(ctx->ctx, NULL, &dattr); /* errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_query_device_ex",
			    "Failed to query EX device %V", ctx->name, "?");
		return -1;
	}
	if (!dattr.max_dm_size) {
		pv_raise_user("Device doesn't support dm allocation");
		return -1;
	}
	self->dm = ibv_alloc_dm(ctx->ctx, &attr->attr);
	if (!self->dm) {
		/* upstream's text, both periods included */
		pv_raise_errno("ibv_alloc_dm",
			       "Failed to allocate device memory of size %llu. "
			       "Max available size %llu.",
			       (unsigned long long)attr->attr.length,
			       (unsigned long long)dattr.max_dm_size);
		return -1;
	}
	self->length = attr->attr.length;
	return 0;
}

static int dm_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "dm_attr", "handle", NULL };
	struct pv_dm *self = (struct pv_dm *)obj;
	PyObject *ctxo, *attro = Py_None, *handle = Py_None;
	struct pv_context *ctx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|O$O:DM", kwlist,
					 pv.Context, &ctxo, &attro, &handle))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("DM is already initialised");
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, dm_destroy);
	if (handle != Py_None) {
		uint32_t h;

		if (!pv_conv_u32(handle, &h))
			return -1;
		self->dm = ibv_import_dm(ctx->ctx, h);
		if (!self->dm) {
			pv_raise_errno("ibv_import_dm", "Failed to import DM");
			return -1;
		}
		self->imported = 1;
	} else {
		if (!PyObject_TypeCheck(attro, pv.AllocDmAttr)) {
			PyErr_Format(PyExc_TypeError,
				     "dm_attr must be an AllocDmAttr, not "
				     "%.100s",
				     Py_TYPE(attro)->tp_name);
			return -1;
		}
		if (dm_alloc(self, ctx, (struct pv_alloc_dm_attr *)attro))
			return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		dm_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

/* The open DM o's ibv_dm, and in *length its size (0 when unknown: an
 * imported DM); else NULL with TypeError or PyverbsUserError (closed). */
struct ibv_dm *pv_dm_get(PyObject *o, uint64_t *length)
{
	struct pv_dm *self = (struct pv_dm *)o;

	if (!pv_type_ok(o, pv.DM)) {
		PyErr_Format(PyExc_TypeError, "dm must be a DM, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	*length = self->imported ? 0 : self->length;
	return self->dm;
}

/*
 * Check [offset, offset + length) of an open DM before a copy: outside the
 * allocated size (unknown for an imported DM), or wrapping around 2^64,
 * raises the copy's PyverbsRDMAError with EFAULT, the provider's own code
 * for a range outside the DM (mlx5), so that callers see one error
 * whichever side caught it.
 */
static int dm_check_range(struct pv_dm *self, uint64_t offset, uint64_t length,
			  const char *func, const char *what)
{
	if (pv_check_open(&self->obj))
		return -1;
	if (length > UINT64_MAX - offset) {
		pv_raise_rc(EFAULT, func,
			    "%s: offset %llu + length %llu "
			    "overflows",
			    what, (unsigned long long)offset,
			    (unsigned long long)length);
		return -1;
	}
	if (!self->imported && offset + length > self->length) {
		pv_raise_rc(EFAULT, func,
			    "%s: [%llu, %llu) is outside the DM's %llu bytes",
			    what, (unsigned long long)offset,
			    (unsigned long long)(offset + length),
			    (unsigned long long)self->length);
		return -1;
	}
	return 0;
}

/* Copy length bytes of data (bytes-like) to the DM at offset. */
static PyObject *dm_copy_to(struct pv_dm *self, uint64_t offset, PyObject *data,
			    size_t length)
{
	Py_buffer view;
	int rc;

	if (dm_check_range(self, offset, length, "ibv_memcpy_to_dm",
			   "Failed to copy to dm"))
		return NULL;
	if (PyUnicode_Check(data)) {
		PyErr_SetString(PyExc_TypeError,
				"data must be a bytes-like object, not str");
		return NULL;
	}
	if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
		return NULL;
	if (length > (size_t)view.len) {
		PyBuffer_Release(&view);
		return pv_raise_user("length %zu exceeds the data's %zd bytes",
				     length, view.len);
	}
	/* returns errno */
	rc = ibv_memcpy_to_dm(self->dm, offset, view.buf, length);
	PyBuffer_Release(&view);
	if (rc)
		return pv_raise_rc(rc, "ibv_memcpy_to_dm",
				   "Failed to copy to dm");
	Py_RETURN_NONE;
}

static PyObject *dm_copy_from(struct pv_dm *self, uint64_t offset,
			      uint64_t length)
{
	PyObject *res;
	int rc;

	if (dm_check_range(self, offset, length, "ibv_memcpy_from_dm",
			   "Failed to copy from dm"))
		return NULL;
	if (length > PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)length);
	if (!res)
		return NULL;
	memset(PyBytes_AS_STRING(res), 0, length);
	/* returns errno */
	rc = ibv_memcpy_from_dm(PyBytes_AS_STRING(res), self->dm, offset,
				length);
	if (rc) {
		Py_DECREF(res);
		return pv_raise_rc(rc, "ibv_memcpy_from_dm",
				   "Failed to copy from dm");
	}
	return res;
}

static PyObject *dm_copy_to_dm(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dm_offset", "data", "length", NULL };
	uint64_t offset;
	PyObject *data;
	size_t length;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&OO&:copy_to_dm", kwlist,
					 pv_conv_u64, &offset, &data,
					 pv_conv_size, &length))
		return NULL;
	return dm_copy_to((struct pv_dm *)obj, offset, data, length);
}

static PyObject *dm_copy_from_dm(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dm_offset", "length", NULL };
	uint64_t offset, length;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:copy_from_dm", kwlist,
					 pv_conv_u64, &offset, pv_conv_u64,
					 &length))
		return NULL;
	return dm_copy_from((struct pv_dm *)obj, offset, length);
}

static PyObject *dm_unimport(PyObject *obj, PyObject *unused)
{
	return pv_unimport(PV_OBJ(obj), ((struct pv_dm *)obj)->imported);
}

static PyObject *dm_get_handle(PyObject *obj, void *closure)
{
	struct pv_dm *self = (struct pv_dm *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLong(self->dm->handle);
}

/* rdma-core 62: a dma-buf fd of the device memory (the caller closes it) */
static PyObject *dm_export_dmabuf_fd(PyObject *obj, PyObject *unused)
{
	struct pv_dm *self = (struct pv_dm *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
#if HAVE_IBV_DM_EXPORT_DMABUF_FD
	{
		int fd = ibv_dm_export_dmabuf_fd(self->dm); /* -1, errno */

		if (fd < 0)
			return pv_raise_errno("ibv_dm_export_dmabuf_fd",
					      "Failed to export dmabuf FD for "
					      "DM");
		return PyLong_FromLong(fd);
	}
#else
	return pv_raise_needs("ibv_dm_export_dmabuf_fd", 62);
#endif
}

static PyMethodDef dm_methods[] = {
	{ "copy_to_dm", (PyCFunction)(void (*)(void))dm_copy_to_dm,
	  METH_VARARGS | METH_KEYWORDS,
	  "copy_to_dm($self, dm_offset, data, length)\n--\n\n"
	  "Copy the first length bytes of data (bytes-like) to the device "
	  "memory at dm_offset (ibv_memcpy_to_dm)." },
	{ "copy_from_dm", (PyCFunction)(void (*)(void))dm_copy_from_dm,
	  METH_VARARGS | METH_KEYWORDS,
	  "copy_from_dm($self, dm_offset, length)\n--\n\n"
	  "The length bytes of device memory at dm_offset, as bytes "
	  "(ibv_memcpy_from_dm)." },
	{ "export_dmabuf_fd", dm_export_dmabuf_fd, METH_NOARGS,
	  "export_dmabuf_fd($self, /)\n--\n\n"
	  "A dma-buf file descriptor of the device memory "
	  "(ibv_dm_export_dmabuf_fd, rdma-core 62), which the caller "
	  "closes." },
	{ "unimport", dm_unimport, METH_NOARGS,
	  "unimport($self, /)\n--\n\n"
	  "Release an imported DM without freeing it (ibv_unimport_dm)." },
	{ NULL }
};

static PyGetSetDef dm_getset[] = { { "handle", dm_get_handle, NULL,
				     "The kernel handle of the DM.", NULL },
				   { NULL } };

PV_GC_TYPE_SPEC(dm, "pyverbs.device.DM", struct pv_dm,
		"DM(context, dm_attr=None, *, handle=None)\n--\n\n"
		"Device memory of the size dm_attr (an AllocDmAttr) asks "
		"for (ibv_alloc_dm), or with handle the DM of another "
		"process sharing the Context (ibv_import_dm).  Closing it "
		"closes its DMMRs first.",
		{ Py_tp_init, dm_init }, { Py_tp_methods, dm_methods },
		{ Py_tp_getset, dm_getset }, PV_CM_SLOTS, );

/* ---- DMMR ---- */

/* parents[0] is the PD, parents[1] the DM */
static struct pv_dm *dmmr_dm(struct pv_mr *mr)
{
	return (struct pv_dm *)pv_obj_parent(&mr->obj, 1);
}

/* The memory of a DMMR has no CPU address: the base MR's read/write/sge,
 * called on a DMMR, raise. */
static char *dmmr_mem(struct pv_mr *mr)
{
	pv_raise_user("A DMMR's memory is device memory: use its read() and "
		      "write()");
	return NULL;
}

static int dmmr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {
		"pd", "length", "access", "dm", "offset", NULL
	};
	struct pv_mr *self = (struct pv_mr *)obj;
	PyObject *pdobj, *dmobj;
	unsigned int access;
	uint64_t offset;
	struct pv_pd *pd;
	struct pv_dm *dm;
	size_t length;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&OO&:DMMR", kwlist,
					 &pdobj, pv_conv_size, &length,
					 pv_conv_u32, &access, &dmobj,
					 pv_conv_u64, &offset))
		return -1;
	if (!self->obj.closed || self->obj.nparents || self->mr) {
		pv_raise_user("DMMR is already initialised");
		return -1;
	}
	if (!PyObject_TypeCheck(dmobj, pv.DM)) {
		PyErr_Format(PyExc_TypeError, "dm must be a DM, not %.100s",
			     Py_TYPE(dmobj)->tp_name);
		return -1;
	}
	dm = (struct pv_dm *)dmobj;
	pd = pv_pd_arg(pdobj);
	if (!pd || pv_check_open(&dm->obj))
		return -1;
	if (!pv_obj_descends_from(&pd->obj, pv_obj_parent(&dm->obj, 0))) {
		pv_raise_user("The DM belongs to another Context than the PD");
		return -1;
	}
	pv_obj_setup(&self->obj, pv_mr_destroy);
	self->mem = dmmr_mem;
	/* The kernel checks the range against the DM's size. */
	self->mr = ibv_reg_dm_mr(pd->pd, dm->dm, offset, length, access);
	if (!self->mr) {
		pv_raise_errno("ibv_reg_dm_mr",
			       "Failed to register a device MR. length: %zu, "
			       "access flags: %u",
			       length, access);
		return -1;
	}
	self->length = length;
	if (pv_obj_link(&self->obj, &pd->obj) ||
	    pv_obj_link(&self->obj, &dm->obj)) {
		pv_mr_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

/* read/write take offsets in the DM, as upstream's do. */
static PyObject *dmmr_read(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "length", "offset", NULL };
	struct pv_mr *self = (struct pv_mr *)obj;
	uint64_t length, offset;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:read", kwlist,
					 pv_conv_u64, &length, pv_conv_u64,
					 &offset))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	return dm_copy_from(dmmr_dm(self), offset, length);
}

static PyObject *dmmr_write(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "data", "length", "offset", NULL };
	struct pv_mr *self = (struct pv_mr *)obj;
	PyObject *data, *bytes;
	uint64_t offset = 0;
	size_t length;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|O&:write", kwlist,
					 &data, pv_conv_size, &length,
					 pv_conv_u64, &offset))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	/* upstream encodes a str (UTF-8) */
	if (!PyUnicode_Check(data))
		return dm_copy_to(dmmr_dm(self), offset, data, length);
	bytes = PyUnicode_AsUTF8String(data);
	if (!bytes)
		return NULL;
	data = dm_copy_to(dmmr_dm(self), offset, bytes, length);
	Py_DECREF(bytes);
	return data;
}

static PyMethodDef dmmr_methods[] = {
	{ "read", (PyCFunction)(void (*)(void))dmmr_read,
	  METH_VARARGS | METH_KEYWORDS,
	  "read($self, length, offset)\n--\n\n"
	  "The length bytes of the DM at offset (from the start of the DM), "
	  "as bytes." },
	{ "write", (PyCFunction)(void (*)(void))dmmr_write,
	  METH_VARARGS | METH_KEYWORDS,
	  "write($self, data, length, offset=0)\n--\n\n"
	  "Copy the first length bytes of data (bytes-like, or str: UTF-8) "
	  "to the DM at offset (from the start of the DM)." },
	{ NULL }
};

/* No references of its own: GC support and its slots come from MR. */
PV_TYPE_SPEC(dmmr, "pyverbs.mr.DMMR", struct pv_mr,
	     "DMMR(pd, length, access, dm, offset)\n--\n\n"
	     "An MR over [offset, offset + length) of a DM "
	     "(ibv_reg_dm_mr; access usually includes "
	     "IBV_ACCESS_ZERO_BASED: addresses start at 0).  A child "
	     "of its PD and of its DM.",
	     { Py_tp_init, dmmr_init }, { Py_tp_methods, dmmr_methods }, );

int pv_dm_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &ada_spec, &pv.PyverbsObject, &pv.AllocDmAttr, ada_fields },
		{ &dm_spec, &pv.PyverbsCM, &pv.DM },
		{ &dmmr_spec, &pv.MR, &pv.DMMR },
		{ NULL }
	};

	return pv_add_types(m, types);
}
