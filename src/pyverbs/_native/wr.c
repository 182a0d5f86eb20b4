/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Work requests: SGE (struct ibv_sge), RecvWR (struct ibv_recv_wr),
 * SendWR (struct ibv_send_wr) and the tag-matching OpsWr (struct
 * ibv_ops_wr, which pyverbs.srq exports).
 *
 * These objects are built on the data path, once or more per message, so
 * their constructors skip the generic machinery: the exact types get a
 * vectorcall constructor (type->tp_vectorcall, set after the type is made:
 * CPython 3.11 has no slot for it) that parses arguments with interned
 * keyword names and converts small ints without raising; subclasses go
 * through tp_new/tp_init as usual, with the same parser.
 *
 * A WR embeds its C struct.  Its SGEs are copied in when it is built (as
 * upstream does), into storage inside the object for up to
 * PV_WR_INLINE_SGES of them, else into a PyMem block.  wr.next always
 * points at the struct of the next_wr object, which the WR holds, so that a
 * chain is valid C memory for ibv_post_send() as long as its head is alive;
 * cycles are refused.  num_sge can be lowered but never raised above the
 * number of SGEs stored.  RecvWR, SendWR and OpsWr share one implementation
 * of these members, driven by a struct wr_kind per type.
 */
#include "pyverbs.h"	/* first: Python.h sets _GNU_SOURCE */

#include <errno.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Argument parsing for the data-path constructors and methods         */
/* ------------------------------------------------------------------ */

/*
 * A signature: names[0..npos) may be given by position, the rest only by
 * keyword; names[0..nreq) are required.  Keyword names are matched by
 * identity with interned copies first (call sites pass interned names),
 * then by value.
 */
struct wr_sig {
	const char *fname;
	const char *const *names;
	int nparams, npos, nreq;
	PyObject **inames;	/* interned names, made at init */
};

#define WR_MAX_PARAMS 16

static int sig_assign(const struct wr_sig *s, PyObject *name, PyObject *val,
		      PyObject **out)
{
	int i;

	for (i = 0; i < s->nparams; i++)
		if (s->inames[i] == name)
			goto found;
	if (!PyUnicode_Check(name)) {
		PyErr_Format(PyExc_TypeError, "%s() keywords must be strings",
			     s->fname);
		return -1;
	}
	for (i = 0; i < s->nparams; i++)
		if (PyUnicode_Compare(s->inames[i], name) == 0)
			goto found;
	if (PyErr_Occurred())
		return -1;
	PyErr_Format(PyExc_TypeError,
		     "%s() got an unexpected keyword argument '%U'", s->fname,
		     name);
	return -1;
found:
	if (out[i]) {
		PyErr_Format(PyExc_TypeError,
			     "%s() got multiple values for argument '%s'",
			     s->fname, s->names[i]);
		return -1;
	}
	out[i] = val;
	return 0;
}

static int sig_positional(const struct wr_sig *s, PyObject *const *args,
			  Py_ssize_t nargs, PyObject **out)
{
	Py_ssize_t i;

	memset(out, 0, s->nparams * sizeof(*out));
	if (nargs > s->npos) {
		PyErr_Format(PyExc_TypeError,
			     "%s() takes at most %d positional arguments (%zd "
			     "given)", s->fname, s->npos, nargs);
		return -1;
	}
	for (i = 0; i < nargs; i++)
		out[i] = args[i];
	return 0;
}

static int sig_required(const struct wr_sig *s, PyObject **out)
{
	int i;

	for (i = 0; i < s->nreq; i++)
		if (!out[i]) {
			PyErr_Format(PyExc_TypeError,
				     "%s() missing required argument '%s'",
				     s->fname, s->names[i]);
			return -1;
		}
	return 0;
}

/* Vectorcall / METH_FASTCALL|METH_KEYWORDS arguments into out[]. */
static int sig_parse_vc(const struct wr_sig *s, PyObject *const *args,
			Py_ssize_t nargs, PyObject *kwnames, PyObject **out)
{
	if (sig_positional(s, args, nargs, out))
		return -1;
	if (kwnames) {
		Py_ssize_t k, n = PyTuple_GET_SIZE(kwnames);

		for (k = 0; k < n; k++)
			if (sig_assign(s, PyTuple_GET_ITEM(kwnames, k),
				       args[nargs + k], out))
				return -1;
	}
	return sig_required(s, out);
}

/* tp_init style arguments into out[]. */
static int sig_parse_tuple(const struct wr_sig *s, PyObject *args,
			   PyObject *kw, PyObject **out)
{
	if (sig_positional(s, &PyTuple_GET_ITEM(args, 0),
			   PyTuple_GET_SIZE(args), out))
		return -1;
	if (kw) {
		Py_ssize_t pos = 0;
		PyObject *k, *v;

		while (PyDict_Next(kw, &pos, &k, &v))
			if (sig_assign(s, k, v, out))
				return -1;
	}
	return sig_required(s, out);
}

static int sig_intern(struct wr_sig *s)
{
	int i;

	s->inames = PyMem_RawCalloc(s->nparams, sizeof(PyObject *));
	if (!s->inames) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < s->nparams; i++) {
		/* kept for the life of the process, like the types */
		s->inames[i] = PyUnicode_InternFromString(s->names[i]);
		if (!s->inames[i])
			return -1;
	}
	return 0;
}

#define SIG(var, fn, npos_, nreq_, ...)                                 \
	static const char *const var##_names[] = { __VA_ARGS__ };       \
	static struct wr_sig var = {                                    \
		.fname = fn,                                            \
		.names = var##_names,                                   \
		.nparams = sizeof(var##_names) / sizeof(char *),        \
		.npos = npos_,                                          \
		.nreq = nreq_,                                          \
	}

/* Unsigned conversion: small exact ints without a detour, the strict
 * converter (and its messages) for everything else.  NULL: keep *out. */
static inline int wr_u64(PyObject *v, uint64_t max, uint64_t *out,
			 const char *what)
{
	if (!v)
		return 0;
	if (PyLong_CheckExact(v)) {
		int overflow;
		long long x = PyLong_AsLongLongAndOverflow(v, &overflow);

		if (!overflow && x >= 0 && (unsigned long long)x <= max) {
			*out = x;
			return 0;
		}
	}
	return pv_to_u64(v, max, out, what);
}

static inline int wr_u32(PyObject *v, uint32_t *out, const char *what)
{
	uint64_t x = *out;

	if (wr_u64(v, UINT32_MAX, &x, what))
		return -1;
	*out = x;
	return 0;
}

/* ------------------------------------------------------------------ */
/* SGE                                                                 */
/* ------------------------------------------------------------------ */

SIG(sge_sig, "SGE", 3, 3, "addr", "length", "lkey");
SIG(sge_read_sig, "read", 2, 2, "length", "offset");

static inline int is_sge(PyObject *o)
{
	return Py_IS_TYPE(o, pv.SGE) || PyObject_TypeCheck(o, pv.SGE);
}

static PyObject *sge_alloc(PyTypeObject *tp)
{
	PyObject *o;

	if (tp != pv.SGE)
		return tp->tp_alloc(tp, 0);
	o = PyObject_Malloc(sizeof(struct pv_sge));
	if (!o)
		return PyErr_NoMemory();
	return PyObject_Init(o, tp);	/* takes a reference to tp */
}

static PyObject *sge_new_from(const struct ibv_sge *sge)
{
	PyObject *o = sge_alloc(pv.SGE);

	if (o)
		((struct pv_sge *)o)->sge = *sge;
	return o;
}

static int sge_fill(struct pv_sge *self, PyObject **v)
{
	struct ibv_sge sge = { 0 };
	uint64_t addr = 0;

	if (wr_u64(v[0], UINT64_MAX, &addr, "addr") ||
	    wr_u32(v[1], &sge.length, "length") ||
	    wr_u32(v[2], &sge.lkey, "lkey"))
		return -1;
	sge.addr = addr;
	self->sge = sge;
	return 0;
}

static PyObject *sge_vectorcall(PyObject *type, PyObject *const *args,
				size_t nargsf, PyObject *kwnames)
{
	Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
	PyObject *v[3];
	PyObject *self;

	if (!kwnames && nargs == 3) {
		v[0] = args[0];
		v[1] = args[1];
		v[2] = args[2];
	} else if (sig_parse_vc(&sge_sig, args, nargs, kwnames, v)) {
		return NULL;
	}
	self = sge_alloc((PyTypeObject *)type);
	if (!self)
		return NULL;
	if (sge_fill((struct pv_sge *)self, v)) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

static PyObject *sge_tp_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	return sge_alloc(tp);
}

static int sge_init(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *v[3];

	if (sig_parse_tuple(&sge_sig, args, kw, v))
		return -1;
	return sge_fill((struct pv_sge *)self, v);
}

static void sge_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	tp->tp_free(self);
	Py_DECREF(tp);
}

