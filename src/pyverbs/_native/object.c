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

/*
 * This thread's innermost use, in a thread-specific slot (Python's own
 * TSS API: a __thread variable would make the extension need the dynamic
 * loader's TLS entry points, tests/test_link.py).  A thread is named by
 * its PyThreadState.
 */
static Py_tss_t uses_key = Py_tss_NEEDS_INIT;

#define my_uses ((struct pv_use *)PyThread_tss_get(&uses_key))
#define set_my_uses(u) PyThread_tss_set(&uses_key, (u))
#define ME ((const void *)PyThreadState_Get())

static PyObject *deferred; /* list: objects whose finalizer deferred */
static int running_deferred;

void pv_use_begin(struct pv_use *u, struct pv_obj *o)
{
	Py_INCREF(o);
	u->o = o;
	u->prev = my_uses;
	set_my_uses(u);
	o->uses++;
}

static void run_deferred(void);

void pv_use_end(struct pv_use *u)
{
	struct pv_obj *o = u->o;

	set_my_uses(u->prev);
	o->uses--;
	if (!my_uses && deferred && PyList_GET_SIZE(deferred) &&
	    !running_deferred)
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

	*busy |= o->busy != 0;
	*uses += o->uses;
	pv_obj_for_each_child(o, c, n) subtree_marks(c, busy, uses);
}

/* Let other threads run for a moment (a wait for their uses or close):
 * a short sleep rather than a yield, so that a thread that needs the GIL
 * to end its call surely gets it. */
static void wait_a_moment(void)
{
	static const struct timespec ts = { 0, 20000 }; /* 20 us */

	Py_BEGIN_ALLOW_THREADS
	nanosleep(&ts, NULL);
	Py_END_ALLOW_THREADS
}

/*
 * Objects whose finalizer could not close them (in use, or a blocking call
 * on them or under them): kept alive in 'deferred' and closed once this
 * thread holds no use.  One that still cannot be closed stays for later.
 */
static void defer_close(struct pv_obj *o)
{
	if (!deferred) {
		deferred = PyList_New(0);
		if (!deferred)
			return;
	}
	if (PyList_Append(deferred, (PyObject *)o))
		return;
	o->deferred = 1;
}

static int close_checked(struct pv_obj *o, int skip);
static void unlink_parents(struct pv_obj *o);
static void wait_posts(struct pv_obj *o);

