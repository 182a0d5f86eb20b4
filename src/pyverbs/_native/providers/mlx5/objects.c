/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5.mlx5dv_objects: mlx5dv_init_obj() views of verbs
 * objects.  Mlx5DvObj(obj_type, cq=, qp=, pd=, srq=) fills an Mlx5DvCQ,
 * Mlx5DvQP, Mlx5DvPD and/or Mlx5DvSRQ with the provider's description of
 * the objects (numbers, buffer and doorbell addresses as ints).
 *
 * libmlx5 reads the input pointer of every type bit set in obj_type, and
 * asks the first object's context for its mlx5 ops (EOPNOTSUPP when it is
 * not mlx5).  So each bit must come with an open object of its kind, and
 * only the four supported bits are accepted: upstream passes uninitialised
 * pointers otherwise (and its cq=/qp= forms read a non-public attribute
 * and fail with AttributeError; here they work).
 */
#include "mlx5.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "pd.h"
#include "qp.h"
#include "srq.h"
#include "state.h"

#include <errno.h>

struct dv_cq {
	PyObject_HEAD
	struct mlx5dv_cq cq;
};
struct dv_qp {
	PyObject_HEAD
	struct mlx5dv_qp qp;
};
struct dv_pd {
	PyObject_HEAD
	struct mlx5dv_pd pd;
};
struct dv_srq {
	PyObject_HEAD
	struct mlx5dv_srq srq;
};

/* Pointer members read as ints. */
static PyObject *dv_get_ptr(PyObject *obj, void *closure)
{
	return PyLong_FromVoidPtr(*(void **)((char *)obj + (intptr_t)closure));
}

#define DV_PTR(st, member, pyname, doc) \
	{ pyname, dv_get_ptr, NULL, doc, (void *)offsetof(st, member) }

static const struct pv_field dvcq_fields[] = {
	PV_FIELD_RO(struct dv_cq, cq.cqe_size, "cqe_size"),
	PV_FIELD_RO(struct dv_cq, cq.comp_mask, "comp_mask"),
	PV_FIELD_RO(struct dv_cq, cq.cqn, "cqn"),
	PV_FIELD_RO(struct dv_cq, cq.cqe_cnt, "cqe_cnt"), PV_FIELD_END
};
static PyGetSetDef dvcq_extra[] = {
	DV_PTR(struct dv_cq, cq.buf, "buf", "Address of the CQ buffer."),
	DV_PTR(struct dv_cq, cq.cq_uar, "cq_uar", "Address of the CQ's UAR."),
	DV_PTR(struct dv_cq, cq.dbrec, "dbrec",
	       "Address of the CQ doorbell record."),
	{ NULL }
};

static const struct pv_field dvqp_fields[] = {
	PV_FIELD_RO(struct dv_qp, qp.rqn, "rqn"),
	PV_FIELD_RO(struct dv_qp, qp.sqn, "sqn"),
	PV_FIELD_RO(struct dv_qp, qp.tirn, "tirn"),
	PV_FIELD_RO(struct dv_qp, qp.tisn, "tisn"),
	PV_FIELD(struct dv_qp, qp.comp_mask, "comp_mask"),
	PV_FIELD_RO(struct dv_qp, qp.uar_mmap_offset, "uar_mmap_offset"),
	PV_FIELD_END
};

static const struct pv_field dvpd_fields[] = {
	PV_FIELD_RO(struct dv_pd, pd.pdn, "pdn"),
	PV_FIELD_RO(struct dv_pd, pd.comp_mask, "comp_mask"), PV_FIELD_END
};

static const struct pv_field dvsrq_fields[] = {
	PV_FIELD_RO(struct dv_srq, srq.stride, "stride"),
	PV_FIELD_RO(struct dv_srq, srq.head, "head"),
	PV_FIELD_RO(struct dv_srq, srq.tail, "tail"),
	PV_FIELD(struct dv_srq, srq.comp_mask, "comp_mask"),
	PV_FIELD_RO(struct dv_srq, srq.srqn, "srqn"),
	PV_FIELD_END
};

#define DV_MOD "pyverbs.providers.mlx5.mlx5dv_objects."
PV_MLX5_ANSWER_SPEC(dvcq, DV_MOD "Mlx5DvCQ", struct dv_cq,
		    "Mlx5DvCQ()\n--\n\n"
		    "A CQ as mlx5dv_init_obj() describes it (struct "
		    "mlx5dv_cq).");