static PyObject *sge_read(PyObject *obj, PyObject *const *args,
			  Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_sge *self = (struct pv_sge *)obj;
	PyObject *v[2], *out;
	int64_t length, offset;

	if (sig_parse_vc(&sge_read_sig, args, nargs, kwnames, v) ||
	    pv_to_i64(v[0], INT64_MIN, INT64_MAX, &length, "length") ||
	    pv_to_i64(v[1], INT64_MIN, INT64_MAX, &offset, "offset"))
		return NULL;
	if (length < 0 || offset < 0 || offset > self->sge.length ||
	    length > self->sge.length - offset)
		return pv_raise_user("Cannot read %lld bytes at offset %lld "
				     "of an SGE of %u bytes",
				     (long long)length, (long long)offset,
				     self->sge.length);
	out = PyBytes_FromStringAndSize(NULL, length);
	if (!out)
		return NULL;
	if (pv_read_mem(PyBytes_AS_STRING(out), self->sge.addr + offset,
			length)) {
		Py_DECREF(out);
		return NULL;
	}
	return out;
}

static PyObject *wr_noop_close(PyObject *self, PyObject *unused)
{
	Py_RETURN_NONE;
}

static PyObject *wr_enter(PyObject *self, PyObject *unused)
{
	return Py_NewRef(self);
}

static PyObject *wr_exit(PyObject *self, PyObject *const *args,
			 Py_ssize_t nargs)
{
	Py_RETURN_NONE;
}

#define WR_CM_METHODS                                                   \
	{ "close", wr_noop_close, METH_NOARGS,                          \
	  "close($self, /)\n--\n\nDoes nothing: the memory is freed "   \
	  "with the object (upstream compatibility)." },                \
	{ "__enter__", wr_enter, METH_NOARGS, NULL },                   \
	{ "__exit__", (PyCFunction)(void (*)(void))wr_exit,            \
	  METH_FASTCALL, NULL }

static PyMethodDef sge_methods[] = {
	{ "read", (PyCFunction)(void (*)(void))sge_read,
	  METH_FASTCALL | METH_KEYWORDS,
	  "read($self, length, offset)\n--\n\n"
	  "Return length bytes from offset bytes past addr.  The range must "
	  "lie\nwithin the SGE's length; an unreadable address raises "
	  "PyverbsUserError." },
	WR_CM_METHODS,
	{ NULL }
};

static const struct pv_field sge_fields[] = {
	PV_FIELD(struct pv_sge, sge.addr, "addr"),
	PV_FIELD(struct pv_sge, sge.length, "length"),
	PV_FIELD(struct pv_sge, sge.lkey, "lkey"),
	PV_FIELD_END
};

static PyType_Slot sge_slots[] = {
	{ Py_tp_doc, "SGE(addr, length, lkey)\n--\n\n"
		     "A scatter/gather element (struct ibv_sge): length bytes "
		     "at addr, in the\nmemory region whose local key is "
		     "lkey." },
	{ Py_tp_new, sge_tp_new },
	{ Py_tp_init, sge_init },
	{ Py_tp_dealloc, sge_dealloc },
	{ Py_tp_methods, sge_methods },
	{ Py_tp_getset, NULL },	/* from sge_fields, at init */
	{ 0, NULL }
};

static PyType_Spec sge_spec = {
	.name = "pyverbs.wr.SGE",
	.basicsize = sizeof(struct pv_sge),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.slots = sge_slots,
};

/* ------------------------------------------------------------------ */
/* Scatter/gather storage shared by both WR kinds                      */
/* ------------------------------------------------------------------ */

/*
 * The SGEs to copy in: sg is None (or absent), an SGE, or a list/tuple of
 * SGEs.  *num_sge is -1 when not given: then it is the length of sg.
 * Checks the first *num_sge items.  Sets *items and *none; one is room for a
 * lone SGE.  The items are borrowed from sg: copy them before any Python
 * code can run (an __index__ could change the list).  Returns 0 or -1.
 */
static int sg_collect(const char *fname, PyObject *sg, int *num_sge,
		      PyObject *const **items, int *none, PyObject **one)
{
	Py_ssize_t n, i;

	*none = !sg || sg == Py_None;
	if (*none) {
		/* the caller decides: no SGE at all may be fine */
		*items = NULL;
		if (*num_sge < 0)
			*num_sge = 0;
		return 0;
	}
	if (is_sge(sg)) {
		/* a single SGE stands for [sge] */
		one[0] = sg;
		*items = one;
		n = 1;
	} else if (PyList_Check(sg) || PyTuple_Check(sg)) {
		*items = PySequence_Fast_ITEMS(sg);
		n = PySequence_Fast_GET_SIZE(sg);
	} else {
		PyErr_Format(PyExc_TypeError,
			     "%s(): sg must be a list of SGE objects, not "
			     "%.100s", fname, Py_TYPE(sg)->tp_name);
		return -1;
	}
	if (*num_sge < 0) {
		if (n > INT_MAX) {
			PyErr_Format(PyExc_OverflowError,
				     "%s(): too many SGEs", fname);
			return -1;
		}
		*num_sge = (int)n;
	}
	if (*num_sge > n) {
		PyErr_Format(PyExc_IndexError,
			     "%s(): num_sge is %d but sg has only %zd SGEs",
			     fname, *num_sge, n);
		return -1;
	}
	for (i = 0; i < *num_sge; i++)
		if (!is_sge((*items)[i])) {
			PyErr_Format(PyExc_TypeError,
				     "%s(): sg[%zd] must be an SGE, not %.100s",
				     fname, i, Py_TYPE((*items)[i])->tp_name);
			return -1;
		}
	return 0;
}

/*
 * Replace the SGE storage *list (inline buffer inl, or a PyMem block) with
 * copies of items[0..n).  Nothing changes on failure.  Returns 0 or -1.
 */
static int sg_store(struct ibv_sge **list, struct ibv_sge *inl,
		    PyObject *const *items, int n)
{
	struct ibv_sge *dst = inl;
	int i;

	if (n > PV_WR_INLINE_SGES) {
		dst = PyMem_Malloc((size_t)n * sizeof(*dst));
		if (!dst) {
			PyErr_NoMemory();
			return -1;
		}
	}
	if (*list && *list != inl)
		PyMem_Free(*list);
	for (i = 0; i < n; i++)
		dst[i] = ((struct pv_sge *)items[i])->sge;
	*list = dst;
	return 0;
}

