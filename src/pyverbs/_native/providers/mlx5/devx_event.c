/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5.mlx5dv_event (rdma-core 60's API over calls
 * libmlx5 44 has): DevX event channels.
 *
 *   EventChannel(context, flags=0)   mlx5dv_devx_create_event_channel, a
 *       child of its Context (upstream holds no reference to the Context,
 *       whose collection closes the channel under the user)
 *     .subscribe(events_num, cookie=None, obj=None, fd=None)
 *       mlx5dv_devx_subscribe_devx_event(_fd): the events of obj (an
 *       Mlx5DevxObj of the same Context; None: the unaffiliated ones)
 *       reported on the channel with cookie, or signalled on the EventFD fd
 *     .get_event(event_resp_len=1024, fd=None)
 *       the next event (mlx5dv_devx_get_event) as an EventHeader, or with
 *       fd the eventfd's counter; both block without the GIL, the objects
 *       they read marked busy
 *   EventHeader(cookie, data)   an event: its cookie and its EQE bytes
 *       (upstream's data runs 8 bytes past what was read: here it is the
 *       event's bytes only)
 *   EventFD(initval=0, flags=0) an eventfd(2); close() closes it (upstream
 *       never does)
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* ---- EventFD ---- */

struct event_fd {
	struct pv_obj obj;
	int fd;
};

static int efd_destroy(struct pv_obj *o)
{
	struct event_fd *self = (struct event_fd *)o;

	if (self->fd >= 0) {
		close(self->fd);
		self->fd = -1;
	}
	return 0;
}

static int efd_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "initval", "flags", NULL };
	struct event_fd *self = (struct event_fd *)obj;
	unsigned int initval = 0;
	int flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&:EventFD", kwlist,
					 pv_conv_u32, &initval, pv_conv_int,
					 &flags))
		return -1;
	if (!self->obj.closed || self->obj.opened_once) {
		pv_raise_user("EventFD is already initialised");
		return -1;
	}
	pv_obj_setup(&self->obj, efd_destroy);
	self->fd = eventfd(initval, flags);
	if (self->fd < 0) {
		pv_raise_errno("eventfd", "Failed to create a event fd");
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *efd_get_fd(PyObject *obj, void *closure)
{
	struct event_fd *self = (struct event_fd *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->fd);
}

static PyGetSetDef efd_getset[] = { { "fd", efd_get_fd, NULL,
				      "The eventfd's file descriptor.", NULL },
				    { NULL } };

PV_GC_TYPE_SPEC(efd, "pyverbs.providers.mlx5.mlx5dv_event.EventFD",
		struct event_fd,
		"EventFD(initval=0, flags=0)\n--\n\n"
		"An eventfd(2) (counter initval, flags EFD_*) for "
		"EventChannel.subscribe(fd=...); close() closes it.",
		{ Py_tp_init, efd_init }, { Py_tp_getset, efd_getset },
		PV_CM_SLOTS, );

/* The open EventFD o (or NULL for None); *bad set on an error. */
static struct event_fd *efd_arg(PyObject *o, int *bad)
{
	*bad = 0;
	if (o == Py_None)
		return NULL;
	if (!pv_type_ok(o, pv_mlx5.EventFD)) {
		PyErr_Format(PyExc_TypeError,
			     "fd must be an EventFD or None, not %.100s",
			     Py_TYPE(o)->tp_name);
		*bad = 1;
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o))) {
		*bad = 1;
		return NULL;
	}
	return (struct event_fd *)o;
}

/* ---- EventHeader ---- */

struct event_header {
	PyObject_HEAD
	PyObject *cookie, *data;
};

static const struct pv_oslot hdr_oslots[] = {
	PV_OSLOT_RO(struct event_header, cookie, "cookie",
		    "The cookie given to EventChannel.subscribe()."),
	PV_OSLOT_RO(struct event_header, data, "data",
		    "The event's data (bytes: the EQE, or empty when the "
		    "channel omits it)."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(hdr, hdr_oslots)

static int hdr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "cookie", "data", NULL };
	struct event_header *self = (struct event_header *)obj;
	PyObject *cookie, *data;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:EventHeader", kwlist,
					 &cookie, &data))
		return -1;
	pv_set_slot(&self->cookie, cookie);
	pv_set_slot(&self->data, data);
	return 0;
}

PV_GC_TYPE_SPEC(hdr, "pyverbs.providers.mlx5.mlx5dv_event.EventHeader",
		struct event_header,
		"EventHeader(cookie, data)\n--\n\n"
		"One event of an EventChannel: the subscription's cookie "
		"and the event's data.",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, hdr_init },
		{ Py_tp_getset, NULL }, PV_OSLOTS_GC_SLOTS(hdr), );

/* ---- EventChannel ---- */

struct channel {
	struct pv_obj obj;
	struct mlx5dv_devx_event_channel *ec;
};

static int ch_destroy(struct pv_obj *o)
{
	struct channel *self = (struct channel *)o;

	if (self->ec) {
		mlx5dv_devx_destroy_event_channel(self->ec); /* void */
		self->ec = NULL;
	}
	return 0;
}

