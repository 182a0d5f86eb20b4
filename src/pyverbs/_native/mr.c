/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * MR: a registered memory region (ibv_reg_mr / ibv_dereg_mr).
 *
 * The memory comes from one of:
 *   - pyverbs itself (the default): page aligned and zeroed, or huge pages
 *     when IBV_ACCESS_HUGETLB is asked for; freed after deregistration;
 *   - a writable buffer-protocol object given as `address` (bytearray, mmap,
 *     numpy array, ...): its Py_buffer is held until deregistration, so the
 *     memory cannot move or go away under the device;
 *   - a raw address given as an int (upstream's way): the caller keeps it
 *     valid, pyverbs neither frees nor reads it except through read/write.
 *
 * The MR exports its memory through the buffer protocol (memoryview(mr),
 * numpy.frombuffer(mr, ...)).  Closing the MR while views are alive
 * deregisters it at once but keeps the memory until the last view is
 * released, so a view never points at freed memory.
 */
#include "mr.h"
#include "memory.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "pd.h"
#include "rdmacm_ops.h"
#include "state.h"
#include "args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE_SIZE (2UL * 1024 * 1024)

/* Release the memory behind the MR once nothing can use it any more. */
static void mr_release_memory(struct pv_mr *self)
{
	if (self->exports)
		return; /* the last view's release comes back here */
	if (self->own_buf) {
		pv_mem_disown(self->own_buf);
		if (self->own_mmap)
			munmap(self->own_buf, self->own_len);
		else
			free(self->own_buf);
		self->own_buf = NULL;
	}
	if (self->has_user) {
		PyBuffer_Release(&self->user);
		self->has_user = 0;
	}
}

int pv_mr_destroy(struct pv_obj *o)
{
	struct pv_mr *self = (struct pv_mr *)o;
	int rc;

	if (!self->mr)
		return 0;
	if (self->imported) {
#if HAVE_IBV_IMPORT_MR
		ibv_unimport_mr(self->mr);
#endif
	} else {
		rc = ibv_dereg_mr(self->mr); /* returns errno */
		if (rc) {
			pv_raise_rc(rc, "ibv_dereg_mr", "Failed to dereg MR");
			return -1;
		}
	}
	self->mr = NULL;
	mr_release_memory(self);
	if (!self->own_buf && !self->has_user)
		self->buf = NULL;
	return 0;
}

int pv_mr_alloc(struct pv_mr *self, size_t length, int huge)
{
	void *p;

	if (huge) {
		size_t len = (length + HUGE_PAGE_SIZE - 1) &
			     ~(HUGE_PAGE_SIZE - 1);

		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED) {
			pv_raise_error("Failed to allocate MR buffer of size %zu",
				       length);
			return -1;
		}
		self->own_mmap = 1;
		self->own_len = len;
	} else {
		/* whole pages: madvise() may take them (nothing else there) */
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		size_t len = (length + page - 1) & ~(page - 1);

		if (length > SIZE_MAX - page || posix_memalign(&p, page, len)) {
			pv_raise_error("Failed to allocate MR buffer of size %zu",
				       length);
			return -1;
		}
		memset(p, 0, len);
		self->own_len = len;
	}
	if (pv_mem_own(p, self->own_len)) {
		if (self->own_mmap)
			munmap(p, self->own_len);
		else
			free(p);
		self->own_mmap = 0;
		return -1;
	}
	self->own_buf = p;
	self->buf = p;
	return 0;
}

/* what lets the device write an MR's memory */
#define MR_WRITE_ACCESS                                     \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	 IBV_ACCESS_REMOTE_ATOMIC)

/* MR(pd, handle=h): ibv_import_mr().  0 or -1. */
static int mr_import(struct pv_mr *self, struct pv_pd *pd, PyObject *handle)
{
#if HAVE_IBV_IMPORT_MR
	uint32_t h;

	if (!pv_conv_u32(handle, &h))
		return -1;
	self->mr = ibv_import_mr(pd->pd, h);
	if (!self->mr) {
		pv_raise_errno("ibv_import_mr", "Failed to import MR");
		return -1;
	}
	self->imported = 1;
	self->buf = self->mr->addr;
	self->length = self->mr->length;
	return 0;
#else
	pv_raise_unsupported("MR import (ibv_import_mr)");
	return -1;
#endif
}

