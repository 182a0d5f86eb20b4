/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * mlx5 direct rules actions (mlx5dv_dr_action_create_*): DrAction and its
 * subclasses, and the attribute objects DrActionDestAttr and
 * DrFlowSamplerAttr.
 *
 * Every action is a child of what it was made from and libmlx5 keeps a
 * reference on: its DrDomain (modify header, push VLAN, vport, IB port,
 * packet reformat, dest array), its DrTable (dest table), its QP, its DevX
 * object (flow counter, TIR), the table and the actions of a sampler, the
 * actions of a dest array.  Closing any of those closes the action first,
 * and an action closes the rules using it first (dr.c), so no destroy ever
 * meets libmlx5's EBUSY.  Drop, tag, pop VLAN and default miss take no
 * object: they are plain allocations that work without a device.
 *
 * The attribute objects hold the Python objects; the C pointers are taken
 * from them, checked open, only when the action is created.
 */
#include "mlx5.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "qp.h"
#include "state.h"

#include <errno.h>
#include <stdio.h>

/* ---- DrAction: the base ---- */

static int act_destroy(struct pv_obj *o)
{
	struct pv_dr_action *self = (struct pv_dr_action *)o;
	int rc;

	if (!self->action)
		return 0;
	rc = mlx5dv_dr_action_destroy(self->action); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_dr_action_destroy",
			    "Failed to destroy DrAction.");
		return -1;
	}
	self->action = NULL;
	return 0;
}

/* Start a constructor: refuse a second run, reset the object. */
static int act_begin(struct pv_dr_action *self)
{
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("%s is already initialised",
			      _PyType_Name(Py_TYPE(self)));
		return -1;
	}
	pv_obj_setup(&self->obj, act_destroy);
	return 0;
}

/*
 * Finish a constructor: a (NULL: raise from errno with func and msg),
 * then link to the n parents.  Returns 0 or -1 (the action destroyed).
 */
static int act_finish(struct pv_dr_action *self, struct mlx5dv_dr_action *a,
		      const char *func, const char *msg,
		      struct pv_obj *const *parents, size_t n)
{
	size_t i;

	if (!a) {
		pv_raise_errno(func, "%s", msg);
		return -1;
	}
	self->action = a;
	if (pv_obj_reserve_parents(&self->obj, n))
		goto undo;
	for (i = 0; i < n; i++)
		if (pv_obj_link(&self->obj, parents[i]))
			goto undo;
	pv_obj_opened(&self->obj);
	return 0;
undo:
	act_destroy(&self->obj);
	return -1;
}

/* act_finish() with the one parent p. */
static int act_finish1(struct pv_dr_action *self, struct mlx5dv_dr_action *a,
		       const char *func, const char *msg, struct pv_obj *p)
{
	return act_finish(self, a, func, msg, &p, 1);
}

int pv_dr_action_begin(struct pv_dr_action *self)
{
	return act_begin(self);
}

int pv_dr_action_finish(struct pv_dr_action *self, struct mlx5dv_dr_action *a,
			const char *func, const char *msg,
			struct pv_obj *const *parents, size_t n)
{
	return act_finish(self, a, func, msg, parents, n);
}

static int act_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { NULL };

	return PyArg_ParseTupleAndKeywords(args, kw, ":DrAction", kwlist) ? 0 :
									    -1;
}

#define ACT_SPEC(var, pyname, doc, init)                                 \
	PV_GC_TYPE_SPEC(var, "pyverbs.providers.mlx5.dr_action." pyname, \
			struct pv_dr_action, doc, { Py_tp_init, init },  \
			PV_CM_SLOTS, )

ACT_SPEC(act, "DrAction",
	 "DrAction()\n--\n\n"
	 "Base class of the direct-rules actions (struct "
	 "mlx5dv_dr_action); a bare DrAction owns none and stays closed.  "
	 "Closing an action closes the rules using it first.",
	 act_init);

/* ---- actions with no parent ---- */

/*
 * The actions made from nothing (plain allocations in libmlx5) and those
 * made from a domain and one 32-bit value share their constructors: the
 * table entry is found by the object's type.
 */
struct act_kind {
	PyTypeObject **type;
	const char *name; /* for the usage messages */
	const char *arg;  /* the keyword of the value, or NULL */
	union {
		struct mlx5dv_dr_action *(*none)(void);
		struct mlx5dv_dr_action *(*dom)(struct mlx5dv_dr_domain *,
						uint32_t);
	} create;
	const char *func, *msg;
};

