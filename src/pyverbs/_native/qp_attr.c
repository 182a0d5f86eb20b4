/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The attribute objects of queue pairs (plain data): QPCap, QPInitAttr,
 * QPInitAttrEx, QPAttr, ECE, and DataBuffer (for
 * QPEx.wr_set_inline_data_list()).  They follow upstream pyverbs: the same
 * keyword names and defaults; in addition every field of QPAttr (and the
 * capability fields of the init attributes) may be given as a keyword
 * argument.  The objects an init attribute names (CQs, PD, SRQ, XRCD, ...)
 * are only held here; pv_qp_init_attr_objs() checks them when qp.c
 * creates a QP, which then takes their pointers.
 */
#include "qp_attr.h" /* first: Python.h defines _GNU_SOURCE */
#include "addr.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "rwq_ind_table.h"
#include "state.h"

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
			     "(%zd given)",
			     tname, npar, nargs);
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
		if (!(f && !(f->flags & PV_FLAG_RO)) &&
		    !is_extra(extra, name)) {
			PyErr_Format(PyExc_TypeError,
				     "%s() got an unexpected keyword argument "
				     "'%s'",
				     tname, name);
			return -1;
		}
		if (PyObject_SetAttr(self, k, v))
			return -1;
	}
	return 0;
}

/* A send or receive CQ: a CQ, a CQEX or None (qp_attr.h). */
int pv_oslot_check_cq(PyObject *v)
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

#define CAP_FIELDS(st, pre)                                     \
	PV_FIELD(st, pre max_send_wr, "max_send_wr"),           \
		PV_FIELD(st, pre max_recv_wr, "max_recv_wr"),   \
		PV_FIELD(st, pre max_send_sge, "max_send_sge"), \
		PV_FIELD(st, pre max_recv_sge, "max_recv_sge"), \
		PV_FIELD(st, pre max_inline_data, "max_inline_data")

