/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * CMID: an RDMA CM identifier (struct rdma_cm_id), the CM's counterpart of
 * a socket, made three ways: rdma_create_ep() from an AddrInfo (a
 * synchronous id), rdma_create_id() on a CMEventChannel (asynchronous), or
 * adopted from a CONNECT_REQUEST CMEvent (a passive child of a listening
 * id).  Every call that can wait (synchronous resolution, connect, accept,
 * get_request, the completion waits) runs with the GIL released and the
 * objects it uses marked busy, so that both sides of a connection can run
 * as threads of one process.  See cm.h for the lifetimes.
 *
 * This file: the type, its creation and destruction, connection
 * management, multicast, options and the method table; the QP methods are
 * cmid_qp.c's, the memory and data path datapath.c's, the Context and PD
 * wrappers cmid_verbs.c's (each below this file).
 */
#include "cm.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "pd.h"
#include "qp_attr.h"
#include "rdmacm_ops.h"
#include "state.h"

#include <errno.h>

/* The length of a multicast address (AF_INET, AF_INET6 or AF_IB). */
static size_t mc_len(const struct sockaddr *sa)
{
	switch (sa->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return sizeof(struct sockaddr_storage);
	}
}

static int mc_find(struct pv_cmid *self, const struct sockaddr *sa)
{
	int i;

	for (i = 0; i < self->nmc; i++)
		if (!memcmp(&self->mc[i], sa, mc_len(sa)))
			return i;
	return -1;
}

/* Remember a group joined; 0, or -1 with MemoryError. */
static int mc_add(struct pv_cmid *self, const struct sockaddr *sa)
{
	struct sockaddr_storage *n;

	if (mc_find(self, sa) >= 0)
		return 0;
	n = PyMem_Realloc(self->mc, (self->nmc + 1) * sizeof(*n));
	if (!n) {
		PyErr_NoMemory();
		return -1;
	}
	self->mc = n;
	memset(&n[self->nmc], 0, sizeof(*n));
	memcpy(&n[self->nmc++], sa, mc_len(sa));
	return 0;
}

static void mc_forget(struct pv_cmid *self, const struct sockaddr *sa)
{
	int i = mc_find(self, sa);

	if (i < 0)
		return;
	self->mc[i] = self->mc[--self->nmc];
	if (!self->nmc) {
		PyMem_Free(self->mc);
		self->mc = NULL;
	}
}

static int cmid_destroy(struct pv_obj *o)
{
	struct pv_cmid *self = CMID(o);
	struct rdma_cm_id *id = self->id;
	int rc;

	if (!id)
		return 0;
	/* rdma_destroy_id() waits for the acks of the id's events */
	if (self->channel && !self->channel->obj.closed &&
	    pv_cm_ack_events_of(self->channel, id))
		return -1;
	/* Leave the groups still joined: else the QP stays attached and
	 * rdma_destroy_qp() silently leaks it, its CQs and its PD. */
	while (self->nmc) {
		struct sockaddr *sa =
			(struct sockaddr *)&self->mc[self->nmc - 1];

		if (rdma_leave_multicast(id, sa)) { /* -1 + errno */
			pv_raise_errno("rdma_leave_multicast",
				       "Failed to leave multicast");
			return -1;
		}
		mc_forget(self, sa);
	}
	if (self->sync) {
		/* void: QP, SRQ, CQs and id */
		PV_WITHOUT_GIL(rdma_destroy_ep(id));
	} else {
		if (id->qp)
			rdma_destroy_qp(id); /* void */
		PV_WITHOUT_GIL(rc = rdma_destroy_id(id));
		if (rc) { /* -1 + errno */
			pv_raise_errno("rdma_destroy_id",
				       "Failed to close CMID");
			return -1;
		}
	}
	self->id = NULL;
	return 0;
}

