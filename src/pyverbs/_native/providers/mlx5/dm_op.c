/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Mlx5DmOpAddr of pyverbs.providers.mlx5.mlx5dv: the address at which the
 * device applies an operation to device memory (mlx5dv_dm_map_op_addr), a
 * child of its DM.  As upstream does since rdma-core 52, write() and read()
 * are one load or store of 1, 2, 4 or 8 bytes (an operation is applied per
 * access: a memcpy could split it); 16 bytes and every other length raise
 * PyverbsUserError in upstream's words.
 */
#include "mlx5.h"
#include "dm.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * parents[0] is the DM.  mlx5dv_dm_map_op_addr() maps the DM's length,
 * rounded up to pages, for one operation and returns the address of the
 * DM's start inside that mapping (its offset in its first page); the
 * mapping is the caller's to munmap.  It is device memory, out of reach of
 * the fault-safe copies of pyverbs.mem_alloc (process_vm_readv does not
 * reach I/O mappings), so read() and write() copy directly and stay within
 * the DM's length and the mapping: a range past either is refused.
 * unmap() unmaps from the mapping's first page, never past its end (upstream
 * passes addr itself to munmap, which fails unless addr is page aligned).
 * Closing forgets the address (the mapping stays until unmap(), as
 * upstream); closing the DM closes this first.
 */
struct dm_op_addr {
	struct pv_obj obj;
	char *addr;
	uint64_t limit; /* bytes usable from addr */
	uint64_t span;	/* bytes mapped from the page of addr */
};

static int dm_op_addr_destroy(struct pv_obj *o)
{
	((struct dm_op_addr *)o)->addr = NULL;
	return 0;
}

static uint64_t page_size(void)
{
	return (uint64_t)sysconf(_SC_PAGESIZE);
}

static int dm_op_addr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dm", "op", NULL };
	struct dm_op_addr *self = (struct dm_op_addr *)obj;
	uint64_t length, page = page_size(), off;
	PyObject *dmo;
	uint8_t op = 0;
	struct ibv_dm *dm;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&:Mlx5DmOpAddr", kwlist,
					 &dmo, pv_conv_u8, &op))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5DmOpAddr is already initialised");
		return -1;
	}
	dm = pv_dm_get(dmo, &length);
	if (!dm)
		return -1;
	pv_obj_setup(&self->obj, dm_op_addr_destroy);
	self->addr = mlx5dv_dm_map_op_addr(dm, op);
	if (!self->addr) {
		pv_raise_errno("mlx5dv_dm_map_op_addr",
			       "Failed to get DM operation address");
		return -1;
	}
	/* an imported DM's length is unknown: trust its first page only */
	off = (uintptr_t)self->addr & (page - 1);
	self->span = length ? (length + page - 1) / page * page : page;
	self->limit = self->span > off ? self->span - off : 0;
	if (length && length < self->limit)
		self->limit = length;
	if (pv_obj_link(&self->obj, PV_OBJ(dmo))) {
		self->addr = NULL;
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

/* Check [0, length) against the usable range; 0 or -1. */
static int dm_op_addr_range(struct dm_op_addr *self, uint64_t length)
{
	if (pv_check_open(&self->obj))
		return -1;
	if (length > self->limit) {
		pv_raise_user("%llu bytes exceed the %llu bytes mapped at the "
			      "DM operation address",
			      (unsigned long long)length,
			      (unsigned long long)self->limit);
		return -1;
	}
	return 0;
}

static PyObject *dm_op_addr_unmap(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "length", NULL };
	struct dm_op_addr *self = (struct dm_op_addr *)obj;
	uint64_t length, page = page_size(), off, len;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:unmap", kwlist,
					 pv_conv_u64, &length) ||
	    dm_op_addr_range(self, length))
		return NULL;
	off = (uintptr_t)self->addr & (page - 1);
	len = (off + length + page - 1) / page * page;
	if (len > self->span)
		len = self->span;
	if (munmap(self->addr - off, len))
		return pv_raise_errno("munmap", "Failed to unmap the DM "
						"operation address");
	/* nothing is mapped at addr any more */
	if (pv_close_own(&self->obj))
		return NULL;
	Py_RETURN_NONE;
}

/*
 * One access of len bytes between the operation address and buf: a load
 * (store 0) or a store, as a single instruction of that width.  len must
 * be 1, 2, 4 or 8; else PyverbsUserError (upstream's words).  0 or -1.
 */
