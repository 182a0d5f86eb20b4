/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Completion queues: CompChannel (ibv_create_comp_channel), CQ
 * (ibv_create_cq) and WC (struct ibv_wc); the extended CQ (CQEX) is in
 * cqex.c, which shares CQ's lifetime and attributes (cq_impl.h).
 *
 * Completion events: ibv_get_cq_event() returns one event per armed CQ
 * (ibv_req_notify_cq); every event it returns must be acknowledged with
 * ibv_ack_cq_events() before ibv_destroy_cq(), which otherwise blocks for
 * ever.  A CQ counts the events got for it (num_events) and acks them all
 * when closed.
 *
 * The data path (poll, req_notify) uses METH_FASTCALL; poll() makes one
 * ibv_poll_cq call into an on-stack array for small counts.
 */
#include "cq.h"
#include "cq_impl.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "state.h"

#include <errno.h>
#include <string.h>

/* ibv_wc entries polled into an on-stack array; more use the heap */
#define CQ_POLL_STACK 16

int pv_is_cq(PyObject *o)
{
	return PyObject_TypeCheck(o, pv.CQ) ||
	       (pv.CQEX && PyObject_TypeCheck(o, pv.CQEX));
}

struct pv_cq *pv_cq_from_obj(PyObject *o, const char *what)
{
	if (!pv_is_cq(o)) {
		PyErr_Format(PyExc_TypeError, "%s must be a CQ, not %.100s",
			     what, Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	return (struct pv_cq *)o;
}

/*
 * Parse the single optional argument of a METH_FASTCALL|METH_KEYWORDS
 * method, given by position or by the keyword kwname.  *out is left alone
 * when the argument is absent.  Returns 0, or -1 with TypeError set.
 */
int pv_cq_one_arg(const char *fname, const char *kwname, PyObject *const *args,
		  Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
	Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;

	if (nargs + nkw > 1) {
		PyErr_Format(PyExc_TypeError,
			     "%s() takes at most 1 argument (%zd given)", fname,
			     nargs + nkw);
		return -1;
	}
	if (nargs) {
		*out = args[0];
		return 0;
	}
	for (i = 0; i < nkw; i++) {
		PyObject *k = PyTuple_GET_ITEM(kwnames, i);

		if (!PyUnicode_Check(k) ||
		    PyUnicode_CompareWithASCIIString(k, kwname)) {
			PyErr_Format(PyExc_TypeError,
				     "%s() got an unexpected keyword argument "
				     "'%S'",
				     fname, k);
			return -1;
		}
		*out = args[i];
	}
	return 0;
}

/* cqe: an int >= 0.  For compatibility with upstream pyverbs (whose
 * rdma-core tests pass max_cqe / 2) a float is accepted and truncated
 * toward zero, like int() does. */
static int cq_conv_cqe(PyObject *v, void *out)
{
	uint64_t x;

	if (PyFloat_Check(v)) {
		double d = PyFloat_AS_DOUBLE(v);

		if (!(d >= 0 && d < (double)INT_MAX + 1)) {
			PyErr_SetString(PyExc_OverflowError,
					"cqe is out of range (0..2147483647)");
			return 0;
		}
		*(int *)out = (int)d;
		return 1;
	}
	if (pv_to_u64(v, INT_MAX, &x, "cqe"))
		return 0;
	*(int *)out = (int)x;
	return 1;
}

/* ------------------------------------------------------------------ */
/* CompChannel                                                         */
/* ------------------------------------------------------------------ */

static int cc_destroy(struct pv_obj *o)
{
	struct pv_comp_channel *self = (struct pv_comp_channel *)o;
	int rc;

	if (!self->cc)
		return 0;
	/* returns errno: EBUSY while a CQ still uses the channel */
	rc = ibv_destroy_comp_channel(self->cc);
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_comp_channel",
			    "Failed to destroy a completion channel");
		return -1;
	}
	self->cc = NULL;
	return 0;
}

