/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The use guard: every method, getter, setter and __init__ of every handle
 * type (a subtype of PyverbsCM) runs inside a use of its object and of the
 * handle objects among its arguments (object.c, "In use"), so that Python
 * code run by the call (an argument's __index__, a __del__ run by the
 * collector, another thread taking the GIL) cannot free a handle the call
 * is using.
 *
 * It is applied to the type spec when the type is made (pv_guard_spec(),
 * called by pv_add_type()), not written into each method: a method added
 * later is guarded without a word.  C methods get no closure, so each
 * guarded method is reached through a trampoline of its own from a fixed
 * table, which calls the original with the original's convention; getters
 * and setters carry their record in the closure.  The methods, getters and
 * setters are still the interpreter's own descriptors (inspect, help(),
 * the interpreter's call specialisations see nothing new).
 *
 * Left out:
 * - close(), __enter__, __exit__ (close() is the one call that may end
 *   the object's life), static and class methods (no object);
 * - the data path of the table below: those methods take no use and keep
 *   to the rule that replaces it (object.c): every argument converted
 *   before the open check, no Python code from the check to the last use
 *   of a handle.  A use costs ~60 instructions, which the instruction
 *   table's rows (bench/INSTR.md) do not have to spare.
 *
 * __init__ of an object that was opened once is refused here: C structs
 * that cached a handle of the object (an AH in a SendWR) then never meet
 * a second handle behind the same open object.
 */
#include "guard.h"
#include "errors.h"
#include "gate.h"
#include "init.h"
#include "object.h"
#include "state.h"

/* The data path, per type: methods and attributes left unguarded. */
static const struct {
	const char *type;    /* the spec's name */
	const char *members; /* space-separated, with spaces around */
} direct[] = {
	{ "pyverbs.cq.CQ", " poll req_notify " },
	{ "pyverbs.cq.CQEX",
	  " start_poll poll_next end_poll req_notify "
	  "read_opcode read_vendor_err read_byte_len read_imm_data "
	  "read_qp_num read_src_qp read_wc_flags read_slid read_sl "
	  "read_dlid_path_bits read_timestamp read_cvlan read_flow_tag "
	  "read_tm_info read_completion_wallclock_ns status wr_id " },
	{ "pyverbs.qp.QP", " post_send post_recv " },
	{ "pyverbs.qp.QPEx",
	  " post_send post_recv wr_start wr_complete "
	  "wr_abort wr_send wr_send_imm wr_send_inv wr_rdma_read "
	  "wr_rdma_write wr_rdma_write_imm wr_atomic_cmp_swp "
	  "wr_atomic_fetch_add wr_local_inv wr_set_ud_addr wr_set_xrc_srqn "
	  "wr_set_sge wr_id wr_flags " },
	{ "pyverbs.srq.SRQ", " post_recv " },
	{ "pyverbs.wq.WQ", " post_recv " },
	{ "pyverbs.mr.MR", " read write lkey rkey buf length " },
};

/* Methods that are never guarded, whatever the type. */
static const char never[] = " close __enter__ __exit__ ";

static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name))) {
		if (p > list && p[-1] == ' ' && p[n] == ' ')
			return 1;
		p += n;
	}
	return 0;
}

static int is_direct(const char *type, const char *name)
{
	size_t i;

	if (listed(never, name))
		return 1;
#ifdef Py_GIL_DISABLED
	/* without the GIL, nothing keeps other threads out between an open
	 * check and a handle's use: the data path takes its use too */
	return 0;
#endif
	for (i = 0; i < sizeof(direct) / sizeof(direct[0]); i++)
		if (!strcmp(direct[i].type, type) &&
		    listed(direct[i].members, name))
			return 1;
	return 0;
}

/* ---- the uses of one call ---- */

#define GUARD_USES 8 /* self and the first 7 handle arguments */

struct guard_uses {
	struct pv_use u[GUARD_USES];
	int n;
};

/* o may be a pyverbs object: every pyverbs class is a heap type, and the
 * usual arguments (ints, bytes, lists, None) are static types, which this
 * tells without PyType_IsSubtype's walk of their MRO. */
static inline int maybe_ours(PyObject *o)
{
	return PyType_HasFeature(Py_TYPE(o), Py_TPFLAGS_HEAPTYPE);
}

