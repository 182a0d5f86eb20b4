/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Posting WRs, for QPs, SRQs and WQs alike: pv_post_wrs() takes one WR with
 * its next_wr chain or a list of them, checks every WR (pv_send_wr_check(),
 * inline data readable, no WR twice in one post, C links in step), links a
 * list for the call, reports a failure with the index of the WR the
 * provider stopped at, and posts without the GIL where the provider's post
 * is slow (struct pv_post_probe).
 */
#include "post.h" /* first: Python.h defines _GNU_SOURCE */
#include "errors.h"
#include "memory.h"
#include "mw.h"
#include "object.h"
#include "post_probe.h"
#include "wr.h"

#include <string.h>
#include <time.h>

/*
 * The provider memcpy()s the SGEs of an IBV_SEND_INLINE WR in user space,
 * so a bad address would crash the interpreter instead of failing the post:
 * read them first with pv_read_mem(), which reports a bad range instead of
 * faulting.  Returns 0 or -1.
 */
static int swr_check_inline(struct pv_send_wr *w)
{
#ifdef Py_GIL_DISABLED
	char scratch[2048]; /* each thread its own */
#else
	static char scratch[16384]; /* the GIL serialises its users */
#endif
	int i;

	for (i = 0; i < w->wr.num_sge; i++) {
		uint64_t addr = w->wr.sg_list[i].addr;
		size_t len = w->wr.sg_list[i].length;

		while (len) {
			size_t n = len < sizeof(scratch) ? len :
							   sizeof(scratch);

			if (pv_read_mem(scratch, addr, n))
				return -1;
			addr += n;
			len -= n;
		}
	}
	return 0;
}

static inline int swr_check_one(struct pv_send_wr *w)
{
	return (w->wr.send_flags & IBV_SEND_INLINE) ? swr_check_inline(w) : 0;
}

/* wr.next must match next_wr (wr.c keeps them in step). */
static int wr_check_link(PyObject *o, PyObject *next, int send)
{
	void *want = next ? wr_c(next, send) : NULL;

	if (wr_c_next(o, send) == want)
		return 0;
	pv_raise_error("Internal error: a WR chain is inconsistent");
	return -1;
}

/*
 * Mark every WR of the chain starting at o as being posted and check it
 * (pv_send_wr_check() for send WRs: closed AH, UD without address, ...);
 * return its tail, or NULL with an exception (a WR met twice in the WRs
 * posted, which would make a loop, or a WR that fails its checks).
 */
static PyObject *wr_mark_chain(PyObject *o, int send, enum ibv_qp_type qpt)
{
	if (send && pv_send_wr_check(SWR(o), qpt))
		return NULL;
	for (;;) {
		PyObject *next = wr_next(o, send);
		unsigned char *mark = wr_in_post(o, send);

		if (*mark) {
			pv_raise_user("A %s appears more than once in the WRs "
				      "posted",
				      send ? "SendWR" : "RecvWR");
			return NULL;
		}
		*mark = 1;
		if ((send && swr_check_one(SWR(o))) ||
		    wr_check_link(o, next, send))
			return NULL;
		if (!next)
			return o;
		o = next;
	}
}

/*
 * The fast path of a list of WRs: mark and link its items while each is
 * of the exact type, unchained, unmarked and plain (wr_chain_plain());
 * returns how many were (n: all, ready to post).  wr_list_unlink(items,
 * count) undoes it.
 */
static Py_ssize_t wr_list_plain(PyObject *const *items, Py_ssize_t n, int send,
				enum ibv_qp_type qpt, PyTypeObject *tp)
{
	Py_ssize_t i;

	for (i = 0; i < n; i++) {
		PyObject *o = items[i];

		if (!Py_IS_TYPE(o, tp) || wr_next(o, send) ||
		    *wr_in_post(o, send) || !wr_chain_plain(o, send, qpt))
			break;
		*wr_in_post(o, send) = 1;
		if (i)
			wr_set_c_next(items[i - 1], o, send);
	}
	return i;
}

