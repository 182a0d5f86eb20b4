/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Flow steering: FlowAttr (struct ibv_flow_attr and its list of specs),
 * Flow (ibv_create_flow / ibv_destroy_flow), a child of its QP so that
 * closing the QP closes its flows first, and FlowAction, the base of the
 * providers' flow actions (it holds a struct ibv_flow_action *, NULL
 * here).
 *
 * ibv_create_flow() takes the struct ibv_flow_attr followed by
 * num_of_specs specs, each starting with its type and size; the library
 * walks them by those sizes.  Flow therefore refuses a num_of_specs other
 * than the number of specs in the list (upstream warns instead, and then
 * libibverbs reads past the buffer) and anything in the list that is not
 * an initialised Spec (spec.c), and copies each spec's own C struct.
 */
#include "flow.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "qp.h"
#include "spec.h"
#include "state.h"

/* ---- FlowAttr ---- */

struct pv_flow_attr {
	PyObject_HEAD
	struct ibv_flow_attr attr;
	PyObject *specs; /* list, set by __init__ */
};

static const struct pv_field fa_fields[] = {
	PV_FIELD(struct pv_flow_attr, attr.num_of_specs, "num_of_specs"),
	PV_FIELD(struct pv_flow_attr, attr.type, "type"),
	PV_FIELD(struct pv_flow_attr, attr.priority, "priority"),
	PV_FIELD(struct pv_flow_attr, attr.port, "port"),
	PV_FIELD(struct pv_flow_attr, attr.flags, "flags"),
	PV_FIELD_END
};

static const struct pv_oslot fa_oslots[] = {
	PV_OSLOT_RO(struct pv_flow_attr, specs, "specs",
		    "The specs of the flow (a list, in match order: L2, L3, "
		    "L4); append to it."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(fa, fa_oslots)

static int fa_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	/* the keywords, in fa_fields order ("flow_type" sets type) */
	static char *kwlist[] = { "num_of_specs", "flow_type", "priority",
				  "port",	  "flags",     NULL };
	struct pv_flow_attr *self = (struct pv_flow_attr *)obj;
	PyObject *vals[5] = { NULL };
	struct ibv_flow_attr save = self->attr;
	PyObject *specs;
	int i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOOO:FlowAttr", kwlist,
					 &vals[0], &vals[1], &vals[2], &vals[3],
					 &vals[4]))
		return -1;
	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.type = IBV_FLOW_ATTR_NORMAL;
	self->attr.size = sizeof(self->attr);
	self->attr.port = 1;
	for (i = 0; i < 5; i++) {
		if (vals[i] && pv_field_store(obj, &fa_fields[i], vals[i])) {
			self->attr = save;
			return -1;
		}
	}
	specs = PyList_New(0);
	if (!specs) {
		self->attr = save;
		return -1;
	}
	Py_XSETREF(self->specs, specs);
	return 0;
}

PV_GC_TYPE_SPEC(fa, "pyverbs.flow.FlowAttr", struct pv_flow_attr,
		"FlowAttr(num_of_specs=0, flow_type=0, "
		"priority=0, port=1, flags=0)\n--\n\n"
		"Defaults: flow_type=IBV_FLOW_ATTR_NORMAL.\n"
		"How to create a steering flow (struct ibv_flow_attr): "
		"its type, priority, port and flags, and the specs to "
		"match (specs, a list; num_of_specs must equal its "
		"length when the Flow is created).",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, fa_init },
		PV_OSLOTS_GC_SLOTS(fa), { Py_tp_getset, NULL },
		/* filled by pv_add_data_type() */);

/* ---- Flow ---- */

int pv_flow_destroy(struct pv_obj *o)
{
	struct pv_flow *self = (struct pv_flow *)o;
	int rc;

	if (!self->flow)
		return 0;
	rc = ibv_destroy_flow(self->flow); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_flow", "Failed to destroy Flow");
		return -1;
	}
	self->flow = NULL;
	return 0;
}

/*
 * The struct ibv_flow_attr of fa followed by its specs, in memory from
 * PyMem_Malloc (the caller frees it); NULL with an exception set when the
 * list does not hold exactly num_of_specs initialised specs.
 */