/* Finish a new CMID holding id: link it to parent (may be NULL). */
static int cmid_adopt(struct pv_cmid *self, struct rdma_cm_id *id,
		      struct pv_obj *parent, int sync)
{
	self->id = id;
	self->sync = sync;
	if (parent && pv_obj_link(&self->obj, parent)) {
		cmid_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static int cmid_init_ep(struct pv_cmid *self, struct pv_addrinfo *ai,
			PyObject *qia, PyObject *pdo)
{
	struct ibv_qp_init_attr attr, *pattr = NULL;
	struct pv_obj *cqs[3] = { NULL };
	struct rdma_cm_id *id;
	struct pv_pd *pd = NULL;
	int rc;

	if (pdo != Py_None && !(pd = pv_pd_arg(pdo)))
		return -1;
	if (qia != Py_None) {
		if (pv_cmid_qp_init_attr(qia, &attr, cqs))
			return -1;
		pattr = &attr;
	}
	/* An active id resolves its address and route here: may wait.
	 * (The conversions above may have run Python code.) */
	if (pv_addrinfo_hold(ai, "creator"))
		return -1;
	if (pd)
		pv_busy_enter(&pd->obj);
	PV_BLOCKING_BEGIN
	rc = rdma_create_ep(&id, ai->ai, pd ? pd->pd : NULL, pattr);
	PV_BLOCKING_END
	if (pd)
		pv_busy_leave(&pd->obj);
	pv_busy_leave(&ai->obj);
	if (rc) { /* -1 + errno */
		pv_raise_errno("rdma_create_ep", "Failed to create CM ID");
		return -1;
	}
	if (cmid_adopt(self, id, pd ? &pd->obj : NULL, 1))
		return -1;
	if (pd)
		pv_set_slot(&self->pd, pdo);
	if (pv_cmid_own_qp(self, cqs))
		return (pv_close_own(&self->obj), -1);
	return 0;
}

static int cmid_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "creator",	"qp_init_attr", "pd",
				  "port_space", "listen_id",	NULL };
	struct pv_cmid *self = CMID(obj);
	PyObject *creator = Py_None, *qia = Py_None, *pdo = Py_None;
	PyObject *listen = Py_None;
	int ps = RDMA_PS_TCP;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO&O:CMID", kwlist,
					 &creator, &qia, &pdo, pv_conv_int, &ps,
					 &listen))
		return -1;
	if (!self->obj.closed || self->obj.nparents || self->id) {
		pv_raise_user("CMID is already initialised");
		return -1;
	}
	pv_obj_setup(&self->obj, cmid_destroy);
	self->channel = NULL;
	Py_CLEAR(self->ctx);
	Py_CLEAR(self->pd);
	Py_CLEAR(self->qp);
	if (creator == Py_None)
		return 0; /* an empty shell (upstream's inner use) */
	if (pv_type_ok(creator, pv.AddrInfo)) {
		struct pv_addrinfo *ai = pv_addrinfo_arg(creator, "creator");

		return ai ? cmid_init_ep(self, ai, qia, pdo) : -1;
	}
	if (pv_type_ok(creator, pv.CMEventChannel)) {
		struct pv_cm_channel *ch = (struct pv_cm_channel *)creator;
		struct rdma_cm_id *id;

		if (pv_check_open(&ch->obj))
			return -1;
		/* -1 + errno */
		if (rdma_create_id(ch->ch, &id, NULL,
				   (enum rdma_port_space)ps)) {
			pv_raise_errno("rdma_create_id",
				       "Failed to create CM ID");
			return -1;
		}
		self->channel = ch;
		return cmid_adopt(self, id, &ch->obj, 0);
	}
	if (pv_type_ok(creator, pv.CMEvent)) {
		struct pv_cm_event *ev = (struct pv_cm_event *)creator;
		struct pv_cmid *lid = CMID(listen);

		if (listen == Py_None) {
			pv_raise_user("listen ID not provided");
			return -1;
		}
		if (!pv_type_ok(listen, pv.CMID)) {
			PyErr_Format(PyExc_TypeError,
				     "listen_id must be a "
				     "CMID, not %.100s",
				     Py_TYPE(listen)->tp_name);
			return -1;
		}
		if (pv_check_open(&lid->obj))
			return -1;
		if (!ev->private_data ||
		    ev->copy.event != RDMA_CM_EVENT_CONNECT_REQUEST ||
		    ev->copy.listen_id != lid->id) {
			pv_raise_user("The CMEvent is not a connection request "
				      "of this listen_id");
			return -1;
		}
		/* from here the id is ours: a failed adopt destroys it */
		if (pv_cm_event_take_id(ev))
			return -1;
		self->channel = lid->channel;
		return cmid_adopt(self, ev->copy.id, &lid->obj, lid->sync);
	}
	PyErr_Format(PyExc_TypeError, "Cannot create CM ID from %.100s",
		     Py_TYPE(creator)->tp_name);
	return -1;
}

