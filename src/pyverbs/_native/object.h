/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The lifetime machinery shared by every handle object (object.c): the
 * parent and child links, close(), the uses of a call and the busy marks
 * of a blocking one.
 */
#ifndef PV_OBJECT_H
#define PV_OBJECT_H

#include "base.h"

/*
 * Intrusive doubly linked list node.  A parent keeps a list head of the
 * links of its live children; each child owns one link per parent.  The
 * parent's list holds no reference: a child unlinks itself when closed,
 * and a child holds a strong reference to every parent until then, so a
 * parent can never be freed before its children are closed.
 */
struct pv_list {
	struct pv_list *prev, *next;
};

struct pv_obj;

struct pv_parent_link {
	struct pv_obj *parent; /* strong reference while linked */
	struct pv_obj *self;   /* the child owning this link */
	struct pv_list node;   /* in parent->children */
};

/*
 * Every object has PV_MAX_PARENTS parent slots in place.  An object with
 * more parents (an RSS indirection table has one per WQ, a QP up to seven)
 * reserves room for all of them with pv_obj_reserve_parents() before its
 * first link: the extra links live in one heap array (xparents) that is
 * never reallocated while linked, since the parents' lists point into it.
 * Links are numbered 0..nparents-1 across both (pv_obj_link_at()).
 */
#define PV_MAX_PARENTS 5

/*
 * destroy() releases the C resource of an open object (ibv_destroy_*).  It
 * is called by pv_close() after every child is closed and before the links
 * to the parents are dropped.  It returns 0, or -1 with an exception set, in
 * which case the object stays open (and linked) so that the caller can
 * retry; -2 (PyverbsUserError set) says that a blocking call elsewhere
 * stops it for now, so that a finalizer defers the close instead of
 * leaking.
 */
typedef int (*pv_destroy_fn)(struct pv_obj *self);

#ifdef Py_GIL_DISABLED
/*
 * Free-threaded CPython (object_ft.c): the gate of a lifetime tree's root.
 * Every call on an object of the tree holds the gate shared; close() of
 * any object of the tree holds it exclusive, so no handle of the tree is
 * destroyed while a call, another thread's included, could be using it:
 * what the GIL gave the calls between its releases.  A call that blocks
 * (PV_BLOCKING_BEGIN) leaves the gates of its thread meanwhile, as the GIL
 * build releases the GIL there.
 */
struct pv_gate {
	int readers;	    /* shared holds, every thread's */
	const void *writer; /* the thread holding it exclusive, or NULL */
	int writer_depth;   /* its nested exclusive holds */
};
#endif

/* Common head of every handle object (Context, PD, MR, CQ, QP, AH, ...). */
struct pv_obj {
	PyObject_HEAD
	PyObject *weakreflist;
	PyObject *dict;
	pv_destroy_fn destroy;
	struct pv_list children;
	struct pv_parent_link parents[PV_MAX_PARENTS];
	struct pv_parent_link *xparents; /* links PV_MAX_PARENTS.. */
	unsigned int nxparents;		 /* room in xparents */
	unsigned int nparents;		 /* links in use, both arrays */
	/* PV_CLOSED when close() has completed or the object was never
	 * opened, PV_CLOSING while close() runs (children, then destroy():
	 * every method already sees the object closed), 0 when open */
	unsigned char closed;
	unsigned char closing;	   /* close() cascades through children */
	unsigned char opened_once; /* pv_obj_opened() was called */
	unsigned char init_opened; /* by __init__: another is refused */
	unsigned char deferred;	   /* in object.c's deferred-close list */
	int busy;		   /* blocking calls running without the GIL */
	int posting;		   /* posts running without the GIL */
	unsigned char post_hold;   /* close() waits: posts keep the GIL */
	int uses;	    /* calls holding the object in use (pv_use) */
	const void *closer; /* the thread running close(), if closing */
#ifdef Py_GIL_DISABLED
	struct pv_gate gate; /* used when the object is a root (ft.c) */
#endif
};

#define PV_CLOSED 1
#define PV_CLOSING 2

#define PV_OBJ(o) ((struct pv_obj *)(o))

/*
 * Call once from tp_new/tp_init before anything else touches the object:
 * sets destroy and an empty child list.  The object counts as closed until
 * pv_obj_opened() is called (after the C resource exists), so that a failed
 * constructor leaves an object whose close() and finalizer do nothing.
 */
void pv_obj_setup(struct pv_obj *o, pv_destroy_fn destroy);
static inline void pv_obj_opened(struct pv_obj *o)
{
	o->closed = 0;
	o->opened_once = 1;
}

/* Link child to parent: takes a strong reference to parent.  Fails (user
 * error) when the parent is closed or the parent slots are exhausted. */
int pv_obj_link(struct pv_obj *child, struct pv_obj *parent);
/* Make room for n links in all, before the first link (nparents == 0);
 * nothing to do for n <= PV_MAX_PARENTS.  Returns 0 or -1 (MemoryError). */