static int cc_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", NULL };
	struct pv_comp_channel *self = (struct pv_comp_channel *)obj;
	struct pv_context *ctx;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!:CompChannel", kwlist,
					 pv.Context, &ctx))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("CompChannel is already initialised");
		return -1;
	}
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, cc_destroy);
	self->cc = ibv_create_comp_channel(ctx->ctx);
	if (!self->cc) {
		pv_raise_errno("ibv_create_comp_channel",
			       "Failed to create a completion channel");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		cc_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

/* The open CQ child of the channel whose ibv_cq is cq, or NULL. */
static struct pv_cq *cc_find_cq(struct pv_comp_channel *self, struct ibv_cq *cq)
{
	struct pv_obj *c = pv_obj_find_handle(&self->obj, cq, 1);

	return c && pv_is_cq((PyObject *)c) ? (struct pv_cq *)c : NULL;
}

static PyObject *cc_get_cq_event(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "expected_cq", NULL };
	struct pv_comp_channel *self = (struct pv_comp_channel *)obj;
	struct ibv_cq *ev_cq;
	struct pv_cq *cq;
	PyObject *arg;
	void *ev_ctx;
	int rc, err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:get_cq_event", kwlist,
					 &arg))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	cq = pv_cq_from_obj(arg, "expected_cq");
	if (!cq)
		return NULL;
	/* An event for a CQ of another channel can never come here. */
	if (cq->channel != self)
		return pv_raise_user("The CQ is not attached to this "
				     "completion channel");
	/*
	 * ibv_get_cq_event() blocks in read() until an event arrives.  While
	 * it waits without the GIL, neither object may be closed: a busy
	 * object refuses close(), and a CQ refuses it while its channel is
	 * busy (its ibv_destroy_cq() would wait, holding the GIL, for the
	 * ack of an event we may be reading).
	 */
	Py_INCREF(self);
	Py_INCREF(cq);
	pv_busy_enter(&self->obj);
	pv_busy_enter(&cq->obj);
	for (;;) {
		PV_BLOCKING_BEGIN
		rc = ibv_get_cq_event(self->cc, &ev_cq, &ev_ctx);
		err = errno;
		PV_BLOCKING_END
		/* interrupted by a signal: run its handler, then wait on */
		if (rc && err == EINTR && !PyErr_CheckSignals())
			continue;
		break;
	}
	pv_busy_leave(&cq->obj);
	pv_busy_leave(&self->obj);
	if (rc) {
		if (err != EINTR) {
			errno = err;
			pv_raise_errno("ibv_get_cq_event",
				       "Failed to get CQ event");
		}
		goto out;
	}
	if (ev_cq != cq->cq) {
		/* Count the event on the CQ that got it, so that closing that
		 * CQ acks it instead of blocking. */
		struct pv_cq *other = cc_find_cq(self, ev_cq);

		if (other)
			PV_LOCKED(other, other->num_events++);
		pv_raise_rc(EINVAL, "ibv_get_cq_event",
			    "Received event on an unexpected CQ");
		rc = -1;
		goto out;
	}
	PV_LOCKED(cq, cq->num_events++);
out:
	Py_DECREF(cq);
	Py_DECREF(self);
	if (rc)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *cc_fileno(PyObject *obj, PyObject *unused)
{
	struct pv_comp_channel *self = (struct pv_comp_channel *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->cc->fd);
}

static PyObject *cc_get_fd(PyObject *obj, void *closure)
{
	return cc_fileno(obj, NULL);
}

static PyObject *cc_get_ctx(PyObject *obj, void *closure)
{
	struct pv_obj *ctx = pv_obj_parent(PV_OBJ(obj), 0);

	return Py_NewRef(ctx ? (PyObject *)ctx : Py_None);
}

static PyMethodDef cc_methods[] = {
	{ "get_cq_event", (PyCFunction)(void (*)(void))cc_get_cq_event,
	  METH_VARARGS | METH_KEYWORDS,
	  "get_cq_event($self, expected_cq)\n--\n\n"
	  "Wait for the next completion event of the channel "
	  "(ibv_get_cq_event),\nwithout holding the GIL.  The event must be "
	  "for expected_cq, whose\nnum_events is incremented (the CQ acks its "
	  "events when closed, or\nwith ack_events()).  Use select/poll on "
	  "fileno() to wait with a\ntimeout." },
	{ "fileno", cc_fileno, METH_NOARGS,
	  "fileno($self, /)\n--\n\n"
	  "The channel's file descriptor, readable when an event is pending "
	  "(for\nselect, poll, selectors and asyncio)." },
	{ NULL }
};

static PyGetSetDef cc_getset[] = {
	{ "fd", cc_get_fd, NULL, "The channel's file descriptor.", NULL },
	{ "ctx", cc_get_ctx, NULL, "The Context of the channel.", NULL },
	{ NULL }
};

