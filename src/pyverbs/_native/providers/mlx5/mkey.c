/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5.mlx5dv_mkey: indirect mkeys (Mlx5Mkey, over
 * mlx5dv_create_mkey / mlx5dv_destroy_mkey / mlx5dv_mkey_check) and the
 * plain-data attributes of the mkey builders of Mlx5QP (qp.c):
 * Mlx5MkeyConfAttr, Mlx5MrInterleaved, the signature attributes and the
 * mkey check results.
 *
 * Upstream's Mlx5SigBlockDomain and Mlx5SigBlockAttr keep C pointers into
 * the objects they were given; here they hold those objects instead, and
 * pv_mlx5_sig_block_attr_get() copies the whole tree for the one call that
 * uses it, so nothing points into an object that may be gone.
 */
#include "mlx5.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "pd.h"
#include "state.h"

#define MKEY_MOD "pyverbs.providers.mlx5.mlx5dv_mkey."

/* ------------------------------------------------------------------ */
/* Mlx5SigCrc, Mlx5SigT10Dif                                           */
/* ------------------------------------------------------------------ */

struct sig_crc_obj {
	PyObject_HEAD
	struct mlx5dv_sig_crc crc;
};

static int sig_crc_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "crc_type", "seed", NULL };
	uint32_t type = 0;
	uint64_t seed = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&:Mlx5SigCrc", kwlist,
					 pv_conv_u32, &type, pv_conv_u64,
					 &seed))
		return -1;
	((struct sig_crc_obj *)o)->crc.type = type;
	((struct sig_crc_obj *)o)->crc.seed = seed;
	return 0;
}

PV_TYPE_SPEC(sig_crc, MKEY_MOD "Mlx5SigCrc", struct sig_crc_obj,
	     "Mlx5SigCrc(crc_type=0, seed=0)\n--\n\n"
	     "A CRC signature (struct mlx5dv_sig_crc).",
	     { Py_tp_init, sig_crc_init }, );

struct sig_t10dif_obj {
	PyObject_HEAD
	struct mlx5dv_sig_t10dif dif;
};

static int sig_t10dif_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "bg_type", "bg",    "app_tag",
				  "ref_tag", "flags", NULL };
	struct mlx5dv_sig_t10dif *d = &((struct sig_t10dif_obj *)o)->dif;
	uint32_t bg_type = 0, ref_tag = 0;
	uint16_t bg = 0, app_tag = 0, flags = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&O&O&O&:Mlx5SigT10Dif",
					 kwlist, pv_conv_u32, &bg_type,
					 pv_conv_u16, &bg, pv_conv_u16,
					 &app_tag, pv_conv_u32, &ref_tag,
					 pv_conv_u16, &flags))
		return -1;
	d->bg_type = bg_type;
	d->bg = bg;
	d->app_tag = app_tag;
	d->ref_tag = ref_tag;
	d->flags = flags;
	return 0;
}

PV_TYPE_SPEC(sig_t10dif, MKEY_MOD "Mlx5SigT10Dif", struct sig_t10dif_obj,
	     "Mlx5SigT10Dif(bg_type=0, bg=0, app_tag=0, ref_tag=0, "
	     "flags=0)\n--\n\n"
	     "A T10-DIF signature (struct mlx5dv_sig_t10dif).",
	     { Py_tp_init, sig_t10dif_init }, );

/* ------------------------------------------------------------------ */
/* Mlx5SigBlockDomain, Mlx5SigBlockAttr                                */
/* ------------------------------------------------------------------ */

/* dom.sig stays NULL: the pointer is made at call time from dif/crc. */
struct sig_domain_obj {
	PyObject_HEAD
	struct mlx5dv_sig_block_domain dom;
	PyObject *dif; /* Mlx5SigT10Dif or NULL */
	PyObject *crc; /* Mlx5SigCrc or NULL; wins over dif (the union) */
};