/*
 * The memory of MR(..., address=): an int (an address), or any writable,
 * contiguous buffer-protocol object, or a read-only one (bytes) where the
 * access lets neither the device nor write() change the memory.  *length
 * 0 becomes the buffer's length.  0 or -1 (the buffer, if taken, is
 * released by the caller: pv_mr_failed()).
 */
int pv_mr_user_memory(struct pv_mr *self, PyObject *address,
		      unsigned int access, size_t *length)
{
	uint64_t a;

	if (PyLong_Check(address)) {
		if (pv_to_u64(address, UINTPTR_MAX, &a, "address"))
			return -1;
		self->buf = (void *)(uintptr_t)a;
		return 0;
	}
	if (PyObject_GetBuffer(address, &self->user,
			       PyBUF_WRITABLE | PyBUF_ND | PyBUF_C_CONTIGUOUS) <
	    0) {
		PyErr_Clear();
		if (access & MR_WRITE_ACCESS ||
		    PyObject_GetBuffer(address, &self->user,
				       PyBUF_ND | PyBUF_C_CONTIGUOUS) < 0) {
			PyErr_Clear();
			PyErr_Format(PyExc_TypeError,
				     "address must be an int or a writable "
				     "contiguous buffer (a read-only one "
				     "without write access), not %.100s",
				     Py_TYPE(address)->tp_name);
			return -1;
		}
		self->readonly = 1;
	}
	self->has_user = 1;
	if (!*length)
		*length = self->user.len;
	if (*length > (size_t)self->user.len) {
		pv_raise_user("length %zu exceeds the buffer's %zd bytes",
			      *length, self->user.len);
		return -1;
	}
	self->buf = self->user.buf;
	return 0;
}

/* ibv_reg_mr() of the MR's memory (allocated here when not given), or of
 * the whole address space (implicit ODP).  0 or -1. */
static int mr_register(struct pv_mr *self, struct pv_pd *pd, size_t length,
		       unsigned int access, int implicit)
{
	if (!self->buf && !implicit && length &&
	    pv_mr_alloc(self, length, !!(access & IBV_ACCESS_HUGETLB)))
		return -1;
	if (implicit)
		self->mr = ibv_reg_mr(pd->pd, NULL, SIZE_MAX, access);
	else
		self->mr = ibv_reg_mr(pd->pd, self->buf, length, access);
	if (!self->mr) {
		pv_raise_errno("ibv_reg_mr",
			       "Failed to register a MR. length: %zu, access "
			       "flags: %u",
			       length, access);
		return -1;
	}
	self->length = length;
	return 0;
}

/* The PD of MR(creator, ...): a PD, or a CMID's (rdma_reg_msgs/read/write
 * are ibv_reg_mr() on the id's PD); open.  NULL with an exception. */
static struct pv_pd *mr_creator(PyObject *creator)
{
	if (pv_cm_ops.is_cmid(creator) &&
	    !(creator = pv_cm_ops.cmid_pd_obj(creator)))
		return NULL;
	if (!PyObject_TypeCheck(creator, pv.PD)) {
		PyErr_Format(PyExc_TypeError,
			     "MR creator must be a PD or a CMID, not %.100s",
			     Py_TYPE(creator)->tp_name);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(creator)))
		return NULL;
	return (struct pv_pd *)creator;
}

void pv_mr_failed(struct pv_mr *self)
{
	mr_release_memory(self);
	self->buf = NULL;
}