/* sg_store() from a C array (src must not be *list's storage). */
static int sg_store_raw(struct ibv_sge **list, struct ibv_sge *inl,
			const struct ibv_sge *src, int n)
{
	struct ibv_sge *dst = inl;

	if (n > PV_WR_INLINE_SGES) {
		dst = PyMem_Malloc((size_t)n * sizeof(*dst));
		if (!dst) {
			PyErr_NoMemory();
			return -1;
		}
	}
	if (n)
		memmove(dst, src, (size_t)n * sizeof(*dst));
	if (*list && *list != inl && *list != dst)
		PyMem_Free(*list);
	*list = dst;
	return 0;
}

static void sg_free(struct ibv_sge **list, struct ibv_sge *inl)
{
	if (*list && *list != inl)
		PyMem_Free(*list);
	*list = NULL;
}

static PyObject *sg_to_list(const struct ibv_sge *sg, int n)
{
	PyObject *l = PyList_New(n);
	int i;

	if (!l)
		return NULL;
	for (i = 0; i < n; i++) {
		PyObject *s = sge_new_from(&sg[i]);

		if (!s) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, s);
	}
	return l;
}

/* num_sge given by the caller: C int, >= 0 (NULL: -1, "not given"). */
static int conv_num_sge(PyObject *v, int *out)
{
	int64_t x;

	if (!v) {
		*out = -1;
		return 0;
	}
	if (pv_to_i64(v, 0, INT_MAX, &x, "num_sge"))
		return -1;
	*out = (int)x;
	return 0;
}

/* Lazily GC-tracked: a WR only joins the collector once it holds a
 * reference (next_wr, ah). */
static inline void wr_track(PyObject *self)
{
	if (!PyObject_GC_IsTracked(self))
		PyObject_GC_Track(self);
}

static PyObject *wr_alloc(PyTypeObject *tp, PyTypeObject *exact,
			  size_t size)
{
	PyObject *o;

	if (tp != exact)
		return tp->tp_alloc(tp, 0);
	o = PyObject_GC_New(PyObject, tp);	/* untracked; refs tp */
	if (o)
		memset((char *)o + sizeof(PyObject), 0,
		       size - sizeof(PyObject));
	return o;
}

/* ------------------------------------------------------------------ */
/* What RecvWR and SendWR share                                        */
/* ------------------------------------------------------------------ */

/*
 * The two WR objects have the same members around different C structs
 * (struct ibv_recv_wr, struct ibv_send_wr), so the members sit at
 * different offsets.  A kind gives them to one implementation of what both
 * do: chaining (next_wr), the SGE attributes, copying, deallocating.  The
 * kinds are constant, so the compiler can fold them into the data path's
 * inline helpers.
 */
struct wr_kind {
	const char *name;		/* "SendWR", for messages */
	PyTypeObject **type;		/* what next_wr may be */
	size_t wr, wr_size;		/* the struct ibv_*_wr */
	size_t next, sg_list, num_sge;	/* of its members */
	size_t sge_inline, sg_cap, next_wr;
	inquiry clear;			/* the type's tp_clear */
};

/* sg: where the WR struct keeps sg_list and num_sge ("wr.", "wr.tm.add.") */
#define WR_KIND_SG(st, cls, tp, clear_fn, sg)                           \
	{ .name = (cls), .type = (tp), .wr = offsetof(st, wr),          \
	  .wr_size = sizeof(((st *)0)->wr),                             \
	  .next = offsetof(st, wr.next),                                \
	  .sg_list = offsetof(st, sg sg_list),                          \
	  .num_sge = offsetof(st, sg num_sge),                          \
	  .sge_inline = offsetof(st, sge_inline),                       \
	  .sg_cap = offsetof(st, sg_cap),                               \
	  .next_wr = offsetof(st, next_wr), .clear = (clear_fn) }
#define WR_KIND(st, cls, tp, clear_fn) WR_KIND_SG(st, cls, tp, clear_fn, wr.)

/* The member of WR object o at offset off (wr.next is reached as a void *:
 * its C type differs between the kinds). */
#define WR_AT(o, off, type) ((type *)((char *)(o) + (off)))

/* next may follow self: a WR of the same kind, and no cycle. */
static int wr_check_next(PyObject *self, const struct wr_kind *k,
			 PyObject *next)
{
	PyObject *p;

	if (!PyObject_TypeCheck(next, *k->type)) {
		PyErr_Format(PyExc_TypeError,
			     "next_wr must be a %s or None, not %.100s",
			     k->name, Py_TYPE(next)->tp_name);
		return -1;
	}
	for (p = next; p; p = *WR_AT(p, k->next_wr, PyObject *))
		if (p == self) {
			pv_raise_user("next_wr would make a cycle of WRs");
			return -1;
		}
	return 0;
}

/* Chain next (checked, or NULL) after self: wr.next and next_wr. */
static inline void wr_link(PyObject *self, const struct wr_kind *k,
			   PyObject *next)
{
	*WR_AT(self, k->next, void *) = next ? WR_AT(next, k->wr, void) : NULL;
	Py_XSETREF(*WR_AT(self, k->next_wr, PyObject *), Py_XNewRef(next));
	if (next)
		wr_track(self);
}

/* The getters and setters get their kind as the closure. */
static PyObject *wr_get_next(PyObject *obj, void *closure)
{
	const struct wr_kind *k = closure;
	PyObject *n = *WR_AT(obj, k->next_wr, PyObject *);

	return Py_NewRef(n ? n : Py_None);
}

static int wr_set_next(PyObject *obj, PyObject *val, void *closure)
{
	if (val == Py_None)
		val = NULL;	/* as deleting: the end of the list */
	if (val && wr_check_next(obj, closure, val))
		return -1;
	wr_link(obj, closure, val);
	return 0;
}

static PyObject *wr_get_num_sge(PyObject *obj, void *closure)
{
	const struct wr_kind *k = closure;

	return PyLong_FromLong(*WR_AT(obj, k->num_sge, int));
}

static int wr_set_num_sge(PyObject *obj, PyObject *val, void *closure)
{
	const struct wr_kind *k = closure;
	int cap = *WR_AT(obj, k->sg_cap, int);
	int64_t x;

	if (!val) {
		PyErr_SetString(PyExc_AttributeError, "cannot delete num_sge");
		return -1;
	}
	if (pv_to_i64(val, 0, INT_MAX, &x, "num_sge"))
		return -1;
	if (x > cap) {
		pv_raise_user("%s holds %d SGEs: num_sge cannot be %lld (set "
			      "sg_list to store more)", k->name, cap,
			      (long long)x);
		return -1;
	}
	*WR_AT(obj, k->num_sge, int) = (int)x;
	return 0;
}

static PyObject *wr_get_sg(PyObject *obj, void *closure)
{
	const struct wr_kind *k = closure;

	return sg_to_list(*WR_AT(obj, k->sg_list, struct ibv_sge *),
			  *WR_AT(obj, k->num_sge, int));
}

/* An SGE or a list of them; num_sge becomes their number. */
static int wr_set_sg(PyObject *obj, PyObject *val, void *closure)
{
	const struct wr_kind *k = closure;
	PyObject *const *items, *one[1];
	int none, n = -1;

	if (!val || val == Py_None) {
		PyErr_Format(PyExc_TypeError,
			     "%s.sg_list must be an SGE or a list of SGEs",
			     k->name);
		return -1;
	}
	if (sg_collect(k->name, val, &n, &items, &none, one) ||
	    sg_store(WR_AT(obj, k->sg_list, struct ibv_sge *),
		     WR_AT(obj, k->sge_inline, struct ibv_sge), items, n))
		return -1;
	*WR_AT(obj, k->num_sge, int) = n;
	*WR_AT(obj, k->sg_cap, int) = n;
	return 0;
}

