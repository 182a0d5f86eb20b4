/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The declarative attribute tables (integer fields, object slots), the
 * type specs built on them, and the strict integer converters (field.c).
 */
#ifndef PV_FIELD_H
#define PV_FIELD_H

#include "base.h"

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
#define PV_FTYPE(x)                            \
	_Generic((x),                          \
		unsigned char: PV_FT_U8,       \
		unsigned short: PV_FT_U16,     \
		unsigned int: PV_FT_U32,       \
		unsigned long: PV_FT_U64,      \
		unsigned long long: PV_FT_U64, \
		int: PV_FT_I32,                \
		long: PV_FT_I64,               \
		long long: PV_FT_I64)

#define PV_FLAG_RO 1

struct pv_field {
	const char *name;
	Py_ssize_t offset;   /* from the start of the Python object */
	unsigned char type;  /* enum pv_ftype */
	unsigned char flags; /* PV_FLAG_* */
	const char *doc;
};

/* A read-write integer attribute stored at obj->member. */
#define PV_FIELD(st, member, pyname) \
	{ pyname, offsetof(st, member), PV_FTYPE(((st *)0)->member), 0, NULL }
#define PV_FIELD_RO(st, member, pyname)                              \
	{ pyname, offsetof(st, member), PV_FTYPE(((st *)0)->member), \
	  PV_FLAG_RO, NULL }
#define PV_FIELD_END { NULL, 0, 0, 0, NULL }

/*
 * The one way to write a type spec: the slots and spec (var_slots,
 * var_spec) of a type (struct st; Python name pyname, dotted): the doc,
 * then the slots given as the trailing arguments, each followed by a
 * comma ({ Py_tp_init, fn }, ...).  PV_TYPE_SPEC_FLAGS takes the flags
 * beside Py_TPFLAGS_DEFAULT: Py_TPFLAGS_HAVE_GC alone makes a type Python
 * cannot subclass (a hidden helper type).
 */
#define PV_TYPE_SPEC_FLAGS(var, pyname, st, flags_, doc_, ...)              \
	static PyType_Slot var##_slots[] = { { Py_tp_doc, (void *)(doc_) }, \
					     __VA_ARGS__{ 0, NULL } };      \
	static PyType_Spec var##_spec = {                                   \
		.name = pyname,                                             \
		.basicsize = sizeof(st),                                    \
		.flags = Py_TPFLAGS_DEFAULT | (flags_),                     \
		.slots = var##_slots,                                       \
	}
/* A subclassable type. */
#define PV_TYPE_SPEC(var, pyname, st, doc_, ...)                       \
	PV_TYPE_SPEC_FLAGS(var, pyname, st, Py_TPFLAGS_BASETYPE, doc_, \
			   __VA_ARGS__)
/* The same for a type with Py_TPFLAGS_HAVE_GC (give its GC slots). */
#define PV_GC_TYPE_SPEC(var, pyname, st, doc_, ...)                        \
	PV_TYPE_SPEC_FLAGS(var, pyname, st,                                \
			   Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, doc_, \
			   __VA_ARGS__)
/* The same for a plain-data type (no PyObject members) whose attributes
 * come from a field table: pv_add_data_type() fills its Py_tp_getset. */
#define PV_DATA_SPEC(var, pyname, st, doc_, ...) \
	PV_TYPE_SPEC(var, pyname, st, doc_, __VA_ARGS__{ Py_tp_getset, NULL }, )
/* The str() of an object in upstream's layout: title, then one line per
 * attribute of names (NULL-terminated), '{:22}: {:<20}\n' of the name and
 * the attribute's value.  A new str, or NULL with the exception. */
PyObject *pv_rows_str(PyObject *self, const char *title,
		      const char *const *names);
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
#define PV_OSLOT_DEL_NONE 2 /* del obj.name stores None */
#define PV_OSLOT_HIDDEN 4   /* held and collected, but no attribute */

struct pv_oslot {
	const char *name;
	Py_ssize_t offset;	   /* of the PyObject * member */
	unsigned char flags;	   /* PV_FLAG_RO, PV_OSLOT_* */
	PyTypeObject **type;	   /* &pv.PD, ... or NULL */
	const char *type_err;	   /* with type: "pd must be a PD" */
	int (*check)(PyObject *v); /* 0, or -1 with an exception set */
	const char *unimpl;	   /* "SRQ": only None is accepted */
	const char *doc;
};

