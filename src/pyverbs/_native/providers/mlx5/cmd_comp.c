/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Mlx5DevxCmdComp (pyverbs.providers.mlx5.mlx5dv, rdma-core 60's API over
 * calls libmlx5 44 has): the completion channel of asynchronous DevX
 * commands (mlx5dv_devx_create_cmd_comp), a child of its Context.
 * Mlx5DevxObj.query_async() (devx.c) posts a query on it; every posted
 * command completes with one response that get_async_cmd_comp() reads.
 *
 * get_async_cmd_comp() blocks in read() until a response comes: it runs
 * without the GIL with the channel marked busy, so that no close frees the
 * channel under it.  Its buffer is 8 bytes (the wr_id) plus cmd_resp_len,
 * zeroed, of which libmlx5 is told cmd_resp_len as upstream does; the
 * output returned is always cmd_resp_len bytes (zeros past what the device
 * wrote, where upstream returns what malloc left there).
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>

struct cmd_comp {
	struct pv_obj obj;
	struct mlx5dv_devx_cmd_comp *cc;
};

static int cc_destroy(struct pv_obj *o)
{
	struct cmd_comp *self = (struct cmd_comp *)o;

	if (self->cc) {
		mlx5dv_devx_destroy_cmd_comp(self->cc); /* void */
		self->cc = NULL;
	}
	return 0;
}

static int cc_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", NULL };
	struct cmd_comp *self = (struct cmd_comp *)obj;
	struct pv_context *ctx;
	PyObject *ctxo;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!:Mlx5DevxCmdComp", kwlist,
					 pv.Context, &ctxo))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5DevxCmdComp is already initialised");
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, cc_destroy);
	self->cc = mlx5dv_devx_create_cmd_comp(ctx->ctx); /* NULL + errno */
	if (!self->cc) {
		pv_raise_errno("mlx5dv_devx_create_cmd_comp",
			       "Failed to create DevX cmd comp.");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		cc_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

struct mlx5dv_devx_cmd_comp *pv_mlx5_cmd_comp_get(PyObject *o,
						  struct pv_obj *ctx)
{
	struct cmd_comp *cc = (struct cmd_comp *)o;

	if (!pv_type_ok(o, pv_mlx5.DevxCmdComp)) {
		PyErr_Format(PyExc_TypeError,
			     "cmd_comp must be a Mlx5DevxCmdComp, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_obj_check_in(&cc->obj, ctx, "Mlx5DevxCmdComp", "DevX object"))
		return NULL;
	return cc->cc;
}

/* The read of one response, run without the GIL. */
struct cc_read {
	struct mlx5dv_devx_cmd_comp *cc;
	struct mlx5dv_devx_async_cmd_hdr *resp;
	size_t len;
};

static ssize_t cc_read(void *arg)
{
	struct cc_read *r = arg;
	int rc = mlx5dv_devx_get_async_cmd_comp(r->cc, r->resp, r->len);

	errno = rc; /* it returns an errno value */
	return rc ? -1 : 0;
}

static PyObject *cc_get_async_cmd_comp(PyObject *obj, PyObject *args,
				       PyObject *kw)
{
	static char *kwlist[] = { "cmd_resp_len", NULL };
	struct cmd_comp *self = (struct cmd_comp *)obj;
	struct cc_read r = { .len = 1024 };
	PyObject *res = NULL;
	int err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&:get_async_cmd_comp",
					 kwlist, pv_conv_size, &r.len) ||
	    pv_check_open(&self->obj))
		return NULL;
	if (r.len > PY_SSIZE_T_MAX - sizeof(*r.resp))
		return PyErr_NoMemory();
	r.resp = PyMem_Calloc(1, sizeof(*r.resp) + r.len);
	if (!r.resp)
		return PyErr_NoMemory();
	r.cc = self->cc;
	if (pv_mlx5_blocking(&self->obj, NULL, cc_read, &r, &err) < 0) {
		if (!PyErr_Occurred())
			pv_raise_rc(err, "mlx5dv_devx_get_async_cmd_comp",
				    "Failed to get devx async event");
	} else {
		res = Py_BuildValue("Ky#", (unsigned long long)r.resp->wr_id,
				    (const char *)r.resp->out_data,
				    (Py_ssize_t)r.len);
	}
	PyMem_Free(r.resp);
	return res;
}

static PyObject *cc_get_fd(PyObject *obj, void *closure)
{
	struct cmd_comp *self = (struct cmd_comp *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->cc->fd);
}

/* upstream's one line: 'fd' and the descriptor as Python's hex() */
static PyObject *cc_str(PyObject *obj)
{
	struct cmd_comp *self = (struct cmd_comp *)obj;
	char hx[16], buf[64];

	if (pv_check_open(&self->obj))
		return NULL;
	snprintf(hx, sizeof(hx), "0x%x", (unsigned int)self->cc->fd);
	snprintf(buf, sizeof(buf), "%-20s: %-20s\n", "fd", hx);
	return PyUnicode_FromString(buf);
}

static PyMethodDef cc_methods[] = {
	{ "get_async_cmd_comp",
	  (PyCFunction)(void (*)(void))cc_get_async_cmd_comp,
	  METH_VARARGS | METH_KEYWORDS,
	  "get_async_cmd_comp($self, /, cmd_resp_len=1024)\n--\n\n"
	  "Wait for the next response of an asynchronous command "
	  "(mlx5dv_devx_get_async_cmd_comp): (wr_id, output), output "
	  "being cmd_resp_len bytes." },
	{ NULL }
};

static PyGetSetDef cc_getset[] = { { "fd", cc_get_fd, NULL,
				     "The channel's file descriptor.", NULL },
				   { NULL } };

PV_GC_TYPE_SPEC(cc, "pyverbs.providers.mlx5.mlx5dv.Mlx5DevxCmdComp",
		struct cmd_comp,
		"Mlx5DevxCmdComp(context)\n--\n\n"
		"The completion channel of asynchronous DevX commands "
		"(mlx5dv_devx_create_cmd_comp) on Context context; "
		"Mlx5DevxObj.query_async() posts on it.  Closing the "
		"Context closes it first.",
		{ Py_tp_init, cc_init }, { Py_tp_methods, cc_methods },
		{ Py_tp_getset, cc_getset }, { Py_tp_str, cc_str },
		PV_CM_SLOTS, );

int pv_mlx5_cmd_comp_init_types(PyObject *m)
{
	return pv_add_type(m, &cc_spec, pv.PyverbsCM, &pv_mlx5.DevxCmdComp);
}
