/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Receive side scaling: RwqIndTableInitAttr, RwqIndTable
 * (ibv_create_rwq_ind_table / ibv_destroy_rwq_ind_table) over WQs (wq.c),
 * and RxHashConf (struct ibv_rx_hash_conf, used by QPInitAttrEx for an RSS
 * QP).  An indirection table is a child of its Context and of every WQ of
 * its table (as many parent links as distinct WQs, reserved up front:
 * object.c), and an RSS QP is a child of its table: closing a WQ closes its
 * tables, which close their QPs, first.
 */
#include "rwq_ind_table.h" /* first: Python.h defines _GNU_SOURCE */
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "state.h"
#include "wq.h"

#include <errno.h>

#define WQ(o) ((struct pv_wq *)(o))

/* ------------------------------------------------------------------ */
/* RwqIndTableInitAttr                                                 */
/* ------------------------------------------------------------------ */

/* attr.ind_tbl is only set by RwqIndTable() while it creates the table. */
struct pv_rwq_ind_table_init_attr {
	PyObject_HEAD
	struct ibv_rwq_ind_table_init_attr attr;
	PyObject *wqs; /* list of WQ */
};

#define RIA struct pv_rwq_ind_table_init_attr
static const struct pv_oslot ria_oslots[] = {
	PV_OSLOT_RO(RIA, wqs, "wqs_list",
		    "The WQs of the table (a list of WQ), as given."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(ria, ria_oslots)

static const struct pv_field ria_fields[] = {
	PV_FIELD_RO(RIA, attr.log_ind_tbl_size, "log_ind_tbl_size"),
	PV_FIELD(RIA, attr.comp_mask, "comp_mask"), PV_FIELD_END
};

/* A new list of the items of v, a list or tuple (None: empty); else NULL
 * and TypeError. */
static PyObject *ria_wq_list(PyObject *v)
{
	if (v == Py_None)
		return PyList_New(0);
	if (!PyList_Check(v) && !PyTuple_Check(v)) {
		PyErr_Format(PyExc_TypeError,
			     "wqs_list must be a list of WQ, "
			     "not %.100s",
			     Py_TYPE(v)->tp_name);
		return NULL;
	}
	return PySequence_List(v);
}

/* Is every item of wqs a WQ?  0, or -1 with TypeError. */
static int ria_check_types(PyObject *wqs)
{
	Py_ssize_t i;

	for (i = 0; i < PyList_GET_SIZE(wqs); i++) {
		PyObject *w = PyList_GET_ITEM(wqs, i);

		if (!pv_type_ok(w, pv.WQ)) {
			PyErr_Format(PyExc_TypeError,
				     "wqs_list[%zd] must be a WQ, not %.100s",
				     i, Py_TYPE(w)->tp_name);
			return -1;
		}
	}
	return 0;
}

static int ria_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "log_ind_tbl_size", "wqs_list", "comp_mask",
				  NULL };
	struct pv_rwq_ind_table_init_attr *self = (RIA *)o;
	PyObject *logo = NULL, *wqso = Py_None, *cmo = NULL, *wqs;
	int64_t log = 5;
	uint64_t cm = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO:RwqIndTableInitAttr",
					 kwlist, &logo, &wqso, &cmo))
		return -1;
	if (logo &&
	    pv_positive_i64(logo, "log_ind_tbl_size",
			    "Invalid "
			    "indirection table size. Log size must be > 0",
			    &log))
		return -1;
	if (log > UINT32_MAX) {
		PyErr_Format(PyExc_OverflowError,
			     "log_ind_tbl_size is out of "
			     "range (1..%lu)",
			     (unsigned long)UINT32_MAX);
		return -1;
	}
	wqs = ria_wq_list(wqso);
	if (!wqs)
		return -1;
	if (log < 62 && ((int64_t)1 << log) < PyList_GET_SIZE(wqs)) {
		pv_raise_user("Requested table size (%lld) is smaller than the "
			      "number of wqs (%zd)",
			      (long long)1 << log, PyList_GET_SIZE(wqs));
		Py_DECREF(wqs);
		return -1;
	}
	if (ria_check_types(wqs) ||
	    (cmo && pv_to_u64(cmo, UINT32_MAX, &cm, "comp_mask"))) {
		Py_DECREF(wqs);
		return -1;
	}
	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.log_ind_tbl_size = (uint32_t)log;
	self->attr.comp_mask = (uint32_t)cm;
	Py_XSETREF(self->wqs, wqs);
	return 0;
}