int pv_mr_opened(struct pv_mr *self, struct pv_obj *pd, struct pv_obj *p1,
		 struct pv_obj *p2)
{
	if (pv_obj_link(&self->obj, pd) ||
	    (p1 && pv_obj_link(&self->obj, p1)) ||
	    (p2 && pv_obj_link(&self->obj, p2))) {
		if (!pv_mr_destroy(&self->obj))
			pv_mr_failed(self);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

/* MR.__init__ once its PD is found: import, or register the memory given
 * (or allocated here), and link to the PD.  0 or -1. */
static int mr_open(struct pv_mr *self, struct pv_pd *pd, PyObject *address,
		   PyObject *handle, size_t length, unsigned int access,
		   int implicit)
{
	pv_obj_setup(&self->obj, pv_mr_destroy);
	if (handle != Py_None) {
		if (mr_import(self, pd, handle))
			return -1;
	} else if ((address != Py_None &&
		    pv_mr_user_memory(self, address, access, &length)) ||
		   mr_register(self, pd, length, access, implicit)) {
		pv_mr_failed(self);
		return -1;
	}
	return pv_mr_opened(self, &pd->obj, NULL, NULL);
}

static int mr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "creator",  "length", "access", "address",
				  "implicit", "handle", NULL };
	struct pv_mr *self = (struct pv_mr *)obj;
	PyObject *creator, *address = Py_None, *handle = Py_None;
	size_t length = 0;
	unsigned int access = 0;
	int implicit = 0, rc;
	struct pv_use use;
	struct pv_pd *pd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&O&OpO:MR", kwlist,
					 &creator, pv_conv_size, &length,
					 pv_conv_u32, &access, &address,
					 &implicit, &handle))
		return -1;
	if (!self->obj.closed || self->obj.nparents || self->mr) {
		pv_raise_user("MR is already initialised");
		return -1;
	}
	if (!(pd = mr_creator(creator)))
		return -1;
	/* The PD in use to the end (a CMID's is made here, no argument the
	 * guard holds): converting the handle or exporting the buffer may run
	 * Python code that would close it. */
	pv_use_begin(&use, &pd->obj);
	rc = mr_open(self, pd, address, handle, length, access, implicit);
	pv_use_end(&use);
	return rc;
}

/* Bounds check for read/write/sge: [offset, offset + length) inside the
 * MR (whatever memory backs it). */
static int mr_check_range(struct pv_mr *self, Py_ssize_t length,
			  Py_ssize_t offset)
{
	if (pv_check_open(&self->obj))
		return -1;
	if (offset < 0) {
		pv_raise_user("Invalid offset %zd", offset);
		return -1;
	}
	if (length < 0) {
		pv_raise_user("Invalid length %zd", length);
		return -1;
	}
	if ((size_t)offset > self->length ||
	    (size_t)length > self->length - (size_t)offset) {
		pv_raise_user("Range [%zd, %zd) is outside the MR's %zu bytes",
			      offset, offset + length, self->length);
		return -1;
	}
	return 0;
}

/* The CPU address of the MR's first byte: buf, or what the subtype's mem()
 * hook maps (a DmaBufMR); NULL with an exception if there is none. */
static char *mr_mem(struct pv_mr *self)
{
	if (self->mem)
		return self->mem(self);
	if (!self->buf)
		pv_raise_user("The MR buffer isn't allocated");
	return self->buf;
}

/* A length or offset: an index (small ints read without a call), or -1
 * with an exception. */
static inline Py_ssize_t mr_index(PyObject *v)
{
	uint64_t x;

	if (pv_long_small(v, &x))
		return (Py_ssize_t)x; /* < 2**60 */
	return PyNumber_AsSsize_t(v, PyExc_OverflowError);
}

