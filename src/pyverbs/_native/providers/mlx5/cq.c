/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Mlx5CQ: a CQEX created by mlx5dv_create_cq() with an Mlx5DVCQInitAttr
 * (CQE compression, padding, CQE size).  Everything but the creation call
 * is the core CQEX's (pv_cqex_setup() in cq.c), so polling, lifetime and
 * close order are the same.  Printing (__str__) is in mlx5dv.py.
 */
#include "mlx5.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "state.h"

#include <errno.h>

/* ---- Mlx5DVCQInitAttr ---- */

struct mlx5_cq_init_attr {
	PyObject_HEAD
	struct mlx5dv_cq_init_attr attr;
};

#define MCIA struct mlx5_cq_init_attr
static const struct pv_field mcia_fields[] = {
	PV_FIELD(MCIA, attr.comp_mask, "comp_mask"),
	PV_FIELD(MCIA, attr.cqe_comp_res_format, "cqe_comp_res_format"),
	PV_FIELD(MCIA, attr.flags, "flags"),
	PV_FIELD(MCIA, attr.cqe_size, "cqe_size"), PV_FIELD_END
};
#undef MCIA

static int mcia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", "cqe_comp_res_format", "flags",
				  "cqe_size", NULL };
	PyObject *vals[4] = { NULL, NULL, NULL, NULL };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO:Mlx5DVCQInitAttr",
					 kwlist, &vals[0], &vals[1], &vals[2],
					 &vals[3]))
		return -1;
	return pv_mlx5_store_fields(obj, mcia_fields, vals, 4);
}

PV_DATA_SPEC(mcia, "pyverbs.providers.mlx5.mlx5dv.Mlx5DVCQInitAttr",
	     struct mlx5_cq_init_attr,
	     "Mlx5DVCQInitAttr(comp_mask=0, cqe_comp_res_format=0, "
	     "flags=0, cqe_size=0)\n--\n\n"
	     "mlx5 attributes of a new CQ (struct "
	     "mlx5dv_cq_init_attr): comp_mask says which of the "
	     "others are valid (MLX5DV_CQ_INIT_ATTR_MASK_*).",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, mcia_init }, );

/* ---- Mlx5CQ ---- */

struct mcq_create {
	struct mlx5dv_cq_init_attr *dv; /* NULL: none */
	PyObject *init_attr, *dv_attr;	/* for the error message */
};

/* pv_cqex_create_fn: mlx5dv_create_cq, NULL with errno set */
static struct ibv_cq_ex *mcq_create(struct ibv_context *ctx,
				    struct ibv_cq_init_attr_ex *attr, void *arg)
{
	struct mcq_create *c = arg;
	struct ibv_cq_ex *cq = mlx5dv_create_cq(ctx, attr, c->dv);

	if (cq)
		return cq;
	/* upstream's message prints both attributes */
	pv_raise_errno("mlx5dv_create_cq",
		       "Failed to create MLX5 CQ.\nCQInitAttrEx:\n%S\n"
		       "MLX5DVCQInitAttr:\n%S",
		       c->init_attr, c->dv_attr);
	return NULL;
}

static int mcq_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "init_attr", "dv_init_attr",
				  NULL };
	PyObject *ctxo, *ia, *dvo;
	struct mlx5dv_cq_init_attr dv;
	struct mcq_create c;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:Mlx5CQ", kwlist, &ctxo,
					 &ia, &dvo))
		return -1;
	if (!pv_mlx5_is_context(ctxo)) {
		/* upstream: a typed Cython argument */
		PyErr_Format(PyExc_TypeError,
			     "Argument 'context' has incorrect type (expected "
			     "pyverbs.providers.mlx5.mlx5dv.Mlx5Context, got "
			     "%.200s)",
			     Py_TYPE(ctxo)->tp_name);
		return -1;
	}
	if (dvo != Py_None && !PyObject_TypeCheck(dvo, pv_mlx5.DVCQInitAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'dv_init_attr' has incorrect type "
			     "(expected %s, got %.200s)",
			     mcia_spec.name, Py_TYPE(dvo)->tp_name);
		return -1;
	}
	if (dvo != Py_None)
		dv = ((struct mlx5_cq_init_attr *)dvo)->attr;
	c.dv = dvo == Py_None ? NULL : &dv;
	c.init_attr = ia;
	c.dv_attr = dvo;
	return pv_cqex_setup(obj, ctxo, ia, mcq_create, &c);
}

/* The CQEX's struct pv_cq; GC and its slots are inherited from CQEX. */
PV_TYPE_SPEC(mcq, "pyverbs.providers.mlx5.mlx5dv.Mlx5CQ", struct pv_cq,
	     "Mlx5CQ(context, init_attr, dv_init_attr)\n--\n\n"
	     "An extended CQ created by mlx5dv_create_cq() on the "
	     "Mlx5Context context with a CqInitAttrEx (None: the "
	     "defaults) and an Mlx5DVCQInitAttr (or None).",
	     { Py_tp_init, mcq_init }, );

int pv_mlx5_cq_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &mcia_spec, &pv.PyverbsObject, &pv_mlx5.DVCQInitAttr,
		  mcia_fields },
		{ &mcq_spec, &pv.CQEX, &pv_mlx5.CQ },
		{ NULL }
	};

	return pv_add_types(m, types);
}