static void wr_list_unlink(PyObject *const *items, Py_ssize_t n, int send)
{
	Py_ssize_t i;

	for (i = 0; i < n; i++) {
		*wr_in_post(items[i], send) = 0;
		wr_set_c_next(items[i], NULL, send);
	}
}

/* Every check of a chain (pv_send_wr_check() for send WRs), without
 * marking it.  Returns 0 or -1. */
static int wr_check_chain(PyObject *o, int send, enum ibv_qp_type qpt)
{
	if (send && pv_send_wr_check(SWR(o), qpt))
		return -1;
	for (; o; o = wr_next(o, send))
		if ((send && swr_check_one(SWR(o))) ||
		    wr_check_link(o, wr_next(o, send), send))
			return -1;
	return 0;
}

/*
 * Undo wr_mark_chain(): clear the marks of the chain and, with unlink, make
 * the tail's C link NULL again.  Stops at the first unmarked WR, so that it
 * also undoes a marking that failed half-way.
 */
static void wr_unmark_chain(PyObject *o, int send, int unlink)
{
	while (o && *wr_in_post(o, send)) {
		PyObject *next = wr_next(o, send);

		*wr_in_post(o, send) = 0;
		if (unlink && !next)
			wr_set_c_next(o, NULL, send);
		o = next;
	}
}

/* Position of the C WR bad among the WRs posted (chains flattened), and
 * the WR object, or -1. */
static Py_ssize_t wr_find(PyObject *const *items, Py_ssize_t n, void *bad,
			  int send, PyObject **found)
{
	Py_ssize_t i, idx = 0;
	PyObject *o;

	for (i = 0; bad && i < n; i++)
		for (o = items[i]; o; o = wr_next(o, send), idx++)
			if (wr_c(o, send) == bad) {
				*found = o;
				return idx;
			}
	return -1;
}

/*
 * Copy the failing WR into the caller's bad_wr, as upstream does, but
 * without sharing memory: dst keeps its own next link, gets its own copy of
 * the SGEs (in sge_inline, or a PyMem block, sg_cap set, as wr.c stores
 * them) and a reference to the AH.  Returns 0 or -1.
 */
static int wr_copy(PyObject *dst, PyObject *src, int send)
{
	struct ibv_sge *inl, *old, *sg;
	const struct ibv_sge *from;
	int n;

	if (dst == src)
		return 0;
	if (send) {
		inl = SWR(dst)->sge_inline;
		old = SWR(dst)->wr.sg_list;
		from = SWR(src)->wr.sg_list;
		n = SWR(src)->wr.num_sge;
	} else {
		inl = RWR(dst)->sge_inline;
		old = RWR(dst)->wr.sg_list;
		from = RWR(src)->wr.sg_list;
		n = RWR(src)->wr.num_sge;
	}
	if (n < 0 || (n && !from))
		n = 0;
	if (n <= PV_WR_INLINE_SGES) {
		sg = inl;
	} else {
		sg = PyMem_Malloc(n * sizeof(*sg));
		if (!sg) {
			PyErr_NoMemory();
			return -1;
		}
	}
	if (n)
		memcpy(sg, from, n * sizeof(*sg));
	if (old && old != inl)
		PyMem_Free(old);
	if (send) {
		struct ibv_send_wr w = SWR(src)->wr;
		struct pv_ah *ah = SWR(dst)->ah;

		w.next = SWR(dst)->wr.next;
		w.sg_list = sg;
		w.num_sge = n;
		SWR(dst)->wr = w;
		SWR(dst)->sg_cap = n;
		SWR(dst)->ah = SWR(src)->ah;
		Py_XINCREF(SWR(dst)->ah);
		Py_XDECREF(ah);
	} else {
		struct ibv_recv_wr w = RWR(src)->wr;

		w.next = RWR(dst)->wr.next;
		w.sg_list = sg;
		w.num_sge = n;
		RWR(dst)->wr = w;
		RWR(dst)->sg_cap = n;
	}
	return 0;
}