PV_GC_TYPE_SPEC(ria, "pyverbs.wq.RwqIndTableInitAttr",
		struct pv_rwq_ind_table_init_attr,
		"RwqIndTableInitAttr(log_ind_tbl_size=5, wqs_list=None, "
		"comp_mask=0)\n--\n\n"
		"The attributes of an RSS indirection table (struct "
		"ibv_rwq_ind_table_init_attr): 2**log_ind_tbl_size "
		"entries, the WQs of wqs_list (RwqIndTable() needs "
		"exactly that many; a WQ may appear more than once).",
		{ Py_tp_init, ria_init }, PV_OSLOTS_GC_SLOTS(ria),
		{ Py_tp_getset, NULL },
		/* filled by pv_add_data_type() */);

/* ------------------------------------------------------------------ */
/* RwqIndTable                                                         */
/* ------------------------------------------------------------------ */

#define RIT(o) ((struct pv_rwq_ind_table *)(o))

static int rit_destroy(struct pv_obj *o)
{
	struct pv_rwq_ind_table *self = RIT(o);
	int rc;

	if (!self->tbl)
		return 0;
	rc = ibv_destroy_rwq_ind_table(self->tbl); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_rwq_ind_table",
			    "Failed to dealloc RWQ IND TBL");
		return -1;
	}
	self->tbl = NULL;
	return 0;
}

/*
 * Check the WQs of the table: WQ objects, open, of Context ctx, exactly
 * 2**log of them (libibverbs reads that many entries).  Marks each distinct
 * WQ (pv_wq.mark) and returns how many there are, or -1 with an exception
 * and no mark left.
 */
static Py_ssize_t rit_check_wqs(PyObject *wqs, uint32_t log, struct pv_obj *ctx)
{
	Py_ssize_t n = PyList_GET_SIZE(wqs), i, distinct = 0;

	if (log >= 31 || ((Py_ssize_t)1 << log) != n) {
		pv_raise_user("The indirection table has 2**%u entries but "
			      "wqs_list has %zd WQs",
			      (unsigned int)log, n);
		return -1;
	}
	if (ria_check_types(wqs))
		return -1;
	for (i = 0; i < n; i++) {
		PyObject *w = PyList_GET_ITEM(wqs, i);

		if (pv_check_open(PV_OBJ(w)))
			goto fail;
		if (!pv_obj_descends_from(PV_OBJ(w), ctx)) {
			pv_raise_user("wqs_list[%zd] belongs to another "
				      "Context than the table",
				      i);
			goto fail;
		}
		if (!WQ(w)->mark) {
			WQ(w)->mark = 1;
			distinct++;
		}
	}
	return distinct;
fail:
	while (i-- > 0)
		WQ(PyList_GET_ITEM(wqs, i))->mark = 0;
	return -1;
}