/* The open CMID; else -1 (closed). */
static inline int cmid_open(struct pv_cmid *self)
{
	return pv_check_open(&self->obj);
}

/* ---- properties ---- */

static PyObject *cmid_get_context(PyObject *obj, void *closure)
{
	PyObject *c;

	if (CMID(obj)->obj.closed)
		return pv_get_slot(CMID(obj)->ctx);
	c = pv_cmid_context(CMID(obj));
	return c ? Py_NewRef(c) : NULL;
}

static PyObject *cmid_get_pd(PyObject *obj, void *closure)
{
	PyObject *p;

	if (CMID(obj)->obj.closed)
		return pv_get_slot(CMID(obj)->pd);
	p = pv_cmid_pd_wrapper(CMID(obj));
	return p ? Py_NewRef(p) : NULL;
}

static PyObject *cmid_get_channel(PyObject *obj, void *closure)
{
	return pv_get_slot((PyObject *)CMID(obj)->channel);
}

static PyObject *cmid_get_dev_name(PyObject *obj, void *closure)
{
	struct pv_cmid *self = CMID(obj);

	if (cmid_open(self))
		return NULL;
	if (!self->id->verbs)
		Py_RETURN_NONE;
	return pv_device_name_str(self->id->verbs->device);
}

static PyObject *cmid_get_port_num(PyObject *obj, void *closure)
{
	if (cmid_open(CMID(obj)))
		return NULL;
	return PyLong_FromLong(CMID(obj)->id->port_num);
}

static PyObject *cmid_get_qpn(PyObject *obj, void *closure)
{
	struct pv_cmid *self = CMID(obj);

	if (cmid_open(self))
		return NULL;
	if (!self->id->qp)
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLong(self->id->qp->qp_num);
}

static PyObject *cmid_get_ps(PyObject *obj, void *closure)
{
	if (cmid_open(CMID(obj)))
		return NULL;
	return PyLong_FromLong(CMID(obj)->id->ps);
}

static PyGetSetDef cmid_getset[] = {
	{ "context", cmid_get_context, NULL,
	  "The Context of the id's device (None until bound).", NULL },
	{ "pd", cmid_get_pd, NULL, "The id's PD (None until bound).", NULL },
	{ "event_channel", cmid_get_channel, NULL,
	  "The CMEventChannel of an asynchronous id, else None.", NULL },
	{ "dev_name", cmid_get_dev_name, NULL,
	  "The name of the id's device (None until bound).", NULL },
	{ "port_num", cmid_get_port_num, NULL, "The id's port number.", NULL },
	{ "qpn", cmid_get_qpn, NULL, "The number of the id's QP, or None.",
	  NULL },
	{ "port_space", cmid_get_ps, NULL,
	  "The id's port space (beyond upstream).", NULL },
	{ NULL }
};

/* ---- connection management ---- */

/*
 * Run a librdmacm call that returns 0 or -1 with errno, with the GIL
 * released and self busy.  Returns None or NULL.
 */
#define CMID_CALL(self, call, fname, msg)                              \
	({                                                             \
		int rc_;                                               \
		pv_busy_enter(&(self)->obj);                           \
		PV_BLOCKING_BEGIN                                      \
		rc_ = (call);                                          \
		PV_BLOCKING_END                                        \
		pv_busy_leave(&(self)->obj);                           \
		rc_ ? pv_raise_errno(fname, msg) : Py_NewRef(Py_None); \
	})

static PyObject *cmid_get_request(PyObject *obj, PyObject *unused)
{
	struct pv_cmid *self = CMID(obj), *child;
	struct rdma_cm_id *id;
	int rc;

	if (cmid_open(self))
		return NULL;
	if (!self->sync)
		return pv_raise_user("get_request() needs a synchronous CMID "
				     "(made from an AddrInfo)");
	child = CMID(PyObject_CallNoArgs((PyObject *)pv.CMID));
	if (!child)
		return NULL;
	pv_busy_enter(&self->obj);
	PV_BLOCKING_BEGIN
	rc = rdma_get_request(self->id, &id); /* 0, or -1 + errno */
	PV_BLOCKING_END
	pv_busy_leave(&self->obj);
	if (rc) {
		Py_DECREF(child);
		return pv_raise_errno("rdma_get_request",
				      "Failed to get "
				      "request, no connection established");
	}
	if (cmid_adopt(child, id, &self->obj, 1)) {
		Py_DECREF(child);
		return NULL;
	}
	return (PyObject *)child;
}

