/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Completion queues: CompChannel (ibv_create_comp_channel), CQ
 * (ibv_create_cq), WC (struct ibv_wc), and the extended CQ: CqInitAttrEx,
 * CQEX (ibv_create_cq_ex), PollCqAttr and WcTmInfo.
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
#include <errno.h>
#include <string.h>

#include "pyverbs.h"

/* ibv_wc entries polled into an on-stack array; more use the heap */
#define CQ_POLL_STACK 16

static PyTypeObject *cqex_type;	/* CQEX, when built; see pv_is_cq() */

int pv_is_cq(PyObject *o)
{
	return PyObject_TypeCheck(o, pv.CQ) ||
	       (cqex_type && PyObject_TypeCheck(o, cqex_type));
}

PyTypeObject *pv_cqex_type(void)
{
	return cqex_type;
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
static int cq_one_arg(const char *fname, const char *kwname,
		      PyObject *const *args, Py_ssize_t nargs,
		      PyObject *kwnames, PyObject **out)
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
				     "'%S'", fname, k);
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
static struct pv_cq *cc_find_cq(struct pv_comp_channel *self,
				struct ibv_cq *cq)
{
	struct pv_list *n;

	for (n = self->obj.children.next; n != &self->obj.children;
	     n = n->next) {
		struct pv_parent_link *l = (struct pv_parent_link *)(
			(char *)n - offsetof(struct pv_parent_link, node));
		struct pv_cq *c = (struct pv_cq *)l->self;

		if (pv_is_cq((PyObject *)c) && !c->obj.closed && c->cq == cq)
			return c;
	}
	return NULL;
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
		Py_BEGIN_ALLOW_THREADS
		rc = ibv_get_cq_event(self->cc, &ev_cq, &ev_ctx);
		err = errno;
		Py_END_ALLOW_THREADS
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
			other->num_events++;
		pv_raise_rc(EINVAL, "ibv_get_cq_event",
			    "Received event on an unexpected CQ");
		rc = -1;
		goto out;
	}
	cq->num_events++;
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

static PyType_Slot cc_slots[] = {
	{ Py_tp_doc, "CompChannel(context)\n--\n\n"
		     "A completion channel: a file descriptor delivering the "
		     "completion\nevents of the CQs created on it.  Closing "
		     "it closes those CQs." },
	{ Py_tp_init, cc_init },
	{ Py_tp_methods, cc_methods },
	{ Py_tp_getset, cc_getset },
	{ Py_tp_repr, cc_repr },
	PV_CM_SLOTS,
	{ 0, NULL }
};

static PyType_Spec cc_spec = {
	.name = "pyverbs.cq.CompChannel",
	.basicsize = sizeof(struct pv_comp_channel),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = cc_slots,
};

/* ------------------------------------------------------------------ */
/* CQ (shared by CQEX for lifetime and the common properties)          */
/* ------------------------------------------------------------------ */

