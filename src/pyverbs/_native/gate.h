/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * gate.c: what a thread holds (its uses, in a thread-specific slot) and,
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
/* Make the thread-specific slot: 0, or -1 with MemoryError. */
int pv_gate_init(void);

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
#endif

#endif /* PV_GATE_H */
