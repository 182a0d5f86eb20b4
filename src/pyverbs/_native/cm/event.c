/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The CM's helper objects: CMEventChannel (rdma_create_event_channel),
 * CMEvent (rdma_get_cm_event / rdma_ack_cm_event), and the plain-data
 * ConnParam, UDParam and JoinMCAttrEx (AddrInfo is addrinfo.c's).
 */
#include "cm.h"
#include "addr.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>

/* ---- CMEventChannel ---- */

/*
 * A CONNECT_REQUEST's new id is the user's to take with CMID(creator=event,
 * listen_id=...), before or after the ack.  One not taken at the ack is
 * kept by the channel (orphans) until a CMID takes it, or it is destroyed
 * (the peer rejected) when the CMEvent goes away or the channel closes:
 * else librdmacm would keep it, and its device's PD, for good.
 */
static int ch_keep_orphan(struct pv_cm_channel *ch, struct rdma_cm_id *id)
{
	if (ch->norphans == ch->orphans_cap) {
		int cap = ch->orphans_cap ? 2 * ch->orphans_cap : 4;
		struct rdma_cm_id **a =
			PyMem_Realloc(ch->orphans, cap * sizeof(*a));

		if (!a)
			return -1;
		ch->orphans = a;
		ch->orphans_cap = cap;
	}
	ch->orphans[ch->norphans++] = id;
	return 0;
}

/* Remove id from ch's orphans: 1 if it was there. */
static int ch_take_orphan(struct pv_cm_channel *ch, struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < ch->norphans; i++)
		if (ch->orphans[i] == id) {
			ch->orphans[i] = ch->orphans[--ch->norphans];
			return 1;
		}
	return 0;
}

/* Destroy an orphan id of ch (its events acked first: rdma_destroy_id()
 * waits for them), the channel in use meanwhile: rdma_destroy_id() reads
 * it without the GIL.  Keeps the exception state as it was. */
static void orphan_destroy(struct pv_cm_channel *ch, struct rdma_cm_id *id)
{
	PyObject *et, *ev, *tb;
	struct pv_use use;

	PyErr_Fetch(&et, &ev, &tb);
	if (!pv_cm_ack_events_of(ch, id)) {
		pv_use_begin(&use, &ch->obj);
		PV_WITHOUT_GIL(rdma_destroy_id(id)); /* -1 + errno */
		pv_use_end(&use);
	}
	PyErr_Clear();
	PyErr_Restore(et, ev, tb);
}

static int ch_destroy(struct pv_obj *o)
{
	struct pv_cm_channel *self = (struct pv_cm_channel *)o;

	while (self->norphans)
		orphan_destroy(self, self->orphans[--self->norphans]);
	PyMem_Free(self->orphans);
	self->orphans = NULL;
	self->orphans_cap = 0;
	if (self->ch) {
		rdma_destroy_event_channel(self->ch); /* void */
		self->ch = NULL;
	}
	return 0;
}