static const struct act_kind act_kinds[] = {
	{ &pv_mlx5.DrActionDrop,
	  "DrActionDrop",
	  NULL,
	  { .none = mlx5dv_dr_action_create_drop },
	  "mlx5dv_dr_action_create_drop",
	  "DrActionDrop creation failed." },
	{ &pv_mlx5.DrActionDefMiss,
	  "DrActionDefMiss",
	  NULL,
	  { .none = mlx5dv_dr_action_create_default_miss },
	  "mlx5dv_dr_action_create_default_miss",
	  "DrActionDefMiss creation failed." },
	{ &pv_mlx5.DrActionPopVLan,
	  "DrActionPopVLan",
	  NULL,
	  { .none = mlx5dv_dr_action_create_pop_vlan },
	  "mlx5dv_dr_action_create_pop_vlan",
	  "DrActionPopVLan creation failed." },
	{ &pv_mlx5.DrActionPushVLan,
	  "DrActionPushVLan",
	  "vlan_hdr",
	  { .dom = mlx5dv_dr_action_create_push_vlan },
	  "mlx5dv_dr_action_create_push_vlan",
	  "DrActionPushVLan creation failed." },
	{ &pv_mlx5.DrActionVPort,
	  "DrActionVPort",
	  "vport",
	  { .dom = mlx5dv_dr_action_create_dest_vport },
	  "mlx5dv_dr_action_create_dest_vport",
	  "Failed to create dr VPort action" },
	{ &pv_mlx5.DrActionIBPort,
	  "DrActionIBPort",
	  "ib_port",
	  { .dom = mlx5dv_dr_action_create_dest_ib_port },
	  "mlx5dv_dr_action_create_dest_ib_port",
	  "Failed to create dr IB port action" },
};

static int kind_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	const struct act_kind *k = NULL;
	struct pv_dr_domain *dom;
	char fmt[64], *kwlist[3] = { NULL };
	PyObject *domo;
	uint32_t val;
	size_t i;

	for (i = 0; i < sizeof(act_kinds) / sizeof(act_kinds[0]); i++)
		if (PyType_IsSubtype(Py_TYPE(obj), *act_kinds[i].type)) {
			k = &act_kinds[i];
			break;
		}
	if (!k) {
		PyErr_SetString(PyExc_SystemError, "unknown DrAction kind");
		return -1;
	}
	if (!k->arg) {
		snprintf(fmt, sizeof(fmt), ":%s", k->name);
		if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist) ||
		    act_begin(self))
			return -1;
		return act_finish(self, k->create.none(), k->func, k->msg, NULL,
				  0);
	}
	kwlist[0] = "domain";
	kwlist[1] = (char *)k->arg;
	snprintf(fmt, sizeof(fmt), "OO&:%s", k->name);
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &domo,
					 pv_conv_u32, &val) ||
	    act_begin(self))
		return -1;
	dom = pv_dr_domain_arg(domo, "domain");
	if (!dom)
		return -1;
	return act_finish1(self, k->create.dom(dom->domain, val), k->func,
			   k->msg, &dom->obj);
}

ACT_SPEC(drop, "DrActionDrop",
	 "DrActionDrop()\n--\n\nDrop the packet "
	 "(mlx5dv_dr_action_create_drop).",
	 kind_init);
ACT_SPEC(defmiss, "DrActionDefMiss",
	 "DrActionDefMiss()\n--\n\nGo on with the default miss behaviour "
	 "(mlx5dv_dr_action_create_default_miss).",
	 kind_init);
ACT_SPEC(popvlan, "DrActionPopVLan",
	 "DrActionPopVLan()\n--\n\nPop the outer VLAN header "
	 "(mlx5dv_dr_action_create_pop_vlan).",
	 kind_init);
ACT_SPEC(pushvlan, "DrActionPushVLan",
	 "DrActionPushVLan(domain, vlan_hdr)\n--\n\nPush a VLAN header, "
	 "vlan_hdr a 32-bit value as the device takes it "
	 "(mlx5dv_dr_action_create_push_vlan).",
	 kind_init);
ACT_SPEC(vport, "DrActionVPort",
	 "DrActionVPort(domain, vport)\n--\n\nSteer the packet to an "
	 "e-switch vport (mlx5dv_dr_action_create_dest_vport).",
	 kind_init);
