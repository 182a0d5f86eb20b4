/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Buf and BufMR (pyverbs.mr): memory that the provider of a PD allocates
 * for it (ibv_alloc_buf / ibv_free_buf, rdma-core 64; a confidential
 * guest's parent domain gets shared, unprotected memory, other PDs plain
 * pages), and an MR over part of it (ibv_reg_buf_mr).
 *
 * Lifetimes: a Buf is a child of its PD (libibverbs frees it through the
 * PD, which must outlive it); a BufMR is a child of its PD and of its Buf,
 * so closing either deregisters the MR before the memory goes.  The MR's
 * memory belongs to the Buf: read()/write() reach it while both are open,
 * but it is not exported through the buffer protocol (a memoryview could
 * outlive the Buf).
 *
 * A build against an older rdma-core keeps the names; Buf() raises,
 * naming rdma-core 64 (export_dmabuf_fd(): 65).
 */
#include "buf.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "mr.h"
#include "pd.h"
#include "state.h"

#include <errno.h>

/* ---- Buf ---- */

static int buf_destroy(struct pv_obj *o)
{
#if HAVE_IBV_ALLOC_BUF && HAVE_IBV_FREE_BUF
	struct pv_buf *self = (struct pv_buf *)o;

	if (self->buf) {
		ibv_free_buf(self->buf);
		self->buf = NULL;
		self->addr = NULL;
	}
#endif
	return 0;
}

static int buf_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd", "size", NULL };
	struct pv_buf *self = (struct pv_buf *)obj;
	PyObject *pdobj;
	struct pv_pd *pd;
	size_t size;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:Buf", kwlist, &pdobj,
					 pv_conv_size, &size))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Buf is already initialised");
		return -1;
	}
	if (!(pd = pv_pd_arg(pdobj)))
		return -1;
	pv_obj_setup(&self->obj, buf_destroy);
#if HAVE_IBV_ALLOC_BUF && HAVE_IBV_FREE_BUF
	self->addr = ibv_alloc_buf(pd->pd, size, &self->buf); /* NULL, errno */
	if (!self->addr) {
		self->buf = NULL;
		pv_raise_errno("ibv_alloc_buf",
			       "Failed to allocate ibv_buf of size %zu", size);
		return -1;
	}
	self->size = size;
	if (pv_obj_link(&self->obj, &pd->obj)) {
		buf_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
#else
	pv_raise_needs("ibv_alloc_buf", 64);
	return -1;
#endif
}