static const struct pv_field cap_fields[] = {
	CAP_FIELDS(struct pv_qp_cap, cap.), PV_FIELD_END
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

	self->cap = (struct ibv_qp_cap){ .max_send_wr = 1,
					 .max_recv_wr = 10,
					 .max_send_sge = 1,
					 .max_recv_sge = 1 };
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
	if (pv_refuse_delete(v, "cap"))
		return -1;
	if (v == Py_None)
		return 0;
	if (!pv_type_ok(v, pv.QPCap)) {
		PyErr_Format(PyExc_TypeError, "cap must be a QPCap, not %.100s",
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	*cap_at(o, c) = ((struct pv_qp_cap *)v)->cap;
	return 0;
}

#define CAP_GETSET(st)                                                    \
	{ "cap", cap_get, cap_set,                                        \
	  "A copy of the capabilities (QPCap); assign a QPCap to change " \
	  "them.",                                                        \
	  (void *)offsetof(st, attr.cap) }

PV_DATA_SPEC(cap, "pyverbs.qp.QPCap", struct pv_qp_cap,
	     "QPCap(max_send_wr=1, max_recv_wr=10, max_send_sge=1, "
	     "max_recv_sge=1, max_inline_data=0)\n--\n\n"
	     "The capabilities of a QP (struct ibv_qp_cap).",
	     { Py_tp_init, cap_init }, );

/* ------------------------------------------------------------------ */
/* QPInitAttr and QPInitAttrEx                                         */
/* ------------------------------------------------------------------ */

/*
 * The objects both types hold, with their checks; they are turned into C
 * pointers only when a QP is created (qp_init()).
 */
#define QIA_OSLOTS(st)                                                         \
	PV_OSLOT(st, qp_context, "qp_context",                                 \
		 "Any object the user associates with the QP."),               \
		PV_OSLOT_CHECK(st, scq, "send_cq", pv_oslot_check_cq,          \
			       "The send CQ (a CQ, a CQEX or None)."),         \
		PV_OSLOT_CHECK(st, rcq, "recv_cq", pv_oslot_check_cq,          \
			       "The receive CQ (a CQ, a CQEX or None)."),      \
		PV_OSLOT_TYPE(st, srq, "srq", &pv.SRQ, "srq must be an SRQ",   \
			      "The shared receive queue of the QP (an SRQ or " \
			      "None).")

static const struct pv_oslot qia_oslots[] = {
	QIA_OSLOTS(struct pv_qp_init_attr), PV_OSLOT_END
};

PV_OSLOTS_GC(qia, qia_oslots)

static const struct pv_field qia_fields[] = {
	PV_FIELD(struct pv_qp_init_attr, attr.qp_type, "qp_type"),
	PV_FIELD(struct pv_qp_init_attr, attr.sq_sig_all, "sq_sig_all"),
	CAP_FIELDS(struct pv_qp_init_attr, attr.cap.), PV_FIELD_END
};

static const PyGetSetDef qia_extra[] = { CAP_GETSET(struct pv_qp_init_attr),
					 { NULL } };

/* The constructor parameters both types start with, in upstream's order. */
#define QIA_PARAMS                                                            \
	{ "qp_type", "qp_type" }, { "qp_context", "qp_context" },             \
		{ "scq", "send_cq" }, { "rcq", "recv_cq" }, { "srq", "srq" }, \
		{ "cap", "cap" }, { "sq_sig_all", "sq_sig_all" }

static const struct qp_param qia_params[] = { QIA_PARAMS, { NULL } };

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

PV_GC_TYPE_SPEC(qia, "pyverbs.qp.QPInitAttr", struct pv_qp_init_attr,
		"QPInitAttr(qp_type=4, qp_context=None, "
		"scq=None, rcq=None, srq=None, cap=None, sq_sig_all=1)"
		"\n--\n\n"
		"Defaults: qp_type=IBV_QPT_UD.\n"
		"The attributes of a QP created on a PD (struct "
		"ibv_qp_init_attr).  The capability fields (max_send_wr, "
		"...) are also accepted as keyword arguments.",
		{ Py_tp_init, qia_init }, PV_OSLOTS_GC_SLOTS(qia),
		{ Py_tp_getset, NULL },
		/* filled by pv_add_data_type() */);

/* ---- QPInitAttrEx ---- */

#define QIAX struct pv_qp_init_attr_ex
static const struct pv_oslot qiax_oslots[] = {
	QIA_OSLOTS(QIAX),
	PV_OSLOT_TYPE(QIAX, pd, "pd", &pv.PD, "pd must be a PD",
		      "The PD of the QP (a PD or None)."),
	PV_OSLOT_TYPE(QIAX, xrcd, "xrcd", &pv.XRCD, "xrcd must be an XRCD",
		      "The XRC domain of an XRC receive QP (an XRCD or "
		      "None)."),
	PV_OSLOT_TYPE(QIAX, ind_table, "ind_table", &pv.RwqIndTable,
		      "ind_table must be an RwqIndTable",
		      "The RWQ indirection table of an RSS QP (an RwqIndTable "
		      "or None)."),
	PV_OSLOT_TYPE(QIAX, hash_conf, "hash_conf", &pv.RxHashConf,
		      "hash_conf must be an RxHashConf",
		      "The RX hash of an RSS QP (an RxHashConf or None), read "
		      "when the QP is created."),
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

static const PyGetSetDef qiax_extra[] = { CAP_GETSET(QIAX), { NULL } };

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
	return attr_apply(o, args, kw, "QPInitAttrEx", qiax_params, qiax_fields,
			  NULL);
}

PV_GC_TYPE_SPEC(qiax, "pyverbs.qp.QPInitAttrEx", struct pv_qp_init_attr_ex,
		"QPInitAttrEx(qp_type=4, qp_context=None, "
		"scq=None, rcq=None, srq=None, cap=None, sq_sig_all=0, "
		"comp_mask=0, pd=None, xrcd=None, create_flags=0, "
		"max_tso_header=0, source_qpn=0, hash_conf=None, "
		"ind_table=None, send_ops_flags=0)\n--\n\n"
		"Defaults: qp_type=IBV_QPT_UD.\n"
		"The attributes of a QP created on a Context (struct "
		"ibv_qp_init_attr_ex).  The capability fields are also "
		"accepted as keyword arguments.",
		{ Py_tp_init, qiax_init }, PV_OSLOTS_GC_SLOTS(qiax),
		{ Py_tp_getset, NULL },
		/* filled by pv_add_data_type() */);

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

	if (pv_refuse_delete(v, name))
		return -1;
	if (v == Py_None)
		return 0;
	if (!pv_type_ok(v, pv.AHAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "%s must be an AHAttr, not %.100s", name,
			     Py_TYPE(v)->tp_name);
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
	  "it.",
	  NULL },
	{ "alt_ah_attr", qa_get_ah, qa_set_ah,
	  "A copy of the alternate path (AHAttr); assign an AHAttr to change "
	  "it.",
	  (void *)1 },
	{ NULL }
};

static const char *const qa_extra_names[] = { "cap", "ah_attr", "alt_ah_attr",
					      NULL };

static const struct qp_param qa_params[] = { { "qp_state", "qp_state" },
					     { "cur_qp_state", "cur_qp_state" },
					     { "port_num", "port_num" },
					     { "path_mtu", "path_mtu" },
					     { NULL } };

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

PV_DATA_SPEC(qa, "pyverbs.qp.QPAttr", struct pv_qp_attr,
	     "QPAttr(qp_state=1, cur_qp_state=0,"
	     " port_num=1, path_mtu=3, **fields)\n--\n\n"
	     "Defaults: qp_state=IBV_QPS_INIT, "
	     "cur_qp_state=IBV_QPS_RESET, path_mtu=IBV_MTU_1024.\n"
	     "The attributes used to modify a QP (struct ibv_qp_attr). "
	     "Any field (qkey, dest_qp_num, rq_psn, ah_attr, cap, ...) "
	     "may also be given as a keyword argument.",
	     { Py_tp_init, qa_init }, { Py_tp_methods, qa_methods }, );

/* ------------------------------------------------------------------ */
/* ECE                                                                 */
/* ------------------------------------------------------------------ */

static const struct pv_field ece_fields[] = {
	PV_FIELD(struct pv_ece, ece.vendor_id, "vendor_id"),
	PV_FIELD(struct pv_ece, ece.options, "options"),
	PV_FIELD(struct pv_ece, ece.comp_mask, "comp_mask"), PV_FIELD_END
};

static const struct qp_param ece_params[] = { { "vendor_id", "vendor_id" },
					      { "options", "options" },
					      { "comp_mask", "comp_mask" },
					      { NULL } };

static int ece_init(PyObject *o, PyObject *args, PyObject *kw)
{
	struct pv_ece *self = (struct pv_ece *)o;

	memset(&self->ece, 0, sizeof(self->ece));
	return attr_apply(o, args, kw, "ECE", ece_params, NULL, NULL);
}

PV_GC_TYPE_SPEC(ece, "pyverbs.qp.ECE", struct pv_ece,
		"ECE(vendor_id=0, options=0, comp_mask=0)\n--\n\n"
		"Enhanced connection establishment options (struct "
		"ibv_ece).",
		{ Py_tp_init, ece_init }, PV_CM_SLOTS, { Py_tp_getset, NULL },
		/* filled by pv_add_data_type() */);

/* ------------------------------------------------------------------ */
/* Registration                                                        */
/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* What the init attributes name, checked for QP creation              */
/* ------------------------------------------------------------------ */

/* The CQ must be open and belong to the QP's Context. */
static struct pv_cq *qp_cq_arg(PyObject *v, struct pv_obj *ctx,
			       const char *what)
{
	if (v == NULL || v == Py_None ||
	    pv_obj_check_in(PV_OBJ(v), ctx, what, "QP"))
		return NULL;
	return (struct pv_cq *)v;
}

/*
 * Check the objects the create call will dereference, which libibverbs
 * does not check: a missing PD or CQ would be a NULL dereference there.
 * An RSS QP (IBV_QP_INIT_ATTR_IND_TABLE) receives through the WQs of its
 * table: it has no receive CQ, and libibverbs reads its send CQ only when
 * max_send_wr is not 0.
 */
static int qp_check_create(enum ibv_qp_type type, uint32_t comp_mask, int ex,
			   uint32_t max_send_wr, PyObject *pd, PyObject *scq,
			   PyObject *rcq)
{
	int rss = ex && (comp_mask & IBV_QP_INIT_ATTR_IND_TABLE);
	int no_rq_cq = type == IBV_QPT_XRC_SEND || rss;
	int no_sq_cq = rss && !max_send_wr;

	if (type == IBV_QPT_XRC_RECV)
		return 0;
	if (ex && (comp_mask & IBV_QP_INIT_ATTR_PD) && pd == Py_None) {
		pv_raise_user("comp_mask has IBV_QP_INIT_ATTR_PD but the init "
			      "attributes have no pd");
		return -1;
	}
	if (scq == Py_None && !no_sq_cq) {
		pv_raise_user("The QP needs a send CQ (init_attr.send_cq)");
		return -1;
	}
	if (rcq == Py_None && !no_rq_cq) {
		pv_raise_user("The QP needs a receive CQ (init_attr.recv_cq)");
		return -1;
	}
	return 0;
}

/* The object o that comp_mask's flag asks for is given: 0, else -1 with
 * PyverbsUserError. */
static int qp_needs(PyObject *o, const char *flag, const char *name)
{
	if (o && o != Py_None)
		return 0;
	pv_raise_user("comp_mask has %s but the init attributes have no %s",
		      flag, name);
	return -1;
}

/* The open XRCD of ctx that comp_mask's IBV_QP_INIT_ATTR_XRCD asks for. */
static struct pv_xrcd *qp_xrcd_arg(PyObject *xrcd, struct pv_obj *ctx)
{
	if (qp_needs(xrcd, "IBV_QP_INIT_ATTR_XRCD", "xrcd"))
		return NULL;
	if (pv_obj_check_in(PV_OBJ(xrcd), ctx, "XRCD", "QP"))
		return NULL;
	return (struct pv_xrcd *)xrcd;
}

/*
 * The RSS objects comp_mask asks for: the open RwqIndTable of ctx
 * (IBV_QP_INIT_ATTR_IND_TABLE, *ind) and the RX hash (..._RX_HASH, *rx,
 * zeroed otherwise).  Returns 0 or -1.
 */
static int qp_rss_args(struct pv_qp_init_attr_ex *ia, struct pv_obj *ctx,
		       struct pv_rwq_ind_table **ind,
		       struct ibv_rx_hash_conf *rx)
{
	uint32_t mask = ia->attr.comp_mask;

	*ind = NULL;
	memset(rx, 0, sizeof(*rx));
	if ((mask & IBV_QP_INIT_ATTR_IND_TABLE) &&
	    (qp_needs(ia->ind_table, "IBV_QP_INIT_ATTR_IND_TABLE",
		      "ind_table") ||
	     !(*ind = pv_rwq_ind_table_arg(ia->ind_table, ctx))))
		return -1;
	if ((mask & IBV_QP_INIT_ATTR_RX_HASH) &&
	    (qp_needs(ia->hash_conf, "IBV_QP_INIT_ATTR_RX_HASH", "hash_conf") ||
	     pv_rx_hash_conf_get(ia->hash_conf, rx)))
		return -1;
	return 0;
}

/* The SRQ of the init attributes (None: NULL, no error): open and of the
 * QP's Context. */
static struct pv_srq *qp_srq_arg(PyObject *v, struct pv_obj *ctx)
{
	if (!v || v == Py_None || pv_obj_check_in(PV_OBJ(v), ctx, "SRQ", "QP"))
		return NULL;
	return (struct pv_srq *)v;
}

/* qp_attr.h */
int pv_qp_init_attr_objs(PyObject *init_attr, int is_ex, struct pv_obj *ctx,
			 PyObject *pd_o, struct pv_qp_objs *q)
{
	PyObject *scq_o, *rcq_o, *srq_o;

	q->xrcd = NULL;
	q->ind = NULL;
	if (is_ex) {
		struct pv_qp_init_attr_ex *ia = (void *)init_attr;

		scq_o = ia->scq;
		rcq_o = ia->rcq;
		srq_o = ia->srq;
		q->qp_context = ia->qp_context;
		if (qp_check_create(ia->attr.qp_type, ia->attr.comp_mask, 1,
				    ia->attr.cap.max_send_wr, pd_o,
				    scq_o ? scq_o : Py_None,
				    rcq_o ? rcq_o : Py_None))
			return -1;
		if ((ia->attr.comp_mask & IBV_QP_INIT_ATTR_XRCD) &&
		    !(q->xrcd = qp_xrcd_arg(ia->xrcd, ctx)))
			return -1;
		if (qp_rss_args(ia, ctx, &q->ind, &q->rx))
			return -1;
	} else {
		struct pv_qp_init_attr *ia = (void *)init_attr;

		scq_o = ia->scq;
		rcq_o = ia->rcq;
		srq_o = ia->srq;
		q->qp_context = ia->qp_context;
		if (qp_check_create(ia->attr.qp_type, 0, 0, 0, pd_o,
				    scq_o ? scq_o : Py_None,
				    rcq_o ? rcq_o : Py_None))
			return -1;
	}
	q->scq = qp_cq_arg(scq_o, ctx, "send CQ");
	if (!q->scq && PyErr_Occurred())
		return -1;
	q->rcq = qp_cq_arg(rcq_o, ctx, "receive CQ");
	if (!q->rcq && PyErr_Occurred())
		return -1;
	q->srq = qp_srq_arg(srq_o, ctx);
	if (!q->srq && PyErr_Occurred())
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* DataBuffer                                                          */
/* ------------------------------------------------------------------ */

static int databuf_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "length", NULL };
	struct pv_data_buf *self = (struct pv_data_buf *)o;
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
	struct pv_data_buf *self = (struct pv_data_buf *)o;

	if (c)
		return PyLong_FromSize_t(self->data.length);
	return PyLong_FromVoidPtr(self->data.addr);
}

