/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Mlx5VAR (mlx5dv_alloc_var), Mlx5PP (mlx5dv_pp_alloc, packet pacing) and
 * Mlx5UAR (mlx5dv_devx_alloc_uar): context resources that libmlx5 hands
 * out as structs the caller reads and frees.  Each is a lifetime object,
 * a child of its Context (any Context: libmlx5 answers EOPNOTSUPP for a
 * device that is not mlx5).  The free calls return nothing.
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>

/* The open Context of the 'context' argument, refused when None (upstream:
 * 'not None'). */
static struct pv_context *res_ctx(PyObject *o)
{
	return pv_mlx5_ctx_arg(o, "context");
}

/* ---- Mlx5VAR ---- */

struct mlx5_var {
	struct pv_obj obj; /* parents[0]: the Context */
	struct mlx5dv_var *var;
	int imported; /* by import_var(): released with mlx5dv_var_unimport */
};

static int var_destroy(struct pv_obj *o)
{
	struct mlx5_var *self = (struct mlx5_var *)o;

	if (self->var) {
#if HAVE_MLX5DV_DEVX_OBJ_EXPORT
		if (self->imported)
			mlx5dv_var_unimport(self->var);
		else
#endif
			mlx5dv_free_var(self->var);
		self->var = NULL;
	}
	return 0;
}