/* The offset of a PyObject * member; any other member fails to compile. */
#define PV_OSLOT_OFFSET(st, member) \
	_Generic(((st *)0)->member, PyObject *: offsetof(st, member))
/* The start of an entry, for the designated initializers of rare cases. */
#define PV_OSLOT_AT(st, member, pyname) \
	.name = (pyname), .offset = PV_OSLOT_OFFSET(st, member)
/* Any object. */
#define PV_OSLOT(st, member, pyname, d) \
	{ PV_OSLOT_AT(st, member, pyname), .doc = (d) }
#define PV_OSLOT_RO(st, member, pyname, d) \
	{ PV_OSLOT_AT(st, member, pyname), .flags = PV_FLAG_RO, .doc = (d) }
/* None or an instance of *tp. */
#define PV_OSLOT_TYPE(st, member, pyname, tp, err, d)                       \
	{ PV_OSLOT_AT(st, member, pyname), .type = (tp), .type_err = (err), \
	  .doc = (d) }
/* None or what fn accepts. */
#define PV_OSLOT_CHECK(st, member, pyname, fn, d) \
	{ PV_OSLOT_AT(st, member, pyname), .check = (fn), .doc = (d) }
/* None only: cls is not implemented yet. */
#define PV_OSLOT_UNIMPL(st, member, pyname, cls, d) \
	{ PV_OSLOT_AT(st, member, pyname), .unimpl = (cls), .doc = (d) }
#define PV_OSLOT_END { NULL }

PyObject *pv_oslot_get(PyObject *self, void *closure);
int pv_oslot_set(PyObject *self, PyObject *value, void *closure);
/* Check value for slot s (None passes).  Returns 0 or -1. */
int pv_oslot_check(const struct pv_oslot *s, PyObject *value);
/* The setter of slot s: refuse deletion, check, store.  Returns 0 or -1. */
int pv_oslot_store(PyObject *self, const struct pv_oslot *s, PyObject *value);
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
#define PV_OSLOTS_GC(prefix, table)                                           \
	static int prefix##_traverse(PyObject *o, visitproc visit, void *arg) \
	{                                                                     \
		Py_VISIT(Py_TYPE(o));                                         \
		return pv_oslots_traverse(o, table, visit, arg);              \
	}                                                                     \
	static int prefix##_clear(PyObject *o)                                \
	{                                                                     \
		pv_oslots_clear(o, table);                                    \
		return 0;                                                     \
	}                                                                     \
	static void prefix##_dealloc(PyObject *o)                             \
	{                                                                     \
		pv_oslots_dealloc(o, table);                                  \
	}
#define PV_OSLOTS_GC_SLOTS(prefix)               \
	{ Py_tp_traverse, prefix##_traverse },   \
		{ Py_tp_clear, prefix##_clear }, \
	{                                        \
		Py_tp_dealloc, prefix##_dealloc  \
	}
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
 * One type of a file's table, for pv_add_types(): its spec, the type
 * pointer of its base (&pv.PyverbsObject, ...; NULL: object), where the
 * type goes (&pv.X, &pv_mlx5.X) and, for a plain-data type
 * (pv_add_data_type()), what its attributes are made of.  A file lists its
 * types in order, bases first, ending with { NULL }:
 *
 *	static const struct pv_type_def types[] = {
 *		{ &cap_spec, &pv.PyverbsObject, &pv.QPCap, cap_fields },
 *		{ &qp_spec, &pv.PyverbsCM, &pv.QP },
 *		{ NULL }
 *	};
 */
struct pv_type_def {
	PyType_Spec *spec;
	PyTypeObject **base;
	PyTypeObject **slot;
	const struct pv_field *fields;
	const struct pv_oslot *oslots;
	const PyGetSetDef *extra;
};
/* Add the types of defs, in order: pv_add_data_type() for those with
 * attributes, pv_add_type() for the others.  0, or -1 at the first failure
 * (with an exception set). */
int pv_add_types(PyObject *m, const struct pv_type_def *defs);

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
int pv_conv_int(PyObject *v, void *out);  /* C int, any sign */
int pv_conv_uint(PyObject *v, void *out); /* C int, >= 0 */
/* Parse the one argument of fname(kwname), a uint32_t, into out: 0, or
 * -1 with the exception (qpex.c). */
int pv_u32_arg(PyObject *args, PyObject *kw, const char *fname,
	       const char *kwname, uint32_t *out);
int pv_conv_size(PyObject *v, void *out); /* size_t */

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

#endif /* PV_FIELD_H */
