/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Queue pairs: QPCap, QPInitAttr, QPInitAttrEx, QPAttr, ECE, DataBuffer
 * (plain data), QP (ibv_create_qp / ibv_create_qp_ex / ibv_destroy_qp) with
 * the state transitions, query and the data path (ibv_post_send /
 * ibv_post_recv), and QPEx (the ibv_wr_* send API).
 *
 * The attribute objects follow upstream pyverbs: the same keyword names and
 * defaults; in addition every field of QPAttr (and the capability fields of
 * the init attributes) may be given as a keyword argument.
 *
 * Nothing reaches libibverbs that could make it dereference a bad pointer:
 * the objects behind the init attributes are checked open and of the QP's
 * Context at creation; post_send() checks every WR (pv_send_wr_check(),
 * inline data readable, no WR twice in one post); QPEx refuses builders the
 * provider did not set, calls out of wr_start()/wr_complete() order, and
 * AHs closed within a batch.
 */
#include "pyverbs.h"	/* first: Python.h defines _GNU_SOURCE */

#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Shared helpers of the attribute objects                             */
/* ------------------------------------------------------------------ */

/* A constructor parameter: its keyword name and the attribute it sets. */
struct qp_param {
	const char *kw;
	const char *attr;
};

static int is_param(const struct qp_param *params, PyObject *name)
{
	for (; params->kw; params++)
		if (!PyUnicode_CompareWithASCIIString(name, params->kw))
			return 1;
	return 0;
}

static int is_extra(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return 1;
	return 0;
}

/*
 * The constructor of the attribute objects: the positional arguments and the
 * keywords of params are applied in params order, through the attributes'
 * setters; then every other keyword that names a writable field of fields or
 * one of extra.  Returns 0 or -1.
 */
static int attr_apply(PyObject *self, PyObject *args, PyObject *kw,
		      const char *tname, const struct qp_param *params,
		      const struct pv_field *fields, const char *const *extra)
{
	Py_ssize_t nargs = PyTuple_GET_SIZE(args), npar = 0, nkw = 0, i;
	Py_ssize_t pos = 0;
	PyObject *k, *v;

	while (params[npar].kw)
		npar++;
	if (nargs > npar) {
		PyErr_Format(PyExc_TypeError,
			     "%s() takes at most %zd positional arguments "
			     "(%zd given)", tname, npar, nargs);
		return -1;
	}
	for (i = 0; i < npar; i++) {
		v = i < nargs ? PyTuple_GET_ITEM(args, i) : NULL;
		if (kw) {
			k = PyDict_GetItemString(kw, params[i].kw);
			if (k) {
				if (v) {
					PyErr_Format(PyExc_TypeError,
						     "%s() got multiple values "
						     "for argument '%s'",
						     tname, params[i].kw);
					return -1;
				}
				v = k;
				nkw++;
			}
		}
		if (v && PyObject_SetAttrString(self, params[i].attr, v))
			return -1;
	}
	if (!kw || nkw == PyDict_GET_SIZE(kw))
		return 0;
	while (PyDict_Next(kw, &pos, &k, &v)) {
		const struct pv_field *f;
		const char *name;

		if (!PyUnicode_Check(k) || is_param(params, k))
			continue;
		name = PyUnicode_AsUTF8(k);
		if (!name)
			return -1;
		f = fields ? pv_field_find(fields, name) : NULL;
		if (!(f && !(f->flags & PV_FLAG_RO)) && !is_extra(extra, name)) {
			PyErr_Format(PyExc_TypeError,
				     "%s() got an unexpected keyword argument "
				     "'%s'", tname, name);
			return -1;
		}
		if (PyObject_SetAttr(self, k, v))
			return -1;
	}
	return 0;
}

static int refuse_delete(PyObject *v, const char *name)
{
	if (v)
		return 0;
	PyErr_Format(PyExc_AttributeError, "cannot delete %s", name);
	return -1;
}

/* Replace *slot by a new reference to v. */
static void set_slot(PyObject **slot, PyObject *v)
{
	Py_INCREF(v);
	Py_XSETREF(*slot, v);
}

static PyObject *get_slot(PyObject *v)
{
	return Py_NewRef(v ? v : Py_None);
}

static int type_ok(PyObject *v, PyTypeObject *tp)
{
	return tp && PyObject_TypeCheck(v, tp);
}

/* A send or receive CQ: a CQ, a CQEX or None. */
static int check_cq(PyObject *v)
{
	if (v == Py_None || pv_is_cq(v))
		return 0;
	PyErr_Format(pv.PyverbsUserError, "Expected CQ/CQEX, got %R",
		     (PyObject *)Py_TYPE(v));
	return -1;
}

/* ------------------------------------------------------------------ */
/* QPCap                                                               */
/* ------------------------------------------------------------------ */

#define CAP_FIELDS(st, pre)                                             \
	PV_FIELD(st, pre max_send_wr, "max_send_wr"),                   \
	PV_FIELD(st, pre max_recv_wr, "max_recv_wr"),                   \
	PV_FIELD(st, pre max_send_sge, "max_send_sge"),                 \
	PV_FIELD(st, pre max_recv_sge, "max_recv_sge"),                 \
	PV_FIELD(st, pre max_inline_data, "max_inline_data")

static const struct pv_field cap_fields[] = {
	CAP_FIELDS(struct pv_qp_cap, cap.),
	PV_FIELD_END
};

static const struct qp_param cap_params[] = {
	{ "max_send_wr", "max_send_wr" },
	{ "max_recv_wr", "max_recv_wr" },
	{ "max_send_sge", "max_send_sge" },
	{ "max_recv_sge", "max_recv_sge" },
	{ "max_inline_data", "max_inline_data" },
	{ NULL }
};

static int cap_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	struct pv_qp_cap *self = (struct pv_qp_cap *)obj;

	self->cap = (struct ibv_qp_cap){ .max_send_wr = 1, .max_recv_wr = 10,
					 .max_send_sge = 1, .max_recv_sge = 1 };
	return attr_apply(obj, args, kw, "QPCap", cap_params, NULL, NULL);
}

/*
 * The cap attribute of QPInitAttr, QPInitAttrEx and QPAttr: the closure is
 * the offset of the struct ibv_qp_cap in the object.  Reading returns a
 * copy, as upstream: qia.cap.max_send_wr = 1 changes nothing.
 */
static struct ibv_qp_cap *cap_at(PyObject *o, void *c)
{
	return (struct ibv_qp_cap *)((char *)o + (uintptr_t)c);
}

static PyObject *cap_get(PyObject *o, void *c)
{
	struct pv_qp_cap *cap;

	cap = (struct pv_qp_cap *)pv.QPCap->tp_alloc(pv.QPCap, 0);
	if (cap)
		cap->cap = *cap_at(o, c);
	return (PyObject *)cap;
}