static int cq_destroy(struct pv_obj *o)
{
	struct pv_cq *self = (struct pv_cq *)o;
	int rc;

	if (!self->cq)
		return 0;
	if (self->channel && self->channel->obj.busy) {
		pv_raise_user("%s cannot be closed: get_cq_event() is waiting "
			      "on its completion channel",
			      _PyType_Name(Py_TYPE(self)));
		return -2;	/* a finalizer defers the close */
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
	rc = ibv_destroy_cq(self->cq);	/* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_cq", self->cq_ex ?
			    "Failed to destroy CQEX" : "Failed to close CQ");
		return -1;
	}
	self->cq = NULL;
	self->cq_ex = NULL;
	self->channel = NULL;
	return 0;
}

/*
 * Link a new CQ/CQEX to its Context and channel.  channel may be None.
 * Checks come first: returns -1 (nothing created yet) on bad input.
 */
static int cq_check_parents(struct pv_context *ctx, PyObject *channel)
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
static int cq_link_parents(struct pv_cq *self, struct pv_context *ctx,
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
	cq_destroy(&self->obj);
	return -1;
}

static int cq_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "cqe", "cq_context", "channel",
				  "comp_vector", NULL };
	struct pv_cq *self = (struct pv_cq *)obj;
	PyObject *ctxo, *cq_context = Py_None, *channel = Py_None;
	struct pv_context *ctx;
	int cqe, comp_vector = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|OOO&:CQ", kwlist,
					 &ctxo, cq_conv_cqe, &cqe, &cq_context,
					 &channel, pv_conv_uint, &comp_vector))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("CQ is already initialised");
		return -1;
	}
	if (!PyObject_TypeCheck(ctxo, pv.Context)) {
		PyErr_Format(PyExc_TypeError,
			     "context must be a Context, not %.100s",
			     Py_TYPE(ctxo)->tp_name);
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	if (cq_check_parents(ctx, channel))
		return -1;
	pv_obj_setup(&self->obj, cq_destroy);
	self->cq = ibv_create_cq(ctx->ctx, cqe, self,
				 channel == Py_None ? NULL :
				 ((struct pv_comp_channel *)channel)->cc,
				 comp_vector);
	if (!self->cq) {
		pv_raise_errno("ibv_create_cq", "Failed to create a CQ");
		return -1;
	}
	if (cq_link_parents(self, ctx, channel))
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
	PyTuple_SET_ITEM(res, 0, PyLong_FromLong(n));	/* small int: no fail */
	PyTuple_SET_ITEM(res, 1, list);
#ifndef Py_GIL_DISABLED
	if (n <= CQ_POLL_STACK) {
		Py_XSETREF(cq_results[cq_results_next], Py_NewRef(res));
		cq_results_next = (cq_results_next + 1) % CQ_RESULT_POOL;
	}
#endif
	return res;
}