/* Raise the post failure with .bad_wr_index i (-1: None) set, and fill
 * bad_wr from found, the WR at i. */
static PyObject *post_failed_at(int rc, const struct pv_post_ops *ops,
				Py_ssize_t i, PyObject *found, PyObject *bad_wr)
{
	PyObject *idx, *et, *ev, *tb;

	if (found && bad_wr && wr_copy(bad_wr, found, ops->send))
		return NULL;
	pv_raise_rc(rc, ops->func, ops->msg);
	PyErr_Fetch(&et, &ev, &tb);
	PyErr_NormalizeException(&et, &ev, &tb);
	idx = i < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(i);
	if (!idx || !ev || PyObject_SetAttrString(ev, "bad_wr_index", idx)) {
		Py_XDECREF(idx);
		Py_XDECREF(et);
		Py_XDECREF(ev);
		Py_XDECREF(tb);
		return NULL;
	}
	Py_DECREF(idx);
	PyErr_Restore(et, ev, tb);
	return NULL;
}

/* post.h */
PyObject *pv_post_failed(int rc, const struct pv_post_ops *ops,
			 PyObject *const *items, Py_ssize_t n, void *bad,
			 PyObject *bad_wr)
{
	PyObject *found = NULL;
	Py_ssize_t i = wr_find(items, n, bad, ops->send, &found);

	return post_failed_at(rc, ops, i, found, bad_wr);
}

/* ------------------------------------------------------------------ */
/* Posting without the GIL (struct pv_post_probe in post_probe.h)      */