static PyObject *mr_read(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
			 PyObject *kwnames)
{
	static const char *const names[] = { "length", "offset" };
	struct pv_mr *self = (struct pv_mr *)obj;
	PyObject *vals[2] = { NULL, NULL };
	Py_ssize_t length, offset, i, nkw;
	char *mem;

	nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
	if (nargs > 2)
		goto usage;
	for (i = 0; i < nargs; i++)
		vals[i] = args[i];
	for (i = 0; i < nkw; i++) {
		const char *k = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
		int j = !k		     ? -1 :
			!strcmp(k, names[0]) ? 0 :
			!strcmp(k, names[1]) ? 1 :
					       -1;

		if (j < 0 || vals[j])
			goto usage;
		vals[j] = args[nargs + i];
	}
	if (!vals[0] || !vals[1])
		goto usage;
	length = mr_index(vals[0]);
	if (length == -1 && PyErr_Occurred())
		return NULL;
	offset = mr_index(vals[1]);
	if (offset == -1 && PyErr_Occurred())
		return NULL;
	if (mr_check_range(self, length, offset) || !(mem = mr_mem(self)))
		return NULL;
	return PyBytes_FromStringAndSize(mem + offset, length);
usage:
	if (!PyErr_Occurred())
		PyErr_SetString(PyExc_TypeError,
				"read() takes (length, offset)");
	return NULL;
}

PV_ARGS_SIG(mr_write_sig, "write", 3, 2, "data", "length", "offset");

/* write(data, length, offset=0): METH_FASTCALL, a bytes object copied
 * without the buffer protocol's detour. */
static PyObject *mr_write(PyObject *obj, PyObject *const *args,
			  Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_mr *self = (struct pv_mr *)obj;
	Py_ssize_t length, offset = 0, n;
	PyObject *v[3], *data;
	const char *src;
	Py_buffer view;
	int ok = 0;
	char *mem;

	if (pv_args_parse_vc(&mr_write_sig, args, nargs, kwnames, v))
		return NULL;
	data = v[0];
	length = mr_index(v[1]);
	if (length == -1 && PyErr_Occurred())
		return NULL;
	if (v[2]) {
		offset = mr_index(v[2]);
		if (offset == -1 && PyErr_Occurred())
			return NULL;
	}
	/* The data first: exporting a buffer may run Python code (a
	 * __buffer__ method) that closes the MR. */
	view.obj = NULL;
	if (PyBytes_CheckExact(data)) {
		src = PyBytes_AS_STRING(data);
		n = PyBytes_GET_SIZE(data);
	} else if (PyUnicode_Check(data)) {
		src = PyUnicode_AsUTF8AndSize(data, &n);
		if (!src)
			return NULL;
	} else {
		if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
			return NULL;
		src = view.buf;
		n = view.len;
	}
	if (mr_check_range(self, length, offset) || !(mem = mr_mem(self)))
		goto out;
	if (self->readonly) {
		pv_raise_user("The MR's memory is a read-only buffer");
		goto out;
	}
	if (length > n) {
		pv_raise_user("length %zd exceeds the data's %zd bytes", length,
			      n);
		goto out;
	}
	memmove(mem + offset, src, length);
	ok = 1;
out:
	if (view.obj)
		PyBuffer_Release(&view);
	if (!ok)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *mr_sge(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "length", "offset", NULL };
	struct pv_mr *self = (struct pv_mr *)obj;
	Py_ssize_t length = -1, offset = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|nn:sge", kwlist, &length,
					 &offset))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	if (!self->buf)
		return pv_raise_user("The MR buffer isn't allocated");
	if (length < 0 && offset >= 0 && (size_t)offset <= self->length)
		length = self->length - offset;
	if (mr_check_range(self, length, offset))
		return NULL;
	if (length > UINT32_MAX)
		return pv_raise_user("An SGE covers at most 4 GiB - 1");
	return PyObject_CallFunction((PyObject *)pv.SGE, "KIk",
				     (unsigned long long)(uintptr_t)self->buf +
					     offset,
				     (unsigned int)length,
				     (unsigned long)self->mr->lkey);
}