struct pv_buf *pv_buf_typed(PyObject *o)
{
	if (!PyObject_TypeCheck(o, pv.Buf)) {
		PyErr_Format(PyExc_TypeError, "buf must be a Buf, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	return (struct pv_buf *)o;
}

int pv_buf_check_open(struct pv_buf *b)
{
#if HAVE_IBV_ALLOC_BUF && HAVE_IBV_FREE_BUF
	return pv_check_open(&b->obj);
#else
	/* no Buf opens in this build: say why rather than "closed" */
	pv_raise_needs("ibv_alloc_buf", 64);
	return -1;
#endif
}

int pv_buf_range(struct pv_buf *b, uint64_t off, size_t *length,
		 const char *func)
{
	if (off > b->size) {
		pv_raise_rc(EINVAL, func,
			    "Offset %llu is beyond the Buf's %zu bytes",
			    (unsigned long long)off, b->size);
		return -1;
	}
	if (!*length)
		*length = b->size - off;
	if (*length > b->size - off) {
		pv_raise_rc(EINVAL, func,
			    "%zu bytes at offset %llu exceed the Buf's %zu",
			    *length, (unsigned long long)off, b->size);
		return -1;
	}
	return 0;
}

static PyObject *buf_export_dmabuf_fd(PyObject *obj, PyObject *unused)
{
	struct pv_buf *self = (struct pv_buf *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
#if HAVE_IBV_EXPORT_BUF_DMABUF_FD
	{
		int fd = ibv_export_buf_dmabuf_fd(self->buf); /* -1, errno */

		if (fd < 0)
			return pv_raise_errno("ibv_export_buf_dmabuf_fd",
					      "Failed to export dmabuf FD for "
					      "Buf");
		return PyLong_FromLong(fd);
	}
#else
	return pv_raise_needs("ibv_export_buf_dmabuf_fd", 65);
#endif
}

static PyObject *buf_get_addr(PyObject *obj, void *closure)
{
	struct pv_buf *self = (struct pv_buf *)obj;

	return PyLong_FromUnsignedLongLong(
		self->obj.closed ? 0 : (uintptr_t)self->addr);
}

static PyObject *buf_get_size(PyObject *obj, void *closure)
{
	struct pv_buf *self = (struct pv_buf *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromSize_t(self->size);
}

static PyObject *buf_get_pd(PyObject *obj, void *closure)
{
	struct pv_obj *pd = pv_obj_parent(PV_OBJ(obj), 0);

	return Py_NewRef(pd ? (PyObject *)pd : Py_None);
}

static PyObject *buf_str(PyObject *obj)
{
	static const char *const names[] = { "addr", "size", NULL };

	return pv_rows_str(obj, "Buf:\n", names);
}

static PyMethodDef buf_methods[] = {
	{ "export_dmabuf_fd", buf_export_dmabuf_fd, METH_NOARGS,
	  "export_dmabuf_fd($self, /)\n--\n\n"
	  "A new dma-buf file descriptor of the Buf's memory, the caller's to "
	  "close (ibv_export_buf_dmabuf_fd); ENODATA for memory that is no "
	  "dma-buf." },
	{ NULL }
};

static PyGetSetDef buf_getset[] = {
	{ "addr", buf_get_addr, NULL,
	  "Address of the Buf's memory (0 once closed).", NULL },
	{ "size", buf_get_size, NULL, "Size in bytes.", NULL },
	{ "pd", buf_get_pd, NULL, "The PD that allocated the Buf.", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(buf, "pyverbs.mr.Buf", struct pv_buf,
		"Buf(pd, size)\n--\n\n"
		"size bytes of memory allocated by pd's provider for pd "
		"(ibv_alloc_buf), to register with BufMR or MREx(buf=) on the "
		"same PD.  A child of the PD.",
		{ Py_tp_init, buf_init }, { Py_tp_methods, buf_methods },
		{ Py_tp_getset, buf_getset }, { Py_tp_str, buf_str },
		PV_CM_SLOTS, );

/* ---- BufMR ---- */

static int buf_mr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd",	    "buf",    "length",
				  "access", "offset", NULL };
	struct pv_mr *self = (struct pv_mr *)obj;
	PyObject *pdobj, *bufobj;
	size_t length = 0, offset = 0;
	unsigned int access = 0;
	struct pv_buf *b;
	struct pv_pd *pd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O&O&O&:BufMR", kwlist,
					 &pdobj, &bufobj, pv_conv_size, &length,
					 pv_conv_u32, &access, pv_conv_size,
					 &offset))
		return -1;
	if (!self->obj.closed || self->obj.nparents || self->mr) {
		pv_raise_user("BufMR is already initialised");
		return -1;
	}
	if (!(pd = pv_pd_typed(pdobj)) || !(b = pv_buf_typed(bufobj)) ||
	    pv_check_open(&pd->obj) || pv_buf_check_open(b))
		return -1;
	if (pv_buf_range(b, offset, &length, "ibv_reg_buf_mr"))
		return -1;
	pv_obj_setup(&self->obj, pv_mr_destroy);
#if HAVE_IBV_REG_BUF_MR
	self->buf = (char *)b->addr + offset;
	/* NULL, errno (EINVAL: the Buf is another PD's) */
	self->mr = ibv_reg_buf_mr(pd->pd, b->buf, self->buf, length, access);
	if (!self->mr) {
		pv_raise_errno("ibv_reg_buf_mr",
			       "Failed to register a buf MR. length: %zu, access "
			       "flags: %u",
			       length, access);
		pv_mr_failed(self);
		return -1;
	}
	self->length = length;
	return pv_mr_opened(self, &pd->obj, &b->obj, NULL);
#else
	pv_raise_needs("ibv_reg_buf_mr", 64);
	return -1;
#endif
}

PV_TYPE_SPEC(buf_mr, "pyverbs.mr.BufMR", struct pv_mr,
	     "BufMR(pd, buf, length=0, access=0, offset=0)\n--\n\n"
	     "An MR over [offset, offset + length) of a Buf (ibv_reg_buf_mr; "
	     "length 0: to the Buf's end), on the PD that allocated it.  A "
	     "child of the PD and of the Buf.  Its memory is the Buf's: "
	     "read()/write() reach it, the buffer protocol does not.",
	     { Py_tp_init, buf_mr_init }, );

int pv_buf_init_types(PyObject *m)
{
	return PyModule_AddIntConstant(m, "_HAVE_BUF",
				       HAVE_IBV_ALLOC_BUF &&
					       HAVE_IBV_FREE_BUF &&
					       HAVE_IBV_REG_BUF_MR) ||
	       PyModule_AddIntConstant(m, "_HAVE_BUF_DMABUF_FD",
				       HAVE_IBV_EXPORT_BUF_DMABUF_FD) ||
	       pv_add_type(m, &buf_spec, pv.PyverbsCM, &pv.Buf) ||
	       pv_add_type(m, &buf_mr_spec, pv.MR, &pv.BufMR);
}