static PyObject *cmid_bind_addr(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "lai", NULL };
	struct pv_cmid *self = CMID(obj);
	struct pv_addrinfo *ai;
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:bind_addr", kwlist, &o))
		return NULL;
	if (!(ai = pv_addrinfo_arg(o, "lai")) || cmid_open(self))
		return NULL;
	if (rdma_bind_addr(self->id, ai->ai->ai_src_addr)) /* -1+errno */
		return pv_raise_errno("rdma_bind_addr", "Failed to Bind ID");
	Py_RETURN_NONE;
}

static PyObject *cmid_resolve_addr(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "rai", "timeout_ms", NULL };
	struct pv_cmid *self = CMID(obj);
	struct pv_addrinfo *ai;
	int timeout = 2000;
	PyObject *o, *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&:resolve_addr", kwlist,
					 &o, pv_conv_int, &timeout))
		return NULL;
	if (!(ai = pv_addrinfo_arg(o, "rai")) || cmid_open(self) ||
	    pv_addrinfo_hold(ai, "rai"))
		return NULL;
	r = CMID_CALL(self,
		      rdma_resolve_addr(self->id, ai->ai->ai_src_addr,
					ai->ai->ai_dst_addr, timeout),
		      "rdma_resolve_addr", "Failed to Resolve Address");
	pv_busy_leave(&ai->obj);
	return r;
}

static PyObject *cmid_resolve_route(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "timeout_ms", NULL };
	struct pv_cmid *self = CMID(obj);
	int timeout = 2000;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&:resolve_route", kwlist,
					 pv_conv_int, &timeout))
		return NULL;
	if (cmid_open(self))
		return NULL;
	return CMID_CALL(self, rdma_resolve_route(self->id, timeout),
			 "rdma_resolve_route", "Failed to Resolve Route");
}

static PyObject *cmid_listen(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "backlog", NULL };
	struct pv_cmid *self = CMID(obj);
	int backlog = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&:listen", kwlist,
					 pv_conv_int, &backlog))
		return NULL;
	if (cmid_open(self))
		return NULL;
	if (rdma_listen(self->id, backlog)) /* -1 + errno */
		return pv_raise_errno("rdma_listen", "Listen Failed");
	Py_RETURN_NONE;
}

/* connect(param=None) and accept(param=None) */
static PyObject *cmid_conn(PyObject *obj, PyObject *args, PyObject *kw,
			   int accept)
{
	static char *kwlist[] = { "param", NULL };
	struct pv_cmid *self = CMID(obj);
	struct rdma_conn_param cp, *pcp = &cp;
	PyObject *param = Py_None;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 accept ? "|O:accept" : "|O:connect",
					 kwlist, &param))
		return NULL;
	rc = pv_conn_param_get(param, &cp);
	if (rc < 0 || cmid_open(self))
		return NULL;
	if (rc)
		pcp = NULL;
	/*
	 * librdmacm dereferences NULL where the id is not ready for the call
	 * (the live fuzz found both): rdma_accept() reads the QP number from
	 * the parameters when the id has no QP, before any check, and both
	 * calls read the limits of the id's device (unknown until an address
	 * or route is resolved and its event read: id->verbs unset) when
	 * checking or defaulting the parameters.  Such calls get the EINVAL
	 * that librdmacm's own check gives a connect() without either.
	 */
	if ((accept && !pcp && !self->id->qp) || !self->id->verbs)
		return pv_raise_rc(EINVAL,
				   accept ? "rdma_accept" : "rdma_connect",
				   accept ? "Failed to Accept Connection" :
					    "Failed to Connect");
	if (accept)
		return CMID_CALL(self, rdma_accept(self->id, pcp),
				 "rdma_accept", "Failed to Accept Connection");
	return CMID_CALL(self, rdma_connect(self->id, pcp), "rdma_connect",
			 "Failed to Connect");
}

static PyObject *cmid_connect(PyObject *obj, PyObject *args, PyObject *kw)
{
	return cmid_conn(obj, args, kw, 0);
}

static PyObject *cmid_accept(PyObject *obj, PyObject *args, PyObject *kw)
{
	return cmid_conn(obj, args, kw, 1);
}

static PyObject *cmid_disconnect(PyObject *obj, PyObject *unused)
{
	struct pv_cmid *self = CMID(obj);

	if (cmid_open(self))
		return NULL;
	/* a synchronous id waits for the peer's DREP (its disconnect) */
	return CMID_CALL(self, rdma_disconnect(self->id), "rdma_disconnect",
			 "Failed to Disconnect");
}