static struct ibv_flow_attr *flow_attr_pack(struct pv_flow_attr *fa)
{
	Py_ssize_t n = fa->specs ? PyList_GET_SIZE(fa->specs) : 0, i;
	size_t total = sizeof(fa->attr);
	struct ibv_flow_attr *attr;
	char *p;

	if (n != fa->attr.num_of_specs) {
		pv_raise_user("The number of appended specs (%zd) is not equal "
			      "to the number of declared specs (%u)",
			      n, (unsigned int)fa->attr.num_of_specs);
		return NULL;
	}
	/* No Python code runs below: the list cannot change under us. */
	for (i = 0; i < n; i++) {
		const struct ibv_flow_spec *s =
			pv_spec_data(PyList_GET_ITEM(fa->specs, i));

		if (!s)
			return NULL;
		total += s->hdr.size;
	}
	attr = PyMem_Calloc(1, total);
	if (!attr) {
		PyErr_NoMemory();
		return NULL;
	}
	*attr = fa->attr;
	attr->size = sizeof(*attr);
	p = (char *)(attr + 1);
	for (i = 0; i < n; i++) {
		const struct ibv_flow_spec *s =
			pv_spec_data(PyList_GET_ITEM(fa->specs, i));

		memcpy(p, s, s->hdr.size);
		p += s->hdr.size;
	}
	return attr;
}

static int flow_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "qp", "flow_attr", NULL };
	struct pv_flow *self = (struct pv_flow *)obj;
	struct ibv_flow_attr *attr;
	PyObject *qpo, *fao;
	struct pv_qp *qp;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O!:Flow", kwlist, pv.QP,
					 &qpo, pv.FlowAttr, &fao))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Flow is already initialised");
		return -1;
	}
	qp = (struct pv_qp *)qpo;
	if (pv_check_open(&qp->obj))
		return -1;
	attr = flow_attr_pack((struct pv_flow_attr *)fao);
	if (!attr)
		return -1;
	pv_obj_setup(&self->obj, pv_flow_destroy);
	self->flow = ibv_create_flow(qp->qp, attr); /* NULL, errno */
	if (!self->flow)
		pv_raise_errno("ibv_create_flow", "Flow creation failed");
	PyMem_Free(attr);
	if (!self->flow)
		return -1;
	if (pv_obj_link(&self->obj, &qp->obj)) {
		pv_flow_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *flow_get_qp(PyObject *obj, void *closure)
{
	struct pv_obj *qp = pv_obj_parent(&((struct pv_flow *)obj)->obj, 0);

	return Py_NewRef(qp ? (PyObject *)qp : Py_None);
}

static PyGetSetDef flow_getset[] = {
	{ "qp", flow_get_qp, NULL,
	  "The QP this flow steers to (None once closed).", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(flow, "pyverbs.flow.Flow", struct pv_flow,
		"Flow(qp, flow_attr)\n--\n\n"
		"A steering flow (ibv_create_flow): packets matching the "
		"specs of flow_attr are delivered to qp.  Closing the QP "
		"closes its flows first.",
		{ Py_tp_init, flow_init }, { Py_tp_getset, flow_getset },
		PV_CM_SLOTS, );

/* ---- FlowAction ---- */

static int fact_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { NULL };

	return PyArg_ParseTupleAndKeywords(args, kw, ":FlowAction", kwlist) ?
		       0 :
		       -1;
}

PV_TYPE_SPEC(fact, "pyverbs.flow.FlowAction", struct pv_flow_action,
	     "FlowAction()\n--\n\n"
	     "Base class of the flow actions of the providers "
	     "(struct ibv_flow_action); it owns none itself.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, fact_init }, );

int pv_flow_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &fa_spec, &pv.PyverbsObject, &pv.FlowAttr, fa_fields,
		  fa_oslots },
		{ &flow_spec, &pv.PyverbsCM, &pv.Flow },
		{ &fact_spec, &pv.PyverbsObject, &pv.FlowAction },
		{ NULL }
	};

	return pv_add_types(m, types);
}