/* Copy a QPCap in; None leaves the value unchanged (upstream _copy_caps). */
static int cap_set(PyObject *o, PyObject *v, void *c)
{
	if (refuse_delete(v, "cap"))
		return -1;
	if (v == Py_None)
		return 0;
	if (!type_ok(v, pv.QPCap)) {
		PyErr_Format(PyExc_TypeError, "cap must be a QPCap, not %.100s",
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	*cap_at(o, c) = ((struct pv_qp_cap *)v)->cap;
	return 0;
}

#define CAP_GETSET(st)                                                  \
	{ "cap", cap_get, cap_set,                                      \
	  "A copy of the capabilities (QPCap); assign a QPCap to change " \
	  "them.", (void *)offsetof(st, attr.cap) }

static PyType_Slot cap_slots[] = {
	{ Py_tp_doc, "QPCap(max_send_wr=1, max_recv_wr=10, max_send_sge=1, "
		     "max_recv_sge=1, max_inline_data=0)\n--\n\n"
		     "The capabilities of a QP (struct ibv_qp_cap)." },
	{ Py_tp_init, cap_init },
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec cap_spec = {
	.name = "pyverbs.qp.QPCap",
	.basicsize = sizeof(struct pv_qp_cap),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.slots = cap_slots,
};

/* ------------------------------------------------------------------ */
/* QPInitAttr and QPInitAttrEx                                         */
/* ------------------------------------------------------------------ */

/*
 * The objects both types hold, with their checks; they are turned into C
 * pointers only when a QP is created (qp_init()).
 */
#define QIA_OSLOTS(st)                                                  \
	PV_OSLOT(st, qp_context, "qp_context",                          \
		 "Any object the user associates with the QP."),        \
	PV_OSLOT_CHECK(st, scq, "send_cq", check_cq,                    \
		       "The send CQ (a CQ, a CQEX or None)."),          \
	PV_OSLOT_CHECK(st, rcq, "recv_cq", check_cq,                    \
		       "The receive CQ (a CQ, a CQEX or None)."),       \
	PV_OSLOT_UNIMPL(st, srq, "srq", "SRQ",                          \
			"The SRQ: None (SRQ is not implemented yet).")

static const struct pv_oslot qia_oslots[] = {
	QIA_OSLOTS(struct pv_qp_init_attr),
	PV_OSLOT_END
};

PV_OSLOTS_GC(qia, qia_oslots)

static const struct pv_field qia_fields[] = {
	PV_FIELD(struct pv_qp_init_attr, attr.qp_type, "qp_type"),
	PV_FIELD(struct pv_qp_init_attr, attr.sq_sig_all, "sq_sig_all"),
	CAP_FIELDS(struct pv_qp_init_attr, attr.cap.),
	PV_FIELD_END
};

static const PyGetSetDef qia_extra[] = {
	CAP_GETSET(struct pv_qp_init_attr),
	{ NULL }
};

/* The constructor parameters both types start with, in upstream's order. */
#define QIA_PARAMS                                                      \
	{ "qp_type", "qp_type" },                                       \
	{ "qp_context", "qp_context" },                                 \
	{ "scq", "send_cq" },                                           \
	{ "rcq", "recv_cq" },                                           \
	{ "srq", "srq" },                                               \
	{ "cap", "cap" },                                               \
	{ "sq_sig_all", "sq_sig_all" }

static const struct qp_param qia_params[] = {
	QIA_PARAMS,
	{ NULL }
};

static int qia_init(PyObject *o, PyObject *args, PyObject *kw)
{
	struct pv_qp_init_attr *self = (struct pv_qp_init_attr *)o;

	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.qp_type = IBV_QPT_UD;
	self->attr.sq_sig_all = 1;
	pv_oslots_reset(o, qia_oslots);
	return attr_apply(o, args, kw, "QPInitAttr", qia_params, qia_fields,
			  NULL);
}

static PyType_Slot qia_slots[] = {
	{ Py_tp_doc, "QPInitAttr(qp_type=IBV_QPT_UD, qp_context=None, "
		     "scq=None, rcq=None, srq=None, cap=None, sq_sig_all=1)"
		     "\n--\n\n"
		     "The attributes of a QP created on a PD (struct "
		     "ibv_qp_init_attr).  The capability fields (max_send_wr, "
		     "...) are also accepted as keyword arguments." },
	{ Py_tp_init, qia_init },
	PV_OSLOTS_GC_SLOTS(qia),
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec qia_spec = {
	.name = "pyverbs.qp.QPInitAttr",
	.basicsize = sizeof(struct pv_qp_init_attr),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = qia_slots,
};

/* ---- QPInitAttrEx ---- */

#define QIAX struct pv_qp_init_attr_ex
static const struct pv_oslot qiax_oslots[] = {
	QIA_OSLOTS(QIAX),
	PV_OSLOT_TYPE(QIAX, pd, "pd", &pv.PD, "pd must be a PD",
		      "The PD of the QP (a PD or None)."),
	PV_OSLOT_TYPE(QIAX, xrcd, "xrcd", &pv.XRCD, "xrcd must be an XRCD",
		      "The XRC domain of an XRC receive QP (an XRCD or "
		      "None)."),
	PV_OSLOT_UNIMPL(QIAX, ind_table, "ind_table", "RwqIndTable",
			"The RWQ indirection table: None (not implemented "
			"yet)."),
	PV_OSLOT_UNIMPL(QIAX, hash_conf, "hash_conf", "RxHashConf",
			"The RX hash configuration: None (not implemented "
			"yet)."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(qiax, qiax_oslots)

static const struct pv_field qiax_fields[] = {
	PV_FIELD(QIAX, attr.qp_type, "qp_type"),
	PV_FIELD(QIAX, attr.sq_sig_all, "sq_sig_all"),
	PV_FIELD(QIAX, attr.comp_mask, "comp_mask"),
	PV_FIELD(QIAX, attr.create_flags, "create_flags"),
	PV_FIELD(QIAX, attr.max_tso_header, "max_tso_header"),
	PV_FIELD(QIAX, attr.source_qpn, "source_qpn"),
	PV_FIELD(QIAX, attr.send_ops_flags, "send_ops_flags"),
	CAP_FIELDS(QIAX, attr.cap.),
	PV_FIELD_END
};

static const PyGetSetDef qiax_extra[] = {
	CAP_GETSET(QIAX),
	{ NULL }
};

static const struct qp_param qiax_params[] = {
	QIA_PARAMS,
	{ "comp_mask", "comp_mask" },
	{ "pd", "pd" },
	{ "xrcd", "xrcd" },
	{ "create_flags", "create_flags" },
	{ "max_tso_header", "max_tso_header" },
	{ "source_qpn", "source_qpn" },
	{ "hash_conf", "hash_conf" },
	{ "ind_table", "ind_table" },
	{ "send_ops_flags", "send_ops_flags" },
	{ NULL }
};

static int qiax_init(PyObject *o, PyObject *args, PyObject *kw)
{
	struct pv_qp_init_attr_ex *self = (struct pv_qp_init_attr_ex *)o;

	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.qp_type = IBV_QPT_UD;
	pv_oslots_reset(o, qiax_oslots);
	return attr_apply(o, args, kw, "QPInitAttrEx", qiax_params,
			  qiax_fields, NULL);
}

static PyType_Slot qiax_slots[] = {
	{ Py_tp_doc, "QPInitAttrEx(qp_type=IBV_QPT_UD, qp_context=None, "
		     "scq=None, rcq=None, srq=None, cap=None, sq_sig_all=0, "
		     "comp_mask=0, pd=None, xrcd=None, create_flags=0, "
		     "max_tso_header=0, source_qpn=0, hash_conf=None, "
		     "ind_table=None, send_ops_flags=0)\n--\n\n"
		     "The attributes of a QP created on a Context (struct "
		     "ibv_qp_init_attr_ex).  The capability fields are also "
		     "accepted as keyword arguments." },
	{ Py_tp_init, qiax_init },
	PV_OSLOTS_GC_SLOTS(qiax),
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec qiax_spec = {
	.name = "pyverbs.qp.QPInitAttrEx",
	.basicsize = sizeof(struct pv_qp_init_attr_ex),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = qiax_slots,
};

/* ------------------------------------------------------------------ */
/* QPAttr                                                              */
/* ------------------------------------------------------------------ */

#define QA struct pv_qp_attr
static const struct pv_field qa_fields[] = {
	PV_FIELD(QA, attr.qp_state, "qp_state"),
	PV_FIELD(QA, attr.cur_qp_state, "cur_qp_state"),
	PV_FIELD(QA, attr.path_mtu, "path_mtu"),
	PV_FIELD(QA, attr.path_mig_state, "path_mig_state"),
	PV_FIELD(QA, attr.qkey, "qkey"),
	PV_FIELD(QA, attr.rq_psn, "rq_psn"),
	PV_FIELD(QA, attr.sq_psn, "sq_psn"),
	PV_FIELD(QA, attr.dest_qp_num, "dest_qp_num"),
	PV_FIELD(QA, attr.qp_access_flags, "qp_access_flags"),
	PV_FIELD(QA, attr.pkey_index, "pkey_index"),
	PV_FIELD(QA, attr.alt_pkey_index, "alt_pkey_index"),
	PV_FIELD(QA, attr.en_sqd_async_notify, "en_sqd_async_notify"),
	PV_FIELD(QA, attr.sq_draining, "sq_draining"),
	PV_FIELD(QA, attr.max_rd_atomic, "max_rd_atomic"),
	PV_FIELD(QA, attr.max_dest_rd_atomic, "max_dest_rd_atomic"),
	PV_FIELD(QA, attr.min_rnr_timer, "min_rnr_timer"),
	PV_FIELD(QA, attr.port_num, "port_num"),
	PV_FIELD(QA, attr.timeout, "timeout"),
	PV_FIELD(QA, attr.retry_cnt, "retry_cnt"),
	PV_FIELD(QA, attr.rnr_retry, "rnr_retry"),
	PV_FIELD(QA, attr.alt_port_num, "alt_port_num"),
	PV_FIELD(QA, attr.alt_timeout, "alt_timeout"),
	PV_FIELD(QA, attr.rate_limit, "rate_limit"),
	PV_FIELD_END
};

/* closure: 0 for ah_attr, 1 for alt_ah_attr */
static struct ibv_ah_attr *qa_ah(PyObject *o, void *c)
{
	struct pv_qp_attr *self = (struct pv_qp_attr *)o;

	return c ? &self->attr.alt_ah_attr : &self->attr.ah_attr;
}

static PyObject *qa_get_ah(PyObject *o, void *c)
{
	return pv_ah_attr_new(qa_ah(o, c));
}

/* An AHAttr is copied in; None leaves the value unchanged (upstream). */
static int qa_set_ah(PyObject *o, PyObject *v, void *c)
{
	const char *name = c ? "alt_ah_attr" : "ah_attr";

	if (refuse_delete(v, name))
		return -1;
	if (v == Py_None)
		return 0;
	if (!type_ok(v, pv.AHAttr)) {
		PyErr_Format(PyExc_TypeError, "%s must be an AHAttr, not %.100s",
			     name, Py_TYPE(v)->tp_name);
		return -1;
	}
	*qa_ah(o, c) = ((struct pv_ah_attr *)v)->ah;
	return 0;
}

/* For printing without building AHAttr objects: (port_num, sl,
 * src_path_bits, dlid, static_rate, is_global, dgid bytes, flow_label,
 * sgid_index, hop_limit, traffic_class) of ah_attr, or of alt_ah_attr when
 * alt is true. */
static PyObject *qa_ah_fields(PyObject *o, PyObject *alt)
{
	int t = PyObject_IsTrue(alt);
	const struct ibv_ah_attr *a;

	if (t < 0)
		return NULL;
	a = qa_ah(o, t ? (void *)1 : NULL);
	return Py_BuildValue("(BBBHBBy#IBBB)", a->port_num, a->sl,
			     a->src_path_bits, a->dlid, a->static_rate,
			     a->is_global, (const char *)a->grh.dgid.raw,
			     (Py_ssize_t)sizeof(a->grh.dgid.raw),
			     a->grh.flow_label, a->grh.sgid_index,
			     a->grh.hop_limit, a->grh.traffic_class);
}

static PyMethodDef qa_methods[] = {
	{ "_ah_fields", qa_ah_fields, METH_O,
	  "_ah_fields($self, alt, /)\n--\n\n"
	  "The fields of ah_attr (alt_ah_attr if alt) as a tuple." },
	{ NULL }
};

static const PyGetSetDef qa_extra[] = {
	CAP_GETSET(struct pv_qp_attr),
	{ "ah_attr", qa_get_ah, qa_set_ah,
	  "A copy of the primary path (AHAttr); assign an AHAttr to change "
	  "it.", NULL },
	{ "alt_ah_attr", qa_get_ah, qa_set_ah,
	  "A copy of the alternate path (AHAttr); assign an AHAttr to change "
	  "it.", (void *)1 },
	{ NULL }
};

static const char *const qa_extra_names[] = { "cap", "ah_attr",
					      "alt_ah_attr", NULL };

static const struct qp_param qa_params[] = {
	{ "qp_state", "qp_state" },
	{ "cur_qp_state", "cur_qp_state" },
	{ "port_num", "port_num" },
	{ "path_mtu", "path_mtu" },
	{ NULL }
};

static int qa_init(PyObject *o, PyObject *args, PyObject *kw)
{
	struct pv_qp_attr *self = (struct pv_qp_attr *)o;

	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.qp_state = IBV_QPS_INIT;
	self->attr.cur_qp_state = IBV_QPS_RESET;
	self->attr.port_num = 1;
	self->attr.path_mtu = IBV_MTU_1024;
	return attr_apply(o, args, kw, "QPAttr", qa_params, qa_fields,
			  qa_extra_names);
}

static PyType_Slot qa_slots[] = {
	{ Py_tp_doc, "QPAttr(qp_state=IBV_QPS_INIT, cur_qp_state=IBV_QPS_RESET,"
		     " port_num=1, path_mtu=IBV_MTU_1024, **fields)\n--\n\n"
		     "The attributes used to modify a QP (struct ibv_qp_attr). "
		     "Any field (qkey, dest_qp_num, rq_psn, ah_attr, cap, ...) "
		     "may also be given as a keyword argument." },
	{ Py_tp_init, qa_init },
	{ Py_tp_methods, qa_methods },
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec qa_spec = {
	.name = "pyverbs.qp.QPAttr",
	.basicsize = sizeof(struct pv_qp_attr),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.slots = qa_slots,
};

/* ------------------------------------------------------------------ */
/* ECE                                                                 */
/* ------------------------------------------------------------------ */

/* Upstream derives ECE from PyverbsCM although it owns no resource. */
struct qp_ece {
	struct pv_obj obj;
	struct ibv_ece ece;
};

static PyTypeObject *ece_type;

static const struct pv_field ece_fields[] = {
	PV_FIELD(struct qp_ece, ece.vendor_id, "vendor_id"),
	PV_FIELD(struct qp_ece, ece.options, "options"),
	PV_FIELD(struct qp_ece, ece.comp_mask, "comp_mask"),
	PV_FIELD_END
};

static const struct qp_param ece_params[] = {
	{ "vendor_id", "vendor_id" },
	{ "options", "options" },
	{ "comp_mask", "comp_mask" },
	{ NULL }
};

static int ece_init(PyObject *o, PyObject *args, PyObject *kw)
{
	struct qp_ece *self = (struct qp_ece *)o;

	memset(&self->ece, 0, sizeof(self->ece));
	return attr_apply(o, args, kw, "ECE", ece_params, NULL, NULL);
}

static PyType_Slot ece_slots[] = {
	{ Py_tp_doc, "ECE(vendor_id=0, options=0, comp_mask=0)\n--\n\n"
		     "Enhanced connection establishment options (struct "
		     "ibv_ece)." },
	{ Py_tp_init, ece_init },
	PV_CM_SLOTS,
	{ Py_tp_getset, NULL },	/* filled by pv_add_data_type() */
	{ 0, NULL }
};

static PyType_Spec ece_spec = {
	.name = "pyverbs.qp.ECE",
	.basicsize = sizeof(struct qp_ece),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = ece_slots,
};

/* ------------------------------------------------------------------ */
/* QP: creation, destruction, state transitions                        */
/* ------------------------------------------------------------------ */

static int qp_destroy(struct pv_obj *o)
{
	struct pv_qp *self = (struct pv_qp *)o;
	int rc;

	if (!self->qp)
		return 0;
	rc = ibv_destroy_qp(self->qp);	/* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_qp", "Failed to destroy QP");
		return -1;
	}
	self->qp = NULL;
	self->pd = NULL;
	self->scq = self->rcq = NULL;
	return 0;
}

/* The CQ must be open and belong to the QP's Context. */
static struct pv_cq *qp_cq_arg(PyObject *v, struct pv_obj *ctx,
			       const char *what)
{
	struct pv_cq *cq;

	if (v == NULL || v == Py_None)
		return NULL;
	cq = (struct pv_cq *)v;
	if (pv_check_open(&cq->obj))
		return NULL;
	if (!pv_obj_descends_from(&cq->obj, ctx)) {
		pv_raise_user("The %s CQ belongs to another Context than the "
			      "QP", what);
		return NULL;
	}
	return cq;
}

enum { QP_TO_INIT, QP_TO_RTR, QP_TO_RTS };

/*
 * The attribute mask upstream pyverbs uses for each transition of each QP
 * type (QP._get_comp_mask), IBV_QP_STATE included.  Returns -1 (KeyError, as
 * upstream) for a type it has no table for.
 */
static int qp_trans_mask(enum ibv_qp_type t, int dst)
{
	static const int rc[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER,
		IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	};
	static const int uc[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
		IBV_QP_SQ_PSN,
	};
	static const int ud[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
		0,
		IBV_QP_SQ_PSN,
	};
	static const int raw[] = { IBV_QP_PORT, 0, 0 };
	static const int xrc_recv[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			IBV_QP_MIN_RNR_TIMER,
		IBV_QP_TIMEOUT | IBV_QP_SQ_PSN,
	};
	static const int xrc_send[] = {
		IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
		IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	};
	const int *m;
	PyObject *key;

	switch (t) {
	case IBV_QPT_RC:
		m = rc;
		break;
	case IBV_QPT_UC:
		m = uc;
		break;
	case IBV_QPT_UD:
		m = ud;
		break;
	case IBV_QPT_RAW_PACKET:
		m = raw;
		break;
	case IBV_QPT_XRC_RECV:
		m = xrc_recv;
		break;
	case IBV_QPT_XRC_SEND:
		m = xrc_send;
		break;
	default:
		key = PyLong_FromLong(t);
		if (key) {
			PyErr_SetObject(PyExc_KeyError, key);
			Py_DECREF(key);
		}
		return -1;
	}
	return m[dst] | IBV_QP_STATE;
}

static struct pv_qp_attr *qp_attr_arg(PyObject *v)
{
	if (type_ok(v, pv.QPAttr))
		return (struct pv_qp_attr *)v;
	PyErr_Format(PyExc_TypeError, "expected a QPAttr, not %.100s",
		     Py_TYPE(v)->tp_name);
	return NULL;
}

/* One transition with upstream's mask and message; 0 or -1. */
static int qp_move(struct pv_qp *self, struct pv_qp_attr *a, int dst)
{
	static const enum ibv_qp_state state[] = { IBV_QPS_INIT, IBV_QPS_RTR,
						   IBV_QPS_RTS };
	static const char *const msg[] = {
		"Failed to modify QP state to init",
		"Failed to modify QP state to RTR",
		"Failed to modify QP state to RTS",
	};
	int mask = qp_trans_mask(self->qp->qp_type, dst), rc;

	if (mask < 0)
		return -1;
	a->attr.qp_state = state[dst];
	rc = ibv_modify_qp(self->qp, &a->attr, mask);	/* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_modify_qp", msg[dst]);
		return -1;
	}
	return 0;
}

/*
 * Upstream's automatic lower transitions: to_rtr() first moves to INIT
 * unless the QP is in INIT, to_rts() first moves to RTR unless it is in RTR.
 */
static int qp_to(struct pv_qp *self, struct pv_qp_attr *a, int dst)
{
	if (dst == QP_TO_RTS && self->qp->state != IBV_QPS_RTR &&
	    qp_to(self, a, QP_TO_RTR))
		return -1;
	if (dst == QP_TO_RTR && self->qp->state != IBV_QPS_INIT &&
	    qp_move(self, a, QP_TO_INIT))
		return -1;
	return qp_move(self, a, dst);
}

/*
 * Check the objects the create call will dereference, which libibverbs
 * does not check: a missing PD or CQ would be a NULL dereference there.
 */
static int qp_check_create(enum ibv_qp_type type, uint32_t comp_mask,
			   int ex, PyObject *pd, PyObject *scq, PyObject *rcq)
{
	int no_rq_cq = type == IBV_QPT_XRC_SEND ||
		       (ex && (comp_mask & IBV_QP_INIT_ATTR_IND_TABLE));

	if (ex && (comp_mask & IBV_QP_INIT_ATTR_IND_TABLE)) {
		pv_raise_user("IBV_QP_INIT_ATTR_IND_TABLE needs an RwqIndTable, "
			      "which is not implemented in this version of "
			      "pyverbs-c");
		return -1;
	}
	if (type == IBV_QPT_XRC_RECV)
		return 0;
	if (ex && (comp_mask & IBV_QP_INIT_ATTR_PD) && pd == Py_None) {
		pv_raise_user("comp_mask has IBV_QP_INIT_ATTR_PD but the init "
			      "attributes have no pd");
		return -1;
	}
	if (scq == Py_None) {
		pv_raise_user("The QP needs a send CQ (init_attr.send_cq)");
		return -1;
	}
	if (rcq == Py_None && !no_rq_cq) {
		pv_raise_user("The QP needs a receive CQ (init_attr.recv_cq)");
		return -1;
	}
	return 0;
}

/* The open XRCD of ctx that comp_mask's IBV_QP_INIT_ATTR_XRCD asks for. */
static struct pv_xrcd *qp_xrcd_arg(PyObject *xrcd, struct pv_obj *ctx)
{
	if (!xrcd || xrcd == Py_None) {
		pv_raise_user("comp_mask has IBV_QP_INIT_ATTR_XRCD but the init "
			      "attributes have no xrcd");
		return NULL;
	}
	if (pv_check_open(PV_OBJ(xrcd)))
		return NULL;
	if (!pv_obj_descends_from(PV_OBJ(xrcd), ctx)) {
		pv_raise_user("The XRCD belongs to another Context than the QP");
		return NULL;
	}
	return (struct pv_xrcd *)xrcd;
}

static int qp_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "creator", "init_attr", "qp_attr", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	PyObject *creator, *init_attr, *qp_attr = Py_None;
	PyObject *scq_o, *rcq_o, *qp_context, *pd_o = Py_None;
	struct pv_obj *ctx, *links[PV_MAX_PARENTS];
	struct pv_cq *scq, *rcq;
	struct pv_pd *pd = NULL;
	struct pv_xrcd *xrcd = NULL;
	struct pv_qp_attr *qa = NULL;
	int nlinks = 0, i, is_ex;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:QP", kwlist, &creator,
					 &init_attr, &qp_attr))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("QP is already initialised");
		return -1;
	}
	if (qp_attr != Py_None && !(qa = qp_attr_arg(qp_attr)))
		return -1;
	if (type_ok(creator, pv.PD)) {
		pd = (struct pv_pd *)creator;
		if (!type_ok(init_attr, pv.QPInitAttr)) {
			PyErr_Format(PyExc_TypeError,
				     "a QP created on a PD needs a QPInitAttr, "
				     "not %.100s", Py_TYPE(init_attr)->tp_name);
			return -1;
		}
		if (pv_check_open(&pd->obj))
			return -1;
		ctx = pv_obj_parent(&pd->obj, 0);
		is_ex = 0;
	} else if (type_ok(creator, pv.Context)) {
		if (!type_ok(init_attr, pv.QPInitAttrEx)) {
			PyErr_Format(PyExc_TypeError,
				     "a QP created on a Context needs a "
				     "QPInitAttrEx, not %.100s",
				     Py_TYPE(init_attr)->tp_name);
			return -1;
		}
		ctx = PV_OBJ(creator);
		if (pv_check_open(ctx))
			return -1;
		pd_o = ((struct pv_qp_init_attr_ex *)init_attr)->pd;
		if (pd_o && pd_o != Py_None) {
			pd = (struct pv_pd *)pd_o;
			if (pv_check_open(&pd->obj))
				return -1;
			if (!pv_obj_descends_from(&pd->obj, ctx)) {
				pv_raise_user("The PD belongs to another "
					      "Context than the QP");
				return -1;
			}
		} else {
			pd_o = Py_None;
		}
		is_ex = 1;
	} else {
		PyErr_Format(PyExc_TypeError,
			     "QP creator must be a PD or a Context, not %.100s",
			     Py_TYPE(creator)->tp_name);
		return -1;
	}
	if (is_ex) {
		struct pv_qp_init_attr_ex *ia = (void *)init_attr;

		scq_o = ia->scq;
		rcq_o = ia->rcq;
		qp_context = ia->qp_context;
		if (qp_check_create(ia->attr.qp_type, ia->attr.comp_mask, 1,
				    pd_o, scq_o ? scq_o : Py_None,
				    rcq_o ? rcq_o : Py_None))
			return -1;
		if ((ia->attr.comp_mask & IBV_QP_INIT_ATTR_XRCD) &&
		    !(xrcd = qp_xrcd_arg(ia->xrcd, ctx)))
			return -1;
	} else {
		struct pv_qp_init_attr *ia = (void *)init_attr;

		scq_o = ia->scq;
		rcq_o = ia->rcq;
		qp_context = ia->qp_context;
		if (qp_check_create(ia->attr.qp_type, 0, 0, pd_o,
				    scq_o ? scq_o : Py_None,
				    rcq_o ? rcq_o : Py_None))
			return -1;
	}
	scq = qp_cq_arg(scq_o, ctx, "send");
	if (!scq && PyErr_Occurred())
		return -1;
	rcq = qp_cq_arg(rcq_o, ctx, "receive");
	if (!rcq && PyErr_Occurred())
		return -1;

	pv_obj_setup(&self->obj, qp_destroy);
	if (is_ex) {
		struct ibv_qp_init_attr_ex *a =
			&((struct pv_qp_init_attr_ex *)init_attr)->attr;

		a->qp_context = self;
		a->send_cq = scq ? scq->cq : NULL;
		a->recv_cq = rcq ? rcq->cq : NULL;
		a->srq = NULL;
		a->xrcd = xrcd ? xrcd->xrcd : NULL;
		a->rwq_ind_tbl = NULL;
		a->pd = pd ? pd->pd : NULL;
		self->qp = ibv_create_qp_ex(((struct pv_context *)ctx)->ctx, a);
		if (!self->qp) {
			pv_raise_errno("ibv_create_qp_ex", "Failed to create QP");
			return -1;
		}
		links[nlinks++] = ctx;
		if (pd)
			links[nlinks++] = &pd->obj;
		if (xrcd)
			links[nlinks++] = &xrcd->obj;
	} else {
		struct ibv_qp_init_attr *a =
			&((struct pv_qp_init_attr *)init_attr)->attr;

		a->qp_context = self;
		a->send_cq = scq ? scq->cq : NULL;
		a->recv_cq = rcq ? rcq->cq : NULL;
		a->srq = NULL;
		self->qp = ibv_create_qp(pd->pd, a);
		if (!self->qp) {
			pv_raise_errno("ibv_create_qp", "Failed to create QP");
			return -1;
		}
		links[nlinks++] = &pd->obj;
	}
	if (scq)
		links[nlinks++] = &scq->obj;
	if (rcq && rcq != scq)
		links[nlinks++] = &rcq->obj;
	for (i = 0; i < nlinks; i++)
		if (pv_obj_link(&self->obj, links[i])) {
			qp_destroy(&self->obj);
			pv_close(&self->obj);	/* drops the links made */
			return -1;
		}
	self->pd = pd;
	self->scq = scq;
	self->rcq = rcq;
	self->qp_type = self->qp->qp_type;
	set_slot(&self->qp_context, qp_context ? qp_context : Py_None);
	pv_obj_opened(&self->obj);

	/*
	 * With qp_attr, upstream moves UD and raw packet QPs to RTS and the
	 * connected types (which need the remote QPN) to INIT.
	 */
	if (qa) {
		int dst;

		switch (self->qp_type) {
		case IBV_QPT_UD:
		case IBV_QPT_RAW_PACKET:
			dst = QP_TO_RTS;
			break;
		default:
			dst = QP_TO_INIT;
		}
		if (qp_trans_mask(self->qp_type, dst) < 0 ||
		    qp_to(self, qa, dst)) {
			PyObject *et, *ev, *tb;

			PyErr_Fetch(&et, &ev, &tb);
			if (pv_close(&self->obj))
				PyErr_WriteUnraisable(obj);
			PyErr_Restore(et, ev, tb);
			return -1;
		}
	}
	return 0;
}

static inline int qp_open(struct pv_qp *self)
{
	return pv_check_open(&self->obj);
}

static PyObject *qp_to_meth(PyObject *obj, PyObject *args, PyObject *kw,
			    int dst)
{
	static char *kwlist[] = { "qp_attr", NULL };
	static const char *const fmt[] = { "O:to_init", "O:to_rtr",
					   "O:to_rts" };
	struct pv_qp *self = (struct pv_qp *)obj;
	struct pv_qp_attr *a;
	PyObject *arg;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt[dst], kwlist, &arg))
		return NULL;
	if (qp_open(self) || !(a = qp_attr_arg(arg)) || qp_to(self, a, dst))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *qp_to_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	return qp_to_meth(obj, args, kw, QP_TO_INIT);
}

static PyObject *qp_to_rtr(PyObject *obj, PyObject *args, PyObject *kw)
{
	return qp_to_meth(obj, args, kw, QP_TO_RTR);
}

static PyObject *qp_to_rts(PyObject *obj, PyObject *args, PyObject *kw)
{
	return qp_to_meth(obj, args, kw, QP_TO_RTS);
}

static PyObject *qp_modify(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "qp_attr", "comp_mask", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	PyObject *attr;
	struct pv_qp_attr *a;
	uint32_t mask;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:modify", kwlist,
					 &attr, pv_conv_u32, &mask))
		return NULL;
	if (qp_open(self) || !(a = qp_attr_arg(attr)))
		return NULL;
	rc = ibv_modify_qp(self->qp, &a->attr, (int)mask); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_modify_qp", "Failed to modify QP");
	Py_RETURN_NONE;
}

static PyObject *qp_query(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr_mask", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	struct pv_qp_init_attr *ia;
	struct pv_qp_attr *a;
	PyObject *res = NULL;
	uint32_t mask;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:query", kwlist,
					 pv_conv_u32, &mask))
		return NULL;
	if (qp_open(self))
		return NULL;
	a = (struct pv_qp_attr *)PyObject_CallNoArgs((PyObject *)pv.QPAttr);
	if (!a)
		return NULL;
	ia = (struct pv_qp_init_attr *)PyObject_CallNoArgs(
		(PyObject *)pv.QPInitAttr);
	if (!ia)
		goto out;
	rc = ibv_query_qp(self->qp, &a->attr, (int)mask, &ia->attr);
	if (rc) {	/* returns errno */
		pv_raise_rc(rc, "ibv_query_qp", "Failed to query QP");
		goto out;
	}
	/* Upstream leaves these None; naming the QP's own objects is more
	 * useful and prints the same. */
	set_slot(&ia->scq, self->scq ? (PyObject *)self->scq : Py_None);
	set_slot(&ia->rcq, self->rcq ? (PyObject *)self->rcq : Py_None);
	set_slot(&ia->qp_context, self->qp_context ? self->qp_context :
		 Py_None);
	res = PyTuple_Pack(2, (PyObject *)a, (PyObject *)ia);
out:
	Py_DECREF(a);
	Py_XDECREF(ia);
	return res;
}