PV_MLX5_ANSWER_SPEC(dvqp, DV_MOD "Mlx5DvQP", struct dv_qp,
		    "Mlx5DvQP()\n--\n\n"
		    "A QP as mlx5dv_init_obj() describes it (struct "
		    "mlx5dv_qp).");
PV_MLX5_ANSWER_SPEC(dvpd, DV_MOD "Mlx5DvPD", struct dv_pd,
		    "Mlx5DvPD()\n--\n\n"
		    "A PD as mlx5dv_init_obj() describes it (struct "
		    "mlx5dv_pd).");
PV_MLX5_ANSWER_SPEC(dvsrq, DV_MOD "Mlx5DvSRQ", struct dv_srq,
		    "Mlx5DvSRQ()\n--\n\n"
		    "An SRQ as mlx5dv_init_obj() describes it (struct "
		    "mlx5dv_srq).");

/* ---- Mlx5DvObj ---- */

struct dv_obj {
	PyObject_HEAD
	PyObject *dv_cq, *dv_qp, *dv_pd, *dv_srq; /* views or NULL */
};

static const struct pv_oslot dvobj_oslots[] = {
	PV_OSLOT_RO(struct dv_obj, dv_cq, "dvcq", "The Mlx5DvCQ, or None."),
	PV_OSLOT_RO(struct dv_obj, dv_qp, "dvqp", "The Mlx5DvQP, or None."),
	PV_OSLOT_RO(struct dv_obj, dv_pd, "dvpd", "The Mlx5DvPD, or None."),
	PV_OSLOT_RO(struct dv_obj, dv_srq, "dvsrq", "The Mlx5DvSRQ, or None."),
	PV_OSLOT_END
};
PV_OSLOTS_GC(dvobj, dvobj_oslots)

#define DV_SUPPORTED \
	(MLX5DV_OBJ_CQ | MLX5DV_OBJ_QP | MLX5DV_OBJ_PD | MLX5DV_OBJ_SRQ)

/* kwargs[name], None when absent; borrowed. */
static PyObject *dv_kw(PyObject *kw, const char *name)
{
	PyObject *v = kw ? PyDict_GetItemString(kw, name) : NULL;

	return v ? v : Py_None;
}

/* A view of type tp, zeroed; a new reference or NULL. */
static PyObject *dv_view(PyTypeObject *tp)
{
	PyObject *o = PyType_GenericNew(tp, NULL, NULL);

	return o;
}

/* The comp_mask of kwargs[name] (None or 0: dflt). 0 or -1. */
static int dv_mask(PyObject *kw, const char *name, uint64_t dflt, uint64_t *out)
{
	PyObject *v = dv_kw(kw, name);
	int t;

	*out = dflt;
	if (v == Py_None)
		return 0;
	t = PyObject_IsTrue(v); /* upstream: 'mask if mask else default' */
	if (t <= 0)
		return t;
	return pv_to_u64(v, UINT64_MAX, out, name);
}

/* One init_obj() call: the objects asked for (borrowed; Py_None: not
 * asked), the views made for them (new references or NULL) and the struct
 * mlx5dv_init_obj() reads. */
struct dv_call {
	PyObject *cq, *qp, *pd, *srq;
	PyObject *vcq, *vqp, *vpd, *vsrq;
	struct mlx5dv_obj o;
};

/* Refuse a keyword init_obj() does not know (TypeError). 0 or -1. */
static int dv_check_kw(PyObject *kw)
{
	static const char *const known[] = {
		"cq", "qp", "pd", "srq", "qp_comp_mask", "srq_comp_mask", NULL
	};
	PyObject *key;
	Py_ssize_t pos = 0;

	if (!kw)
		return 0;
	while (PyDict_Next(kw, &pos, &key, NULL)) {
		const char *k = PyUnicode_AsUTF8(key);
		int i;

		if (!k)
			return -1;
		for (i = 0; known[i] && strcmp(known[i], k); i++)
			;
		if (!known[i]) {
			PyErr_Format(PyExc_TypeError,
				     "unexpected keyword argument "
				     "'%s'",
				     k);
			return -1;
		}
	}
	return 0;
}

/* The objects of the type bits of type, into c; each bit must come with
 * its object and only the supported bits are accepted.  0 or -1. */