static PyObject *cmid_establish(PyObject *obj, PyObject *unused)
{
	struct pv_cmid *self = CMID(obj);

	if (cmid_open(self))
		return NULL;
	if (rdma_establish(self->id)) /* -1 + errno */
		return pv_raise_errno("rdma_establish",
				      "Failed to Complete "
				      "an active connection request");
	Py_RETURN_NONE;
}

static PyObject *cmid_reject(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "private_data", "private_data_len", NULL };
	struct pv_cmid *self = CMID(obj);
	PyObject *data = Py_None, *lo = Py_None, *b = NULL;
	Py_buffer view = { 0 };
	uint8_t len = 0;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:reject", kwlist, &data,
					 &lo))
		return NULL;
	if (data != Py_None) {
		b = PyUnicode_Check(data) ? PyUnicode_AsUTF8String(data) :
					    Py_NewRef(data);
		if (!b || PyObject_GetBuffer(b, &view, PyBUF_SIMPLE) < 0) {
			Py_XDECREF(b);
			return NULL;
		}
		if (view.len > UINT8_MAX) {
			pv_raise_user("private_data is %zd bytes, at most %d "
				      "can be sent",
				      view.len, UINT8_MAX);
			goto out;
		}
		len = (uint8_t)view.len;
	}
	if (lo != Py_None) {
		uint8_t l;

		if (!pv_conv_u8(lo, &l))
			goto out;
		if (l > len) {
			pv_raise_user("private_data_len %u exceeds the %u "
				      "bytes of private_data",
				      l, len);
			goto out;
		}
		len = l;
	}
	if (cmid_open(self))
		goto out;
	rc = rdma_reject(self->id, len ? view.buf : NULL, len);
	if (rc) /* -1 + errno */
		pv_raise_errno("rdma_reject", "Failed to Reject Connection");
out:
	if (b) {
		PyBuffer_Release(&view);
		Py_DECREF(b);
	}
	return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
}

static PyObject *cmid_join_multicast(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "addr", "mc_attr", "context", NULL };
	struct pv_cmid *self = CMID(obj);
	PyObject *addr = Py_None, *mc = Py_None, *ctx = Py_None;
	struct rdma_cm_join_mc_attr_ex attr;
	struct pv_addrinfo *ai;
	struct sockaddr *group;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO:join_multicast",
					 kwlist, &addr, &mc, &ctx))
		return NULL;
	if (addr == Py_None && mc == Py_None)
		return pv_raise_user("Join to multicast must have AddrInfo or "
				     "JoinMCAttrEx arguments");
	if (cmid_open(self))
		return NULL;
	/* The user context is not passed on (it would come back as a
	 * pointer in the event's ud.private_data). */
	if (mc != Py_None) {
		if (pv_join_mc_attr_get(mc, &attr))
			return NULL;
		group = attr.addr;
		rc = rdma_join_multicast_ex(self->id, &attr, NULL);
	} else {
		if (!(ai = pv_addrinfo_arg(addr, "addr")))
			return NULL;
		group = ai->ai->ai_src_addr;
		rc = rdma_join_multicast(self->id, group, NULL);
	}
	if (rc) /* -1 + errno */
		return pv_raise_errno(mc != Py_None ? "rdma_join_multicast_ex" :
						      "rdma_join_multicast",
				      "Failed to Join multicast");
	if (mc_add(self, group))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *cmid_leave_multicast(PyObject *obj, PyObject *args,
				      PyObject *kw)
{
	static char *kwlist[] = { "addr", NULL };
	struct pv_cmid *self = CMID(obj);
	struct pv_addrinfo *ai;
	PyObject *o, *r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:leave_multicast", kwlist,
					 &o))
		return NULL;
	if (!(ai = pv_addrinfo_arg(o, "addr")) || cmid_open(self))
		return NULL;
	/* It waits for the acks of the group's events: ack ours first. */
	if ((self->channel && pv_cm_ack_events_of(self->channel, self->id)) ||
	    pv_addrinfo_hold(ai, "addr"))
		return NULL;
	r = CMID_CALL(self, rdma_leave_multicast(self->id, ai->ai->ai_src_addr),
		      "rdma_leave_multicast", "Failed to leave multicast");
	if (r)
		mc_forget(self, ai->ai->ai_src_addr);
	pv_busy_leave(&ai->obj);
	return r;
}