static PyGetSetDef databuf_getset[] = {
	{ "addr", databuf_get, NULL, "The buffer's address.", NULL },
	{ "length", databuf_get, NULL, "The buffer's length.", (void *)1 },
	{ NULL }
};

PV_GC_TYPE_SPEC(databuf, "pyverbs.qp.DataBuffer", struct pv_data_buf,
		"DataBuffer(addr, length)\n--\n\n"
		"A buffer (struct ibv_data_buf) for "
		"QPEx.wr_set_inline_data_list().",
		{ Py_tp_init, databuf_init }, { Py_tp_getset, databuf_getset },
		PV_CM_SLOTS, );

int pv_qp_attr_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &cap_spec, &pv.PyverbsObject, &pv.QPCap, cap_fields },
		{ &qia_spec, &pv.PyverbsObject, &pv.QPInitAttr, qia_fields,
		  qia_oslots, qia_extra },
		{ &qiax_spec, &pv.PyverbsObject, &pv.QPInitAttrEx, qiax_fields,
		  qiax_oslots, qiax_extra },
		{ &qa_spec, &pv.PyverbsObject, &pv.QPAttr, qa_fields, NULL,
		  qa_extra },
		{ &ece_spec, &pv.PyverbsCM, &pv.ECE, ece_fields },
		{ &databuf_spec, &pv.PyverbsCM, &pv.DataBuffer },
		{ NULL }
	};

	return pv_add_types(m, types);
}
