/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Context: an opened RDMA device (ibv_open_device / ibv_import_device /
 * ibv_close_device), its queries (device, port, GID, P_Key, clock), its
 * async events, and the device lists (ibv_get_device_list, and
 * rdma_get_devices in a build with librdmacm).  The attribute objects the
 * queries return are in device_attr.c.
 */
#include "context.h"
#include "addr.h"
#include "comp_cntr.h"
#include "device_attr.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "rdmacm_ops.h"
#include "state.h"

#include <errno.h>

#if PV_HAVE_RDMACM
#include <rdma/rdma_cma.h>
#endif

/*
 * libibverbs' enum ibv_gid_type_sysfs (what upstream's query_gid_type()
 * returns) lives in a private header; its values are ABI.
 */
enum {
	CTX_GID_TYPE_SYSFS_IB_ROCE_V1 = 0,
	CTX_GID_TYPE_SYSFS_ROCE_V2 = 1,
};

static void ctx_free_dev_list(struct pv_context *self)
{
	if (self->dev_list) {
		ibv_free_device_list(self->dev_list);
		self->dev_list = NULL;
	}
	self->device = NULL;
}

static int ctx_destroy(struct pv_obj *o)
{
	struct pv_context *self = (struct pv_context *)o;

	if (self->ctx && self->adopted) {
		self->ctx = NULL; /* the CMID's: librdmacm closes it */
	} else if (self->ctx) {
		/* returns 0, or -1 with errno set; imported contexts too
		 * (the man page: "ibv_close_device() should be called") */
		int rc;

		PV_WITHOUT_GIL(rc = ibv_close_device(self->ctx));
		if (rc) {
			pv_raise_errno("ibv_close_device",
				       "Failed to close device %U", self->name);
			return -1;
		}
		self->ctx = NULL;
	}
	ctx_free_dev_list(self);
	return 0;
}

int pv_context_destroy(struct pv_obj *o)
{
	return ctx_destroy(o);
}

/*
 * Find 'name' in a new device list.  With open, open it and free the list;
 * without, keep the list (the ibv_device stays referenced while it is
 * allocated) for a provider subclass to open.
 */