static PyObject *cc_repr(PyObject *obj)
{
	struct pv_comp_channel *self = (struct pv_comp_channel *)obj;

	if (self->obj.closed)
		return PyUnicode_FromString("<CompChannel closed>");
	return PyUnicode_FromFormat("<CompChannel fd=%d>", self->cc->fd);
}

PV_GC_TYPE_SPEC(cc, "pyverbs.cq.CompChannel", struct pv_comp_channel,
		"CompChannel(context)\n--\n\n"
		"A completion channel: a file descriptor delivering the "
		"completion\nevents of the CQs created on it.  Closing "
		"it closes those CQs.",
		{ Py_tp_init, cc_init }, { Py_tp_methods, cc_methods },
		{ Py_tp_getset, cc_getset }, { Py_tp_repr, cc_repr },
		PV_CM_SLOTS, );

/* ------------------------------------------------------------------ */
/* CQ (shared by CQEX for lifetime and the common properties)          */
/* ------------------------------------------------------------------ */

int pv_cq_destroy(struct pv_obj *o)
{
	struct pv_cq *self = (struct pv_cq *)o;
	int rc;

	if (!self->cq)
		return 0;
	if (self->channel && self->channel->obj.busy) {
		pv_raise_user("%s cannot be closed: get_cq_event() is waiting "
			      "on its completion channel",
			      _PyType_Name(Py_TYPE(self)));
		return -2; /* a finalizer defers the close */
	}
	/* a poll batch holds the CQ's lock (rxe: a spinlock) */
	if (self->cq_ex && self->polling) {
		ibv_end_poll(self->cq_ex);
		self->polling = self->current = 0;
	}
	/* ibv_destroy_cq() blocks until every event that ibv_get_cq_event()
	 * returned for this CQ is acked: ack ours first. */
	if (self->num_events) {
		ibv_ack_cq_events(self->cq, self->num_events);
		self->num_events = 0;
	}
	rc = ibv_destroy_cq(self->cq); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_cq",
			    self->cq_ex ? "Failed to destroy CQEX" :
					  "Failed to close CQ");
		return -1;
	}
	self->cq = NULL;
	self->cq_ex = NULL;
	self->channel = NULL;
	return 0;
}

/* cq_impl.h */
struct pv_context *pv_cq_init_context(struct pv_cq *self, PyObject *ctxo,
				      const char *name)
{
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("%s is already initialised", name);
		return NULL;
	}
	if (!PyObject_TypeCheck(ctxo, pv.Context)) {
		PyErr_Format(PyExc_TypeError,
			     "context must be a Context, not %.100s",
			     Py_TYPE(ctxo)->tp_name);
		return NULL;
	}
	return (struct pv_context *)ctxo;
}

/*
 * Link a new CQ/CQEX to its Context and channel.  channel may be None.
 * Checks come first: returns -1 (nothing created yet) on bad input.
 */
int pv_cq_check_parents(struct pv_context *ctx, PyObject *channel)
{
	struct pv_comp_channel *cc;

	if (pv_check_open(&ctx->obj))
		return -1;
	if (channel == Py_None)
		return 0;
	if (!PyObject_TypeCheck(channel, pv.CompChannel)) {
		PyErr_Format(PyExc_TypeError,
			     "channel must be a CompChannel or None, not %.100s",
			     Py_TYPE(channel)->tp_name);
		return -1;
	}
	cc = (struct pv_comp_channel *)channel;
	if (pv_check_open(&cc->obj))
		return -1;
	if (!pv_obj_descends_from(&cc->obj, &ctx->obj)) {
		pv_raise_user("The completion channel belongs to another "
			      "Context");
		return -1;
	}
	return 0;
}

/* After creation: link the parents; on failure destroy the CQ again. */
int pv_cq_link_parents(struct pv_cq *self, struct pv_context *ctx,
		       PyObject *channel)
{
	if (pv_obj_link(&self->obj, &ctx->obj))
		goto err;
	if (channel != Py_None) {
		if (pv_obj_link(&self->obj, PV_OBJ(channel)))
			goto err;
		self->channel = (struct pv_comp_channel *)channel;
	}
	return 0;
err:
	pv_cq_destroy(&self->obj);
	return -1;
}