static void use_one(struct guard_uses *g, PyObject *o)
{
	if (g->n < GUARD_USES && maybe_ours(o) &&
	    PyObject_TypeCheck(o, pv.PyverbsCM))
		pv_use_begin(&g->u[g->n++], PV_OBJ(o));
}

static void uses_begin(struct guard_uses *g, PyObject *self,
		       PyObject *const *args, Py_ssize_t nargs,
		       PyObject *kwnames)
{
	Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;

	g->n = 0;
	use_one(g, self);
	for (i = 0; i < nargs + nkw; i++)
		use_one(g, args[i]);
}

static void uses_tuple_begin(struct guard_uses *g, PyObject *self,
			     PyObject *args, PyObject *kw)
{
	Py_ssize_t i, pos = 0;
	PyObject *k, *v;

	g->n = 0;
	use_one(g, self);
	for (i = 0; args && i < PyTuple_GET_SIZE(args); i++)
		use_one(g, PyTuple_GET_ITEM(args, i));
	while (kw && PyDict_Next(kw, &pos, &k, &v))
		use_one(g, v);
}

static void uses_end(struct guard_uses *g)
{
	while (g->n)
		pv_use_end(&g->u[--g->n]);
}

/* ---- methods ---- */

struct guard_meth {
	PyCFunction meth; /* the original */
	int flags;	  /* its calling convention */
	const char *type; /* short type name, for messages */
	const char *name;
	int handle; /* of a handle type (uses); else a data type's (no GIL) */
	int wrs;    /* a work request's, or a post (no GIL, below) */
	int post;   /* a post (no GIL: counted in pv_posters) */
};

/*
 * Without the GIL, a call also holds the critical section of its object
 * and of the first pyverbs data object among its arguments (a SendWR
 * posted, a QPAttr given to modify(), the AHAttr set into a QPAttr): two
 * threads never run calls of one object at once, nor read a data object
 * while another sets it.  Like the GIL, a critical section is let go while
 * its thread blocks.
 */
#ifdef Py_GIL_DISABLED
static PyObject *data_partner(PyObject *self, PyObject *const *args,
			      Py_ssize_t n)
{
	Py_ssize_t i;

	for (i = 0; i < n; i++)
		if (args[i] != self && maybe_ours(args[i]) &&
		    PyObject_TypeCheck(args[i], pv.PyverbsObject) &&
		    !PyObject_TypeCheck(args[i], pv.PyverbsCM))
			return args[i];
	return NULL;
}
/* one section: two objects, or self alone (the same object twice) */
#define CS_BEGIN(self, other) \
	Py_BEGIN_CRITICAL_SECTION2(self, (other) ? (other) : (self));
#define CS_END Py_END_CRITICAL_SECTION2()

/*
 * Work requests are read by posts in chains and lists, many objects at
 * once: the calls of SendWR, RecvWR, SGE and OpsWr objects and the posts
 * take one critical section for them all, wr_section's.  A post of plain
 * WRs copies them and lets it go while the provider posts the copy (the
 * thread detaches there: post.c's post_released), so posts of several
 * threads still reach their providers side by side.
 */
static PyObject *wr_section;
static const char wr_types[] = " pyverbs.wr.SendWR pyverbs.wr.RecvWR "
			       "pyverbs.wr.SGE pyverbs.srq.OpsWr ";
static const char wr_posts[] = " post_send post_recv post_srq_ops ";
#endif

static int is_post(const char *name)
{
#ifdef Py_GIL_DISABLED
	return name && listed(wr_posts, name);
#else
	(void)name;
	return 0;
#endif
}

static int takes_wrs(const char *type, const char *name)
{
#ifdef Py_GIL_DISABLED
	return listed(wr_types, type) || is_post(name);
#else
	(void)type;
	(void)name;
	return 0;
#endif
}

#ifdef Py_GIL_DISABLED
/* the second object of a call's section: the WRs', or its data object */
static PyObject *section_partner(int wrs, PyObject *self, PyObject *const *args,
				 Py_ssize_t n)
{
	return wrs ? wr_section : data_partner(self, args, n);
}
#endif