static const struct pv_oslot sig_domain_oslots[] = {
	{ PV_OSLOT_AT(struct sig_domain_obj, dif, "dif"),
	  .flags = PV_OSLOT_HIDDEN },
	{ PV_OSLOT_AT(struct sig_domain_obj, crc, "crc"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};
PV_OSLOTS_GC(sig_domain, sig_domain_oslots)

static int sig_domain_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "sig_type",	"dif",	     "crc",
				  "block_size", "comp_mask", NULL };
	struct sig_domain_obj *self = (struct sig_domain_obj *)o;
	PyObject *dif = Py_None, *crc = Py_None;
	uint32_t sig_type = 0, block_size = 0;
	uint64_t comp_mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "|O&OOO&O&:Mlx5SigBlockDomain", kwlist,
					 pv_conv_u32, &sig_type, &dif, &crc,
					 pv_conv_u32, &block_size, pv_conv_u64,
					 &comp_mask))
		return -1;
	if (dif != Py_None && !pv_type_ok(dif, pv_mlx5.SigT10Dif))
		return pv_mlx5_arg_type_error("dif", sig_t10dif_spec.name, dif);
	if (crc != Py_None && !pv_type_ok(crc, pv_mlx5.SigCrc))
		return pv_mlx5_arg_type_error("crc", sig_crc_spec.name, crc);
	memset(&self->dom, 0, sizeof(self->dom));
	self->dom.sig_type = sig_type;
	self->dom.block_size = block_size;
	self->dom.comp_mask = comp_mask;
	Py_XSETREF(self->dif, dif == Py_None ? NULL : Py_NewRef(dif));
	Py_XSETREF(self->crc, crc == Py_None ? NULL : Py_NewRef(crc));
	return 0;
}

PV_GC_TYPE_SPEC(sig_domain, MKEY_MOD "Mlx5SigBlockDomain",
		struct sig_domain_obj,
		"Mlx5SigBlockDomain(sig_type=0, dif=None, crc=None, "
		"block_size=0, comp_mask=0)\n--\n\n"
		"The signature of one domain (struct "
		"mlx5dv_sig_block_domain); dif is an Mlx5SigT10Dif, crc "
		"an Mlx5SigCrc (which wins when both are given: they "
		"share a union).",
		{ Py_tp_init, sig_domain_init },
		PV_OSLOTS_GC_SLOTS(sig_domain), );

struct sig_attr_obj {
	PyObject_HEAD
	struct mlx5dv_sig_block_attr attr; /* mem, wire stay NULL */
	PyObject *mem;			   /* Mlx5SigBlockDomain or NULL */
	PyObject *wire;
};

static const struct pv_oslot sig_attr_oslots[] = {
	{ PV_OSLOT_AT(struct sig_attr_obj, mem, "mem"),
	  .flags = PV_OSLOT_HIDDEN },
	{ PV_OSLOT_AT(struct sig_attr_obj, wire, "wire"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};
PV_OSLOTS_GC(sig_attr, sig_attr_oslots)

static int sig_attr_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "mem",	"wire",	     "flags",
				  "check_mask", "copy_mask", "comp_mask",
				  NULL };
	struct sig_attr_obj *self = (struct sig_attr_obj *)o;
	PyObject *mem = Py_None, *wire = Py_None;
	uint32_t flags = 0;
	uint8_t check = 0, copy = 0;
	uint64_t comp_mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "|OOO&O&O&O&:Mlx5SigBlockAttr", kwlist,
					 &mem, &wire, pv_conv_u32, &flags,
					 pv_conv_u8, &check, pv_conv_u8, &copy,
					 pv_conv_u64, &comp_mask))
		return -1;
	if (mem != Py_None && !pv_type_ok(mem, pv_mlx5.SigBlockDomain))
		return pv_mlx5_arg_type_error("mem", sig_domain_spec.name, mem);
	if (wire != Py_None && !pv_type_ok(wire, pv_mlx5.SigBlockDomain))
		return pv_mlx5_arg_type_error("wire", sig_domain_spec.name,
					      wire);
	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.flags = flags;
	self->attr.check_mask = check;
	self->attr.copy_mask = copy;
	self->attr.comp_mask = comp_mask;
	Py_XSETREF(self->mem, mem == Py_None ? NULL : Py_NewRef(mem));
	Py_XSETREF(self->wire, wire == Py_None ? NULL : Py_NewRef(wire));
	return 0;
}

/* Copy the domain object d (or NULL) into store slot i; its address. */
static const struct mlx5dv_sig_block_domain *
sig_domain_copy(PyObject *d, struct pv_mlx5_sig_block_store *st, int i)
{
	struct sig_domain_obj *dom = (struct sig_domain_obj *)d;

	if (!d)
		return NULL;
	st->dom[i] = dom->dom;
	st->dom[i].sig.dif = NULL;
	if (dom->dif) {
		st->dif[i] = ((struct sig_t10dif_obj *)dom->dif)->dif;
		st->dom[i].sig.dif = &st->dif[i];
	}
	if (dom->crc) {
		st->crc[i] = ((struct sig_crc_obj *)dom->crc)->crc;
		st->dom[i].sig.crc = &st->crc[i];
	}
	return &st->dom[i];
}