static int ch_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { NULL };
	struct pv_cm_channel *self = (struct pv_cm_channel *)obj;

	if (!PyArg_ParseTupleAndKeywords(args, kw, ":CMEventChannel", kwlist))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("CMEventChannel is already initialised");
		return -1;
	}
	pv_obj_setup(&self->obj, ch_destroy);
	self->ch = rdma_create_event_channel(); /* NULL + errno */
	if (!self->ch) {
		pv_raise_errno("rdma_create_event_channel",
			       "Failed to create CMEventChannel");
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *ch_fileno(PyObject *obj, PyObject *unused)
{
	struct pv_cm_channel *self = (struct pv_cm_channel *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->ch->fd);
}

static PyObject *ch_get_fd(PyObject *obj, void *closure)
{
	return ch_fileno(obj, NULL);
}

static PyObject *ch_get_nonblocking(PyObject *obj, void *closure)
{
	struct pv_cm_channel *self = (struct pv_cm_channel *)obj;
	int fl;

	if (pv_check_open(&self->obj))
		return NULL;
	fl = fcntl(self->ch->fd, F_GETFL);
	if (fl < 0)
		return pv_raise_errno("fcntl", "Failed to get the channel's "
					       "flags");
	return PyBool_FromLong(!!(fl & O_NONBLOCK));
}

static int ch_set_nonblocking_to(struct pv_cm_channel *self, PyObject *v)
{
	int on, fl;

	if (pv_refuse_delete(v, "nonblocking") || pv_check_open(&self->obj))
		return -1;
	if (!PyBool_Check(v) && !PyLong_Check(v)) {
		PyErr_Format(PyExc_TypeError,
			     "nonblocking must be a bool, not "
			     "%.100s",
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	on = PyObject_IsTrue(v);
	if (on < 0)
		return -1;
	fl = fcntl(self->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(self->ch->fd, F_SETFL,
			    on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) < 0) {
		pv_raise_errno("fcntl", "Failed to set the channel's flags");
		return -1;
	}
	return 0;
}

static int ch_set_nonblocking(PyObject *obj, PyObject *v, void *closure)
{
	return ch_set_nonblocking_to((struct pv_cm_channel *)obj, v);
}

static PyObject *ch_set_nonblocking_m(PyObject *obj, PyObject *v)
{
	if (ch_set_nonblocking_to((struct pv_cm_channel *)obj, v))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef ch_methods[] = {
	{ "fileno", ch_fileno, METH_NOARGS,
	  "fileno($self, /)\n--\n\n"
	  "The channel's file descriptor, readable when an event is pending "
	  "(for select/selectors; beyond upstream)." },
	{ "set_nonblocking", ch_set_nonblocking_m, METH_O,
	  "set_nonblocking($self, on, /)\n--\n\n"
	  "Make CMEvent(channel) raise PyverbsRDMAError (EAGAIN) instead of "
	  "waiting when no event is pending (beyond upstream)." },
	{ NULL }
};

static PyGetSetDef ch_getset[] = {
	{ "fd", ch_get_fd, NULL, "The channel's file descriptor.", NULL },
	{ "nonblocking", ch_get_nonblocking, ch_set_nonblocking,
	  "Whether CMEvent(channel) fails with EAGAIN instead of waiting.",
	  NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(ch, "pyverbs.cmid.CMEventChannel", struct pv_cm_channel,
		"CMEventChannel()\n--\n\n"
		"A channel on which asynchronous CMIDs report their events "
		"(rdma_create_event_channel).\nClosing it closes its "
		"CMIDs and acks its events first.",
		{ Py_tp_init, ch_init }, { Py_tp_methods, ch_methods },
		{ Py_tp_getset, ch_getset }, PV_CM_SLOTS, );

/* ---- CMEvent ---- */

/* Just acked: a CONNECT_REQUEST's id that no CMID took goes to the channel
 * (parents[0], still linked), or is destroyed now if it cannot. */
static void ev_orphan(struct pv_cm_event *self)
{
	struct pv_obj *ch = pv_obj_parent(&self->obj, 0);

	if (self->copy.event != RDMA_CM_EVENT_CONNECT_REQUEST ||
	    self->adopted || !self->copy.id || self->orphan_ch || !ch)
		return;
	if (ch_keep_orphan((struct pv_cm_channel *)ch, self->copy.id)) {
		PyErr_Clear();
		self->adopted = 1; /* gone: no CMID may take it */
		orphan_destroy((struct pv_cm_channel *)ch, self->copy.id);
		return;
	}
	self->orphan_ch = (struct pv_cm_channel *)Py_NewRef((PyObject *)ch);
}

int pv_cm_event_take_id(struct pv_cm_event *ev)
{
	if (ev->adopted) {
		pv_raise_user(
			"The CMEvent's CM ID was already taken by a CMID");
		return -1;
	}
	if (!ev->event &&
	    !(ev->orphan_ch && ch_take_orphan(ev->orphan_ch, ev->copy.id))) {
		pv_raise_user("The CMEvent's CM ID is gone: its event channel "
			      "was closed");
		return -1;
	}
	ev->adopted = 1;
	return 0;
}

static int ev_destroy(struct pv_obj *o)
{
	struct pv_cm_event *self = (struct pv_cm_event *)o;

	if (self->event) {
		/* returns 0, or -1 with errno set */
		if (rdma_ack_cm_event(self->event)) {
			pv_raise_errno("rdma_ack_cm_event",
				       "Failed to Acknowledge Event - %s",
				       rdma_event_str(self->copy.event));
			return -1;
		}
		self->event = NULL;
		ev_orphan(self);
	}
	return 0;
}

static int ev_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "channel", NULL };
	struct pv_cm_event *self = (struct pv_cm_event *)obj;
	struct rdma_cm_event *event;
	struct pv_cm_channel *ch;
	PyObject *cho;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:CMEvent", kwlist, &cho))
		return -1;
	if (!pv_type_ok(cho, pv.CMEventChannel)) {
		PyErr_Format(PyExc_TypeError,
			     "channel must be a "
			     "CMEventChannel, not %.100s",
			     Py_TYPE(cho)->tp_name);
		return -1;
	}
	if (!self->obj.closed || self->obj.nparents || self->event) {
		pv_raise_user("CMEvent is already initialised");
		return -1;
	}
	ch = (struct pv_cm_channel *)cho;
	if (pv_check_open(&ch->obj))
		return -1;
	pv_obj_setup(&self->obj, ev_destroy);
	self->adopted = 0;
	/* Waits for an event (unless the channel is non-blocking): the
	 * channel is busy meanwhile, so that no one closes it. */
	pv_busy_enter(&ch->obj);
	PV_BLOCKING_BEGIN
	rc = rdma_get_cm_event(ch->ch, &event); /* 0, or -1 + errno */
	PV_BLOCKING_END
	pv_busy_leave(&ch->obj);
	if (rc) {
		pv_raise_errno("rdma_get_cm_event", "Failed to create CMEvent");
		return -1;
	}
	self->event = event;
	self->copy = *event;
	if (event->param.conn.private_data)
		self->private_data =
			PyBytes_FromStringAndSize(event->param.conn.private_data,
						  event->param.conn
							  .private_data_len);
	else
		self->private_data = Py_NewRef(Py_None);
	if (!self->private_data || pv_obj_link(&self->obj, &ch->obj)) {
		ev_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *ev_get_type(PyObject *obj, void *closure)
{
	struct pv_cm_event *self = (struct pv_cm_event *)obj;

	if (!self->private_data) /* never got an event */
		return (pv_check_open_slow(&self->obj), NULL);
	return PyLong_FromLong(self->copy.event);
}

static PyObject *ev_get_status(PyObject *obj, void *closure)
{
	struct pv_cm_event *self = (struct pv_cm_event *)obj;

	if (!self->private_data)
		return (pv_check_open_slow(&self->obj), NULL);
	return PyLong_FromLong(self->copy.status);
}

static PyObject *ev_get_private_data(PyObject *obj, void *closure)
{
	struct pv_cm_event *self = (struct pv_cm_event *)obj;

	if (!self->private_data)
		return (pv_check_open_slow(&self->obj), NULL);
	return Py_NewRef(self->private_data);
}

static PyObject *ev_ack(PyObject *obj, PyObject *unused)
{
	struct pv_cm_event *self = (struct pv_cm_event *)obj;

	if (pv_check_open(&self->obj) || pv_close_own(&self->obj))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *ev_event_str(PyObject *obj, PyObject *unused)
{
	struct pv_cm_event *self = (struct pv_cm_event *)obj;

	/* upstream: '' once acked */
	if (!self->event)
		return PyUnicode_FromString("");
	return PyUnicode_FromString(rdma_event_str(self->copy.event));
}

static int ev_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct pv_cm_event *)obj)->orphan_ch);
	Py_VISIT(((struct pv_cm_event *)obj)->private_data);
	return pv_cm_traverse(obj, visit, arg);
}

static int ev_clear(PyObject *obj)
{
	struct pv_cm_event *self = (struct pv_cm_event *)obj;
	struct pv_cm_channel *ch = self->orphan_ch;

	/* going away: no CMID can take its id any more */
	if (ch && !self->adopted && ch_take_orphan(ch, self->copy.id))
		orphan_destroy(ch, self->copy.id);
	Py_CLEAR(self->orphan_ch);
	Py_CLEAR(self->private_data);
	return pv_cm_clear(obj);
}

static PyMethodDef ev_methods[] = {
	{ "ack_cm_event", ev_ack, METH_NOARGS,
	  "ack_cm_event($self, /)\n--\n\n"
	  "Acknowledge the event (rdma_ack_cm_event); its attributes stay "
	  "readable." },
	{ "event_str", ev_event_str, METH_NOARGS,
	  "event_str($self, /)\n--\n\n"
	  "The event's name (rdma_event_str), '' once acked." },
	{ NULL }
};

static PyGetSetDef ev_getset[] = {
	{ "event_type", ev_get_type, NULL, "The RDMA_CM_EVENT_* type.", NULL },
	{ "status", ev_get_status, NULL,
	  "The event's status (an errno value or a CM reject reason; "
	  "beyond upstream).",
	  NULL },
	{ "private_data", ev_get_private_data, NULL,
	  "The private data the peer sent (bytes), or None.", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(ev, "pyverbs.cmid.CMEvent", struct pv_cm_event,
		"CMEvent(channel)\n--\n\n"
		"The next event of a CMEventChannel (rdma_get_cm_event): "
		"waits for it\nwith the GIL released.  close() and the "
		"finalizer ack it if not acked.",
		{ Py_tp_init, ev_init }, { Py_tp_methods, ev_methods },
		{ Py_tp_getset, ev_getset }, { Py_tp_traverse, ev_traverse },
		{ Py_tp_clear, ev_clear }, );

/* Does the unacked event child c name id (as its id or listen_id)? */
static int ev_names_id(struct pv_obj *c, void *id)
{
	struct pv_cm_event *ev = (struct pv_cm_event *)c;

	return pv_type_ok((PyObject *)c, pv.CMEvent) && ev->event &&
	       (ev->copy.id == id || ev->copy.listen_id == id);
}

int pv_cm_ack_events_of(struct pv_cm_channel *ch, struct rdma_cm_id *id)
{
	return pv_obj_close_children_if(&ch->obj, ev_names_id, id);
}

/* ---- ConnParam ---- */

#define CP_DATA_MAX 255 /* private_data_len is a uint8_t */

struct pv_conn_param {
	PyObject_HEAD
	struct rdma_conn_param conn;
	unsigned char data[CP_DATA_MAX];
	unsigned char data_len;
};

static const struct pv_field cp_fields[] = {
	PV_FIELD_RO(struct pv_conn_param, conn.responder_resources,
		    "responder_resources"),
	PV_FIELD_RO(struct pv_conn_param, conn.initiator_depth,
		    "initiator_depth"),
	PV_FIELD_RO(struct pv_conn_param, conn.flow_control, "flow_control"),
	PV_FIELD_RO(struct pv_conn_param, conn.retry_count, "retry_count"),
	PV_FIELD_RO(struct pv_conn_param, conn.rnr_retry_count,
		    "rnr_retry_count"),
	PV_FIELD_RO(struct pv_conn_param, conn.srq, "srq"),
	PV_FIELD(struct pv_conn_param, conn.qp_num, "qpn"),
	PV_FIELD_RO(struct pv_conn_param, data_len, "data_len"),
	PV_FIELD_END
};

static int cp_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "resources", "depth",	    "flow_control",
				  "retry",     "rnr_retry", "srq",
				  "qp_num",    "data_len",  NULL };
	struct pv_conn_param *self = (struct pv_conn_param *)obj;
	struct rdma_conn_param c = { .responder_resources = 1,
				     .initiator_depth = 1,
				     .retry_count = 5,
				     .rnr_retry_count = 5 };
	uint8_t len = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "|O&O&O&O&O&O&O&O&:ConnParam", kwlist,
					 pv_conv_u8, &c.responder_resources,
					 pv_conv_u8, &c.initiator_depth,
					 pv_conv_u8, &c.flow_control,
					 pv_conv_u8, &c.retry_count, pv_conv_u8,
					 &c.rnr_retry_count, pv_conv_u8, &c.srq,
					 pv_conv_u32, &c.qp_num, pv_conv_u8,
					 &len))
		return -1;
	self->conn = c;
	self->data_len = len;
	memset(self->data, 0, sizeof(self->data));
	return 0;
}

static PyObject *cp_get_private_data(PyObject *obj, void *closure)
{
	struct pv_conn_param *self = (struct pv_conn_param *)obj;

	return PyBytes_FromStringAndSize((char *)self->data, self->data_len);
}

static PyObject *cp_set_private_data(PyObject *obj, PyObject *arg)
{
	struct pv_conn_param *self = (struct pv_conn_param *)obj;
	Py_buffer view;
	Py_ssize_t n;

	if (PyUnicode_Check(arg))
		arg = PyUnicode_AsUTF8String(arg);
	else
		Py_INCREF(arg);
	if (!arg)
		return NULL;
	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
		Py_DECREF(arg);
		return NULL;
	}
	/* upstream: up to data_len bytes are taken */
	n = view.len < self->data_len ? view.len : self->data_len;
	memset(self->data, 0, sizeof(self->data));
	memcpy(self->data, view.buf, n);
	PyBuffer_Release(&view);
	Py_DECREF(arg);
	Py_RETURN_NONE;
}