int pv_obj_reserve_parents(struct pv_obj *o, size_t n);
/* Link i (i < nparents) */
static inline struct pv_parent_link *pv_obj_link_at(struct pv_obj *o,
						    unsigned int i)
{
	return i < PV_MAX_PARENTS ? &o->parents[i] :
				    &o->xparents[i - PV_MAX_PARENTS];
}

/* Each child c of o, oldest first (nothing may unlink a child meanwhile:
 * run no Python code in the body). */
struct pv_obj *pv_obj_link_self(struct pv_list *n);
#define pv_obj_for_each_child(o, c, n)                                \
	for ((n) = (o)->children.next;                                \
	     (n) != &(o)->children && ((c) = pv_obj_link_self(n), 1); \
	     (n) = (n)->next)

/*
 * Handles: a family whose objects hold their C handle (ibv_qp *, ibv_cq
 * *, ...) as a pointer member registers its type and that member's offset
 * at init; pv_obj_find_handle() then finds the open descendant of o (its
 * children: levels 1, down to 16) whose handle is h, without reading any
 * family's struct (an async event names its QP, CQ, SRQ or WQ by handle).
 * Returns a borrowed reference, or NULL.
 */
int pv_obj_register_handle(PyTypeObject *tp, size_t offset);
struct pv_obj *pv_obj_find_handle(struct pv_obj *o, const void *h, int levels);

/* Close (newest first) every open child c of o for which match(c, arg) is
 * true.  Returns 0 or -1 (a close failed). */
int pv_obj_close_children_if(struct pv_obj *o,
			     int (*match)(struct pv_obj *c, void *arg),
			     void *arg);

/* The lifetime protocol's own state (the deferred-close list, gate.c's
 * thread slots), made once at import: 0 or -1. */
int pv_object_init(void);

/* Close children (newest first), destroy, then drop the parent links.
 * Idempotent.  Returns 0 or -1 with an exception set (PyverbsUserError
 * when o, or an object under it, is in use by a call of this thread or
 * by a blocking call: see "In use" in object.c). */
int pv_close(struct pv_obj *o);
/* pv_close() from inside a method of o itself (unimport(), a failed
 * __init__, dealloc_*()): the innermost use of o by this thread, the
 * method's own, does not count. */
int pv_close_own(struct pv_obj *o);

/*
 * In use (object.c): a call holds an object in use from before its
 * arguments are converted until it returns; close() of the object or of
 * an ancestor refuses while this thread holds it (the call's own Python
 * code: an argument's __index__, a __del__ run by the collector) and
 * waits while another thread does.  Methods of handle types are wrapped
 * in a use by guard.c; a struct pv_use lives on the caller's C stack.
 */
struct pv_use {
	struct pv_use *prev; /* this thread's previous use */
	struct pv_obj *o;    /* strong reference */
#ifdef Py_GIL_DISABLED
	struct pv_obj *root; /* the gate held shared (strong), or NULL */
#endif
};
#ifdef Py_GIL_DISABLED
/* An exclusive hold of a gate by this thread's close() (gate.c). */
struct pv_excl {
	struct pv_excl *prev;
	struct pv_obj *root; /* strong */
	int left;	     /* left by PV_BLOCKING_BEGIN */
};
#endif
void pv_use_begin(struct pv_use *u, struct pv_obj *o);
void pv_use_end(struct pv_use *u);

/*
 * The lifetime marks (closed, uses, busy, posting, post_hold): plain fields
 * under the GIL; without it, atomic (the gates order a close after the
 * calls of other threads, but two calls of one tree run at once).
 */
#ifdef Py_GIL_DISABLED
#define PV_LOAD(f) __atomic_load_n(&(f), __ATOMIC_ACQUIRE)
#define PV_STORE(f, v) __atomic_store_n(&(f), (v), __ATOMIC_RELEASE)
#define PV_ADD(f, n) ((void)__atomic_add_fetch(&(f), (n), __ATOMIC_ACQ_REL))
#else
#define PV_LOAD(f) (f)
#define PV_STORE(f, v) ((f) = (v))
#define PV_ADD(f, n) ((void)((f) += (n)))
#endif

/* stmt on the fields of obj, another object than the call's own (whose
 * critical section the guard holds): inside obj's critical section
 * without the GIL. */
#ifdef Py_GIL_DISABLED
#define PV_LOCKED(obj, stmt)                                  \
	do {                                                  \
		Py_BEGIN_CRITICAL_SECTION((PyObject *)(obj)); \
		stmt;                                         \
		Py_END_CRITICAL_SECTION();                    \
	} while (0)
#else
#define PV_LOCKED(obj, stmt) \
	do {                 \
		stmt;        \
	} while (0)
#endif

/* Raise PyverbsUserError("<Type> is closed") and return -1 if o is closed. */
int pv_check_open_slow(struct pv_obj *o);
static inline int pv_check_open(struct pv_obj *o)
{
	return PV_LOAD(o->closed) ? pv_check_open_slow(o) : 0;
}