static int ctx_find_device(struct pv_context *self, const char *name, int open)
{
	struct ibv_device **list, *dev = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list && errno != ENOSYS) {
		pv_raise_code(-1, "ibv_get_device_list",
			      "Failed to get devices list");
		return -1;
	}
	for (i = 0; list && i < n; i++) {
		const char *dname = pv_device_name(list[i]);

		if (!dname) {
			ibv_free_device_list(list);
			return -1;
		}
		if (!strcmp(dname, name)) {
			dev = list[i];
			break;
		}
	}
	if (!dev) {
		if (list)
			ibv_free_device_list(list);
		/* upstream: PyverbsRDMAError with no errno */
		pv_raise_code(-1, "ibv_get_device_list",
			      "Failed to find device %s", name);
		return -1;
	}
	if (!open) {
		self->dev_list = list;
		self->device = dev;
		return 0;
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
	static char *kwlist[] = { "name", "attr", "cmid", "cmd_fd", NULL };
	struct pv_context *self = (struct pv_context *)obj;
	PyObject *name = Py_None, *attr = Py_None, *cmid = Py_None;
	PyObject *cmd_fd = Py_None, *uname = NULL;
	const char *cname;
	Py_ssize_t len;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO:Context", kwlist,
					 &name, &attr, &cmid, &cmd_fd))
		return -1;
	if (!self->obj.closed || self->obj.nparents || self->ctx ||
	    self->dev_list) {
		pv_raise_user("Context is already initialised");
		return -1;
	}
	pv_obj_setup(&self->obj, ctx_destroy);
	self->imported = 0;
	self->adopted = 0;

	if (cmid != Py_None) {
		/* the id's device context: librdmacm's, the Context is a
		 * child of the CMID */
		struct ibv_context *verbs;

		if (!pv_cm_ops.is_cmid(cmid)) {
			PyErr_Format(PyExc_TypeError,
				     "cmid must be a CMID, "
				     "not %.100s",
				     Py_TYPE(cmid)->tp_name);
			return -1;
		}
		verbs = pv_cm_ops.cmid_verbs(cmid);
		if (!verbs)
			return -1;
		Py_XSETREF(self->name, pv_device_name_str(verbs->device));
		if (!self->name || pv_obj_link(&self->obj, PV_OBJ(cmid)))
			return -1;
		self->ctx = verbs;
		self->adopted = 1;
		pv_obj_opened(&self->obj);
		return 0;
	}
	if (cmd_fd != Py_None) {
		int fd;

		if (!pv_conv_int(cmd_fd, &fd))
			return -1;
		self->ctx = ibv_import_device(fd);
		if (!self->ctx) {
			pv_raise_errno("ibv_import_device",
				       "Failed to import device");
			return -1;
		}
		self->imported = 1;
		Py_XSETREF(self->name, pv_device_name_str(self->ctx->device));
		if (!self->name) {
			ctx_destroy(&self->obj);
			return -1;
		}
		pv_obj_opened(&self->obj);
		return 0;
	}

	if (name == Py_None) {
		pv_raise_user("Device name must be provided");
		return -1;
	}
	/* Upstream takes str; bytes (as in Device.name) are accepted too. */
	if (PyBytes_Check(name))
		uname = PyUnicode_DecodeFSDefault(PyBytes_AS_STRING(name));
	else if (PyUnicode_Check(name))
		uname = Py_NewRef(name);
	else
		PyErr_Format(PyExc_TypeError,
			     "name must be str or bytes, not %.100s",
			     Py_TYPE(name)->tp_name);
	if (!uname)
		return -1;
	cname = PyUnicode_AsUTF8AndSize(uname, &len);
	if (cname && strlen(cname) != (size_t)len) {
		PyErr_SetString(PyExc_ValueError,
				"embedded null character in device name");
		cname = NULL;
	}
	if (!cname || ctx_find_device(self, cname, attr == Py_None)) {
		Py_DECREF(uname);
		return -1;
	}
	Py_XSETREF(self->name, uname);
	/*
	 * With provider attributes the subclass opens the device: the object
	 * stays closed (every method refuses it) until it does.
	 */
	if (attr == Py_None)
		pv_obj_opened(&self->obj);
	return 0;
}

#define CTX(o) ((struct pv_context *)(o))

static PyObject *ctx_get_context(PyObject *obj, void *closure)
{
	return PyLong_FromVoidPtr(CTX(obj)->obj.closed ? NULL : CTX(obj)->ctx);
}

static PyObject *ctx_get_name(PyObject *obj, void *closure)
{
	return Py_NewRef(CTX(obj)->name ? CTX(obj)->name : Py_None);
}

static PyObject *ctx_get_num_comp_vectors(PyObject *obj, void *closure)
{
	if (pv_check_open(&CTX(obj)->obj))
		return NULL;
	return PyLong_FromLong(CTX(obj)->ctx->num_comp_vectors);
}

static PyObject *ctx_get_cmd_fd(PyObject *obj, void *closure)
{
	if (pv_check_open(&CTX(obj)->obj))
		return NULL;
	return PyLong_FromLong(CTX(obj)->ctx->cmd_fd);
}

static PyObject *ctx_fileno(PyObject *obj, PyObject *unused)
{
	if (pv_check_open(&CTX(obj)->obj))
		return NULL;
	return PyLong_FromLong(CTX(obj)->ctx->async_fd);
}

/* ---- queries ---- */

static PyObject *ctx_query_device(PyObject *obj, PyObject *unused)
{
	struct pv_context *self = CTX(obj);
	struct ibv_device_attr attr;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	rc = ibv_query_device(self->ctx, &attr); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_query_device",
				   "Failed to query device %U", self->name);
	return pv_device_attr_new(&attr);
}