static PyObject *qp_query_data_in_order(PyObject *obj, PyObject *args,
					PyObject *kw)
{
	static char *kwlist[] = { "op", "flags", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	uint32_t op, flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&:query_data_in_order",
					 kwlist, pv_conv_u32, &op, pv_conv_u32,
					 &flags))
		return NULL;
	if (qp_open(self))
		return NULL;
	return PyLong_FromLong(ibv_query_qp_data_in_order(
		self->qp, (enum ibv_wr_opcode)op, flags));
}

static PyObject *qp_set_ece(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ece", NULL };
	struct pv_qp *self = (struct pv_qp *)obj;
	struct qp_ece *ece;
	PyObject *arg;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:set_ece", kwlist, &arg))
		return NULL;
	if (qp_open(self))
		return NULL;
	if (!type_ok(arg, ece_type)) {
		PyErr_Format(PyExc_TypeError, "expected an ECE, not %.100s",
			     Py_TYPE(arg)->tp_name);
		return NULL;
	}
	ece = (struct qp_ece *)arg;
	if (ece->ece.vendor_id == 0)	/* upstream: nothing to set */
		Py_RETURN_NONE;
	rc = ibv_set_ece(self->qp, &ece->ece);	/* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_set_ece", "Failed to set ECE");
	Py_RETURN_NONE;
}

static PyObject *qp_query_ece(PyObject *obj, PyObject *unused)
{
	struct pv_qp *self = (struct pv_qp *)obj;
	struct qp_ece *ece;
	int rc;

	if (qp_open(self))
		return NULL;
	ece = (struct qp_ece *)PyObject_CallNoArgs((PyObject *)ece_type);
	if (!ece)
		return NULL;
	rc = ibv_query_ece(self->qp, &ece->ece);	/* returns errno */
	if (rc) {
		Py_DECREF(ece);
		return pv_raise_rc(rc, "ibv_query_ece", "Failed to query ECE");
	}
	return (PyObject *)ece;
}