static PyObject *cmid_set_option(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "level", "optname", "optval", "optlen",
				  NULL };
	struct pv_cmid *self = CMID(obj);
	int level, optname;
	uint8_t val;
	size_t len;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&:set_option",
					 kwlist, pv_conv_int, &level,
					 pv_conv_int, &optname, pv_conv_u8,
					 &val, pv_conv_size, &len))
		return NULL;
	if (level != RDMA_OPTION_ID || optname != RDMA_OPTION_ID_ACK_TIMEOUT)
		return pv_raise_user(
			"Currently only RDMA_OPTION_ID_ACK_TIMEOUT "
			"is supported in Pyverbs.");
	if (len != sizeof(val))
		return pv_raise_user("optlen of RDMA_OPTION_ID_ACK_TIMEOUT must "
				     "be %zu",
				     sizeof(val));
	if (cmid_open(self))
		return NULL;
	/* -1 + errno */
	if (rdma_set_option(self->id, level, optname, &val, sizeof(val)))
		return pv_raise_errno("rdma_set_option",
				      "Failed to set option");
	Py_RETURN_NONE;
}

static PyObject *cmid_set_local_ece(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ece", NULL };
	struct pv_cmid *self = CMID(obj);
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:set_local_ece", kwlist,
					 &o))
		return NULL;
	if (!pv_type_ok(o, pv.ECE))
		return PyErr_Format(PyExc_TypeError,
				    "ece must be an ECE, not "
				    "%.100s",
				    Py_TYPE(o)->tp_name);
	if (cmid_open(self))
		return NULL;
	/* -1 + errno */
	if (rdma_set_local_ece(self->id, &((struct pv_ece *)o)->ece))
		return pv_raise_errno("rdma_set_local_ece",
				      "Failed to set local ECE");
	Py_RETURN_NONE;
}

static PyObject *cmid_get_remote_ece(PyObject *obj, PyObject *unused)
{
	struct pv_cmid *self = CMID(obj);
	struct pv_ece *ece;

	if (cmid_open(self))
		return NULL;
	ece = (struct pv_ece *)PyObject_CallNoArgs((PyObject *)pv.ECE);
	if (!ece)
		return NULL;
	/* -1 + errno */
	if (rdma_get_remote_ece(self->id, &ece->ece)) {
		Py_DECREF(ece);
		return pv_raise_errno("rdma_get_remote_ece",
				      "Failed to get remote ECE");
	}
	return (PyObject *)ece;
}

static int cmid_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(CMID(obj)->ctx);
	Py_VISIT(CMID(obj)->pd);
	Py_VISIT(CMID(obj)->qp);
	return pv_cm_traverse(obj, visit, arg);
}

static int cmid_clear(PyObject *obj)
{
	int rc = pv_cm_clear(obj);

	Py_CLEAR(CMID(obj)->ctx);
	Py_CLEAR(CMID(obj)->pd);
	Py_CLEAR(CMID(obj)->qp);
	if (!CMID(obj)->id) { /* else the finalizer reports it */
		PyMem_Free(CMID(obj)->mc);
		CMID(obj)->mc = NULL;
		CMID(obj)->nmc = 0;
	}
	return rc;
}

#define KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

