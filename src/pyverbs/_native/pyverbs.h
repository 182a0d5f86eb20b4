/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs-c: shared declarations of the native layer (pyverbs._verbs).
 *
 * Every file of the extension includes this header.  It holds:
 *   - the module state (types and exception classes), one global instance;
 *   - the lifetime machinery shared by every handle object (object.c);
 *   - the two error helpers (errors.c);
 *   - the declarative attribute tables (integer fields, object slots) and
 *     the strict integer converters (field.c);
 *   - the object structs that more than one file needs to look into.
 *
 * Return conventions: a function returning PyObject * returns NULL with an
 * exception set on failure; a function returning int returns -1 with an
 * exception set on failure and 0 (or a non-negative value) on success,
 * unless its comment says otherwise.
 */
#ifndef PYVERBS_H
#define PYVERBS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "pv_config.h"

#define PV_MODULE "pyverbs._verbs"

/* ------------------------------------------------------------------ */
/* Lifetime machinery (object.c)                                       */
/* ------------------------------------------------------------------ */

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
	struct pv_obj *parent;	/* strong reference while linked */
	struct pv_obj *self;	/* the child owning this link */
	struct pv_list node;	/* in parent->children */
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

/* Common head of every handle object (Context, PD, MR, CQ, QP, AH, ...). */
struct pv_obj {
	PyObject_HEAD
	PyObject *weakreflist;
	PyObject *dict;
	pv_destroy_fn destroy;
	struct pv_list children;
	struct pv_parent_link parents[PV_MAX_PARENTS];
	struct pv_parent_link *xparents;	/* links PV_MAX_PARENTS.. */
	unsigned int nxparents;	/* room in xparents */
	unsigned int nparents;	/* links in use, both arrays */
	/* PV_CLOSED when close() has completed or the object was never
	 * opened, PV_CLOSING while close() runs (children, then destroy():
	 * every method already sees the object closed), 0 when open */
	unsigned char closed;
	unsigned char closing;	/* close() cascades through children */
	unsigned char opened_once;	/* pv_obj_opened() was called */
	unsigned char init_opened;	/* by __init__: another is refused */
	unsigned char deferred;	/* in object.c's deferred-close list */
	int busy;		/* blocking calls running without the GIL */
	int posting;		/* posts running without the GIL */
	unsigned char post_hold;	/* close() waits: posts keep the GIL */
	int uses;		/* calls holding the object in use (pv_use) */
	const void *closer;	/* the thread running close(), if closing */
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

/* Close (newest first) every open child c of o for which match(c, arg) is
 * true.  Returns 0 or -1 (a close failed). */
int pv_obj_close_children_if(struct pv_obj *o,
			     int (*match)(struct pv_obj *c, void *arg),
			     void *arg);

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
	struct pv_use *prev;	/* this thread's previous use */
	struct pv_obj *o;	/* strong reference */
};
void pv_use_begin(struct pv_use *u, struct pv_obj *o);
void pv_use_end(struct pv_use *u);

/* Raise PyverbsUserError("<Type> is closed") and return -1 if o is closed. */
int pv_check_open_slow(struct pv_obj *o);
static inline int pv_check_open(struct pv_obj *o)
{
	return o->closed ? pv_check_open_slow(o) : 0;
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
	o->busy++;
}
static inline void pv_busy_leave(struct pv_obj *o)
{
	o->busy--;
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
#define PV_WITHOUT_GIL(stmt)                                             \
	do {                                                             \
		Py_BEGIN_ALLOW_THREADS stmt;                             \
		Py_END_ALLOW_THREADS                                     \
	} while (0)

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
		pv_obj_link_at(o, i)->parent : NULL;
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
#define PV_CM_SLOTS \
	{ Py_tp_traverse, pv_cm_traverse }, { Py_tp_clear, pv_cm_clear }
void pv_obj_finalize(PyObject *o);

/* ------------------------------------------------------------------ */
/* Errors (errors.c)                                                   */
/* ------------------------------------------------------------------ */

/*
 * libibverbs has two conventions: functions that return an errno value
 * (ibv_modify_qp, ibv_post_send, ibv_dealloc_pd, ...) and functions that
 * return NULL/-1 and set errno (ibv_alloc_pd, ibv_reg_mr, ibv_open_device
 * ...).  Use pv_raise_rc() for the first and pv_raise_errno() for the second
 * so that every call site is visibly right.  Both raise PyverbsRDMAError
 * with error_code and func set, and return NULL.
 *
 * msg is a printf-style format (PyUnicode_FromFormat).
 */
PyObject *pv_raise_rc(int rc, const char *func, const char *msg, ...);
PyObject *pv_raise_errno(const char *func, const char *msg, ...);
/*
 * The same with error_code = code as is, for the few places where upstream
 * reports no errno (-1) or the library's negative return value.
 */
PyObject *pv_raise_code(int code, const char *func, const char *msg, ...);
/* PyverbsUserError(msg); returns NULL. */
PyObject *pv_raise_user(const char *msg, ...);
/* PyverbsError(msg); returns NULL. */
PyObject *pv_raise_error(const char *msg, ...);
/* "<what> is not supported by this build (rdma-core too old)" */
PyObject *pv_raise_unsupported(const char *what);

/* ibv_get_device_name(d), checked: NULL with an exception set when it
 * fails (context.c). */
const char *pv_device_name(struct ibv_device *d);
PyObject *pv_device_name_str(struct ibv_device *d);

/* ------------------------------------------------------------------ */
/* Field tables and strict converters (field.c)                        */
/* ------------------------------------------------------------------ */

enum pv_ftype {
	PV_FT_U8,
	PV_FT_U16,
	PV_FT_U32,
	PV_FT_U64,
	PV_FT_I32,
	PV_FT_I64,
};

/* Pick the field type from the C member's own type: a mistyped table entry
 * fails to compile instead of silently truncating. */
#define PV_FTYPE(x)                                                     \
	_Generic((x),                                                   \
		unsigned char: PV_FT_U8,                                \
		unsigned short: PV_FT_U16,                              \
		unsigned int: PV_FT_U32,                                \
		unsigned long: PV_FT_U64,                               \
		unsigned long long: PV_FT_U64,                          \
		int: PV_FT_I32,                                         \
		long: PV_FT_I64,                                        \
		long long: PV_FT_I64)

#define PV_FLAG_RO 1

struct pv_field {
	const char *name;
	Py_ssize_t offset;	/* from the start of the Python object */
	unsigned char type;	/* enum pv_ftype */
	unsigned char flags;	/* PV_FLAG_* */
	const char *doc;
};

/* A read-write integer attribute stored at obj->member. */
#define PV_FIELD(st, member, pyname)                                    \
	{ pyname, offsetof(st, member), PV_FTYPE(((st *)0)->member), 0, NULL }
#define PV_FIELD_RO(st, member, pyname)                                 \
	{ pyname, offsetof(st, member), PV_FTYPE(((st *)0)->member),    \
	  PV_FLAG_RO, NULL }
#define PV_FIELD_END { NULL, 0, 0, 0, NULL }

/*
 * The slots and spec (var_slots, var_spec) of a subclassable type (struct
 * st; Python name pyname, dotted): the doc, then the slots given as the
 * trailing arguments, each followed by a comma ({ Py_tp_init, fn }, ...).
 */
#define PV_TYPE_SPEC_FLAGS(var, pyname, st, flags_, doc_, ...)         \
	static PyType_Slot var##_slots[] = {                            \
		{ Py_tp_doc, (void *)(doc_) },                          \
		__VA_ARGS__                                             \
		{ 0, NULL }                                             \
	};                                                              \
	static PyType_Spec var##_spec = {                               \
		.name = pyname,                                         \
		.basicsize = sizeof(st),                                \
		.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | flags_, \
		.slots = var##_slots,                                   \
	}
