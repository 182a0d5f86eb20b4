/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The lifetime protocol shared by every handle object, and the two base
 * types PyverbsObject and PyverbsCM.
 *
 * - A child holds a strong reference to each parent (pv_obj_link) and sits
 *   in each parent's child list.  The list holds no reference.
 * - close() is idempotent: it closes the children first (newest first), then
 *   calls destroy() (the ibv_destroy_* of the object), then unlinks from the
 *   parents and drops their references.
 * - The number of parents is not bounded: beyond the PV_MAX_PARENTS slots
 *   in place, an object reserves a heap array of links up front
 *   (pv_obj_reserve_parents(); an RSS indirection table is a child of each
 *   of its WQs).  Those links behave exactly as the others.
 * - The finalizer calls close() and reports failures as unraisable; it never
 *   raises.  Because a parent's list is not a weak registry, a parent that is
 *   collected as cyclic garbage still finds its children: PEP 442 runs every
 *   finalizer of a garbage cycle before any tp_clear.
 *
 * In use: no C handle is freed while a call is using it.
 * - A call holds its object, and every handle object among its arguments,
 *   in use from before it converts its arguments until it returns
 *   (pv_use_begin/pv_use_end).  guard.c wraps every method, getter, setter
 *   and __init__ of every handle type in such a use when the type is made,
 *   so no method can forget it.  The few data-path methods it leaves out
 *   (its table says which) convert all their arguments before their open
 *   check and run no Python code from that check to their last use of a
 *   handle: no argument conversion, no allocation of a GC object, no
 *   DECREF that may free one, no GIL release but a post's (posting).
 * - close() of an object, or of one of its ancestors, while this thread
 *   holds the object in use is Python code run by the call itself (an
 *   __index__, a __del__ run by the collector, an allocator callback): it
 *   fails with PyverbsUserError and leaves everything open.
 * - close() while only other threads hold uses waits for them, without
 *   the GIL (they last as long as a call); a thread that holds uses of
 *   its own refuses instead of waiting (two such threads would wait for
 *   each other).  close() of an object that another thread is closing
 *   waits for that close to finish.  No wait lasts more than CLOSE_WAIT_S
 *   (then PyverbsUserError): the user thread's own Python code may need a
 *   lock that the closing thread holds around close().
 * - A blocking call (get_cq_event, get_async_event, ...) marks its objects
 *   busy: close() refuses, as it would wait for an event that may never
 *   come.  A finalizer refused for a use or a blocking call does not leak:
 *   the object is kept (resurrected) in a deferred list and closed when the
 *   last use of the thread ends (pv_use_end).
 * - While close() runs, the object reads as closed (PV_CLOSING) to every
 *   method, so destroy() may release the GIL around a destroy that waits
 *   for acks from other threads (ibv_destroy_cq/qp/srq/wq,
 *   rdma_destroy_id).
 * - An object that was opened once cannot be initialised again (guard.c
 *   refuses __init__): C structs that cached one of its handles (an AH in
 *   a SendWR) check the object open and so never meet a new handle.
 */
#include "object.h"
#include "errors.h"
#include "field.h"
#include "gate.h"
#include "init.h"
#include "state.h"

#include <structmember.h>
#include <time.h>

static inline void list_init(struct pv_list *h)
{
	h->prev = h->next = h;
}

static inline int list_empty(const struct pv_list *h)
{
	return h->next == h;
}