ACT_SPEC(ibport, "DrActionIBPort",
	 "DrActionIBPort(domain, ib_port)\n--\n\nSteer the packet to an IB "
	 "port (mlx5dv_dr_action_create_dest_ib_port).",
	 kind_init);

static int tag_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "tag", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	uint32_t tag;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:DrActionTag", kwlist,
					 pv_conv_u32, &tag) ||
	    act_begin(self))
		return -1;
	return act_finish(self, mlx5dv_dr_action_create_tag(tag),
			  "mlx5dv_dr_action_create_tag",
			  "DrActionTag creation failed.", NULL, 0);
}
ACT_SPEC(tag, "DrActionTag",
	 "DrActionTag(tag)\n--\n\nMark the packet's completion with tag, "
	 "a 32-bit value (mlx5dv_dr_action_create_tag).",
	 tag_init);

/* ---- actions on a QP, a table, a DevX object ---- */

static int qp_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "qp", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	struct pv_obj *parent;
	PyObject *qpo;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!:DrActionQp", kwlist,
					 pv.QP, &qpo) ||
	    act_begin(self))
		return -1;
	parent = PV_OBJ(qpo);
	if (pv_check_open(parent))
		return -1;
	return act_finish1(self,
			   mlx5dv_dr_action_create_dest_ibv_qp(
				   ((struct pv_qp *)qpo)->qp),
			   "mlx5dv_dr_action_create_dest_ibv_qp",
			   "DrActionQp creation failed.", parent);
}
ACT_SPEC(qp, "DrActionQp",
	 "DrActionQp(qp)\n--\n\nSteer the packet to qp "
	 "(mlx5dv_dr_action_create_dest_ibv_qp).  Closing the QP closes "
	 "the action first.",
	 qp_init);

static int dtable_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "table", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	struct pv_dr_table *tbl;
	PyObject *tblo;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:DrActionDestTable",
					 kwlist, &tblo) ||
	    act_begin(self))
		return -1;
	tbl = pv_dr_table_arg(tblo, "table");
	if (!tbl)
		return -1;
	return act_finish1(self, mlx5dv_dr_action_create_dest_table(tbl->table),
			   "mlx5dv_dr_action_create_dest_table",
			   "DrActionDestTable creation failed.", &tbl->obj);
}
ACT_SPEC(dtable, "DrActionDestTable",
	 "DrActionDestTable(table)\n--\n\nGo on to the DrTable table "
	 "(mlx5dv_dr_action_create_dest_table).",
	 dtable_init);

/*
 * The mlx5dv_devx_obj of the Mlx5DevxObj o, through the mlx5objs family's
 * accessor (NotImplementedError while that family is not built in).
 */
static struct mlx5dv_devx_obj *devx_obj(PyObject *o)
{
	if (!pv_mlx5_devx_obj_get) {
		PyErr_SetString(PyExc_NotImplementedError,
				"Mlx5DevxObj is not implemented in this "
				"version of pyverbs-c");
		return NULL;
	}
	/* the action becomes a child of o: it must be a handle object */
	if (!pv_type_ok(o, pv.PyverbsCM)) {
		PyErr_Format(PyExc_TypeError,
			     "devx_obj must be an "
			     "Mlx5DevxObj, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	return pv_mlx5_devx_obj_get(o);
}

static int counter_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "devx_obj", "offset", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	struct mlx5dv_devx_obj *dobj;
	uint32_t offset = 0;
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&:DrActionFlowCounter",
					 kwlist, &o, pv_conv_u32, &offset) ||
	    act_begin(self))
		return -1;
	dobj = devx_obj(o);
	if (!dobj)
		return -1;
	return act_finish1(self,
			   mlx5dv_dr_action_create_flow_counter(dobj, offset),
			   "mlx5dv_dr_action_create_flow_counter",
			   "DrActionFlowCounter creation failed.", PV_OBJ(o));
}
ACT_SPEC(counter, "DrActionFlowCounter",
	 "DrActionFlowCounter(devx_obj, offset=0)\n--\n\nCount the packet "
	 "in the flow counter devx_obj (an Mlx5DevxObj) at offset "
	 "(mlx5dv_dr_action_create_flow_counter).",
	 counter_init);