#define WR_GETSET(kind, cls)                                            \
	{ "num_sge", wr_get_num_sge, wr_set_num_sge,                    \
	  "Number of SGEs used (at most the number stored).",           \
	  (void *)&(kind) },                                            \
	{ "next_wr", wr_get_next, wr_set_next,                          \
	  "The next " cls " of the list, or None.", (void *)&(kind) },  \
	{ "sg_list", wr_get_sg, wr_set_sg,                              \
	  "The SGEs, as a list of copies; set from an SGE or a list of " \
	  "SGEs.", (void *)&(kind) }

/*
 * Make dst's WR a copy of src's (upstream's bad_wr): every field and the
 * SGEs, into dst's own storage (sg_cap updated); dst keeps its own wr.next
 * and next_wr.  Returns 0 or -1 (MemoryError), dst unchanged then.
 */
static int wr_copy(PyObject *dst, PyObject *src, const struct wr_kind *k)
{
	struct ibv_sge *sg = *WR_AT(dst, k->sg_list, struct ibv_sge *);
	void *next = *WR_AT(dst, k->next, void *);
	int n = *WR_AT(src, k->num_sge, int);

	if (dst == src)
		return 0;
	if (sg_store_raw(&sg, WR_AT(dst, k->sge_inline, struct ibv_sge),
			 *WR_AT(src, k->sg_list, struct ibv_sge *), n))
		return -1;
	memcpy(WR_AT(dst, k->wr, char), WR_AT(src, k->wr, char), k->wr_size);
	*WR_AT(dst, k->sg_list, struct ibv_sge *) = sg;
	*WR_AT(dst, k->next, void *) = next;
	*WR_AT(dst, k->sg_cap, int) = n;
	return 0;
}

/* tp_dealloc of both kinds; dealloc is the type's own, for the trashcan. */
static void wr_dealloc(PyObject *self, const struct wr_kind *k,
		       destructor dealloc)
{
	PyTypeObject *tp = Py_TYPE(self);

	PyObject_GC_UnTrack(self);
	/* a long chain would otherwise recurse once per WR */
	Py_TRASHCAN_BEGIN(self, dealloc)
	k->clear(self);
	sg_free(WR_AT(self, k->sg_list, struct ibv_sge *),
		WR_AT(self, k->sge_inline, struct ibv_sge));
	tp->tp_free(self);
	Py_DECREF(tp);
	Py_TRASHCAN_END
}

/* ------------------------------------------------------------------ */
/* RecvWR                                                              */
/* ------------------------------------------------------------------ */

SIG(recv_sig, "RecvWR", 4, 0, "wr_id", "num_sge", "sg", "next_wr");

enum { RV_WR_ID, RV_NUM_SGE, RV_SG, RV_NEXT };

static int recvwr_clear(PyObject *self)
{
	struct pv_recv_wr *wr = (struct pv_recv_wr *)self;

	wr->wr.next = NULL;
	Py_CLEAR(wr->next_wr);
	return 0;
}

static const struct wr_kind recv_kind =
	WR_KIND(struct pv_recv_wr, "RecvWR", &pv.RecvWR, recvwr_clear);

/* fresh: self was just allocated, so no WR can point at it (no cycle). */
static int recvwr_fill(struct pv_recv_wr *self, PyObject **v, int fresh)
{
	PyObject *next = v[RV_NEXT], *const *items, *one[1];
	uint64_t wr_id = 0;
	int num_sge, none;

	if (wr_u64(v[RV_WR_ID], UINT64_MAX, &wr_id, "wr_id") ||
	    conv_num_sge(v[RV_NUM_SGE], &num_sge))
		return -1;
	if (next == Py_None)
		next = NULL;
	if (next && (!fresh || !PyObject_TypeCheck(next, pv.RecvWR)) &&
	    wr_check_next((PyObject *)self, &recv_kind, next))
		return -1;
	/* no Python code runs from here on */
	if (sg_collect("RecvWR", v[RV_SG], &num_sge, &items, &none, one))
		return -1;
	if (num_sge < 1 || none) {
		pv_raise_user("A WR needs at least one SGE");
		return -1;
	}
	if (sg_store(&self->wr.sg_list, self->sge_inline, items, num_sge))
		return -1;
	self->wr.num_sge = num_sge;
	self->sg_cap = num_sge;
	self->wr.wr_id = wr_id;
	wr_link((PyObject *)self, &recv_kind, next);
	return 0;
}

static PyObject *recvwr_vectorcall(PyObject *type, PyObject *const *args,
				   size_t nargsf, PyObject *kwnames)
{
	PyObject *v[4], *self;

	if (sig_parse_vc(&recv_sig, args, PyVectorcall_NARGS(nargsf), kwnames,
			 v))
		return NULL;
	self = wr_alloc((PyTypeObject *)type, pv.RecvWR,
			sizeof(struct pv_recv_wr));
	if (!self)
		return NULL;
	if (recvwr_fill((struct pv_recv_wr *)self, v, 1)) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

static PyObject *recvwr_tp_new(PyTypeObject *tp, PyObject *a, PyObject *k)
{
	return wr_alloc(tp, pv.RecvWR, sizeof(struct pv_recv_wr));
}

static int recvwr_init(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *v[4];

	if (sig_parse_tuple(&recv_sig, args, kw, v))
		return -1;
	return recvwr_fill((struct pv_recv_wr *)self, v, 0);
}

static int recvwr_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self));
	Py_VISIT(((struct pv_recv_wr *)self)->next_wr);
	return 0;
}

static void recvwr_dealloc(PyObject *self)
{
	wr_dealloc(self, &recv_kind, recvwr_dealloc);
}

static const struct pv_field recvwr_fields[] = {
	PV_FIELD(struct pv_recv_wr, wr.wr_id, "wr_id"),
	PV_FIELD_END
};

static const PyGetSetDef recvwr_extra[] = {
	WR_GETSET(recv_kind, "RecvWR"),
	{ NULL }
};

static PyMethodDef recvwr_methods[] = {
	WR_CM_METHODS,
	{ NULL }
};

static PyType_Slot recvwr_slots[] = {
	{ Py_tp_doc, "RecvWR(wr_id=0, num_sge=0, sg=None, next_wr=None)\n--\n"
		     "\n"
		     "A receive work request (struct ibv_recv_wr).  sg: a list "
		     "of SGEs, copied\nin; num_sge of them are used (all of "
		     "them when num_sge is not given).\nnext_wr chains WRs "
		     "for one post_recv()." },
	{ Py_tp_new, recvwr_tp_new },
	{ Py_tp_init, recvwr_init },
	{ Py_tp_dealloc, recvwr_dealloc },
	{ Py_tp_traverse, recvwr_traverse },
	{ Py_tp_clear, recvwr_clear },
	{ Py_tp_methods, recvwr_methods },
	{ Py_tp_getset, NULL },
	{ 0, NULL }
};

static PyType_Spec recvwr_spec = {
	.name = "pyverbs.wr.RecvWR",
	.basicsize = sizeof(struct pv_recv_wr),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = recvwr_slots,
};

/* ------------------------------------------------------------------ */
/* OpsWr (pyverbs.srq): a tag-matching operation                       */
/* ------------------------------------------------------------------ */

