// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * What a thread holds, and the gates of free-threaded CPython (gate.h).
 *
 * With the GIL, no other thread runs between two points where a call
 * releases it, so a call that checked its objects open may use them until
 * its next release.  Without the GIL (Py_GIL_DISABLED), every call of a
 * lifetime tree (a Context and everything under it) holds the gate of the
 * tree's root shared, and close() holds it exclusive: a close waits for
 * the calls in flight and the calls that come while it waits wait for it
 * (a writer-first lock), so no handle is destroyed under a call of another
 * thread, whether the call reached it as its object, an argument or
 * through another object (a SendWR's AH, a QPInitAttr's CQs).  Where the
 * GIL build releases the GIL (PV_BLOCKING_BEGIN), the thread leaves its
 * gates, and takes them again afterwards as a new call would.
 *
 * A thread's holds are found from its uses (struct pv_use.root) and its
 * exclusive holds (struct pv_excl), both on its C stack, chained from two
 * thread-specific slots.  A thread that holds the gate already (a nested
 * call, or a close from inside a call) never waits for a closer, which
 * waits for it: the closer counts the holds of its own thread out.
 */
#include "gate.h"
#include "errors.h"

#include <time.h>

/*
 * Thread-local in the initial-exec model: read at a fixed offset from the
 * thread pointer, where the general model calls the dynamic loader's
 * __tls_get_addr (a dependency tests/test_link.py refuses) and Python's
 * TSS API calls pthread_getspecific (~70 instructions a data-path call
 * of the free-threaded build spent on get and set).  The loader places
 * these 16 bytes in the static TLS block's surplus, which it keeps for
 * libraries opened later (glibc: 512 bytes at least).
 */
#define PV_TLS __thread __attribute__((tls_model("initial-exec")))
static PV_TLS struct pv_use *thread_uses;

struct pv_use *pv_thread_uses(void)
{
	return thread_uses;
}

void pv_thread_set_uses(struct pv_use *u)
{
	thread_uses = u;
}

double pv_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A short sleep rather than a yield, so that a thread that needs the GIL
 * (or the CPU) to end its call surely gets it. */
void pv_wait_a_moment(void)
{
	static const struct timespec ts = { 0, 20000 }; /* 20 us */

	Py_BEGIN_ALLOW_THREADS
	nanosleep(&ts, NULL);
	Py_END_ALLOW_THREADS
}

#ifdef Py_GIL_DISABLED

static PV_TLS struct pv_excl *thread_excl;
static PyMutex graph_mutex;
long pv_posters;

void pv_graph_lock(void)
{
	PyMutex_Lock(&graph_mutex);
}

void pv_graph_unlock(void)
{
	PyMutex_Unlock(&graph_mutex);
}

#define ME ((const void *)PyThreadState_Get())
#define LOAD(f) __atomic_load_n(&(f), __ATOMIC_SEQ_CST)
#define STORE(f, v) __atomic_store_n(&(f), (v), __ATOMIC_SEQ_CST)
#define ADD(f, n) __atomic_add_fetch(&(f), (n), __ATOMIC_SEQ_CST)

static struct pv_excl *my_excl(void)
{
	return thread_excl;
}

/* o's root, held, read under the lists' lock (a close may unlink o). */
static struct pv_obj *root_of(struct pv_obj *o)
{
	struct pv_obj *r;

	pv_graph_lock();
	r = pv_obj_root(o);
	Py_INCREF(r);
	pv_graph_unlock();
	return r;
}

/* Shared holds of r by this thread's uses (skipping 'skip'). */
static int my_shared(struct pv_obj *r, const struct pv_use *skip)
{
	const struct pv_use *u;
	int n = 0;

	for (u = pv_thread_uses(); u; u = u->prev)
		if (u != skip && u->root == r)
			n++;
	return n;
}

/* Take a shared hold of r: wait while another thread holds it exclusive
 * or waits to, unless this thread holds it already (that closer waits for
 * this thread, not the other way round). */
static void shared_take(struct pv_obj *r, int nested)
{
	for (;;) {
		const void *w = LOAD(r->gate.writer);

		if (!w || w == ME || nested) {
			ADD(r->gate.readers, 1);
			w = LOAD(r->gate.writer);
			if (!w || w == ME || nested)
				return;
			ADD(r->gate.readers, -1);
		}
		pv_wait_a_moment();
	}
}