static int rit_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "attr", NULL };
	struct pv_rwq_ind_table *self = RIT(obj);
	struct pv_rwq_ind_table_init_attr *ia;
	PyObject *ctxo, *attro, *wqs;
	struct ibv_wq **tbl;
	struct pv_obj *ctx;
	Py_ssize_t n, i, distinct;
	int err = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!:RwqIndTable", kwlist,
					 pv.Context, &ctxo,
					 pv.RwqIndTableInitAttr, &attro))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("RwqIndTable is already initialised");
		return -1;
	}
	ctx = PV_OBJ(ctxo);
	ia = (struct pv_rwq_ind_table_init_attr *)attro;
	if (pv_check_open(ctx))
		return -1;
	/* A snapshot: the attribute's list is the user's to change. */
	wqs = ia->wqs ? PyList_GetSlice(ia->wqs, 0, PY_SSIZE_T_MAX) :
			PyList_New(0);
	if (!wqs)
		return -1;
	n = PyList_GET_SIZE(wqs);
	/* No Python code runs from here until the marks are cleared. */
	distinct = rit_check_wqs(wqs, ia->attr.log_ind_tbl_size, ctx);
	if (distinct < 0)
		goto fail;
	pv_obj_setup(&self->obj, rit_destroy);
	tbl = PyMem_Malloc(n * sizeof(*tbl));
	if (!tbl || pv_obj_reserve_parents(&self->obj, 1 + distinct)) {
		if (!tbl)
			PyErr_NoMemory();
		PyMem_Free(tbl);
		for (i = 0; i < n; i++)
			WQ(PyList_GET_ITEM(wqs, i))->mark = 0;
		goto fail;
	}
	for (i = 0; i < n; i++)
		tbl[i] = WQ(PyList_GET_ITEM(wqs, i))->wq;
	ia->attr.ind_tbl = tbl;
	self->tbl = ibv_create_rwq_ind_table(((struct pv_context *)ctx)->ctx,
					     &ia->attr); /* NULL + errno */
	if (!self->tbl)
		pv_raise_errno("ibv_create_rwq_ind_table",
			       "Failed to create RwqIndTable");
	ia->attr.ind_tbl = NULL;
	PyMem_Free(tbl);
	/* Link the Context, then each distinct WQ once (clearing marks). */
	if (self->tbl && pv_obj_link(&self->obj, ctx))
		err = 1;
	for (i = 0; i < n; i++) {
		struct pv_wq *w = WQ(PyList_GET_ITEM(wqs, i));

		if (!w->mark)
			continue;
		w->mark = 0;
		if (self->tbl && !err && pv_obj_link(&self->obj, &w->obj))
			err = 1;
	}
	if (!self->tbl)
		goto fail;
	if (err) {
		rit_destroy(&self->obj);
		/* drops the links made */
		pv_close_own(&self->obj);
		goto fail;
	}
	Py_XSETREF(self->wqs, wqs);
	pv_obj_opened(&self->obj);
	return 0;
fail:
	Py_DECREF(wqs);
	return -1;
}

struct pv_rwq_ind_table *pv_rwq_ind_table_arg(PyObject *o, struct pv_obj *ctx)
{
	if (!pv_type_ok(o, pv.RwqIndTable)) {
		PyErr_Format(PyExc_TypeError,
			     "ind_table must be an "
			     "RwqIndTable, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	if (!pv_obj_descends_from(PV_OBJ(o), ctx)) {
		pv_raise_user("The RwqIndTable belongs to another Context than "
			      "the QP");
		return NULL;
	}
	return RIT(o);
}

static PyObject *rit_get_wqs(PyObject *obj, void *c)
{
	return pv_get_slot(RIT(obj)->wqs);
}

static PyObject *rit_get_num(PyObject *obj, void *c)
{
	struct pv_rwq_ind_table *self = RIT(obj);

	if (pv_check_open(&self->obj))
		return NULL;
	return PyLong_FromUnsignedLong(self->tbl->ind_tbl_num);
}

static PyObject *rit_get_tbl(PyObject *obj, void *c)
{
	struct pv_rwq_ind_table *self = RIT(obj);

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->tbl);
}

static int rit_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(RIT(obj)->wqs);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int rit_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(RIT(obj)->wqs);
	return 0;
}