SIG(ops_sig, "OpsWr", 10, 0, "wr_id", "opcode", "flags", "next_wr",
    "unexpected_cnt", "recv_wr_id", "num_sge", "tag", "mask", "sg_list");

enum { OP_WR_ID, OP_OPCODE, OP_FLAGS, OP_NEXT, OP_UNEXP, OP_RECV_WR_ID,
       OP_NUM_SGE, OP_TAG, OP_MASK, OP_SG };

static int opswr_clear(PyObject *self)
{
	struct pv_ops_wr *wr = (struct pv_ops_wr *)self;

	wr->wr.next = NULL;
	Py_CLEAR(wr->next_wr);
	return 0;
}

static const struct wr_kind ops_kind =
	WR_KIND_SG(struct pv_ops_wr, "OpsWr", &pv.OpsWr, opswr_clear,
		   wr.tm.add.);

static PyObject *opswr_tp_new(PyTypeObject *tp, PyObject *a, PyObject *k)
{
	return wr_alloc(tp, pv.OpsWr, sizeof(struct pv_ops_wr));
}

/*
 * Upstream's defaults: TAG_ADD, signaled, no SGE.  The integers are
 * converted before anything changes, so that a failed __init__ leaves the
 * WR as it was.
 */
static int opswr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	struct pv_ops_wr *self = (struct pv_ops_wr *)obj;
	PyObject *v[10], *next, *const *items, *one[1];
	uint64_t wr_id = 0, recv_wr_id = 0, tag = 0, mask = 0;
	uint32_t opcode = IBV_WR_TAG_ADD, unexp = 0;
	int64_t flags = IBV_OPS_SIGNALED;
	int num_sge, none;

	if (sig_parse_tuple(&ops_sig, args, kw, v) ||
	    wr_u64(v[OP_WR_ID], UINT64_MAX, &wr_id, "wr_id") ||
	    wr_u32(v[OP_OPCODE], &opcode, "opcode") ||
	    (v[OP_FLAGS] && pv_to_i64(v[OP_FLAGS], INT_MIN, INT_MAX, &flags,
				      "flags")) ||
	    wr_u32(v[OP_UNEXP], &unexp, "unexpected_cnt") ||
	    wr_u64(v[OP_RECV_WR_ID], UINT64_MAX, &recv_wr_id, "recv_wr_id") ||
	    wr_u64(v[OP_TAG], UINT64_MAX, &tag, "tag") ||
	    wr_u64(v[OP_MASK], UINT64_MAX, &mask, "mask") ||
	    conv_num_sge(v[OP_NUM_SGE] == Py_None ? NULL : v[OP_NUM_SGE],
			 &num_sge))
		return -1;
	next = v[OP_NEXT] == Py_None ? NULL : v[OP_NEXT];
	if (next && wr_check_next(obj, &ops_kind, next))
		return -1;
	/* no Python code runs from here on */
	if (sg_collect("OpsWr", v[OP_SG], &num_sge, &items, &none, one))
		return -1;
	if (none && num_sge) {
		pv_raise_user("OpsWr(): num_sge is %d but there is no sg_list",
			      num_sge);
		return -1;
	}
	if (sg_store(&self->wr.tm.add.sg_list, self->sge_inline, items,
		     num_sge))
		return -1;
	self->wr.tm.add.num_sge = num_sge;
	self->sg_cap = num_sge;
	self->wr.wr_id = wr_id;
	self->wr.opcode = opcode;
	self->wr.flags = (int)flags;
	self->wr.tm.unexpected_cnt = unexp;
	self->wr.tm.handle = 0;
	self->wr.tm.add.recv_wr_id = recv_wr_id;
	self->wr.tm.add.tag = tag;
	self->wr.tm.add.mask = mask;
	wr_link(obj, &ops_kind, next);
	return 0;
}

static int opswr_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self));
	Py_VISIT(((struct pv_ops_wr *)self)->next_wr);
	return 0;
}

static void opswr_dealloc(PyObject *self)
{
	wr_dealloc(self, &ops_kind, opswr_dealloc);
}

int pv_ops_wr_copy(struct pv_ops_wr *dst, const struct pv_ops_wr *src)
{
	return wr_copy((PyObject *)dst, (PyObject *)src, &ops_kind);
}

#define OPSWR struct pv_ops_wr
static const struct pv_field opswr_fields[] = {
	PV_FIELD(OPSWR, wr.wr_id, "wr_id"),
	PV_FIELD(OPSWR, wr.opcode, "opcode"),
	PV_FIELD(OPSWR, wr.flags, "flags"),
	PV_FIELD(OPSWR, wr.tm.unexpected_cnt, "unexpected_cnt"),
	PV_FIELD(OPSWR, wr.tm.handle, "handle"),
	PV_FIELD(OPSWR, wr.tm.add.recv_wr_id, "recv_wr_id"),
	PV_FIELD(OPSWR, wr.tm.add.tag, "tag"),
	PV_FIELD(OPSWR, wr.tm.add.mask, "mask"),
	PV_FIELD_END
};

static const PyGetSetDef opswr_extra[] = {
	WR_GETSET(ops_kind, "OpsWr"),
	{ NULL }
};

static PyMethodDef opswr_methods[] = {
	WR_CM_METHODS,
	{ NULL }
};

static PyType_Slot opswr_slots[] = {
	{ Py_tp_doc, "OpsWr(wr_id=0, opcode=IBV_WR_TAG_ADD, "
		     "flags=IBV_OPS_SIGNALED, next_wr=None, unexpected_cnt=0, "
		     "recv_wr_id=0, num_sge=None, tag=0, mask=0, sg_list=None)"
		     "\n--\n\n"
		     "A tag-matching operation for SRQ.post_srq_ops() (struct "
		     "ibv_ops_wr).  sg_list: the SGEs of a TAG_ADD, copied in "
		     "(num_sge of them, all by default).  handle is what the "
		     "provider returns for an added tag, to delete it with." },
	{ Py_tp_new, opswr_tp_new },
	{ Py_tp_init, opswr_init },
	{ Py_tp_dealloc, opswr_dealloc },
	{ Py_tp_traverse, opswr_traverse },
	{ Py_tp_clear, opswr_clear },
	{ Py_tp_methods, opswr_methods },
	{ Py_tp_getset, NULL },
	{ 0, NULL }
};

static PyType_Spec opswr_spec = {
	.name = "pyverbs.srq.OpsWr",
	.basicsize = sizeof(struct pv_ops_wr),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = opswr_slots,
};

/* ------------------------------------------------------------------ */
/* SendWR                                                              */
/* ------------------------------------------------------------------ */

SIG(send_sig, "SendWR", 7, 0, "wr_id", "opcode", "num_sge", "imm_data", "sg",
    "send_flags", "next_wr",
    /* keyword-only shortcuts for set_wr_ud/rdma/atomic */
    "remote_addr", "rkey", "ah", "remote_qpn", "remote_qkey", "compare_add",
    "swap");

enum {
	SW_WR_ID, SW_OPCODE, SW_NUM_SGE, SW_IMM, SW_SG, SW_FLAGS, SW_NEXT,
	SW_RADDR, SW_RKEY, SW_AH, SW_RQPN, SW_RQKEY, SW_CMP, SW_SWAP,
};

SIG(ud_sig, "set_wr_ud", 3, 3, "ah", "rqpn", "rqkey");
SIG(rdma_sig, "set_wr_rdma", 2, 2, "rkey", "addr");
SIG(atomic_sig, "set_wr_atomic", 4, 3, "rkey", "addr", "compare_add", "swap");