/* ------------------------------------------------------------------ */
/* QP: the data path                                                   */
/* ------------------------------------------------------------------ */

/*
 * A send WR or a receive WR: the list and chain handling below serves both
 * through these accessors (send is a constant at every call site).
 */
#define SWR(o) ((struct pv_send_wr *)(o))
#define RWR(o) ((struct pv_recv_wr *)(o))

static inline PyObject *wr_next(PyObject *o, int send)
{
	PyObject *n = send ? SWR(o)->next_wr : RWR(o)->next_wr;

	return n == Py_None ? NULL : n;
}

static inline void *wr_c(PyObject *o, int send)
{
	return send ? (void *)&SWR(o)->wr : (void *)&RWR(o)->wr;
}

static inline void *wr_c_next(PyObject *o, int send)
{
	return send ? (void *)SWR(o)->wr.next : (void *)RWR(o)->wr.next;
}

static inline void wr_set_c_next(PyObject *o, PyObject *next, int send)
{
	if (send)
		SWR(o)->wr.next = next ? &SWR(next)->wr : NULL;
	else
		RWR(o)->wr.next = next ? &RWR(next)->wr : NULL;
}

static inline unsigned char *wr_in_post(PyObject *o, int send)
{
	return send ? &SWR(o)->in_post : &RWR(o)->in_post;
}

static inline PyTypeObject *wr_type(int send)
{
	return send ? pv.SendWR : pv.RecvWR;
}

/*
 * The provider memcpy()s the SGEs of an IBV_SEND_INLINE WR in user space,
 * so a bad address would crash the interpreter instead of failing the post:
 * read them first with pv_read_mem(), which reports a bad range instead of
 * faulting.  Returns 0 or -1.
 */
static int swr_check_inline(struct pv_send_wr *w)
{
	static char scratch[16384];	/* the GIL serialises its users */
	int i;

	for (i = 0; i < w->wr.num_sge; i++) {
		uint64_t addr = w->wr.sg_list[i].addr;
		size_t len = w->wr.sg_list[i].length;

		while (len) {
			size_t n = len < sizeof(scratch) ? len : sizeof(scratch);

			if (pv_read_mem(scratch, addr, n))
				return -1;
			addr += n;
			len -= n;
		}
	}
	return 0;
}

static inline int swr_check_one(struct pv_send_wr *w)
{
	return (w->wr.send_flags & IBV_SEND_INLINE) ? swr_check_inline(w) : 0;
}

/* wr.next must match next_wr (wr.c keeps them in step). */
static int wr_check_link(PyObject *o, PyObject *next, int send)
{
	void *want = next ? wr_c(next, send) : NULL;

	if (wr_c_next(o, send) == want)
		return 0;
	pv_raise_error("Internal error: a WR chain is inconsistent");
	return -1;
}

/*
 * Mark every WR of the chain starting at o as being posted and check it
 * (pv_send_wr_check() for send WRs: closed AH, UD without address, ...);
 * return its tail, or NULL with an exception (a WR met twice in the WRs
 * posted, which would make a loop, or a WR that fails its checks).
 */
static PyObject *wr_mark_chain(PyObject *o, int send, enum ibv_qp_type qpt)
{
	if (send && pv_send_wr_check(SWR(o), qpt))
		return NULL;
	for (;;) {
		PyObject *next = wr_next(o, send);
		unsigned char *mark = wr_in_post(o, send);

		if (*mark) {
			pv_raise_user("A %s appears more than once in the WRs "
				      "posted", send ? "SendWR" : "RecvWR");
			return NULL;
		}
		*mark = 1;
		if ((send && swr_check_one(SWR(o))) ||
		    wr_check_link(o, next, send))
			return NULL;
		if (!next)
			return o;
		o = next;
	}
}

/*
 * Undo wr_mark_chain(): clear the marks of the chain and, with unlink, make
 * the tail's C link NULL again.  Stops at the first unmarked WR, so that it
 * also undoes a marking that failed half-way.
 */
