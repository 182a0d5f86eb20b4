/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * mlx5 direct rules (mlx5dv_dr_*): DrDomain, DrTable, DrMatcher, DrRule.
 *
 * The lifetime chain is Context -> DrDomain -> DrTable -> DrMatcher ->
 * DrRule, each a child of the one before, so closing any of them closes
 * what hangs below first.  A DrRule is also a child of every DrAction it
 * uses (dr_action.c), so closing an action closes its rules first.
 * libmlx5 refcounts its DR objects and refuses (EBUSY) to destroy one that
 * is still referenced: that order is what keeps every close valid.
 *
 * The DR calls on domain/table/matcher/rule objects do not check what they
 * are given (MLX5.md 7.2): only objects of these types, open, reach them.
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>
#include <stdio.h>

/* The open object o of type tp (NULL with TypeError / PyverbsUserError). */
static struct pv_obj *dr_arg(PyObject *o, PyTypeObject *tp, const char *what)
{
	if (!pv_type_ok(o, tp)) {
		PyErr_Format(PyExc_TypeError, "%s must be a %s, not %.100s",
			     what, _PyType_Name(tp), Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	return PV_OBJ(o);
}

struct pv_dr_domain *pv_dr_domain_arg(PyObject *o, const char *what)
{
	return (struct pv_dr_domain *)dr_arg(o, pv_mlx5.DrDomain, what);
}

struct pv_dr_table *pv_dr_table_arg(PyObject *o, const char *what)
{
	return (struct pv_dr_table *)dr_arg(o, pv_mlx5.DrTable, what);
}

struct pv_dr_action *pv_dr_action_arg(PyObject *o, const char *what)
{
	struct pv_dr_action *a =
		(struct pv_dr_action *)dr_arg(o, pv_mlx5.DrAction, what);

	/* a bare DrAction() owns no action: it never opened */
	return a;
}

/* A new object's constructor may run once. */
static int dr_fresh(struct pv_obj *o, const char *name)
{
	if (!o->closed || o->nparents) {
		pv_raise_user("%s is already initialised", name);
		return -1;
	}
	return 0;
}

/* ---- DrDomain ---- */

static int dom_destroy(struct pv_obj *o)
{
	struct pv_dr_domain *self = (struct pv_dr_domain *)o;
	int rc;

	if (!self->domain)
		return 0;
	rc = mlx5dv_dr_domain_destroy(self->domain); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_dr_domain_destroy",
			    "Failed to destroy DrDomain.");
		return -1;
	}
	self->domain = NULL;
	return 0;
}

static int dom_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "domain_type", NULL };
	struct pv_dr_domain *self = (struct pv_dr_domain *)obj;
	struct pv_context *ctx;
	PyObject *ctxo;
	unsigned int type;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!O&:DrDomain", kwlist,
					 pv.Context, &ctxo, pv_conv_uint,
					 &type))
		return -1;
	if (dr_fresh(&self->obj, "DrDomain"))
		return -1;
	ctx = (struct pv_context *)ctxo;
	if (pv_check_open(&ctx->obj))
		return -1;
	pv_obj_setup(&self->obj, dom_destroy);
	self->domain = mlx5dv_dr_domain_create(ctx->ctx, type);
	if (!self->domain) {
		pv_raise_errno("mlx5dv_dr_domain_create",
			       "DrDomain creation failed.");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		dom_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *dom_allow_dup(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "allow", NULL };
	struct pv_dr_domain *self = (struct pv_dr_domain *)obj;
	PyObject *allow;
	int v;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:allow_duplicate_rules",
					 kwlist, &allow))
		return NULL;
	v = PyObject_IsTrue(allow);
	if (v < 0 || pv_check_open(&self->obj))
		return NULL;
	mlx5dv_dr_domain_allow_duplicate_rules(self->domain, v);
	Py_RETURN_NONE;
}

static PyObject *dom_sync(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "flags", NULL };
	struct pv_dr_domain *self = (struct pv_dr_domain *)obj;
	uint32_t flags = MLX5DV_DR_DOMAIN_SYNC_FLAGS_SW |
			 MLX5DV_DR_DOMAIN_SYNC_FLAGS_HW;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&:sync", kwlist,
					 pv_conv_u32, &flags))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	errno = 0;
	if (mlx5dv_dr_domain_sync(self->domain, flags)) /* sets errno */
		return pv_raise_errno("mlx5dv_dr_domain_sync",
				      "DrDomain sync failed.");
	Py_RETURN_NONE;
}