/* Call the original method by its own convention. */
static PyObject *call_orig(const struct guard_meth *g, PyObject *self,
			   PyObject *const *args, Py_ssize_t nargs,
			   PyObject *kwnames)
{
	Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
	PyObject *tuple, *dict = NULL, *r;

	switch (g->flags & (METH_VARARGS | METH_FASTCALL | METH_NOARGS |
			    METH_O | METH_KEYWORDS)) {
	case METH_FASTCALL | METH_KEYWORDS:
		return ((_PyCFunctionFastWithKeywords)(void (*)(
			void))g->meth)(self, args, nargs, kwnames);
	case METH_NOARGS:
		if (nargs || nkw)
			return PyErr_Format(PyExc_TypeError,
					    "%s.%s() takes no arguments "
					    "(%zd given)",
					    g->type, g->name, nargs + nkw);
		return g->meth(self, NULL);
	case METH_O:
		if (nargs != 1 || nkw)
			return PyErr_Format(PyExc_TypeError,
					    "%s.%s() takes exactly one "
					    "argument (%zd given)",
					    g->type, g->name, nargs + nkw);
		return g->meth(self, args[0]);
	case METH_FASTCALL:
		if (nkw)
			return PyErr_Format(PyExc_TypeError,
					    "%s.%s() takes no keyword "
					    "arguments",
					    g->type, g->name);
		return ((_PyCFunctionFast)(void (*)(void))g->meth)(self, args,
								   nargs);
	case METH_VARARGS:
	case METH_VARARGS | METH_KEYWORDS:
		if (nkw && !(g->flags & METH_KEYWORDS))
			return PyErr_Format(PyExc_TypeError,
					    "%s.%s() takes no keyword "
					    "arguments",
					    g->type, g->name);
		tuple = PyTuple_New(nargs);
		if (!tuple)
			return NULL;
		for (i = 0; i < nargs; i++)
			PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
		if (nkw) {
			dict = PyDict_New();
			for (i = 0; dict && i < nkw; i++)
				if (PyDict_SetItem(dict,
						   PyTuple_GET_ITEM(kwnames, i),
						   args[nargs + i]))
					Py_CLEAR(dict);
			if (!dict) {
				Py_DECREF(tuple);
				return NULL;
			}
		}
		if (g->flags & METH_KEYWORDS)
			r = ((PyCFunctionWithKeywords)(void (*)(
				void))g->meth)(self, tuple, dict);
		else
			r = g->meth(self, tuple);
		Py_DECREF(tuple);
		Py_XDECREF(dict);
		return r;
	}
	return PyErr_Format(PyExc_SystemError, "%s.%s(): bad call flags",
			    g->type, g->name);
}

#define GUARD_METHODS 600
#define GUARD_INITS 200
#define GUARD_SPECS 400

static struct guard_meth meths[GUARD_METHODS];
static int nmeths;

static PyObject *guarded_call(const struct guard_meth *g, PyObject *self,
			      PyObject *const *args, Py_ssize_t nargsf,
			      PyObject *kwnames)
{
	Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
	struct guard_uses uses;
	PyObject *r;

	uses.n = 0;
	if (g->handle)
		uses_begin(&uses, self, args, nargs, kwnames);
#ifdef Py_GIL_DISABLED
	{
		Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;

		PyObject *other =
			section_partner(g->wrs, self, args, nargs + nkw);

		if (g->post)
			pv_posters_add(1);
		CS_BEGIN(self, other)
		r = call_orig(g, self, args, nargs, kwnames);
		CS_END
		if (g->post)
			pv_posters_add(-1);
	}
#else
	r = call_orig(g, self, args, nargs, kwnames);
#endif
	uses_end(&uses);
	return r;
}

/* ---- __init__ ---- */

struct guard_init {
	initproc init;
	const char *type;
};

static struct guard_init inits[GUARD_INITS];
static int ninits;

static int guarded_init(const struct guard_init *g, PyObject *self,
			PyObject *args, PyObject *kw)
{
	struct pv_obj *o = PV_OBJ(self);
	unsigned char before = o->opened_once;
	struct guard_uses uses;
	int r;

	/* (types that open in tp_new, as the mlx5 WQE segments, may be
	 * initialised again: no handle of theirs is cached elsewhere) */
	if (o->init_opened) {
		pv_raise_user("%s is already initialised: an object that was "
			      "opened cannot be initialised again, even once "
			      "closed",
			      g->type);
		return -1;
	}
	uses_tuple_begin(&uses, self, args, kw);
	o->opened_once = 0;
#ifdef Py_GIL_DISABLED
	{
		PyObject *other =
			args ? data_partner(self, &PyTuple_GET_ITEM(args, 0),
					    PyTuple_GET_SIZE(args)) :
			       NULL;

		CS_BEGIN(self, other)
		r = g->init(self, args, kw);
		CS_END
	}
#else
	r = g->init(self, args, kw);
#endif
	if (o->opened_once)
		o->init_opened = 1;
	o->opened_once |= before;
	uses_end(&uses);
	return r;
}