static int cq_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "cqe",	    "cq_context",
				  "channel", "comp_vector", NULL };
	struct pv_cq *self = (struct pv_cq *)obj;
	PyObject *ctxo, *cq_context = Py_None, *channel = Py_None;
	struct pv_context *ctx;
	int cqe, comp_vector = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|OOO&:CQ", kwlist, &ctxo,
					 cq_conv_cqe, &cqe, &cq_context,
					 &channel, pv_conv_uint, &comp_vector))
		return -1;
	if (!(ctx = pv_cq_init_context(self, ctxo, "CQ")) ||
	    pv_cq_check_parents(ctx, channel))
		return -1;
	pv_obj_setup(&self->obj, pv_cq_destroy);
	self->cq =
		ibv_create_cq(ctx->ctx, cqe, self,
			      channel == Py_None ?
				      NULL :
				      ((struct pv_comp_channel *)channel)->cc,
			      comp_vector);
	if (!self->cq) {
		pv_raise_errno("ibv_create_cq", "Failed to create a CQ");
		return -1;
	}
	if (pv_cq_link_parents(self, ctx, channel))
		return -1;
	if (cq_context != Py_None)
		Py_XSETREF(self->cq_context, Py_NewRef(cq_context));
	self->num_events = 0;
	pv_obj_opened(&self->obj);
	return 0;
}

/*
 * The answers of poll(), (n, [WC, ...]), kept for reuse.  A kept tuple is
 * handed out again, refilled, only while nothing but this pool holds it or
 * its list (both reference counts are 1) and the list still has the length
 * wanted: then no caller can tell it from a fresh one.  The usual loop,
 * `nc, wcs = cq.poll()`, still holds the list of the previous answer when it
 * polls again, so the pool keeps a few answers and finds a free one among
 * them; a caller that keeps every answer gets fresh ones.  A build without
 * the GIL cannot read reference counts this way: it always builds.
 */
#define CQ_RESULT_POOL 4
#ifndef Py_GIL_DISABLED
static PyObject *cq_results[CQ_RESULT_POOL];
static unsigned int cq_results_next;
#endif

/* Refill the free kept answer of n WCs, if there is one (n <= CQ_POLL_STACK);
 * else NULL without an exception. */
static PyObject *cq_result_reuse(const struct ibv_wc *wc, int n)
{
#ifndef Py_GIL_DISABLED
	PyObject *old[CQ_POLL_STACK], *res, *list, *w;
	int k, i;

	for (k = 0; k < CQ_RESULT_POOL; k++) {
		res = cq_results[k];
		if (!res || Py_REFCNT(res) != 1)
			continue;
		list = PyTuple_GET_ITEM(res, 1);
		if (Py_REFCNT(list) != 1 || PyList_GET_SIZE(list) != n)
			continue;
		/* new WCs first: on failure the answer is left as it was */
		for (i = 0; i < n; i++) {
			w = pv_wc_new(&wc[i]);
			if (!w) {
				while (i-- > 0)
					Py_DECREF(old[i]);
				return NULL;
			}
			old[i] = w;
		}
		for (i = 0; i < n; i++) {
			w = PyList_GET_ITEM(list, i);
			PyList_SET_ITEM(list, i, old[i]);
			old[i] = w;
		}
		w = PyTuple_GET_ITEM(res, 0);
		PyTuple_SET_ITEM(res, 0, PyLong_FromLong(n)); /* small int */
		Py_INCREF(res);
		/* what the caller put in the list may run code when freed:
		 * drop it last, with res no longer free */
		Py_DECREF(w);
		for (i = 0; i < n; i++)
			Py_DECREF(old[i]);
		return res;
	}
#endif
	return NULL;
}

/* The answer (n, [WC, ...]) of a poll that found n completions. */
static PyObject *cq_result(const struct ibv_wc *wc, int n)
{
	PyObject *res, *list;
	int i;

	if (n <= CQ_POLL_STACK) {
		res = cq_result_reuse(wc, n);
		if (res || PyErr_Occurred())
			return res;
	}
	list = PyList_New(n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		PyObject *w = pv_wc_new(&wc[i]);

		if (!w) {
			Py_DECREF(list);
			return NULL;
		}
		PyList_SET_ITEM(list, i, w);
	}
	res = PyTuple_New(2);
	if (!res) {
		Py_DECREF(list);
		return NULL;
	}
	PyTuple_SET_ITEM(res, 0, PyLong_FromLong(n)); /* small int: no fail */
	PyTuple_SET_ITEM(res, 1, list);
#ifndef Py_GIL_DISABLED
	if (n <= CQ_POLL_STACK) {
		Py_XSETREF(cq_results[cq_results_next], Py_NewRef(res));
		cq_results_next = (cq_results_next + 1) % CQ_RESULT_POOL;
	}
#endif
	return res;
}