static PyObject *ctx_query_device_ex(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "ex_input", NULL };
	struct pv_context *self = CTX(obj);
	const struct ibv_query_device_ex_input *input = NULL;
	struct ibv_device_attr_ex attr;
	PyObject *in = Py_None;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:query_device_ex", kwlist,
					 &in))
		return NULL;
	if (in != Py_None) {
		if (!PyObject_TypeCheck(in, pv.QueryDeviceExInput))
			return PyErr_Format(PyExc_TypeError,
					    "ex_input must be a "
					    "QueryDeviceExInput or None, not "
					    "%.100s",
					    Py_TYPE(in)->tp_name);
		input = &((struct pv_query_device_ex_input *)in)->input;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	memset(&attr, 0, sizeof(attr));
	rc = ibv_query_device_ex(self->ctx, input, &attr); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_query_device_ex",
				   "Failed to query EX device %U", self->name);
	return pv_device_attr_ex_new(&attr);
}

static PyObject *ctx_query_port(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "port_num", NULL };
	struct pv_context *self = CTX(obj);
	struct ibv_port_attr attr;
	uint8_t port;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:query_port", kwlist,
					 pv_conv_u8, &port))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	memset(&attr, 0, sizeof(attr));
	rc = ibv_query_port(self->ctx, port, &attr); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_query_port",
				   "Failed to query port %u", port);
	return pv_port_attr_new(&attr);
}

static PyObject *ctx_query_gid(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "port_num", "index", NULL };
	struct pv_context *self = CTX(obj);
	union ibv_gid gid;
	uint8_t port;
	int index;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:query_gid", kwlist,
					 pv_conv_u8, &port, pv_conv_int,
					 &index))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	/* returns 0 or -1 (errno is not reliable); an empty entry is a
	 * zero GID */
	if (ibv_query_gid(self->ctx, port, index, &gid))
		return pv_raise_code(-1, "ibv_query_gid",
				     "Failed to query gid %d of port %u", index,
				     port);
	return pv_gid_new(&gid);
}

static PyObject *ctx_query_gid_type(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "port_num", "index", NULL };
	struct pv_context *self = CTX(obj);
	struct ibv_gid_entry entry;
	unsigned int index;
	uint8_t port;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:query_gid_type",
					 kwlist, pv_conv_u8, &port, pv_conv_u32,
					 &index))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	/*
	 * libibverbs' own ibv_query_gid_type() is a private symbol (its
	 * version changes with every release); do what it does through the
	 * public ibv_query_gid_ex(): an empty entry reads as IB/RoCE v1.
	 */
	rc = ibv_query_gid_ex(self->ctx, port, index, &entry, 0);
	if (rc == ENODATA)
		return PyLong_FromLong(CTX_GID_TYPE_SYSFS_IB_ROCE_V1);
	if (rc)
		return pv_raise_rc(rc, "ibv_query_gid_ex",
				   "Failed to query gid type of port %u and "
				   "gid index %u",
				   port, index);
	return PyLong_FromLong(entry.gid_type == IBV_GID_TYPE_ROCE_V2 ?
				       CTX_GID_TYPE_SYSFS_ROCE_V2 :
				       CTX_GID_TYPE_SYSFS_IB_ROCE_V1);
}

static PyObject *ctx_query_gid_ex(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "port_num", "gid_index", "flags", NULL };
	struct pv_context *self = CTX(obj);
	uint32_t port, index, flags = 0;
	struct ibv_gid_entry entry;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&:query_gid_ex",
					 kwlist, pv_conv_u32, &port,
					 pv_conv_u32, &index, pv_conv_u32,
					 &flags))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	memset(&entry, 0, sizeof(entry));
	/* returns errno; ENODATA for an empty entry */
	rc = ibv_query_gid_ex(self->ctx, port, index, &entry, flags);
	if (rc)
		return pv_raise_rc(rc, "ibv_query_gid_ex",
				   "Failed to query gid table of port %u in "
				   "index %u",
				   port, index);
	return pv_gid_entry_new(&entry);
}