/* ---- the trampolines: one per slot of meths[] and inits[] ---- */

/* clang-format off */
#define TM(i)                                                            \
	static PyObject *tm_##i(PyObject *s, PyObject *const *a,         \
				Py_ssize_t n, PyObject *k)               \
	{                                                                \
		return guarded_call(&meths[i - 1000], s, a, n, k);       \
	}
#define TI(i)                                                            \
	static int ti_##i(PyObject *s, PyObject *a, PyObject *k)         \
	{                                                                \
		return guarded_init(&inits[i - 1000], s, a, k);          \
	}
#define X10(F, p)                                                        \
	F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7)  \
	F(p##8) F(p##9)
#define X100(F, p)                                                       \
	X10(F, p##0) X10(F, p##1) X10(F, p##2) X10(F, p##3)              \
	X10(F, p##4) X10(F, p##5) X10(F, p##6) X10(F, p##7)              \
	X10(F, p##8) X10(F, p##9)

X100(TM, 10) X100(TM, 11) X100(TM, 12) X100(TM, 13) X100(TM, 14)
X100(TM, 15)
X100(TI, 10) X100(TI, 11)

#define PM(i) (PyCFunction)(void (*)(void))tm_##i,
#define PI(i) ti_##i,
static const PyCFunction tm_table[GUARD_METHODS] = {
	X100(PM, 10) X100(PM, 11) X100(PM, 12) X100(PM, 13) X100(PM, 14)
	X100(PM, 15)
};
static const initproc ti_table[GUARD_INITS] = {
	X100(PI, 10) X100(PI, 11)
};
/* clang-format on */

/* ---- getters and setters ---- */

struct guard_getset {
	getter get;
	setter set;
	void *closure;
	int handle; /* as struct guard_meth's */
	int wrs;
};

static PyObject *guarded_get(PyObject *self, void *closure)
{
	const struct guard_getset *g = closure;
	struct pv_use u;
	PyObject *r;

	if (g->handle)
		pv_use_begin(&u, PV_OBJ(self));
#ifdef Py_GIL_DISABLED
	{
		PyObject *other = section_partner(g->wrs, self, NULL, 0);

		CS_BEGIN(self, other)
		r = g->get(self, g->closure);
		CS_END
	}
#else
	r = g->get(self, g->closure);
#endif
	if (g->handle)
		pv_use_end(&u);
	return r;
}

static int guarded_set(PyObject *self, PyObject *value, void *closure)
{
	const struct guard_getset *g = closure;
	struct guard_uses uses;
	int r;

	uses.n = 0;
	if (g->handle) {
		use_one(&uses, self);
		if (value)
			use_one(&uses, value);
	}
#ifdef Py_GIL_DISABLED
	{
		PyObject *other =
			section_partner(g->wrs, self, &value, value ? 1 : 0);

		CS_BEGIN(self, other)
		r = g->set(self, value, g->closure);
		CS_END
	}
#else
	r = g->set(self, value, g->closure);
#endif
	uses_end(&uses);
	return r;
}

/* ---- applying it to a spec ---- */

static const char *short_name(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot ? dot + 1 : name;
}

static PyMethodDef *guard_methods(const PyType_Spec *spec, PyMethodDef *m,
				  int handle)
{
	PyMethodDef *out;
	size_t n, i;

	for (n = 0; m[n].ml_name; n++)
		;
	out = PyMem_Calloc(n + 1, sizeof(*out));
	if (!out)
		return (PyMethodDef *)PyErr_NoMemory();
	for (i = 0; i < n; i++) {
		struct guard_meth *g;

		out[i] = m[i];
		if ((m[i].ml_flags & (METH_CLASS | METH_STATIC)) ||
		    is_direct(spec->name, m[i].ml_name))
			continue;
		if (nmeths == GUARD_METHODS) {
			PyErr_SetString(PyExc_ImportError,
					"pyverbs: more "
					"methods than guard.c's trampolines");
			PyMem_Free(out);
			return NULL;
		}
		g = &meths[nmeths];
		g->meth = m[i].ml_meth;
		g->flags = m[i].ml_flags;
		g->type = short_name(spec->name);
		g->name = m[i].ml_name;
		g->handle = handle;
		g->wrs = takes_wrs(spec->name, m[i].ml_name);
		g->post = is_post(m[i].ml_name);
		out[i].ml_meth = tm_table[nmeths++];
		out[i].ml_flags = METH_FASTCALL | METH_KEYWORDS;
	}
	return out;
}

static PyGetSetDef *guard_getset(const PyType_Spec *spec, PyGetSetDef *d,
				 int handle)
{
	struct guard_getset *recs;
	PyGetSetDef *out;
	size_t n, i;

	for (n = 0; d[n].name; n++)
		;
	out = PyMem_Calloc(n + 1, sizeof(*out));
	recs = PyMem_Calloc(n ? n : 1, sizeof(*recs));
	if (!out || !recs) {
		PyMem_Free(out);
		PyMem_Free(recs);
		return (PyGetSetDef *)PyErr_NoMemory();
	}
	for (i = 0; i < n; i++) {
		out[i] = d[i];
		if (is_direct(spec->name, d[i].name))
			continue;
		recs[i].get = d[i].get;
		recs[i].set = d[i].set;
		recs[i].closure = d[i].closure;
		recs[i].handle = handle;
		recs[i].wrs = takes_wrs(spec->name, NULL);
		out[i].get = d[i].get ? guarded_get : NULL;
		out[i].set = d[i].set ? guarded_set : NULL;
		out[i].closure = &recs[i];
	}
	return out;
}

int pv_guard_spec(PyType_Spec *spec, PyTypeObject *base)
{
	static const PyType_Spec *done[GUARD_SPECS];
	static int ndone;
	PyType_Slot *s;
	int i, handle = base && pv.PyverbsCM &&
			PyType_IsSubtype(base, pv.PyverbsCM);

#ifdef Py_GIL_DISABLED
	/* data types too: their calls take the critical section */
	if (!pv.PyverbsObject)
		return 0; /* the base types themselves */
#else
	if (!handle)
		return 0; /* not a handle type */
#endif
	for (i = 0; i < ndone; i++)
		if (done[i] == spec)
			return 0; /* a spec made into two types */
	if (ndone == GUARD_SPECS) {
		PyErr_SetString(PyExc_ImportError,
				"pyverbs: more handle types than guard.c "
				"can follow");
		return -1;
	}
	done[ndone++] = spec;
	for (s = spec->slots; s->slot; s++) {
		void *p = NULL;

		switch (s->slot) {
		case Py_tp_methods:
			p = guard_methods(spec, s->pfunc, handle);
			break;
		case Py_tp_getset:
			p = guard_getset(spec, s->pfunc, handle);
			break;
		case Py_tp_init:
			if (!handle)
				continue;
			if (ninits == GUARD_INITS) {
				PyErr_SetString(PyExc_ImportError,
						"pyverbs: more __init__s than "
						"guard.c's trampolines");
				return -1;
			}
			inits[ninits].init = (initproc)s->pfunc;
			inits[ninits].type = short_name(spec->name);
			p = (void *)ti_table[ninits++];
			break;
		default:
			continue;
		}
		if (!p)
			return -1;
		s->pfunc = p;
	}
	return 0;
}

/* _guard_stats(): (guarded methods, guarded __init__s), for the tests. */
static PyObject *guard_stats(PyObject *m, PyObject *unused)
{
	return Py_BuildValue("(ii)", nmeths, ninits);
}

static PyMethodDef guard_functions[] = {
	{ "_guard_stats", guard_stats, METH_NOARGS,
	  "_guard_stats($module, /)\n--\n\n"
	  "(methods, __init__s) wrapped in a use by the guard." },
	{ NULL }
};

int pv_guard_init(PyObject *m)
{
#ifdef Py_GIL_DISABLED
	if (!wr_section && !(wr_section = PyList_New(0)))
		return -1; /* held for ever: its mutex is the section's */
#endif
	pv.prepare_spec = pv_guard_spec;
	return PyModule_AddFunctions(m, guard_functions);
}