static int ch_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "flags", NULL };
	struct channel *self = (struct channel *)obj;
	struct pv_context *ctx;
	uint32_t flags = 0;
	PyObject *ctxo;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|O&:EventChannel", kwlist,
					 pv.Context, &ctxo, pv_conv_u32,
					 &flags))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("EventChannel is already initialised");
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, ch_destroy);
	self->ec = mlx5dv_devx_create_event_channel(ctx->ctx, flags);
	if (!self->ec) { /* NULL + errno */
		pv_raise_errno("mlx5dv_devx_create_event_channel",
			       "Failed to create a devx event channel");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		ch_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

/* The uint16 event numbers of the sequence events into a new PyMem array
 * *out of *n entries; 0 or -1. */
static int ch_events(PyObject *events, uint16_t **out, Py_ssize_t *n)
{
	PyObject *seq;
	Py_ssize_t i;

	seq = PySequence_Fast(events, "events_num must be a list of event "
				      "numbers");
	if (!seq)
		return -1;
	*n = PySequence_Fast_GET_SIZE(seq);
	/* events_sz, in bytes, is a uint16_t */
	if (*n > UINT16_MAX / 2) {
		PyErr_Format(PyExc_OverflowError, "%zd events are more than %d",
			     *n, UINT16_MAX / 2);
		goto err;
	}
	*out = PyMem_Calloc(*n ? *n : 1, sizeof(**out));
	if (!*out) {
		PyErr_NoMemory();
		goto err;
	}
	for (i = 0; i < *n; i++)
		if (!pv_conv_u16(PySequence_Fast_GET_ITEM(seq, i),
				 &(*out)[i])) {
			PyMem_Free(*out);
			goto err;
		}
	Py_DECREF(seq);
	return 0;
err:
	Py_DECREF(seq);
	return -1;
}

/* The one event number of an fd subscription: an int, or a sequence of
 * one (PyverbsError for more, as upstream). */
static int ch_one_event(PyObject *events, uint16_t *out)
{
	uint16_t *arr;
	Py_ssize_t n;

	if (!PyObject_HasAttrString(events, "__len__"))
		return pv_conv_u16(events, out) ? 0 : -1;
	if (ch_events(events, &arr, &n))
		return -1;
	if (n != 1) {
		PyMem_Free(arr);
		pv_raise_error("Only one event must be provided in events_num "
			       "in fd subscription");
		return -1;
	}
	*out = arr[0];
	PyMem_Free(arr);
	return 0;
}

static PyObject *ch_subscribe(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "events_num", "cookie", "obj", "fd", NULL };
	struct channel *self = (struct channel *)obj;
	PyObject *events, *cookieo = Py_None, *devo = Py_None, *fdo = Py_None;
	struct mlx5dv_devx_obj *dobj = NULL;
	struct event_fd *efd;
	uint64_t cookie = 0;
	uint16_t *arr = NULL, one = 0;
	Py_ssize_t n = 0;
	int rc, bad;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO:subscribe", kwlist,
					 &events, &cookieo, &devo, &fdo))
		return NULL;
	efd = efd_arg(fdo, &bad);
	if (bad)
		return NULL;
	if (!efd && cookieo == Py_None)
		return pv_raise_error("Cookie must be provided with "
				      "subscription");
	/* with fd the cookie is not used (upstream logs a warning) */
	if (!efd && !pv_conv_u64(cookieo, &cookie))
		return NULL;
	if (efd ? ch_one_event(events, &one) : ch_events(events, &arr, &n))
		return NULL;
	/* the conversions ran Python code: check every object after them */
	if (devo != Py_None && !(dobj = pv_mlx5_devx_obj_get(devo)))
		goto err; /* (devx.c is always built in with this file) */
	if (pv_check_open(&self->obj) || (efd && pv_check_open(&efd->obj)) ||
	    (dobj && pv_obj_check_in(PV_OBJ(devo), pv_obj_parent(&self->obj, 0),
				     "DevX object", "EventChannel")))
		goto err;
	/* both return an errno value */
	if (efd)
		rc = mlx5dv_devx_subscribe_devx_event_fd(self->ec, efd->fd,
							 dobj, one);
	else
		rc = mlx5dv_devx_subscribe_devx_event(self->ec, dobj,
						      (uint16_t)(n * 2), arr,
						      cookie);
	PyMem_Free(arr);
	if (rc)
		return pv_raise_rc(rc,
				   efd ? "mlx5dv_devx_subscribe_devx_event_fd" :
					 "mlx5dv_devx_subscribe_devx_event",
				   efd ? "Failed to subscribe to devx event "
					 "channel fd" :
					 "Failed to subscribe to devx event "
					 "channel");
	Py_RETURN_NONE;
err:
	PyMem_Free(arr);
	return NULL;
}

/* The reads of get_event, run without the GIL. */
struct ch_read {
	struct mlx5dv_devx_event_channel *ec;
	struct mlx5dv_devx_async_event_hdr *hdr;
	size_t len;
	int fd;
	uint64_t count;
};