static int tir_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "devx_tir", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	struct mlx5dv_devx_obj *dobj;
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:DrActionDestTir", kwlist,
					 &o) ||
	    act_begin(self))
		return -1;
	dobj = devx_obj(o);
	if (!dobj)
		return -1;
	return act_finish1(self, mlx5dv_dr_action_create_dest_devx_tir(dobj),
			   "mlx5dv_dr_action_create_dest_devx_tir",
			   "Failed to create TIR action", PV_OBJ(o));
}
ACT_SPEC(tir, "DrActionDestTir",
	 "DrActionDestTir(devx_tir)\n--\n\nSteer the packet to the TIR "
	 "devx_tir, an Mlx5DevxObj "
	 "(mlx5dv_dr_action_create_dest_devx_tir).",
	 tir_init);

/* ---- actions on a domain ---- */

static int modify_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "domain", "flags", "actions", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	PyObject *domo, *actso = NULL;
	struct pv_dr_domain *dom;
	struct mlx5dv_dr_action *a;
	uint32_t flags = 0;
	uint64_t *buf;
	size_t n;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&O:DrActionModify",
					 kwlist, &domo, pv_conv_u32, &flags,
					 &actso) ||
	    act_begin(self))
		return -1;
	dom = pv_dr_domain_arg(domo, "domain");
	if (!dom)
		return -1;
	buf = pv_mlx5_actions8(actso, &n);
	if (!buf)
		return -1;
	/* bytes() ran Python code: check the domain again */
	if (pv_check_open(&dom->obj)) {
		PyMem_Free(buf);
		return -1;
	}
	/* the 8-byte PRM actions, already in the device's byte order */
	a = mlx5dv_dr_action_create_modify_header(dom->domain, flags,
						  n * sizeof(*buf),
						  (__be64 *)buf);
	PyMem_Free(buf);
	return act_finish1(self, a, "mlx5dv_dr_action_create_modify_header",
			   "Failed to create dr action modify header",
			   &dom->obj);
}
ACT_SPEC(modify, "DrActionModify",
	 "DrActionModify(domain, flags=0, actions=[])\n--\n\nModify header "
	 "fields (mlx5dv_dr_action_create_modify_header): actions is a list "
	 "of 8-byte device-format actions (bytes, or objects with "
	 "__bytes__).",
	 modify_init);

static int reformat_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "domain", "flags", "reformat_type", "data",
				  NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	unsigned int type =
		MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2;
	PyObject *domo, *data = Py_None, *b = NULL;
	struct pv_dr_domain *dom;
	struct mlx5dv_dr_action *a;
	uint32_t flags = 0;
	Py_ssize_t len = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "O|O&O&O:DrActionPacketReformat",
					 kwlist, &domo, pv_conv_u32, &flags,
					 pv_conv_uint, &type, &data) ||
	    act_begin(self))
		return -1;
	dom = pv_dr_domain_arg(domo, "domain");
	if (!dom)
		return -1;
	if (data != Py_None) {
		b = pv_mlx5_bytes(data, "data");
		if (!b)
			return -1;
		len = PyBytes_GET_SIZE(b);
		if (pv_check_open(&dom->obj)) {
			Py_DECREF(b);
			return -1;
		}
	}
	a = mlx5dv_dr_action_create_packet_reformat(dom->domain, flags, type,
						    len,
						    len ? PyBytes_AS_STRING(b) :
							  NULL);
	Py_XDECREF(b);
	return act_finish1(self, a, "mlx5dv_dr_action_create_packet_reformat",
			   "Failed to create dr action packet reformat",
			   &dom->obj);
}
ACT_SPEC(reformat, "DrActionPacketReformat",
	 "DrActionPacketReformat(domain, flags=0, reformat_type=0, "
	 "data=None)\n--\n\n"
	 "Defaults: reformat_type=MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_"
	 "L2_TUNNEL_TO_L2_.\nAdd or remove packet headers "
	 "(mlx5dv_dr_action_create_packet_reformat); data holds the "
	 "encapsulation headers, if any.",
	 reformat_init);

/* ---- the attribute objects: DrActionDestAttr, DrFlowSamplerAttr ---- */

/*
 * Both hold two objects (refs), dropped on close(); the C pointers are
 * taken from them when the action is made.  DrActionDestAttr: the dest
 * and reformat (or NULL) DrActions.  DrFlowSamplerAttr: the DrTable and
 * the tuple of sample DrActions.
 */
struct pv_dr_attr {
	struct pv_obj obj;
	PyObject *refs[2];
	int type; /* MLX5DV_DR_ACTION_DEST(_REFORMAT) */
	uint32_t sample_ratio;
	uint64_t action; /* __be64, as given */
};