static inline struct pv_post_probe *post_probe(PyObject *obj,
					       const struct pv_post_ops *ops)
{
	return ops->probe ? (struct pv_post_probe *)((char *)obj + ops->probe) :
			    NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* ops->post() of a queue still being probed, timed. */
static int post_timed(struct pv_post_probe *p, PyObject *obj,
		      const struct pv_post_ops *ops, void *head, void **bad)
{
	uint64_t t0 = now_ns(), dt;
	int rc = ops->post(obj, head, bad);

	dt = now_ns() - t0;
	if (rc)
		return rc;
	if (!p->timed || dt < p->min_ns)
		p->min_ns = dt < UINT32_MAX ? (uint32_t)dt : UINT32_MAX;
	if (++p->timed == PV_POST_PROBES)
		p->slow = p->min_ns >= PV_POST_SLOW_NS;
	return 0;
}

/* post.h */
int pv_other_threads(void)
{
	/* the module lives in one interpreter (module.c refuses a second) */
	static PyInterpreterState *interp;
	PyThreadState *t;

	if (!interp)
		interp = PyInterpreterState_Get();
	t = PyInterpreterState_ThreadHead(interp);
	return t && PyThreadState_Next(t);
}

/* The WR object whose C WR is c (a plain chain links only ours). */
static inline PyObject *wr_of_c(void *c, int send)
{
	return (PyObject *)((char *)c -
			    (send ? offsetof(struct pv_send_wr, wr) :
				    offsetof(struct pv_recv_wr, wr)));
}

/* The link, SGE list and SGE count of a C WR of either kind. */
struct wr_c_fields {
	void **next;
	struct ibv_sge **sg_list;
	int *num_sge;
};

static inline struct wr_c_fields wr_c_fields(void *c, int send)
{
	struct ibv_send_wr *s = c;
	struct ibv_recv_wr *r = c;

	return send ? (struct wr_c_fields){ (void **)&s->next, &s->sg_list,
					    &s->num_sge } :
		      (struct wr_c_fields){ (void **)&r->next, &r->sg_list,
					    &r->num_sge };
}

/*
 * Post the plain chain at head (linked in C; for a list, items[0..n) are
 * its marked elements, unlinked here) with the GIL released: the WRs and
 * their SGEs are copied first, so that another thread may change or drop
 * the WR objects meanwhile, the objects are held for the error report, and
 * the queue counts the post in its posting (close() waits for it).
 */
static PyObject *post_released(PyObject *obj, const struct pv_post_ops *ops,
			       PyObject *head, PyObject *const *items,
			       Py_ssize_t nitems, PyObject *bad_wr)
{
	int send = ops->send;
	size_t wsz = send ? sizeof(struct ibv_send_wr) :
			    sizeof(struct ibv_recv_wr);
	PyObject *refs_stack[16], **refs = refs_stack, *ret = NULL;
	char block_stack[2048], *block = block_stack;
	struct ibv_sge *sg;
	Py_ssize_t n = 0, nsge = 0, i, at;
	size_t size;
	void *c, *bad = NULL;
	int rc;

	for (c = wr_c(head, send); c; c = *wr_c_fields(c, send).next) {
		int k = *wr_c_fields(c, send).num_sge;

		n++;
		nsge += k > 0 ? k : 0;
	}
	size = n * wsz + nsge * sizeof(struct ibv_sge);
	if (n > (Py_ssize_t)Py_ARRAY_LENGTH(refs_stack))
		refs = PyMem_Malloc(n * sizeof(*refs));
	if (size > sizeof(block_stack))
		block = PyMem_Malloc(size);
	if (!refs || !block) {
		PyErr_NoMemory();
		if (items)
			wr_list_unlink(items, nitems, send);
		goto out;
	}
	sg = (struct ibv_sge *)(block + n * wsz);
	for (i = 0, c = wr_c(head, send); i < n; i++) {
		char *dst = block + i * wsz;
		struct wr_c_fields f = wr_c_fields(dst, send);
		int k;

		refs[i] = Py_NewRef(wr_of_c(c, send));
		memcpy(dst, c, wsz);
		c = *f.next;
		k = *f.num_sge > 0 ? *f.num_sge : 0;
		if (k)
			memcpy(sg, *f.sg_list, k * sizeof(*sg));
		*f.sg_list = sg;
		sg += k;
		*f.next = i + 1 < n ? dst + wsz : NULL;
	}
	if (items)
		wr_list_unlink(items, nitems, send);
	PV_ADD(PV_OBJ(obj)->posting, 1);
	Py_BEGIN_ALLOW_THREADS
	rc = ops->post(obj, block, &bad);
	Py_END_ALLOW_THREADS
	PV_ADD(PV_OBJ(obj)->posting, -1);
	if (rc) {
		at = bad ? ((char *)bad - block) / (Py_ssize_t)wsz : -1;
		if (at >= n)
			at = -1;
		ret = post_failed_at(rc, ops, at, at < 0 ? NULL : refs[at],
				     bad_wr);
	} else {
		ret = Py_NewRef(Py_None);
	}
	for (i = 0; i < n; i++)
		Py_DECREF(refs[i]);
out:
	if (refs && refs != refs_stack)
		PyMem_Free(refs);
	if (block && block != block_stack)
		PyMem_Free(block);
	return ret;
}

/*
 * A plain chain (wr_chain_plain()) at head, ready: post it, timed while the
 * queue is probed, without the GIL when its posts are slow and another
 * thread could run.  items/nitems: as post_released().
 */
static PyObject *post_plain(PyObject *obj, const struct pv_post_ops *ops,
			    PyObject *head, PyObject *const *items,
			    Py_ssize_t nitems, PyObject *bad_wr)
{
	struct pv_post_probe *p = post_probe(obj, ops);
	int send = ops->send;
	void *bad = NULL;
	int rc;

	if (p && pv_post_releases(p, PV_OBJ(obj)))
		return post_released(obj, ops, head, items, nitems, bad_wr);
	if (p && p->timed < PV_POST_PROBES)
		rc = post_timed(p, obj, ops, wr_c(head, send), &bad);
	else
		rc = ops->post(obj, wr_c(head, send), &bad);
	if (items)
		wr_list_unlink(items, nitems, send);
	if (rc)
		return items ? pv_post_failed(rc, ops, items, nitems, bad,
					      bad_wr) :
			       pv_post_failed(rc, ops, &head, 1, bad, bad_wr);
	Py_RETURN_NONE;
}

/*
 * After a post, for the BIND_MW WRs posted (items[0..n) and their chains,
 * up to bad, the C WR the provider stopped at):
 *   - the window takes the WR's rkey as its own (MW.rkey, and the rkey the
 *     next bind names it by), as upstream 65.0 does; the WR holds the MW
 *     object (SendWR.bind), and pv_send_wr_check() refused a closed one
 *     just before the post, which ran with the GIL held;
 *   - a type 2 window is closed with the QP from now on
 *     (pv_mw_bound_via()).  A window moved from another QP drops its
 *     reference to that QP after the walk, since that may free it and run
 *     Python code: only after a post that succeeded (rc 0), when nothing
 *     borrowed is used afterwards.
 */
static void note_binds(PyObject *qp, PyObject *const *items, Py_ssize_t n,
		       int rc, void *bad)
{
	PyObject *old[8] = { NULL };
	int nold = 0;
	Py_ssize_t i;
	PyObject *o;

	for (i = 0; i < n; i++)
		for (o = items[i]; o; o = SWR(o)->next_wr) {
			struct pv_mw *mw;

			if (rc && &SWR(o)->wr == bad)
				goto out; /* this one and the rest: not posted */
			if (SWR(o)->wr.opcode != IBV_WR_BIND_MW ||
			    !SWR(o)->bind)
				continue;
			mw = (struct pv_mw *)PyTuple_GET_ITEM(SWR(o)->bind, 0);
			if (!mw->obj.closed && mw->mw &&
			    mw->mw == SWR(o)->wr.bind_mw.mw)
				mw->mw->rkey = SWR(o)->wr.bind_mw.rkey;
			pv_mw_bound_via((PyObject *)mw, PV_OBJ(qp),
					!rc && nold < 8 ? &old[nold] : NULL);
			if (nold < 8 && old[nold])
				nold++;
		}
out:
	while (nold--)
		Py_DECREF(old[nold]);
}

/* wr and bad_wr (NULL when absent or None) of post_*(wr, bad_wr=None);
 * 0, or -1 with the usage TypeError. */
static inline int post_args(const struct pv_post_ops *ops,
			    PyObject *const *args, Py_ssize_t nargs,
			    PyObject *kwnames, PyObject **wr, PyObject **bad_wr)
{
	Py_ssize_t i;

	*wr = nargs > 0 ? args[0] : NULL;
	*bad_wr = nargs > 1 ? args[1] : NULL;
	if (nargs > 2)
		goto usage;
	for (i = 0; kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
		PyObject *k = PyTuple_GET_ITEM(kwnames, i);
		PyObject **slot;

		if (!PyUnicode_CompareWithASCIIString(k, "wr"))
			slot = wr;
		else if (!PyUnicode_CompareWithASCIIString(k, "bad_wr"))
			slot = bad_wr;
		else
			goto usage;
		if (*slot)
			goto usage;
		*slot = args[nargs + i];
	}
	if (!*wr)
		goto usage;
	if (*bad_wr == Py_None)
		*bad_wr = NULL;
	return 0;
usage:
	PyErr_Format(PyExc_TypeError, "%s(wr, bad_wr=None): bad arguments",
		     ops->method);
	return -1;
}

/*
 * A list or tuple of WRs that is not all plain: each element's chain is
 * marked and checked, the chains are linked tail to head for the call and
 * unlinked after.  No Python code runs here: the borrowed items stay valid
 * and the list cannot change.
 */
static PyObject *post_list(PyObject *obj, const struct pv_post_ops *ops,
			   enum ibv_qp_type qpt, PyObject *const *items,
			   Py_ssize_t n, PyTypeObject *tp, PyObject *bad_wr)
{
	int send = ops->send;
	void *bad = NULL;
	Py_ssize_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (!PyObject_TypeCheck(items[i], tp)) {
			PyErr_Format(PyExc_TypeError,
				     "element %zd is not a %s but %.100s", i,
				     tp->tp_name, Py_TYPE(items[i])->tp_name);
			goto unmark;
		}
		if (!wr_mark_chain(items[i], send, qpt)) {
			i++;
			goto unmark;
		}
	}
	for (i = 0; i + 1 < n; i++) {
		PyObject *t = items[i];

		while (wr_next(t, send))
			t = wr_next(t, send);
		wr_set_c_next(t, items[i + 1], send);
	}
	rc = ops->post(obj, wr_c(items[0], send), &bad);
	for (i = 0; i < n; i++)
		wr_unmark_chain(items[i], send, 1);
	if (send)
		note_binds(obj, items, n, rc, bad);
	if (rc)
		return pv_post_failed(rc, ops, items, n, bad, bad_wr);
	Py_RETURN_NONE;

unmark:
	while (i-- > 0)
		wr_unmark_chain(items[i], send, 0);
	return NULL;
}

