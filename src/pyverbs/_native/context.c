/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Context: an opened RDMA device (ibv_open_device / ibv_close_device), and
 * the device list (ibv_get_device_list).
 */
#include <errno.h>

#include "pyverbs.h"

static int ctx_destroy(struct pv_obj *o)
{
	struct pv_context *self = (struct pv_context *)o;
	int rc;

	if (!self->ctx)
		return 0;
	rc = ibv_close_device(self->ctx);	/* returns 0 or -1 + errno */
	if (rc) {
		pv_raise_errno("ibv_close_device", "Failed to close device");
		return -1;
	}
	self->ctx = NULL;
	return 0;
}

static int ctx_open_by_name(struct pv_context *self, const char *name)
{
	struct ibv_device **list, *dev = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list) {
		pv_raise_errno("ibv_get_device_list",
			       "Failed to get devices list");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			dev = list[i];
			break;
		}
	if (!dev) {
		ibv_free_device_list(list);
		pv_raise_error("Failed to find device %s", name);
		return -1;
	}
	self->ctx = ibv_open_device(dev);
	ibv_free_device_list(list);
	if (!self->ctx) {
		pv_raise_errno("ibv_open_device", "Failed to open device %s",
			       name);
		return -1;
	}
	return 0;
}

static int ctx_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	struct pv_context *self = (struct pv_context *)obj;
	PyObject *name = NULL;
	const char *cname;

	if (PyTuple_GET_SIZE(args)) {
		PyErr_SetString(PyExc_TypeError,
				"Context() takes keyword arguments only");
		return -1;
	}
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Context is already initialised");
		return -1;
	}
	if (kw)
		name = PyDict_GetItemString(kw, "name");
	if (!name || name == Py_None) {
		pv_raise_user("Device name must be provided");
		return -1;
	}
	if (PyBytes_Check(name))
		cname = PyBytes_AS_STRING(name);
	else if (PyUnicode_Check(name))
		cname = PyUnicode_AsUTF8(name);
	else {
		PyErr_Format(PyExc_TypeError,
			     "name must be str or bytes, not %.100s",
			     Py_TYPE(name)->tp_name);
		return -1;
	}
	if (!cname)
		return -1;
	pv_obj_setup(&self->obj, ctx_destroy);
	if (ctx_open_by_name(self, cname))
		return -1;
	Py_XSETREF(self->name, PyUnicode_FromString(cname));
	if (!self->name) {
		ctx_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *ctx_get_context(PyObject *obj, void *closure)
{
	struct pv_context *self = (struct pv_context *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->ctx);
}

static PyObject *ctx_get_name(PyObject *obj, void *closure)
{
	struct pv_context *self = (struct pv_context *)obj;

	return Py_NewRef(self->name ? self->name : Py_None);
}

static PyObject *ctx_get_num_comp_vectors(PyObject *obj, void *closure)
{
	struct pv_context *self = (struct pv_context *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->ctx->num_comp_vectors);
}

static PyObject *ctx_get_cmd_fd(PyObject *obj, void *closure)
{
	struct pv_context *self = (struct pv_context *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->ctx->cmd_fd);
}

static PyGetSetDef ctx_getset[] = {
	{ "context", ctx_get_context, NULL,
	  "Address of the struct ibv_context (0 if closed).", NULL },
	{ "name", ctx_get_name, NULL, "The device name.", NULL },
	{ "num_comp_vectors", ctx_get_num_comp_vectors, NULL,
	  "Number of completion vectors.", NULL },
	{ "cmd_fd", ctx_get_cmd_fd, NULL,
	  "The command file descriptor of the device.", NULL },
	{ NULL }
};

static int ctx_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct pv_context *)obj)->name);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int ctx_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(((struct pv_context *)obj)->name);
	return 0;
}

static PyType_Slot ctx_slots[] = {
	{ Py_tp_doc, "Context(**kwargs)\n--\n\n"
		     "An opened RDMA device: Context(name='rxe0')." },
	{ Py_tp_init, ctx_init },
	{ Py_tp_getset, ctx_getset },
	{ Py_tp_traverse, ctx_traverse },
	{ Py_tp_clear, ctx_clear },
	{ 0, NULL }
};

static PyType_Spec ctx_spec = {
	.name = "pyverbs.device.Context",
	.basicsize = sizeof(struct pv_context),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = ctx_slots,
};

/* _verbs._device_list() -> [(name: bytes, node_type, transport_type, guid,
 * index)], the raw data behind pyverbs.device.get_device_list(). */
static PyObject *device_list(PyObject *m, PyObject *unused)
{
	struct ibv_device **list;
	PyObject *res;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list) {
		/* No RDMA support in this kernel at all: no devices. */
		if (errno == ENOSYS)
			return PyList_New(0);
		return pv_raise_errno("ibv_get_device_list",
				      "Failed to get devices list");
	}
	res = PyList_New(0);
	for (i = 0; res && i < n; i++) {
		struct ibv_device *d = list[i];
		PyObject *t = Py_BuildValue(
			"(y i i K i)", ibv_get_device_name(d), (int)d->node_type,
			(int)d->transport_type,
			(unsigned long long)be64toh(ibv_get_device_guid(d)),
			ibv_get_device_index(d));

		if (!t || PyList_Append(res, t))
			Py_CLEAR(res);
		Py_XDECREF(t);
	}
	ibv_free_device_list(list);
	return res;
}

static PyMethodDef ctx_module_methods[] = {
	{ "_device_list", device_list, METH_NOARGS,
	  "_device_list()\n--\n\n"
	  "[(name, node_type, transport_type, guid, index)] of each device." },
	{ NULL }
};

int pv_context_init_types(PyObject *m)
{
	if (PyModule_AddFunctions(m, ctx_module_methods))
		return -1;
	return pv_add_type(m, &ctx_spec, pv.PyverbsCM, &pv.Context);
}