static int sendwr_clear(PyObject *self)
{
	struct pv_send_wr *wr = (struct pv_send_wr *)self;

	wr->wr.next = NULL;
	Py_CLEAR(wr->next_wr);
	Py_CLEAR(wr->ah);
	Py_CLEAR(wr->bind);
	return 0;
}

static const struct wr_kind send_kind =
	WR_KIND(struct pv_send_wr, "SendWR", &pv.SendWR, sendwr_clear);

static int check_ah(PyObject *ah)
{
	if (!PyObject_TypeCheck(ah, pv.AH)) {
		PyErr_Format(PyExc_TypeError, "ah must be an AH, not %.100s",
			     Py_TYPE(ah)->tp_name);
		return -1;
	}
	return pv_check_open(PV_OBJ(ah));
}

/* Point the WR at ah (a checked, open AH) or at none. */
static void sendwr_set_ah(struct pv_send_wr *self, PyObject *ah)
{
	Py_XINCREF(ah);
	Py_XSETREF(self->ah, (struct pv_ah *)ah);
	if (ah)
		wr_track((PyObject *)self);
}

/*
 * The keyword shortcuts: ah= (+ remote_qpn=, remote_qkey=) is set_wr_ud;
 * compare_add=/swap= (+ remote_addr=, rkey=) is set_wr_atomic; remote_addr=
 * /rkey= alone is set_wr_rdma.  Fills wr->wr and *ah.
 */
static int sendwr_shortcuts(struct ibv_send_wr *wr, PyObject **v,
			    PyObject **ah)
{
	uint64_t raddr = 0, cmp = 0, swap = 0;
	uint32_t rkey = 0, qpn = 0, qkey = 0;

	*ah = NULL;
	if (v[SW_AH] && v[SW_AH] != Py_None) {
		if (v[SW_RADDR] || v[SW_RKEY] || v[SW_CMP] || v[SW_SWAP]) {
			pv_raise_user("SendWR: ah= (UD) cannot be combined "
				      "with remote_addr=, rkey=, compare_add= "
				      "or swap=");
			return -1;
		}
		if (!v[SW_RQPN]) {
			PyErr_SetString(PyExc_TypeError,
					"SendWR: ah= needs remote_qpn=");
			return -1;
		}
		if (check_ah(v[SW_AH]) ||
		    wr_u32(v[SW_RQPN], &qpn, "remote_qpn") ||
		    wr_u32(v[SW_RQKEY], &qkey, "remote_qkey"))
			return -1;
		wr->wr.ud.ah = ((struct pv_ah *)v[SW_AH])->ah;
		wr->wr.ud.remote_qpn = qpn;
		wr->wr.ud.remote_qkey = qkey;
		*ah = v[SW_AH];
		return 0;
	}
	if (v[SW_RQPN] || v[SW_RQKEY]) {
		pv_raise_user("SendWR: remote_qpn= and remote_qkey= need ah=");
		return -1;
	}
	if (wr_u64(v[SW_RADDR], UINT64_MAX, &raddr, "remote_addr") ||
	    wr_u32(v[SW_RKEY], &rkey, "rkey") ||
	    wr_u64(v[SW_CMP], UINT64_MAX, &cmp, "compare_add") ||
	    wr_u64(v[SW_SWAP], UINT64_MAX, &swap, "swap"))
		return -1;
	if (v[SW_CMP] || v[SW_SWAP]) {
		wr->wr.atomic.remote_addr = raddr;
		wr->wr.atomic.rkey = rkey;
		wr->wr.atomic.compare_add = cmp;
		wr->wr.atomic.swap = swap;
	} else {
		wr->wr.rdma.remote_addr = raddr;
		wr->wr.rdma.rkey = rkey;
	}
	return 0;
}

static int sendwr_fill(struct pv_send_wr *self, PyObject **v, int fresh)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	PyObject *next = v[SW_NEXT], *ah = NULL, *const *items, *one[1];
	uint32_t opcode = IBV_WR_SEND;
	uint64_t wr_id = 0;
	int num_sge, none;

	if (wr_u64(v[SW_WR_ID], UINT64_MAX, &wr_id, "wr_id") ||
	    wr_u32(v[SW_OPCODE], &opcode, "opcode") ||
	    wr_u32(v[SW_IMM], &wr.imm_data, "imm_data") ||
	    wr_u32(v[SW_FLAGS], &wr.send_flags, "send_flags") ||
	    conv_num_sge(v[SW_NUM_SGE], &num_sge))
		return -1;
	wr.wr_id = wr_id;
	wr.opcode = opcode;
	/* the shortcuts, only when one of them is given */
	if ((v[SW_RADDR] || v[SW_RKEY] || v[SW_AH] || v[SW_RQPN] ||
	     v[SW_RQKEY] || v[SW_CMP] || v[SW_SWAP]) &&
	    sendwr_shortcuts(&wr, v, &ah))
		return -1;
	if (next == Py_None)
		next = NULL;
	if (next && (!fresh || !PyObject_TypeCheck(next, pv.SendWR)) &&
	    wr_check_next((PyObject *)self, &send_kind, next))
		return -1;
	/* no Python code runs from here on */
	if (sg_collect("SendWR", v[SW_SG], &num_sge, &items, &none, one))
		return -1;
	/* as upstream: only these opcodes may carry no data */
	if ((num_sge < 1 || none) && opcode != IBV_WR_LOCAL_INV &&
	    opcode != IBV_WR_BIND_MW && opcode != IBV_WR_SEND_WITH_INV) {
		pv_raise_user("A WR needs at least one SGE");
		return -1;
	}
	if (none && num_sge) {
		PyErr_Format(PyExc_TypeError,
			     "SendWR(): num_sge is %d but sg is None", num_sge);
		return -1;
	}
	wr.sg_list = self->wr.sg_list;
	if (sg_store(&wr.sg_list, self->sge_inline, items, num_sge))
		return -1;
	wr.num_sge = num_sge;
	self->wr = wr;
	self->sg_cap = num_sge;
	wr_link((PyObject *)self, &send_kind, next);
	if (ah || self->ah)
		sendwr_set_ah(self, ah);
	return 0;
}