/*
 * post_send(wr, bad_wr=None), post_recv(wr, bad_wr=None) of QPs and SRQs
 * (post.h).  wr is a WR (with its next_wr chain) or a list/tuple of WRs,
 * posted in one call: the elements' chains are linked tail to head for the
 * call and unlinked after.  No allocation on the way.
 */
PyObject *pv_post_wrs(PyObject *obj, const struct pv_post_ops *ops,
		      enum ibv_qp_type qpt, PyObject *const *args,
		      Py_ssize_t nargs, PyObject *kwnames)
{
	int send = ops->send;
	PyTypeObject *tp = wr_type(send);
	PyObject *wr, *bad_wr, *const *items;
	void *bad = NULL;
	Py_ssize_t n, i;
	int rc;

	if (post_args(ops, args, nargs, kwnames, &wr, &bad_wr) ||
	    pv_check_open(PV_OBJ(obj)))
		return NULL;
	if (!tp) {
		pv_raise_user("%s is not available",
			      send ? "SendWR" : "RecvWR");
		return NULL;
	}
	if (bad_wr && !PyObject_TypeCheck(bad_wr, tp)) {
		PyErr_Format(PyExc_TypeError,
			     "bad_wr must be a %s or None, "
			     "not %.100s",
			     tp->tp_name, Py_TYPE(bad_wr)->tp_name);
		return NULL;
	}
	if (Py_IS_TYPE(wr, tp) || PyObject_TypeCheck(wr, tp)) {
		/* one WR and its chain: no WR twice (next_wr refuses
		 * cycles), so nothing to mark */
		if (wr_chain_plain(wr, send, qpt))
			return post_plain(obj, ops, wr, NULL, 0, bad_wr);
		if (wr_check_chain(wr, send, qpt))
			return NULL;
		rc = ops->post(obj, wr_c(wr, send), &bad);
		if (send)
			note_binds(obj, &wr, 1, rc, bad);
		if (rc)
			return pv_post_failed(rc, ops, &wr, 1, bad, bad_wr);
		Py_RETURN_NONE;
	}
	if (!PyList_Check(wr) && !PyTuple_Check(wr)) {
		PyErr_Format(PyExc_TypeError,
			     "expected a %s or a list of %s, not %.100s",
			     tp->tp_name, tp->tp_name, Py_TYPE(wr)->tp_name);
		return NULL;
	}
	/* No Python code runs from here to the end: the borrowed items stay
	 * valid and the list cannot change. */
	items = PySequence_Fast_ITEMS(wr);
	n = PySequence_Fast_GET_SIZE(wr);
	if (!n)
		Py_RETURN_NONE;
	i = wr_list_plain(items, n, send, qpt, tp);
	if (i == n)
		/* all plain, unchained, each once: linked and marked */
		return post_plain(obj, ops, items[0], items, n, bad_wr);
	wr_list_unlink(items, i, send);
	return post_list(obj, ops, qpt, items, n, tp, bad_wr);
}