static PyObject *cq_poll(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
			 PyObject *kwnames)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	struct ibv_wc stack[CQ_POLL_STACK], *wc = stack;
	PyObject *res, *arg = NULL;
	int64_t want = 1;
	int n = 1, rc;

	if ((nargs || kwnames) &&
	    pv_cq_one_arg("poll", "num_entries", args, nargs, kwnames, &arg))
		return NULL;
	/* converted first: an __index__ may close the CQ (guard.c) */
	if (arg && pv_to_i64(arg, 0, INT64_MAX, &want, "num_entries"))
		return NULL;
	if (self->obj.closed)
		return pv_check_open_slow(&self->obj), NULL;
	if (arg) {
		/* a CQ never holds more than cqe completions */
		if (want > CQ_POLL_STACK && want > self->cq->cqe)
			want = self->cq->cqe > CQ_POLL_STACK ? self->cq->cqe :
							       CQ_POLL_STACK;
		n = (int)want;
		if (n > CQ_POLL_STACK) {
			wc = PyMem_Malloc(sizeof(*wc) * n);
			if (!wc)
				return PyErr_NoMemory();
		}
	}
	rc = n ? ibv_poll_cq(self->cq, n, wc) : 0;
	if (rc < 0)
		/* returns a negative value on error, errno not always set */
		res = pv_raise_rc(rc, "ibv_poll_cq", "Failed to poll CQ");
	else
		res = cq_result(wc, rc);
	if (wc != stack)
		PyMem_Free(wc);
	return res;
}

PyObject *pv_cq_req_notify(PyObject *obj, PyObject *const *args,
			   Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	PyObject *arg = NULL;
	int solicited = 0, rc;

	if ((nargs || kwnames) && pv_cq_one_arg("req_notify", "solicited_only",
						args, nargs, kwnames, &arg))
		return NULL;
	if (arg) {
		solicited = PyObject_IsTrue(arg);
		if (solicited < 0)
			return NULL;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	rc = ibv_req_notify_cq(self->cq, solicited); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_req_notify_cq",
				   "Request notify CQ returned %d", rc);
	Py_RETURN_NONE;
}

PyObject *pv_cq_ack_events(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "num_events", NULL };
	struct pv_cq *self = (struct pv_cq *)obj;
	uint32_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:ack_events", kwlist,
					 pv_conv_u32, &n))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	/* Acking more than were got would make ibv_destroy_cq() wait for
	 * ever (it waits until acked == got). */
	if (n > self->num_events)
		return pv_raise_user("Cannot ack %u events: only %u events "
				     "were got and not acked",
				     n, self->num_events);
	if (n) {
		ibv_ack_cq_events(self->cq, n);
		self->num_events -= n;
	}
	Py_RETURN_NONE;
}

static PyObject *cq_resize(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "cqe", NULL };
	struct pv_cq *self = (struct pv_cq *)obj;
	int cqe, rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:resize", kwlist,
					 cq_conv_cqe, &cqe))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	rc = ibv_resize_cq(self->cq, cqe); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_resize_cq", "Failed to resize CQ");
	Py_RETURN_NONE;
}

PyObject *pv_cq_get_cq(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->cq);
}

PyObject *pv_cq_get_cqe(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->cq->cqe);
}

PyObject *pv_cq_get_handle(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLong(self->cq->handle);
}

PyObject *pv_cq_get_comp_channel(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	return Py_NewRef(self->channel ? (PyObject *)self->channel : Py_None);
}

PyObject *pv_cq_get_num_events(PyObject *obj, void *closure)
{
	return PyLong_FromUnsignedLong(((struct pv_cq *)obj)->num_events);
}

PyObject *pv_cq_get_cq_context(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	return Py_NewRef(self->cq_context ? self->cq_context : Py_None);
}