static PyObject *ctx_query_gid_table(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "max_entries", "flags", NULL };
	struct pv_context *self = CTX(obj);
	struct ibv_gid_entry *entries;
	size_t max_entries;
	uint32_t flags = 0;
	PyObject *res;
	ssize_t rc, i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&:query_gid_table",
					 kwlist, pv_conv_size, &max_entries,
					 pv_conv_u32, &flags))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	if (max_entries > PY_SSIZE_T_MAX / sizeof(*entries))
		return PyErr_NoMemory();
	entries = PyMem_Calloc(max_entries ? max_entries : 1, sizeof(*entries));
	if (!entries)
		return PyErr_NoMemory();
	/* returns the number of entries, or -errno */
	rc = ibv_query_gid_table(self->ctx, entries, max_entries, flags);
	if (rc < 0) {
		PyMem_Free(entries);
		/* upstream passes the negative value on: tests compare
		 * error_code with -errno.EINVAL */
		return pv_raise_code((int)rc, "ibv_query_gid_table",
				     "Failed to query gid tables of the "
				     "device");
	}
	res = PyList_New(rc);
	for (i = 0; res && i < rc; i++) {
		PyObject *e = pv_gid_entry_new(&entries[i]);

		if (!e)
			Py_CLEAR(res);
		else
			PyList_SET_ITEM(res, i, e);
	}
	PyMem_Free(entries);
	return res;
}

static PyObject *ctx_query_pkey(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "port_num", "index", NULL };
	struct pv_context *self = CTX(obj);
	__be16 pkey;
	uint8_t port;
	int index;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:query_pkey", kwlist,
					 pv_conv_u8, &port, pv_conv_int,
					 &index))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	/* returns 0 or -1 (errno is not reliable) */
	if (ibv_query_pkey(self->ctx, port, index, &pkey))
		return pv_raise_code(-1, "ibv_query_pkey",
				     "Failed to query pkey %d of port %u",
				     index, port);
	/* as upstream: the raw (network order) value */
	return PyLong_FromLong((uint16_t)pkey);
}

static PyObject *ctx_get_pkey_index(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "port_num", "pkey", NULL };
	struct pv_context *self = CTX(obj);
	uint16_t pkey;
	uint8_t port;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:get_pkey_index",
					 kwlist, pv_conv_u8, &port, pv_conv_u16,
					 &pkey))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
#if HAVE_IBV_GET_PKEY_INDEX
	/* returns the index, or -1 with errno set */
	rc = ibv_get_pkey_index(self->ctx, port, (__be16)pkey);
	if (rc < 0)
		return pv_raise_errno("ibv_get_pkey_index",
				      "Failed to get index of pkey %u of "
				      "port %u",
				      pkey, port);
	return PyLong_FromLong(rc);
#else
	(void)rc;
	return pv_raise_unsupported("ibv_get_pkey_index");
#endif
}

/* rdma-core 62: the port's effective speed, in units of 100 Mb/s */
static PyObject *ctx_query_port_speed(PyObject *obj, PyObject *args,
				      PyObject *kw)
{
	static char *kwlist[] = { "port_num", NULL };
	struct pv_context *self = CTX(obj);
	uint32_t port;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:query_port_speed",
					 kwlist, pv_conv_u32, &port))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
#if HAVE_IBV_QUERY_PORT_SPEED
	{
		uint64_t speed;
		/* returns errno */
		int rc = ibv_query_port_speed(self->ctx, port, &speed);

		if (rc)
			return pv_raise_rc(rc, "ibv_query_port_speed",
					   "Failed to query port speed for "
					   "port %u",
					   port);
		return PyLong_FromUnsignedLongLong(speed);
	}
#else
	return pv_raise_needs("ibv_query_port_speed", 62);
#endif
}

static PyObject *ctx_query_rt_values_ex(PyObject *obj, PyObject *args,
					PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", NULL };
	struct pv_context *self = CTX(obj);
	uint32_t mask = IBV_VALUES_MASK_RAW_CLOCK;
	struct ibv_values_ex val;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&:query_rt_values_ex",
					 kwlist, pv_conv_u32, &mask))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	memset(&val, 0, sizeof(val));
	val.comp_mask = mask;
	rc = ibv_query_rt_values_ex(self->ctx, &val); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_query_rt_values_ex",
				   "Failed to query real time values");
	if (val.comp_mask != mask)
		return pv_raise_code(-1, "ibv_query_rt_values_ex",
				     "Failed to query real time values with "
				     "requested comp_mask");
	return Py_BuildValue("(LL)", (long long)val.raw_clock.tv_sec,
			     (long long)val.raw_clock.tv_nsec);
}