static int attr_destroy(struct pv_obj *o)
{
	struct pv_dr_attr *self = (struct pv_dr_attr *)o;

	Py_CLEAR(self->refs[0]);
	Py_CLEAR(self->refs[1]);
	return 0;
}

static int attr_traverse(PyObject *o, visitproc visit, void *arg)
{
	struct pv_dr_attr *self = (struct pv_dr_attr *)o;

	Py_VISIT(self->refs[0]);
	Py_VISIT(self->refs[1]);
	return pv_obj_traverse(PV_OBJ(o), visit, arg);
}

static int attr_clear(PyObject *o)
{
	attr_destroy(PV_OBJ(o));
	return pv_obj_clear(PV_OBJ(o));
}

/* Start an attribute constructor (after its checks). */
static int attr_begin(struct pv_dr_attr *self)
{
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("%s is already initialised",
			      _PyType_Name(Py_TYPE(self)));
		return -1;
	}
	pv_obj_setup(&self->obj, attr_destroy);
	attr_destroy(&self->obj);
	return 0;
}

static int dattr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "action_type", "dest", "reformat", NULL };
	struct pv_dr_attr *self = (struct pv_dr_attr *)obj;
	PyObject *dest, *reformat = Py_None;
	int type;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O!|O:DrActionDestAttr",
					 kwlist, pv_conv_int, &type,
					 pv_mlx5.DrAction, &dest, &reformat))
		return -1;
	if (reformat != Py_None && !pv_type_ok(reformat, pv_mlx5.DrAction)) {
		PyErr_Format(PyExc_TypeError,
			     "reformat must be a DrAction or "
			     "None, not %.100s",
			     Py_TYPE(reformat)->tp_name);
		return -1;
	}
	if (type != MLX5DV_DR_ACTION_DEST &&
	    type != MLX5DV_DR_ACTION_DEST_REFORMAT) {
		pv_raise_error("Unsupported action type is provided.");
		return -1;
	}
	if (type == MLX5DV_DR_ACTION_DEST_REFORMAT && reformat == Py_None) {
		pv_raise_user("A DEST_REFORMAT destination needs a reformat "
			      "action");
		return -1;
	}
	if (attr_begin(self))
		return -1;
	self->type = type;
	self->refs[0] = Py_NewRef(dest);
	if (type == MLX5DV_DR_ACTION_DEST_REFORMAT)
		self->refs[1] = Py_NewRef(reformat);
	pv_obj_opened(&self->obj);
	return 0;
}

PV_GC_TYPE_SPEC(dattr, "pyverbs.providers.mlx5.dr_action.DrActionDestAttr",
		struct pv_dr_attr,
		"DrActionDestAttr(action_type, dest, reformat=None)\n--\n\n"
		"One destination of a DrActionDestArray (struct "
		"mlx5dv_dr_action_dest_attr): MLX5DV_DR_ACTION_DEST with "
		"the action dest, or MLX5DV_DR_ACTION_DEST_REFORMAT with "
		"dest and a reformat action applied before it.",
		{ Py_tp_init, dattr_init }, { Py_tp_traverse, attr_traverse },
		{ Py_tp_clear, attr_clear }, );

/* ---- DrActionDestArray ---- */

