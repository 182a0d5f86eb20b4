/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * DevX objects of pyverbs.providers.mlx5.mlx5dv: Mlx5DevxObj, Mlx5UMEM,
 * Mlx5DevxEq, Mlx5DevxMsiVector (each a child of its Context).
 *
 * They take any Context, as upstream's do: libmlx5 checks the device in
 * every creator (mlx5_get_dv_ops) and fails with EOPNOTSUPP on another
 * provider's, so the errors stay the library's.
 *
 * Mailboxes: the input is bytes(in_) (bytes, or anything bytes() accepts,
 * __bytes__ included, as upstream); the output is a new bytes object of
 * outlen zero bytes that the command fills in place, returned as is.
 *
 * A created DevX object or EQ whose output mailbox says the firmware
 * command failed (status byte out[0] nonzero, syndrome in out[4:8]) is
 * destroyed before the error is raised; upstream raises and leaks it.
 */
#include "mlx5.h"
#include "context.h"
#include "dm.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Mailboxes                                                           */
/* ------------------------------------------------------------------ */

/* bytes(in_), as upstream; a new reference or NULL. */
static PyObject *devx_inbox(PyObject *in_)
{
	return PyObject_CallOneArg((PyObject *)&PyBytes_Type, in_);
}

/* A new bytes object of outlen zero bytes, filled in place by a command
 * (it is not shared until returned); NULL with an exception. */
static PyObject *devx_outbox(size_t outlen)
{
	PyObject *out;

	if (outlen > PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)outlen);
	if (out)
		memset(PyBytes_AS_STRING(out), 0, outlen);
	return out;
}

/*
 * The firmware status of a create command's output: 0 if out[0] is zero
 * (or out is empty), else -1 with PyverbsRDMAError naming the status and
 * the syndrome (out[4:8]) in upstream's words.
 */
static int devx_check_status(PyObject *out, const char *what, const char *func)
{
	const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(out);
	Py_ssize_t n = PyBytes_GET_SIZE(out), i;
	char syn[9];
	int k = 0;

	if (n < 1 || !p[0])
		return 0;
	for (i = 4; i < 8 && i < n; i++)
		k += snprintf(syn + k, sizeof(syn) - k, "%02x", p[i]);
	syn[k] = 0;
	pv_raise_code(-1, func,
		      "Failed to create %s with status(0x%x) and "
		      "syndrome (0x%s)",
		      what, p[0], syn);
	return -1;
}