static ssize_t ch_read_event(void *arg)
{
	struct ch_read *r = arg;

	return mlx5dv_devx_get_event(r->ec, r->hdr, r->len); /* -1 + errno */
}

static ssize_t ch_read_fd(void *arg)
{
	struct ch_read *r = arg;

	return read(r->fd, &r->count, sizeof(r->count));
}

static PyObject *ch_event(struct channel *self, size_t len)
{
	struct ch_read r = { .ec = self->ec, .len = len };
	PyObject *res = NULL, *cookie, *data;
	ssize_t got;
	int err;

	if (len > PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	/* room for the cookie whatever len says: libmlx5 reads it */
	r.hdr = PyMem_Calloc(1, len > sizeof(*r.hdr) ? len : sizeof(*r.hdr));
	if (!r.hdr)
		return PyErr_NoMemory();
	got = pv_mlx5_blocking(&self->obj, NULL, ch_read_event, &r, &err);
	if (got < 0) {
		errno = err;
		if (!PyErr_Occurred())
			pv_raise_errno("mlx5dv_devx_get_event",
				       "Failed to get devx event");
		goto out;
	}
	cookie = PyLong_FromUnsignedLongLong(r.hdr->cookie);
	/* the bytes read after the cookie (libmlx5 read at least it) */
	data = PyBytes_FromStringAndSize((const char *)r.hdr->out_data,
					 got - (ssize_t)sizeof(*r.hdr));
	if (cookie && data)
		res = PyObject_CallFunctionObjArgs((PyObject *)
							   pv_mlx5.EventHeader,
						   cookie, data, NULL);
	Py_XDECREF(cookie);
	Py_XDECREF(data);
out:
	PyMem_Free(r.hdr);
	return res;
}

static PyObject *ch_get_event(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "event_resp_len", "fd", NULL };
	struct channel *self = (struct channel *)obj;
	struct ch_read r = { 0 };
	PyObject *fdo = Py_None;
	struct event_fd *efd;
	size_t len = 1024;
	int err, bad;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O:get_event", kwlist,
					 pv_conv_size, &len, &fdo))
		return NULL;
	efd = efd_arg(fdo, &bad);
	if (bad || pv_check_open(&self->obj))
		return NULL;
	if (!efd)
		return ch_event(self, len);
	r.fd = efd->fd;
	if (pv_mlx5_blocking(&self->obj, &efd->obj, ch_read_fd, &r, &err) < 0) {
		errno = err;
		return PyErr_Occurred() ?
			       NULL :
			       pv_raise_errno("read",
					      "Failed to get event from FD");
	}
	return PyLong_FromUnsignedLongLong(r.count);
}

static PyObject *ch_get_fd(PyObject *obj, void *closure)
{
	struct channel *self = (struct channel *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->ec->fd);
}

static PyMethodDef ch_methods[] = {
	{ "subscribe", (PyCFunction)(void (*)(void))ch_subscribe,
	  METH_VARARGS | METH_KEYWORDS,
	  "subscribe($self, /, events_num, cookie=None, obj=None, "
	  "fd=None)\n--\n\n"
	  "Subscribe to the events numbered in events_num (a list) of the "
	  "Mlx5DevxObj obj, or to the unaffiliated ones when obj is None: "
	  "reported on the channel with cookie (a 64-bit value, required), "
	  "or, with fd (an EventFD), signalled on it (events_num then holds "
	  "one event, or is an int; cookie is not used)." },
	{ "get_event", (PyCFunction)(void (*)(void))ch_get_event,
	  METH_VARARGS | METH_KEYWORDS,
	  "get_event($self, /, event_resp_len=1024, fd=None)\n--\n\n"
	  "Wait for the next event: an EventHeader (read with a buffer of "
	  "event_resp_len bytes), or with fd the EventFD's counter (an "
	  "int)." },
	{ NULL }
};

static PyGetSetDef ch_getset[] = { { "fd", ch_get_fd, NULL,
				     "The channel's file descriptor.", NULL },
				   { NULL } };

PV_GC_TYPE_SPEC(ch, "pyverbs.providers.mlx5.mlx5dv_event.EventChannel",
		struct channel,
		"EventChannel(context, flags=0)\n--\n\n"
		"A DevX event channel on Context context "
		"(mlx5dv_devx_create_event_channel; flags "
		"MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_*).  Closing the "
		"Context closes it first.",
		{ Py_tp_init, ch_init }, { Py_tp_methods, ch_methods },
		{ Py_tp_getset, ch_getset }, PV_CM_SLOTS, );

int pv_mlx5_devx_event_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &efd_spec, &pv.PyverbsCM, &pv_mlx5.EventFD },
		{ &hdr_spec, &pv.PyverbsObject, &pv_mlx5.EventHeader, NULL,
		  hdr_oslots },
		{ &ch_spec, &pv.PyverbsCM, &pv_mlx5.EventChannel },
		{ NULL }
	};

	return pv_add_types(m, types);
}