static PyObject *dom_dump(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "filepath", NULL };
	struct pv_dr_domain *self = (struct pv_dr_domain *)obj;
	PyObject *path;
	FILE *fp;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:dump", kwlist,
					 PyUnicode_FSConverter, &path))
		return NULL;
	if (pv_check_open(&self->obj)) {
		Py_DECREF(path);
		return NULL;
	}
	fp = fopen(PyBytes_AS_STRING(path), "w+");
	Py_DECREF(path);
	if (!fp)
		return pv_raise_error("Opening dump file failed.");
	rc = mlx5dv_dump_dr_domain(fp, self->domain); /* returns errno */
	if (fclose(fp) && !rc)
		return pv_raise_error("Closing dump file failed.");
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_dump_dr_domain",
				   "Domain dump failed.");
	Py_RETURN_NONE;
}

static PyMethodDef dom_methods[] = {
	{ "allow_duplicate_rules", (PyCFunction)(void (*)(void))dom_allow_dup,
	  METH_VARARGS | METH_KEYWORDS,
	  "allow_duplicate_rules($self, /, allow)\n--\n\n"
	  "Allow (the default) or refuse the insertion of duplicate rules "
	  "(mlx5dv_dr_domain_allow_duplicate_rules)." },
	{ "sync", (PyCFunction)(void (*)(void))dom_sync,
	  METH_VARARGS | METH_KEYWORDS,
	  "sync($self, /, flags=3)\n--\n\n"
	  "Defaults: flags=MLX5DV_DR_DOMAIN_SYNC_FLAGS_SW | "
	  "MLX5DV_DR_DOMAIN_SYNC_FLAGS_HW.\n"
	  "Flush the rule submission queue (mlx5dv_dr_domain_sync): SW waits "
	  "for the queued software work, HW clears the steering cache, MEM "
	  "frees cached device memory." },
	{ "dump", (PyCFunction)(void (*)(void))dom_dump,
	  METH_VARARGS | METH_KEYWORDS,
	  "dump($self, /, filepath)\n--\n\n"
	  "Write the domain's debug dump (mlx5dv_dump_dr_domain, CSV) into "
	  "the file filepath (created or truncated)." },
	{ NULL }
};

PV_GC_TYPE_SPEC(dom, "pyverbs.providers.mlx5.dr_domain.DrDomain",
		struct pv_dr_domain,
		"DrDomain(context, domain_type)\n--\n\n"
		"A direct-rules steering domain (mlx5dv_dr_domain_create) "
		"of type MLX5DV_DR_DOMAIN_TYPE_NIC_RX, _NIC_TX or _FDB.  "
		"Closing it (or its Context) closes its tables and "
		"actions first.",
		{ Py_tp_init, dom_init }, { Py_tp_methods, dom_methods },
		PV_CM_SLOTS, );

/* ---- DrTable ---- */

static int tbl_destroy(struct pv_obj *o)
{
	struct pv_dr_table *self = (struct pv_dr_table *)o;
	int rc;

	if (!self->table)
		return 0;
	rc = mlx5dv_dr_table_destroy(self->table); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_dr_table_destroy",
			    "Failed to destroy DrTable.");
		return -1;
	}
	self->table = NULL;
	return 0;
}

