/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * MREx (pyverbs.mr): an MR registered with ibv_reg_mr_ex() (rdma-core 59),
 * whose init attributes say, bit by bit of comp_mask, what is given:
 *
 *   address / the memory  IBV_REG_MR_MASK_ADDR (as MR: an int, a buffer
 *                         object, or, with neither address nor fd and a
 *                         length, memory pyverbs allocates);
 *   implicit=True         the whole address space (ADDR with a NULL
 *                         address and SIZE_MAX bytes: implicit ODP), the
 *                         memory above still allocated for read()/write();
 *   iova                  IBV_REG_MR_MASK_IOVA;
 *   fd, fd_offset         IBV_REG_MR_MASK_FD | _FD_OFFSET (a dma-buf);
 *   dmah                  IBV_REG_MR_MASK_DMAH (a DMAHandle);
 *   buf                   IBV_REG_MR_MASK_BUF (rdma-core 64: a Buf of the
 *                         same PD; address, default the Buf's start, must
 *                         lie in it).
 *
 * Contradictions (ADDR with FD, a Buf with FD) are left to libibverbs,
 * which refuses them (EINVAL); a provider without reg_mr_ex gets the
 * legacy registration calls, which refuse a DMA handle (EOPNOTSUPP).
 *
 * Lifetimes: a child of its PD, of its Buf and of its DMAHandle, each of
 * which deregisters it when closed first.  Everything else (read, write,
 * rereg, sge, the buffer protocol) is MR's.
 */
#include "buf.h"
#include "dmah.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "mr.h"
#include "pd.h"
#include "state.h"

#include <errno.h>
#include <string.h>

/* The arguments of MREx(), converted. */
struct mrex_args {
	PyObject *address;
	size_t length;
	unsigned int access;
	int implicit;
	int has_iova, has_fd;
	uint64_t iova, fd_offset;
	int fd;
	struct pv_pd *pd;
	struct pv_dmah *dmah; /* or NULL */
	struct pv_buf *buf;   /* or NULL */
};

/* Convert iova and fd (None or ints) and check the handles' types (not
 * whether they are open: a build without ibv_reg_mr_ex says so first). */
static int mrex_convert(struct mrex_args *a, PyObject *pd, PyObject *iova,
			PyObject *fd, PyObject *dmah, PyObject *buf)
{
	if ((a->has_iova = iova != Py_None) && !pv_conv_u64(iova, &a->iova))
		return -1;
	if ((a->has_fd = fd != Py_None) && !pv_conv_int(fd, &a->fd))
		return -1;
	if (dmah != Py_None && !PyObject_TypeCheck(dmah, pv.DMAHandle)) {
		PyErr_Format(PyExc_TypeError,
			     "dmah must be a DMAHandle or None, not %.100s",
			     Py_TYPE(dmah)->tp_name);
		return -1;
	}
	if (!(a->pd = pv_pd_typed(pd)) ||
	    (buf != Py_None && !(a->buf = pv_buf_typed(buf))))
		return -1;
	if (a->buf && a->address != Py_None && !PyLong_Check(a->address)) {
		PyErr_Format(PyExc_TypeError,
			     "with a buf, address must be an int in it, not "
			     "%.100s",
			     Py_TYPE(a->address)->tp_name);
		return -1;
	}
	return 0;
}

#if HAVE_IBV_REG_MR_EX
/* Every argument converted: whether each handle is open. */
static int mrex_handles(struct mrex_args *a, PyObject *dmah)
{
	if (pv_check_open(&a->pd->obj) || (a->buf && pv_buf_check_open(a->buf)))
		return -1;
	if (dmah != Py_None) {
		if (pv_check_open(PV_OBJ(dmah)))
			return -1;
		a->dmah = (struct pv_dmah *)dmah;
	}
	return 0;
}

/* The MR's memory: in the Buf, the caller's address or buffer, or
 * allocated here (no address, no fd, a length).  0 or -1. */
static int mrex_memory(struct pv_mr *self, struct mrex_args *a)
{
	uint64_t addr;

	if (a->buf) {
		uint64_t base = (uintptr_t)a->buf->addr;

		if (a->address == Py_None)
			addr = base;
		else if (pv_to_u64(a->address, UINTPTR_MAX, &addr, "address"))
			return -1;
		if (pv_buf_range(a->buf, addr - base, &a->length,
				 "ibv_reg_mr_ex"))
			return -1;
		self->buf = (void *)(uintptr_t)addr;
		return 0;
	}
	if (a->address != Py_None &&
	    pv_mr_user_memory(self, a->address, a->access, &a->length))
		return -1;
	if (!self->buf && a->length && !a->has_fd)
		return pv_mr_alloc(self, a->length,
				   !!(a->access & IBV_ACCESS_HUGETLB));
	return 0;
}