static PyMethodDef cp_methods[] = {
	{ "set_private_data", cp_set_private_data, METH_O,
	  "set_private_data($self, data, /)\n--\n\n"
	  "Copy data (bytes or str; at most data_len bytes are taken) into "
	  "the private data sent with connect() or accept()." },
	{ NULL }
};

static const PyGetSetDef cp_extra[] = {
	{ "private_data", cp_get_private_data, NULL,
	  "The private data (data_len bytes).", NULL },
	{ NULL }
};

PV_DATA_SPEC(cp, "pyverbs.cmid.ConnParam", struct pv_conn_param,
	     "ConnParam(resources=1, depth=1, flow_control=0, "
	     "retry=5, rnr_retry=5, srq=0, qp_num=0, data_len=0)"
	     "\n--\n\n"
	     "Connection parameters (struct rdma_conn_param) for "
	     "CMID.connect() and accept(),\nwith room for data_len "
	     "bytes of private data.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, cp_init },
	     { Py_tp_methods, cp_methods }, );

int pv_conn_param_get(PyObject *o, struct rdma_conn_param *out)
{
	struct pv_conn_param *cp = (struct pv_conn_param *)o;

	if (o == Py_None)
		return 1;
	if (!pv_type_ok(o, pv.ConnParam)) {
		PyErr_Format(PyExc_TypeError,
			     "param must be a ConnParam or "
			     "None, not %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = cp->conn;
	out->private_data = cp->data_len ? cp->data : NULL;
	out->private_data_len = cp->data_len;
	return 0;
}

/* ---- UDParam ---- */

struct pv_ud_param {
	PyObject_HEAD
	struct rdma_ud_param ud;
};

static const struct pv_field ud_fields[] = {
	PV_FIELD_RO(struct pv_ud_param, ud.qp_num, "qp_num"),
	PV_FIELD_RO(struct pv_ud_param, ud.qkey, "qkey"), PV_FIELD_END
};

static int ud_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "cm_event", NULL };
	struct pv_ud_param *self = (struct pv_ud_param *)obj;
	struct pv_cm_event *ev;
	PyObject *evo;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:UDParam", kwlist, &evo))
		return -1;
	if (!pv_type_ok(evo, pv.CMEvent)) {
		PyErr_Format(PyExc_TypeError,
			     "cm_event must be a CMEvent, not "
			     "%.100s",
			     Py_TYPE(evo)->tp_name);
		return -1;
	}
	ev = (struct pv_cm_event *)evo;
	if (!ev->private_data) {
		pv_raise_user("The CMEvent holds no event");
		return -1;
	}
	self->ud = ev->copy.param.ud;
	self->ud.private_data = NULL; /* not ours */
	self->ud.private_data_len = 0;
	return 0;
}