static void run_deferred(void)
{
	PyObject *et, *ev, *tb, *todo;
	Py_ssize_t i;

	running_deferred = 1;
	PyErr_Fetch(&et, &ev, &tb);
	todo = deferred;
	deferred = PyList_New(0);
	if (!deferred) {
		PyErr_Clear();
		deferred = todo;
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
	running_deferred = 0;
}

/* Wait, without the GIL, for the posts running on o without it; from now
 * on o's posts keep the GIL (o is about to close). */
static void wait_posts(struct pv_obj *o)
{
	o->post_hold = 1;
	while (o->posting)
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
	l = pv_obj_link_at(child, child->nparents++);
	Py_INCREF(parent);
	l->parent = parent;
	l->self = child;
	list_add_tail(&l->node, &parent->children);
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
	list_del(&l->node);
	Py_INCREF(parent);
	l->parent = parent;
	list_add_tail(&l->node, &parent->children);
	Py_DECREF(old);
	return 0;
}

int pv_obj_descends_from(struct pv_obj *o, struct pv_obj *anc)
{
	unsigned int i;

	if (o == anc)
		return 1;
	for (i = 0; i < o->nparents; i++)
		if (pv_obj_descends_from(pv_obj_link_at(o, i)->parent, anc))
			return 1;
	return 0;
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

	for (i = 0; i < o->nparents; i++)
		if (pv_obj_link_at(o, i)->parent == p)
			return 1;
	return 0;
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
	for (i = 0; i < n; i++)
		list_del(&pv_obj_link_at(o, i)->node);
	memcpy(fixed, o->parents, sizeof(fixed));
	o->nparents = 0;
	o->xparents = NULL;
	o->nxparents = 0;
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

/* object.h; runs with the GIL held: nothing closes meanwhile */
struct pv_obj *pv_obj_find_handle(struct pv_obj *o, const void *h, int levels)
{
	struct pv_list *n;
	struct pv_obj *c, *found;

	if (!h || levels < 1 || levels > 16)
		return NULL;
	pv_obj_for_each_child(o, c, n)
	{
		if (!c->closed && handle_of(c) == h)
			return c;
		found = pv_obj_find_handle(c, h, levels - 1);
		if (found)
			return found;
	}
	return NULL;
}

int pv_obj_close_children_if(struct pv_obj *o,
			     int (*match)(struct pv_obj *c, void *arg),
			     void *arg)
{
	struct pv_list *n;

again:
	for (n = o->children.prev; n != &o->children; n = n->prev) {
		struct pv_obj *c = link_of(n)->self;
		int rc;

		if (c->closed || c->closing || !match(c, arg))
			continue;
		Py_INCREF(c);
		rc = pv_close(c);
		Py_DECREF(c);
		if (rc)
			return -1;
		goto again; /* the list changed */
	}
	return 0;
}

/* Seconds now, monotonic. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * How long close() waits for other threads' uses or close before it
 * refuses: a call lasts milliseconds, and a wait without end would turn
 * an application lock held around close(), which the using thread's own
 * Python code (a __del__, an argument's __index__) also takes, into a
 * deadlock.
 */
#define CLOSE_WAIT_S 2.0

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

	if (o->closed == PV_CLOSING)
		return wait_for_other(name, "closing", since);
	if (used_by_me(o, skip)) {
		pv_raise_user("%s cannot be closed from inside a call that is "
			      "using it or an object under it",
			      name);
		return -2;
	}
	subtree_marks(o, &busy, &uses);
	if (busy) {
		pv_raise_user("%s cannot be closed: a blocking call is using "
			      "it or an object under it",
			      name);
		return -2;
	}
	if (uses - skip > 0)
		return wait_for_other(name, "using", since);
	if (o->posting) {
		wait_posts(o);
		return 1;
	}
	return 0;
}

/* pv_close() proper.  skip: uses of o by this thread that do not count.
 * Returns 0, -1, or -2 (refused for a use or a blocking call; the
 * PyverbsUserError set). */
static int close_checked(struct pv_obj *o, int skip)
{
	double since = 0;
	int rc;

	for (;;) {
		if (o->closed == PV_CLOSED) {
			/* A never-opened object can still hold parent links
			 * (a constructor that failed after linking). */
			if (o->nparents && o->uses <= skip)
				unlink_parents(o);
			return 0;
		}
		if (o->closed == PV_CLOSING && o->closer == ME)
			return 0; /* our own close, re-entered */
		rc = close_gate(o, skip, &since);
		if (rc < 0)
			return rc;
		if (!rc)
			break;
	}
	o->closed = PV_CLOSING;
	o->closing = 1;
	o->closer = ME;
	/* Keep ourselves alive while children drop their references. */
	Py_INCREF(o);
	while (!list_empty(&o->children)) {
		/* newest child first */
		struct pv_obj *child = link_of(o->children.prev)->self;

		Py_INCREF(child);
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
	o->closed = PV_CLOSED;
	o->closing = 0;
	o->closer = NULL;
	unlink_parents(o);
	Py_DECREF(o);
	return 0;
failed:
	o->closed = 0;
	o->closing = 0;
	o->closer = NULL;
	Py_DECREF(o);
	return rc;
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

/* ---- PyverbsObject: base of every pyverbs class ---- */

static PyObject *pobj_get_logger(PyObject *self, void *closure)
{
	PyObject *logging, *logger;

	logging = PyImport_ImportModule("logging");
	if (!logging)
		return NULL;
	logger = PyObject_CallMethod(logging, "getLogger", "s",
				     _PyType_Name(Py_TYPE(self)));
	Py_DECREF(logging);
	return logger;
}

static PyObject *pobj_set_log_level(PyObject *self, PyObject *val)
{
	PyObject *logger = pobj_get_logger(self, NULL), *r;

	if (!logger)
		return NULL;
	r = PyObject_CallMethod(logger, "setLevel", "O", val);
	Py_DECREF(logger);
	if (!r)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_NONE;
}

static PyMethodDef pobj_methods[] = {
	{ "set_log_level", pobj_set_log_level, METH_O,
	  "set_log_level($self, val, /)\n--\n\n"
	  "Set the level of this class's logger." },
	{ NULL }
};

static PyGetSetDef pobj_getset[] = {
	{ "logger", pobj_get_logger, NULL,
	  "The logging.Logger named after the class.", NULL },
	{ NULL }
};

PV_TYPE_SPEC(pobj, "pyverbs.base.PyverbsObject", PyObject,
	     "PyverbsObject()\n--\n\n"
	     "Base class of every pyverbs object.",
	     { Py_tp_methods, pobj_methods }, { Py_tp_getset, pobj_getset }, );

/* ---- PyverbsCM: base of every handle object ---- */

static PyObject *cm_close(PyObject *self, PyObject *unused)
{
	if (pv_close(PV_OBJ(self)))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *cm_enter(PyObject *self, PyObject *unused)
{
	return Py_NewRef(self);
}

static PyObject *cm_exit(PyObject *self, PyObject *const *args,
			 Py_ssize_t nargs)
{
	if (pv_close(PV_OBJ(self)))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *cm_get_closed(PyObject *self, void *closure)
{
	return PyBool_FromLong(PV_OBJ(self)->closed);
}

int pv_cm_traverse(PyObject *self, visitproc visit, void *arg)
{
	return pv_obj_traverse(PV_OBJ(self), visit, arg);
}

int pv_cm_clear(PyObject *self)
{
	return pv_obj_clear(PV_OBJ(self));
}

static PyObject *cm_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	PyObject *self = tp->tp_alloc(tp, 0);

	if (self)
		pv_obj_setup(PV_OBJ(self), NULL);
	return self;
}

static PyMethodDef cm_methods[] = {
	{ "close", cm_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Release the underlying resource, closing dependent objects first.\n"
	  "Calling it again does nothing." },
	{ "__enter__", cm_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nReturns the object." },
	{ "__exit__", (PyCFunction)(void (*)(void))cm_exit, METH_FASTCALL,
	  "__exit__($self, /, *exc_info)\n--\n\nCloses the object (close()), "
	  "whatever the exception." },
	{ NULL }
};

static PyGetSetDef cm_getset[] = {
	{ "closed", cm_get_closed, NULL,
	  "True once close() has released the resource.", NULL },
	{ NULL }
};

static PyMemberDef cm_members[] = { { "__weaklistoffset__", T_PYSSIZET,
				      offsetof(struct pv_obj, weakreflist),
				      READONLY },
				    { "__dictoffset__", T_PYSSIZET,
				      offsetof(struct pv_obj, dict), READONLY },
				    { NULL } };

PV_GC_TYPE_SPEC(cm, "pyverbs.base.PyverbsCM", struct pv_obj,
		"PyverbsCM()\n--\n\n"
		"Base class of pyverbs objects that own a resource; "
		"usable as a context manager.",
		{ Py_tp_new, cm_new }, { Py_tp_methods, cm_methods },
		{ Py_tp_getset, cm_getset }, { Py_tp_members, cm_members },
		{ Py_tp_traverse, pv_cm_traverse },
		{ Py_tp_clear, pv_cm_clear },
		{ Py_tp_finalize, pv_obj_finalize },
		{ Py_tp_dealloc, pv_obj_dealloc }, );

/*
 * _child_of(*parents): a new open PyverbsCM that owns no resource, linked
 * as a child to each of parents (open handle objects, in any number; one
 * may appear more than once).  It lets the tests exercise the protocol
 * (many parents, cascading close, collection) without a device.
 */
static PyObject *obj_child_of(PyObject *m, PyObject *args)
{
	Py_ssize_t n = PyTuple_GET_SIZE(args), i;
	struct pv_obj *o;

	for (i = 0; i < n; i++) {
		PyObject *p = PyTuple_GET_ITEM(args, i);

		if (!pv_type_ok(p, pv.PyverbsCM)) {
			PyErr_Format(PyExc_TypeError,
				     "parent %zd is not a "
				     "PyverbsCM but %.100s",
				     i, Py_TYPE(p)->tp_name);
			return NULL;
		}
	}
	o = PV_OBJ(PyObject_CallNoArgs((PyObject *)pv.PyverbsCM));
	if (!o)
		return NULL;
	if (pv_obj_reserve_parents(o, n))
		goto fail;
	for (i = 0; i < n; i++)
		if (pv_obj_link(o, PV_OBJ(PyTuple_GET_ITEM(args, i))))
			goto fail;
	pv_obj_opened(o);
	return (PyObject *)o;
fail:
	Py_DECREF(o); /* never opened: its finalizer drops the links */
	return NULL;
}

/*
 * _add_ref(parent, child): pv_obj_add_ref() for handle objects of any
 * type, for the tests of what WQ.add_ref and RwqIndTable.add_ref link
 * (Soft-RoCE has no WQs to show it).
 */
static PyObject *obj_add_ref(PyObject *m, PyObject *const *args,
			     Py_ssize_t nargs)
{
	if (nargs != 2 || !pv_type_ok(args[0], pv.PyverbsCM))
		return PyErr_Format(PyExc_TypeError,
				    "_add_ref() takes (parent, child)");
	if (pv_obj_add_ref(PV_OBJ(args[0]), args[1], pv.PyverbsCM))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef obj_functions[] = {
	{ "_add_ref", (PyCFunction)(void (*)(void))obj_add_ref, METH_FASTCALL,
	  "_add_ref($module, parent, child, /)\n--\n\n"
	  "add_ref() of WQ and RwqIndTable, between any handle objects (for "
	  "the tests of the lifetime protocol)." },
	{ "_child_of", obj_child_of, METH_VARARGS,
	  "_child_of($module, /, *parents)\n--\n\n"
	  "A new open PyverbsCM owning nothing, a child of each of parents "
	  "(for the tests of the lifetime protocol)." },
	{ NULL }
};

int pv_object_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &pobj_spec, NULL, &pv.PyverbsObject },
		{ &cm_spec, &pv.PyverbsObject, &pv.PyverbsCM },
		{ NULL }
	};

	if (!PyThread_tss_is_created(&uses_key) &&
	    PyThread_tss_create(&uses_key)) {
		PyErr_NoMemory();
		return -1;
	}
	if (pv_add_types(m, types))
		return -1;
	return PyModule_AddFunctions(m, obj_functions);
}