/* ---- async events ---- */

static int ctx_event_is_qp(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return 1;
	default:
		return 0;
	}
}

/* New reference to what the event is about, or NULL for None. */
static PyObject *ctx_event_element(struct pv_context *self,
				   const struct ibv_async_event *ev)
{
	struct pv_obj *found = NULL;

	if (pv_async_event_is_port(ev->event_type))
		return PyLong_FromLong(ev->element.port_num);
	/* by handle (object.h): the QP, CQ, WQ or SRQ among our objects */
	if (ev->event_type == IBV_EVENT_CQ_ERR)
		found = pv_obj_find_handle(&self->obj, ev->element.cq, 16);
	else if (ctx_event_is_qp(ev->event_type))
		found = pv_obj_find_handle(&self->obj, ev->element.qp, 16);
	else if (ev->event_type == IBV_EVENT_WQ_FATAL)
		found = pv_obj_find_handle(&self->obj, ev->element.wq, 16);
	else if (ev->event_type == IBV_EVENT_SRQ_ERR ||
		 ev->event_type == IBV_EVENT_SRQ_LIMIT_REACHED)
		found = pv_obj_find_handle(&self->obj, ev->element.srq, 16);
	return Py_XNewRef((PyObject *)found);
}

static PyObject *ctx_get_async_event(PyObject *obj, PyObject *unused)
{
	struct pv_context *self = CTX(obj);
	struct ibv_async_event ev;
	PyObject *element;
	int rc, err;

	if (pv_check_open(&self->obj))
		return NULL;
	/* Blocks until an event arrives (unless async_fd was made
	 * non-blocking): let other threads run, but not close us. */
	pv_busy_enter(&self->obj);
	for (;;) {
		PV_BLOCKING_BEGIN
		rc = ibv_get_async_event(self->ctx, &ev); /* 0 or -1+errno */
		err = errno;
		/* Acked before taking the GIL back: ibv_destroy_qp/cq/srq/wq
		 * wait for the acks of their object's events, holding the GIL;
		 * the element is found below from the copy's pointer (the
		 * object may be closing or gone by then: None). */
		if (!rc)
			ibv_ack_async_event(&ev);
		PV_BLOCKING_END
		if (!rc || err != EINTR)
			break;
		if (PyErr_CheckSignals()) {
			pv_busy_leave(&self->obj);
			return NULL;
		}
	}
	pv_busy_leave(&self->obj);
	if (rc) {
		errno = err;
		return pv_raise_errno("ibv_get_async_event",
				      "Failed to get async event");
	}
	element = ctx_event_element(self, &ev);
	if (!element && PyErr_Occurred())
		return NULL;
	return pv_async_event_new(&ev, element);
}

static PyObject *ctx_repr(PyObject *obj)
{
	struct pv_context *self = CTX(obj);

	if (self->obj.closed)
		return PyUnicode_FromFormat("<Context %R closed>",
					    self->name ? self->name : Py_None);
	return PyUnicode_FromFormat("<Context %U>", self->name);
}