/* Refuse a second __init__ on an object already created. */
static int devx_fresh(struct pv_obj *o, const char *name)
{
	if (!o->closed || o->nparents) {
		pv_raise_user("%s is already initialised", name);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Mlx5DevxObj and Mlx5DevxEq: objects created by a mailbox command     */
/* ------------------------------------------------------------------ */

/*
 * What differs between the two: the libmlx5 calls (create returns NULL
 * and sets errno; destroy returns an errno value) and the words of the
 * messages.
 */
struct devx_kind {
	const char *name; /* the Python class */
	const char *what; /* "DevX object" */
	void *(*create)(struct ibv_context *ctx, const void *in, size_t inlen,
			void *out, size_t outlen);
	const char *create_fn;
	int (*destroy)(void *handle);
	const char *destroy_fn;
	const char *destroy_msg;
};

/* parents[0] is the Context.  A DevX object's DR actions
 * (DrActionFlowCounter, DrActionDestTir) are its children. */
struct devx_mbox_obj {
	struct pv_obj obj;
	void *handle; /* struct mlx5dv_devx_obj / _devx_eq */
	const struct devx_kind *kind;
	PyObject *out_view; /* memoryview of the create output */
	int imported;	    /* by import_obj(): released by unimport */
};

static void *devx_obj_create(struct ibv_context *ctx, const void *in,
			     size_t inlen, void *out, size_t outlen)
{
	return mlx5dv_devx_obj_create(ctx, in, inlen, out, outlen);
}

static int devx_obj_destroy(void *h)
{
	return mlx5dv_devx_obj_destroy(h);
}

static void *devx_eq_create(struct ibv_context *ctx, const void *in,
			    size_t inlen, void *out, size_t outlen)
{
	return mlx5dv_devx_create_eq(ctx, in, inlen, out, outlen);
}

static int devx_eq_destroy(void *h)
{
	return mlx5dv_devx_destroy_eq(h);
}

static const struct devx_kind devx_obj_kind = {
	"Mlx5DevxObj",
	"DevX object",
	devx_obj_create,
	"mlx5dv_devx_obj_create",
	devx_obj_destroy,
	"mlx5dv_devx_obj_destroy",
	"Failed to destroy a DevX object",
};

static const struct devx_kind devx_eq_kind = {
	"Mlx5DevxEq",
	"async EQ object",
	devx_eq_create,
	"mlx5dv_devx_create_eq",
	devx_eq_destroy,
	"mlx5dv_devx_destroy_eq",
	"Failed to destroy a DevX EQ object",
};

static int mbox_destroy(struct pv_obj *o)
{
	struct devx_mbox_obj *self = (struct devx_mbox_obj *)o;
	int rc;

	if (!self->handle)
		return 0;
#if HAVE_MLX5DV_DEVX_OBJ_EXPORT
	if (self->imported) {
		mlx5dv_devx_obj_unimport(self->handle); /* void */
		self->handle = NULL;
		return 0;
	}
#endif
	rc = self->kind->destroy(self->handle); /* errno value */
	if (rc) {
		pv_raise_rc(rc, self->kind->destroy_fn, "%s",
			    self->kind->destroy_msg);
		return -1;
	}
	self->handle = NULL;
	return 0;
}

/* __init__(context, in_, outlen) of either kind. */
static int mbox_init(struct devx_mbox_obj *self, PyObject *args, PyObject *kw,
		     const struct devx_kind *kind)
{
	static char *kwlist[] = { "context", "in_", "outlen", NULL };
	PyObject *ctxo, *in_, *in, *out;
	struct pv_context *ctx;
	size_t outlen;
	char fmt[40];

	snprintf(fmt, sizeof(fmt), "O!OO&:%s", kind->name);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv.Context,
					 &ctxo, &in_, pv_conv_size, &outlen) ||
	    devx_fresh(&self->obj, kind->name))
		return -1;
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj) || !(in = devx_inbox(in_)))
		return -1;
	out = devx_outbox(outlen);
	if (!out) {
		Py_DECREF(in);
		return -1;
	}
	pv_obj_setup(&self->obj, mbox_destroy);
	self->kind = kind;
	self->imported = 0;
	self->handle = kind->create(ctx->ctx, PyBytes_AS_STRING(in),
				    PyBytes_GET_SIZE(in),
				    PyBytes_AS_STRING(out), outlen);
	Py_DECREF(in);
	if (!self->handle) {
		pv_raise_errno(kind->create_fn, "Failed to create %s",
			       kind->what);
		goto err;
	}
	if (devx_check_status(out, kind->what, kind->create_fn))
		goto err_destroy;
	Py_XSETREF(self->out_view, PyMemoryView_FromObject(out));
	if (!self->out_view || pv_obj_link(&self->obj, &ctx->obj))
		goto err_destroy;
	Py_DECREF(out);
	pv_obj_opened(&self->obj);
	return 0;
err_destroy:
	pv_mlx5_undo_create(&self->obj);
err:
	Py_DECREF(out);
	return -1;
}

static int devx_obj_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	return mbox_init((struct devx_mbox_obj *)obj, args, kw, &devx_obj_kind);
}

static int devx_eq_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	return mbox_init((struct devx_mbox_obj *)obj, args, kw, &devx_eq_kind);
}