static void wr_unmark_chain(PyObject *o, int send, int unlink)
{
	while (o && *wr_in_post(o, send)) {
		PyObject *next = wr_next(o, send);

		*wr_in_post(o, send) = 0;
		if (unlink && !next)
			wr_set_c_next(o, NULL, send);
		o = next;
	}
}

/* Position of the C WR bad among the WRs posted (chains flattened), and
 * the WR object, or -1. */
static Py_ssize_t wr_find(PyObject *const *items, Py_ssize_t n, void *bad,
			  int send, PyObject **found)
{
	Py_ssize_t i, idx = 0;
	PyObject *o;

	for (i = 0; bad && i < n; i++)
		for (o = items[i]; o; o = wr_next(o, send), idx++)
			if (wr_c(o, send) == bad) {
				*found = o;
				return idx;
			}
	return -1;
}

/*
 * Copy the failing WR into the caller's bad_wr, as upstream does, but
 * without sharing memory: dst keeps its own next link, gets its own copy of
 * the SGEs (in sge_inline, or a PyMem block, sg_cap set, as wr.c stores
 * them) and a reference to the AH.  Returns 0 or -1.
 */
static int wr_copy(PyObject *dst, PyObject *src, int send)
{
	struct ibv_sge *inl, *old, *sg;
	const struct ibv_sge *from;
	int n;

	if (dst == src)
		return 0;
	if (send) {
		inl = SWR(dst)->sge_inline;
		old = SWR(dst)->wr.sg_list;
		from = SWR(src)->wr.sg_list;
		n = SWR(src)->wr.num_sge;
	} else {
		inl = RWR(dst)->sge_inline;
		old = RWR(dst)->wr.sg_list;
		from = RWR(src)->wr.sg_list;
		n = RWR(src)->wr.num_sge;
	}
	if (n < 0 || (n && !from))
		n = 0;
	if (n <= PV_WR_INLINE_SGES) {
		sg = inl;
	} else {
		sg = PyMem_Malloc(n * sizeof(*sg));
		if (!sg) {
			PyErr_NoMemory();
			return -1;
		}
	}
	if (n)
		memcpy(sg, from, n * sizeof(*sg));
	if (old && old != inl)
		PyMem_Free(old);
	if (send) {
		struct ibv_send_wr w = SWR(src)->wr;
		struct pv_ah *ah = SWR(dst)->ah;

		w.next = SWR(dst)->wr.next;
		w.sg_list = sg;
		w.num_sge = n;
		SWR(dst)->wr = w;
		SWR(dst)->sg_cap = n;
		SWR(dst)->ah = SWR(src)->ah;
		Py_XINCREF(SWR(dst)->ah);
		Py_XDECREF(ah);
	} else {
		struct ibv_recv_wr w = RWR(src)->wr;

		w.next = RWR(dst)->wr.next;
		w.sg_list = sg;
		w.num_sge = n;
		RWR(dst)->wr = w;
		RWR(dst)->sg_cap = n;
	}
	return 0;
}

/* Raise the post failure with .bad_wr_index set, and fill bad_wr. */
static PyObject *qp_post_failed(int rc, int send, PyObject *const *items,
				Py_ssize_t n, void *bad, PyObject *bad_wr)
{
	PyObject *found = NULL, *idx, *et, *ev, *tb;
	Py_ssize_t i = wr_find(items, n, bad, send, &found);

	if (found && bad_wr && wr_copy(bad_wr, found, send))
		return NULL;
	pv_raise_rc(rc, send ? "ibv_post_send" : "ibv_post_recv",
		    send ? "Failed to post send" : "Failed to post recv");
	PyErr_Fetch(&et, &ev, &tb);
	PyErr_NormalizeException(&et, &ev, &tb);
	idx = i < 0 ? Py_NewRef(Py_None) : PyLong_FromSsize_t(i);
	if (!idx || !ev || PyObject_SetAttrString(ev, "bad_wr_index", idx)) {
		Py_XDECREF(idx);
		Py_XDECREF(et);
		Py_XDECREF(ev);
		Py_XDECREF(tb);
		return NULL;
	}
	Py_DECREF(idx);
	PyErr_Restore(et, ev, tb);
	return NULL;
}

static inline int qp_post_c(struct pv_qp *self, void *head, void **bad,
			    int send)
{
	if (send)
		return ibv_post_send(self->qp, head,
				     (struct ibv_send_wr **)bad);
	return ibv_post_recv(self->qp, head, (struct ibv_recv_wr **)bad);
}

/*
 * post_send(wr, bad_wr=None) / post_recv(wr, bad_wr=None).  wr is a WR
 * (with its next_wr chain) or a list/tuple of WRs, posted in one call: the
 * elements' chains are linked tail to head for the call and unlinked after.
 * No allocation on the way.  Returns None, or raises PyverbsRDMAError with
 * bad_wr_index (the failing WR's position, chains flattened).
 */
static PyObject *qp_post(PyObject *obj, PyObject *const *args,
			 Py_ssize_t nargs, PyObject *kwnames, int send)
{
	struct pv_qp *self = (struct pv_qp *)obj;
	PyObject *wr = nargs > 0 ? args[0] : NULL;
	PyObject *bad_wr = nargs > 1 ? args[1] : NULL;
	PyTypeObject *tp = wr_type(send);
	PyObject *const *items;
	Py_ssize_t n, i;
	void *bad = NULL;
	int rc;

	if (nargs > 2)
		goto usage;
	if (kwnames) {
		for (i = 0; i < PyTuple_GET_SIZE(kwnames); i++) {
			PyObject *k = PyTuple_GET_ITEM(kwnames, i);
			PyObject **slot;

			if (!PyUnicode_CompareWithASCIIString(k, "wr"))
				slot = &wr;
			else if (!PyUnicode_CompareWithASCIIString(k, "bad_wr"))
				slot = &bad_wr;
			else
				goto usage;
			if (*slot)
				goto usage;
			*slot = args[nargs + i];
		}
	}
	if (!wr)
		goto usage;
	if (bad_wr == Py_None)
		bad_wr = NULL;
	if (qp_open(self))
		return NULL;
	if (!tp) {
		pv_raise_user("%s is not available",
			      send ? "SendWR" : "RecvWR");
		return NULL;
	}
	if (bad_wr && !PyObject_TypeCheck(bad_wr, tp)) {
		PyErr_Format(PyExc_TypeError, "bad_wr must be a %s or None, "
			     "not %.100s", tp->tp_name, Py_TYPE(bad_wr)->tp_name);
		return NULL;
	}

	if (Py_IS_TYPE(wr, tp) || PyObject_TypeCheck(wr, tp)) {
		PyObject *next = wr_next(wr, send);

		if (!next) {
			/* the common case: one WR, no chain */
			if ((send && (pv_send_wr_check(SWR(wr), self->qp_type) ||
				      swr_check_one(SWR(wr)))) ||
			    wr_check_link(wr, NULL, send))
				return NULL;
		} else if (!wr_mark_chain(wr, send, self->qp_type)) {
			wr_unmark_chain(wr, send, 0);
			return NULL;
		}
		rc = qp_post_c(self, wr_c(wr, send), &bad, send);
		if (next)
			wr_unmark_chain(wr, send, 0);
		if (rc)
			return qp_post_failed(rc, send, &wr, 1, bad, bad_wr);
		Py_RETURN_NONE;
	}
	if (!PyList_Check(wr) && !PyTuple_Check(wr)) {
		PyErr_Format(PyExc_TypeError,
			     "expected a %s or a list of %s, not %.100s",
			     tp->tp_name, tp->tp_name, Py_TYPE(wr)->tp_name);
		return NULL;
	}
	/* No Python code runs from here to the end: the borrowed items stay
	 * valid and the list cannot change. */
	items = PySequence_Fast_ITEMS(wr);
	n = PySequence_Fast_GET_SIZE(wr);
	if (!n)
		Py_RETURN_NONE;
	for (i = 0; i < n; i++) {
		if (!PyObject_TypeCheck(items[i], tp)) {
			PyErr_Format(PyExc_TypeError,
				     "element %zd is not a %s but %.100s", i,
				     tp->tp_name, Py_TYPE(items[i])->tp_name);
			goto unmark;
		}
		if (!wr_mark_chain(items[i], send, self->qp_type)) {
			i++;
			goto unmark;
		}
	}
	/* Link each chain's tail to the next element for the call. */
	for (i = 0; i + 1 < n; i++) {
		PyObject *t = items[i];

		while (wr_next(t, send))
			t = wr_next(t, send);
		wr_set_c_next(t, items[i + 1], send);
	}
	rc = qp_post_c(self, wr_c(items[0], send), &bad, send);
	for (i = 0; i < n; i++)
		wr_unmark_chain(items[i], send, 1);
	if (rc)
		return qp_post_failed(rc, send, items, n, bad, bad_wr);
	Py_RETURN_NONE;

unmark:
	while (i-- > 0)
		wr_unmark_chain(items[i], send, 0);
	return NULL;

usage:
	PyErr_Format(PyExc_TypeError, "%s(wr, bad_wr=None): bad arguments",
		     send ? "post_send" : "post_recv");
	return NULL;
}

static PyObject *qp_post_send(PyObject *obj, PyObject *const *args,
			      Py_ssize_t nargs, PyObject *kwnames)
{
	return qp_post(obj, args, nargs, kwnames, 1);
}

static PyObject *qp_post_recv(PyObject *obj, PyObject *const *args,
			      Py_ssize_t nargs, PyObject *kwnames)
{
	return qp_post(obj, args, nargs, kwnames, 0);
}

/* ------------------------------------------------------------------ */
/* QP: properties and type                                             */
/* ------------------------------------------------------------------ */

static PyObject *qp_get_qp_num(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;

	if (qp_open(self))
		return NULL;
	return PyLong_FromUnsignedLong(self->qp->qp_num);
}

/* The state libibverbs caches in ibv_qp (updated by ibv_modify_qp and
 * ibv_query_qp), as upstream. */
static PyObject *qp_get_qp_state(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;

	if (qp_open(self))
		return NULL;
	return PyLong_FromLong(self->qp->state);
}

static PyObject *qp_get_qp_type(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;

	if (qp_open(self))
		return NULL;
	return PyLong_FromLong(self->qp->qp_type);
}

static PyObject *qp_get_qp(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->qp);
}

static PyObject *qp_get_parent(PyObject *obj, void *c)
{
	struct pv_qp *self = (struct pv_qp *)obj;
	struct pv_obj *o = NULL;

	if (!self->obj.closed) {
		if (!strcmp(c, "pd"))
			o = self->pd ? &self->pd->obj : NULL;
		else if (!strcmp(c, "scq"))
			o = self->scq ? &self->scq->obj : NULL;
		else if (!strcmp(c, "rcq"))
			o = self->rcq ? &self->rcq->obj : NULL;
		else if (!strcmp(c, "qp_context"))
			return get_slot(self->qp_context);
	}
	return get_slot((PyObject *)o);
}

static int qp_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct pv_qp *)obj)->qp_context);
	return pv_obj_traverse(PV_OBJ(obj), visit, arg);
}

static int qp_clear(PyObject *obj)
{
	pv_obj_clear(PV_OBJ(obj));
	Py_CLEAR(((struct pv_qp *)obj)->qp_context);
	return 0;
}

