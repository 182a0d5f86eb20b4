/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5.mlx5dv_dmabuf.Mlx5DmaBufMR (rdma-core 54's
 * mlx5dv_reg_dmabuf_mr): a DmaBufMR registered through libmlx5 with mlx5
 * access flags (MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT).
 *
 * Mlx5DmaBufMR(pd, offset, length, iova=0, fd=None, access=0,
 * mlx5_access=0): fd is the dma-buf, a file descriptor as upstream takes
 * it, or a DmaBuf (whose child the MR then is, as DmaBufMR's).  The MR is
 * a child of its PD; it is the core's DmaBufMR object, so dereg, close and
 * the attributes are DmaBufMR's.  Built against an rdma-core older than 54
 * it raises the error naming the version.
 */
#include "mlx5.h"
#include "dmabuf.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "pd.h"
#include "state.h"

/* The dma-buf fd of fdo (an int or a DmaBuf); -1 with an exception. */
static int dbmr_fd(PyObject *fdo)
{
	int fd;

	if (PyObject_TypeCheck(fdo, pv.DmaBuf))
		return pv_dmabuf_fd(fdo);
	if (fdo == Py_None || PyBool_Check(fdo) || !PyLong_Check(fdo)) {
		PyErr_Format(PyExc_TypeError,
			     "fd must be a dma-buf file descriptor or a "
			     "DmaBuf, not %.100s",
			     Py_TYPE(fdo)->tp_name);
		return -1;
	}
	if (!pv_conv_int(fdo, &fd))
		return -1;
	return fd;
}

static int dbmr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd", "offset", "length",	 "iova",
				  "fd", "access", "mlx5_access", NULL };
	struct pv_dmabuf_mr *self = (struct pv_dmabuf_mr *)obj;
	uint64_t offset, length, iova = 0;
	PyObject *pdo, *fdo = Py_None;
	uint32_t access = 0, mlx5_access = 0;
	struct pv_pd *pd;
	int fd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&|O&OO&O&:Mlx5DmaBufMR",
					 kwlist, &pdo, pv_conv_u64, &offset,
					 pv_conv_u64, &length, pv_conv_u64,
					 &iova, &fdo, pv_conv_u32, &access,
					 pv_conv_u32, &mlx5_access))
		return -1;
	if (!self->mr.obj.closed || self->mr.obj.nparents || self->mr.mr) {
		pv_raise_user("Mlx5DmaBufMR is already initialised");
		return -1;
	}
	if (length > SIZE_MAX) {
		PyErr_SetString(PyExc_OverflowError, "length is out of range");
		return -1;
	}
	fd = dbmr_fd(fdo);
	pd = fd < 0 ? NULL : pv_pd_arg(pdo);
	if (!pd)
		return -1;
#if HAVE_MLX5DV_REG_DMABUF_MR
	pv_obj_setup(&self->mr.obj, pv_mr_destroy);
	self->mr.mem = pv_dmabuf_mr_mem;
	Py_XSETREF(self->dmabuf, Py_NewRef(fdo));
	self->offset = offset;
	self->internal = 0;
	self->mr.mr = mlx5dv_reg_dmabuf_mr(pd->pd, offset, length, iova, fd,
					   (int)access, (int)mlx5_access);
	if (!self->mr.mr) { /* NULL + errno */
		pv_raise_errno("mlx5dv_reg_dmabuf_mr",
			       "Failed to register a mlx5 dma-buf MR. length: "
			       "%llu, access flags: %u mlx5_access: %u",
			       (unsigned long long)length, access, mlx5_access);
		return -1;
	}
	self->mr.length = length;
	if (pv_obj_link(&self->mr.obj, &pd->obj) ||
	    (PyObject_TypeCheck(fdo, pv.DmaBuf) &&
	     pv_obj_link(&self->mr.obj, PV_OBJ(fdo)))) {
		pv_mlx5_undo_create(&self->mr.obj);
		return -1;
	}
	pv_obj_opened(&self->mr.obj);
	return 0;
#else
	(void)iova;
	pv_raise_needs("mlx5dv_reg_dmabuf_mr", 54);
	return -1;
#endif
}

/* GC and the rest: DmaBufMR's */
PV_TYPE_SPEC(dbmr, "pyverbs.providers.mlx5.mlx5dv_dmabuf.Mlx5DmaBufMR",
	     struct pv_dmabuf_mr,
	     "Mlx5DmaBufMR(pd, offset, length, iova=0, fd=None, access=0, "
	     "mlx5_access=0)\n--\n\n"
	     "A DmaBufMR over [offset, offset + length) of the dma-buf fd (a "
	     "file descriptor or a DmaBuf), seen by the device at iova, "
	     "registered by mlx5dv_reg_dmabuf_mr with the ibv access flags "
	     "access and the mlx5 ones mlx5_access "
	     "(MLX5DV_REG_DMABUF_ACCESS_*).",
	     { Py_tp_init, dbmr_init }, );

int pv_mlx5_dmabuf_mr_init_types(PyObject *m)
{
	return pv_add_type(m, &dbmr_spec, pv.DmaBufMR, &pv_mlx5.DmaBufMR);
}