void pv_mlx5_sig_block_attr_get(PyObject *obj,
				struct mlx5dv_sig_block_attr *out,
				struct pv_mlx5_sig_block_store *store)
{
	struct sig_attr_obj *self = (struct sig_attr_obj *)obj;

	*out = self->attr;
	out->mem = sig_domain_copy(self->mem, store, 0);
	out->wire = sig_domain_copy(self->wire, store, 1);
}

PV_GC_TYPE_SPEC(sig_attr, MKEY_MOD "Mlx5SigBlockAttr", struct sig_attr_obj,
		"Mlx5SigBlockAttr(mem=None, wire=None, flags=0, "
		"check_mask=0, copy_mask=0, comp_mask=0)\n--\n\n"
		"The block signature of an mkey (struct "
		"mlx5dv_sig_block_attr): mem and wire are "
		"Mlx5SigBlockDomains, or None for a domain without a "
		"signature.",
		{ Py_tp_init, sig_attr_init }, PV_OSLOTS_GC_SLOTS(sig_attr), );

/* ------------------------------------------------------------------ */
/* Mlx5SigErr, Mlx5MkeyErr                                             */
/* ------------------------------------------------------------------ */

struct sig_err_obj {
	PyObject_HEAD
	struct mlx5dv_sig_err err;
};

static int sig_err_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "actual_value", "expected_value", "offset",
				  NULL };
	struct mlx5dv_sig_err *e = &((struct sig_err_obj *)o)->err;
	uint64_t actual = 0, expected = 0, offset = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&O&:Mlx5SigErr", kwlist,
					 pv_conv_u64, &actual, pv_conv_u64,
					 &expected, pv_conv_u64, &offset))
		return -1;
	e->actual_value = actual;
	e->expected_value = expected;
	e->offset = offset;
	return 0;
}

static const struct pv_field sig_err_fields[] = {
	PV_FIELD_RO(struct sig_err_obj, err.actual_value, "actual_value"),
	PV_FIELD_RO(struct sig_err_obj, err.expected_value, "expected_value"),
	PV_FIELD_RO(struct sig_err_obj, err.offset, "offset"), PV_FIELD_END
};

PV_DATA_SPEC(sig_err, MKEY_MOD "Mlx5SigErr", struct sig_err_obj,
	     "Mlx5SigErr(actual_value=0, expected_value=0, "
	     "offset=0)\n--\n\n"
	     "A signature error (struct mlx5dv_sig_err).",
	     { Py_tp_init, sig_err_init }, );

struct mkey_err_obj {
	PyObject_HEAD
	struct mlx5dv_mkey_err err;
};

static int mkey_err_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "sig_err", "err_type", NULL };
	struct mlx5dv_mkey_err *e = &((struct mkey_err_obj *)o)->err;
	PyObject *sig = NULL;
	uint32_t type = MLX5DV_MKEY_NO_ERR;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO&:Mlx5MkeyErr", kwlist,
					 &sig, pv_conv_u32, &type))
		return -1;
	/* upstream's default is Mlx5SigErr(): all zero */
	if (sig && !pv_type_ok(sig, pv_mlx5.SigErr))
		return pv_mlx5_arg_type_error("sig_err", sig_err_spec.name,
					      sig);
	memset(e, 0, sizeof(*e));
	e->err_type = type;
	if (sig)
		e->err.sig = ((struct sig_err_obj *)sig)->err;
	return 0;
}

/* A new Mlx5SigErr holding a copy of the error (upstream: a new one). */
static PyObject *mkey_err_get_sig(PyObject *o, void *c)
{
	struct sig_err_obj *s;

	s = (struct sig_err_obj *)pv_mlx5.SigErr->tp_alloc(pv_mlx5.SigErr, 0);
	if (s)
		s->err = ((struct mkey_err_obj *)o)->err.err.sig;
	return (PyObject *)s;
}

static const struct pv_field mkey_err_fields[] = {
	PV_FIELD_RO(struct mkey_err_obj, err.err_type, "err_type"), PV_FIELD_END
};