PyObject *pv_cq_get_ctx(PyObject *obj, void *closure)
{
	struct pv_obj *ctx = pv_obj_parent(PV_OBJ(obj), 0);

	return Py_NewRef(ctx ? (PyObject *)ctx : Py_None);
}

int pv_cq_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct pv_cq *)obj)->cq_context);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

int pv_cq_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(((struct pv_cq *)obj)->cq_context);
	return 0;
}

PyObject *pv_cq_repr(PyObject *obj)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	const char *name = _PyType_Name(Py_TYPE(obj));

	if (self->obj.closed)
		return PyUnicode_FromFormat("<%s closed>", name);
	return PyUnicode_FromFormat("<%s handle=%u cqe=%d>", name,
				    self->cq->handle, self->cq->cqe);
}

static PyMethodDef cq_methods[] = {
	{ "poll", (PyCFunction)(void (*)(void))cq_poll,
	  METH_FASTCALL | METH_KEYWORDS,
	  "poll($self, /, num_entries=1)\n--\n\n"
	  "Poll up to num_entries completions in one ibv_poll_cq call.\n"
	  "Return (npolled, [WC, ...])." },
	{ "req_notify", (PyCFunction)(void (*)(void))pv_cq_req_notify,
	  METH_FASTCALL | METH_KEYWORDS,
	  "req_notify($self, /, solicited_only=False)\n--\n\n"
	  "Arm the CQ: the next completion (the next solicited one if\n"
	  "solicited_only) sends an event to its channel (ibv_req_notify_cq)." },
	{ "ack_events", (PyCFunction)(void (*)(void))pv_cq_ack_events,
	  METH_VARARGS | METH_KEYWORDS,
	  "ack_events($self, /, num_events)\n--\n\n"
	  "Acknowledge num_events of the events got by get_cq_event() "
	  "(ibv_ack_cq_events).\nclose() acks the remaining ones." },
	{ "resize", (PyCFunction)(void (*)(void))cq_resize,
	  METH_VARARGS | METH_KEYWORDS,
	  "resize($self, /, cqe)\n--\n\n"
	  "Resize the CQ to at least cqe entries (ibv_resize_cq)." },
	{ NULL }
};

static PyGetSetDef cq_getset[] = {
	CQ_GETSET("Address of the struct ibv_cq (0 if closed).",
		  "The cq_context object given at creation (held), or None."),
	{ NULL }
};

PV_GC_TYPE_SPEC(cq, "pyverbs.cq.CQ", struct pv_cq,
		"CQ(context, cqe, cq_context=None, channel=None, "
		"comp_vector=0)\n--\n\n"
		"A completion queue of at least cqe entries "
		"(ibv_create_cq); with channel,\nits completion events "
		"go to that CompChannel.",
		{ Py_tp_init, cq_init }, { Py_tp_methods, cq_methods },
		{ Py_tp_getset, cq_getset }, { Py_tp_repr, pv_cq_repr },
		{ Py_tp_traverse, pv_cq_traverse },
		{ Py_tp_clear, pv_cq_clear }, );

/* ------------------------------------------------------------------ */
/* WC                                                                  */
/* ------------------------------------------------------------------ */

/* In the order of the constructor's parameters. */
static const struct pv_field wc_fields[] = {
	PV_FIELD(struct pv_wc, wc.wr_id, "wr_id"),
	PV_FIELD(struct pv_wc, wc.status, "status"),
	PV_FIELD(struct pv_wc, wc.opcode, "opcode"),
	PV_FIELD(struct pv_wc, wc.vendor_err, "vendor_err"),
	PV_FIELD(struct pv_wc, wc.byte_len, "byte_len"),
	PV_FIELD(struct pv_wc, wc.qp_num, "qp_num"),
	PV_FIELD(struct pv_wc, wc.src_qp, "src_qp"),
	PV_FIELD(struct pv_wc, wc.imm_data, "imm_data"),
	PV_FIELD(struct pv_wc, wc.wc_flags, "wc_flags"),
	PV_FIELD(struct pv_wc, wc.pkey_index, "pkey_index"),
	PV_FIELD(struct pv_wc, wc.slid, "slid"),
	PV_FIELD(struct pv_wc, wc.sl, "sl"),
	PV_FIELD(struct pv_wc, wc.dlid_path_bits, "dlid_path_bits"),
	PV_FIELD_END
};
#define WC_NFIELDS (sizeof(wc_fields) / sizeof(wc_fields[0]) - 1)