static inline void list_add_tail(struct pv_list *n, struct pv_list *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void list_del(struct pv_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->prev = n->next = n;
}

/* Free the extra links; none may be in use. */
static void free_xparents(struct pv_obj *o)
{
	PyMem_Free(o->xparents);
	o->xparents = NULL;
	o->nxparents = 0;
}

void pv_obj_setup(struct pv_obj *o, pv_destroy_fn destroy)
{
	o->destroy = destroy;
	list_init(&o->children);
	o->nparents = 0;
	free_xparents(o); /* tp_alloc zeroed it, or a past life's */
	o->closed = PV_CLOSED;
	o->closing = 0;
	o->busy = 0;
	o->posting = 0;
	o->post_hold = 0;
	o->closer = NULL;
	/* uses, opened_once, init_opened and deferred outlive a second
	 * setup: a use may hold the object across its __init__ */
}

/* ---- in use ---- */

/* This thread's innermost use (gate.c keeps it).  A thread is named by its
 * PyThreadState. */
/* The lists' lock: without the GIL, calls of one tree run at once and
 * link new children into the same parents (gate.c). */
#ifdef Py_GIL_DISABLED
#define GRAPH_LOCK() pv_graph_lock()
#define GRAPH_UNLOCK() pv_graph_unlock()
#else
#define GRAPH_LOCK() ((void)0)
#define GRAPH_UNLOCK() ((void)0)
#endif

#define my_uses pv_thread_uses()
#define set_my_uses(u) pv_thread_set_uses(u)
#define ME ((const void *)PyThreadState_Get())

static PyObject *deferred; /* list: objects whose finalizer deferred */
static int running_deferred;

void pv_use_begin(struct pv_use *u, struct pv_obj *o)
{
	Py_INCREF(o);
	u->o = o;
	u->prev = my_uses;
	set_my_uses(u);
#ifdef Py_GIL_DISABLED
	u->root = NULL;
	pv_gate_enter(u);
#endif
	PV_ADD(o->uses, 1);
}

static void run_deferred(void);
static inline int deferred_pending(void);

void pv_use_end(struct pv_use *u)
{
	struct pv_obj *o = u->o;

	PV_ADD(o->uses, -1);
#ifdef Py_GIL_DISABLED
	pv_gate_exit(u);
#endif
	set_my_uses(u->prev);
	if (!my_uses && deferred_pending())
		run_deferred();
	Py_DECREF(o);
}

/* Is o, or an object under it, in use by this thread (skipping 'skip'
 * uses of o itself)? */
static int used_by_me(struct pv_obj *o, int skip)
{
	struct pv_use *u;

	for (u = my_uses; u; u = u->prev) {
		if (u->o == o && skip) {
			skip--;
			continue;
		}
		if (pv_obj_descends_from(u->o, o))
			return 1;
	}
	return 0;
}

#define link_of(n)                               \
	((struct pv_parent_link *)((char *)(n) - \
				   offsetof(struct pv_parent_link, node)))

/* Over o and every object under it: is any busy (a blocking call)? how
 * many uses do they hold? */
static void subtree_marks(struct pv_obj *o, int *busy, long *uses)
{
	struct pv_list *n;
	struct pv_obj *c;

	*busy |= PV_LOAD(o->busy) != 0;
	*uses += PV_LOAD(o->uses);
	pv_obj_for_each_child(o, c, n) subtree_marks(c, busy, uses);
}

/* Wait a moment for another thread (its uses, posts or close): without
 * the GIL, this thread's gates are left meanwhile, so that a closer that
 * left them in a blocking destroy can take them back and finish. */
static void wait_a_moment(void)
{
#ifdef Py_GIL_DISABLED
	pv_gates_leave();
#endif
	pv_wait_a_moment();
#ifdef Py_GIL_DISABLED
	pv_gates_return();
#endif
}

/*
 * Objects whose finalizer could not close them (in use, or a blocking call
 * on them or under them): kept alive in 'deferred' and closed once this
 * thread holds no use.  One that still cannot be closed stays for later.
 */
static void defer_close(struct pv_obj *o)
{
	if (!deferred)
		return; /* made by pv_object_init_types() */
	if (PyList_Append(deferred, (PyObject *)o))
		return;
	o->deferred = 1;
}

static int close_checked(struct pv_obj *o, int skip);
static void unlink_parents(struct pv_obj *o);
static void wait_posts(struct pv_obj *o);

/* Is anything deferred, and nobody closing it already? (Without the GIL,
 * one thread at a time runs the list: running_deferred is taken by a
 * compare-and-swap; appends go on meanwhile, at the end.) */
static inline int deferred_pending(void)
{
	return deferred && PyList_GET_SIZE(deferred) &&
	       !PV_LOAD(running_deferred);
}

static void run_deferred(void)
{
	PyObject *et, *ev, *tb, *todo;
	Py_ssize_t i, n;
#ifdef Py_GIL_DISABLED
	int no = 0;

	if (!__atomic_compare_exchange_n(&running_deferred, &no, 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
#else
	running_deferred = 1;
#endif
	PyErr_Fetch(&et, &ev, &tb);
	/* the ones there now; a close below may defer more, at the end */
	n = PyList_GET_SIZE(deferred);
	todo = PyList_GetSlice(deferred, 0, n);
	if (!todo || PyList_SetSlice(deferred, 0, n, NULL)) {
		PyErr_Clear();
		Py_XDECREF(todo);
		goto out;
	}
	for (i = 0; i < PyList_GET_SIZE(todo); i++) {
		struct pv_obj *o = PV_OBJ(PyList_GET_ITEM(todo, i));
		int rc;

		o->deferred = 0;
		rc = close_checked(o, 0);
		if (rc == -2) {
			PyErr_Clear();
			defer_close(o);
		} else if (rc) {
			PyErr_WriteUnraisable((PyObject *)o);
		}
	}
	Py_DECREF(todo); /* may free the closed objects */
out:
	PyErr_Restore(et, ev, tb);
	PV_STORE(running_deferred, 0);
}

/* Wait, without the GIL, for the posts running on o without it; from now
 * on o's posts keep the GIL (o is about to close). */
static void wait_posts(struct pv_obj *o)
{
	PV_STORE(o->post_hold, 1);
	while (PV_LOAD(o->posting))
		wait_a_moment();
}

int pv_obj_link(struct pv_obj *child, struct pv_obj *parent)
{
	struct pv_parent_link *l;

	if (pv_check_open(parent))
		return -1;
	if (child->nparents >= PV_MAX_PARENTS + child->nxparents) {
		pv_raise_error("%s: too many parent objects",
			       Py_TYPE(child)->tp_name);
		return -1;
	}
	Py_INCREF(parent);
	GRAPH_LOCK();
	l = pv_obj_link_at(child, child->nparents++);
	l->parent = parent;
	l->self = child;
	list_add_tail(&l->node, &parent->children);
	GRAPH_UNLOCK();
	return 0;
}

int pv_obj_reserve_parents(struct pv_obj *o, size_t n)
{
	if (o->nparents) {
		pv_raise_error("%s: parents reserved after linking",
			       Py_TYPE(o)->tp_name);
		return -1;
	}
	free_xparents(o);
	if (n <= PV_MAX_PARENTS)
		return 0;
	if (n - PV_MAX_PARENTS > UINT_MAX - PV_MAX_PARENTS) {
		PyErr_NoMemory();
		return -1;
	}
	o->xparents = PyMem_Calloc(n - PV_MAX_PARENTS, sizeof(*o->xparents));
	if (!o->xparents) {
		PyErr_NoMemory();
		return -1;
	}
	o->nxparents = (unsigned int)(n - PV_MAX_PARENTS);
	return 0;
}

int pv_obj_relink(struct pv_obj *child, int slot, struct pv_obj *parent)
{
	struct pv_parent_link *l;
	struct pv_obj *old;

	if (slot < 0 || (unsigned int)slot >= child->nparents)
		return (pv_raise_error("bad parent slot"), -1);
	l = pv_obj_link_at(child, slot);
	old = l->parent;
	if (pv_check_open(parent))
		return -1;
	Py_INCREF(parent);
	GRAPH_LOCK();
	list_del(&l->node);
	l->parent = parent;
	list_add_tail(&l->node, &parent->children);
	GRAPH_UNLOCK();
	Py_DECREF(old);
	return 0;
}

static int descends_from(struct pv_obj *o, struct pv_obj *anc)
{
	unsigned int i;

	if (o == anc)
		return 1;
	for (i = 0; i < o->nparents; i++)
		if (descends_from(pv_obj_link_at(o, i)->parent, anc))
			return 1;
	return 0;
}

int pv_obj_descends_from(struct pv_obj *o, struct pv_obj *anc)
{
	int r;

	GRAPH_LOCK();
	r = descends_from(o, anc);
	GRAPH_UNLOCK();
	return r;
}

PyObject *pv_unimport(struct pv_obj *o, int imported)
{
	if (pv_check_open(o))
		return NULL;
	if (!imported)
		return pv_raise_user("This %s was not imported",
				     _PyType_Name(Py_TYPE(o)));
	if (pv_close_own(o))
		return NULL;
	Py_RETURN_NONE;
}

int pv_obj_check_in(struct pv_obj *o, struct pv_obj *ctx, const char *what,
		    const char *owner)
{
	if (pv_check_open(o))
		return -1;
	if (pv_obj_descends_from(o, ctx))
		return 0;
	pv_raise_user("The %s belongs to another Context than the %s", what,
		      owner);
	return -1;
}

int pv_obj_has_parent(struct pv_obj *o, struct pv_obj *p)
{
	unsigned int i;
	int r = 0;

	GRAPH_LOCK();
	for (i = 0; i < o->nparents && !r; i++)
		r = pv_obj_link_at(o, i)->parent == p;
	GRAPH_UNLOCK();
	return r;
}

int pv_obj_add_ref(struct pv_obj *parent, PyObject *child, PyTypeObject *tp)
{
	struct pv_obj *c = PV_OBJ(child);

	if (!PyObject_TypeCheck(child, tp)) {
		pv_raise_error("Unrecognized object type");
		return -1;
	}
	if (pv_check_open(parent) ||
	    pv_obj_check_in(c, pv_obj_root(parent), _PyType_Name(tp),
			    _PyType_Name(Py_TYPE(parent))))
		return -1;
	if (pv_obj_has_parent(c, parent))
		return 0;
	if (pv_obj_descends_from(parent, c)) { /* no cycle */
		pv_raise_user("The %s cannot close before the %s: it is the "
			      "%s or one of its parents",
			      _PyType_Name(Py_TYPE(child)),
			      _PyType_Name(Py_TYPE(parent)),
			      _PyType_Name(Py_TYPE(parent)));
		return -1;
	}
	/* PyverbsError when c has no room for another parent */
	return pv_obj_link(c, parent);
}

int pv_check_open_slow(struct pv_obj *o)
{
	pv_raise_user("%s object is closed", Py_TYPE(o)->tp_name);
	return -1;
}

static void unlink_parents(struct pv_obj *o)
{
	struct pv_parent_link fixed[PV_MAX_PARENTS], *x = o->xparents;
	unsigned int i, n = o->nparents;

	/* Unlink all first, then release: a DECREF may free a parent, whose
	 * own close must not find us in its list any more.  The links are
	 * taken out of the object too, so that code run by a DECREF sees an
	 * object with no parents (and may even link it again). */
	GRAPH_LOCK();
	for (i = 0; i < n; i++)
		list_del(&pv_obj_link_at(o, i)->node);
	memcpy(fixed, o->parents, sizeof(fixed));
	o->nparents = 0;
	o->xparents = NULL;
	o->nxparents = 0;
	GRAPH_UNLOCK();
	for (i = 0; i < n; i++)
		Py_DECREF(i < PV_MAX_PARENTS ? fixed[i].parent :
					       x[i - PV_MAX_PARENTS].parent);
	PyMem_Free(x);
}

/* object.h */
struct pv_obj *pv_obj_link_self(struct pv_list *n)
{
	return link_of(n)->self;
}

/* The registered handle types (object.h): a handful of families. */
static struct {
	PyTypeObject *tp;
	size_t offset;
} handle_types[8];
static int nhandle_types;

int pv_obj_register_handle(PyTypeObject *tp, size_t offset)
{
	if (nhandle_types == (int)Py_ARRAY_LENGTH(handle_types)) {
		PyErr_SetString(PyExc_ImportError,
				"pyverbs: more handle types than object.c "
				"can follow");
		return -1;
	}
	handle_types[nhandle_types].tp = tp;
	handle_types[nhandle_types++].offset = offset;
	return 0;
}

/* The C handle of c, if its type registered one. */
static const void *handle_of(struct pv_obj *c)
{
	int i;

	for (i = 0; i < nhandle_types; i++)
		if (PyObject_TypeCheck((PyObject *)c, handle_types[i].tp))
			return *(void **)((char *)c + handle_types[i].offset);
	return NULL;
}

static struct pv_obj *find_handle(struct pv_obj *o, const void *h, int levels)
{
	struct pv_list *n;
	struct pv_obj *c, *found;

	if (levels < 1)
		return NULL;
	pv_obj_for_each_child(o, c, n)
	{
		if (!PV_LOAD(c->closed) && handle_of(c) == h)
			return c;
		found = find_handle(c, h, levels - 1);
		if (found)
			return found;
	}
	return NULL;
}

/* object.h; the caller's call holds o's tree (the GIL, or its gate): no
 * close meanwhile */
struct pv_obj *pv_obj_find_handle(struct pv_obj *o, const void *h, int levels)
{
	struct pv_obj *found;

	if (!h || levels < 1 || levels > 16)
		return NULL;
	GRAPH_LOCK();
	found = find_handle(o, h, levels);
	GRAPH_UNLOCK();
	return found;
}

int pv_obj_close_children_if(struct pv_obj *o,
			     int (*match)(struct pv_obj *c, void *arg),
			     void *arg)
{
	struct pv_list *n;
	struct pv_obj *c;
	int rc;

	for (;;) {
		c = NULL;
		GRAPH_LOCK();
		for (n = o->children.prev; n != &o->children; n = n->prev) {
			struct pv_obj *k = link_of(n)->self;

			if (!PV_LOAD(k->closed) && !k->closing &&
			    match(k, arg)) {
				c = k;
				Py_INCREF(c);
				break;
			}
		}
		GRAPH_UNLOCK();
		if (!c)
			return 0;
		rc = pv_close(c); /* the list changes: look again */
		Py_DECREF(c);
		if (rc)
			return -1;
	}
}

#define now_s pv_now_s

/*
 * How long close() waits for other threads' uses or close before it
 * refuses: a call lasts milliseconds, and a wait without end would turn
 * an application lock held around close(), which the using thread's own
 * Python code (a __del__, an argument's __index__) also takes, into a
 * deadlock.
 */
#define CLOSE_WAIT_S PV_CLOSE_WAIT_S

/*
 * Another thread is closing o (what: "closing") or using it ("using"):
 * wait a moment (1), or refuse (-2, PyverbsUserError) when this thread
 * holds uses itself (two such threads could wait for each other) or the
 * wait has lasted CLOSE_WAIT_S.  *since: when the first wait began (0:
 * none yet).
 */
static int wait_for_other(const char *name, const char *what, double *since)
{
	if (my_uses) {
		pv_raise_user("%s cannot be closed: another thread is %s it "
			      "while this one is using objects",
			      name, what);
		return -2;
	}
	if (!*since) {
		*since = now_s();
	} else if (now_s() - *since > CLOSE_WAIT_S) {
		pv_raise_user("%s cannot be closed: another thread has been %s "
			      "it for %.0f s",
			      name, what, CLOSE_WAIT_S);
		return -2;
	}
	wait_a_moment();
	return 1;
}

/*
 * Wait for what stops o's close from going on now, or refuse.  Returns 0
 * when close() may start, 1 after a wait (look again), -2 with
 * PyverbsUserError when it cannot close now (the finalizer defers).
 */
static int close_gate(struct pv_obj *o, int skip, double *since)
{
	const char *name = Py_TYPE(o)->tp_name;
	long uses = 0;
	int busy = 0;

	if (PV_LOAD(o->closed) == PV_CLOSING)
		return wait_for_other(name, "closing", since);
	if (used_by_me(o, skip)) {
		pv_raise_user("%s cannot be closed from inside a call that is "
			      "using it or an object under it",
			      name);
		return -2;
	}
	GRAPH_LOCK();
	subtree_marks(o, &busy, &uses);
	GRAPH_UNLOCK();
	if (busy) {
		pv_raise_user("%s cannot be closed: a blocking call is using "
			      "it or an object under it",
			      name);
		return -2;
	}
	if (uses - skip > 0)
		return wait_for_other(name, "using", since);
	if (PV_LOAD(o->posting)) {
		wait_posts(o);
		return 1;
	}
	return 0;
}

/* close_checked(), its tree's gate held (without the GIL). */
static int close_held(struct pv_obj *o, int skip)
{
	double since = 0;
	int rc;

	for (;;) {
		if (PV_LOAD(o->closed) == PV_CLOSED) {
			/* A never-opened object can still hold parent links
			 * (a constructor that failed after linking). */
			if (o->nparents && PV_LOAD(o->uses) <= skip)
				unlink_parents(o);
			return 0;
		}
		if (PV_LOAD(o->closed) == PV_CLOSING && o->closer == ME)
			return 0; /* our own close, re-entered */
		rc = close_gate(o, skip, &since);
		if (rc < 0)
			return rc;
		if (!rc)
			break;
	}
	PV_STORE(o->closed, PV_CLOSING);
	o->closing = 1;
	o->closer = ME;
	/* Keep ourselves alive while children drop their references. */
	Py_INCREF(o);
	for (;;) {
		struct pv_obj *child = NULL;

		GRAPH_LOCK();
		if (!list_empty(&o->children)) {
			/* newest child first */
			child = link_of(o->children.prev)->self;
			Py_INCREF(child);
		}
		GRAPH_UNLOCK();
		if (!child)
			break;
		rc = close_checked(child, 0);
		/* A child that is closing already called back into Python
		 * from its destroy (a parent domain's free_func) and that
		 * code closes us: the child stays linked until it returns. */
		if (!rc && child->closing && child->closer == ME) {
			pv_raise_user("%s cannot be closed while its child %s "
				      "is being closed",
				      Py_TYPE(o)->tp_name,
				      Py_TYPE(child)->tp_name);
			rc = -1;
		}
		Py_DECREF(child);
		if (rc)
			goto failed;
	}
	if (o->destroy) {
		rc = o->destroy(o);
		if (rc) {
			rc = rc == -2 ? -2 : -1;
			goto failed;
		}
	}
	PV_STORE(o->closed, PV_CLOSED);
	o->closing = 0;
	o->closer = NULL;
	unlink_parents(o);
	Py_DECREF(o);
	return 0;
failed:
	PV_STORE(o->closed, 0);
	o->closing = 0;
	o->closer = NULL;
	Py_DECREF(o);
	return rc;
}

/* pv_close() proper.  skip: uses of o by this thread that do not count.
 * Returns 0, -1, or -2 (refused for a use or a blocking call; the
 * PyverbsUserError set).  Without the GIL, the gate of o's tree is held
 * exclusive meanwhile (gate.c). */
static int close_checked(struct pv_obj *o, int skip)
{
#ifdef Py_GIL_DISABLED
	struct pv_excl x;
	int rc;

	if (PV_LOAD(o->closed) == PV_CLOSED && !o->nparents)
		return 0;
	if (pv_gate_close_enter(&x, o))
		return -2;
	rc = close_held(o, skip);
	pv_gate_close_exit(&x);
	return rc;
#else
	return close_held(o, skip);
#endif
}

int pv_close(struct pv_obj *o)
{
	return close_checked(o, 0) ? -1 : 0;
}

int pv_close_own(struct pv_obj *o)
{
	return close_checked(o, 1) ? -1 : 0;
}

int pv_obj_traverse(struct pv_obj *o, visitproc visit, void *arg)
{
	unsigned int i;

	Py_VISIT(Py_TYPE(o));
	Py_VISIT(o->dict);
	for (i = 0; i < o->nparents; i++)
		Py_VISIT(pv_obj_link_at(o, i)->parent);
	return 0;
}

int pv_obj_clear(struct pv_obj *o)
{
	/* Finalizers of a garbage cycle have run already; anything still
	 * open here failed to close and is reported by the finalizer. */
	if (!o->closed || o->nparents) {
		/* From dealloc the refcount is 0 and the finalizer has already
		 * tried close() and reported its failure: another try would
		 * take and drop a reference, re-entering dealloc.  The C
		 * resource is leaked; the links are dropped below. */
		if (Py_REFCNT(o) > 0 && pv_close(o))
			PyErr_WriteUnraisable((PyObject *)o);
		if (o->nparents)
			unlink_parents(o);
	}
	if (!o->nparents)
		free_xparents(o); /* reserved, never used */
	Py_CLEAR(o->dict);
	return 0;
}

void pv_obj_finalize(PyObject *self)
{
	struct pv_obj *o = PV_OBJ(self);
	PyObject *et, *ev, *tb;

	int rc;

	if (o->closed == PV_CLOSED && !o->nparents)
		return;
	PyErr_Fetch(&et, &ev, &tb);
	rc = close_checked(o, 0);
	if (rc == -2) {
		/* in use, or a blocking call: closed later, not leaked */
		PyErr_Clear();
		defer_close(o);
	} else if (rc) {
		PyErr_WriteUnraisable(self);
	}
	PyErr_Restore(et, ev, tb);
}

void pv_obj_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);
	struct pv_obj *o = PV_OBJ(self);

	if (PyObject_CallFinalizerFromDealloc(self) < 0)
		return; /* resurrected */
	PyObject_GC_UnTrack(self);
	if (o->weakreflist)
		PyObject_ClearWeakRefs(self);
	/* Subtypes with extra references clear them in tp_clear, which we
	 * call so that one function frees everything. */
	if (tp->tp_clear)
		tp->tp_clear(self);
	else
		pv_obj_clear(o);
	tp->tp_free(self);
	Py_DECREF(tp);
}

int pv_object_init(void)
{
	if (!deferred && !(deferred = PyList_New(0)))
		return -1;
	return 0;
}