/* ibv_reg_mr_ex() with the mask the arguments make.  0 or -1. */
static int mrex_register(struct pv_mr *self, struct mrex_args *a)
{
	struct ibv_mr_init_attr in;

	memset(&in, 0, sizeof(in));
	in.length = a->implicit ? SIZE_MAX : a->length;
	in.access = (int)a->access;
	if (a->implicit || self->buf) {
		in.comp_mask |= IBV_REG_MR_MASK_ADDR;
		in.addr = a->implicit ? NULL : self->buf;
	}
	if (a->has_iova) {
		in.comp_mask |= IBV_REG_MR_MASK_IOVA;
		in.iova = a->iova;
	}
	if (a->has_fd) {
		in.comp_mask |= IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET;
		in.fd = a->fd;
		in.fd_offset = a->fd_offset;
	}
	if (a->dmah) {
		in.comp_mask |= IBV_REG_MR_MASK_DMAH;
		in.dmah = a->dmah->dmah;
	}
#if HAVE_IBV_REG_MR_MASK_BUF
	if (a->buf) { /* (before 64 no Buf opens: pv_buf_arg() says so) */
		in.comp_mask |= IBV_REG_MR_MASK_BUF;
		in.buf = a->buf->buf;
	}
#endif
	self->mr = ibv_reg_mr_ex(a->pd->pd, &in); /* NULL, errno */
	if (!self->mr) {
		pv_raise_errno("ibv_reg_mr_ex",
			       "Failed to register MR using extended API");
		return -1;
	}
	self->length = a->length;
	return 0;
}
#endif

static int mrex_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd",	      "length", "access",    "address",
				  "iova",     "fd",	"fd_offset", "dmah",
				  "implicit", "buf",	NULL };
	struct pv_mr *self = (struct pv_mr *)obj;
	PyObject *pd, *iova = Py_None, *fd = Py_None, *dmah = Py_None;
	PyObject *buf = Py_None;
	struct mrex_args a;

	memset(&a, 0, sizeof(a));
	a.address = Py_None;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&O&OOOO&OpO:MREx",
					 kwlist, &pd, pv_conv_size, &a.length,
					 pv_conv_u32, &a.access, &a.address,
					 &iova, &fd, pv_conv_u64, &a.fd_offset,
					 &dmah, &a.implicit, &buf))
		return -1;
	if (!self->obj.closed || self->obj.nparents || self->mr) {
		pv_raise_user("MREx is already initialised");
		return -1;
	}
	if (mrex_convert(&a, pd, iova, fd, dmah, buf))
		return -1;
#if HAVE_IBV_REG_MR_EX
	if (mrex_handles(&a, dmah))
		return -1;
	pv_obj_setup(&self->obj, pv_mr_destroy);
	if (mrex_memory(self, &a) || mrex_register(self, &a)) {
		pv_mr_failed(self);
		return -1;
	}
	return pv_mr_opened(self, &a.pd->obj, a.buf ? &a.buf->obj : NULL,
			    a.dmah ? &a.dmah->obj : NULL);
#else
	pv_raise_needs("ibv_reg_mr_ex", 59);
	return -1;
#endif
}

static PyObject *mrex_str(PyObject *obj)
{
	static const char *const names[] = { "lkey", "rkey",   "length",
					     "buf",  "handle", NULL };

	return pv_rows_str(obj, "MREx:\n", names);
}

PV_TYPE_SPEC(mrex, "pyverbs.mr.MREx", struct pv_mr,
	     "MREx(pd, length=0, access=0, address=None, iova=None, "
	     "fd=None, fd_offset=0, dmah=None, implicit=False, "
	     "buf=None)\n--\n\n"
	     "An MR registered with ibv_reg_mr_ex: the memory of address "
	     "(an int or a buffer object; else allocated here when length "
	     "is given and fd is not), or the whole address space "
	     "(implicit), or a dma-buf (fd, fd_offset), or part of a Buf; "
	     "iova and a DMAHandle optional.  A child of its PD, Buf and "
	     "DMAHandle; an MR in every other way.",
	     { Py_tp_init, mrex_init }, { Py_tp_str, mrex_str }, );

int pv_mr_ex_init_types(PyObject *m)
{
	/* what the build's rdma-core has, for the tests */
	return PyModule_AddIntConstant(m, "_HAVE_REG_MR_EX",
				       HAVE_IBV_REG_MR_EX) ||
	       pv_add_type(m, &mrex_spec, pv.MR, &pv.MREx);
}