static PyObject *cq_poll(PyObject *obj, PyObject *const *args,
			 Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	struct ibv_wc stack[CQ_POLL_STACK], *wc = stack;
	PyObject *res, *arg = NULL;
	int64_t want = 1;
	int n = 1, rc;

	if ((nargs || kwnames) &&
	    cq_one_arg("poll", "num_entries", args, nargs, kwnames, &arg))
		return NULL;
	/* converted first: an __index__ may close the CQ (guard.c) */
	if (arg && pv_to_i64(arg, 0, INT64_MAX, &want, "num_entries"))
		return NULL;
	if (self->obj.closed)
		return pv_check_open_slow(&self->obj), NULL;
	if (arg) {
		/* a CQ never holds more than cqe completions */
		if (want > CQ_POLL_STACK && want > self->cq->cqe)
			want = self->cq->cqe > CQ_POLL_STACK ?
				       self->cq->cqe : CQ_POLL_STACK;
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

static PyObject *cq_req_notify(PyObject *obj, PyObject *const *args,
			       Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	PyObject *arg = NULL;
	int solicited = 0, rc;

	if ((nargs || kwnames) &&
	    cq_one_arg("req_notify", "solicited_only", args, nargs, kwnames,
		       &arg))
		return NULL;
	if (arg) {
		solicited = PyObject_IsTrue(arg);
		if (solicited < 0)
			return NULL;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	rc = ibv_req_notify_cq(self->cq, solicited);	/* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_req_notify_cq",
				   "Request notify CQ returned %d", rc);
	Py_RETURN_NONE;
}

static PyObject *cq_ack_events(PyObject *obj, PyObject *args, PyObject *kw)
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
				     "were got and not acked", n,
				     self->num_events);
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
	rc = ibv_resize_cq(self->cq, cqe);	/* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_resize_cq", "Failed to resize CQ");
	Py_RETURN_NONE;
}

static PyObject *cq_get_cq(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->cq);
}

static PyObject *cq_get_cqe(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromLong(self->cq->cqe);
}

static PyObject *cq_get_handle(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLong(self->cq->handle);
}

static PyObject *cq_get_comp_channel(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	return Py_NewRef(self->channel ? (PyObject *)self->channel : Py_None);
}

static PyObject *cq_get_num_events(PyObject *obj, void *closure)
{
	return PyLong_FromUnsignedLong(((struct pv_cq *)obj)->num_events);
}

static PyObject *cq_get_cq_context(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	return Py_NewRef(self->cq_context ? self->cq_context : Py_None);
}

static PyObject *cq_get_ctx(PyObject *obj, void *closure)
{
	struct pv_obj *ctx = pv_obj_parent(PV_OBJ(obj), 0);

	return Py_NewRef(ctx ? (PyObject *)ctx : Py_None);
}

static int cq_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct pv_cq *)obj)->cq_context);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int cq_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(((struct pv_cq *)obj)->cq_context);
	return 0;
}

static PyObject *cq_repr(PyObject *obj)
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
	{ "req_notify", (PyCFunction)(void (*)(void))cq_req_notify,
	  METH_FASTCALL | METH_KEYWORDS,
	  "req_notify($self, /, solicited_only=False)\n--\n\n"
	  "Arm the CQ: the next completion (the next solicited one if\n"
	  "solicited_only) sends an event to its channel (ibv_req_notify_cq)." },
	{ "ack_events", (PyCFunction)(void (*)(void))cq_ack_events,
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

/* The attributes of both CQ and CQEX; the docs name their own struct and
 * where cq_context comes from. */
#define CQ_GETSET(cq_doc, cq_context_doc)                               \
	{ "cq", cq_get_cq, NULL, cq_doc, NULL },                        \
	{ "cqe", cq_get_cqe, NULL, "The actual number of CQ entries.",  \
	  NULL },                                                       \
	{ "handle", cq_get_handle, NULL, "The kernel handle of the CQ.", \
	  NULL },                                                       \
	{ "comp_channel", cq_get_comp_channel, NULL,                    \
	  "The CompChannel of the CQ, or None.", NULL },                \
	{ "num_events", cq_get_num_events, NULL,                        \
	  "Completion events got by get_cq_event() and not acked yet.", \
	  NULL },                                                       \
	{ "cq_context", cq_get_cq_context, NULL, cq_context_doc, NULL }, \
	{ "ctx", cq_get_ctx, NULL, "The Context of the CQ.", NULL }

static PyGetSetDef cq_getset[] = {
	CQ_GETSET("Address of the struct ibv_cq (0 if closed).",
		  "The cq_context object given at creation (held), or None."),
	{ NULL }
};

static PyType_Slot cq_slots[] = {
	{ Py_tp_doc, "CQ(context, cqe, cq_context=None, channel=None, "
		     "comp_vector=0)\n--\n\n"
		     "A completion queue of at least cqe entries "
		     "(ibv_create_cq); with channel,\nits completion events "
		     "go to that CompChannel." },
	{ Py_tp_init, cq_init },
	{ Py_tp_methods, cq_methods },
	{ Py_tp_getset, cq_getset },
	{ Py_tp_repr, cq_repr },
	{ Py_tp_traverse, cq_traverse },
	{ Py_tp_clear, cq_clear },
	{ 0, NULL }
};

static PyType_Spec cq_spec = {
	.name = "pyverbs.cq.CQ",
	.basicsize = sizeof(struct pv_cq),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = cq_slots,
};

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
	static char *kwlist[] = { "wr_id", "status", "opcode", "vendor_err",
				  "byte_len", "qp_num", "src_qp", "imm_data",
				  "wc_flags", "pkey_index", "slid", "sl",
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
	Py_DECREF(tp);	/* instances of heap types hold their type */
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
		PyObject_Init((PyObject *)self, pv.WC);	/* cannot fail */
		memcpy(&self->wc, wc, sizeof(*wc));
		return (PyObject *)self;
	}
#endif
	self = (struct pv_wc *)pv.WC->tp_alloc(pv.WC, 0);
	if (self)
		memcpy(&self->wc, wc, sizeof(*wc));
	return (PyObject *)self;
}

static PyType_Slot wc_slots[] = {
	{ Py_tp_doc, "WC(wr_id=0, status=0, opcode=0, vendor_err=0, "
		     "byte_len=0, qp_num=0, src_qp=0, imm_data=0, wc_flags=0, "
		     "pkey_index=0, slid=0, sl=0, dlid_path_bits=0)\n--\n\n"
		     "A work completion (struct ibv_wc), as CQ.poll() returns "
		     "them." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_init, wc_init },
	{ Py_tp_dealloc, wc_dealloc },
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec wc_spec = {
	.name = "pyverbs.cq.WC",
	.basicsize = sizeof(struct pv_wc),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.slots = wc_slots,
};

/* ------------------------------------------------------------------ */
/* CqInitAttrEx, PollCqAttr, WcTmInfo                                  */
/* ------------------------------------------------------------------ */

/*
 * The channel and parent domain are kept as objects and turned into C
 * pointers only when a CQEX is created, so that a closed channel is refused
 * instead of being used.
 */
struct cq_init_attr_ex {
	PyObject_HEAD
	struct ibv_cq_init_attr_ex attr;
	PyObject *channel;		/* CompChannel, None or NULL */
	PyObject *parent_domain;	/* PD, None or NULL */
	PyObject *cq_context;		/* any object, None or NULL */
};

static PyTypeObject *cia_type, *pca_type, *tmi_type;

#define CIA struct cq_init_attr_ex
static const struct pv_field cia_fields[] = {
	PV_FIELD(CIA, attr.cqe, "cqe"),
	PV_FIELD(CIA, attr.comp_vector, "comp_vector"),
	PV_FIELD(CIA, attr.wc_flags, "wc_flags"),
	PV_FIELD(CIA, attr.comp_mask, "comp_mask"),
	PV_FIELD(CIA, attr.flags, "flags"),
	PV_FIELD_END
};

/* Deleting one of these attributes stores None, as it always has here. */
#define CIA_OSLOT(member, pyname, tp, err, d)                           \
	{ PV_OSLOT_AT(CIA, member, pyname), .type = (tp),               \
	  .type_err = (err), .flags = PV_OSLOT_DEL_NONE, .doc = (d) }

enum { CIA_CHANNEL, CIA_PD };
static const struct pv_oslot cia_oslots[] = {
	[CIA_CHANNEL] = CIA_OSLOT(channel, "comp_channel", &pv.CompChannel,
				  "channel must be a CompChannel or None",
				  "The CompChannel of the CQ to create, or "
				  "None."),
	[CIA_PD] = CIA_OSLOT(parent_domain, "parent_domain", &pv.PD,
			     "parent_domain must be a PD (ParentDomain) or "
			     "None",
			     "The ParentDomain of the CQ to create, or None."),
	CIA_OSLOT(cq_context, "cq_context", NULL, NULL,
		  "An object the created CQEX holds as its cq_context."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(cia, cia_oslots)

static int cia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "cqe", "channel", "comp_vector", "wc_flags",
				  "comp_mask", "flags", "parent_domain", NULL };
	struct cq_init_attr_ex *self = (struct cq_init_attr_ex *)obj;
	PyObject *channel = Py_None, *pd = Py_None;
	struct ibv_cq_init_attr_ex a = { .cqe = 100 };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&OO&O&O&O&O:CqInitAttrEx",
					 kwlist, pv_conv_u32, &a.cqe, &channel,
					 pv_conv_u32, &a.comp_vector,
					 pv_conv_u64, &a.wc_flags, pv_conv_u32,
					 &a.comp_mask, pv_conv_u32, &a.flags,
					 &pd))
		return -1;
	/* both checked before anything changes */
	if (pv_oslot_check(&cia_oslots[CIA_CHANNEL], channel) ||
	    pv_oslot_check(&cia_oslots[CIA_PD], pd))
		return -1;
	self->attr = a;
	Py_XSETREF(self->channel, Py_NewRef(channel));
	Py_XSETREF(self->parent_domain, Py_NewRef(pd));
	Py_CLEAR(self->cq_context);
	return 0;
}

static PyType_Slot cia_slots[] = {
	{ Py_tp_doc, "CqInitAttrEx(cqe=100, channel=None, comp_vector=0, "
		     "wc_flags=0, comp_mask=0, flags=0, parent_domain=None)"
		     "\n--\n\n"
		     "Attributes of an extended CQ (struct "
		     "ibv_cq_init_attr_ex)." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_init, cia_init },
	PV_OSLOTS_GC_SLOTS(cia),
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec cia_spec = {
	.name = "pyverbs.cq.CqInitAttrEx",
	.basicsize = sizeof(struct cq_init_attr_ex),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = cia_slots,
};

struct poll_cq_attr {
	PyObject_HEAD
	struct ibv_poll_cq_attr attr;
};

static const struct pv_field pca_fields[] = {
	PV_FIELD(struct poll_cq_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD_END
};

static int pca_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", NULL };
	struct poll_cq_attr *self = (struct poll_cq_attr *)obj;
	uint32_t comp_mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$O&:PollCqAttr", kwlist,
					 pv_conv_u32, &comp_mask))
		return -1;
	self->attr.comp_mask = comp_mask;
	return 0;
}

static PyType_Slot pca_slots[] = {
	{ Py_tp_doc, "PollCqAttr(*, comp_mask=0)\n--\n\n"
		     "Attributes of CQEX.start_poll() (struct "
		     "ibv_poll_cq_attr)." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_init, pca_init },
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec pca_spec = {
	.name = "pyverbs.cq.PollCqAttr",
	.basicsize = sizeof(struct poll_cq_attr),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.slots = pca_slots,
};

struct wc_tm_info {
	PyObject_HEAD
	struct ibv_wc_tm_info info;
};

static const struct pv_field tmi_fields[] = {
	PV_FIELD(struct wc_tm_info, info.tag, "tag"),
	PV_FIELD(struct wc_tm_info, info.priv, "priv"),
	PV_FIELD_END
};

static int tmi_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { NULL };

	return PyArg_ParseTupleAndKeywords(args, kw, ":WcTmInfo", kwlist) ?
		       0 : -1;
}

static PyType_Slot tmi_slots[] = {
	{ Py_tp_doc, "WcTmInfo()\n--\n\n"
		     "Tag matching information of a completion (struct "
		     "ibv_wc_tm_info)." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_init, tmi_init },
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec tmi_spec = {
	.name = "pyverbs.cq.WcTmInfo",
	.basicsize = sizeof(struct wc_tm_info),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.slots = tmi_slots,
};

/* ------------------------------------------------------------------ */
/* CQEX                                                                */
/* ------------------------------------------------------------------ */

/* The default creation of a CQEX: ibv_create_cq_ex() */
static struct ibv_cq_ex *cqex_create_plain(struct ibv_context *ctx,
					   struct ibv_cq_init_attr_ex *attr,
					   void *arg)
{
	struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, attr);

	if (!cq)
		pv_raise_errno("ibv_create_cq_ex",
			       "Failed to create extended CQ");
	return cq;
}

int pv_cqex_setup(PyObject *obj, PyObject *ctxo, PyObject *ia,
		  pv_cqex_create_fn create, void *arg)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	PyObject *channel = Py_None, *pd = Py_None;
	struct ibv_cq_init_attr_ex a = { .cqe = 100 };
	struct pv_alloc_guard guard;
	struct pv_obj *uses[2];
	struct pv_context *ctx;
	PyObject *cq_context = NULL;

	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("%s is already initialised",
			      _PyType_Name(Py_TYPE(obj)));
		return -1;
	}
	if (!PyObject_TypeCheck(ctxo, pv.Context)) {
		PyErr_Format(PyExc_TypeError,
			     "context must be a Context, not %.100s",
			     Py_TYPE(ctxo)->tp_name);
		return -1;
	}
	ctx = (struct pv_context *)ctxo;
	if (ia != Py_None) {
		struct cq_init_attr_ex *cia = (struct cq_init_attr_ex *)ia;

		if (!PyObject_TypeCheck(ia, cia_type)) {
			PyErr_Format(PyExc_TypeError,
				     "init_attr must be a CqInitAttrEx or "
				     "None, not %.100s", Py_TYPE(ia)->tp_name);
			return -1;
		}
		a = cia->attr;
		/* the slots hold None or NULL when unset */
		if (cia->channel)
			channel = cia->channel;
		if (cia->parent_domain)
			pd = cia->parent_domain;
		if (cia->cq_context != Py_None)
			cq_context = cia->cq_context;
	}
	if (cq_check_parents(ctx, channel))
		return -1;
	if (pd != Py_None) {
		if (pv_check_open(PV_OBJ(pd)))
			return -1;
		if (!pv_obj_descends_from(PV_OBJ(pd), &ctx->obj)) {
			pv_raise_user("The parent domain belongs to another "
				      "Context");
			return -1;
		}
		a.parent_domain = ((struct pv_pd *)pd)->pd;
	} else {
		a.parent_domain = NULL;
	}
	a.channel = channel == Py_None ? NULL :
		    ((struct pv_comp_channel *)channel)->cc;
	a.cq_context = self;
	pv_obj_setup(&self->obj, cq_destroy);
	uses[0] = &ctx->obj;
	uses[1] = channel == Py_None ? NULL : PV_OBJ(channel);
	pv_alloc_guard_begin(&guard, pd == Py_None ? NULL : (struct pv_pd *)pd,
			     uses, 2);
	self->cq_ex = (create ? create : cqex_create_plain)(ctx->ctx, &a, arg);
	pv_alloc_guard_end(&guard, !self->cq_ex);
	if (!self->cq_ex)
		return -1;
	self->cq = ibv_cq_ex_to_cq(self->cq_ex);
	if (cq_link_parents(self, ctx, channel))
		return -1;
	if (pd != Py_None && pv_obj_link(&self->obj, PV_OBJ(pd))) {
		cq_destroy(&self->obj);
		return -1;
	}
	Py_XSETREF(self->cq_context, Py_XNewRef(cq_context));
	self->num_events = 0;
	self->polling = self->current = 0;
	pv_obj_opened(&self->obj);
	return 0;
}