static int darray_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "domain", "actions_num", "dest_actions",
				  NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	struct mlx5dv_dr_action_dest_attr *attrs = NULL, **ptrs = NULL;
	struct mlx5dv_dr_action_dest_reformat *refs = NULL;
	PyObject *domo, *numo, *desto, *seq = NULL;
	struct pv_obj **parents = NULL;
	struct pv_dr_domain *dom;
	struct mlx5dv_dr_action *a;
	size_t n, i, np = 0;
	int truth, ret = -1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:DrActionDestArray",
					 kwlist, &domo, &numo, &desto) ||
	    act_begin(self))
		return -1;
	truth = PyObject_IsTrue(numo);
	if (truth > 0)
		truth = PyObject_IsTrue(desto);
	if (truth < 0)
		return -1;
	if (!truth || domo == Py_None) {
		pv_raise_error("Domain, number of actions and dest_actions "
			       "list must be provided for creating dest array "
			       "action.");
		return -1;
	}
	if (!pv_conv_size(numo, &n))
		return -1;
	dom = pv_dr_domain_arg(domo, "domain");
	if (!dom)
		return -1;
	seq = PySequence_Fast(desto, "dest_actions must be a list of "
				     "DrActionDestAttr");
	if (!seq)
		return -1;
	if (n > (size_t)PySequence_Fast_GET_SIZE(seq)) {
		PyErr_SetString(PyExc_IndexError, "actions_num is larger than "
						  "the dest_actions list");
		goto out;
	}
	attrs = PyMem_Calloc(n, sizeof(*attrs));
	refs = PyMem_Calloc(n, sizeof(*refs));
	ptrs = PyMem_Calloc(n, sizeof(*ptrs));
	parents = PyMem_Calloc(1 + 2 * n, sizeof(*parents));
	if (!attrs || !refs || !ptrs || !parents) {
		PyErr_NoMemory();
		goto out;
	}
	parents[np++] = &dom->obj;
	for (i = 0; i < n; i++) {
		PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
		struct pv_dr_attr *da;
		struct pv_dr_action *d, *r;

		if (!pv_type_ok(o, pv_mlx5.DrActionDestAttr)) {
			PyErr_Format(PyExc_TypeError,
				     "dest_actions items must "
				     "be DrActionDestAttr, not %.100s",
				     Py_TYPE(o)->tp_name);
			goto out;
		}
		da = (struct pv_dr_attr *)o;
		if (pv_check_open(&da->obj))
			goto out;
		d = pv_dr_action_arg(da->refs[0], "dest");
		if (!d)
			goto out;
		parents[np++] = &d->obj;
		attrs[i].type = da->type;
		if (da->type == MLX5DV_DR_ACTION_DEST_REFORMAT) {
			r = pv_dr_action_arg(da->refs[1], "reformat");
			if (!r)
				goto out;
			parents[np++] = &r->obj;
			refs[i].dest = d->action;
			refs[i].reformat = r->action;
			attrs[i].dest_reformat = &refs[i];
		} else {
			attrs[i].dest = d->action;
		}
		ptrs[i] = &attrs[i];
	}
	a = mlx5dv_dr_action_create_dest_array(dom->domain, n, ptrs);
	ret = act_finish(self, a, "mlx5dv_dr_action_create_dest_array",
			 "DrActionDestArray creation failed.", parents, np);
out:
	PyMem_Free(attrs);
	PyMem_Free(refs);
	PyMem_Free(ptrs);
	PyMem_Free(parents);
	Py_XDECREF(seq);
	return ret;
}
ACT_SPEC(darray, "DrActionDestArray",
	 "DrActionDestArray(domain, actions_num, dest_actions)\n--\n\n"
	 "Replicate the packet to several destinations "
	 "(mlx5dv_dr_action_create_dest_array): the first actions_num "
	 "DrActionDestAttr of dest_actions.  Closing any of their actions "
	 "closes this one first.",
	 darray_init);

/* ---- DrFlowSamplerAttr ---- */

static int sattr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "sample_ratio", "default_next_table",
				  "sample_actions", "action", NULL };
	struct pv_dr_attr *self = (struct pv_dr_attr *)obj;
	PyObject *tblo, *actso, *acto = Py_None, *tup;
	uint64_t action = 0;
	uint32_t ratio;
	Py_ssize_t i;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O!O|O:DrFlowSamplerAttr",
					 kwlist, pv_conv_u32, &ratio,
					 pv_mlx5.DrTable, &tblo, &actso, &acto))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("DrFlowSamplerAttr is already initialised");
		return -1;
	}
	tup = PySequence_Tuple(actso);
	if (!tup)
		return -1;
	for (i = 0; i < PyTuple_GET_SIZE(tup); i++) {
		PyObject *a = PyTuple_GET_ITEM(tup, i);

		if (!pv_type_ok(a, pv_mlx5.DrAction)) {
			PyErr_Format(PyExc_TypeError,
				     "sample_actions items "
				     "must be DrAction, not %.100s",
				     Py_TYPE(a)->tp_name);
			Py_DECREF(tup);
			return -1;
		}
	}
	if (acto != Py_None && pv_mlx5_action8(acto, &action, "action")) {
		Py_DECREF(tup);
		return -1;
	}
	if (attr_begin(self)) {
		Py_DECREF(tup);
		return -1;
	}
	self->sample_ratio = ratio;
	self->action = action;
	self->refs[0] = Py_NewRef(tblo);
	self->refs[1] = tup;
	pv_obj_opened(&self->obj);
	return 0;
}