/*
 * Mark a blocking call in progress; close() refuses while busy.  Posts
 * that run without the GIL (struct pv_post_probe) are counted apart, in
 * posting: they last microseconds, so close() waits for them instead, and
 * sets post_hold first so that later posts keep the GIL and cannot starve
 * it.
 */
static inline void pv_busy_enter(struct pv_obj *o)
{
	PV_ADD(o->busy, 1);
}
static inline void pv_busy_leave(struct pv_obj *o)
{
	PV_ADD(o->busy, -1);
}

/*
 * Run a destroy that may wait for another Python thread without the GIL
 * (rdma_destroy_id waits until every event of the id is acked, and the
 * thread that read one acks it only once it has the GIL back).  Inside
 * destroy() the object reads as closed to every method (PV_CLOSING), so
 * nothing else touches it meanwhile; errno survives the GIL's return.
 * ibv_destroy_cq/qp/srq/wq keep the GIL: their waits are for async events,
 * which get_async_event() acks before taking the GIL back, and for comp
 * events, which a CQ refuses to close while its channel is read.  (rxe
 * also holds a QP while a type 2 window bound through it lives, for up to
 * 50 s: a QP closes those windows first, see pv_mw_bound_via().)
 */
#define PV_WITHOUT_GIL(stmt)      \
	do {                      \
		PV_BLOCKING_BEGIN \
		stmt;             \
		PV_BLOCKING_END   \
	} while (0)

/*
 * Around a call that may wait (for an event, the network, another thread):
 * Py_BEGIN_ALLOW_THREADS / Py_END_ALLOW_THREADS, and without the GIL the
 * thread also leaves its gates meanwhile (and takes them back after), so
 * that another thread's close() of an unrelated object does not wait for
 * it.  What the call still uses meanwhile is kept by its busy marks, as in
 * the GIL build.
 */
#ifdef Py_GIL_DISABLED
void pv_gates_leave(void);
void pv_gates_return(void);
#define PV_BLOCKING_BEGIN         \
	{                         \
		pv_gates_leave(); \
		Py_BEGIN_ALLOW_THREADS
#define PV_BLOCKING_END      \
	Py_END_ALLOW_THREADS \
	pv_gates_return();   \
	}
#else
#define PV_BLOCKING_BEGIN Py_BEGIN_ALLOW_THREADS
#define PV_BLOCKING_END Py_END_ALLOW_THREADS
#endif

/* unimport() of an imported PD, MR, DM...: close o, which releases the
 * handle without destroying it; refused (user error) unless imported.
 * Returns None or NULL. */
PyObject *pv_unimport(struct pv_obj *o, int imported);

/* Replace the parent in slot (rereg to another PD, ...). */
int pv_obj_relink(struct pv_obj *child, int slot, struct pv_obj *parent);

/* The parent linked in slot i, or NULL. */
static inline struct pv_obj *pv_obj_parent(struct pv_obj *o, int i)
{
	return i >= 0 && (unsigned int)i < o->nparents ?
		       pv_obj_link_at(o, i)->parent :
		       NULL;
}

/* The root of o's parents (following parents[0]: the Context of an open
 * object). */
static inline struct pv_obj *pv_obj_root(struct pv_obj *o)
{
	while (o->nparents)
		o = o->parents[0].parent;
	return o;
}

/* Is 'anc' a parent, grand-parent, ... of o (used for "same Context"
 * checks). */
int pv_obj_descends_from(struct pv_obj *o, struct pv_obj *anc);
/* o is open and descends from ctx; else -1 with PyverbsUserError ("... is
 * closed", or "The <what> belongs to another Context than the <owner>"). */
int pv_obj_check_in(struct pv_obj *o, struct pv_obj *ctx, const char *what,
		    const char *owner);

/* Is p among o's parents? */
int pv_obj_has_parent(struct pv_obj *o, struct pv_obj *p);
/*
 * add_ref(child) of upstream's WQ and RwqIndTable: child (which must be a
 * tp, else PyverbsError 'Unrecognized object type', open and of parent's
 * Context) closes before parent from then on.  A table made from the WQ
 * (a QP made from the table) is its child already: nothing to do; another
 * becomes one, when it has room for another parent.  0 or -1.
 */
int pv_obj_add_ref(struct pv_obj *parent, PyObject *child, PyTypeObject *tp);

/* Generic slots for handle types: subtypes with extra PyObject fields
 * call these from their own traverse/clear. */
int pv_obj_traverse(struct pv_obj *o, visitproc visit, void *arg);
int pv_obj_clear(struct pv_obj *o);
void pv_obj_dealloc(PyObject *o);
/* tp_traverse / tp_clear of a handle type with no PyObject fields of its
 * own; a GC heap type must name its traverse slot, so list PV_CM_SLOTS in
 * the type's slots. */
int pv_cm_traverse(PyObject *self, visitproc visit, void *arg);
int pv_cm_clear(PyObject *self);
#define PV_CM_SLOTS                         \
	{ Py_tp_traverse, pv_cm_traverse }, \
	{                                   \
		Py_tp_clear, pv_cm_clear    \
	}
void pv_obj_finalize(PyObject *o);

#endif /* PV_OBJECT_H */