static const PyGetSetDef mkey_err_getset[] = {
	{ "sig_err", mkey_err_get_sig, NULL,
	  "A copy of the signature error (Mlx5SigErr).", NULL },
	{ NULL }
};

PV_DATA_SPEC(mkey_err, MKEY_MOD "Mlx5MkeyErr", struct mkey_err_obj,
	     "Mlx5MkeyErr(sig_err=..., "
	     "err_type=0)\n--\n\n"
	     "Defaults: sig_err=Mlx5SigErr(), err_type=MLX5DV_MKEY_NO_ERR.\n"
	     "The result of Mlx5Mkey.mkey_check() (struct "
	     "mlx5dv_mkey_err).",
	     { Py_tp_init, mkey_err_init }, );

/* ------------------------------------------------------------------ */
/* Mlx5MkeyConfAttr, Mlx5MrInterleaved (no attributes, as upstream)    */
/* ------------------------------------------------------------------ */

static int conf_attr_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "conf_flags", "comp_mask", NULL };
	struct mlx5dv_mkey_conf_attr *a =
		&((struct pv_mlx5_mkey_conf_attr *)o)->attr;
	uint32_t flags = 0;
	uint64_t comp_mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&:Mlx5MkeyConfAttr",
					 kwlist, pv_conv_u32, &flags,
					 pv_conv_u64, &comp_mask))
		return -1;
	a->conf_flags = flags;
	a->comp_mask = comp_mask;
	return 0;
}

PV_TYPE_SPEC(conf_attr, MKEY_MOD "Mlx5MkeyConfAttr",
	     struct pv_mlx5_mkey_conf_attr,
	     "Mlx5MkeyConfAttr(conf_flags=0, comp_mask=0)\n--\n\n"
	     "The configuration of Mlx5QP.wr_mkey_configure() (struct "
	     "mlx5dv_mkey_conf_attr).",
	     { Py_tp_init, conf_attr_init }, );

static int mr_il_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "bytes_count", "bytes_skip", "lkey",
				  NULL };
	struct mlx5dv_mr_interleaved *m =
		&((struct pv_mlx5_mr_interleaved *)o)->mr;
	uint64_t addr;
	uint32_t count, skip, lkey;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&O&O&:Mlx5MrInterleaved",
					 kwlist, pv_conv_u64, &addr,
					 pv_conv_u32, &count, pv_conv_u32,
					 &skip, pv_conv_u32, &lkey))
		return -1;
	memset(m, 0, sizeof(*m));
	m->addr = addr;
	m->bytes_count = count;
	m->bytes_skip = skip;
	m->lkey = lkey;
	return 0;
}

PV_TYPE_SPEC(mr_il, MKEY_MOD "Mlx5MrInterleaved", struct pv_mlx5_mr_interleaved,
	     "Mlx5MrInterleaved(addr, bytes_count, bytes_skip, "
	     "lkey)\n--\n\n"
	     "One entry of an interleaved mkey layout (struct "
	     "mlx5dv_mr_interleaved): bytes_count bytes of data at "
	     "addr, then bytes_skip bytes skipped.",
	     { Py_tp_init, mr_il_init }, );

/* ------------------------------------------------------------------ */
/* Mlx5Mkey                                                            */
/* ------------------------------------------------------------------ */

/* mlx5dv_destroy_mkey() returns an errno value. */
static int mkey_destroy(struct pv_obj *o)
{
	struct pv_mlx5_mkey *self = (struct pv_mlx5_mkey *)o;
	int rc;

	if (!self->mkey)
		return 0;
	rc = mlx5dv_destroy_mkey(self->mkey);
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_destroy_mkey",
			    "Failed to destroy a mkey");
		return -1;
	}
	self->mkey = NULL;
	return 0;
}

