/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5.mlx5_vfio: an mlx5 device driven from user space
 * through VFIO (a ConnectX PCI function bound to vfio-pci).
 * Mlx5VfioAttr names the PCI function; Mlx5VfioContext (an Mlx5Context)
 * opens the device mlx5dv_get_vfio_device_list() finds for it.  Its events
 * calls (mlx5dv_vfio_*) cast the context without a check, so they are only
 * reachable on a context this type opened.
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>

/* ---- Mlx5VfioAttr ---- */

struct vfio_attr {
	PyObject_HEAD
	struct mlx5dv_vfio_context_attr attr; /* pci_name: in pci_name */
	PyObject *pci_name; /* bytes (NUL-terminated), or NULL */
};

static const struct pv_field vattr_fields[] = {
	PV_FIELD(struct vfio_attr, attr.flags, "flags"),
	PV_FIELD(struct vfio_attr, attr.comp_mask, "comp_mask"), PV_FIELD_END
};

/* pci_name = v: a str without NUL (upstream encodes it). 0 or -1. */
static int vattr_set_pci_name(PyObject *obj, PyObject *v, void *closure)
{
	struct vfio_attr *self = (struct vfio_attr *)obj;
	PyObject *b;

	if (pv_refuse_delete(v, "pci_name"))
		return -1;
	if (!PyUnicode_Check(v)) {
		PyErr_Format(PyExc_TypeError,
			     "pci_name must be str, not "
			     "%.100s",
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	b = PyUnicode_AsUTF8String(v);
	if (!b)
		return -1;
	if (strlen(PyBytes_AS_STRING(b)) != (size_t)PyBytes_GET_SIZE(b)) {
		Py_DECREF(b);
		PyErr_SetString(PyExc_ValueError,
				"embedded null character in pci_name");
		return -1;
	}
	Py_XSETREF(self->pci_name, b);
	return 0;
}

static PyObject *vattr_get_pci_name(PyObject *obj, void *closure)
{
	struct vfio_attr *self = (struct vfio_attr *)obj;

	return Py_NewRef(self->pci_name ? self->pci_name : Py_None);
}

static PyGetSetDef vattr_extra[] = {
	{ "pci_name", vattr_get_pci_name, vattr_set_pci_name,
	  "The PCI name of the function (set as str, read as bytes).", NULL },
	{ NULL }
};

static int vattr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pci_name", "flags", "comp_mask", NULL };
	PyObject *name, *vals[2] = { NULL, NULL };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OO:Mlx5VfioAttr", kwlist,
					 &name, &vals[0], &vals[1]))
		return -1;
	if (vattr_set_pci_name(obj, name, NULL))
		return -1;
	return pv_mlx5_store_fields(obj, vattr_fields, vals, 2);
}

static void vattr_dealloc(PyObject *obj)
{
	PyTypeObject *tp = Py_TYPE(obj);

	Py_CLEAR(((struct vfio_attr *)obj)->pci_name);
	tp->tp_free(obj);
	Py_DECREF(tp);
}

PV_TYPE_SPEC(vattr, "pyverbs.providers.mlx5.mlx5_vfio.Mlx5VfioAttr",
	     struct vfio_attr,
	     "Mlx5VfioAttr(pci_name, flags=0, comp_mask=0)\n--\n\n"
	     "Which VFIO device to open (struct "
	     "mlx5dv_vfio_context_attr): the PCI name "
	     "('0000:08:00.0') and MLX5DV_VFIO_CTX_FLAGS_*.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, vattr_init },
	     { Py_tp_dealloc, vattr_dealloc }, { Py_tp_getset, NULL }, );

/* ---- Mlx5VfioContext ---- */