/* add_ref(obj): upstream's; obj a QP (object.h) */
static PyObject *rit_add_ref(PyObject *obj, PyObject *arg)
{
	if (pv_obj_add_ref(PV_OBJ(obj), arg, pv.QP))
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef rit_methods[] = {
	{ "add_ref", rit_add_ref, METH_O,
	  "add_ref($self, obj, /)\n--\n\n"
	  "Have the QP obj (of this table's Context) closed before this "
	  "table.  A QP made with this table already is; PyverbsError for "
	  "another type." },
	{ NULL }
};

static PyGetSetDef rit_getset[] = {
	{ "wqs", rit_get_wqs, NULL,
	  "The WQs of the table, in table order (a list; None if it was "
	  "never created).",
	  NULL },
	{ "ind_tbl_num", rit_get_num, NULL,
	  "The number of the table (ibv_rwq_ind_table.ind_tbl_num).", NULL },
	{ "rwq_ind_table", rit_get_tbl, NULL,
	  "Address of the struct ibv_rwq_ind_table (0 if closed).", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(rit, "pyverbs.wq.RwqIndTable", struct pv_rwq_ind_table,
		"RwqIndTable(ctx, attr)\n--\n\n"
		"An RSS indirection table (ibv_create_rwq_ind_table) of "
		"Context ctx over the WQs of attr (an "
		"RwqIndTableInitAttr).  Closing any of its WQs closes it "
		"(and the QPs that use it) first.",
		{ Py_tp_init, rit_init }, { Py_tp_methods, rit_methods },
		{ Py_tp_getset, rit_getset }, { Py_tp_traverse, rit_traverse },
		{ Py_tp_clear, rit_clear }, );

/* ------------------------------------------------------------------ */
/* RxHashConf                                                          */
/* ------------------------------------------------------------------ */

/*
 * conf.rx_hash_key points into key (bytes) while key is set, else NULL;
 * conf.rx_hash_key_len is the user's, which may differ (upstream lets the
 * two disagree: pv_rx_hash_conf_get() refuses it then).
 */
struct pv_rx_hash_conf {
	PyObject_HEAD
	struct ibv_rx_hash_conf conf;
	PyObject *key; /* bytes or NULL */
};

#define RHC(o) ((struct pv_rx_hash_conf *)(o))

static const struct pv_field rhc_fields[] = {
	PV_FIELD(struct pv_rx_hash_conf, conf.rx_hash_function,
		 "rx_hash_function"),
	PV_FIELD(struct pv_rx_hash_conf, conf.rx_hash_fields_mask,
		 "rx_hash_fields_mask"),
	PV_FIELD_END
};

static const struct pv_field rhc_key_len_field =
	PV_FIELD(struct pv_rx_hash_conf, conf.rx_hash_key_len,
		 "rx_hash_key_len");

/* The setter refuses 0 (upstream); the constructor stores any u8. */
static int rhc_set_key_len(PyObject *o, PyObject *v, void *c)
{
	PyObject *n;
	int64_t x;
	int rc;

	if (pv_refuse_delete(v, "rx_hash_key_len") ||
	    pv_positive_i64(v, "rx_hash_key_len",
			    "Invalid rx_hash_key_len. Must "
			    "be greater then 0",
			    &x))
		return -1;
	/* the value converted once, stored with the field's range check */
	n = PyLong_FromLongLong(x);
	if (!n)
		return -1;
	rc = pv_field_store(o, &rhc_key_len_field, n);
	Py_DECREF(n);
	return rc;
}

/*
 * The key: bytes-like or a sequence of ints in 0..255 (None: no key).
 * Sets rx_hash_key_len to its length, as upstream.
 */
static int rhc_set_key(PyObject *o, PyObject *v, void *c)
{
	struct pv_rx_hash_conf *self = RHC(o);
	PyObject *seq, *key;
	Py_ssize_t n, i;
	char *p;

	if (pv_refuse_delete(v, "rx_hash_key"))
		return -1;
	if (v == Py_None) {
		Py_CLEAR(self->key);
		self->conf.rx_hash_key = NULL;
		self->conf.rx_hash_key_len = 0;
		return 0;
	}
	if (PyUnicode_Check(v)) {
		PyErr_SetString(PyExc_TypeError, "rx_hash_key must be bytes or "
						 "a list of ints, not str");
		return -1;
	}
	seq = PySequence_Fast(v, "rx_hash_key must be bytes or a list of "
				 "ints");
	if (!seq)
		return -1;
	n = PySequence_Fast_GET_SIZE(seq);
	if (n > UINT8_MAX) {
		PyErr_Format(PyExc_OverflowError,
			     "rx_hash_key has %zd bytes, "
			     "more than %d",
			     n, UINT8_MAX);
		Py_DECREF(seq);
		return -1;
	}
	key = PyBytes_FromStringAndSize(NULL, n);
	if (!key) {
		Py_DECREF(seq);
		return -1;
	}
	p = PyBytes_AS_STRING(key);
	for (i = 0; i < n; i++) {
		uint64_t b;

		/* may run Python code (__index__): seq is ours */
		if (pv_to_u64(PySequence_Fast_GET_ITEM(seq, i), UINT8_MAX, &b,
			      "rx_hash_key element")) {
			Py_DECREF(key);
			Py_DECREF(seq);
			return -1;
		}
		p[i] = (char)b;
	}
	Py_DECREF(seq);
	Py_XSETREF(self->key, key);
	self->conf.rx_hash_key = (uint8_t *)PyBytes_AS_STRING(key);
	self->conf.rx_hash_key_len = (uint8_t)n;
	return 0;
}

/* The key as a list of ints, None if unset (upstream returns the fields
 * mask here). */
static PyObject *rhc_get_key(PyObject *o, void *c)
{
	PyObject *key = RHC(o)->key;

	if (!key)
		Py_RETURN_NONE;
	return PySequence_List(key);
}

static int rhc_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "rx_hash_function", "rx_hash_key_len",
				  "rx_hash_key", "rx_hash_fields_mask", NULL };
	struct pv_rx_hash_conf *self = RHC(o);
	PyObject *fn = NULL, *len = NULL, *key = Py_None, *mask = NULL;
	int t;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO:RxHashConf", kwlist,
					 &fn, &len, &key, &mask))
		return -1;
	Py_CLEAR(self->key);
	memset(&self->conf, 0, sizeof(self->conf));
	/* upstream's order: a key given (true) must match the length given,
	 * then the fields are stored as they are */
	t = PyObject_IsTrue(key);
	if (t < 0)
		return -1;
	if (t) {
		Py_ssize_t n = PyObject_Length(key);
		PyObject *klen, *want;
		int eq;

		if (n < 0)
			return -1;
		klen = PyLong_FromSsize_t(n);
		want = len ? Py_NewRef(len) : PyLong_FromLong(0);
		eq = klen && want ?
			     PyObject_RichCompareBool(want, klen, Py_EQ) :
			     -1;
		Py_XDECREF(klen);
		Py_XDECREF(want);
		if (eq < 0)
			return -1;
		if (!eq) {
			pv_raise_user("Length of rx_hash_key not equal to "
				      "rx_hash_key_len");
			return -1;
		}
		if (rhc_set_key(o, key, NULL))
			return -1;
	}
	if ((fn && pv_field_store(o, &rhc_fields[0], fn)) ||
	    (len && pv_field_store(o, &rhc_key_len_field, len)) ||
	    (mask && pv_field_store(o, &rhc_fields[1], mask)))
		return -1;
	return 0;
}

