/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Declarative attributes and strict integer conversion.
 *
 * An attribute object (QPCap, QPAttr, AHAttr, WC, ...) embeds the C struct it
 * describes and declares its integer members once, in a struct pv_field
 * table, and the Python objects it holds (QPInitAttr's CQs, ...) once, in a
 * struct pv_oslot table; pv_getset() turns the tables into getters and
 * checked setters, and the object slot table also drives the collector's
 * traverse and clear.  Conversions refuse floats, bools and out-of-range
 * values instead of truncating them.
 */
#include "field.h"
#include "errors.h"
#include "state.h"

static const uint64_t ft_max[] = {
	[PV_FT_U8] = UINT8_MAX,	  [PV_FT_U16] = UINT16_MAX,
	[PV_FT_U32] = UINT32_MAX, [PV_FT_U64] = UINT64_MAX,
	[PV_FT_I32] = INT32_MAX,  [PV_FT_I64] = INT64_MAX,
};

PyObject *pv_as_index(PyObject *v, const char *what)
{
	if (PyLong_CheckExact(v))
		return Py_NewRef(v);
	if (v == Py_None || PyBool_Check(v) || PyFloat_Check(v) ||
	    !PyIndex_Check(v)) {
		PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s",
			     what, Py_TYPE(v)->tp_name);
		return NULL;
	}
	return PyNumber_Index(v);
}

/* Whether the int i is below 0 (_PyLong_Sign is deprecated from 3.14,
 * where PyLong_GetSign replaces it). */
static int pv_long_negative(PyObject *i)
{
#if PY_VERSION_HEX >= 0x030E0000
	int sign = 0;

	PyLong_GetSign(i, &sign); /* cannot fail on an int */
	return sign < 0;
#else
	return _PyLong_Sign(i) < 0;
#endif
}

int pv_to_u64(PyObject *v, uint64_t max, uint64_t *out, const char *what)
{
	PyObject *i = pv_as_index(v, what);
	unsigned long long x;

	if (!i)
		return -1;
	if (pv_long_negative(i)) {
		Py_DECREF(i);
		PyErr_Format(PyExc_OverflowError, "%s must not be negative",
			     what);
		return -1;
	}
	x = PyLong_AsUnsignedLongLong(i);
	Py_DECREF(i);
	if (x == (unsigned long long)-1 && PyErr_Occurred()) {
		PyErr_Clear();
		goto range;
	}
	if (x > max)
		goto range;
	*out = x;
	return 0;
range:
	PyErr_Format(PyExc_OverflowError, "%s is out of range (0..%llu)", what,
		     (unsigned long long)max);
	return -1;
}

/* v, converted once, as a long long (*overflow: -1 or 1 when out of its
 * range, as PyLong_AsLongLongAndOverflow() says).  0 or -1. */
static int as_long_long(PyObject *v, const char *what, long long *x,
			int *overflow)
{
	PyObject *i = pv_as_index(v, what);

	if (!i)
		return -1;
	*x = PyLong_AsLongLongAndOverflow(i, overflow);
	Py_DECREF(i);
	return *x == -1 && PyErr_Occurred() ? -1 : 0;
}

int pv_to_i64(PyObject *v, int64_t min, int64_t max, int64_t *out,
	      const char *what)
{
	int overflow;
	long long x;

	if (as_long_long(v, what, &x, &overflow))
		return -1;
	if (overflow || x < min || x > max) {
		PyErr_Format(PyExc_OverflowError,
			     "%s is out of range (%lld..%lld)", what,
			     (long long)min, (long long)max);
		return -1;
	}
	*out = x;
	return 0;
}

#define CONV_U(name, type, max)                        \
	int name(PyObject *v, void *out)               \
	{                                              \
		uint64_t x;                            \
		if (pv_to_u64(v, max, &x, "argument")) \
			return 0;                      \
		*(type *)out = (type)x;                \
		return 1;                              \
	}
CONV_U(pv_conv_u8, uint8_t, UINT8_MAX)
CONV_U(pv_conv_u16, uint16_t, UINT16_MAX)
CONV_U(pv_conv_u32, uint32_t, UINT32_MAX)
CONV_U(pv_conv_u64, uint64_t, UINT64_MAX)
CONV_U(pv_conv_uint, int, INT_MAX)
CONV_U(pv_conv_size, size_t, SIZE_MAX)

int pv_conv_int(PyObject *v, void *out)
{
	int64_t x;

	if (pv_to_i64(v, INT_MIN, INT_MAX, &x, "argument"))
		return 0;
	*(int *)out = (int)x;
	return 1;
}

