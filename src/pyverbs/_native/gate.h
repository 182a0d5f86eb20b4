/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * gate.c: what a thread holds (its uses, in thread-local storage) and,
 * without the GIL, the gates of the lifetime trees' roots (object.h,
 * struct pv_gate) and the lock of the parent and child lists.  Below
 * object.c: it reads struct pv_obj and struct pv_use, never calls up.
 */
#ifndef PV_GATE_H
#define PV_GATE_H

#include "object.h"

/* This thread's innermost use, or NULL; set it. */
struct pv_use *pv_thread_uses(void);
void pv_thread_set_uses(struct pv_use *u);

/* How long close() waits for other threads before it refuses. */
#define PV_CLOSE_WAIT_S 2.0
/* Seconds now, monotonic. */
double pv_now_s(void);
/* Let other threads run for 20 us, without the GIL. */
void pv_wait_a_moment(void);

#ifdef Py_GIL_DISABLED
/* The lock of every object's parent and child lists (links, relinks,
 * walks outside a close, the deferred-close list). */
void pv_graph_lock(void);
void pv_graph_unlock(void);

/* Enter the gate of o's root shared for the use u (this thread's, pushed
 * already): u->root is set to the root, held. */
void pv_gate_enter(struct pv_use *u);
void pv_gate_exit(struct pv_use *u);

/*
 * close() of o: hold the gate of its root exclusive (x, on the caller's
 * stack, records it for this thread).  Waits for the other threads' calls
 * of the tree to end (PV_CLOSE_WAIT_S at most) and for another closer.
 * Returns 0, or -2 with PyverbsUserError when it cannot wait (this thread
 * is inside a call, as close_gate refuses then) or waited too long.
 */
int pv_gate_close_enter(struct pv_excl *x, struct pv_obj *o);
void pv_gate_close_exit(struct pv_excl *x);

/*
 * The threads in a post of work requests, inside it or waiting for the
 * WRs' critical section (guard.c counts them): a slow post lets the
 * section go while the provider posts its copy only when another thread
 * is there to take it (post.h); alone, it posts the WRs in place, as the
 * GIL build does when no other thread exists.  Relaxed: a post that reads
 * a stale count only copies when it need not, or makes one other post
 * wait for one system call.
 */
extern long pv_posters;
static inline void pv_posters_add(long n)
{
	__atomic_add_fetch(&pv_posters, n, __ATOMIC_RELAXED);
}
static inline int pv_posters_others(void)
{
	return __atomic_load_n(&pv_posters, __ATOMIC_RELAXED) > 1;
}
#endif

#endif /* PV_GATE_H */