static int cqex_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "init_attr", NULL };
	PyObject *ctxo, *ia = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:CQEX", kwlist, &ctxo,
					 &ia))
		return -1;
	return pv_cqex_setup(obj, ctxo, ia, NULL, NULL);
}

static PyObject *cqex_start_poll(PyObject *obj, PyObject *const *args,
				 Py_ssize_t nargs, PyObject *kwnames)
{
	static struct ibv_poll_cq_attr dflt;
	struct pv_cq *self = (struct pv_cq *)obj;
	struct ibv_poll_cq_attr *attr = &dflt;
	PyObject *arg = NULL;
	int rc;

	if ((nargs || kwnames) &&
	    cq_one_arg("start_poll", "attr", args, nargs, kwnames, &arg))
		return NULL;
	if (arg && arg != Py_None) {
		if (!PyObject_TypeCheck(arg, pca_type)) {
			PyErr_Format(PyExc_TypeError,
				     "attr must be a PollCqAttr or None, not "
				     "%.100s", Py_TYPE(arg)->tp_name);
			return NULL;
		}
		attr = &((struct poll_cq_attr *)arg)->attr;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	if (self->polling)
		return pv_raise_user("start_poll(): a poll batch is already "
				     "open; call end_poll() first");
	/* returns 0, ENOENT when the CQ is empty (no end_poll() then), or
	 * another errno */
	rc = ibv_start_poll(self->cq_ex, attr);
	self->polling = self->current = rc == 0;
	return PyLong_FromLong(rc);
}

static PyObject *cqex_poll_next(PyObject *obj, PyObject *unused)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	if (!self->polling)
		return pv_raise_user("poll_next(): no poll batch is open; "
				     "call start_poll() first");
	rc = ibv_next_poll(self->cq_ex);	/* 0, ENOENT or errno */
	self->current = rc == 0;
	return PyLong_FromLong(rc);
}