#define PV_TYPE_SPEC(var, pyname, st, doc_, ...)                        \
	PV_TYPE_SPEC_FLAGS(var, pyname, st, 0, doc_, __VA_ARGS__)
/* The same for a type with Py_TPFLAGS_HAVE_GC (give its GC slots). */
#define PV_GC_TYPE_SPEC(var, pyname, st, doc_, ...)                     \
	PV_TYPE_SPEC_FLAGS(var, pyname, st, Py_TPFLAGS_HAVE_GC, doc_,   \
			   __VA_ARGS__)
/* The same for a plain-data type (no PyObject members) whose attributes
 * come from a field table: pv_add_data_type() fills its Py_tp_getset. */
#define PV_DATA_SPEC(var, pyname, st, doc_, ...)                        \
	PV_TYPE_SPEC(var, pyname, st, doc_, __VA_ARGS__                 \
		     { Py_tp_getset, NULL },)
/* __init__ of the attribute classes that take no argument (TypeError
 * "X() takes no arguments" otherwise). */
int pv_noargs_init(PyObject *obj, PyObject *args, PyObject *kw);

PyObject *pv_field_get(PyObject *self, void *closure);
int pv_field_set(PyObject *self, PyObject *value, void *closure);
/* Find a field by name in a table (NULL if absent). */
const struct pv_field *pv_field_find(const struct pv_field *fields,
				     const char *name);
/* Store value into field f of self (range-checked). */
int pv_field_store(PyObject *self, const struct pv_field *f, PyObject *value);

/*
 * Object slots: the PyObject * members of a plain-data object (QPInitAttr's
 * send_cq, CqInitAttrEx's comp_channel, ...), declared once in a struct
 * pv_oslot table beside the integer fields.  The one table gives the
 * attributes (pv_getset(): a getter that returns None for NULL, a setter
 * that checks the value) and the references the collector must see
 * (pv_oslots_traverse/clear/dealloc walk it), so that a slot cannot be
 * missing from one of them.
 *
 * A setter always accepts None, and else, by the first of these the entry
 * has: an instance of *type (else TypeError "<type_err>, not <type>"); what
 * check() accepts (it raises otherwise); nothing, when unimpl names a class
 * pyverbs-c does not implement yet (TypeError); any object.  Deleting
 * raises AttributeError, unless PV_OSLOT_DEL_NONE (deleting stores None).
 */
#define PV_OSLOT_DEL_NONE 2	/* del obj.name stores None */
#define PV_OSLOT_HIDDEN 4	/* held and collected, but no attribute */

struct pv_oslot {
	const char *name;
	Py_ssize_t offset;	/* of the PyObject * member */
	unsigned char flags;	/* PV_FLAG_RO, PV_OSLOT_* */
	PyTypeObject **type;	/* &pv.PD, ... or NULL */
	const char *type_err;	/* with type: "pd must be a PD" */
	int (*check)(PyObject *v);	/* 0, or -1 with an exception set */
	const char *unimpl;	/* "SRQ": only None is accepted */
	const char *doc;
};

/* The offset of a PyObject * member; any other member fails to compile. */
#define PV_OSLOT_OFFSET(st, member)                                     \
	_Generic(((st *)0)->member, PyObject *: offsetof(st, member))
/* The start of an entry, for the designated initializers of rare cases. */
#define PV_OSLOT_AT(st, member, pyname)                                 \
	.name = (pyname), .offset = PV_OSLOT_OFFSET(st, member)
/* Any object. */
#define PV_OSLOT(st, member, pyname, d)                                 \
	{ PV_OSLOT_AT(st, member, pyname), .doc = (d) }
#define PV_OSLOT_RO(st, member, pyname, d)                              \
	{ PV_OSLOT_AT(st, member, pyname), .flags = PV_FLAG_RO,         \
	  .doc = (d) }
/* None or an instance of *tp. */
#define PV_OSLOT_TYPE(st, member, pyname, tp, err, d)                   \
	{ PV_OSLOT_AT(st, member, pyname), .type = (tp),                \
	  .type_err = (err), .doc = (d) }
/* None or what fn accepts. */
#define PV_OSLOT_CHECK(st, member, pyname, fn, d)                       \
	{ PV_OSLOT_AT(st, member, pyname), .check = (fn), .doc = (d) }
/* None only: cls is not implemented yet. */
#define PV_OSLOT_UNIMPL(st, member, pyname, cls, d)                     \
	{ PV_OSLOT_AT(st, member, pyname), .unimpl = (cls), .doc = (d) }
#define PV_OSLOT_END { NULL }

PyObject *pv_oslot_get(PyObject *self, void *closure);
int pv_oslot_set(PyObject *self, PyObject *value, void *closure);
/* Check value for slot s (None passes).  Returns 0 or -1. */
int pv_oslot_check(const struct pv_oslot *s, PyObject *value);
/* The setter of slot s: refuse deletion, check, store.  Returns 0 or -1. */
int pv_oslot_store(PyObject *self, const struct pv_oslot *s,
		   PyObject *value);
/* Store None in every slot of the table (a constructor's defaults). */
void pv_oslots_reset(PyObject *self, const struct pv_oslot *slots);
/* Visit / clear the slots of the table (not the type: the caller's). */
int pv_oslots_traverse(PyObject *self, const struct pv_oslot *slots,
		       visitproc visit, void *arg);
void pv_oslots_clear(PyObject *self, const struct pv_oslot *slots);

/*
 * tp_traverse, tp_clear and tp_dealloc of a plain-data GC type (not a
 * handle) whose only references are the slots of table, named
 * prefix_traverse, prefix_clear and prefix_dealloc; list PV_OSLOTS_GC_SLOTS
 * (prefix) in the type's slots.
 */