PyObject *pv_field_get(PyObject *self, void *closure)
{
	const struct pv_field *f = closure;
	const char *p = (const char *)self + f->offset;

	switch (f->type) {
	case PV_FT_U8:
		return PyLong_FromUnsignedLong(*(const uint8_t *)p);
	case PV_FT_U16:
		return PyLong_FromUnsignedLong(*(const uint16_t *)p);
	case PV_FT_U32:
		return PyLong_FromUnsignedLong(*(const uint32_t *)p);
	case PV_FT_U64:
		return PyLong_FromUnsignedLongLong(*(const uint64_t *)p);
	case PV_FT_I32:
		return PyLong_FromLong(*(const int32_t *)p);
	case PV_FT_I64:
		return PyLong_FromLongLong(*(const int64_t *)p);
	}
	PyErr_SetString(PyExc_SystemError, "bad pyverbs field type");
	return NULL;
}

int pv_field_store(PyObject *self, const struct pv_field *f, PyObject *v)
{
	char *p = (char *)self + f->offset;
	uint64_t u;
	int64_t s;

	if (!v) {
		PyErr_Format(PyExc_AttributeError, "cannot delete %s", f->name);
		return -1;
	}
	if (f->type == PV_FT_I32 || f->type == PV_FT_I64) {
		if (pv_to_i64(v, f->type == PV_FT_I32 ? INT32_MIN : INT64_MIN,
			      (int64_t)ft_max[f->type], &s, f->name))
			return -1;
		if (f->type == PV_FT_I32)
			*(int32_t *)p = (int32_t)s;
		else
			*(int64_t *)p = s;
		return 0;
	}
	if (pv_to_u64(v, ft_max[f->type], &u, f->name))
		return -1;
	switch (f->type) {
	case PV_FT_U8:
		*(uint8_t *)p = (uint8_t)u;
		break;
	case PV_FT_U16:
		*(uint16_t *)p = (uint16_t)u;
		break;
	case PV_FT_U32:
		*(uint32_t *)p = (uint32_t)u;
		break;
	default:
		*(uint64_t *)p = u;
	}
	return 0;
}

int pv_field_set(PyObject *self, PyObject *v, void *closure)
{
	return pv_field_store(self, closure, v);
}

const struct pv_field *pv_field_find(const struct pv_field *fields,
				     const char *name)
{
	for (; fields->name; fields++)
		if (!strcmp(fields->name, name))
			return fields;
	return NULL;
}

/* ---- object slots ---- */

static inline PyObject **oslot_ptr(PyObject *self, const struct pv_oslot *s)
{
	return (PyObject **)((char *)self + s->offset);
}

PyObject *pv_oslot_get(PyObject *self, void *closure)
{
	PyObject *v = *oslot_ptr(self, closure);

	return Py_NewRef(v ? v : Py_None);
}