static PyMethodDef qp_methods[] = {
	{ "to_init", (PyCFunction)(void (*)(void))qp_to_init,
	  METH_VARARGS | METH_KEYWORDS,
	  "to_init($self, qp_attr)\n--\n\n"
	  "Move the QP to INIT with the attribute mask of its type." },
	{ "to_rtr", (PyCFunction)(void (*)(void))qp_to_rtr,
	  METH_VARARGS | METH_KEYWORDS,
	  "to_rtr($self, qp_attr)\n--\n\n"
	  "Move the QP to RTR (through INIT unless it is in INIT)." },
	{ "to_rts", (PyCFunction)(void (*)(void))qp_to_rts,
	  METH_VARARGS | METH_KEYWORDS,
	  "to_rts($self, qp_attr)\n--\n\n"
	  "Move the QP to RTS (through INIT and RTR unless it is in RTR)." },
	{ "modify", (PyCFunction)(void (*)(void))qp_modify,
	  METH_VARARGS | METH_KEYWORDS,
	  "modify($self, qp_attr, comp_mask)\n--\n\n"
	  "ibv_modify_qp() with the fields of qp_attr selected by comp_mask "
	  "(IBV_QP_* bits)." },
	{ "query", (PyCFunction)(void (*)(void))qp_query,
	  METH_VARARGS | METH_KEYWORDS,
	  "query($self, attr_mask)\n--\n\n"
	  "ibv_query_qp(): (QPAttr, QPInitAttr) with at least the fields of "
	  "attr_mask." },
	{ "query_data_in_order", (PyCFunction)(void (*)(void))
	  qp_query_data_in_order, METH_VARARGS | METH_KEYWORDS,
	  "query_data_in_order($self, op, flags=0)\n--\n\n"
	  "1 if the data of op is written in order, else 0." },
	{ "set_ece", (PyCFunction)(void (*)(void))qp_set_ece,
	  METH_VARARGS | METH_KEYWORDS,
	  "set_ece($self, ece)\n--\n\n"
	  "Set the ECE options (nothing when vendor_id is 0)." },
	{ "query_ece", qp_query_ece, METH_NOARGS,
	  "query_ece($self, /)\n--\n\nThe ECE options of the QP." },
	{ "post_send", (PyCFunction)(void (*)(void))qp_post_send,
	  METH_FASTCALL | METH_KEYWORDS,
	  "post_send($self, wr, bad_wr=None)\n--\n\n"
	  "Post a SendWR (with its next_wr chain) or a list of SendWRs in one "
	  "ibv_post_send().  On failure raises PyverbsRDMAError with "
	  "bad_wr_index, and copies the failing WR into bad_wr if given." },
	{ "post_recv", (PyCFunction)(void (*)(void))qp_post_recv,
	  METH_FASTCALL | METH_KEYWORDS,
	  "post_recv($self, wr, bad_wr=None)\n--\n\n"
	  "Post a RecvWR (with its chain) or a list of RecvWRs in one "
	  "ibv_post_recv(); failures as post_send()." },
	{ NULL }
};

static PyGetSetDef qp_getset[] = {
	{ "qp_num", qp_get_qp_num, NULL, "The QP number.", NULL },
	{ "qp_state", qp_get_qp_state, NULL,
	  "The QP state last set or queried (ibv_qp.state).", NULL },
	{ "qp_type", qp_get_qp_type, NULL, "The QP type (IBV_QPT_*).", NULL },
	{ "qp", qp_get_qp, NULL, "Address of the struct ibv_qp (0 if closed).",
	  NULL },
	{ "pd", qp_get_parent, NULL, "The PD of the QP (None if closed).",
	  "pd" },
	{ "scq", qp_get_parent, NULL, "The send CQ (None if closed).", "scq" },
	{ "rcq", qp_get_parent, NULL, "The receive CQ (None if closed).",
	  "rcq" },
	{ "qp_context", qp_get_parent, NULL,
	  "The qp_context of the init attributes.", "qp_context" },
	{ NULL }
};

static PyType_Slot qp_slots[] = {
	{ Py_tp_doc, "QP(creator, init_attr, qp_attr=None)\n--\n\n"
		     "A queue pair.  creator is a PD (init_attr a QPInitAttr, "
		     "ibv_create_qp) or a Context (init_attr a QPInitAttrEx, "
		     "ibv_create_qp_ex).  With qp_attr, UD and raw packet QPs "
		     "are moved to RTS and the other types to INIT." },
	{ Py_tp_init, qp_init },
	{ Py_tp_methods, qp_methods },
	{ Py_tp_getset, qp_getset },
	{ Py_tp_traverse, qp_traverse },
	{ Py_tp_clear, qp_clear },
	{ 0, NULL }
};

static PyType_Spec qp_spec = {
	.name = "pyverbs.qp.QP",
	.basicsize = sizeof(struct pv_qp),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = qp_slots,
};

/* ------------------------------------------------------------------ */
/* DataBuffer and QPEx: the ibv_wr_* send API                          */
/* ------------------------------------------------------------------ */

/* DataBuffer(addr, length): one buffer of wr_set_inline_data_list().
 * Upstream derives it from PyverbsCM. */
struct qp_data_buf {
	struct pv_obj obj;
	struct ibv_data_buf data;
};

static PyTypeObject *databuf_type, *qpex_type;

static int databuf_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "length", NULL };
	struct qp_data_buf *self = (struct qp_data_buf *)o;
	uint64_t addr;
	size_t length;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:DataBuffer", kwlist,
					 pv_conv_u64, &addr, pv_conv_size,
					 &length))
		return -1;
	self->data.addr = (void *)(uintptr_t)addr;
	self->data.length = length;
	return 0;
}

static PyObject *databuf_get(PyObject *o, void *c)
{
	struct qp_data_buf *self = (struct qp_data_buf *)o;

	if (c)
		return PyLong_FromSize_t(self->data.length);
	return PyLong_FromVoidPtr(self->data.addr);
}

static PyGetSetDef databuf_getset[] = {
	{ "addr", databuf_get, NULL, "The buffer's address.", NULL },
	{ "length", databuf_get, NULL, "The buffer's length.", (void *)1 },
	{ NULL }
};

static PyType_Slot databuf_slots[] = {
	{ Py_tp_doc, "DataBuffer(addr, length)\n--\n\n"
		     "A buffer (struct ibv_data_buf) for "
		     "QPEx.wr_set_inline_data_list()." },
	{ Py_tp_init, databuf_init },
	{ Py_tp_getset, databuf_getset },
	PV_CM_SLOTS,
	{ 0, NULL }
};

static PyType_Spec databuf_spec = {
	.name = "pyverbs.qp.DataBuffer",
	.basicsize = sizeof(struct qp_data_buf),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = databuf_slots,
};

#define QPX(o) ((struct pv_qp_ex *)(o))

/* A batch is over: forget the AHs it used. */
static void qpx_end_batch(struct pv_qp_ex *self)
{
	self->in_wr = 0;
	Py_CLEAR(self->ahs);
}

/* ibv_wr_start() takes a lock in some providers (rxe): a batch left open
 * is aborted before the QP is destroyed. */
static int qpx_destroy(struct pv_obj *o)
{
	struct pv_qp_ex *self = QPX(o);

	if (self->in_wr && self->qpx)
		ibv_wr_abort(self->qpx);
	qpx_end_batch(self);
	if (qp_destroy(o))
		return -1;
	self->qpx = NULL;
	return 0;
}

static int qpx_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "creator", "init_attr", "qp_attr", NULL };
	struct pv_qp_ex *self = QPX(obj);
	PyObject *creator, *init_attr, *qp_attr = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:QPEx", kwlist,
					 &creator, &init_attr, &qp_attr))
		return -1;
	if (qp_init(obj, args, kw))
		return -1;
	self->qp.obj.destroy = qpx_destroy;
	self->qpx = NULL;
	qpx_end_batch(self);
	if (type_ok(init_attr, pv.QPInitAttrEx) &&
	    (((struct pv_qp_init_attr_ex *)init_attr)->attr.comp_mask &
	     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		self->qpx = ibv_qp_to_qp_ex(self->qp.qp);
		if (!self->qpx) {
			PyObject *et, *ev, *tb;

			pv_raise_errno("ibv_qp_to_qp_ex",
				       "Failed to create extended QP");
			PyErr_Fetch(&et, &ev, &tb);
			if (pv_close(&self->qp.obj))
				PyErr_WriteUnraisable(obj);
			PyErr_Restore(et, ev, tb);
			return -1;
		}
	}
	return 0;
}

/* The ibv_qp_ex of an open QPEx created with send ops flags, or NULL. */
static struct ibv_qp_ex *qpx_get(PyObject *obj)
{
	struct pv_qp_ex *self = QPX(obj);

	if (pv_check_open(&self->qp.obj))
		return NULL;
	if (!self->qpx) {
		pv_raise_user("This QPEx was created without "
			      "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: the ibv_wr_* "
			      "API is not available");
		return NULL;
	}
	return self->qpx;
}

/* As qpx_get(), inside a wr_start() .. wr_complete() batch. */
static struct ibv_qp_ex *qpx_batch(PyObject *obj)
{
	struct ibv_qp_ex *qpx = qpx_get(obj);

	if (qpx && !QPX(obj)->in_wr) {
		pv_raise_user("Call wr_start() before building a work request");
		return NULL;
	}
	return qpx;
}

/*
 * A provider sets only the builders of the operations the QP was created
 * for (send_ops_flags); calling a missing one would jump to NULL.
 */
static int qpx_has(const void *fn, const char *name)
{
	if (fn)
		return 1;
	pv_raise_user("%s() is not available on this QP (not in its "
		      "send_ops_flags, or not supported by the provider)",
		      name);
	return 0;
}