static PyObject *mbox_get_out_view(PyObject *obj, void *closure)
{
	struct devx_mbox_obj *self = (struct devx_mbox_obj *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	/* an imported object has none */
	return Py_NewRef(self->out_view ? self->out_view : Py_None);
}

static int mbox_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct devx_mbox_obj *)obj)->out_view);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int mbox_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(((struct devx_mbox_obj *)obj)->out_view);
	return 0;
}

/* A DevX command on the open object: cmd(obj, in, inlen, out, outlen)
 * returns an errno value. */
static PyObject *devx_obj_cmd(struct devx_mbox_obj *self, PyObject *args,
			      PyObject *kw, const char *fmt,
			      int (*cmd)(struct mlx5dv_devx_obj *, const void *,
					 size_t, void *, size_t),
			      const char *func, const char *msg)
{
	static char *kwlist[] = { "in_", "outlen", NULL };
	PyObject *in_, *in, *out;
	size_t outlen;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &in_,
					 pv_conv_size, &outlen) ||
	    pv_check_open(&self->obj))
		return NULL;
	in = devx_inbox(in_);
	if (!in)
		return NULL;
	out = devx_outbox(outlen);
	if (!out) {
		Py_DECREF(in);
		return NULL;
	}
	rc = cmd(self->handle, PyBytes_AS_STRING(in), PyBytes_GET_SIZE(in),
		 PyBytes_AS_STRING(out), outlen);
	Py_DECREF(in);
	if (rc) {
		Py_DECREF(out);
		return pv_raise_rc(rc, func, "%s", msg);
	}
	return out;
}

static PyObject *devx_obj_query(PyObject *obj, PyObject *args, PyObject *kw)
{
	return devx_obj_cmd((struct devx_mbox_obj *)obj, args, kw, "OO&:query",
			    mlx5dv_devx_obj_query, "mlx5dv_devx_obj_query",
			    "Failed to query DevX object");
}

static PyObject *devx_obj_modify(PyObject *obj, PyObject *args, PyObject *kw)
{
	return devx_obj_cmd((struct devx_mbox_obj *)obj, args, kw, "OO&:modify",
			    mlx5dv_devx_obj_modify, "mlx5dv_devx_obj_modify",
			    "Failed to modify DevX object");
}

/* query_async(in_, outlen, wr_id, cmd_comp): post the query on the
 * Mlx5DevxCmdComp cmd_comp (of this object's Context), whose
 * get_async_cmd_comp() returns (wr_id, output). */
static PyObject *devx_obj_query_async(PyObject *obj, PyObject *args,
				      PyObject *kw)
{
	static char *kwlist[] = { "in_", "outlen", "wr_id", "cmd_comp", NULL };
	struct devx_mbox_obj *self = (struct devx_mbox_obj *)obj;
	struct mlx5dv_devx_cmd_comp *cc;
	PyObject *in_, *in, *cco;
	uint64_t wr_id;
	size_t outlen;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&O:query_async", kwlist,
					 &in_, pv_conv_size, &outlen,
					 pv_conv_u64, &wr_id, &cco) ||
	    pv_check_open(&self->obj))
		return NULL;
	in = devx_inbox(in_);
	if (!in)
		return NULL;
	/* bytes() ran Python code: both objects are checked after it */
	cc = pv_check_open(&self->obj) ?
		     NULL :
		     pv_mlx5_cmd_comp_get(cco, pv_obj_parent(&self->obj, 0));
	if (!cc) {
		Py_DECREF(in);
		return NULL;
	}
	rc = mlx5dv_devx_obj_query_async(self->handle, PyBytes_AS_STRING(in),
					 PyBytes_GET_SIZE(in), outlen, wr_id,
					 cc);
	Py_DECREF(in);
	if (rc) /* an errno value */
		return pv_raise_rc(rc, "mlx5dv_devx_obj_query_async",
				   "Failed to query DevX object");
	Py_RETURN_NONE;
}

/* The struct mlx5dv_devx_obj's address (what upstream returns since v62;
 * v44 returned the pointer cast to a Python object, unusable). */