static PyObject *cqex_end_poll(PyObject *obj, PyObject *unused)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	/* Without an open batch (start_poll() failed) ibv_end_poll() must not
	 * be called: it would release a lock not taken. */
	if (self->polling) {
		ibv_end_poll(self->cq_ex);
		self->polling = self->current = 0;
	}
	Py_RETURN_NONE;
}

/* Check that the CQEX has a current completion and that the provider
 * supplies the reader (it does only for the wc_flags the CQ was created
 * with).  Returns 0 or -1. */
static int cqex_can_read(struct pv_cq *self, const void *fn, const char *name)
{
	if (pv_check_open(&self->obj))
		return -1;
	if (!self->current) {
		pv_raise_user("%s(): no current completion (start_poll() or "
			      "poll_next() did not return 0)", name);
		return -1;
	}
	if (!fn) {
		pv_raise_user("%s(): the CQ was not created with the WC flag "
			      "for this field", name);
		return -1;
	}
	return 0;
}

#define CQEX_READER(name, member, conv)                                 \
	static PyObject *cqex_##name(PyObject *obj, PyObject *unused)   \
	{                                                               \
		struct pv_cq *self = (struct pv_cq *)obj;               \
		if (cqex_can_read(self,                                 \
				  self->cq_ex ? (const void *)          \
					self->cq_ex->member : NULL,     \
				  #name))                               \
			return NULL;                                    \
		return conv(self->cq_ex->member(self->cq_ex));          \
	}

CQEX_READER(read_opcode, read_opcode, PyLong_FromUnsignedLong)
CQEX_READER(read_vendor_err, read_vendor_err, PyLong_FromUnsignedLong)
CQEX_READER(read_byte_len, read_byte_len, PyLong_FromUnsignedLong)
CQEX_READER(read_imm_data, read_imm_data, PyLong_FromUnsignedLong)
CQEX_READER(read_qp_num, read_qp_num, PyLong_FromUnsignedLong)
CQEX_READER(read_src_qp, read_src_qp, PyLong_FromUnsignedLong)
CQEX_READER(read_wc_flags, read_wc_flags, PyLong_FromUnsignedLong)
CQEX_READER(read_slid, read_slid, PyLong_FromUnsignedLong)
CQEX_READER(read_sl, read_sl, PyLong_FromUnsignedLong)
CQEX_READER(read_dlid_path_bits, read_dlid_path_bits,
	    PyLong_FromUnsignedLong)
CQEX_READER(read_timestamp, read_completion_ts, PyLong_FromUnsignedLongLong)
CQEX_READER(read_cvlan, read_cvlan, PyLong_FromUnsignedLong)
CQEX_READER(read_flow_tag, read_flow_tag, PyLong_FromUnsignedLong)
CQEX_READER(read_completion_wallclock_ns, read_completion_wallclock_ns,
	    PyLong_FromUnsignedLongLong)

static PyObject *cqex_read_tm_info(PyObject *obj, PyObject *unused)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	struct wc_tm_info *info;

	if (cqex_can_read(self,
			  self->cq_ex ? (const void *)self->cq_ex->read_tm_info
				      : NULL,
			  "read_tm_info"))
		return NULL;
	info = (struct wc_tm_info *)tmi_type->tp_alloc(tmi_type, 0);
	if (info)
		self->cq_ex->read_tm_info(self->cq_ex, &info->info);
	return (PyObject *)info;
}

/* status and wr_id of the current completion: the closure is 0 for
 * status, 1 for wr_id. */
static PyObject *cqex_get_wc(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	if (closure)
		return PyLong_FromUnsignedLongLong(self->cq_ex->wr_id);
	return PyLong_FromUnsignedLong(self->cq_ex->status);
}

static int cqex_set_wc(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	const char *name = closure ? "wr_id" : "status";
	uint64_t x;

	if (!v) {
		PyErr_Format(PyExc_AttributeError, "cannot delete %s", name);
		return -1;
	}
	/* converted first: an __index__ may close the CQ (guard.c) */
	if (pv_to_u64(v, closure ? UINT64_MAX : UINT32_MAX, &x, name) ||
	    pv_check_open(&self->obj))
		return -1;
	if (closure)
		self->cq_ex->wr_id = x;
	else
		self->cq_ex->status = (enum ibv_wc_status)x;
	return 0;
}

#define CQEX_READ_METHOD(name)                                          \
	{ #name, cqex_##name, METH_NOARGS,                              \
	  #name "($self, /)\n--\n\n"                                    \
	  "The field of the current completion (ibv_wc_" #name ")." }

static PyMethodDef cqex_methods[] = {
	{ "start_poll", (PyCFunction)(void (*)(void))cqex_start_poll,
	  METH_FASTCALL | METH_KEYWORDS,
	  "start_poll($self, /, attr=None)\n--\n\n"
	  "Start a poll batch (ibv_start_poll).  Return 0 (a completion is "
	  "current),\nENOENT (the CQ is empty) or another errno." },
	{ "poll_next", cqex_poll_next, METH_NOARGS,
	  "poll_next($self, /)\n--\n\n"
	  "Move to the next completion of the batch (ibv_next_poll).  Return "
	  "0 or ENOENT." },
	{ "end_poll", cqex_end_poll, METH_NOARGS,
	  "end_poll($self, /)\n--\n\n"
	  "End the poll batch (ibv_end_poll); does nothing without one." },
	CQEX_READ_METHOD(read_opcode),
	CQEX_READ_METHOD(read_vendor_err),
	CQEX_READ_METHOD(read_byte_len),
	CQEX_READ_METHOD(read_imm_data),
	CQEX_READ_METHOD(read_qp_num),
	CQEX_READ_METHOD(read_src_qp),
	CQEX_READ_METHOD(read_wc_flags),
	CQEX_READ_METHOD(read_slid),
	CQEX_READ_METHOD(read_sl),
	CQEX_READ_METHOD(read_dlid_path_bits),
	CQEX_READ_METHOD(read_timestamp),
	CQEX_READ_METHOD(read_cvlan),
	CQEX_READ_METHOD(read_flow_tag),
	CQEX_READ_METHOD(read_tm_info),
	CQEX_READ_METHOD(read_completion_wallclock_ns),
	{ "req_notify", (PyCFunction)(void (*)(void))cq_req_notify,
	  METH_FASTCALL | METH_KEYWORDS,
	  "req_notify($self, /, solicited_only=False)\n--\n\n"
	  "Arm the CQ for a completion event (ibv_req_notify_cq)." },
	{ "ack_events", (PyCFunction)(void (*)(void))cq_ack_events,
	  METH_VARARGS | METH_KEYWORDS,
	  "ack_events($self, /, num_events)\n--\n\n"
	  "Acknowledge num_events events got by get_cq_event()." },
	{ NULL }
};

static PyGetSetDef cqex_getset[] = {
	{ "status", cqex_get_wc, cqex_set_wc,
	  "Status of the current completion.", NULL },
	{ "wr_id", cqex_get_wc, cqex_set_wc,
	  "wr_id of the current completion.", (void *)1 },
	CQ_GETSET("Address of the struct ibv_cq_ex (0 if closed).",
		  "The cq_context object of the init_attr (held), or None."),
	{ NULL }
};

static PyType_Slot cqex_slots[] = {
	{ Py_tp_doc, "CQEX(context, init_attr)\n--\n\n"
		     "An extended completion queue (ibv_create_cq_ex), polled "
		     "with\nstart_poll() / poll_next() / end_poll() and the "
		     "read_*() accessors." },
	{ Py_tp_init, cqex_init },
	{ Py_tp_methods, cqex_methods },
	{ Py_tp_getset, cqex_getset },
	{ Py_tp_repr, cq_repr },
	{ Py_tp_traverse, cq_traverse },
	{ Py_tp_clear, cq_clear },
	{ 0, NULL }
};

static PyType_Spec cqex_spec = {
	.name = "pyverbs.cq.CQEX",
	.basicsize = sizeof(struct pv_cq),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = cqex_slots,
};

int pv_cq_init_types(PyObject *m)
{
	if (pv_add_type(m, &cc_spec, pv.PyverbsCM, &pv.CompChannel) ||
	    pv_add_type(m, &cq_spec, pv.PyverbsCM, &pv.CQ) ||
	    pv_add_data_type(m, &wc_spec, pv.PyverbsObject, wc_fields, NULL,
			     NULL, &pv.WC) ||
	    pv_add_data_type(m, &cia_spec, pv.PyverbsObject, cia_fields,
			     cia_oslots, NULL, &cia_type) ||
	    pv_add_data_type(m, &pca_spec, pv.PyverbsObject, pca_fields, NULL,
			     NULL, &pca_type) ||
	    pv_add_data_type(m, &tmi_spec, pv.PyverbsObject, tmi_fields, NULL,
			     NULL, &tmi_type) ||
	    pv_add_type(m, &cqex_spec, pv.PyverbsCM, &cqex_type))
		return -1;
	return 0;
}