int pv_oslot_check(const struct pv_oslot *s, PyObject *v)
{
	if (v == Py_None)
		return 0;
	if (s->type) {
		if (*s->type && PyObject_TypeCheck(v, *s->type))
			return 0;
		PyErr_Format(PyExc_TypeError, "%s, not %.100s", s->type_err,
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	if (s->check)
		return s->check(v);
	if (s->unimpl) {
		PyErr_Format(PyExc_TypeError,
			     "%s must be None: %s is not implemented in this "
			     "version of pyverbs-c, not %.100s",
			     s->unimpl, s->unimpl, Py_TYPE(v)->tp_name);
		return -1;
	}
	return 0;
}

int pv_oslot_store(PyObject *self, const struct pv_oslot *s, PyObject *v)
{
	if (!v) {
		if (!(s->flags & PV_OSLOT_DEL_NONE)) {
			PyErr_Format(PyExc_AttributeError, "cannot delete %s",
				     s->name);
			return -1;
		}
		v = Py_None;
	}
	if (pv_oslot_check(s, v))
		return -1;
	Py_XSETREF(*oslot_ptr(self, s), Py_NewRef(v));
	return 0;
}

int pv_oslot_set(PyObject *self, PyObject *v, void *closure)
{
	return pv_oslot_store(self, closure, v);
}

void pv_oslots_reset(PyObject *self, const struct pv_oslot *slots)
{
	for (; slots->name; slots++)
		Py_XSETREF(*oslot_ptr(self, slots), Py_NewRef(Py_None));
}

int pv_oslots_traverse(PyObject *self, const struct pv_oslot *slots,
		       visitproc visit, void *arg)
{
	for (; slots->name; slots++)
		Py_VISIT(*oslot_ptr(self, slots));
	return 0;
}

void pv_oslots_clear(PyObject *self, const struct pv_oslot *slots)
{
	for (; slots->name; slots++)
		Py_CLEAR(*oslot_ptr(self, slots));
}

void pv_oslots_dealloc(PyObject *self, const struct pv_oslot *slots)
{
	PyTypeObject *tp = Py_TYPE(self);

	PyObject_GC_UnTrack(self);
	pv_oslots_clear(self, slots);
	tp->tp_free(self);
	Py_DECREF(tp);
}

/* ---- getset tables ---- */

PyGetSetDef *pv_getset(const struct pv_field *fields,
		       const struct pv_oslot *oslots, const PyGetSetDef *extra)
{
	size_t n = 0, k = 0, i;
	PyGetSetDef *gs;

	while (fields && fields[n].name)
		n++;
	for (i = 0; oslots && oslots[i].name; i++)
		k += !(oslots[i].flags & PV_OSLOT_HIDDEN);
	for (i = 0; extra && extra[i].name; i++)
		k++;
	/* Lives as long as the types that use it: the process. */
	gs = PyMem_RawCalloc(n + k + 1, sizeof(*gs));
	if (!gs) {
		PyErr_NoMemory();
		return NULL;
	}
	for (i = 0; i < n; i++) {
		gs[i].name = fields[i].name;
		gs[i].get = pv_field_get;
		gs[i].set = (fields[i].flags & PV_FLAG_RO) ? NULL :
							     pv_field_set;
		gs[i].doc = fields[i].doc;
		gs[i].closure = (void *)&fields[i];
	}
	for (; oslots && oslots->name; oslots++) {
		if (oslots->flags & PV_OSLOT_HIDDEN)
			continue;
		gs[n].name = oslots->name;
		gs[n].get = pv_oslot_get;
		gs[n].set = (oslots->flags & PV_FLAG_RO) ? NULL : pv_oslot_set;
		gs[n].doc = oslots->doc;
		gs[n++].closure = (void *)oslots;
	}
	for (; extra && extra->name; extra++)
		gs[n++] = *extra;
	return gs;
}

int pv_add_data_type(PyObject *m, PyType_Spec *spec, PyTypeObject *base,
		     const struct pv_field *fields,
		     const struct pv_oslot *oslots, const PyGetSetDef *extra,
		     PyTypeObject **slot)
{
	PyType_Slot *s;

	for (s = spec->slots; s->slot && s->slot != Py_tp_getset; s++)
		;
	if (!s->slot) {
		PyErr_Format(PyExc_SystemError, "%s: no Py_tp_getset slot",
			     spec->name);
		return -1;
	}
	s->pfunc = pv_getset(fields, oslots, extra);
	if (!s->pfunc)
		return -1;
	return pv_add_type(m, spec, base, slot);
}

int pv_add_types(PyObject *m, const struct pv_type_def *defs)
{
	const struct pv_type_def *d;

	for (d = defs; d->spec; d++) {
		PyTypeObject *base = d->base ? *d->base : NULL;
		int rc;

		if (d->fields || d->oslots || d->extra)
			rc = pv_add_data_type(m, d->spec, base, d->fields,
					      d->oslots, d->extra, d->slot);
		else
			rc = pv_add_type(m, d->spec, base, d->slot);
		if (rc)
			return -1;
	}
	return 0;
}

int pv_noargs_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	if (PyTuple_GET_SIZE(args) || (kw && PyDict_GET_SIZE(kw))) {
		PyErr_Format(PyExc_TypeError, "%s() takes no arguments",
			     _PyType_Name(Py_TYPE(obj)));
		return -1;
	}
	return 0;
}

/* field.h; upstream compares with 0 before converting, hence the user
 * error for any value <= 0, however large */
int pv_positive_i64(PyObject *v, const char *what, const char *err,
		    int64_t *out)
{
	int overflow;
	long long x;

	/* converted once: a second __index__ could see another value, or
	 * run with the first one's OverflowError pending */
	if (as_long_long(v, what, &x, &overflow))
		return -1;
	if (overflow < 0 || (!overflow && x <= 0)) {
		pv_raise_user("%s", err);
		return -1;
	}
	if (overflow) {
		PyErr_Format(PyExc_OverflowError,
			     "%s is out of range (1..%lld)", what,
			     (long long)INT64_MAX);
		return -1;
	}
	*out = x;
	return 0;
}

/* field.h */
PyObject *pv_rows_str(PyObject *self, const char *title,
		      const char *const *names)
{
	PyObject *out = PyUnicode_FromString(title), *spec, *v, *cell, *row;
	char head[64];

	spec = PyUnicode_FromString("<20");
	for (; out && spec && *names; names++) {
		/* interned: the type's attribute cache keeps the name */
		PyObject *name = PyUnicode_InternFromString(*names);

		v = name ? PyObject_GetAttr(self, name) : NULL;
		Py_XDECREF(name);
		cell = v ? PyObject_Format(v, spec) : NULL;
		Py_XDECREF(v);
		snprintf(head, sizeof(head), "%-22s: ", *names);
		row = cell ? PyUnicode_FromFormat("%s%U\n", head, cell) : NULL;
		Py_XDECREF(cell);
		if (!row)
			Py_CLEAR(out);
		else
			PyUnicode_AppendAndDel(&out, row);
	}
	Py_XDECREF(spec);
	if (!spec)
		Py_CLEAR(out);
	return out;
}