static int tbl_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "domain", "level", NULL };
	struct pv_dr_table *self = (struct pv_dr_table *)obj;
	struct pv_dr_domain *dom;
	PyObject *domo;
	uint32_t level;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:DrTable", kwlist, &domo,
					 pv_conv_u32, &level))
		return -1;
	if (dr_fresh(&self->obj, "DrTable"))
		return -1;
	dom = pv_dr_domain_arg(domo, "domain");
	if (!dom)
		return -1;
	pv_obj_setup(&self->obj, tbl_destroy);
	self->table = mlx5dv_dr_table_create(dom->domain, level);
	if (!self->table) {
		pv_raise_errno("mlx5dv_dr_table_create",
			       "DrTable creation failed.");
		return -1;
	}
	if (pv_obj_link(&self->obj, &dom->obj)) {
		tbl_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

PV_GC_TYPE_SPEC(tbl, "pyverbs.providers.mlx5.dr_table.DrTable",
		struct pv_dr_table,
		"DrTable(domain, level)\n--\n\n"
		"A steering table of a DrDomain at the given level "
		"(mlx5dv_dr_table_create; level 0 is the root table).  "
		"Closing it closes its matchers and the actions that "
		"point to it first.",
		{ Py_tp_init, tbl_init }, PV_CM_SLOTS, );

/* ---- DrMatcher ---- */

struct pv_dr_matcher {
	struct pv_obj obj;
	struct mlx5dv_dr_matcher *matcher;
};

static int mat_destroy(struct pv_obj *o)
{
	struct pv_dr_matcher *self = (struct pv_dr_matcher *)o;

	if (!self->matcher)
		return 0;
	errno = 0;
	if (mlx5dv_dr_matcher_destroy(self->matcher)) { /* sets errno */
		pv_raise_errno("mlx5dv_dr_matcher_destroy",
			       "Failed to destroy DrMatcher.");
		return -1;
	}
	self->matcher = NULL;
	return 0;
}

static int mat_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "table", "priority", "match_criteria_enable",
				  "mask", NULL };
	struct pv_dr_matcher *self = (struct pv_dr_matcher *)obj;
	struct mlx5dv_flow_match_parameters *mask;
	PyObject *tblo, *masko;
	struct pv_dr_table *tbl;
	uint16_t prio;
	uint8_t mce;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&O:DrMatcher", kwlist,
					 &tblo, pv_conv_u16, &prio, pv_conv_u8,
					 &mce, &masko))
		return -1;
	if (dr_fresh(&self->obj, "DrMatcher"))
		return -1;
	tbl = pv_dr_table_arg(tblo, "table");
	if (!tbl)
		return -1;
	mask = pv_mlx5_match_params(masko, "mask");
	if (!mask)
		return -1;
	pv_obj_setup(&self->obj, mat_destroy);
	self->matcher = mlx5dv_dr_matcher_create(tbl->table, prio, mce, mask);
	if (!self->matcher) {
		pv_raise_errno("mlx5dv_dr_matcher_create",
			       "DrMatcher creation failed.");
		return -1;
	}
	if (pv_obj_link(&self->obj, &tbl->obj)) {
		mat_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *mat_set_layout(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "log_num_of_rules", "flags", NULL };
	struct pv_dr_matcher *self = (struct pv_dr_matcher *)obj;
	struct mlx5dv_dr_matcher_layout layout = {
		.flags = MLX5DV_DR_MATCHER_LAYOUT_NUM_RULE,
	};
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&:set_layout", kwlist,
					 pv_conv_u32,
					 &layout.log_num_of_rules_hint,
					 pv_conv_u32, &layout.flags))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	rc = mlx5dv_dr_matcher_set_layout(self->matcher, &layout);
	if (rc) /* returns errno */
		return pv_raise_rc(rc, "mlx5dv_dr_matcher_set_layout",
				   "Setting matcher layout failed.");
	Py_RETURN_NONE;
}

static PyMethodDef mat_methods[] = {
	{ "set_layout", (PyCFunction)(void (*)(void))mat_set_layout,
	  METH_VARARGS | METH_KEYWORDS,
	  "set_layout($self, /, log_num_of_rules=0, "
	  "flags=2)\n--\n\n"
	  "Defaults: flags=MLX5DV_DR_MATCHER_LAYOUT_NUM_RULE.\n"
	  "Size the matcher's rule table (mlx5dv_dr_matcher_set_layout): "
	  "log2 of the number of rules with LAYOUT_NUM_RULE, or "
	  "LAYOUT_RESIZABLE." },
	{ NULL }
};

PV_GC_TYPE_SPEC(mat, "pyverbs.providers.mlx5.dr_matcher.DrMatcher",
		struct pv_dr_matcher,
		"DrMatcher(table, priority, match_criteria_enable, "
		"mask)\n--\n\n"
		"A matcher of a DrTable (mlx5dv_dr_matcher_create): the "
		"fields of mask (an Mlx5FlowMatchParameters) that its "
		"rules match on, in the parts named by the "
		"match_criteria_enable bits (0 outer headers, 1 misc, "
		"2 inner headers, 3 misc2, 4 misc3, 5 misc4).  Closing "
		"it closes its rules first.",
		{ Py_tp_init, mat_init }, { Py_tp_methods, mat_methods },
		PV_CM_SLOTS, );