#define QPX_CALL(obj, fn, ...)                                          \
	do {                                                            \
		struct ibv_qp_ex *qpx_ = qpx_batch(obj);                 \
		if (!qpx_ || !qpx_has((const void *)qpx_->fn, #fn))      \
			return NULL;                                    \
		qpx_->fn(qpx_, ##__VA_ARGS__);                          \
	} while (0)

static PyObject *qpx_wr_start(PyObject *obj, PyObject *unused)
{
	struct ibv_qp_ex *qpx = qpx_get(obj);

	if (!qpx)
		return NULL;
	if (QPX(obj)->in_wr)	/* a second ibv_wr_start() can deadlock */
		return pv_raise_user("wr_start() was already called: finish "
				     "with wr_complete() or wr_abort() first");
	ibv_wr_start(qpx);
	QPX(obj)->in_wr = 1;
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_complete(PyObject *obj, PyObject *unused)
{
	struct pv_qp_ex *self = QPX(obj);
	struct ibv_qp_ex *qpx = qpx_batch(obj);
	Py_ssize_t i;
	int rc;

	if (!qpx)
		return NULL;
	for (i = 0; self->ahs && i < PyList_GET_SIZE(self->ahs); i++)
		if (PV_OBJ(PyList_GET_ITEM(self->ahs, i))->closed) {
			ibv_wr_abort(qpx);
			qpx_end_batch(self);
			return pv_raise_user("An AH given to wr_set_ud_addr() "
					     "was closed: the batch is "
					     "aborted");
		}
	rc = ibv_wr_complete(qpx);	/* returns errno */
	qpx_end_batch(self);
	if (rc)
		return pv_raise_rc(rc, "ibv_wr_complete",
				   "ibv_wr_complete failed.");
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_abort(PyObject *obj, PyObject *unused)
{
	struct ibv_qp_ex *qpx = qpx_batch(obj);

	if (!qpx)
		return NULL;
	ibv_wr_abort(qpx);
	qpx_end_batch(QPX(obj));
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_send(PyObject *obj, PyObject *unused)
{
	QPX_CALL(obj, wr_send);
	Py_RETURN_NONE;
}

/* Parse the single uint32_t argument of a builder; 0 or -1. */
static int qpx_u32_arg(PyObject *args, PyObject *kw, const char *fname,
		       const char *kwname, uint32_t *out)
{
	char *kwlist[] = { (char *)kwname, NULL };
	char fmt[48];

	snprintf(fmt, sizeof(fmt), "O&:%s", fname);
	return PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv_conv_u32,
					   out) ? 0 : -1;
}

static PyObject *qpx_wr_send_imm(PyObject *obj, PyObject *args,
				 PyObject *kw)
{
	uint32_t data;

	if (qpx_u32_arg(args, kw, "wr_send_imm", "data", &data))
		return NULL;
	QPX_CALL(obj, wr_send_imm, htobe32(data));
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_send_inv(PyObject *obj, PyObject *args,
				 PyObject *kw)
{
	uint32_t rkey;

	if (qpx_u32_arg(args, kw, "wr_send_inv", "invalidate_rkey", &rkey))
		return NULL;
	QPX_CALL(obj, wr_send_inv, rkey);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_local_inv(PyObject *obj, PyObject *args,
				  PyObject *kw)
{
	uint32_t rkey;

	if (qpx_u32_arg(args, kw, "wr_local_inv", "invalidate_rkey", &rkey))
		return NULL;
	QPX_CALL(obj, wr_local_inv, rkey);
	Py_RETURN_NONE;
}

/* Copy len bytes at a Python-given address into a new PyMem block (the
 * provider copies inline data and TSO headers in user space). */
static void *qpx_copy_in(uint64_t addr, size_t len)
{
	void *buf = PyMem_Malloc(len ? len : 1);

	if (!buf) {
		PyErr_NoMemory();
		return NULL;
	}
	if (pv_read_mem(buf, addr, len)) {
		PyMem_Free(buf);
		return NULL;
	}
	return buf;
}

static PyObject *qpx_wr_send_tso(PyObject *obj, PyObject *args,
				 PyObject *kw)
{
	static char *kwlist[] = { "hdr", "hdr_sz", "mss", NULL };
	uint64_t hdr;
	uint16_t hdr_sz, mss;
	struct ibv_qp_ex *qpx;
	void *buf;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&:wr_send_tso",
					 kwlist, pv_conv_u64, &hdr,
					 pv_conv_u16, &hdr_sz, pv_conv_u16,
					 &mss))
		return NULL;
	qpx = qpx_batch(obj);
	if (!qpx || !qpx_has((const void *)qpx->wr_send_tso, "wr_send_tso"))
		return NULL;
	buf = qpx_copy_in(hdr, hdr_sz);
	if (!buf)
		return NULL;
	ibv_wr_send_tso(qpx, buf, hdr_sz, mss);
	PyMem_Free(buf);
	Py_RETURN_NONE;
}

/* closure: the builder, 0 read, 1 write */
static PyObject *qpx_wr_rdma(PyObject *obj, PyObject *args, PyObject *kw,
			     int write)
{
	static char *kwlist[] = { "rkey", "remote_addr", NULL };
	uint32_t rkey;
	uint64_t addr;

	if (!PyArg_ParseTupleAndKeywords(args, kw, write ? "O&O&:wr_rdma_write"
					 : "O&O&:wr_rdma_read", kwlist,
					 pv_conv_u32, &rkey, pv_conv_u64,
					 &addr))
		return NULL;
	if (write)
		QPX_CALL(obj, wr_rdma_write, rkey, addr);
	else
		QPX_CALL(obj, wr_rdma_read, rkey, addr);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_rdma_read(PyObject *obj, PyObject *args,
				  PyObject *kw)
{
	return qpx_wr_rdma(obj, args, kw, 0);
}

static PyObject *qpx_wr_rdma_write(PyObject *obj, PyObject *args,
				   PyObject *kw)
{
	return qpx_wr_rdma(obj, args, kw, 1);
}

static PyObject *qpx_wr_rdma_write_imm(PyObject *obj, PyObject *args,
				       PyObject *kw)
{
	static char *kwlist[] = { "rkey", "remote_addr", "data", NULL };
	uint32_t rkey, data;
	uint64_t addr;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&:wr_rdma_write_imm",
					 kwlist, pv_conv_u32, &rkey,
					 pv_conv_u64, &addr, pv_conv_u32,
					 &data))
		return NULL;
	QPX_CALL(obj, wr_rdma_write_imm, rkey, addr, htobe32(data));
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_atomic_cmp_swp(PyObject *obj, PyObject *args,
				       PyObject *kw)
{
	static char *kwlist[] = { "rkey", "remote_addr", "compare", "swap",
				  NULL };
	uint32_t rkey;
	uint64_t addr, compare, swap;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&:wr_atomic_cmp_swp",
					 kwlist, pv_conv_u32, &rkey,
					 pv_conv_u64, &addr, pv_conv_u64,
					 &compare, pv_conv_u64, &swap))
		return NULL;
	QPX_CALL(obj, wr_atomic_cmp_swp, rkey, addr, compare, swap);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_atomic_fetch_add(PyObject *obj, PyObject *args,
					 PyObject *kw)
{
	static char *kwlist[] = { "rkey", "remote_addr", "add", NULL };
	uint32_t rkey;
	uint64_t addr, add;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O&O&O&:wr_atomic_fetch_add", kwlist,
					 pv_conv_u32, &rkey, pv_conv_u64,
					 &addr, pv_conv_u64, &add))
		return NULL;
	QPX_CALL(obj, wr_atomic_fetch_add, rkey, addr, add);
	Py_RETURN_NONE;
}

/* atomic_wr: 8 bytes (bytes-like) written at remote_addr atomically. */
static PyObject *qpx_wr_atomic_write(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "rkey", "remote_addr", "atomic_wr", NULL };
	uint32_t rkey;
	uint64_t addr;
	Py_buffer data;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&y*:wr_atomic_write",
					 kwlist, pv_conv_u32, &rkey,
					 pv_conv_u64, &addr, &data))
		return NULL;
	if (data.len < 8) {
		PyBuffer_Release(&data);
		PyErr_SetString(PyExc_ValueError,
				"atomic_wr must hold at least 8 bytes");
		return NULL;
	}
#if HAVE_IBV_WR_ATOMIC_WRITE
	{
		struct ibv_qp_ex *qpx = qpx_batch(obj);

		if (!qpx || !qpx_has((const void *)qpx->wr_atomic_write,
				     "wr_atomic_write")) {
			PyBuffer_Release(&data);
			return NULL;
		}
		ibv_wr_atomic_write(qpx, rkey, addr, data.buf);
	}
	PyBuffer_Release(&data);
	Py_RETURN_NONE;
#else
	PyBuffer_Release(&data);
	return pv_raise_unsupported("wr_atomic_write (ibv_wr_atomic_write)");
#endif
}

static PyObject *qpx_wr_flush(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "rkey", "remote_addr", "length", "ptype",
				  "level", NULL };
	uint32_t rkey, len;
	uint64_t addr;
	uint8_t ptype, level;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&O&:wr_flush",
					 kwlist, pv_conv_u32, &rkey,
					 pv_conv_u64, &addr, pv_conv_u32, &len,
					 pv_conv_u8, &ptype, pv_conv_u8,
					 &level))
		return NULL;
#if HAVE_IBV_WR_FLUSH
	QPX_CALL(obj, wr_flush, rkey, addr, len, ptype, level);
	Py_RETURN_NONE;
#else
	return pv_raise_unsupported("wr_flush (ibv_wr_flush)");
#endif
}

static PyObject *qpx_wr_bind_mw(PyObject *obj, PyObject *args, PyObject *kw)
{
	if (!qpx_batch(obj))
		return NULL;
	return pv_raise_user("QPEx.wr_bind_mw(): memory windows are not "
			     "implemented in this version of pyverbs-c");
}

static PyObject *qpx_wr_set_ud_addr(PyObject *obj, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = { "ah", "remote_qpn", "remote_rkey", NULL };
	struct pv_qp_ex *self = QPX(obj);
	uint32_t qpn, qkey;
	struct pv_ah *ah;
	PyObject *aho;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&:wr_set_ud_addr",
					 kwlist, &aho, pv_conv_u32, &qpn,
					 pv_conv_u32, &qkey))
		return NULL;
	if (!type_ok(aho, pv.AH)) {
		PyErr_Format(PyExc_TypeError, "ah must be an AH, not %.100s",
			     Py_TYPE(aho)->tp_name);
		return NULL;
	}
	ah = (struct pv_ah *)aho;
	if (!qpx_batch(obj) || pv_check_open(&ah->obj))
		return NULL;
	if (!self->ahs && !(self->ahs = PyList_New(0)))
		return NULL;
	if (PyList_Append(self->ahs, aho))
		return NULL;
	QPX_CALL(obj, wr_set_ud_addr, ah->ah, qpn, qkey);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_set_xrc_srqn(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "remote_srqn", NULL };
	uint32_t srqn;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:wr_set_xrc_srqn",
					 kwlist, pv_conv_u32, &srqn))
		return NULL;
	QPX_CALL(obj, wr_set_xrc_srqn, srqn);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_set_inline_data(PyObject *obj, PyObject *args,
					PyObject *kw)
{
	static char *kwlist[] = { "addr", "length", NULL };
	struct ibv_qp_ex *qpx;
	uint64_t addr;
	size_t len;
	void *buf;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:wr_set_inline_data",
					 kwlist, pv_conv_u64, &addr,
					 pv_conv_size, &len))
		return NULL;
	qpx = qpx_batch(obj);
	if (!qpx || !qpx_has((const void *)qpx->wr_set_inline_data,
			     "wr_set_inline_data"))
		return NULL;
	buf = qpx_copy_in(addr, len);
	if (!buf)
		return NULL;
	ibv_wr_set_inline_data(qpx, buf, len);
	PyMem_Free(buf);
	Py_RETURN_NONE;
}

/* The first n items of a list/tuple of type tp, as a borrowed array. */
static PyObject *const *qpx_items(PyObject *list, Py_ssize_t n,
				  PyTypeObject *tp, const char *what)
{
	PyObject *const *items;
	Py_ssize_t i;

	if (!PyList_Check(list) && !PyTuple_Check(list)) {
		PyErr_Format(PyExc_TypeError, "%s must be a list, not %.100s",
			     what, Py_TYPE(list)->tp_name);
		return NULL;
	}
	if (n > PySequence_Fast_GET_SIZE(list)) {
		PyErr_Format(PyExc_ValueError, "%s has fewer than %zd items",
			     what, n);
		return NULL;
	}
	items = PySequence_Fast_ITEMS(list);
	for (i = 0; i < n; i++)
		if (!type_ok(items[i], tp)) {
			PyErr_Format(PyExc_TypeError, "%s[%zd] must be a %s, "
				     "not %.100s", what, i,
				     tp ? tp->tp_name : "?",
				     Py_TYPE(items[i])->tp_name);
			return NULL;
		}
	return items;
}