static PyObject *mr_rereg(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "flags",  "pd",     "addr",
				  "length", "access", NULL };
	struct pv_mr *self = (struct pv_mr *)obj;
	PyObject *pdobj = Py_None;
	struct pv_pd *pd = NULL;
	int flags = 0, access = 0;
	uint64_t addr = 0;
	size_t length = 0;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|OO&O&O&:rereg", kwlist,
					 pv_conv_uint, &flags, &pdobj,
					 pv_conv_u64, &addr, pv_conv_size,
					 &length, pv_conv_uint, &access))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	if (self->imported)
		return pv_raise_user("An imported MR cannot be re-registered");
	if (pdobj != Py_None) {
		pd = pv_pd_arg(pdobj);
		if (!pd)
			return NULL;
		if (!pv_obj_descends_from(&pd->obj,
					  pv_obj_parent(pv_obj_parent(&self->obj,
								      0),
							0)))
			return pv_raise_user("The new PD belongs to another "
					     "Context");
	}
	if ((flags & IBV_REREG_MR_CHANGE_PD) && !pd)
		return pv_raise_user("IBV_REREG_MR_CHANGE_PD needs a pd");
	if ((flags & IBV_REREG_MR_CHANGE_ACCESS) && self->readonly &&
	    (access & MR_WRITE_ACCESS))
		return pv_raise_user("The MR's memory is a read-only buffer: "
				     "no write access");
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && self->exports)
		return pv_raise_user("Cannot move an MR whose memory is "
				     "exported (release its memoryviews)");
	if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && !addr)
		return pv_raise_user("IBV_REREG_MR_CHANGE_TRANSLATION needs an "
				     "addr");
	/* returns 0 or an ibv_rereg_mr_err_code (negative) and sets errno */
	rc = ibv_rereg_mr(self->mr, flags, pd ? pd->pd : NULL,
			  (void *)(uintptr_t)addr, length, access);
	if (rc)
		return pv_raise_errno("ibv_rereg_mr",
				      "Failed to rereg MR (error %d)", rc);
	if ((flags & IBV_REREG_MR_CHANGE_PD) &&
	    pv_obj_relink(&self->obj, 0, &pd->obj))
		return NULL;
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		mr_release_memory(self);
		self->own_mmap = 0;
		self->buf = (void *)(uintptr_t)addr;
		self->length = length;
	}
	Py_RETURN_NONE;
}

static PyObject *mr_unimport(PyObject *obj, PyObject *unused)
{
	return pv_unimport(PV_OBJ(obj), ((struct pv_mr *)obj)->imported);
}

static PyObject *mr_get_buf(PyObject *obj, void *closure)
{
	struct pv_mr *self = (struct pv_mr *)obj;

	return PyLong_FromUnsignedLongLong(
		self->obj.closed ? 0 : (uintptr_t)self->buf);
}

#define MR_KEY_GETTER(field, expr)                                    \
	static PyObject *mr_get_##field(PyObject *obj, void *closure) \
	{                                                             \
		struct pv_mr *self = (struct pv_mr *)obj;             \
		if (pv_check_open(&self->obj))                        \
			return NULL;                                  \
		return PyLong_FromUnsignedLongLong(expr);             \
	}
MR_KEY_GETTER(lkey, self->mr->lkey)
MR_KEY_GETTER(rkey, self->mr->rkey)
MR_KEY_GETTER(handle, self->mr->handle)
MR_KEY_GETTER(length, self->length)

static PyObject *mr_get_mr(PyObject *obj, void *closure)
{
	struct pv_mr *self = (struct pv_mr *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->mr);
}

static PyObject *mr_get_pd(PyObject *obj, void *closure)
{
	struct pv_obj *pd = pv_obj_parent(&((struct pv_mr *)obj)->obj, 0);

	return Py_NewRef(pd ? (PyObject *)pd : Py_None);
}

static int mr_getbuffer(PyObject *obj, Py_buffer *view, int flags)
{
	struct pv_mr *self = (struct pv_mr *)obj;

	if (self->obj.closed) {
		PyErr_SetString(PyExc_BufferError, "MR is closed");
		return -1;
	}
	if (!self->own_buf && !self->has_user) {
		PyErr_SetString(PyExc_BufferError,
				"MR memory pyverbs does not hold (a raw address, "
				"a Buf's) cannot be exported");
		return -1;
	}
	if (self->length > PY_SSIZE_T_MAX) {
		PyErr_SetString(PyExc_BufferError, "MR too large to export");
		return -1;
	}
	if (PyBuffer_FillInfo(view, obj, self->buf, (Py_ssize_t)self->length,
			      self->readonly, flags) < 0)
		return -1;
	self->exports++;
	return 0;
}