static PyMethodDef cmid_methods[] = {
	{ "get_request", cmid_get_request, METH_NOARGS,
	  "get_request($self, /)\n--\n\n"
	  "Wait for the next connection request on a listening synchronous "
	  "id (rdma_get_request)\nand return its new CMID (a child of this "
	  "one, with its QP if the listener\nwas made with qp_init_attr)." },
	{ "bind_addr", KW(cmid_bind_addr),
	  "bind_addr($self, lai)\n--\n\n"
	  "Bind to the source address of the AddrInfo lai (rdma_bind_addr)." },
	{ "resolve_addr", KW(cmid_resolve_addr),
	  "resolve_addr($self, rai, timeout_ms=2000)\n--\n\n"
	  "Resolve the destination (and source) address of rai to an RDMA "
	  "address (rdma_resolve_addr)." },
	{ "resolve_route", KW(cmid_resolve_route),
	  "resolve_route($self, timeout_ms=2000)\n--\n\n"
	  "Resolve the route to the resolved destination "
	  "(rdma_resolve_route)." },
	{ "listen", KW(cmid_listen),
	  "listen($self, backlog=0)\n--\n\n"
	  "Listen for connection requests on the bound address "
	  "(rdma_listen)." },
	{ "connect", KW(cmid_connect),
	  "connect($self, param=None)\n--\n\n"
	  "Connect to the resolved destination (rdma_connect); param is a "
	  "ConnParam." },
	{ "accept", KW(cmid_accept),
	  "accept($self, param=None)\n--\n\n"
	  "Accept a connection request (rdma_accept)." },
	{ "disconnect", cmid_disconnect, METH_NOARGS,
	  "disconnect($self, /)\n--\n\n"
	  "Disconnect (rdma_disconnect); the QP moves to the error state." },
	{ "establish", cmid_establish, METH_NOARGS,
	  "establish($self, /)\n--\n\n"
	  "Complete an active connection whose QP is not the id's "
	  "(rdma_establish)." },
	{ "reject", KW(cmid_reject),
	  "reject($self, private_data=None, private_data_len=None)\n--\n\n"
	  "Reject a connection request (rdma_reject), sending private_data "
	  "(bytes or str,\nat most 255 bytes; its first private_data_len "
	  "bytes if given)." },
	{ "join_multicast", KW(cmid_join_multicast),
	  "join_multicast($self, addr=None, mc_attr=None, context=0)\n--\n\n"
	  "Join the multicast group of the AddrInfo addr (rdma_join_multicast)"
	  " or of the\nJoinMCAttrEx mc_attr (rdma_join_multicast_ex); context "
	  "is not passed on." },
	{ "leave_multicast", KW(cmid_leave_multicast),
	  "leave_multicast($self, addr)\n--\n\n"
	  "Leave the multicast group of the AddrInfo addr "
	  "(rdma_leave_multicast)." },
	{ "set_option", KW(cmid_set_option),
	  "set_option($self, level, optname, optval, optlen)\n--\n\n"
	  "Set an option (rdma_set_option); only RDMA_OPTION_ID / "
	  "RDMA_OPTION_ID_ACK_TIMEOUT\n(optval a uint8, optlen 1) is "
	  "supported." },
	{ "set_local_ece", KW(cmid_set_local_ece),
	  "set_local_ece($self, ece)\n--\n\n"
	  "Set the ECE options to offer (rdma_set_local_ece)." },
	{ "get_remote_ece", cmid_get_remote_ece, METH_NOARGS,
	  "get_remote_ece($self, /)\n--\n\n"
	  "The ECE options the peer offered, as an ECE "
	  "(rdma_get_remote_ece)." },
	{ "create_qp", KW(pv_cmid_create_qp),
	  "create_qp($self, qp_init)\n--\n\n"
	  "Create the id's QP on its PD (rdma_create_qp); without CQs in "
	  "qp_init, librdmacm\ncreates them (and get_send_comp()/"
	  "get_recv_comp() wait on them)." },
	{ "query_qp", KW(pv_cmid_query_qp),
	  "query_qp($self, attr_mask)\n--\n\n"
	  "Query the id's QP: (QPAttr, QPInitAttr)." },
	{ "init_qp_attr", KW(pv_cmid_init_qp_attr),
	  "init_qp_attr($self, qp_state)\n--\n\n"
	  "The attributes that move an external QP of this connection to "
	  "qp_state\n(rdma_init_qp_attr): (QPAttr, attr_mask)." },
	{ "reg_msgs", KW(pv_cmid_reg_msgs),
	  "reg_msgs($self, size)\n--\n\n"
	  "A new MR of size bytes on the id's PD for sends and receives "
	  "(rdma_reg_msgs)." },
	{ "reg_read", KW(pv_cmid_reg_read),
	  "reg_read($self, size=0)\n--\n\n"
	  "A new MR the peer may read (rdma_reg_read)." },
	{ "reg_write", KW(pv_cmid_reg_write),
	  "reg_write($self, size=0)\n--\n\n"
	  "A new MR the peer may write (rdma_reg_write)." },
	{ "post_recv", KW(pv_cmid_post_recv),
	  "post_recv($self, mr, length=None)\n--\n\n"
	  "Post a receive of length bytes (default: the MR's length) into "
	  "mr (rdma_post_recv)." },
	{ "post_send", KW(pv_cmid_post_send),
	  "post_send($self, mr, flags=2, length=None)\n--\n\n"
	  "Defaults: flags=IBV_SEND_SIGNALED.\n"
	  "Send length bytes (default: the MR's length) of mr "
	  "(rdma_post_send)." },
	{ "post_read", KW(pv_cmid_post_read),
	  "post_read($self, mr, length, remote_addr, rkey, flags=0)\n--\n\n"
	  "RDMA-read length bytes at remote_addr into mr (rdma_post_read)." },
	{ "post_write", KW(pv_cmid_post_write),
	  "post_write($self, mr, length, remote_addr, rkey, flags=0)\n--\n\n"
	  "RDMA-write length bytes of mr to remote_addr (rdma_post_write)." },
	{ "post_ud_send", KW(pv_cmid_post_ud_send),
	  "post_ud_send($self, mr, ah, rqpn=0, flags=2, "
	  "length=None)\n--\n\n"
	  "Defaults: flags=IBV_SEND_SIGNALED.\n"
	  "Send length bytes of mr to QP rqpn at the AH ah "
	  "(rdma_post_ud_send)." },
	{ "get_send_comp", pv_cmid_get_send_comp, METH_NOARGS,
	  "get_send_comp($self, /)\n--\n\n"
	  "Wait for a send completion (rdma_get_send_comp): a WC." },
	{ "get_recv_comp", pv_cmid_get_recv_comp, METH_NOARGS,
	  "get_recv_comp($self, /)\n--\n\n"
	  "Wait for a receive completion (rdma_get_recv_comp): a WC." },
	{ "resolve_addrinfo", KW(pv_cmid_resolve_addrinfo),
	  "resolve_addrinfo($self, node=None, service=None, port_space=0, "
	  "flags=0)\n--\n\n"
	  "Start looking node and service up for this id "
	  "(rdma_resolve_addrinfo, librdmacm 60):\nthe result comes as an "
	  "RDMA_CM_EVENT_ADDRINFO_RESOLVED (or _ADDRINFO_ERROR)\nevent, "
	  "then query_addrinfo() returns it.  port_space and flags as for "
	  "AddrInfo\n(RAI_SA / RAI_DNS choose the IB SA or DNS)." },
	{ "query_addrinfo", pv_cmid_query_addrinfo, METH_NOARGS,
	  "query_addrinfo($self, /)\n--\n\n"
	  "The result of resolve_addrinfo() as a new AddrInfo, which owns it "
	  "(rdma_query_addrinfo,\nlibrdmacm 60; once per lookup)." },
	{ NULL }
};