/* ---- DrRule ---- */

/* parents[0] is the DrMatcher, then each action in the order given */
struct pv_dr_rule {
	struct pv_obj obj;
	struct mlx5dv_dr_rule *rule;
};

static int rule_destroy(struct pv_obj *o)
{
	struct pv_dr_rule *self = (struct pv_dr_rule *)o;
	int rc;

	if (!self->rule)
		return 0;
	rc = mlx5dv_dr_rule_destroy(self->rule); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_dr_rule_destroy",
			    "Failed to destroy DrRule.");
		return -1;
	}
	self->rule = NULL;
	return 0;
}

static int rule_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "matcher", "value", "actions", NULL };
	struct pv_dr_rule *self = (struct pv_dr_rule *)obj;
	struct mlx5dv_flow_match_parameters *value;
	struct mlx5dv_dr_action **acts = NULL;
	PyObject *mato, *valo, *actso = Py_None, *seq = NULL;
	struct pv_dr_matcher *mat;
	Py_ssize_t n = 0, i;
	int ret = -1;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:DrRule", kwlist, &mato,
					 &valo, &actso))
		return -1;
	if (dr_fresh(&self->obj, "DrRule"))
		return -1;
	mat = (struct pv_dr_matcher *)dr_arg(mato, pv_mlx5.DrMatcher,
					     "matcher");
	if (!mat)
		return -1;
	value = pv_mlx5_match_params(valo, "value");
	if (!value)
		return -1;
	if (actso != Py_None) {
		seq = PySequence_Fast(actso, "actions must be a list of "
					     "DrAction");
		if (!seq)
			return -1;
		n = PySequence_Fast_GET_SIZE(seq);
	}
	acts = PyMem_Calloc(n ? n : 1, sizeof(*acts));
	if (!acts) {
		PyErr_NoMemory();
		goto out;
	}
	/* No Python code runs from here to the create: the list is fixed. */
	for (i = 0; i < n; i++) {
		struct pv_dr_action *a =
			pv_dr_action_arg(PySequence_Fast_GET_ITEM(seq, i),
					 "actions item");

		if (!a)
			goto out;
		acts[i] = a->action;
	}
	pv_obj_setup(&self->obj, rule_destroy);
	if (pv_obj_reserve_parents(&self->obj, 1 + n))
		goto out;
	self->rule = mlx5dv_dr_rule_create(mat->matcher, value, n, acts);
	if (!self->rule) {
		pv_raise_errno("mlx5dv_dr_rule_create",
			       "DrRule creation failed.");
		goto out;
	}
	if (pv_obj_link(&self->obj, &mat->obj))
		goto undo;
	for (i = 0; i < n; i++)
		if (pv_obj_link(&self->obj,
				PV_OBJ(PySequence_Fast_GET_ITEM(seq, i))))
			goto undo;
	pv_obj_opened(&self->obj);
	ret = 0;
	goto out;
undo:
	rule_destroy(&self->obj);
out:
	PyMem_Free(acts);
	Py_XDECREF(seq);
	return ret;
}

PV_GC_TYPE_SPEC(rule, "pyverbs.providers.mlx5.dr_rule.DrRule",
		struct pv_dr_rule,
		"DrRule(matcher, value, actions=None)\n--\n\n"
		"A steering rule of a DrMatcher (mlx5dv_dr_rule_create): "
		"packets matching value (an Mlx5FlowMatchParameters) "
		"get the actions (a list of DrAction).  The rule is "
		"closed before its matcher or any of its actions.",
		{ Py_tp_init, rule_init }, PV_CM_SLOTS, );

int pv_mlx5_dr_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &dom_spec, &pv.PyverbsCM, &pv_mlx5.DrDomain },
		{ &tbl_spec, &pv.PyverbsCM, &pv_mlx5.DrTable },
		{ &mat_spec, &pv.PyverbsCM, &pv_mlx5.DrMatcher },
		{ &rule_spec, &pv.PyverbsCM, &pv_mlx5.DrRule },
		{ NULL }
	};

	return pv_add_types(m, types);
}