static int wc_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "wr_id",	    "status",	"opcode",
				  "vendor_err",	    "byte_len", "qp_num",
				  "src_qp",	    "imm_data", "wc_flags",
				  "pkey_index",	    "slid",	"sl",
				  "dlid_path_bits", NULL };
	struct pv_wc *self = (struct pv_wc *)obj;
	PyObject *v[WC_NFIELDS] = { NULL };
	struct ibv_wc saved = self->wc;
	size_t i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOOOOOOOOOOO:WC", kwlist,
					 &v[0], &v[1], &v[2], &v[3], &v[4],
					 &v[5], &v[6], &v[7], &v[8], &v[9],
					 &v[10], &v[11], &v[12]))
		return -1;
	memset(&self->wc, 0, sizeof(self->wc));
	for (i = 0; i < WC_NFIELDS; i++)
		if (v[i] && pv_field_store(obj, &wc_fields[i], v[i])) {
			self->wc = saved;
			return -1;
		}
	return 0;
}

/*
 * Freed WCs of the exact type are kept (up to WC_FREE_MAX) and reused by
 * pv_wc_new(): a polling loop frees the WCs of one answer and allocates
 * those of the next, and a free list spares both the allocator and the
 * generic heap-type allocation and deallocation.  Instances of subclasses
 * are freed as usual.  Not in a build without the GIL.
 */
#define WC_FREE_MAX 64
#ifndef Py_GIL_DISABLED
static PyObject *wc_free[WC_FREE_MAX];
static int wc_nfree;
#endif

static void wc_dealloc(PyObject *obj)
{
	PyTypeObject *tp = Py_TYPE(obj);

#ifndef Py_GIL_DISABLED
	if (tp == pv.WC && wc_nfree < WC_FREE_MAX)
		wc_free[wc_nfree++] = obj;
	else
#endif
		tp->tp_free(obj);
	Py_DECREF(tp); /* instances of heap types hold their type */
}

/*
 * _clear_free_lists(): drop the kept poll answers and free the kept WCs.
 * pyverbs/__init__.py calls it after every full collection, as CPython
 * empties its own free lists then: memory measured after gc.collect() is
 * what the program holds, not what the caches hold.
 */
PyObject *pv_cq_clear_free_lists(PyObject *m, PyObject *unused)
{
#ifndef Py_GIL_DISABLED
	int k;

	for (k = 0; k < CQ_RESULT_POOL; k++)
		Py_CLEAR(cq_results[k]);
	cq_results_next = 0;
	while (wc_nfree > 0)
		pv.WC->tp_free(wc_free[--wc_nfree]);
#endif
	Py_RETURN_NONE;
}

PyObject *pv_wc_new(const struct ibv_wc *wc)
{
	struct pv_wc *self;

#ifndef Py_GIL_DISABLED
	if (wc_nfree) {
		self = (struct pv_wc *)wc_free[--wc_nfree];
		PyObject_Init((PyObject *)self, pv.WC); /* cannot fail */
		memcpy(&self->wc, wc, sizeof(*wc));
		return (PyObject *)self;
	}
#endif
	self = (struct pv_wc *)pv.WC->tp_alloc(pv.WC, 0);
	if (self)
		memcpy(&self->wc, wc, sizeof(*wc));
	return (PyObject *)self;
}

PV_DATA_SPEC(wc, "pyverbs.cq.WC", struct pv_wc,
	     "WC(wr_id=0, status=0, opcode=0, vendor_err=0, "
	     "byte_len=0, qp_num=0, src_qp=0, imm_data=0, wc_flags=0, "
	     "pkey_index=0, slid=0, sl=0, dlid_path_bits=0)\n--\n\n"
	     "A work completion (struct ibv_wc), as CQ.poll() returns "
	     "them.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, wc_init },
	     { Py_tp_dealloc, wc_dealloc }, );

int pv_cq_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &cc_spec, &pv.PyverbsCM, &pv.CompChannel },
		{ &cq_spec, &pv.PyverbsCM, &pv.CQ },
		{ &wc_spec, &pv.PyverbsObject, &pv.WC, wc_fields },
		{ NULL }
	};

	if (pv_add_types(m, types))
		return -1;
	return pv_obj_register_handle(pv.CQ, offsetof(struct pv_cq, cq));
}