static PyObject *sendwr_vectorcall(PyObject *type, PyObject *const *args,
				   size_t nargsf, PyObject *kwnames)
{
	PyObject *v[WR_MAX_PARAMS], *self;

	if (sig_parse_vc(&send_sig, args, PyVectorcall_NARGS(nargsf), kwnames,
			 v))
		return NULL;
	self = wr_alloc((PyTypeObject *)type, pv.SendWR,
			sizeof(struct pv_send_wr));
	if (!self)
		return NULL;
	if (sendwr_fill((struct pv_send_wr *)self, v, 1)) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

static PyObject *sendwr_tp_new(PyTypeObject *tp, PyObject *a, PyObject *k)
{
	return wr_alloc(tp, pv.SendWR, sizeof(struct pv_send_wr));
}

static int sendwr_init(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *v[WR_MAX_PARAMS];

	if (sig_parse_tuple(&send_sig, args, kw, v))
		return -1;
	return sendwr_fill((struct pv_send_wr *)self, v, 0);
}

static int sendwr_traverse(PyObject *self, visitproc visit, void *arg)
{
	struct pv_send_wr *wr = (struct pv_send_wr *)self;

	Py_VISIT(Py_TYPE(self));
	Py_VISIT(wr->next_wr);
	Py_VISIT(wr->ah);
	Py_VISIT(wr->bind);
	return 0;
}

static void sendwr_dealloc(PyObject *self)
{
	wr_dealloc(self, &send_kind, sendwr_dealloc);
}

int pv_send_wr_check(struct pv_send_wr *wr, enum ibv_qp_type qpt)
{
	int i;

	for (i = 0; wr; wr = (struct pv_send_wr *)wr->next_wr, i++) {
		if (wr->ah && wr->ah->obj.closed) {
			pv_raise_user("SendWR %d of the list uses an AH that "
				      "is closed", i);
			return -1;
		}
		if (qpt == IBV_QPT_UD && !wr->ah) {
			pv_raise_user("SendWR %d of the list has no address: "
				      "call set_wr_ud() for a UD QP", i);
			return -1;
		}
		if (wr->wr.opcode == IBV_WR_BIND_MW && !wr->wr.bind_mw.mw) {
			pv_raise_user("SendWR %d of the list is a BIND_MW "
				      "without a memory window", i);
			return -1;
		}
		if (wr->wr.opcode == IBV_WR_BIND_MW && wr->bind) {
			PyObject *mw = PyTuple_GET_ITEM(wr->bind, 0);
			struct ibv_mw_bind_info bi;

			/* never hand a freed MW or MR to the provider */
			if (PV_OBJ(mw)->closed) {
				pv_raise_user("SendWR %d of the list binds a "
					      "closed MW", i);
				return -1;
			}
			if (pv_mw_bind_info_get(PyTuple_GET_ITEM(wr->bind, 1),
						&bi))
				return -1;
		}
	}
	return 0;
}

int pv_send_wr_copy(struct pv_send_wr *dst, const struct pv_send_wr *src)
{
	if (dst == src)
		return 0;
	if (wr_copy((PyObject *)dst, (PyObject *)src, &send_kind))
		return -1;
	if (src->ah || dst->ah)
		sendwr_set_ah(dst, (PyObject *)src->ah);
	Py_XINCREF(src->bind);
	Py_XSETREF(dst->bind, src->bind);
	return 0;
}

int pv_recv_wr_copy(struct pv_recv_wr *dst, const struct pv_recv_wr *src)
{
	return wr_copy((PyObject *)dst, (PyObject *)src, &recv_kind);
}

static PyObject *sendwr_get_opcode(PyObject *obj, void *closure)
{
	return PyLong_FromUnsignedLong(((struct pv_send_wr *)obj)->wr.opcode);
}

static int sendwr_set_opcode(PyObject *obj, PyObject *val, void *closure)
{
	uint32_t op = 0;

	if (!val) {
		PyErr_SetString(PyExc_AttributeError, "cannot delete opcode");
		return -1;
	}
	if (wr_u32(val, &op, "opcode"))
		return -1;
	((struct pv_send_wr *)obj)->wr.opcode = op;
	return 0;
}

static PyObject *sendwr_get_ah(PyObject *obj, void *closure)
{
	PyObject *ah = (PyObject *)((struct pv_send_wr *)obj)->ah;

	return Py_NewRef(ah ? ah : Py_None);
}

static PyObject *sendwr_set_wr_ud(PyObject *obj, PyObject *const *args,
				  Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_send_wr *self = (struct pv_send_wr *)obj;
	uint32_t qpn = 0, qkey = 0;
	PyObject *v[3];

	if (sig_parse_vc(&ud_sig, args, nargs, kwnames, v) ||
	    check_ah(v[0]) || wr_u32(v[1], &qpn, "rqpn") ||
	    wr_u32(v[2], &qkey, "rqkey"))
		return NULL;
	memset(&self->wr.wr, 0, sizeof(self->wr.wr));
	self->wr.wr.ud.ah = ((struct pv_ah *)v[0])->ah;
	self->wr.wr.ud.remote_qpn = qpn;
	self->wr.wr.ud.remote_qkey = qkey;
	sendwr_set_ah(self, v[0]);
	Py_RETURN_NONE;
}

static PyObject *sendwr_set_wr_rdma(PyObject *obj, PyObject *const *args,
				    Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_send_wr *self = (struct pv_send_wr *)obj;
	uint64_t addr = 0;
	uint32_t rkey = 0;
	PyObject *v[2];

	if (sig_parse_vc(&rdma_sig, args, nargs, kwnames, v) ||
	    wr_u32(v[0], &rkey, "rkey") ||
	    wr_u64(v[1], UINT64_MAX, &addr, "addr"))
		return NULL;
	/* the union no longer holds an AH */
	if (self->ah)
		sendwr_set_ah(self, NULL);
	memset(&self->wr.wr, 0, sizeof(self->wr.wr));
	self->wr.wr.rdma.remote_addr = addr;
	self->wr.wr.rdma.rkey = rkey;
	Py_RETURN_NONE;
}

static PyObject *sendwr_set_wr_atomic(PyObject *obj, PyObject *const *args,
				      Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_send_wr *self = (struct pv_send_wr *)obj;
	uint64_t addr = 0, cmp = 0, swap = 0;
	uint32_t rkey = 0;
	PyObject *v[4];

	if (sig_parse_vc(&atomic_sig, args, nargs, kwnames, v) ||
	    wr_u32(v[0], &rkey, "rkey") ||
	    wr_u64(v[1], UINT64_MAX, &addr, "addr") ||
	    wr_u64(v[2], UINT64_MAX, &cmp, "compare_add") ||
	    wr_u64(v[3], UINT64_MAX, &swap, "swap"))
		return NULL;
	if (self->ah)
		sendwr_set_ah(self, NULL);
	memset(&self->wr.wr, 0, sizeof(self->wr.wr));
	self->wr.wr.atomic.remote_addr = addr;
	self->wr.wr.atomic.rkey = rkey;
	self->wr.wr.atomic.compare_add = cmp;
	self->wr.wr.atomic.swap = swap;
	Py_RETURN_NONE;
}

static PyObject *sendwr_set_qp_type_xrc(PyObject *obj, PyObject *val)
{
	uint32_t srqn = 0;

	if (wr_u32(val, &srqn, "remote_srqn"))
		return NULL;
	((struct pv_send_wr *)obj)->wr.qp_type.xrc.remote_srqn = srqn;
	Py_RETURN_NONE;
}

static PyObject *sendwr_set_bind_wr(PyObject *obj, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = { "mw", "bind_info", NULL };
	struct pv_send_wr *self = (struct pv_send_wr *)obj;
	struct ibv_mw_bind_info bi;
	PyObject *mw, *info, *keep;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:set_bind_wr", kwlist,
					 &mw, &info))
		return NULL;
	if (!PyObject_TypeCheck(mw, pv.MW))
		return PyErr_Format(PyExc_TypeError,
				    "mw must be an MW, not %.100s",
				    Py_TYPE(mw)->tp_name);
	if (pv_check_open(PV_OBJ(mw)) || pv_mw_bind_info_get(info, &bi))
		return NULL;
	keep = PyTuple_Pack(2, mw, info);
	if (!keep)
		return NULL;
	Py_XSETREF(self->bind, keep);
	self->wr.bind_mw.mw = ((struct pv_mw *)mw)->mw;
	/* a type 2 bind must give the window a new rkey */
	self->wr.bind_mw.rkey = ibv_inc_rkey(((struct pv_mw *)mw)->mw->rkey);
	self->wr.bind_mw.bind_info = bi;
	Py_RETURN_NONE;
}

#define SW_GETTER(name, expr)                                           \
	static PyObject *sendwr_get_##name(PyObject *obj, void *c)     \
	{                                                               \
		struct pv_send_wr *self = (struct pv_send_wr *)obj;     \
		return PyLong_FromUnsignedLongLong(expr);               \
	}