#define PV_OSLOTS_GC(prefix, table)                                     \
	static int prefix##_traverse(PyObject *o, visitproc visit,      \
				     void *arg)                         \
	{                                                               \
		Py_VISIT(Py_TYPE(o));                                   \
		return pv_oslots_traverse(o, table, visit, arg);        \
	}                                                               \
	static int prefix##_clear(PyObject *o)                          \
	{                                                               \
		pv_oslots_clear(o, table);                              \
		return 0;                                               \
	}                                                               \
	static void prefix##_dealloc(PyObject *o)                       \
	{                                                               \
		pv_oslots_dealloc(o, table);                            \
	}
#define PV_OSLOTS_GC_SLOTS(prefix)                                      \
	{ Py_tp_traverse, prefix##_traverse },                          \
	{ Py_tp_clear, prefix##_clear },                                \
	{ Py_tp_dealloc, prefix##_dealloc }
void pv_oslots_dealloc(PyObject *self, const struct pv_oslot *slots);

/*
 * Build a NULL-terminated getset table: the entries of fields (a getter
 * and, if not read-only, a range-checked setter), then of oslots (not the
 * hidden ones), then those of extra; each may be NULL.  The returned array
 * lives for the life of the process.
 */
PyGetSetDef *pv_getset(const struct pv_field *fields,
		       const struct pv_oslot *oslots, const PyGetSetDef *extra);
/*
 * Add an attribute type (pv_add_type()) whose getset table is built by
 * pv_getset(fields, oslots, extra) into the { Py_tp_getset, NULL } entry of
 * spec's slots.
 */
int pv_add_data_type(PyObject *m, PyType_Spec *spec, PyTypeObject *base,
		     const struct pv_field *fields,
		     const struct pv_oslot *oslots, const PyGetSetDef *extra,
		     PyTypeObject **slot);

/*
 * Strict integer conversion: value must be an int (or have __index__; bool
 * and float are refused), and within [0, max] for unsigned kinds.  Raises
 * TypeError/OverflowError naming 'what'.  Return 0 or -1.
 */
int pv_to_u64(PyObject *v, uint64_t max, uint64_t *out, const char *what);

/*
 * The value of an exact int that is >= 0 and small (below 2**30 on any
 * CPython, 2**60 on 3.11), read from the object without a call: 1 and
 * *out set, or 0 (negative, larger, or not an exact int: use a converter).
 * The data path's fast case; the converters give the messages.
 */
static inline int pv_long_small(PyObject *v, uint64_t *out)
{
	if (!PyLong_CheckExact(v))
		return 0;
#if PY_VERSION_HEX >= 0x030C0000
	if (PyUnstable_Long_IsCompact((PyLongObject *)v)) {
		Py_ssize_t x = PyUnstable_Long_CompactValue((PyLongObject *)v);

		if (x >= 0) {
			*out = (uint64_t)x;
			return 1;
		}
	}
	return 0;
#else
	{
		const digit *d = ((PyLongObject *)v)->ob_digit;

		switch (Py_SIZE(v)) {
		case 0:
			*out = 0;
			return 1;
		case 1:
			*out = d[0];
			return 1;
		case 2:
			*out = (uint64_t)d[0] | (uint64_t)d[1] << PyLong_SHIFT;
			return 1;
		}
		return 0;
	}
#endif
}

/* v as an int (a new reference; __index__ called once), or NULL with
 * TypeError ("<what> must be an int, not ...") for None, bool, float and
 * non-integers. */
PyObject *pv_as_index(PyObject *v, const char *what);
/* v (converted once) as an int64 > 0 into *out: a value <= 0, however
 * large, raises PyverbsUserError(err), anything not an int TypeError, a too
 * large value OverflowError.  0 or -1. */
int pv_positive_i64(PyObject *v, const char *what, const char *err,
		    int64_t *out);
int pv_to_i64(PyObject *v, int64_t min, int64_t max, int64_t *out,
	      const char *what);
/* O& converters for PyArg_Parse*: "None" is refused. */
int pv_conv_u8(PyObject *v, void *out);
int pv_conv_u16(PyObject *v, void *out);
int pv_conv_u32(PyObject *v, void *out);
int pv_conv_u64(PyObject *v, void *out);
int pv_conv_int(PyObject *v, void *out);	/* C int, any sign */
int pv_conv_uint(PyObject *v, void *out);	/* C int, >= 0 */
/* Parse the one argument of fname(kwname), a uint32_t, into out: 0, or
 * -1 with the exception (qpex.c). */
int pv_u32_arg(PyObject *args, PyObject *kw, const char *fname,
	       const char *kwname, uint32_t *out);
int pv_conv_size(PyObject *v, void *out);	/* size_t */

/* Small helpers of attribute setters and slots. */
/* Refuse "del obj.name" (v is NULL): AttributeError, -1. */
static inline int pv_refuse_delete(PyObject *v, const char *name)
{
	if (v)
		return 0;
	PyErr_Format(PyExc_AttributeError, "cannot delete %s", name);
	return -1;
}
/* Replace *slot by a new reference to v. */
static inline void pv_set_slot(PyObject **slot, PyObject *v)
{
	Py_INCREF(v);
	Py_XSETREF(*slot, v);
}
/* A new reference to v, or to None for NULL. */
static inline PyObject *pv_get_slot(PyObject *v)
{
	return Py_NewRef(v ? v : Py_None);
}
/* The value of hex digit c, or -1 (addresses: GIDs, MACs). */
static inline int pv_hexval(unsigned int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
/* Is v an instance of tp (a type that may not be created yet: NULL)? */
static inline int pv_type_ok(PyObject *v, PyTypeObject *tp)
{
	return tp && PyObject_TypeCheck(v, tp);
}

/* ------------------------------------------------------------------ */
/* Module state                                                        */
/* ------------------------------------------------------------------ */

struct pv_state {
	/* exceptions, from pyverbs.pyverbs_error */
	PyObject *PyverbsError;
	PyObject *PyverbsRDMAError;
	PyObject *PyverbsUserError;

	/* bases */
	PyTypeObject *PyverbsObject;
	PyTypeObject *PyverbsCM;

	/* device / context.c */
	PyTypeObject *Context;
	PyTypeObject *DeviceAttr;
	PyTypeObject *DeviceAttrEx;
	PyTypeObject *PortAttr;
	PyTypeObject *GIDEntry;
	PyTypeObject *AsyncEvent;
	/* device_attr.c */
	PyTypeObject *QueryDeviceExInput;
	PyTypeObject *ODPCaps;
	PyTypeObject *TSOCaps;
	PyTypeObject *RSSCaps;
	PyTypeObject *PacketPacingCaps;
	PyTypeObject *TMCaps;
	PyTypeObject *CQModerationCaps;
	PyTypeObject *PCIAtomicCaps;
	/* pd.c */
	PyTypeObject *PD;
	/* parent_domain.c */
	PyTypeObject *ParentDomainContext;
	PyTypeObject *ParentDomainInitAttr;
	PyTypeObject *ParentDomain;
	/* xrcd.c */
	PyTypeObject *XRCDInitAttr;
	PyTypeObject *XRCD;
	/* mr.c */
	PyTypeObject *MR;
	/* dmabuf.c */
	PyTypeObject *DmaBuf;
	PyTypeObject *DmaBufMR;
	/* dm.c */
	PyTypeObject *AllocDmAttr;
	PyTypeObject *DM;
	PyTypeObject *DMMR;
	/* fd_arr.c */
	PyTypeObject *FdArr;
	/* cq.c */
	PyTypeObject *CompChannel;
	PyTypeObject *CQ;
	PyTypeObject *WC;
	PyTypeObject *CQEX;	/* cqex.c */
	/* addr.c */
	PyTypeObject *GID;
	PyTypeObject *GRH;
	PyTypeObject *GlobalRoute;
	PyTypeObject *AHAttr;
	PyTypeObject *AH;
	/* sge.c, send_wr.c, recv_wr.c (registered by wr.c) */
	PyTypeObject *SGE;
	PyTypeObject *SendWR;
	PyTypeObject *RecvWR;
	/* qp.c */
	PyTypeObject *QPCap;
	PyTypeObject *QPInitAttr;
	PyTypeObject *QPInitAttrEx;
	PyTypeObject *QPAttr;
	PyTypeObject *ECE;
	PyTypeObject *QP;
	PyTypeObject *DataBuffer;
	PyTypeObject *QPEx;
	/* mw.c */
	PyTypeObject *MW;
	PyTypeObject *MWBindInfo;
	PyTypeObject *MWBind;
	/* spec.c */
	PyTypeObject *Spec;
	PyTypeObject *EthSpec;
	PyTypeObject *Ipv4ExtSpec;
	PyTypeObject *Ipv6Spec;
	PyTypeObject *TcpUdpSpec;
	/* flow.c */
	PyTypeObject *FlowAttr;
	PyTypeObject *Flow;
	PyTypeObject *FlowAction;
	/* wq.c */
	PyTypeObject *WQInitAttr;
	PyTypeObject *WQAttr;
	PyTypeObject *WQ;
	PyTypeObject *RwqIndTableInitAttr;
	PyTypeObject *RwqIndTable;
	PyTypeObject *RxHashConf;
	/* srq.c (OpsWr: recv_wr.c) */
	PyTypeObject *SrqAttr;
	PyTypeObject *SrqInitAttr;
	PyTypeObject *SrqInitAttrEx;
	PyTypeObject *SRQ;
	PyTypeObject *OpsWr;
	/* cm/event.c, cm/cmid.c */
	PyTypeObject *AddrInfo;
	PyTypeObject *CMEventChannel;
	PyTypeObject *CMEvent;
	PyTypeObject *ConnParam;
	PyTypeObject *UDParam;
	PyTypeObject *JoinMCAttrEx;
	PyTypeObject *CMID;

	/* the hook pv_add_type() calls before making each type (guard.c) */
	int (*prepare_spec)(PyType_Spec *spec, PyTypeObject *base);
};

/* state.c */
extern struct pv_state pv;
/* The exception classes, from pyverbs.pyverbs_error. */
int pv_state_init(PyObject *m);
/*
 * Create a heap type from spec, with the given base (NULL: object), store
 * it in *slot and add it to module m under its short name.
 */
int pv_add_type(PyObject *m, PyType_Spec *spec, PyTypeObject *base,
		PyTypeObject **slot);

/* guard.c: wrap the methods, getters, setters and __init__ of a handle
 * type's spec (base a PyverbsCM) in uses; nothing for other types.  Call
 * before making the type; pv_add_type() does, once pv_guard_init() has
 * installed it.  0 or -1. */
int pv_guard_spec(PyType_Spec *spec, PyTypeObject *base);
int pv_guard_init(PyObject *m);

/* Per-file type registration, called by module.c in dependency order. */
int pv_object_init_types(PyObject *m);
int pv_context_init_types(PyObject *m);
int pv_device_attr_init_types(PyObject *m);	/* called by context.c */
/* device_attr.c: does an async event of this type name a port? */
int pv_async_event_is_port(enum ibv_event_type t);
int pv_pd_init_types(PyObject *m);
int pv_parent_domain_init_types(PyObject *m);	/* after pd */
int pv_xrcd_init_types(PyObject *m);
int pv_mr_init_types(PyObject *m);
int pv_mw_init_types(PyObject *m);
int pv_dmabuf_init_types(PyObject *m);	/* after pv_mr_init_types */
int pv_dm_init_types(PyObject *m);	/* after pv_mr_init_types */
int pv_fd_arr_init_types(PyObject *m);
int pv_cq_init_types(PyObject *m);
int pv_cqex_init_types(PyObject *m);	/* after cq */
int pv_addr_init_types(PyObject *m);
int pv_sge_init_types(PyObject *m);
int pv_recv_wr_init_types(PyObject *m);
int pv_send_wr_init_types(PyObject *m);
int pv_srq_init_types(PyObject *m);	/* after cq, xrcd and wr */
int pv_qp_attr_init_types(PyObject *m);
int pv_qp_init_types(PyObject *m);
int pv_qpex_init_types(PyObject *m);
int pv_spec_init_types(PyObject *m);
int pv_flow_init_types(PyObject *m);	/* after spec and qp */
int pv_wq_init_types(PyObject *m);
int pv_rwq_ind_table_init_types(PyObject *m);	/* after wq */
int pv_cm_init_types(PyObject *m);	/* cm/cmid.c, after qp_attr, mr;
					 * with librdmacm */
int pv_mlx5_init_types(PyObject *m);	/* providers/mlx5/mlx5.c, when built */
int pv_efa_init_types(PyObject *m);	/* providers/efa/efa.c, when built */
int pv_enums_init(PyObject *m);
int pv_misc_init(PyObject *m);	/* misc.c, called by pv_enums_init */

/* ------------------------------------------------------------------ */
/* Object structs shared between files                                 */
/* ------------------------------------------------------------------ */

/*
 * context.c.  A provider subclass (Mlx5Context, ...) calls Context.__init__
 * with attr=...: that finds the device by name and keeps it in 'device'
 * (dev_list stays allocated so that the ibv_device stays referenced) but
 * opens nothing and leaves the object closed.  The subclass then opens
 * 'device' itself, stores the result in 'ctx' and calls pv_obj_opened();
 * close() calls ibv_close_device(ctx) and frees dev_list.
 */
struct pv_context {
	struct pv_obj obj;
	struct ibv_context *ctx;
	PyObject *name;		/* str */
	int imported;		/* from cmd_fd (still closed with
				 * ibv_close_device, as its man page says) */
	struct ibv_device **dev_list;	/* kept while 'device' is used */
	struct ibv_device *device;	/* the device found by name */
	int adopted;		/* ctx is a CMID's id->verbs: not ours to
				 * close (the Context is the CMID's child) */
};

/* context.c: the destroy() of a Context (ibv_close_device, then the device
 * list), for a provider subclass that opens its device without the name
 * lookup (Mlx5VfioContext): it calls pv_obj_setup(o, pv_context_destroy). */
int pv_context_destroy(struct pv_obj *o);

/* device_attr.c: plain-data results of the Context queries */
struct pv_device_attr {
	PyObject_HEAD
	struct ibv_device_attr attr;
};
struct pv_device_attr_ex {
	PyObject_HEAD
	struct ibv_device_attr_ex attr;
};
struct pv_port_attr {
	PyObject_HEAD
	struct ibv_port_attr attr;
};
struct pv_gid_entry {
	PyObject_HEAD
	struct ibv_gid_entry entry;
};
struct pv_query_device_ex_input {
	PyObject_HEAD
	struct ibv_query_device_ex_input input;
};
/*
 * An async event.  get_async_event() acks the event as soon as it has
 * copied it (so that no destroy can block on an event Python forgot to
 * ack); ack() is kept for compatibility and does nothing more.  element is
 * the QP/CQ/SRQ object the event is about (None if unknown), or the port
 * number for port events.
 */
struct pv_async_event {
	PyObject_HEAD
	struct ibv_async_event event;
	PyObject *element;
	int from_ctx;	/* came from get_async_event() */
};
PyObject *pv_device_attr_new(const struct ibv_device_attr *attr);
PyObject *pv_port_attr_new(const struct ibv_port_attr *attr);
PyObject *pv_gid_entry_new(const struct ibv_gid_entry *entry);
PyObject *pv_device_attr_ex_new(const struct ibv_device_attr_ex *attr);
/* Steals the reference to element (which may be NULL: None). */
PyObject *pv_async_event_new(const struct ibv_async_event *ev,
			     PyObject *element);

/* pd.c; parents[0] is the Context */
struct pv_pd {
	struct pv_obj obj;
	struct ibv_pd *pd;
	int imported;
	int adopted;	/* a CMID's id->pd, librdmacm's to free */
};
/* The open PD given as argument o; else NULL with TypeError ("pd must be a
 * PD, not ...") or PyverbsUserError (closed). */
struct pv_pd *pv_pd_arg(PyObject *o);
/* The destroy() of a PD (ibv_dealloc_pd), also a ParentDomain's. */
int pv_pd_destroy(struct pv_obj *o);

/*
 * parent_domain.c: the guard of a creation call (ibv_create_cq_ex,
 * ibv_create_qp, ...) on a PD that may be a ParentDomain with Python
 * allocators, which the provider calls from inside the creation.  begin()
 * marks pd and the objects in uses (NULLs skipped) busy and holds them, so
 * that the allocators cannot close what the call is using, and drops an
 * allocator exception left by an unwatched call (reported as unraisable).
 * end() undoes that; with failed (the creation's exception set) it makes
 * the allocator's exception, if any, the __cause__ of the current one;
 * without, it reports it as unraisable.  Both do nothing for a plain PD.
 */
struct pv_alloc_guard {
	struct pv_obj *busy[PV_MAX_PARENTS + 1];
	int n;
	PyObject *pd_context;	/* the ParentDomainContext, or NULL */
};
void pv_alloc_guard_begin(struct pv_alloc_guard *g, struct pv_pd *pd,
			  struct pv_obj *const *uses, int n);
void pv_alloc_guard_end(struct pv_alloc_guard *g, int failed);

/*
 * rdmacm_ops.c: the core's calls into rdma_cm (Context(cmid=), PD(cmid),
 * MR(cmid, ...), AHAttr.init_from_ud_param), through a table the cm layer
 * fills at init (pv_cm_set_ops, from pv_cm_init_types), as libibverbs'
 * verbs_context_ops: the core never references cm/.  The defaults are
 * those of a build without librdmacm, which has no CMID and no UDParam
 * type (their Python names are placeholders that cannot be made): nothing
 * is a CMID, so the CMID hooks are never reached; each still fails cleanly.
 *   - is_cmid(o): whether o is a CMID;
 *   - cmid_verbs(o): the id->verbs of the open, bound CMID o;
 *   - cmid_pd(o, ctx): its id->pd, and in *ctx its Context wrapper
 *     (borrowed, made if needed);
 *   - cmid_pd_obj(o): its PD object (borrowed, made if needed);
 *   - ud_param_ah_attr(o, out): the ah_attr of the UDParam o; 0 or -1
 *     (TypeError).
 * The CMID hooks fail with PyverbsUserError when closed or unbound.
 */
struct pv_cm_ops {
	int (*is_cmid)(PyObject *o);
	struct ibv_context *(*cmid_verbs)(PyObject *o);
	struct ibv_pd *(*cmid_pd)(PyObject *o, PyObject **ctx);
	PyObject *(*cmid_pd_obj)(PyObject *o);
	int (*ud_param_ah_attr)(PyObject *o, struct ibv_ah_attr *out);
};
extern struct pv_cm_ops pv_cm_ops;
/* Install the non-NULL members of ops (at module init, once). */
void pv_cm_set_ops(const struct pv_cm_ops *ops);

/* xrcd.c; parents[0] is the Context */
struct pv_xrcd {
	struct pv_obj obj;
	struct ibv_xrcd *xrcd;
};

/* mr.c; parents[0] is the PD */
struct pv_mr {
	struct pv_obj obj;
	struct ibv_mr *mr;
	void *buf;		/* start of the registered memory */
	size_t length;
	void *own_buf;		/* memory pyverbs allocated, or NULL */
	size_t own_len;		/* its mapped size */
	int own_mmap;		/* own_buf came from mmap (huge pages) */
	Py_buffer user;		/* a caller's buffer we hold, if has_user */
	int has_user;
	int readonly;		/* user is a read-only buffer (bytes): the MR
				 * has no write access and write() refuses */
	Py_ssize_t exports;	/* live memoryviews of our memory */
	int imported;
	/* A subtype whose memory is not at buf (DmaBufMR): the CPU address
	 * of the MR's first byte for read()/write(), or NULL with an
	 * exception set.  NULL: buf is the memory. */
	char *(*mem)(struct pv_mr *self);
};
/* The destroy() of an MR (ibv_dereg_mr, then release its memory); a
 * subtype's destroy calls it first. */
int pv_mr_destroy(struct pv_obj *o);

/* qp_attr.c: the objects a QPInitAttr (is_ex: QPInitAttrEx) names, for QP
 * creation on ctx: the CQs, SRQ, XRCD and RSS table open and of ctx (NULL
 * where none), what the comp_mask asks for given (pd_o: the PD, or None),
 * the RX hash copied.  0 or -1. */
struct pv_qp_objs {
	PyObject *qp_context;		/* borrowed, or NULL */
	struct pv_cq *scq, *rcq;
	struct pv_srq *srq;
	struct pv_xrcd *xrcd;
	struct pv_rwq_ind_table *ind;
	struct ibv_rx_hash_conf rx;
};
int pv_qp_init_attr_objs(PyObject *init_attr, int is_ex, struct pv_obj *ctx,
			 PyObject *pd_o, struct pv_qp_objs *q);

/* qp_attr.c: DataBuffer(addr, length), one buffer of
 * QPEx.wr_set_inline_data_list(); upstream derives it from PyverbsCM. */
struct pv_data_buf {
	struct pv_obj obj;
	struct ibv_data_buf data;
};

/* mw.c; MW parents[0] is the PD, [1] the QP of its type 2 bind */
struct pv_mw {
	struct pv_obj obj;
	struct ibv_mw *mw;
};
struct pv_mw_bind_info {
	PyObject_HEAD
	struct ibv_mw_bind_info info;
	PyObject *mr;		/* the MR of info.mr, kept alive */
};
struct pv_mw_bind {
	PyObject_HEAD
	struct ibv_mw_bind bind;
	PyObject *info;		/* the MWBindInfo */
};
/* Copy the bind info out of an MWBindInfo whose MR is still open. */
int pv_mw_bind_info_get(PyObject *obj, struct ibv_mw_bind_info *out);
/* A type 2 MW bound through qp: closed with it (mw.c). */
void pv_mw_bound_via(PyObject *mw, struct pv_obj *qp, PyObject **old);

/* cq.c; CompChannel parents[0] is the Context */
struct pv_comp_channel {
	struct pv_obj obj;
	struct ibv_comp_channel *cc;
};

/*
 * cq.c: a CQ or a CQEX (both types share this struct).  parents[0] is the
 * Context, then the CompChannel if any (channel), then the ParentDomain if
 * any (CQEX only).  The C cq_context of the ibv_cq is this object itself
 * (borrowed: valid while the CQ is open); the user's cq_context object is
 * held in cq_context.
 */
struct pv_cq {
	struct pv_obj obj;
	struct ibv_cq *cq;		/* also ibv_cq_ex_to_cq(cq_ex) */
	struct ibv_cq_ex *cq_ex;	/* CQEX only, else NULL */
	PyObject *cq_context;		/* strong, or NULL */
	struct pv_comp_channel *channel;	/* borrowed: a parent, or NULL */
	unsigned int num_events;	/* events got but not acked yet */
	unsigned char polling;	/* CQEX: between start_poll() == 0 and
				 * end_poll() */
	unsigned char current;	/* CQEX: the current completion is valid */
};

/* The struct pv_cq of a CQ or CQEX object o that is open; else NULL with
 * TypeError (not a CQ/CQEX, 'what' names the argument) or PyverbsUserError
 * (closed). */
struct pv_cq *pv_cq_from_obj(PyObject *o, const char *what);
/* Is o a CQ or a CQEX (open or not)? */
int pv_is_cq(PyObject *o);
/* cq.c: the CQEX type, base of the providers' CQs (borrowed; set by
 * pv_cq_init_types(), which runs before the providers' registrations). */
PyTypeObject *pv_cqex_type(void);
/*
 * cq.c: the body of CQEX.__init__, for provider subclasses (Mlx5CQ, ...):
 * check the Context ctxo and the CqInitAttrEx ia (or None), create the CQ
 * with create(ctx, attr, arg) -- NULL: ibv_create_cq_ex -- which returns
 * the CQ, or NULL with an exception set, then link and open obj.
 */
typedef struct ibv_cq_ex *(*pv_cqex_create_fn)(struct ibv_context *ctx,
					      struct ibv_cq_init_attr_ex *attr,
					      void *arg);
int pv_cqex_setup(PyObject *obj, PyObject *ctxo, PyObject *ia,
		  pv_cqex_create_fn create, void *arg);

/* cq.c: a work completion, plain data */
struct pv_wc {
	PyObject_HEAD
	struct ibv_wc wc;
};
/* A new WC holding a copy of *wc (data path: one allocation, a memcpy). */
PyObject *pv_wc_new(const struct ibv_wc *wc);
/* pyverbs._verbs._clear_free_lists() (cq.c) */
PyObject *pv_cq_clear_free_lists(PyObject *m, PyObject *unused);

/* addr.c */
struct pv_gid {
	PyObject_HEAD
	union ibv_gid gid;
};
struct pv_grh {
	PyObject_HEAD
	struct ibv_grh grh;
};
struct pv_global_route {
	PyObject_HEAD
	struct ibv_global_route gr;
};
struct pv_ah_attr {
	PyObject_HEAD
	struct ibv_ah_attr ah;
};
/* parents[0] is the PD */
struct pv_ah {
	struct pv_obj obj;
	struct ibv_ah *ah;
};
/* A new GID object holding a copy of *gid. */
PyObject *pv_gid_new(const union ibv_gid *gid);
/* Fill *out from a GID object, a 'xxxx:...:xxxx' string or 16 raw bytes
 * (TypeError/ValueError/PyverbsUserError otherwise). */
int pv_gid_from_obj(PyObject *v, union ibv_gid *out);
PyObject *pv_ah_attr_new(const struct ibv_ah_attr *attr);

/* fd_arr.c: where struct ibv_fd_arr exists, fill *out from the FdArr o
 * (its array, valid while o lives and is not changed). */
#if HAVE_STRUCT_IBV_FD_ARR
int pv_fd_arr_get(PyObject *o, struct ibv_fd_arr *out);
#endif

/* dm.c: the open DM o's ibv_dm and in *length its size (0 if unknown:
 * imported); else NULL with TypeError or PyverbsUserError (closed). */
struct ibv_dm *pv_dm_get(PyObject *o, uint64_t *length);

/* memory.c */
/*
 * Copy len bytes at address addr of this process into dst without trusting
 * the address: an unmapped or unreadable range raises PyverbsUserError
 * instead of crashing (process_vm_readv on our own pid).  Returns 0 or -1.
 */
int pv_read_mem(void *dst, uint64_t addr, size_t len);
/* The same the other way: src into addr (an unwritable range raises). */
int pv_write_mem(uint64_t addr, const void *src, size_t len);
/* _verbs._mem_alloc (pyverbs.mem_alloc's functions and constants) */
int pv_memory_init(PyObject *m);

/* The work requests: wr.c (shared parts), sge.c, send_wr.c, recv_wr.c */

#define PV_WR_INLINE_SGES 2
struct pv_sge {
	PyObject_HEAD
	struct ibv_sge sge;
};
/*
 * A send WR.  wr.sg_list points at sge_inline when the SGEs fit, else at a
 * PyMem allocation owned by the object; sg_cap SGEs are stored there and
 * wr.num_sge <= sg_cap always.  wr.next is kept in step with next_wr (a
 * strong reference; cycles are refused), so a chain is always valid C
 * memory while its head is alive.  ah holds the AH given to set_wr_ud() so
 * that it outlives the WR; wr.wr.ud.ah is only meaningful while ah is set.
 * Before ibv_post_send(), call pv_send_wr_check() on the head.
 */
struct pv_send_wr {
	PyObject_HEAD
	struct ibv_send_wr wr;
	struct ibv_sge sge_inline[PV_WR_INLINE_SGES];
	int sg_cap;
	PyObject *next_wr;	/* SendWR or NULL */
	struct pv_ah *ah;
	PyObject *bind;		/* (MW, MWBindInfo) of set_bind_wr, or NULL */
	unsigned char in_post;	/* scratch flag used while posting a list */
};
struct pv_recv_wr {
	PyObject_HEAD
	struct ibv_recv_wr wr;
	struct ibv_sge sge_inline[PV_WR_INLINE_SGES];
	int sg_cap;
	PyObject *next_wr;	/* RecvWR or NULL */
	unsigned char in_post;
};
/*
 * A tag-matching operation on an SRQ (struct ibv_ops_wr, pyverbs.srq.OpsWr).
 * Its SGEs (wr.tm.add.sg_list) and next_wr chain are held as a RecvWR's.
 */
struct pv_ops_wr {
	PyObject_HEAD
	struct ibv_ops_wr wr;
	struct ibv_sge sge_inline[PV_WR_INLINE_SGES];
	int sg_cap;
	PyObject *next_wr;	/* OpsWr or NULL */
};
int pv_ops_wr_copy(struct pv_ops_wr *dst, const struct pv_ops_wr *src);

/*
 * Refuse a chain of send WRs that the provider could not post safely: an AH
 * that was closed (its PD was closed), a UD QP's WR without set_wr_ud(), a
 * BIND_MW without a memory window.  Returns 0, or -1 with PyverbsUserError
 * naming the WR's index in the chain.
 */
int pv_send_wr_check(struct pv_send_wr *wr, enum ibv_qp_type qpt);
/*
 * Make dst a copy of src (upstream's bad_wr): every field, the SGEs (into
 * dst's own storage, sg_cap updated) and the AH reference; dst keeps its own
 * next_wr and wr.next.  Returns 0 or -1 (MemoryError).
 */
int pv_send_wr_copy(struct pv_send_wr *dst, const struct pv_send_wr *src);
int pv_recv_wr_copy(struct pv_recv_wr *dst, const struct pv_recv_wr *src);

/*
 * qp.c: post a WR (with its next_wr chain) or a list/tuple of WRs in one
 * call of ops->post (ibv_post_send, ibv_post_recv, ibv_post_srq_recv,
 * ibv_post_wq_recv)
 * on self, a handle object checked open first.  args/nargs/kwnames are the
 * METH_FASTCALL|METH_KEYWORDS arguments (wr, bad_wr=None).  qpt is the QP
 * type the send WRs are checked against (unused for receive WRs).  On
 * failure raises PyverbsRDMAError with bad_wr_index (the failing WR's
 * position, chains flattened) and copies the failing WR into bad_wr.
 */
struct pv_post_ops {
	int send;		/* SendWRs, else RecvWRs */
	const char *method;	/* "post_recv", for the usage message */
	const char *func;	/* "ibv_post_srq_recv" */
	const char *msg;	/* "Failed to post receive to SRQ." */
	/* returns 0 or an errno value, with *bad set; called without the
	 * GIL when the queue's posts are slow (struct pv_post_probe), so it
	 * may not touch Python objects other than reading self's handle */
	int (*post)(PyObject *self, void *head, void **bad);
	/* offsetof(the queue's object, its struct pv_post_probe), 0: none */
	Py_ssize_t probe;
};

/*
 * Whether releasing the GIL around a post pays.  A release and re-acquire
 * costs about 500 instructions (a fraction of a microsecond) and lets
 * another thread run only while the post lasts.  Hardware providers post
 * by writing a doorbell register: tens of nanoseconds, not worth it.
 * Software providers (rxe, siw) ring their send doorbell with a write()
 * system call that runs the kernel's requester: microseconds.  So a queue
 * times its first PV_POST_PROBES successful posts (CLOCK_MONOTONIC) and,
 * when even the fastest took PV_POST_SLOW_NS or more, posts its plain WRs
 * (no AH, no bind, no inline data) from then on with the GIL released,
 * whenever another Python thread exists to use the time.  Posting then
 * works on a private copy of the WRs, so that the WR objects may change
 * meanwhile, and counts itself in the queue's posting, which close()
 * waits for (struct pv_obj).
 */
#define PV_POST_PROBES 8
#define PV_POST_SLOW_NS 1000
struct pv_post_probe {
	uint32_t min_ns;	/* fastest post timed */
	uint8_t timed;		/* posts timed, up to PV_POST_PROBES */
	uint8_t slow;		/* post without the GIL */
};
PyObject *pv_post_wrs(PyObject *self, const struct pv_post_ops *ops,
		      enum ibv_qp_type qpt, PyObject *const *args,
		      Py_ssize_t nargs, PyObject *kwnames);

/*
 * qp.c: attribute objects.  The pointers of the embedded init attributes
 * (send_cq, recv_cq, srq, pd, qp_context) are filled from the Python objects
 * held beside them when a QP is created, never earlier, so that a closed CQ
 * or PD is refused instead of being passed to libibverbs.  ibv_create_qp()
 * writes the actual capabilities back into attr.cap, as upstream shows.
 */
struct pv_qp_cap {
	PyObject_HEAD
	struct ibv_qp_cap cap;
};
struct pv_qp_init_attr {
	PyObject_HEAD
	struct ibv_qp_init_attr attr;
	PyObject *qp_context;	/* any object, or None */
	PyObject *scq, *rcq;	/* CQ, CQEX or None */
	PyObject *srq;		/* SRQ or None */
};
struct pv_qp_init_attr_ex {
	PyObject_HEAD
	struct ibv_qp_init_attr_ex attr;
	PyObject *qp_context;
	PyObject *scq, *rcq;
	PyObject *srq;		/* SRQ or None */
	PyObject *xrcd;		/* XRCD or None */
	PyObject *ind_table;	/* RwqIndTable or None */
	PyObject *hash_conf;	/* RxHashConf or None */
	PyObject *pd;		/* PD or None */
};
struct pv_qp_attr {
	PyObject_HEAD
	struct ibv_qp_attr attr;
};
/* qp_attr.c: the check of an object slot that takes a CQ, a CQEX or None
 * (PyverbsUserError otherwise). */
int pv_oslot_check_cq(PyObject *v);

/* Upstream derives ECE from PyverbsCM although it owns no resource. */
struct pv_ece {
	struct pv_obj obj;
	struct ibv_ece ece;
};

/*
 * srq.c: a shared receive queue.  parents: the PD (ibv_create_srq), or the
 * Context then the PD, XRCD and CQ of the SrqInitAttrEx that are set
 * (ibv_create_srq_ex).  srq->srq_context is the SRQ object itself
 * (borrowed: the ibv_srq never outlives it).  Its QPs are its children.
 */
struct pv_srq {
	struct pv_obj obj;
	struct ibv_srq *srq;
	struct pv_post_probe recv_probe;
};

/*
 * qp.c; parents: PD (created by ibv_create_qp) or Context (ibv_create_qp_ex)
 * then the PD and XRCD of the init attributes if any, the send CQ, the
 * receive CQ when distinct, and the SRQ if any.  qp->qp_context is the QP object itself (borrowed: the
 * ibv_qp never outlives it), so an async event can name its QP; the user's
 * qp_context is kept in qp_context.
 */
struct pv_qp {
	struct pv_obj obj;
	struct ibv_qp *qp;
	struct pv_pd *pd;	/* borrowed: one of parents, or NULL */
	struct pv_cq *scq;	/* borrowed */
	struct pv_cq *rcq;	/* borrowed */
	struct pv_rwq_ind_table *ind_table;	/* borrowed: a parent, or NULL */
	struct pv_srq *srq;	/* borrowed: a parent, or NULL */
	PyObject *qp_context;
	enum ibv_qp_type qp_type;
	/*
	 * Provider QPs whose to_init/to_rtr/to_rts masks are not their
	 * qp_type's (upstream's _get_comp_mask overrides): NULL for the
	 * qp_type's table, else masks[0..2] for INIT, RTR, RTS (without
	 * IBV_QP_STATE, which is always added); a negative entry is a
	 * transition upstream has no mask for (KeyError).
	 */
	const int *masks;
	/* the multicast groups attach_mcast() joined: the kernel refuses to
	 * destroy a QP still attached, so destroy leaves them first */
	struct pv_qp_mcast *mcast;
	struct pv_post_probe send_probe, recv_probe;
};
struct pv_qp_mcast {
	union ibv_gid gid;
	uint16_t lid;
	struct pv_qp_mcast *next;
};
/* qp.c: the slots of QP, which QPEx (qpex.c) and provider QPs extend. */
int pv_qp_destroy(struct pv_obj *o);
int pv_qp_init(PyObject *obj, PyObject *args, PyObject *kw);
/*
 * The creation hook of a provider QP.  pv_qp_create() and pv_qpx_create()
 * are QP.__init__ and QPEx.__init__ with that hook; the init attributes
 * are checked and filled in as for the verbs call the hook replaces, and
 * the QP adopts what the hook made.  Return 0 or -1.
 *   - create(self, ctx, attr, arg) (Mlx5QP: mlx5dv_create_qp) replaces
 *     ibv_create_qp_ex(): the creator must be a Context and init_attr a
 *     QPInitAttrEx;
 *   - create_on_pd(self, pd, attr, arg) (SRDQP: efadv_create_driver_qp)
 *     replaces ibv_create_qp() when the creator is a PD.
 * Each returns the QP, or NULL with an exception set; a NULL member keeps
 * the verbs call.
 */
struct pv_qp_create_hook {
	struct ibv_qp *(*create)(PyObject *self, struct ibv_context *ctx,
				 struct ibv_qp_init_attr_ex *attr, void *arg);
	void *arg;
	struct ibv_qp *(*create_on_pd)(PyObject *self, struct ibv_pd *pd,
				       struct ibv_qp_init_attr *attr,
				       void *arg);
};
int pv_qp_create(PyObject *obj, PyObject *creator, PyObject *init_attr,
		 PyObject *qp_attr, const struct pv_qp_create_hook *hook);
int pv_qpx_create(PyObject *obj, PyObject *creator, PyObject *init_attr,
		  PyObject *qp_attr, const struct pv_qp_create_hook *hook);
int pv_qp_traverse(PyObject *obj, visitproc visit, void *arg);
int pv_qp_clear(PyObject *obj);
/*
 * QP.query's work, shared with CMID.query_qp: ibv_query_qp() of qp as a
 * new (QPAttr, QPInitAttr) pair whose QPInitAttr names the send and
 * receive CQs, SRQ and qp_context of owner; owner NULL (a CMID's QP, whose
 * CQs and SRQ are librdmacm's): None.
 */
PyObject *pv_qp_query_pair(struct ibv_qp *qp, uint32_t mask,
			   const struct pv_qp *owner);

/*
 * qp.c: a QPEx (a QP with the ibv_wr_* send API).  qpx is NULL unless the
 * QP was created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS.  Between wr_start()
 * and wr_complete()/wr_abort() in_wr is set and held (a list) holds the AHs
 * given to wr_set_ud_addr() and the MWs and MRs given to wr_bind_mw(),
 * checked still open before wr_complete().
 */
struct pv_qp_ex {
	struct pv_qp qp;
	struct ibv_qp_ex *qpx;
	int in_wr;
	PyObject *held;
};

/*
 * spec.c: the C spec (type, size, value and mask) of o, an initialised
 * Spec; else NULL with TypeError (not a Spec) or PyverbsUserError (no
 * concrete constructor ran).  Valid while o is alive.
 */
const struct ibv_flow_spec *pv_spec_data(PyObject *o);

/* flow.c: a Flow (parents[0] is the QP; a provider's subclass, Mlx5Flow,
 * has its own parents) and its destroy() (ibv_destroy_flow). */
struct pv_flow {
	struct pv_obj obj;
	struct ibv_flow *flow;
};
int pv_flow_destroy(struct pv_obj *o);

/* flow.c: the base of the providers' flow actions */
struct pv_flow_action {
	PyObject_HEAD
	struct ibv_flow_action *action;	/* NULL in the base class */
};

/*
 * wq.c.  A WQ's parents are its Context, PD and CQ; ibv_wq.wq_context is
 * the WQ object itself (borrowed), the user's wq_context is kept beside.
 * An RwqIndTable's parents are its Context, then each distinct WQ of its
 * table (reserved extra links: see pv_obj_reserve_parents()), so closing
 * any of its WQs closes the table (and its QPs) first; wqs is the list of
 * WQs as given.
 */
struct pv_wq {
	struct pv_obj obj;
	struct ibv_wq *wq;
	PyObject *wq_context;
	unsigned char mark;	/* scratch while a table is being built */
	struct pv_post_probe recv_probe;
};
struct pv_rwq_ind_table {
	struct pv_obj obj;
	struct ibv_rwq_ind_table *tbl;
	PyObject *wqs;		/* list of WQ */
};
/* The open RwqIndTable o of Context ctx; else NULL with TypeError,
 * PyverbsUserError (closed, another Context). */
struct pv_rwq_ind_table *pv_rwq_ind_table_arg(PyObject *o,
					      struct pv_obj *ctx);
/* Fill *out from the RxHashConf o (its key stays owned by o, which the
 * caller holds while *out is used).  Refuses a rx_hash_key_len longer than
 * the key (the provider reads that many bytes).  0 or -1. */
int pv_rx_hash_conf_get(PyObject *o, struct ibv_rx_hash_conf *out);

#endif /* PYVERBS_H */