void pv_gate_enter(struct pv_use *u)
{
	struct pv_obj *r = root_of(u->o);

	shared_take(r, my_shared(r, u) > 0);
	u->root = r;
}

void pv_gate_exit(struct pv_use *u)
{
	struct pv_obj *r = u->root;

	if (!r)
		return;
	u->root = NULL;
	ADD(r->gate.readers, -1);
	Py_DECREF(r);
}

/* Become r's writer (another closer first ends), then wait for the other
 * threads' shared holds to end.  0, or -2 (PyverbsUserError). */
static int exclusive_take(struct pv_obj *r, int may_wait)
{
	double since = pv_now_s();
	const void *none;

	for (;;) {
		none = NULL;
		if (__atomic_compare_exchange_n(&r->gate.writer, &none, ME, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			break;
		if (!may_wait || pv_now_s() - since > PV_CLOSE_WAIT_S)
			goto busy;
		pv_wait_a_moment();
	}
	r->gate.writer_depth = 1;
	while (LOAD(r->gate.readers) > my_shared(r, NULL)) {
		if (!may_wait || pv_now_s() - since > PV_CLOSE_WAIT_S) {
			STORE(r->gate.writer, NULL);
			goto busy;
		}
		pv_wait_a_moment();
	}
	return 0;
busy:
	pv_raise_user("%s cannot be closed now: another thread is using "
		      "objects of its %s%s",
		      Py_TYPE(r)->tp_name, Py_TYPE(r)->tp_name,
		      may_wait ? " (waited 2 s)" :
				 " while this one is inside a call");
	return -2;
}

int pv_gate_close_enter(struct pv_excl *x, struct pv_obj *o)
{
	struct pv_obj *r = root_of(o);

	if (LOAD(r->gate.writer) == ME) {
		r->gate.writer_depth++;
	} else if (exclusive_take(r, pv_thread_uses() == NULL)) {
		Py_DECREF(r);
		return -2;
	}
	x->root = r;
	x->left = 0;
	x->prev = my_excl();
	thread_excl = x;
	return 0;
}

void pv_gate_close_exit(struct pv_excl *x)
{
	struct pv_obj *r = x->root;

	thread_excl = x->prev;
	if (--r->gate.writer_depth == 0)
		STORE(r->gate.writer, NULL);
	Py_DECREF(r);
}

/* PV_BLOCKING_BEGIN: leave every gate this thread holds. */
void pv_gates_leave(void)
{
	struct pv_use *u;
	struct pv_excl *x;

	for (u = pv_thread_uses(); u; u = u->prev)
		if (u->root)
			ADD(u->root->gate.readers, -1);
	for (x = my_excl(); x; x = x->prev) {
		struct pv_obj *r = x->root;

		/* the outermost hold of r, among the nested ones, lets go */
		x->left = LOAD(r->gate.writer) == ME;
		if (x->left) {
			x->left = r->gate.writer_depth;
			STORE(r->gate.writer, NULL);
		}
	}
}

/* PV_BLOCKING_END: take them again, the exclusive ones first (a writer
 * waits for the readers of other threads only). */
void pv_gates_return(void)
{
	struct pv_use *u;
	struct pv_excl *x;

	for (x = my_excl(); x; x = x->prev) {
		struct pv_obj *r = x->root;
		const void *none;

		if (!x->left)
			continue;
		for (;;) {
			none = NULL;
			if (__atomic_compare_exchange_n(&r->gate.writer, &none,
							ME, 0, __ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST))
				break;
			pv_wait_a_moment();
		}
		r->gate.writer_depth = x->left;
		x->left = 0;
		while (LOAD(r->gate.readers) > 0)
			pv_wait_a_moment();
	}
	/* the first of this thread's holds of a root waits for its writer;
	 * the others are nested in it (a writer waiting for them while this
	 * thread waits for the writer would stall both) */
	for (u = pv_thread_uses(); u; u = u->prev) {
		const struct pv_use *v;
		int nested = 0;

		if (!u->root)
			continue;
		for (v = pv_thread_uses(); v != u && !nested; v = v->prev)
			nested = v->root == u->root;
		shared_take(u->root, nested);
	}
}

#endif /* Py_GIL_DISABLED */