static int vctx_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr", NULL };
	struct pv_context *self = (struct pv_context *)obj;
	struct mlx5dv_vfio_context_attr a;
	struct ibv_device **list;
	struct vfio_attr *va;
	PyObject *attr;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:Mlx5VfioContext", kwlist,
					 &attr))
		return -1;
	if (!PyObject_TypeCheck(attr, pv_mlx5.VfioAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'attr' has incorrect type (expected "
			     "%s, got %.200s)",
			     vattr_spec.name, Py_TYPE(attr)->tp_name);
		return -1;
	}
	va = (struct vfio_attr *)attr;
	if (!va->pci_name) {
		pv_raise_user("Mlx5VfioAttr has no pci_name");
		return -1;
	}
	if (!self->obj.closed || self->obj.nparents || self->ctx ||
	    self->dev_list) {
		pv_raise_user("Mlx5VfioContext is already initialised");
		return -1;
	}
	pv_obj_setup(&self->obj, pv_context_destroy);
	Py_XSETREF(self->name,
		   PyUnicode_FromEncodedObject(va->pci_name, NULL, NULL));
	if (!self->name)
		return -1;
	a = va->attr;
	a.pci_name = PyBytes_AS_STRING(va->pci_name);
	errno = 0;
	list = mlx5dv_get_vfio_device_list(&a); /* NULL, errno */
	if (!list) {
		pv_raise_code(errno, "mlx5dv_get_vfio_device_list",
			      "Failed to get VFIO device list");
		return -1;
	}
	if (!list[0]) {
		ibv_free_device_list(list);
		pv_raise_code(0, "mlx5dv_get_vfio_device_list",
			      "Failed to get VFIO device");
		return -1;
	}
	self->ctx = ibv_open_device(list[0]); /* NULL, errno */
	if (!self->ctx)
		pv_raise_errno("ibv_open_device",
			       "Failed to open mlx5 VFIO device (%s)",
			       ibv_get_device_name(list[0]));
	ibv_free_device_list(list);
	if (!self->ctx)
		return -1;
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *vctx_get_events_fd(PyObject *obj, PyObject *unused)
{
	struct pv_context *self = (struct pv_context *)obj;
	int fd;

	if (pv_check_open(&self->obj))
		return NULL;
	fd = mlx5dv_vfio_get_events_fd(self->ctx); /* fd or -errno */
	if (fd < 0)
		return pv_raise_rc(-fd, "mlx5dv_vfio_get_events_fd",
				   "Failed to get VFIO events FD");
	return PyLong_FromLong(fd);
}

static PyObject *vctx_process_events(PyObject *obj, PyObject *unused)
{
	struct pv_context *self = (struct pv_context *)obj;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	rc = mlx5dv_vfio_process_events(self->ctx); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_vfio_process_events",
				   "VFIO process events failed");
	Py_RETURN_NONE;
}

static PyMethodDef vctx_methods[] = {
	{ "get_events_fd", vctx_get_events_fd, METH_NOARGS,
	  "get_events_fd($self, /)\n--\n\n"
	  "The file descriptor to poll for the device's events." },
	{ "process_events", vctx_process_events, METH_NOARGS,
	  "process_events($self, /)\n--\n\n"
	  "Let the driver process the device's ready events (call it from "
	  "the application's thread when the events fd is readable)." },
	{ NULL }
};

/* GC and its slots: inherited from the base */
PV_TYPE_SPEC(vctx, "pyverbs.providers.mlx5.mlx5_vfio.Mlx5VfioContext",
	     struct pv_context,
	     "Mlx5VfioContext(attr)\n--\n\n"
	     "An mlx5 context over the VFIO device that the "
	     "Mlx5VfioAttr attr names.",
	     { Py_tp_init, vctx_init }, { Py_tp_methods, vctx_methods }, );

int pv_mlx5_vfio_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &vattr_spec, &pv.PyverbsObject, &pv_mlx5.VfioAttr,
		  vattr_fields, NULL, vattr_extra },
		{ &vctx_spec, &pv_mlx5.Context, &pv_mlx5.VfioContext },
		{ NULL }
	};

	return pv_add_types(m, types);
}