static PyMethodDef ctx_methods[] = {
	{ "query_device", ctx_query_device, METH_NOARGS,
	  "query_device($self, /)\n--\n\n"
	  "The device's attributes (ibv_query_device) as a DeviceAttr." },
	{ "query_device_ex", (PyCFunction)(void (*)(void))ctx_query_device_ex,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_device_ex($self, /, ex_input=None)\n--\n\n"
	  "The device's extended attributes (ibv_query_device_ex) as a "
	  "DeviceAttrEx; ex_input is a QueryDeviceExInput or None." },
	{ "query_port", (PyCFunction)(void (*)(void))ctx_query_port,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_port($self, /, port_num)\n--\n\n"
	  "The attributes of port port_num (ibv_query_port) as a PortAttr." },
	{ "query_gid", (PyCFunction)(void (*)(void))ctx_query_gid,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_gid($self, /, port_num, index)\n--\n\n"
	  "The GID at index of port port_num (ibv_query_gid) as a GID; an "
	  "empty entry is a zero GID." },
	{ "query_gid_type", (PyCFunction)(void (*)(void))ctx_query_gid_type,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_gid_type($self, /, port_num, index)\n--\n\n"
	  "The type of a GID: IBV_GID_TYPE_SYSFS_IB_ROCE_V1 (0) or "
	  "IBV_GID_TYPE_SYSFS_ROCE_V2 (1)." },
	{ "query_gid_ex", (PyCFunction)(void (*)(void))ctx_query_gid_ex,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_gid_ex($self, /, port_num, gid_index, flags=0)\n--\n\n"
	  "The GID table entry at gid_index of port port_num "
	  "(ibv_query_gid_ex) as a GIDEntry; ENODATA if it is empty." },
	{ "query_gid_table", (PyCFunction)(void (*)(void))ctx_query_gid_table,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_gid_table($self, /, max_entries, flags=0)\n--\n\n"
	  "The valid GID entries of every port (ibv_query_gid_table), at "
	  "most max_entries, as a list of GIDEntry.  On failure the "
	  "PyverbsRDMAError's error_code is the negative errno, as "
	  "upstream." },
	{ "query_pkey", (PyCFunction)(void (*)(void))ctx_query_pkey,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_pkey($self, /, port_num, index)\n--\n\n"
	  "The P_Key at index of port port_num (ibv_query_pkey), raw "
	  "(network byte order) as upstream." },
	{ "query_comp_cntr_caps", pv_ctx_query_comp_cntr_caps, METH_NOARGS,
	  "query_comp_cntr_caps($self, /)\n--\n\n"
	  "The device's completion counter capabilities, a CompCntrCaps "
	  "(ibv_query_comp_cntr_caps, rdma-core 65)." },
	{ "get_pkey_index", (PyCFunction)(void (*)(void))ctx_get_pkey_index,
	  METH_VARARGS | METH_KEYWORDS,
	  "get_pkey_index($self, /, port_num, pkey)\n--\n\n"
	  "The index of pkey in the P_Key table of port port_num "
	  "(ibv_get_pkey_index); pkey in the form query_pkey() returns." },
	{ "query_port_speed", (PyCFunction)(void (*)(void))ctx_query_port_speed,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_port_speed($self, /, port_num)\n--\n\n"
	  "The effective speed of port port_num in units of 100 Mb/s "
	  "(ibv_query_port_speed, rdma-core 62; an older build raises "
	  "PyverbsRDMAError EOPNOTSUPP naming it)." },
	{ "query_rt_values_ex",
	  (PyCFunction)(void (*)(void))ctx_query_rt_values_ex,
	  METH_VARARGS | METH_KEYWORDS,
	  "query_rt_values_ex($self, /, comp_mask=1)"
	  "\n--\n\n"
	  "Defaults: comp_mask=IBV_VALUES_MASK_RAW_CLOCK.\n"
	  "The device's real time values (ibv_query_rt_values_ex): the raw "
	  "clock as a (sec, nsec) tuple." },
	{ "get_async_event", ctx_get_async_event, METH_NOARGS,
	  "get_async_event($self, /)\n--\n\n"
	  "Wait for the next asynchronous event of the device "
	  "(ibv_get_async_event) and return it as an AsyncEvent, already "
	  "acknowledged.  The GIL is released while waiting; the Context "
	  "cannot be closed meanwhile." },
	{ "fileno", ctx_fileno, METH_NOARGS,
	  "fileno($self, /)\n--\n\n"
	  "The async event file descriptor (for select/poll): readable "
	  "when get_async_event() would not block." },
	{ NULL }
};

static PyGetSetDef ctx_getset[] = {
	{ "context", ctx_get_context, NULL,
	  "Address of the struct ibv_context (0 if closed).", NULL },
	{ "name", ctx_get_name, NULL, "The device name (str).", NULL },
	{ "num_comp_vectors", ctx_get_num_comp_vectors, NULL,
	  "Number of completion vectors.", NULL },
	{ "cmd_fd", ctx_get_cmd_fd, NULL,
	  "The command file descriptor of the device (dup() it to import "
	  "the Context elsewhere with Context(cmd_fd=...)).",
	  NULL },
	{ NULL }
};