int pv_rx_hash_conf_get(PyObject *o, struct ibv_rx_hash_conf *out)
{
	struct pv_rx_hash_conf *self;
	Py_ssize_t have;

	if (!pv_type_ok(o, pv.RxHashConf)) {
		PyErr_Format(PyExc_TypeError,
			     "hash_conf must be an "
			     "RxHashConf, not %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	self = RHC(o);
	have = self->key ? PyBytes_GET_SIZE(self->key) : 0;
	if (self->conf.rx_hash_key_len > have) {
		pv_raise_user("rx_hash_key_len is %u but rx_hash_key has %zd "
			      "bytes",
			      self->conf.rx_hash_key_len, have);
		return -1;
	}
	*out = self->conf;
	return 0;
}

static void rhc_dealloc(PyObject *o)
{
	PyTypeObject *tp = Py_TYPE(o);

	Py_CLEAR(RHC(o)->key);
	tp->tp_free(o);
	Py_DECREF(tp);
}

static const PyGetSetDef rhc_extra[] = {
	{ "rx_hash_key_len", pv_field_get, rhc_set_key_len,
	  "The length of the key used (bytes); setting it refuses 0.",
	  (void *)&rhc_key_len_field },
	{ "rx_hash_key", rhc_get_key, rhc_set_key,
	  "The hash key: a list of ints (None if unset).  Assign bytes or a "
	  "list of ints; that sets rx_hash_key_len too.",
	  NULL },
	{ NULL }
};

PV_DATA_SPEC(rhc, "pyverbs.wq.RxHashConf", struct pv_rx_hash_conf,
	     "RxHashConf(rx_hash_function=0, rx_hash_key_len=0, "
	     "rx_hash_key=None, rx_hash_fields_mask=0)\n--\n\n"
	     "The RX hash of an RSS QP (struct ibv_rx_hash_conf): the "
	     "function (IBV_RX_HASH_FUNC_*), its key (bytes or a list "
	     "of ints, as long as rx_hash_key_len) and the packet "
	     "fields hashed (IBV_RX_HASH_* bits).",
	     { Py_tp_init, rhc_init }, { Py_tp_dealloc, rhc_dealloc }, );

int pv_rwq_ind_table_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &ria_spec, &pv.PyverbsObject, &pv.RwqIndTableInitAttr,
		  ria_fields, ria_oslots },
		{ &rit_spec, &pv.PyverbsCM, &pv.RwqIndTable },
		{ &rhc_spec, &pv.PyverbsObject, &pv.RxHashConf, rhc_fields,
		  NULL, rhc_extra },
		{ NULL }
	};

	return pv_add_types(m, types);
}