static PyObject *qpx_wr_set_inline_data_list(PyObject *obj, PyObject *args,
					     PyObject *kw)
{
	static char *kwlist[] = { "num_buf", "buf_list", NULL };
	struct ibv_data_buf *bufs = NULL;
	PyObject *const *items;
	struct ibv_qp_ex *qpx;
	PyObject *list, *res = NULL;
	size_t total = 0, off = 0, i;
	char *data = NULL;
	uint32_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O&O:wr_set_inline_data_list", kwlist,
					 pv_conv_u32, &n, &list))
		return NULL;
	qpx = qpx_batch(obj);
	if (!qpx || !qpx_has((const void *)qpx->wr_set_inline_data_list,
			     "wr_set_inline_data_list"))
		return NULL;
	items = qpx_items(list, n, databuf_type, "buf_list");
	if (!items)
		return NULL;
	for (i = 0; i < n; i++) {
		size_t l = ((struct qp_data_buf *)items[i])->data.length;

		if (total + l < total)
			return PyErr_NoMemory();
		total += l;
	}
	bufs = PyMem_Calloc(n ? n : 1, sizeof(*bufs));
	data = PyMem_Malloc(total ? total : 1);
	if (!bufs || !data) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct ibv_data_buf *d = &((struct qp_data_buf *)items[i])->data;

		if (pv_read_mem(data + off, (uintptr_t)d->addr, d->length))
			goto out;
		bufs[i].addr = data + off;
		bufs[i].length = d->length;
		off += d->length;
	}
	ibv_wr_set_inline_data_list(qpx, n, bufs);
	res = Py_NewRef(Py_None);
out:
	PyMem_Free(bufs);
	PyMem_Free(data);
	return res;
}

static PyObject *qpx_wr_set_sge(PyObject *obj, PyObject *arg)
{
	struct ibv_sge *s;

	if (!type_ok(arg, pv.SGE)) {
		PyErr_Format(PyExc_TypeError, "expected an SGE, not %.100s",
			     Py_TYPE(arg)->tp_name);
		return NULL;
	}
	s = &((struct pv_sge *)arg)->sge;
	QPX_CALL(obj, wr_set_sge, s->lkey, s->addr, s->length);
	Py_RETURN_NONE;
}

static PyObject *qpx_wr_set_sge_list(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	static char *kwlist[] = { "num_sge", "sg_list", NULL };
	struct ibv_sge stack[16], *sg = stack;
	PyObject *const *items;
	struct ibv_qp_ex *qpx;
	PyObject *list;
	uint32_t n, i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O:wr_set_sge_list",
					 kwlist, pv_conv_u32, &n, &list))
		return NULL;
	qpx = qpx_batch(obj);
	if (!qpx || !qpx_has((const void *)qpx->wr_set_sge_list,
			     "wr_set_sge_list"))
		return NULL;
	items = qpx_items(list, n, pv.SGE, "sg_list");
	if (!items)
		return NULL;
	if (n > 16 && !(sg = PyMem_Malloc(n * sizeof(*sg))))
		return PyErr_NoMemory();
	for (i = 0; i < n; i++)
		sg[i] = ((struct pv_sge *)items[i])->sge;
	ibv_wr_set_sge_list(qpx, n, sg);
	if (sg != stack)
		PyMem_Free(sg);
	Py_RETURN_NONE;
}

/* closure: 0 wr_id, 1 wr_flags, 2 comp_mask */
static PyObject *qpx_get_field(PyObject *obj, void *c)
{
	struct ibv_qp_ex *qpx = qpx_get(obj);

	if (!qpx)
		return NULL;
	switch ((intptr_t)c) {
	case 0:
		return PyLong_FromUnsignedLongLong(qpx->wr_id);
	case 1:
		return PyLong_FromUnsignedLong(qpx->wr_flags);
	default:
		return PyLong_FromUnsignedLongLong(qpx->comp_mask);
	}
}

static int qpx_set_field(PyObject *obj, PyObject *v, void *c)
{
	static const char *const names[] = { "wr_id", "wr_flags",
					     "comp_mask" };
	struct ibv_qp_ex *qpx;
	uint64_t x;

	if (refuse_delete(v, names[(intptr_t)c]))
		return -1;
	if (pv_to_u64(v, (intptr_t)c == 1 ? UINT32_MAX : UINT64_MAX, &x,
		      names[(intptr_t)c]))
		return -1;
	qpx = qpx_get(obj);
	if (!qpx)
		return -1;
	switch ((intptr_t)c) {
	case 0:
		qpx->wr_id = x;
		break;
	case 1:
		qpx->wr_flags = (unsigned int)x;
		break;
	default:
		qpx->comp_mask = x;
	}
	return 0;
}

static PyObject *qpx_get_ind_table(PyObject *obj, void *c)
{
	Py_RETURN_NONE;
}

static int qpx_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(QPX(obj)->ahs);
	return qp_traverse(obj, visit, arg);
}

static int qpx_clear(PyObject *obj)
{
	qp_clear(obj);	/* closes first: aborts an open batch */
	Py_CLEAR(QPX(obj)->ahs);
	return 0;
}

#define QPX_M(name, flags, sig, doc)                                    \
	{ #name, (PyCFunction)(void (*)(void))qpx_##name, flags,        \
	  #name "($self" sig ")\n--\n\n" doc }
#define QPX_KW (METH_VARARGS | METH_KEYWORDS)

static PyMethodDef qpx_methods[] = {
	QPX_M(wr_start, METH_NOARGS, ", /",
	      "Start a batch of work requests (ibv_wr_start)."),
	QPX_M(wr_complete, METH_NOARGS, ", /",
	      "Post the batch (ibv_wr_complete)."),
	QPX_M(wr_abort, METH_NOARGS, ", /",
	      "Drop the batch (ibv_wr_abort)."),
	QPX_M(wr_send, METH_NOARGS, ", /", "A SEND."),
	QPX_M(wr_send_imm, QPX_KW, ", data", "A SEND with immediate data."),
	QPX_M(wr_send_inv, QPX_KW, ", invalidate_rkey",
	      "A SEND with invalidate."),
	QPX_M(wr_send_tso, QPX_KW, ", hdr, hdr_sz, mss",
	      "A TSO send; hdr is the address of the header."),
	QPX_M(wr_rdma_read, QPX_KW, ", rkey, remote_addr", "An RDMA READ."),
	QPX_M(wr_rdma_write, QPX_KW, ", rkey, remote_addr", "An RDMA WRITE."),
	QPX_M(wr_rdma_write_imm, QPX_KW, ", rkey, remote_addr, data",
	      "An RDMA WRITE with immediate data."),
	QPX_M(wr_atomic_cmp_swp, QPX_KW, ", rkey, remote_addr, compare, swap",
	      "An atomic compare and swap."),
	QPX_M(wr_atomic_fetch_add, QPX_KW, ", rkey, remote_addr, add",
	      "An atomic fetch and add."),
	QPX_M(wr_atomic_write, QPX_KW, ", rkey, remote_addr, atomic_wr",
	      "An atomic write of the 8 bytes of atomic_wr."),
	QPX_M(wr_flush, QPX_KW, ", rkey, remote_addr, length, ptype, level",
	      "A FLUSH (rdma-core 45 and later)."),
	QPX_M(wr_bind_mw, QPX_KW, ", mw, rkey, bind_info",
	      "Bind a memory window (not implemented yet)."),
	QPX_M(wr_local_inv, QPX_KW, ", invalidate_rkey",
	      "A local invalidate."),
	QPX_M(wr_set_ud_addr, QPX_KW, ", ah, remote_qpn, remote_rkey",
	      "Address the WR (UD); the AH must stay open until "
	      "wr_complete()."),
	QPX_M(wr_set_xrc_srqn, QPX_KW, ", remote_srqn",
	      "The remote SRQ of an XRC WR."),
	QPX_M(wr_set_inline_data, QPX_KW, ", addr, length",
	      "Inline data, copied from addr now."),
	QPX_M(wr_set_inline_data_list, QPX_KW, ", num_buf, buf_list",
	      "Inline data from num_buf DataBuffers, copied now."),
	QPX_M(wr_set_sge, METH_O, ", sge, /", "The WR's single SGE."),
	QPX_M(wr_set_sge_list, QPX_KW, ", num_sge, sg_list",
	      "The WR's SGEs."),
	{ NULL }
};

static PyGetSetDef qpx_getset[] = {
	{ "wr_id", qpx_get_field, qpx_set_field,
	  "The wr_id of the next work requests built.", (void *)0 },
	{ "wr_flags", qpx_get_field, qpx_set_field,
	  "The send flags (IBV_SEND_*) of the next work requests built.",
	  (void *)1 },
	{ "comp_mask", qpx_get_field, qpx_set_field,
	  "The comp_mask of the ibv_qp_ex.", (void *)2 },
	{ "ind_table", qpx_get_ind_table, NULL,
	  "The RWQ indirection table: None (not implemented yet).", NULL },
	{ NULL }
};

static PyType_Slot qpx_slots[] = {
	{ Py_tp_doc, "QPEx(creator, init_attr, qp_attr=None)\n--\n\n"
		     "A QP with the ibv_wr_* send API (wr_start(), wr_send(), "
		     "wr_set_sge(), ..., wr_complete()); init_attr.comp_mask "
		     "must include IBV_QP_INIT_ATTR_SEND_OPS_FLAGS for it." },
	{ Py_tp_init, qpx_init },
	{ Py_tp_methods, qpx_methods },
	{ Py_tp_getset, qpx_getset },
	{ Py_tp_traverse, qpx_traverse },
	{ Py_tp_clear, qpx_clear },
	{ 0, NULL }
};

static PyType_Spec qpx_spec = {
	.name = "pyverbs.qp.QPEx",
	.basicsize = sizeof(struct pv_qp_ex),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = qpx_slots,
};

/* ------------------------------------------------------------------ */
/* Registration                                                        */
/* ------------------------------------------------------------------ */

int pv_qp_init_types(PyObject *m)
{
	if (pv_add_data_type(m, &cap_spec, pv.PyverbsObject, cap_fields, NULL,
			     NULL, &pv.QPCap) ||
	    pv_add_data_type(m, &qia_spec, pv.PyverbsObject, qia_fields,
			     qia_oslots, qia_extra, &pv.QPInitAttr) ||
	    pv_add_data_type(m, &qiax_spec, pv.PyverbsObject, qiax_fields,
			     qiax_oslots, qiax_extra, &pv.QPInitAttrEx) ||
	    pv_add_data_type(m, &qa_spec, pv.PyverbsObject, qa_fields, NULL,
			     qa_extra, &pv.QPAttr) ||
	    pv_add_data_type(m, &ece_spec, pv.PyverbsCM, ece_fields, NULL,
			     NULL, &ece_type))
		return -1;
	if (pv_add_type(m, &qp_spec, pv.PyverbsCM, &pv.QP) ||
	    pv_add_type(m, &databuf_spec, pv.PyverbsCM, &databuf_type))
		return -1;
	return pv_add_type(m, &qpx_spec, pv.QP, &qpex_type);
}