PV_GC_TYPE_SPEC(sattr, "pyverbs.providers.mlx5.dr_action.DrFlowSamplerAttr",
		struct pv_dr_attr,
		"DrFlowSamplerAttr(sample_ratio, default_next_table, "
		"sample_actions, action=None)\n--\n\n"
		"How to sample (struct mlx5dv_dr_flow_sampler_attr): one "
		"packet in sample_ratio gets the sample_actions (a list "
		"of DrAction), every packet goes on to the DrTable "
		"default_next_table; action is an 8-byte set action "
		"passing reg_c0 on (FDB).",
		{ Py_tp_init, sattr_init }, { Py_tp_traverse, attr_traverse },
		{ Py_tp_clear, attr_clear }, );

/* ---- DrActionFlowSample ---- */

static int sample_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	struct mlx5dv_dr_flow_sampler_attr attr = { 0 };
	struct pv_obj **parents = NULL;
	struct pv_dr_attr *sa;
	struct mlx5dv_dr_action *a;
	struct pv_dr_table *tbl;
	Py_ssize_t n, i;
	PyObject *o;
	int ret = -1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!:DrActionFlowSample",
					 kwlist, pv_mlx5.DrFlowSamplerAttr,
					 &o) ||
	    act_begin(self))
		return -1;
	sa = (struct pv_dr_attr *)o;
	if (pv_check_open(&sa->obj))
		return -1;
	tbl = pv_dr_table_arg(sa->refs[0], "default_next_table");
	if (!tbl)
		return -1;
	n = PyTuple_GET_SIZE(sa->refs[1]);
	attr.sample_actions =
		PyMem_Calloc(n ? n : 1, sizeof(*attr.sample_actions));
	parents = PyMem_Calloc(1 + n, sizeof(*parents));
	if (!attr.sample_actions || !parents) {
		PyErr_NoMemory();
		goto out;
	}
	parents[0] = &tbl->obj;
	for (i = 0; i < n; i++) {
		struct pv_dr_action *sact =
			pv_dr_action_arg(PyTuple_GET_ITEM(sa->refs[1], i),
					 "sample_actions item");

		if (!sact)
			goto out;
		attr.sample_actions[i] = sact->action;
		parents[1 + i] = &sact->obj;
	}
	attr.sample_ratio = sa->sample_ratio;
	attr.default_next_table = tbl->table;
	attr.num_sample_actions = n;
	attr.action = sa->action;
	a = mlx5dv_dr_action_create_flow_sampler(&attr);
	ret = act_finish(self, a, "mlx5dv_dr_action_create_flow_sampler",
			 "DrActionFlowSample creation failed.", parents, 1 + n);
out:
	PyMem_Free(attr.sample_actions);
	PyMem_Free(parents);
	return ret;
}
ACT_SPEC(sample, "DrActionFlowSample",
	 "DrActionFlowSample(attr)\n--\n\nSample packets as the "
	 "DrFlowSamplerAttr attr says "
	 "(mlx5dv_dr_action_create_flow_sampler).  Closing its table or "
	 "any of its sample actions closes it first.",
	 sample_init);

int pv_mlx5_dr_action_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &act_spec, &pv.PyverbsCM, &pv_mlx5.DrAction },
		{ &dattr_spec, &pv.PyverbsCM, &pv_mlx5.DrActionDestAttr },
		{ &sattr_spec, &pv.PyverbsCM, &pv_mlx5.DrFlowSamplerAttr },
		{ &qp_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionQp },
		{ &counter_spec, &pv_mlx5.DrAction,
		  &pv_mlx5.DrActionFlowCounter },
		{ &drop_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionDrop },
		{ &modify_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionModify },
		{ &tag_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionTag },
		{ &dtable_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionDestTable },
		{ &popvlan_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionPopVLan },
		{ &pushvlan_spec, &pv_mlx5.DrAction,
		  &pv_mlx5.DrActionPushVLan },
		{ &darray_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionDestArray },
		{ &defmiss_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionDefMiss },
		{ &vport_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionVPort },
		{ &ibport_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionIBPort },
		{ &tir_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionDestTir },
		{ &reformat_spec, &pv_mlx5.DrAction,
		  &pv_mlx5.DrActionPacketReformat },
		{ &sample_spec, &pv_mlx5.DrAction,
		  &pv_mlx5.DrActionFlowSample },
		{ NULL }
	};

	return pv_add_types(m, types);
}
