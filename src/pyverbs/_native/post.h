/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Private to the files that post WRs: post.c (pv_post_wrs(), the checks,
 * lists and chains, the error report, posting without the GIL) and the
 * queues' own fast paths (qp.c).  The accessors and the plain-chain test
 * are static inline here, so that they inline into each data path.
 */
#ifndef PV_POST_H
#define PV_POST_H

#include "gate.h"
#include "object.h"
#include "post_probe.h"
#include "state.h"
#include "wr.h"

#include <infiniband/verbs.h>

/*
 * post.c: post a WR (with its next_wr chain) or a list/tuple of WRs in one
 * call of ops->post (ibv_post_send, ibv_post_recv, ibv_post_srq_recv,
 * ibv_post_wq_recv)
 * on self, a handle object checked open first.  args/nargs/kwnames are the
 * METH_FASTCALL|METH_KEYWORDS arguments (wr, bad_wr=None).  qpt is the QP
 * type the send WRs are checked against (unused for receive WRs).  On
 * failure raises PyverbsRDMAError with bad_wr_index (the failing WR's
 * position, chains flattened) and copies the failing WR into bad_wr.
 */
struct pv_post_ops {
	int send;	    /* SendWRs, else RecvWRs */
	const char *method; /* "post_recv", for the usage message */
	const char *func;   /* "ibv_post_srq_recv" */
	const char *msg;    /* "Failed to post receive to SRQ." */
	/* returns 0 or an errno value, with *bad set; called without the
	 * GIL when the queue's posts are slow (struct pv_post_probe), so it
	 * may not touch Python objects other than reading self's handle */
	int (*post)(PyObject *self, void *head, void **bad);
	/* offsetof(the queue's object, its struct pv_post_probe), 0: none */
	Py_ssize_t probe;
};
PyObject *pv_post_wrs(PyObject *self, const struct pv_post_ops *ops,
		      enum ibv_qp_type qpt, PyObject *const *args,
		      Py_ssize_t nargs, PyObject *kwnames);

/*
 * A send WR or a receive WR: the list and chain handling of post.c serves both
 * through these accessors (send is a constant at every call site).
 */
#define SWR(o) ((struct pv_send_wr *)(o))
#define RWR(o) ((struct pv_recv_wr *)(o))

static inline PyObject *wr_next(PyObject *o, int send)
{
	PyObject *n = send ? SWR(o)->next_wr : RWR(o)->next_wr;

	return n == Py_None ? NULL : n;
}

static inline void *wr_c(PyObject *o, int send)
{
	return send ? (void *)&SWR(o)->wr : (void *)&RWR(o)->wr;
}

static inline void *wr_c_next(PyObject *o, int send)
{
	return send ? (void *)SWR(o)->wr.next : (void *)RWR(o)->wr.next;
}

static inline void wr_set_c_next(PyObject *o, PyObject *next, int send)
{
	if (send)
		SWR(o)->wr.next = next ? &SWR(next)->wr : NULL;
	else
		RWR(o)->wr.next = next ? &RWR(next)->wr : NULL;
}

static inline unsigned char *wr_in_post(PyObject *o, int send)
{
	return send ? &SWR(o)->in_post : &RWR(o)->in_post;
}

static inline PyTypeObject *wr_type(int send)
{
	return send ? pv.SendWR : pv.RecvWR;
}

/*
 * The fast test of a chain about to be posted: 1 when every WR of it is
 * plain (connected QP, no AH, no memory window, no inline data, C links in
 * step), which needs no further check; 0 when wr_check_chain() must look.
 * One pass, a few loads a WR.
 */
static inline int wr_chain_plain(PyObject *o, int send, enum ibv_qp_type qpt)
{
	if (!send) {
		for (; o; o = RWR(o)->next_wr)
			if (RWR(o)->wr.next !=
			    (RWR(o)->next_wr ? &RWR(RWR(o)->next_wr)->wr :
					       NULL))
				return 0;
		return 1;
	}
	if (qpt == IBV_QPT_UD)
		return 0;
	for (; o; o = SWR(o)->next_wr) {
		struct pv_send_wr *w = SWR(o);

		if (w->ah || w->wr.opcode == IBV_WR_BIND_MW ||
		    (w->wr.send_flags & IBV_SEND_INLINE) ||
		    w->wr.next != (w->next_wr ? &SWR(w->next_wr)->wr : NULL))
			return 0;
	}
	return 1;
}

/* Raise the failure rc of a post (bad: the C WR the provider stopped at,
 * found among items[0..n) and their chains), with .bad_wr_index set, and
 * copy that WR into bad_wr when given.  Returns NULL. */
PyObject *pv_post_failed(int rc, const struct pv_post_ops *ops,
			 PyObject *const *items, Py_ssize_t n, void *bad,
			 PyObject *bad_wr);

/* Another Python thread exists, which could run while this one posts. */
int pv_other_threads(void);

/* Whether a post on the queue o with probe p releases the GIL now: its
 * posts are slow, no close() is waiting, and another thread could run.
 * Without the GIL, whether it lets the work requests' critical section go
 * (guard.c) while the provider posts a copy: when its posts are slow, no
 * close() waits (the close waits for the posting as with the GIL; the
 * tree's gate stays held) and another thread is posting too (gate.h). */
static inline int pv_post_releases(const struct pv_post_probe *p,
				   const struct pv_obj *o)
{
#ifdef Py_GIL_DISABLED
	return p->slow && !PV_LOAD(o->post_hold) && pv_posters_others();
#else
	return p->slow && !o->post_hold && pv_other_threads();
#endif
}

/*
 * The posting method of a QP, SRQ or WQ (ops a constant, so that its
 * post() inlines).  The usual call, post_send(wr) / post_recv(wr) of one
 * WR (and its chain) of the exact type that needs no check beyond
 * wr_chain_plain(), on a queue whose posts were timed (struct
 * pv_post_probe) and that keeps the GIL for this one (fast posts, or no
 * other thread to run), goes straight to the provider, as pv_post_wrs()
 * would take it; any other call goes through pv_post_wrs().
 */
static inline PyObject *pv_post(PyObject *obj, const struct pv_post_ops *ops,
				enum ibv_qp_type qpt, PyObject *const *args,
				Py_ssize_t nargs, PyObject *kwnames)
{
	const struct pv_post_probe *p =
		(const struct pv_post_probe *)((const char *)obj + ops->probe);
	int send = ops->send;
	void *bad = NULL;
	int rc;

	if (nargs == 1 && !kwnames && !PV_OBJ(obj)->closed &&
	    p->timed == PV_POST_PROBES && !pv_post_releases(p, PV_OBJ(obj)) &&
	    Py_IS_TYPE(args[0], wr_type(send)) &&
	    wr_chain_plain(args[0], send, qpt)) {
		rc = ops->post(obj, wr_c(args[0], send), &bad);
		if (rc)
			return pv_post_failed(rc, ops, args, 1, bad, NULL);
		Py_RETURN_NONE;
	}
	return pv_post_wrs(obj, ops, qpt, args, nargs, kwnames);
}

#endif