static int var_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "flags", NULL };
	struct mlx5_var *self = (struct mlx5_var *)obj;
	struct pv_context *ctx;
	uint32_t flags = 0;
	PyObject *ctxo;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&:Mlx5VAR", kwlist,
					 &ctxo, pv_conv_u32, &flags))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5VAR is already initialised");
		return -1;
	}
	ctx = res_ctx(ctxo);
	if (!ctx)
		return -1;
	pv_obj_setup(&self->obj, var_destroy);
	self->imported = 0;
	self->var = mlx5dv_alloc_var(ctx->ctx, flags); /* NULL, errno */
	if (!self->var) {
		pv_raise_errno("mlx5dv_alloc_var", "Failed to allocate VAR");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		var_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *var_get(PyObject *obj, void *closure)
{
	struct mlx5_var *self = (struct mlx5_var *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	switch ((intptr_t)closure) {
	case 0:
		return PyLong_FromUnsignedLong(self->var->page_id);
	case 1:
		return PyLong_FromUnsignedLong(self->var->length);
	case 2:
		return PyLong_FromLongLong(self->var->mmap_off);
	default:
		return PyLong_FromUnsignedLongLong(self->var->comp_mask);
	}
}

static PyGetSetDef var_getset[] = {
	{ "page_id", var_get, NULL, "The VAR's page id.", (void *)0 },
	{ "length", var_get, NULL, "The VAR's length.", (void *)1 },
	{ "mmap_off", var_get, NULL, "The mmap offset of the VAR.", (void *)2 },
	{ "comp_mask", var_get, NULL, "The VAR's comp_mask.", (void *)3 },
	{ NULL }
};

/* export and import (rdma-core 63) */
#if HAVE_MLX5DV_DEVX_OBJ_EXPORT
static int var_export_fn(void *h, void *data)
{
	return mlx5dv_var_export(h, data);
}

static void *var_import_fn(struct ibv_context *ctx, void *data)
{
	return mlx5dv_var_import(ctx, data);
}
#else
#define var_export_fn NULL
#define var_import_fn NULL
#endif

static void var_adopt(PyObject *o, void *h)
{
	struct mlx5_var *self = (struct mlx5_var *)o;

	pv_obj_setup(&self->obj, var_destroy);
	self->var = h;
	self->imported = 1;
}

static PyObject *var_get_export_size(PyObject *unused, PyObject *noargs)
{
	return pv_mlx5_export_size(PV_MLX5_EXPORT_VAR);
}

static PyObject *var_export(PyObject *obj, PyObject *unused)
{
	struct mlx5_var *self = (struct mlx5_var *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return pv_mlx5_export(PV_MLX5_EXPORT_VAR, var_export_fn, self->var,
			      "mlx5dv_var_export", "Failed to export VAR");
}

static PyObject *var_import(PyObject *unused, PyObject *args, PyObject *kw)
{
	const struct pv_mlx5_import imp = {
		"OO:import_var",	PV_MLX5_EXPORT_VAR, pv_mlx5.VAR,
		var_import_fn,		var_adopt,	    "mlx5dv_var_import",
		"Failed to import VAR",
	};

	return pv_mlx5_import(args, kw, &imp);
}

static PyObject *var_unimport(PyObject *obj, PyObject *unused)
{
	return pv_unimport(PV_OBJ(obj), ((struct mlx5_var *)obj)->imported);
}

/* free(): close(), for a VAR allocated here; an imported one belongs to
 * its exporter (upstream frees it: unimport_var() is what releases it). */
static PyObject *var_free(PyObject *obj, PyObject *unused)
{
	if (((struct mlx5_var *)obj)->imported)
		return pv_raise_user("An imported Mlx5VAR is released with "
				     "unimport_var()");
	if (pv_close_own(PV_OBJ(obj)))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef var_methods[] = {
	{ "get_export_size", var_get_export_size, METH_NOARGS | METH_STATIC,
	  "get_export_size()\n--\n\n"
	  "The bytes of a VAR's export (rdma-core 63)." },
	{ "export", var_export, METH_NOARGS,
	  "export($self, /)\n--\n\n"
	  "The VAR as bytes another process imports (mlx5dv_var_export)." },
	{ "import_var", (PyCFunction)(void (*)(void))var_import,
	  METH_VARARGS | METH_KEYWORDS | METH_STATIC,
	  "import_var(context, data)\n--\n\n"
	  "An Mlx5VAR on Context context from another process's export() "
	  "(data: exactly get_export_size() bytes; mlx5dv_var_import)." },
	{ "unimport_var", var_unimport, METH_NOARGS,
	  "unimport_var($self, /)\n--\n\n"
	  "Release an imported VAR without freeing it (close() does the "
	  "same); refused for a VAR allocated here." },
	{ "free", var_free, METH_NOARGS,
	  "free($self, /)\n--\n\n"
	  "Free the VAR (close()); refused for an imported one." },
	{ NULL }
};

PV_GC_TYPE_SPEC(var, "pyverbs.providers.mlx5.mlx5dv.Mlx5VAR", struct mlx5_var,
		"Mlx5VAR(context, flags=0)\n--\n\n"
		"A virtio access region (mlx5dv_alloc_var).",
		{ Py_tp_init, var_init }, { Py_tp_getset, var_getset },
		{ Py_tp_methods, var_methods }, PV_CM_SLOTS, );

/* ---- Mlx5PP ---- */

struct mlx5_pp {
	struct pv_obj obj; /* parents[0]: the Context */
	struct mlx5dv_pp *pp;
};

static int pp_destroy(struct pv_obj *o)
{
	struct mlx5_pp *self = (struct mlx5_pp *)o;

	if (self->pp) {
		mlx5dv_pp_free(self->pp);
		self->pp = NULL;
	}
	return 0;
}

static int pp_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "pp_context", "flags", NULL };
	struct mlx5_pp *self = (struct mlx5_pp *)obj;
	PyObject *ctxo, *ppo, *pp;
	struct pv_context *ctx;
	uint32_t flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O&:Mlx5PP", kwlist,
					 &ctxo, &ppo, pv_conv_u32, &flags))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5PP is already initialised");
		return -1;
	}
	ctx = res_ctx(ctxo);
	if (!ctx)
		return -1;
	pp = pv_mlx5_mailbox_in(ppo); /* bytes(pp_context) */
	if (!pp)
		return -1;
	pv_obj_setup(&self->obj, pp_destroy);
	/* NULL with errno set */
	self->pp = mlx5dv_pp_alloc(ctx->ctx, PyBytes_GET_SIZE(pp),
				   PyBytes_AS_STRING(pp), flags);
	Py_DECREF(pp);
	if (!self->pp) {
		pv_raise_errno("mlx5dv_pp_alloc",
			       "Failed to allocate packet pacing entry");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		pp_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *pp_get_index(PyObject *obj, void *closure)
{
	struct mlx5_pp *self = (struct mlx5_pp *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLong(self->pp->index);
}

static PyGetSetDef pp_getset[] = { { "index", pp_get_index, NULL,
				     "The packet pacing entry's index.", NULL },
				   { NULL } };

PV_GC_TYPE_SPEC(pp, "pyverbs.providers.mlx5.mlx5dv.Mlx5PP", struct mlx5_pp,
		"Mlx5PP(context, pp_context, flags=0)\n--\n\n"
		"A packet pacing entry (mlx5dv_pp_alloc); pp_context is "
		"its PRM context (bytes or an object with __bytes__).",
		{ Py_tp_init, pp_init }, { Py_tp_getset, pp_getset },
		PV_CM_SLOTS, );

/* ---- Mlx5UAR ---- */

struct mlx5_uar {
	struct pv_obj obj; /* parents[0]: the Context */
	struct mlx5dv_devx_uar *uar;
};

static int uar_destroy(struct pv_obj *o)
{
	struct mlx5_uar *self = (struct mlx5_uar *)o;

	if (self->uar) {
		mlx5dv_devx_free_uar(self->uar);
		self->uar = NULL;
	}
	return 0;
}

static int uar_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "flags", NULL };
	struct mlx5_uar *self = (struct mlx5_uar *)obj;
	struct pv_context *ctx;
	uint32_t flags = 0;
	PyObject *ctxo;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&:Mlx5UAR", kwlist,
					 &ctxo, pv_conv_u32, &flags))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5UAR is already initialised");
		return -1;
	}
	ctx = res_ctx(ctxo);
	if (!ctx)
		return -1;
	pv_obj_setup(&self->obj, uar_destroy);
	/* NULL with errno set */
	self->uar = mlx5dv_devx_alloc_uar(ctx->ctx, flags);
	if (!self->uar) {
		pv_raise_errno("mlx5dv_devx_alloc_uar",
			       "Failed to allocate UAR");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		uar_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *uar_get(PyObject *obj, void *closure)
{
	struct mlx5_uar *self = (struct mlx5_uar *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	switch ((intptr_t)closure) {
	case 0:
		return PyLong_FromVoidPtr(self->uar->reg_addr);
	case 1:
		return PyLong_FromVoidPtr(self->uar->base_addr);
	case 2:
		return PyLong_FromUnsignedLong(self->uar->page_id);
	case 3:
		return PyLong_FromLongLong(self->uar->mmap_off);
	case 4:
		return PyLong_FromUnsignedLongLong(self->uar->comp_mask);
	default:
		return PyLong_FromVoidPtr(self->uar);
	}
}

static PyGetSetDef uar_getset[] = {
	{ "reg_addr", uar_get, NULL, "Address of the UAR's doorbell register.",
	  (void *)0 },
	{ "base_addr", uar_get, NULL, "Base address of the UAR page.",
	  (void *)1 },
	{ "page_id", uar_get, NULL, "The UAR's page id.", (void *)2 },
	{ "mmap_off", uar_get, NULL, "The mmap offset of the UAR.", (void *)3 },
	{ "comp_mask", uar_get, NULL, "The UAR's comp_mask.", (void *)4 },
	{ "uar", uar_get, NULL, "Address of the struct mlx5dv_devx_uar.",
	  (void *)5 },
	{ NULL }
};

/* export_dmabuf_fd(): a dma-buf of the UAR page (rdma-core 62); the
 * descriptor is the caller's to close. */
static PyObject *uar_export_dmabuf_fd(PyObject *obj, PyObject *unused)
{
	struct mlx5_uar *self = (struct mlx5_uar *)obj;
#if HAVE_MLX5DV_DEVX_UAR_EXPORT_DMABUF_FD
	int fd;

	if (pv_check_open(&self->obj))
		return NULL;
	fd = mlx5dv_devx_uar_export_dmabuf_fd(self->uar); /* -1 + errno */
	if (fd < 0)
		return pv_raise_errno("mlx5dv_devx_uar_export_dmabuf_fd",
				      "Failed to export dmabuf FD for UAR");
	return PyLong_FromLong(fd);
#else
	if (pv_check_open(&self->obj))
		return NULL;
	return pv_raise_needs("mlx5dv_devx_uar_export_dmabuf_fd", 62);
#endif
}

static PyMethodDef uar_methods[] = {
	{ "export_dmabuf_fd", uar_export_dmabuf_fd, METH_NOARGS,
	  "export_dmabuf_fd($self, /)\n--\n\n"
	  "A dma-buf file descriptor of the UAR page "
	  "(mlx5dv_devx_uar_export_dmabuf_fd), the caller's to close." },
	{ NULL }
};

PV_GC_TYPE_SPEC(uar, "pyverbs.providers.mlx5.mlx5dv.Mlx5UAR", struct mlx5_uar,
		"Mlx5UAR(context, flags=0)\n--\n\n"
		"A DevX user access region (mlx5dv_devx_alloc_uar).",
		{ Py_tp_init, uar_init }, { Py_tp_getset, uar_getset },
		{ Py_tp_methods, uar_methods }, PV_CM_SLOTS, );

int pv_mlx5_uar_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &var_spec, &pv.PyverbsCM, &pv_mlx5.VAR },
		{ &pp_spec, &pv.PyverbsCM, &pv_mlx5.PP },
		{ &uar_spec, &pv.PyverbsCM, &pv_mlx5.UAR },
		{ NULL }
	};

	return pv_add_types(m, types);
}