static PyObject *devx_obj_get_obj(PyObject *obj, void *closure)
{
	struct devx_mbox_obj *self = (struct devx_mbox_obj *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromVoidPtr(self->handle);
}

struct mlx5dv_devx_obj *pv_mlx5_devx_obj_get(PyObject *obj)
{
	struct devx_mbox_obj *self = (struct devx_mbox_obj *)obj;

	if (!pv_type_ok(obj, pv_mlx5.DevxObj)) {
		PyErr_Format(PyExc_TypeError,
			     "expected a Mlx5DevxObj, not "
			     "%.100s",
			     Py_TYPE(obj)->tp_name);
		return NULL;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	return self->handle;
}

/* ---- export and import (rdma-core 63) ---- */

#if HAVE_MLX5DV_DEVX_OBJ_EXPORT
static int obj_export_fn(void *h, void *data)
{
	return mlx5dv_devx_obj_export(h, data);
}

static void *obj_import_fn(struct ibv_context *ctx, void *data)
{
	return mlx5dv_devx_obj_import(ctx, data);
}

static int umem_export_fn(void *h, void *data)
{
	return mlx5dv_devx_umem_export(h, data);
}

static void *umem_import_fn(struct ibv_context *ctx, void *data)
{
	return mlx5dv_devx_umem_import(ctx, data);
}
#else
#define obj_export_fn NULL
#define obj_import_fn NULL
#define umem_export_fn NULL
#define umem_import_fn NULL
#endif

static void obj_adopt(PyObject *o, void *h)
{
	struct devx_mbox_obj *self = (struct devx_mbox_obj *)o;

	pv_obj_setup(&self->obj, mbox_destroy);
	self->kind = &devx_obj_kind;
	self->handle = h;
	self->imported = 1;
}

static PyObject *obj_get_export_size(PyObject *unused, PyObject *noargs)
{
	return pv_mlx5_export_size(PV_MLX5_EXPORT_OBJ);
}

static PyObject *obj_export(PyObject *obj, PyObject *unused)
{
	struct devx_mbox_obj *self = (struct devx_mbox_obj *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return pv_mlx5_export(PV_MLX5_EXPORT_OBJ, obj_export_fn, self->handle,
			      "mlx5dv_devx_obj_export",
			      "Failed to export DevX object");
}

static PyObject *obj_import(PyObject *unused, PyObject *args, PyObject *kw)
{
	const struct pv_mlx5_import imp = {
		"OO:import_obj",
		PV_MLX5_EXPORT_OBJ,
		pv_mlx5.DevxObj,
		obj_import_fn,
		obj_adopt,
		"mlx5dv_devx_obj_import",
		"Failed to import DevX object",
	};

	return pv_mlx5_import(args, kw, &imp);
}

static PyObject *obj_unimport(PyObject *obj, PyObject *unused)
{
	return pv_unimport(PV_OBJ(obj),
			   ((struct devx_mbox_obj *)obj)->imported);
}

/* destroy()/dereg(): close(), for what was made here; an imported object
 * belongs to its exporter (upstream destroys it anyway). */
static PyObject *devx_release(PyObject *obj, int imported, const char *how)
{
	if (imported)
		return pv_raise_user("An imported %s is released with %s()",
				     _PyType_Name(Py_TYPE(obj)), how);
	if (pv_close_own(PV_OBJ(obj)))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *obj_destroy(PyObject *obj, PyObject *unused)
{
	return devx_release(obj, ((struct devx_mbox_obj *)obj)->imported,
			    "unimport_obj");
}

static PyMethodDef devx_obj_methods[] = {
	{ "get_export_size", obj_get_export_size, METH_NOARGS | METH_STATIC,
	  "get_export_size()\n--\n\n"
	  "The bytes of a DevX object's export (rdma-core 63)." },
	{ "export", obj_export, METH_NOARGS,
	  "export($self, /)\n--\n\n"
	  "The object as bytes another process imports "
	  "(mlx5dv_devx_obj_export)." },
	{ "import_obj", (PyCFunction)(void (*)(void))obj_import,
	  METH_VARARGS | METH_KEYWORDS | METH_STATIC,
	  "import_obj(context, data)\n--\n\n"
	  "An Mlx5DevxObj on Context context from another process's "
	  "export() (data: exactly get_export_size() bytes)." },
	{ "unimport_obj", obj_unimport, METH_NOARGS,
	  "unimport_obj($self, /)\n--\n\n"
	  "Release an imported object without destroying it (close() does "
	  "the same); refused for one created here." },
	{ "destroy", obj_destroy, METH_NOARGS,
	  "destroy($self, /)\n--\n\n"
	  "Destroy the object (close()); refused for an imported one." },
	{ "query", (PyCFunction)(void (*)(void))devx_obj_query,
	  METH_VARARGS | METH_KEYWORDS,
	  "query($self, /, in_, outlen)\n--\n\n"
	  "Run a query command (in_: its input mailbox, bytes or anything "
	  "bytes() accepts) on the object; return outlen bytes of output "
	  "(mlx5dv_devx_obj_query)." },
	{ "query_async", (PyCFunction)(void (*)(void))devx_obj_query_async,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_async($self, /, in_, outlen, wr_id, cmd_comp)\n--\n\n"
	  "Post a query command on the object whose outlen bytes of output "
	  "come back, with wr_id, through the Mlx5DevxCmdComp cmd_comp's "
	  "get_async_cmd_comp() (mlx5dv_devx_obj_query_async)." },
	{ "modify", (PyCFunction)(void (*)(void))devx_obj_modify,
	  METH_VARARGS | METH_KEYWORDS,
	  "modify($self, /, in_, outlen)\n--\n\n"
	  "Run a modify command on the object; return outlen bytes of "
	  "output (mlx5dv_devx_obj_modify)." },
	{ NULL }
};

static PyGetSetDef devx_obj_getset[] = {
	{ "out_view", mbox_get_out_view, NULL,
	  "The output mailbox of the create command (a memoryview).", NULL },
	{ "obj", devx_obj_get_obj, NULL,
	  "The address of the struct mlx5dv_devx_obj.", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(devx_obj, "pyverbs.providers.mlx5.mlx5dv.Mlx5DevxObj",
		struct devx_mbox_obj,
		"Mlx5DevxObj(context, in_, outlen)\n--\n\n"
		"A DevX object created by a firmware command (in_: its "
		"input mailbox; outlen: the size of its output, kept in "
		"out_view).  A command that the firmware rejects (nonzero "
		"status) raises PyverbsRDMAError with the syndrome and "
		"leaves nothing created.",
		{ Py_tp_init, devx_obj_init },
		{ Py_tp_methods, devx_obj_methods },
		{ Py_tp_getset, devx_obj_getset },
		{ Py_tp_traverse, mbox_traverse },
		{ Py_tp_clear, mbox_clear }, );

/* ------------------------------------------------------------------ */
/* Mlx5UMEM                                                            */
/* ------------------------------------------------------------------ */

/*
 * parents[0] is the Context.  With addr=None pyverbs allocates the memory
 * (aligned, zeroed) and frees it after deregistration.  A raw address is
 * the caller's, as with MR(address=<int>): pyverbs never reads or writes
 * it; the kernel pins its pages at registration and refuses (EFAULT) a
 * range that is not mapped, so a bad address is a clean error, not a crash.
 */
struct umem {
	struct pv_obj obj;
	struct mlx5dv_devx_umem *umem;
	void *addr;
	int own;      /* addr was allocated here */
	int imported; /* by import_umem(): released by unimport, no addr */
};

static int umem_destroy(struct pv_obj *o)
{
	struct umem *self = (struct umem *)o;
	int rc;

#if HAVE_MLX5DV_DEVX_OBJ_EXPORT
	if (self->umem && self->imported) {
		mlx5dv_devx_umem_unimport(self->umem); /* void */
		self->umem = NULL;
	}
#endif
	if (self->umem) {
		rc = mlx5dv_devx_umem_dereg(self->umem); /* errno */
		if (rc) {
			pv_raise_rc(rc, "mlx5dv_devx_umem_dereg",
				    "Failed to dereg UMEM.");
			return -1;
		}
		self->umem = NULL;
	}
	if (self->own)
		free(self->addr);
	self->addr = NULL;
	self->own = 0;
	return 0;
}

static int umem_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context",   "size",	    "addr",
				  "alignment", "access",    "pgsz_bitmap",
				  "comp_mask", "dmabuf_fd", NULL };
	struct umem *self = (struct umem *)obj;
	PyObject *ctxo, *addro = Py_None;
	size_t size, alignment = 64;
	uint32_t access = 0;
	uint64_t pgsz_bitmap = 0, comp_mask = 0;
	int dmabuf_fd = 0;
	struct pv_context *ctx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O&|OO&O&O&O&O&:Mlx5UMEM",
					 kwlist, pv.Context, &ctxo,
					 pv_conv_size, &size, &addro,
					 pv_conv_size, &alignment, pv_conv_u32,
					 &access, pv_conv_u64, &pgsz_bitmap,
					 pv_conv_u64, &comp_mask, pv_conv_int,
					 &dmabuf_fd))
		return -1;
	if (devx_fresh(&self->obj, "Mlx5UMEM"))
		return -1;
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, umem_destroy);
	self->imported = 0;
	if (addro != Py_None) {
		uint64_t a;

		if (pv_to_u64(addro, UINTPTR_MAX, &a, "addr"))
			return -1;
		self->addr = (void *)(uintptr_t)a;
		self->own = 0;
	} else {
		int rc;

		if (alignment < sizeof(void *) ||
		    (alignment & (alignment - 1))) {
			PyErr_Format(PyExc_ValueError,
				     "alignment must be a power of two and a "
				     "multiple of %zu, not %zu",
				     sizeof(void *), alignment);
			return -1;
		}
		rc = posix_memalign(&self->addr, alignment, size ? size : 1);
		if (rc) { /* an errno value */
			self->addr = NULL;
			PyErr_Format(PyExc_MemoryError,
				     "Failed to allocate memory (%s)",
				     strerror(rc));
			return -1;
		}
		memset(self->addr, 0, size);
		self->own = 1;
	}
	if (pgsz_bitmap || comp_mask) {
		struct mlx5dv_devx_umem_in in = {
			.addr = self->addr,
			.size = size,
			.access = access,
			.pgsz_bitmap = pgsz_bitmap,
			.comp_mask = comp_mask,
			.dmabuf_fd = dmabuf_fd,
		};

		self->umem = mlx5dv_devx_umem_reg_ex(ctx->ctx, &in);
		if (!self->umem)
			pv_raise_errno("mlx5dv_devx_umem_reg_ex",
				       "Failed to register a UMEM.");
	} else {
		self->umem = mlx5dv_devx_umem_reg(ctx->ctx, self->addr, size,
						  access);
		if (!self->umem)
			pv_raise_errno("mlx5dv_devx_umem_reg",
				       "Failed to register a UMEM.");
	}
	if (!self->umem || pv_obj_link(&self->obj, &ctx->obj)) {
		pv_mlx5_undo_create(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *umem_get_id(PyObject *obj, void *closure)
{
	struct umem *self = (struct umem *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLong(self->umem->umem_id);
}

static PyObject *umem_get_addr(PyObject *obj, void *closure)
{
	struct umem *self = (struct umem *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	if (!self->addr)
		Py_RETURN_NONE;
	return PyLong_FromVoidPtr(self->addr);
}

static void umem_adopt(PyObject *o, void *h)
{
	struct umem *self = (struct umem *)o;

	pv_obj_setup(&self->obj, umem_destroy);
	self->umem = h;
	self->addr = NULL;
	self->own = 0;
	self->imported = 1;
}

static PyObject *umem_get_export_size(PyObject *unused, PyObject *noargs)
{
	return pv_mlx5_export_size(PV_MLX5_EXPORT_UMEM);
}

static PyObject *umem_export(PyObject *obj, PyObject *unused)
{
	struct umem *self = (struct umem *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return pv_mlx5_export(PV_MLX5_EXPORT_UMEM, umem_export_fn, self->umem,
			      "mlx5dv_devx_umem_export",
			      "Failed to export UMEM");
}

static PyObject *umem_import(PyObject *unused, PyObject *args, PyObject *kw)
{
	const struct pv_mlx5_import imp = {
		"OO:import_umem",
		PV_MLX5_EXPORT_UMEM,
		pv_mlx5.UMEM,
		umem_import_fn,
		umem_adopt,
		"mlx5dv_devx_umem_import",
		"Failed to import UMEM",
	};

	return pv_mlx5_import(args, kw, &imp);
}

static PyObject *umem_unimport(PyObject *obj, PyObject *unused)
{
	return pv_unimport(PV_OBJ(obj), ((struct umem *)obj)->imported);
}

static PyObject *umem_dereg(PyObject *obj, PyObject *unused)
{
	return devx_release(obj, ((struct umem *)obj)->imported,
			    "unimport_umem");
}

static PyMethodDef umem_methods[] = {
	{ "get_export_size", umem_get_export_size, METH_NOARGS | METH_STATIC,
	  "get_export_size()\n--\n\n"
	  "The bytes of a UMEM's export (rdma-core 63)." },
	{ "export", umem_export, METH_NOARGS,
	  "export($self, /)\n--\n\n"
	  "The UMEM as bytes another process imports "
	  "(mlx5dv_devx_umem_export)." },
	{ "import_umem", (PyCFunction)(void (*)(void))umem_import,
	  METH_VARARGS | METH_KEYWORDS | METH_STATIC,
	  "import_umem(context, data)\n--\n\n"
	  "An Mlx5UMEM on Context context from another process's export() "
	  "(data: exactly get_export_size() bytes); it has no umem_addr." },
	{ "unimport_umem", umem_unimport, METH_NOARGS,
	  "unimport_umem($self, /)\n--\n\n"
	  "Release an imported UMEM without deregistering it (close() does "
	  "the same); refused for one registered here." },
	{ "dereg", umem_dereg, METH_NOARGS,
	  "dereg($self, /)\n--\n\n"
	  "Deregister the UMEM (close()); refused for an imported one." },
	{ NULL }
};

static PyGetSetDef umem_getset[] = {
	{ "umem_id", umem_get_id, NULL, "The UMEM's id.", NULL },
	{ "umem_addr", umem_get_addr, NULL,
	  "The address of the registered memory.", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(umem, "pyverbs.providers.mlx5.mlx5dv.Mlx5UMEM", struct umem,
		"Mlx5UMEM(context, size, addr=None, alignment=64, "
		"access=0, pgsz_bitmap=0, comp_mask=0, dmabuf_fd=0)\n--\n\n"
		"User memory registered for DevX (mlx5dv_devx_umem_reg, "
		"or _reg_ex when pgsz_bitmap or comp_mask is given).  "
		"With addr=None pyverbs allocates size zeroed bytes "
		"aligned to alignment; a raw addr stays the caller's.",
		{ Py_tp_init, umem_init }, { Py_tp_getset, umem_getset },
		{ Py_tp_methods, umem_methods }, PV_CM_SLOTS, );

/* ------------------------------------------------------------------ */
/* Mlx5DevxEq                                                          */
/* ------------------------------------------------------------------ */

static PyObject *devx_eq_get_vaddr(PyObject *obj, void *closure)
{
	struct devx_mbox_obj *self = (struct devx_mbox_obj *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromVoidPtr(
		((struct mlx5dv_devx_eq *)self->handle)->vaddr);
}

static PyGetSetDef devx_eq_getset[] = {
	{ "out_view", mbox_get_out_view, NULL,
	  "The output mailbox of the create command (a memoryview).", NULL },
	{ "vaddr", devx_eq_get_vaddr, NULL, "The address of the EQ's buffer.",
	  NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(devx_eq, "pyverbs.providers.mlx5.mlx5dv.Mlx5DevxEq",
		struct devx_mbox_obj,
		"Mlx5DevxEq(context, in_, outlen)\n--\n\n"
		"An event queue created by a DevX command "
		"(mlx5dv_devx_create_eq); a nonzero firmware status "
		"raises PyverbsRDMAError and leaves nothing created.",
		{ Py_tp_init, devx_eq_init }, { Py_tp_getset, devx_eq_getset },
		{ Py_tp_traverse, mbox_traverse },
		{ Py_tp_clear, mbox_clear }, );

/* ------------------------------------------------------------------ */
/* Mlx5DevxMsiVector                                                   */
/* ------------------------------------------------------------------ */

/* parents[0] is the Context (upstream does not link it; freeing the
 * vector after its context is closed would use a closed command fd) */
struct msi_vector {
	struct pv_obj obj;
	struct mlx5dv_devx_msi_vector *msi;
};

static int msi_vector_destroy(struct pv_obj *o)
{
	struct msi_vector *self = (struct msi_vector *)o;
	int rc;

	if (!self->msi)
		return 0;
	rc = mlx5dv_devx_free_msi_vector(self->msi); /* errno value */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_devx_free_msi_vector",
			    "Failed to free the msi_vector");
		return -1;
	}
	self->msi = NULL;
	return 0;
}

static int msi_vector_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", NULL };
	struct msi_vector *self = (struct msi_vector *)obj;
	PyObject *ctxo;
	struct pv_context *ctx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!:Mlx5DevxMsiVector",
					 kwlist, pv.Context, &ctxo) ||
	    devx_fresh(&self->obj, "Mlx5DevxMsiVector"))
		return -1;
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, msi_vector_destroy);
	self->msi = mlx5dv_devx_alloc_msi_vector(ctx->ctx);
	if (!self->msi) {
		pv_raise_errno("mlx5dv_devx_alloc_msi_vector",
			       "Failed to allocate an msi_vector");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		pv_mlx5_undo_create(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *msi_vector_get(PyObject *obj, void *closure)
{
	struct msi_vector *self = (struct msi_vector *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(closure ? self->msi->fd : self->msi->vector);
}

static PyGetSetDef msi_vector_getset[] = {
	{ "vector", msi_vector_get, NULL, "The MSI-X vector.", NULL },
	{ "fd", msi_vector_get, NULL, "The event fd of the vector.",
	  (void *)1 },
	{ NULL }
};

PV_GC_TYPE_SPEC(msi_vector, "pyverbs.providers.mlx5.mlx5dv.Mlx5DevxMsiVector",
		struct msi_vector,
		"Mlx5DevxMsiVector(context)\n--\n\n"
		"An MSI-X vector with its event fd "
		"(mlx5dv_devx_alloc_msi_vector).",
		{ Py_tp_init, msi_vector_init },
		{ Py_tp_getset, msi_vector_getset }, PV_CM_SLOTS, );

int pv_mlx5_devx_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &devx_obj_spec, &pv.PyverbsCM, &pv_mlx5.DevxObj },
		{ &umem_spec, &pv.PyverbsCM, &pv_mlx5.UMEM },
		{ &devx_eq_spec, &pv.PyverbsCM, &pv_mlx5.DevxEq },
		{ &msi_vector_spec, &pv.PyverbsCM, &pv_mlx5.DevxMsiVector },
		{ NULL }
	};

	return pv_add_types(m, types);
}