SW_GETTER(rkey, self->wr.bind_mw.rkey)
SW_GETTER(rdma_remote_addr, self->wr.wr.rdma.remote_addr)
SW_GETTER(rdma_rkey, self->wr.wr.rdma.rkey)
SW_GETTER(atomic_remote_addr, self->wr.wr.atomic.remote_addr)
SW_GETTER(atomic_rkey, self->wr.wr.atomic.rkey)
SW_GETTER(compare_add, self->wr.wr.atomic.compare_add)
SW_GETTER(swap, self->wr.wr.atomic.swap)
SW_GETTER(remote_qpn, self->ah ? self->wr.wr.ud.remote_qpn : 0)
SW_GETTER(remote_qkey, self->ah ? self->wr.wr.ud.remote_qkey : 0)
SW_GETTER(remote_srqn, self->wr.qp_type.xrc.remote_srqn)

static const struct pv_field sendwr_fields[] = {
	PV_FIELD(struct pv_send_wr, wr.wr_id, "wr_id"),
	PV_FIELD(struct pv_send_wr, wr.send_flags, "send_flags"),
	PV_FIELD(struct pv_send_wr, wr.imm_data, "imm_data"),
	PV_FIELD_END
};

#define SW_RO(name, doc) { #name, sendwr_get_##name, NULL, doc, NULL }

static const PyGetSetDef sendwr_extra[] = {
	{ "opcode", sendwr_get_opcode, sendwr_set_opcode,
	  "The operation (IBV_WR_*).", NULL },
	WR_GETSET(send_kind, "SendWR"),
	{ "ah", sendwr_get_ah, NULL, "The AH given to set_wr_ud(), or None.",
	  NULL },
	SW_RO(rkey, "The new rkey of a memory window bind (bind_mw.rkey)."),
	SW_RO(rdma_remote_addr, "Remote address of an RDMA operation."),
	SW_RO(rdma_rkey, "Remote key of an RDMA operation."),
	SW_RO(atomic_remote_addr, "Remote address of an atomic operation."),
	SW_RO(atomic_rkey, "Remote key of an atomic operation."),
	SW_RO(compare_add, "Compare (CMP_AND_SWP) or add (FETCH_AND_ADD) "
	      "operand."),
	SW_RO(swap, "Swap operand of an atomic compare and swap."),
	SW_RO(remote_qpn, "Remote QP number of a UD send (0 without an AH)."),
	SW_RO(remote_qkey, "Remote Q_Key of a UD send (0 without an AH)."),
	SW_RO(remote_srqn, "Remote XRC SRQ number."),
	{ NULL }
};

static PyMethodDef sendwr_methods[] = {
	{ "set_wr_ud", (PyCFunction)(void (*)(void))sendwr_set_wr_ud,
	  METH_FASTCALL | METH_KEYWORDS,
	  "set_wr_ud($self, ah, rqpn, rqkey)\n--\n\n"
	  "Address a UD send: the AH (held by the WR), the remote QP number "
	  "and\nQ_Key." },
	{ "set_wr_rdma", (PyCFunction)(void (*)(void))sendwr_set_wr_rdma,
	  METH_FASTCALL | METH_KEYWORDS,
	  "set_wr_rdma($self, rkey, addr)\n--\n\n"
	  "Remote key and address of an RDMA read or write." },
	{ "set_wr_atomic", (PyCFunction)(void (*)(void))sendwr_set_wr_atomic,
	  METH_FASTCALL | METH_KEYWORDS,
	  "set_wr_atomic($self, rkey, addr, compare_add, swap=0)\n--\n\n"
	  "Remote key, address and operands of an atomic operation." },
	{ "set_qp_type_xrc", sendwr_set_qp_type_xrc, METH_O,
	  "set_qp_type_xrc($self, remote_srqn, /)\n--\n\n"
	  "The remote XRC SRQ number that receives this send." },
	{ "set_bind_wr", (PyCFunction)(void (*)(void))sendwr_set_bind_wr,
	  METH_VARARGS | METH_KEYWORDS,
	  "set_bind_wr($self, mw, bind_info)\n--\n\n"
	  "Bind a memory window (not implemented yet)." },
	WR_CM_METHODS,
	{ NULL }
};

static PyType_Slot sendwr_slots[] = {
	{ Py_tp_doc, "SendWR(wr_id=0, opcode=IBV_WR_SEND, num_sge=0, "
		     "imm_data=0, sg=None, send_flags=IBV_SEND_SIGNALED, "
		     "next_wr=None, *, remote_addr=None, rkey=None, ah=None, "
		     "remote_qpn=None, remote_qkey=None, compare_add=None, "
		     "swap=None)\n--\n\n"
		     "A send work request (struct ibv_send_wr).  sg: a list of "
		     "SGEs, copied in;\nnum_sge of them are used (all of them "
		     "when num_sge is not given).  A WR\nneeds at least one "
		     "SGE "
		     "unless its opcode is LOCAL_INV, BIND_MW or\n"
		     "SEND_WITH_INV.  imm_data is stored as given (network "
		     "order is the\ncaller's business, as upstream).\n\n"
		     "Keyword shortcuts (pyverbs-c): ah=, remote_qpn=, "
		     "remote_qkey= do\nset_wr_ud(); compare_add=, swap= with "
		     "remote_addr=, rkey= do\nset_wr_atomic(); remote_addr=, "
		     "rkey= alone do set_wr_rdma()." },
	{ Py_tp_new, sendwr_tp_new },
	{ Py_tp_init, sendwr_init },
	{ Py_tp_dealloc, sendwr_dealloc },
	{ Py_tp_traverse, sendwr_traverse },
	{ Py_tp_clear, sendwr_clear },
	{ Py_tp_methods, sendwr_methods },
	{ Py_tp_getset, NULL },
	{ 0, NULL }
};

static PyType_Spec sendwr_spec = {
	.name = "pyverbs.wr.SendWR",
	.basicsize = sizeof(struct pv_send_wr),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = sendwr_slots,
};

/* ------------------------------------------------------------------ */
/* Types registration                                                  */
/* ------------------------------------------------------------------ */

static int add_wr_type(PyObject *m, PyType_Spec *spec,
		       const struct pv_field *fields,
		       const PyGetSetDef *extra, PyTypeObject **slot,
		       vectorcallfunc vc)
{
	if (pv_add_data_type(m, spec, pv.PyverbsObject, fields, NULL, extra,
			     slot))
		return -1;
	/*
	 * The constructor of the exact type (subclasses do not inherit
	 * tp_vectorcall and go through tp_new/tp_init).
	 */
	(*slot)->tp_vectorcall = vc;
	return 0;
}

int pv_wr_init_types(PyObject *m)
{
	struct wr_sig *sigs[] = { &sge_sig, &sge_read_sig, &recv_sig,
				  &send_sig, &ud_sig, &rdma_sig, &atomic_sig,
				  &ops_sig };
	size_t i;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sig_intern(sigs[i]))
			return -1;
	if (add_wr_type(m, &sge_spec, sge_fields, NULL, &pv.SGE,
			sge_vectorcall) ||
	    add_wr_type(m, &recvwr_spec, recvwr_fields, recvwr_extra,
			&pv.RecvWR, recvwr_vectorcall) ||
	    add_wr_type(m, &sendwr_spec, sendwr_fields, sendwr_extra,
			&pv.SendWR, sendwr_vectorcall) ||
	    add_wr_type(m, &opswr_spec, opswr_fields, opswr_extra,
			&pv.OpsWr, NULL))
		return -1;
	return 0;
}