static PyObject *ud_get_ah_attr(PyObject *obj, void *closure)
{
	return pv_ah_attr_new(&((struct pv_ud_param *)obj)->ud.ah_attr);
}

static const PyGetSetDef ud_extra[] = {
	{ "ah_attr", ud_get_ah_attr, NULL,
	  "The address of the peer (or the group) as a new AHAttr.", NULL },
	{ NULL }
};

PV_DATA_SPEC(ud, "pyverbs.cmid.UDParam", struct pv_ud_param,
	     "UDParam(cm_event)\n--\n\n"
	     "The UD parameters of an ESTABLISHED or MULTICAST_JOIN "
	     "event (struct rdma_ud_param):\nthe peer's QP number, "
	     "Q_Key and address (ah_attr).",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, ud_init }, );

int pv_ud_param_ah_attr(PyObject *o, struct ibv_ah_attr *out)
{
	if (!pv_type_ok(o, pv.UDParam)) {
		PyErr_Format(PyExc_TypeError,
			     "ud_param must be a UDParam, not "
			     "%.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = ((struct pv_ud_param *)o)->ud.ah_attr;
	return 0;
}

/* ---- JoinMCAttrEx ---- */

struct pv_join_mc_attr {
	PyObject_HEAD
	struct rdma_cm_join_mc_attr_ex attr;
	PyObject *addr; /* the AddrInfo */
};

static const struct pv_field jm_fields[] = {
	PV_FIELD(struct pv_join_mc_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD(struct pv_join_mc_attr, attr.join_flags, "join_flags"),
	PV_FIELD_END
};

static int jm_check_addr(PyObject *v)
{
	return pv_addrinfo_arg(v, "addr") ? 0 : -1;
}

static const struct pv_oslot jm_oslots[] = {
	PV_OSLOT_CHECK(struct pv_join_mc_attr, addr, "addr", jm_check_addr,
		       "The AddrInfo whose source address names the group."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(jm, jm_oslots)

static int jm_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "comp_mask", "join_flags", NULL };
	struct pv_join_mc_attr *self = (struct pv_join_mc_attr *)obj;
	uint32_t mask = 0, flags = 0;
	PyObject *addr;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&O&:JoinMCAttrEx",
					 kwlist, &addr, pv_conv_u32, &mask,
					 pv_conv_u32, &flags))
		return -1;
	if (!pv_addrinfo_arg(addr, "addr"))
		return -1;
	pv_set_slot(&self->addr, addr);
	self->attr.comp_mask = mask;
	self->attr.join_flags = flags;
	return 0;
}

PV_GC_TYPE_SPEC(jm, "pyverbs.cmid.JoinMCAttrEx", struct pv_join_mc_attr,
		"JoinMCAttrEx(addr, comp_mask=0, join_flags=0)\n--\n\n"
		"How to join a multicast group (struct "
		"rdma_cm_join_mc_attr_ex): addr, an AddrInfo\nwhose "
		"source address is the group; comp_mask "
		"(RDMA_CM_JOIN_MC_ATTR_*); join_flags\n"
		"(RDMA_MC_JOIN_FLAG_*).",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, jm_init },
		PV_OSLOTS_GC_SLOTS(jm), { Py_tp_getset, NULL }, );