static void mr_releasebuffer(PyObject *obj, Py_buffer *view)
{
	struct pv_mr *self = (struct pv_mr *)obj;

	if (--self->exports == 0 && !self->mr)
		mr_release_memory(self);
}

static int mr_traverse(PyObject *obj, visitproc visit, void *arg)
{
	struct pv_mr *self = (struct pv_mr *)obj;

	if (self->has_user)
		Py_VISIT(self->user.obj);
	return pv_obj_traverse(&self->obj, visit, arg);
}

static int mr_clear(PyObject *obj)
{
	struct pv_mr *self = (struct pv_mr *)obj;

	pv_obj_clear(&self->obj);
	if (!self->mr)
		mr_release_memory(self);
	return 0;
}

static PyMethodDef mr_methods[] = {
	{ "read", (PyCFunction)(void (*)(void))mr_read,
	  METH_FASTCALL | METH_KEYWORDS,
	  "read($self, length, offset)\n--\n\n"
	  "Copy length bytes at offset out of the MR's memory." },
	{ "write", (PyCFunction)(void (*)(void))mr_write,
	  METH_FASTCALL | METH_KEYWORDS,
	  "write($self, data, length, offset=0)\n--\n\n"
	  "Copy the first length bytes of data (bytes-like or str) into the "
	  "MR's memory at offset." },
	{ "sge", (PyCFunction)(void (*)(void))mr_sge,
	  METH_VARARGS | METH_KEYWORDS,
	  "sge($self, length=-1, offset=0)\n--\n\n"
	  "An SGE for [offset, offset + length) of this MR (length -1: to the "
	  "end), bounds checked." },
	{ "rereg", (PyCFunction)(void (*)(void))mr_rereg,
	  METH_VARARGS | METH_KEYWORDS,
	  "rereg($self, flags, pd=None, addr=0, length=0, access=0)\n--\n\n"
	  "Modify the MR's PD, translation or access (ibv_rereg_mr)." },
	{ "unimport", mr_unimport, METH_NOARGS,
	  "unimport($self, /)\n--\n\n"
	  "Release an imported MR without deregistering it." },
	{ NULL }
};

static PyGetSetDef mr_getset[] = {
	{ "buf", mr_get_buf, NULL, "Address of the MR's memory.", NULL },
	{ "lkey", mr_get_lkey, NULL, "The local key.", NULL },
	{ "rkey", mr_get_rkey, NULL, "The remote key.", NULL },
	{ "length", mr_get_length, NULL, "Registered length in bytes.", NULL },
	{ "handle", mr_get_handle, NULL, "The kernel handle of the MR.", NULL },
	{ "mr", mr_get_mr, NULL, "Address of the struct ibv_mr.", NULL },
	{ "pd", mr_get_pd, NULL, "The PD of this MR.", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(
	mr, "pyverbs.mr.MR", struct pv_mr,
	"MR(creator, length=0, access=0, address=None, implicit=False, "
	"handle=None)\n--\n\n"
	"A memory region registered on a PD.  address may be None (pyverbs "
	"allocates page-aligned zeroed memory), a writable buffer object "
	"(held until the MR is closed) or a raw address (int).",
	{ Py_tp_init, mr_init }, { Py_tp_methods, mr_methods },
	{ Py_tp_getset, mr_getset }, { Py_tp_traverse, mr_traverse },
	{ Py_tp_clear, mr_clear }, { Py_bf_getbuffer, mr_getbuffer },
	{ Py_bf_releasebuffer, mr_releasebuffer }, );

int pv_mr_init_types(PyObject *m)
{
	if (pv_args_intern(&mr_write_sig))
		return -1;
	return pv_add_type(m, &mr_spec, pv.PyverbsCM, &pv.MR);
}