PV_GC_TYPE_SPEC(cmid, "pyverbs.cmid.CMID", struct pv_cmid,
		"CMID(creator=None, qp_init_attr=None, pd=None, "
		"port_space=262, listen_id=None)\n--\n\n"
		"Defaults: port_space=RDMA_PS_TCP.\n"
		"An RDMA CM id.  creator is an AddrInfo (a synchronous id,"
		" rdma_create_ep, with\nits QP made from qp_init_attr on "
		"pd if given), a CMEventChannel (an\nasynchronous id of "
		"port_space, rdma_create_id), or a CONNECT_REQUEST "
		"CMEvent\ntogether with the listening listen_id (the "
		"request's new id).  Closing it\ncloses its accepted ids, "
		"its QP and the Context/PD/MRs made on it first.",
		{ Py_tp_init, cmid_init }, { Py_tp_methods, cmid_methods },
		{ Py_tp_getset, cmid_getset },
		{ Py_tp_traverse, cmid_traverse },
		{ Py_tp_clear, cmid_clear }, );

/* What the core calls into rdma_cm for (rdmacm_ops.h). */
static const struct pv_cm_ops cm_ops = {
	.is_cmid = pv_is_cmid,
	.cmid_verbs = pv_cmid_verbs,
	.cmid_pd = pv_cmid_pd,
	.cmid_pd_obj = pv_cmid_pd_obj,
	.ud_param_ah_attr = pv_ud_param_ah_attr,
};

int pv_cm_init_types(PyObject *m)
{
	if (PyModule_AddIntConstant(m, "_HAVE_RDMACM", 1) ||
	    pv_addrinfo_init_type(m) || pv_cm_event_init_types(m) ||
	    pv_add_type(m, &cmid_spec, pv.PyverbsCM, &pv.CMID))
		return -1;
	if (pv_cmid_qp_init_types())
		return -1;
	pv_cm_set_ops(&cm_ops);
	return 0;
}