static int dv_pick(struct dv_call *c, PyObject *kw, uint64_t type)
{
	if (type & MLX5DV_OBJ_CQ)
		c->cq = dv_kw(kw, "cq");
	if (type & MLX5DV_OBJ_QP)
		c->qp = dv_kw(kw, "qp");
	if (type & MLX5DV_OBJ_PD)
		c->pd = dv_kw(kw, "pd");
	if (type & MLX5DV_OBJ_SRQ)
		c->srq = dv_kw(kw, "srq");
	if (c->cq == Py_None && c->qp == Py_None && c->pd == Py_None &&
	    c->srq == Py_None) {
		pv_raise_user("No supported object was provided.");
		return -1;
	}
	/* libmlx5 would read the input pointers of other types too */
	if (type & ~(uint64_t)DV_SUPPORTED) {
		pv_raise_user("Invalid obj_type was provided");
		return -1;
	}
	if ((type & MLX5DV_OBJ_CQ && c->cq == Py_None) ||
	    (type & MLX5DV_OBJ_QP && c->qp == Py_None) ||
	    (type & MLX5DV_OBJ_PD && c->pd == Py_None) ||
	    (type & MLX5DV_OBJ_SRQ && c->srq == Py_None)) {
		pv_raise_user("obj_type names an object that was not "
			      "provided");
		return -1;
	}
	return 0;
}

/* Check the objects of c, make their views and point c->o at both.
 * 0 or -1 (the views made so far stay in c). */
static int dv_fill(struct dv_call *c, PyObject *kw)
{
	memset(&c->o, 0, sizeof(c->o));
	if (c->cq != Py_None) {
		struct pv_cq *cq = pv_cq_from_obj(c->cq, "cq");

		if (!cq || !(c->vcq = dv_view(pv_mlx5.DvCQ)))
			return -1;
		c->o.cq.in = cq->cq;
		c->o.cq.out = &((struct dv_cq *)c->vcq)->cq;
	}
	if (c->qp != Py_None) {
		uint64_t mask;

		if (!PyObject_TypeCheck(c->qp, pv.QP)) {
			PyErr_Format(PyExc_TypeError,
				     "qp must be a QP, not %.100s",
				     Py_TYPE(c->qp)->tp_name);
			return -1;
		}
		if (pv_check_open(PV_OBJ(c->qp)) ||
		    dv_mask(kw, "qp_comp_mask",
			    MLX5DV_QP_MASK_UAR_MMAP_OFFSET |
				    MLX5DV_QP_MASK_RAW_QP_HANDLES |
				    MLX5DV_QP_MASK_RAW_QP_TIR_ADDR,
			    &mask) ||
		    !(c->vqp = dv_view(pv_mlx5.DvQP)))
			return -1;
		((struct dv_qp *)c->vqp)->qp.comp_mask = mask;
		c->o.qp.in = ((struct pv_qp *)c->qp)->qp;
		c->o.qp.out = &((struct dv_qp *)c->vqp)->qp;
	}
	if (c->pd != Py_None) {
		struct pv_pd *p = pv_pd_arg(c->pd);

		if (!p || !(c->vpd = dv_view(pv_mlx5.DvPD)))
			return -1;
		c->o.pd.in = p->pd;
		c->o.pd.out = &((struct dv_pd *)c->vpd)->pd;
	}
	if (c->srq != Py_None) {
		uint64_t mask;

		if (!PyObject_TypeCheck(c->srq, pv.SRQ)) {
			PyErr_Format(PyExc_TypeError,
				     "srq must be an SRQ, not %.100s",
				     Py_TYPE(c->srq)->tp_name);
			return -1;
		}
		if (pv_check_open(PV_OBJ(c->srq)) ||
		    dv_mask(kw, "srq_comp_mask", MLX5DV_SRQ_MASK_SRQN, &mask) ||
		    !(c->vsrq = dv_view(pv_mlx5.DvSRQ)))
			return -1;
		((struct dv_srq *)c->vsrq)->srq.comp_mask = mask;
		c->o.srq.in = ((struct pv_srq *)c->srq)->srq;
		c->o.srq.out = &((struct dv_srq *)c->vsrq)->srq;
	}
	return 0;
}