static int dm_op_access(struct dm_op_addr *self, void *buf, uint64_t len,
			int store)
{
	volatile void *p = self->addr;

	if (len == 16) {
		pv_raise_user("Currently PyVerbs does not support 16 bytes "
			      "Memic Atomic operations");
		return -1;
	}
	if (len != 1 && len != 2 && len != 4 && len != 8) {
		pv_raise_user("Memic Atomic operations do not support with "
			      "length: %llu",
			      (unsigned long long)len);
		return -1;
	}
	if (dm_op_addr_range(self, len))
		return -1;
	/* one access of the given width; the DM's offset in its op page
	 * need not be a multiple of it (x86 takes an unaligned access as
	 * one), so the type says alignment 1: no undefined behaviour */
#define DM_OP(t)                                             \
	do {                                                 \
		typedef t __attribute__((aligned(1))) una_t; \
		t v_;                                        \
		if (store) {                                 \
			memcpy(&v_, buf, sizeof(v_));        \
			*(volatile una_t *)p = v_;           \
		} else {                                     \
			v_ = *(volatile una_t *)p;           \
			memcpy(buf, &v_, sizeof(v_));        \
		}                                            \
	} while (0)
	switch (len) {
	case 1:
		DM_OP(uint8_t);
		break;
	case 2:
		DM_OP(uint16_t);
		break;
	case 4:
		DM_OP(uint32_t);
		break;
	default:
		DM_OP(uint64_t);
		break;
	}
#undef DM_OP
	return 0;
}

static PyObject *dm_op_addr_write(PyObject *obj, PyObject *arg)
{
	struct dm_op_addr *self = (struct dm_op_addr *)obj;
	PyObject *ret = NULL;
	uint64_t v = 0;
	Py_buffer view;

	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE))
		return NULL;
	/* the bytes first: the buffer's owner is Python code's to change */
	if (view.len <= (Py_ssize_t)sizeof(v))
		memcpy(&v, view.buf, view.len);
	if (!dm_op_access(self, &v, (uint64_t)view.len, 1))
		ret = Py_NewRef(Py_None);
	PyBuffer_Release(&view);
	return ret;
}

static PyObject *dm_op_addr_read(PyObject *obj, PyObject *arg)
{
	struct dm_op_addr *self = (struct dm_op_addr *)obj;
	uint64_t length, v = 0;

	if (!pv_conv_u64(arg, &length) || pv_check_open(&self->obj))
		return NULL;
	if (dm_op_access(self, &v, length, 0))
		return NULL;
	return PyBytes_FromStringAndSize((const char *)&v, (Py_ssize_t)length);
}

static PyObject *dm_op_addr_get_addr(PyObject *obj, void *closure)
{
	struct dm_op_addr *self = (struct dm_op_addr *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromVoidPtr(self->addr);
}

static PyMethodDef dm_op_addr_methods[] = {
	{ "unmap", (PyCFunction)(void (*)(void))dm_op_addr_unmap,
	  METH_VARARGS | METH_KEYWORDS,
	  "unmap($self, /, length)\n--\n\n"
	  "munmap the operation address's mapping (length bytes from addr); "
	  "the object is closed after." },
	{ "write", dm_op_addr_write, METH_O,
	  "write($self, data, /)\n--\n\n"
	  "Store data (bytes-like, 1, 2, 4 or 8 bytes) at the operation "
	  "address, in one access." },
	{ "read", dm_op_addr_read, METH_O,
	  "read($self, length, /)\n--\n\n"
	  "Load length (1, 2, 4 or 8) bytes at the operation address, in "
	  "one access." },
	{ NULL }
};

static PyGetSetDef dm_op_addr_getset[] = { { "addr", dm_op_addr_get_addr, NULL,
					     "The operation address (an int).",
					     NULL },
					   { NULL } };

PV_GC_TYPE_SPEC(dm_op_addr, "pyverbs.providers.mlx5.mlx5dv.Mlx5DmOpAddr",
		struct dm_op_addr,
		"Mlx5DmOpAddr(dm, op=0)\n--\n\n"
		"The address at which the device applies operation op to "
		"the device memory dm (mlx5dv_dm_map_op_addr).",
		{ Py_tp_init, dm_op_addr_init },
		{ Py_tp_methods, dm_op_addr_methods },
		{ Py_tp_getset, dm_op_addr_getset }, PV_CM_SLOTS, );

int pv_mlx5_dm_op_init_types(PyObject *m)
{
	return pv_add_type(m, &dm_op_addr_spec, pv.PyverbsCM,
			   &pv_mlx5.DmOpAddr);
}