static int mkey_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd", "create_flags", "max_entries", NULL };
	struct pv_mlx5_mkey *self = (struct pv_mlx5_mkey *)o;
	struct mlx5dv_mkey_init_attr a;
	PyObject *pdo;
	struct pv_pd *pd;
	uint32_t flags;
	uint16_t max_entries;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&:Mlx5Mkey", kwlist,
					 &pdo, pv_conv_u32, &flags, pv_conv_u16,
					 &max_entries))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5Mkey is already initialised");
		return -1;
	}
	if (!pv_type_ok(pdo, pv.PD))
		return pv_mlx5_arg_type_error("pd", "pyverbs.pd.PD", pdo);
	pd = pv_pd_arg(pdo);
	if (!pd)
		return -1;
	pv_obj_setup(&self->obj, mkey_destroy);
	memset(&a, 0, sizeof(a));
	a.pd = pd->pd;
	a.create_flags = flags;
	a.max_entries = max_entries;
	self->mkey = mlx5dv_create_mkey(&a); /* NULL, errno set */
	if (!self->mkey) {
		pv_raise_errno("mlx5dv_create_mkey", "Failed to create mkey");
		return -1;
	}
	self->max_entries = a.max_entries; /* libmlx5 rounds it up */
	if (pv_obj_link(&self->obj, &pd->obj)) {
		mkey_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *mkey_check(PyObject *o, PyObject *unused)
{
	struct pv_mlx5_mkey *self = (struct pv_mlx5_mkey *)o;
	struct mkey_err_obj *res;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	res = (struct mkey_err_obj *)pv_mlx5.MkeyErr->tp_alloc(pv_mlx5.MkeyErr,
							       0);
	if (!res)
		return NULL;
	/* returns an errno value */
	rc = mlx5dv_mkey_check(self->mkey, &res->err);
	if (rc) {
		Py_DECREF(res);
		return pv_raise_rc(rc, "mlx5dv_mkey_check",
				   "Failed to check the mkey");
	}
	return (PyObject *)res;
}

/* closure: 0 lkey, 1 rkey, 2 max_entries */
static PyObject *mkey_get(PyObject *o, void *c)
{
	struct pv_mlx5_mkey *self = (struct pv_mlx5_mkey *)o;

	if (pv_check_open(&self->obj))
		return NULL;
	switch ((intptr_t)c) {
	case 0:
		return PyLong_FromUnsignedLong(self->mkey->lkey);
	case 1:
		return PyLong_FromUnsignedLong(self->mkey->rkey);
	default:
		return PyLong_FromUnsignedLong(self->max_entries);
	}
}

static PyMethodDef mkey_methods[] = {
	{ "mkey_check", mkey_check, METH_NOARGS,
	  "mkey_check($self, /)\n--\n\n"
	  "Check the mkey for errors (mlx5dv_mkey_check): an Mlx5MkeyErr." },
	{ NULL }
};

static PyGetSetDef mkey_getset[] = {
	{ "lkey", mkey_get, NULL, "The mkey's lkey.", (void *)0 },
	{ "rkey", mkey_get, NULL, "The mkey's rkey.", (void *)1 },
	{ "max_entries", mkey_get, NULL,
	  "The entries the mkey has (libmlx5 rounds the request up).",
	  (void *)2 },
	{ NULL }
};

PV_GC_TYPE_SPEC(mkey, MKEY_MOD "Mlx5Mkey", struct pv_mlx5_mkey,
		"Mlx5Mkey(pd, create_flags, max_entries)\n--\n\n"
		"An indirect mkey (mlx5dv_create_mkey), configured by "
		"Mlx5QP's mkey builders.  Closed with its PD.",
		{ Py_tp_init, mkey_init }, { Py_tp_methods, mkey_methods },
		{ Py_tp_getset, mkey_getset }, PV_CM_SLOTS, );

int pv_mlx5_mkey_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &sig_crc_spec, &pv.PyverbsObject, &pv_mlx5.SigCrc },
		{ &sig_t10dif_spec, &pv.PyverbsObject, &pv_mlx5.SigT10Dif },
		{ &sig_domain_spec, &pv.PyverbsObject,
		  &pv_mlx5.SigBlockDomain },
		{ &sig_attr_spec, &pv.PyverbsObject, &pv_mlx5.SigBlockAttr },
		{ &sig_err_spec, &pv.PyverbsObject, &pv_mlx5.SigErr,
		  sig_err_fields },
		{ &mkey_err_spec, &pv.PyverbsObject, &pv_mlx5.MkeyErr,
		  mkey_err_fields, NULL, mkey_err_getset },
		{ &conf_attr_spec, &pv.PyverbsObject, &pv_mlx5.MkeyConfAttr },
		{ &mr_il_spec, &pv.PyverbsObject, &pv_mlx5.MrInterleaved },
		{ &mkey_spec, &pv.PyverbsCM, &pv_mlx5.Mkey },
		{ NULL }
	};

	return pv_add_types(m, types);
}