static int dvobj_init_obj(struct dv_obj *self, PyObject *typeo, PyObject *kw)
{
	struct dv_call c = { .cq = Py_None,
			     .qp = Py_None,
			     .pd = Py_None,
			     .srq = Py_None };
	uint64_t type;
	int rc = -1;

	if (pv_to_u64(typeo, UINT64_MAX, &type, "obj_type"))
		return -1;
	if (dv_check_kw(kw) || dv_pick(&c, kw, type))
		return -1;
	if (dv_fill(&c, kw))
		goto out;
	rc = mlx5dv_init_obj(&c.o, type); /* errno */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_init_obj",
			    "Failed to initialize Mlx5DvObj");
		rc = -1;
		goto out;
	}
	/* re-initialising replaces the views of the types asked for */
	if (c.vcq)
		Py_XSETREF(self->dv_cq, Py_NewRef(c.vcq));
	if (c.vqp)
		Py_XSETREF(self->dv_qp, Py_NewRef(c.vqp));
	if (c.vpd)
		Py_XSETREF(self->dv_pd, Py_NewRef(c.vpd));
	if (c.vsrq)
		Py_XSETREF(self->dv_srq, Py_NewRef(c.vsrq));
out:
	Py_XDECREF(c.vcq);
	Py_XDECREF(c.vqp);
	Py_XDECREF(c.vpd);
	Py_XDECREF(c.vsrq);
	return rc;
}

static PyObject *dvobj_init_obj_meth(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	PyObject *typeo;

	if (!PyArg_ParseTuple(args, "O:init_obj", &typeo))
		return NULL;
	if (dvobj_init_obj((struct dv_obj *)obj, typeo, kw))
		return NULL;
	Py_RETURN_NONE;
}

static int dvobj_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	PyObject *typeo = Py_None;

	if (!PyArg_ParseTuple(args, "|O:Mlx5DvObj", &typeo))
		return -1;
	if (kw && PyDict_GetItemString(kw, "obj_type")) {
		if (PyTuple_GET_SIZE(args)) {
			PyErr_SetString(PyExc_TypeError,
					"Mlx5DvObj() got multiple values for "
					"argument 'obj_type'");
			return -1;
		}
		typeo = PyDict_GetItemString(kw, "obj_type");
		kw = PyDict_Copy(kw);
		if (!kw || PyDict_DelItemString(kw, "obj_type")) {
			Py_XDECREF(kw);
			return -1;
		}
	} else {
		Py_XINCREF(kw);
	}
	pv_oslots_reset(obj, dvobj_oslots);
	if (typeo == Py_None) {
		Py_XDECREF(kw);
		return 0;
	}
	Py_INCREF(typeo);
	if (dvobj_init_obj((struct dv_obj *)obj, typeo, kw)) {
		Py_DECREF(typeo);
		Py_XDECREF(kw);
		return -1;
	}
	Py_DECREF(typeo);
	Py_XDECREF(kw);
	return 0;
}

static PyMethodDef dvobj_methods[] = {
	{ "init_obj", (PyCFunction)(void (*)(void))dvobj_init_obj_meth,
	  METH_VARARGS | METH_KEYWORDS,
	  "init_obj($self, obj_type, /, **kwargs)\n--\n\n"
	  "Describe the objects (mlx5dv_init_obj): obj_type is a mask of "
	  "MLX5DV_OBJ_CQ/QP/PD/SRQ, each with its object given as cq=, qp=, "
	  "pd=, srq= (qp_comp_mask=, srq_comp_mask= optional).  The views "
	  "of the types asked for are replaced." },
	{ NULL }
};

PV_GC_TYPE_SPEC(dvobj, "pyverbs.providers.mlx5.mlx5dv_objects.Mlx5DvObj",
		struct dv_obj,
		"Mlx5DvObj(obj_type=None, **kwargs)\n--\n\n"
		"mlx5dv_init_obj() views of verbs objects: see "
		"init_obj(); dvcq, dvqp, dvpd and dvsrq hold them.",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, dvobj_init },
		{ Py_tp_methods, dvobj_methods }, { Py_tp_getset, NULL },
		PV_OSLOTS_GC_SLOTS(dvobj), );

int pv_mlx5_objects_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &dvcq_spec, &pv.PyverbsObject, &pv_mlx5.DvCQ, dvcq_fields,
		  NULL, dvcq_extra },
		{ &dvqp_spec, &pv.PyverbsObject, &pv_mlx5.DvQP, dvqp_fields },
		{ &dvpd_spec, &pv.PyverbsObject, &pv_mlx5.DvPD, dvpd_fields },
		{ &dvsrq_spec, &pv.PyverbsObject, &pv_mlx5.DvSRQ,
		  dvsrq_fields },
		{ &dvobj_spec, &pv.PyverbsObject, &pv_mlx5.DvObj, NULL,
		  dvobj_oslots },
		{ NULL }
	};

	return pv_add_types(m, types);
}