int pv_join_mc_attr_get(PyObject *o, struct rdma_cm_join_mc_attr_ex *out)
{
	struct pv_join_mc_attr *self = (struct pv_join_mc_attr *)o;
	struct pv_addrinfo *ai;

	if (!pv_type_ok(o, pv.JoinMCAttrEx)) {
		PyErr_Format(PyExc_TypeError,
			     "mc_attr must be a JoinMCAttrEx, "
			     "not %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	if (!self->addr || self->addr == Py_None) {
		pv_raise_user("The JoinMCAttrEx has no address");
		return -1;
	}
	ai = pv_addrinfo_arg(self->addr, "addr");
	if (!ai)
		return -1;
	*out = self->attr;
	out->addr = ai->ai->ai_src_addr;
	return 0;
}

int pv_cm_event_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &ch_spec, &pv.PyverbsCM, &pv.CMEventChannel },
		{ &ev_spec, &pv.PyverbsCM, &pv.CMEvent },
		{ &cp_spec, &pv.PyverbsObject, &pv.ConnParam, cp_fields, NULL,
		  cp_extra },
		{ &ud_spec, &pv.PyverbsObject, &pv.UDParam, ud_fields, NULL,
		  ud_extra },
		{ &jm_spec, &pv.PyverbsObject, &pv.JoinMCAttrEx, jm_fields,
		  jm_oslots },
		{ NULL }
	};

	return pv_add_types(m, types);
}