static int ctx_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(CTX(obj)->name);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int ctx_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	/* a provider Context that was never opened still holds its list */
	if (CTX(obj)->obj.closed && !CTX(obj)->ctx)
		ctx_free_dev_list(CTX(obj));
	Py_CLEAR(CTX(obj)->name);
	return 0;
}

PV_GC_TYPE_SPEC(ctx, "pyverbs.device.Context", struct pv_context,
		"Context(*, name=None, attr=None, cmid=None, cmd_fd=None)"
		"\n--\n\n"
		"An opened RDMA device: Context(name='rxe0') opens it by "
		"name, Context(cmd_fd=fd) imports the context of another "
		"process from a dup()ed cmd_fd.  Provider subclasses pass "
		"attr= so that the device is only looked up.  Closing "
		"the Context closes every object created on it first.",
		{ Py_tp_init, ctx_init }, { Py_tp_methods, ctx_methods },
		{ Py_tp_getset, ctx_getset }, { Py_tp_repr, ctx_repr },
		{ Py_tp_traverse, ctx_traverse }, { Py_tp_clear, ctx_clear }, );

/* ---- device lists ---- */

/* The device's name; NULL with an exception set if libibverbs has none
 * (the man page allows ibv_get_device_name() to fail with NULL). */
const char *pv_device_name(struct ibv_device *d)
{
	const char *name = ibv_get_device_name(d);

	if (!name)
		pv_raise_errno("ibv_get_device_name",
			       "Failed to get the device's name");
	return name;
}

/* The same as a str; NULL with an exception set. */
PyObject *pv_device_name_str(struct ibv_device *d)
{
	const char *name = pv_device_name(d);

	return name ? PyUnicode_FromString(name) : NULL;
}

static PyObject *device_tuple(struct ibv_device *d)
{
	const char *name = pv_device_name(d);

	if (!name)
		return NULL;
	return Py_BuildValue("(y i i K i)", name, (int)d->node_type,
			     (int)d->transport_type,
			     (unsigned long long)be64toh(
				     ibv_get_device_guid(d)),
			     ibv_get_device_index(d));
}

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
		return pv_raise_code(-1, "ibv_get_device_list",
				     "Failed to get devices list");
	}
	res = PyList_New(0);
	for (i = 0; res && i < n; i++) {
		PyObject *t = device_tuple(list[i]);

		if (!t || PyList_Append(res, t))
			Py_CLEAR(res);
		Py_XDECREF(t);
	}
	ibv_free_device_list(list);
	return res;
}

#if PV_HAVE_RDMACM
/* _verbs._rdma_device_list(): the same for rdma_get_devices() (the
 * devices librdmacm can use). */
static PyObject *rdma_device_list(PyObject *m, PyObject *unused)
{
	struct ibv_context **list;
	PyObject *res;
	int n = 0, i;

	list = rdma_get_devices(&n);
	if (!list) {
		if (errno == ENOSYS || errno == ENODEV)
			return PyList_New(0);
		return pv_raise_errno("rdma_get_devices",
				      "Failed to get device list");
	}
	res = PyList_New(0);
	for (i = 0; res && i < n; i++) {
		PyObject *t = device_tuple(list[i]->device);

		if (!t || PyList_Append(res, t))
			Py_CLEAR(res);
		Py_XDECREF(t);
	}
	rdma_free_devices(list);
	return res;
}
#endif

static PyMethodDef ctx_module_methods[] = {
	{ "_device_list", device_list, METH_NOARGS,
	  "_device_list()\n--\n\n"
	  "[(name, node_type, transport_type, guid, index)] of each device." },
#if PV_HAVE_RDMACM
	{ "_rdma_device_list", rdma_device_list, METH_NOARGS,
	  "_rdma_device_list()\n--\n\n"
	  "_device_list() for the devices of rdma_get_devices()." },
#endif
	{ NULL }
};

int pv_context_init_types(PyObject *m)
{
	if (PyModule_AddFunctions(m, ctx_module_methods) ||
	    pv_device_attr_init_types(m))
		return -1;
	return pv_add_type(m, &ctx_spec, pv.PyverbsCM, &pv.Context);
}
