/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5.mlx5dv_crypto: crypto login sessions, data
 * encryption keys (DEK) and the crypto attributes of an mkey.
 *
 * The C structs hold fixed-size byte arrays (credential 48, opaque 8, key
 * 128, initial tweak 16, keytag 8).  Upstream memcpy's the full size from
 * whatever bytes it is given, reading past short ones; here a credential
 * must be exactly 48 bytes, the others at most their size (the rest is
 * zeroed: a wrapped 128-bit key is 40 bytes), and longer input is refused.
 * The arrays read back as upstream shows them: the bytes up to the first
 * NUL (Cython's char[] conversion), bounded by the array.
 *
 * Lifetime: an Mlx5CryptoLogin is a child of its Context; an Mlx5DEK is a
 * child of its PD and of the Mlx5CryptoLogin it was created under, if any.
 * Printing (__str__) is in mlx5dv_crypto.py.
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "pd.h"
#include "state.h"

#include <errno.h>

/*
 * Copy the bytes-like v into dst[size]: exactly size bytes when exact, else
 * at most size, the rest zeroed.  0, or -1 with TypeError (not bytes-like)
 * or ValueError (length).
 */
static int crypto_copy(char *dst, size_t size, PyObject *v, int exact,
		       const char *what)
{
	Py_buffer view;
	int rc = 0;

	if (PyUnicode_Check(v) || PyObject_GetBuffer(v, &view, PyBUF_SIMPLE)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s must be bytes, not %.100s",
			     what, Py_TYPE(v)->tp_name);
		return -1;
	}
	if ((exact && (size_t)view.len != size) || (size_t)view.len > size) {
		PyErr_Format(PyExc_ValueError,
			     exact ? "%s must be %zu bytes long, not %zd" :
				     "%s must be at most %zu bytes long, not %zd",
			     what, size, view.len);
		rc = -1;
	} else {
		memset(dst, 0, size);
		memcpy(dst, view.buf, view.len);
	}
	PyBuffer_Release(&view);
	return rc;
}

/* The bytes of src[size] up to the first NUL. */
static PyObject *crypto_cstr(const char *src, size_t size)
{
	return PyBytes_FromStringAndSize(src, strnlen(src, size));
}

/* The same as hex digits (str). */
static PyObject *crypto_hex(const char *src, size_t size)
{
	PyObject *b = crypto_cstr(src, size), *res;

	if (!b)
		return NULL;
	res = PyObject_CallMethod(b, "hex", NULL);
	Py_DECREF(b);
	return res;
}

static int crypto_bool(PyObject *v, bool *out)
{
	int t = PyObject_IsTrue(v);

	if (t < 0)
		return -1;
	*out = t;
	return 0;
}

/* ---- Mlx5CryptoLoginAttr ---- */

struct crypto_login_attr {
	PyObject_HEAD
	struct mlx5dv_crypto_login_attr attr;
};

#define CLA struct crypto_login_attr
static const struct pv_field cla_fields[] = {
	PV_FIELD_RO(CLA, attr.credential_id, "credential_id"),
	PV_FIELD_RO(CLA, attr.import_kek_id, "import_kek_id"),
	PV_FIELD_RO(CLA, attr.comp_mask, "comp_mask"), PV_FIELD_END
};
#undef CLA

static int cla_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "credential", "credential_id",
				  "import_kek_id", NULL };
	struct crypto_login_attr *self = (struct crypto_login_attr *)obj;
	PyObject *cred;
	uint32_t id = 0, kek = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&O&:Mlx5CryptoLoginAttr",
					 kwlist, &cred, pv_conv_u32, &id,
					 pv_conv_u32, &kek))
		return -1;
	if (crypto_copy(self->attr.credential, sizeof(self->attr.credential),
			cred, 1, "credential"))
		return -1;
	self->attr.credential_id = id;
	self->attr.import_kek_id = kek;
	return 0;
}

static PyObject *cla_get_credential(PyObject *obj, void *closure)
{
	struct crypto_login_attr *self = (struct crypto_login_attr *)obj;

	return crypto_cstr(self->attr.credential,
			   sizeof(self->attr.credential));
}

static PyGetSetDef cla_extra[] = { { "credential", cla_get_credential, NULL,
				     "The wrapped credential (bytes).", NULL },
				   { NULL } };

PV_DATA_SPEC(cla, "pyverbs.providers.mlx5.mlx5dv_crypto.Mlx5CryptoLoginAttr",
	     struct crypto_login_attr,
	     "Mlx5CryptoLoginAttr(credential, credential_id=0, "
	     "import_kek_id=0)\n--\n\n"
	     "A crypto login (struct mlx5dv_crypto_login_attr): the "
	     "credential (48 bytes, wrapped with the import KEK) and "
	     "the indexes of the credential and of the import KEK "
	     "stored on the device.",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, cla_init }, );

int pv_mlx5_crypto_login_attr_get(PyObject *o,
				  struct mlx5dv_crypto_login_attr *out)
{
	if (!pv_type_ok(o, pv_mlx5.CryptoLoginAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'login_attr' has incorrect type "
			     "(expected %s, got %.200s)",
			     cla_spec.name, Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = ((struct crypto_login_attr *)o)->attr;
	return 0;
}

/* ---- Mlx5CryptoExtLoginAttr ---- */

struct crypto_ext_login_attr {
	PyObject_HEAD
	struct mlx5dv_crypto_login_attr_ex attr; /* credential: NULL */
	PyObject *credential;			 /* bytes */
};

#define CELA struct crypto_ext_login_attr
static const struct pv_field cela_fields[] = {
	PV_FIELD_RO(CELA, attr.credential_id, "credential_id"),
	PV_FIELD_RO(CELA, attr.import_kek_id, "import_kek_id"),
	PV_FIELD_RO(CELA, attr.credential_len, "credential_len"),
	PV_FIELD_RO(CELA, attr.comp_mask, "comp_mask"), PV_FIELD_END
};
static const struct pv_oslot cela_oslots[] = {
	PV_OSLOT_RO(CELA, credential, "credential",
		    "The wrapped credential (bytes)."),
	PV_OSLOT_END
};
#undef CELA

static int cela_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "credential", "credential_len",
				  "credential_id", "import_kek_id", NULL };
	struct crypto_ext_login_attr *self =
		(struct crypto_ext_login_attr *)obj;
	PyObject *cred, *b;
	uint32_t id = 0, kek = 0;
	size_t len;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "OO&|O&O&:Mlx5CryptoExtLoginAttr",
					 kwlist, &cred, pv_conv_size, &len,
					 pv_conv_u32, &id, pv_conv_u32, &kek))
		return -1;
	if (!PyBytes_Check(cred)) {
		PyErr_Format(PyExc_TypeError,
			     "credential must be bytes, not %.100s",
			     Py_TYPE(cred)->tp_name);
		return -1;
	}
	/* libmlx5 reads credential_len bytes of it */
	if (len > (size_t)PyBytes_GET_SIZE(cred)) {
		PyErr_Format(PyExc_ValueError,
			     "credential_len %zu is longer than the credential "
			     "(%zd bytes)",
			     len, PyBytes_GET_SIZE(cred));
		return -1;
	}
	b = Py_NewRef(cred);
	Py_XSETREF(self->credential, b);
	self->attr.credential = NULL;
	self->attr.credential_len = len;
	self->attr.credential_id = id;
	self->attr.import_kek_id = kek;
	return 0;
}

PV_OSLOTS_GC(cela, cela_oslots)

PV_GC_TYPE_SPEC(cela,
		"pyverbs.providers.mlx5.mlx5dv_crypto.Mlx5CryptoExtLoginAttr",
		struct crypto_ext_login_attr,
		"Mlx5CryptoExtLoginAttr(credential, credential_len, "
		"credential_id=0, import_kek_id=0)\n--\n\n"
		"A crypto login object's attributes (struct "
		"mlx5dv_crypto_login_attr_ex): credential_len bytes of "
		"the credential are used.",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, cela_init },
		{ Py_tp_getset, NULL }, PV_OSLOTS_GC_SLOTS(cela), );

/* ---- Mlx5CryptoLogin ---- */

struct crypto_login {
	struct pv_obj obj; /* parents[0]: the Context */
	struct mlx5dv_crypto_login_obj *login;
};

static int cl_destroy(struct pv_obj *o)
{
	struct crypto_login *self = (struct crypto_login *)o;
	int rc;

	if (!self->login)
		return 0;
	rc = mlx5dv_crypto_login_destroy(self->login); /* errno */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_crypto_login_destroy",
			    "Failed to destroy a CryptoLoginObj");
		return -1;
	}
	self->login = NULL;
	return 0;
}

static int cl_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "crypto_attr", NULL };
	struct crypto_login *self = (struct crypto_login *)obj;
	struct mlx5dv_crypto_login_attr_ex a;
	struct crypto_ext_login_attr *la;
	struct pv_context *ctx;
	PyObject *ctxo, *lao;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:Mlx5CryptoLogin", kwlist,
					 &ctxo, &lao))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5CryptoLogin is already initialised");
		return -1;
	}
	ctx = pv_mlx5_ctx_arg(ctxo, "context");
	if (!ctx)
		return -1;
	if (!PyObject_TypeCheck(lao, pv_mlx5.CryptoExtLoginAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'crypto_attr' has incorrect type "
			     "(expected %s, got %.200s)",
			     cela_spec.name, Py_TYPE(lao)->tp_name);
		return -1;
	}
	la = (struct crypto_ext_login_attr *)lao;
	a = la->attr;
	if (!la->credential) {
		pv_raise_user("Mlx5CryptoExtLoginAttr is not initialised");
		return -1;
	}
	a.credential = PyBytes_AS_STRING(la->credential);
	pv_obj_setup(&self->obj, cl_destroy);
	self->login = mlx5dv_crypto_login_create(ctx->ctx, &a); /* errno */
	if (!self->login) {
		pv_raise_errno("mlx5dv_crypto_login_create",
			       "Failed to create CryptoLoginObj");
		return -1;
	}
	if (pv_obj_link(&self->obj, &ctx->obj)) {
		cl_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *cl_query(PyObject *obj, PyObject *unused)
{
	struct crypto_login *self = (struct crypto_login *)obj;
	struct mlx5dv_crypto_login_query_attr q;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	memset(&q, 0, sizeof(q));
	rc = mlx5dv_crypto_login_query(self->login, &q); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_crypto_login_query",
				   "Failed to query the crypto login session "
				   "state.");
	return PyLong_FromLong(q.state);
}

static PyMethodDef cl_methods[] = { { "query", cl_query, METH_NOARGS,
				      "query($self, /)\n--\n\n"
				      "The state of the crypto login session "
				      "(MLX5DV_CRYPTO_LOGIN_STATE_*)." },
				    { NULL } };

PV_GC_TYPE_SPEC(cl, "pyverbs.providers.mlx5.mlx5dv_crypto.Mlx5CryptoLogin",
		struct crypto_login,
		"Mlx5CryptoLogin(context, crypto_attr)\n--\n\n"
		"A crypto login object (mlx5dv_crypto_login_create) of "
		"an Mlx5CryptoExtLoginAttr, for DEKs created under it.",
		{ Py_tp_init, cl_init }, { Py_tp_methods, cl_methods },
		PV_CM_SLOTS, );

/* ---- Mlx5DEKInitAttr ---- */

struct dek_init_attr {
	PyObject_HEAD
	struct mlx5dv_dek_init_attr attr; /* pd, crypto_login: NULL */
	PyObject *pd;			  /* PD or None */
	PyObject *crypto_login;		  /* Mlx5CryptoLogin or None */
};

#define DIA struct dek_init_attr
static const struct pv_field dia_fields[] = {
	PV_FIELD_RO(DIA, attr.key_size, "key_size"),
	PV_FIELD_RO(DIA, attr.key_purpose, "key_purpose"),
	PV_FIELD_RO(DIA, attr.comp_mask, "comp_mask"), PV_FIELD_END
};
static const struct pv_oslot dia_oslots[] = {
	{ PV_OSLOT_AT(DIA, pd, "pd"), .flags = PV_OSLOT_HIDDEN },
	{ PV_OSLOT_AT(DIA, crypto_login, "crypto_login"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};
#undef DIA

static int dia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd",		 "key_size",	 "has_keytag",
				  "key_purpose", "opaque",	 "key",
				  "comp_mask",	 "crypto_login", NULL };
	struct dek_init_attr *self = (struct dek_init_attr *)obj;
	PyObject *pd, *size, *keytag = Py_False, *purpose = NULL;
	PyObject *opaque = NULL, *key = NULL, *mask = NULL, *cl = Py_None;
	PyObject *vals[3];

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOOOO:Mlx5DEKInitAttr",
					 kwlist, &pd, &size, &keytag, &purpose,
					 &opaque, &key, &mask, &cl))
		return -1;
	if (pd != Py_None && !PyObject_TypeCheck(pd, pv.PD)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'pd' has incorrect type (expected "
			     "pyverbs.pd.PD, got %.200s)",
			     Py_TYPE(pd)->tp_name);
		return -1;
	}
	if (cl != Py_None && !PyObject_TypeCheck(cl, pv_mlx5.CryptoLogin)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'crypto_login' has incorrect type "
			     "(expected %s, got %.200s)",
			     cl_spec.name, Py_TYPE(cl)->tp_name);
		return -1;
	}
	vals[0] = size;
	vals[1] = purpose;
	vals[2] = mask;
	if (pv_mlx5_store_fields(obj, dia_fields, vals, 3) ||
	    crypto_bool(keytag, &self->attr.has_keytag))
		return -1;
	if (opaque && crypto_copy(self->attr.opaque, sizeof(self->attr.opaque),
				  opaque, 0, "opaque"))
		return -1;
	if (key &&
	    crypto_copy(self->attr.key, sizeof(self->attr.key), key, 0, "key"))
		return -1;
	pv_set_slot(&self->pd, pd);
	pv_set_slot(&self->crypto_login, cl);
	return 0;
}

static PyObject *dia_get(PyObject *obj, void *closure)
{
	struct dek_init_attr *self = (struct dek_init_attr *)obj;
	PyObject *b, *res;

	switch ((intptr_t)closure) {
	case 0:
		return PyBool_FromLong(self->attr.has_keytag);
	case 1: /* upstream: opaque.decode() */
		b = crypto_cstr(self->attr.opaque, sizeof(self->attr.opaque));
		if (!b)
			return NULL;
		res = PyUnicode_FromEncodedObject(b, NULL, NULL);
		Py_DECREF(b);
		return res;
	default:
		return crypto_hex(self->attr.key, sizeof(self->attr.key));
	}
}

static PyGetSetDef dia_extra[] = {
	{ "has_keytag", dia_get, NULL, "Whether the key has a keytag.",
	  (void *)0 },
	{ "opaque", dia_get, NULL, "The plaintext metadata of the key (str).",
	  (void *)1 },
	{ "key", dia_get, NULL, "The wrapped key, in hex (str).", (void *)2 },
	{ NULL }
};

PV_OSLOTS_GC(dia, dia_oslots)

PV_GC_TYPE_SPEC(dia, "pyverbs.providers.mlx5.mlx5dv_crypto.Mlx5DEKInitAttr",
		struct dek_init_attr,
		"Mlx5DEKInitAttr(pd, key_size, has_keytag=False, "
		"key_purpose=0, opaque=b'', key=b'', "
		"comp_mask=0, crypto_login=None)\n--\n\n"
		"How to create a DEK (struct mlx5dv_dek_init_attr): "
		"opaque is at most 8 bytes, key (wrapped) at most 128.",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, dia_init },
		{ Py_tp_getset, NULL }, PV_OSLOTS_GC_SLOTS(dia), );

/* ---- Mlx5DEKAttr ---- */

struct dek_attr {
	PyObject_HEAD
	struct mlx5dv_dek_attr attr;
};

static const struct pv_field da_fields[] = {
	PV_FIELD_RO(struct dek_attr, attr.state, "state"),
	PV_FIELD_RO(struct dek_attr, attr.comp_mask, "comp_mask"), PV_FIELD_END
};

static PyObject *da_get_opaque(PyObject *obj, void *closure)
{
	struct dek_attr *self = (struct dek_attr *)obj;

	return crypto_cstr(self->attr.opaque, sizeof(self->attr.opaque));
}

static PyGetSetDef da_extra[] = { { "opaque", da_get_opaque, NULL,
				    "The key's metadata (bytes).", NULL },
				  { NULL } };

PV_MLX5_ANSWER_SPEC(da, "pyverbs.providers.mlx5.mlx5dv_crypto.Mlx5DEKAttr",
		    struct dek_attr,
		    "Mlx5DEKAttr()\n--\n\n"
		    "A DEK's state (struct mlx5dv_dek_attr), as "
		    "Mlx5DEK.query() returns it.");

/* ---- Mlx5DEK ---- */

struct dek {
	struct pv_obj obj; /* parents: the PD, the login if any */
	struct mlx5dv_dek *dek;
};

static int dek_destroy(struct pv_obj *o)
{
	struct dek *self = (struct dek *)o;
	int rc;

	if (!self->dek)
		return 0;
	rc = mlx5dv_dek_destroy(self->dek); /* errno */
	if (rc) {
		pv_raise_rc(rc, "mlx5dv_dek_destroy",
			    "Failed to destroy a DEK");
		return -1;
	}
	self->dek = NULL;
	return 0;
}

static int dek_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ctx", "dek_init_attr", NULL };
	struct dek *self = (struct dek *)obj;
	struct mlx5dv_dek_init_attr a;
	struct dek_init_attr *dia;
	struct pv_obj *login = NULL;
	struct pv_context *ctx;
	struct pv_pd *pd;
	PyObject *ctxo, *diao;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:Mlx5DEK", kwlist, &ctxo,
					 &diao))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("Mlx5DEK is already initialised");
		return -1;
	}
	ctx = pv_mlx5_ctx_arg(ctxo, "ctx");
	if (!ctx)
		return -1;
	if (!PyObject_TypeCheck(diao, pv_mlx5.DEKInitAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'dek_init_attr' has incorrect type "
			     "(expected %s, got %.200s)",
			     dia_spec.name, Py_TYPE(diao)->tp_name);
		return -1;
	}
	dia = (struct dek_init_attr *)diao;
	if (!dia->pd || dia->pd == Py_None) {
		pv_raise_user("Mlx5DEKInitAttr has no PD");
		return -1;
	}
	pd = pv_pd_arg(dia->pd);
	if (!pd || pv_obj_check_in(&pd->obj, &ctx->obj, "PD", "Context"))
		return -1;
	a = dia->attr;
	a.pd = pd->pd;
	a.crypto_login = NULL;
	if (dia->crypto_login && dia->crypto_login != Py_None) {
		login = PV_OBJ(dia->crypto_login);
		if (pv_obj_check_in(login, &ctx->obj, "crypto login",
				    "Context"))
			return -1;
		a.crypto_login = ((struct crypto_login *)login)->login;
	}
	pv_obj_setup(&self->obj, dek_destroy);
	self->dek = mlx5dv_dek_create(ctx->ctx, &a); /* NULL, errno */
	if (!self->dek) {
		pv_raise_errno("mlx5dv_dek_create", "Failed to create DEK");
		return -1;
	}
	if (pv_obj_link(&self->obj, &pd->obj) ||
	    (login && pv_obj_link(&self->obj, login))) {
		dek_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *dek_query(PyObject *obj, PyObject *unused)
{
	struct dek *self = (struct dek *)obj;
	struct dek_attr *res;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	res = PyObject_New(struct dek_attr, pv_mlx5.DEKAttr);
	if (!res)
		return NULL;
	memset(&res->attr, 0, sizeof(res->attr));
	rc = mlx5dv_dek_query(self->dek, &res->attr); /* errno */
	if (rc) {
		Py_DECREF(res);
		return pv_raise_rc(rc, "mlx5dv_dek_query",
				   "Failed to query the dek");
	}
	return (PyObject *)res;
}

static PyMethodDef dek_methods[] = {
	{ "query", dek_query, METH_NOARGS,
	  "query($self, /)\n--\n\n"
	  "The DEK's state and opaque (mlx5dv_dek_query) as an "
	  "Mlx5DEKAttr." },
	{ NULL }
};

PV_GC_TYPE_SPEC(dek, "pyverbs.providers.mlx5.mlx5dv_crypto.Mlx5DEK", struct dek,
		"Mlx5DEK(ctx, dek_init_attr)\n--\n\n"
		"A data encryption key (mlx5dv_dek_create).  Closing its "
		"PD or its crypto login closes it first.",
		{ Py_tp_init, dek_init }, { Py_tp_methods, dek_methods },
		PV_CM_SLOTS, );

/* ---- Mlx5CryptoAttr ---- */

struct crypto_attr {
	PyObject_HEAD
	struct mlx5dv_crypto_attr attr; /* dek: NULL */
	PyObject *dek;			/* Mlx5DEK or None */
};

#define CA struct crypto_attr
static const struct pv_field ca_fields[] = {
	PV_FIELD_RO(CA, attr.crypto_standard, "crypto_standard"),
	PV_FIELD_RO(CA, attr.signature_crypto_order, "signature_crypto_order"),
	PV_FIELD_RO(CA, attr.data_unit_size, "data_unit_size"),
	PV_FIELD_RO(CA, attr.comp_mask, "comp_mask"), PV_FIELD_END
};
static const struct pv_oslot ca_oslots[] = { { PV_OSLOT_AT(CA, dek, "dek"),
					       .flags = PV_OSLOT_HIDDEN },
					     PV_OSLOT_END };
#undef CA

static int ca_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {
		"crypto_standard", "encrypt_on_tx", "signature_crypto_order",
		"data_unit_size",  "initial_tweak", "dek",
		"keytag",	   "comp_mask",	    NULL
	};
	struct crypto_attr *self = (struct crypto_attr *)obj;
	PyObject *std = NULL, *tx = Py_False, *order = NULL, *unit = NULL;
	PyObject *tweak = NULL, *dek = Py_None, *tag = NULL, *mask = NULL;
	PyObject *vals[4];

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOOOOOO:Mlx5CryptoAttr",
					 kwlist, &std, &tx, &order, &unit,
					 &tweak, &dek, &tag, &mask))
		return -1;
	if (dek != Py_None && !PyObject_TypeCheck(dek, pv_mlx5.DEK)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'dek' has incorrect type (expected %s, "
			     "got %.200s)",
			     dek_spec.name, Py_TYPE(dek)->tp_name);
		return -1;
	}
	vals[0] = std;
	vals[1] = order;
	vals[2] = unit;
	vals[3] = mask;
	if (pv_mlx5_store_fields(obj, ca_fields, vals, 4) ||
	    crypto_bool(tx, &self->attr.encrypt_on_tx))
		return -1;
	if (tweak && crypto_copy(self->attr.initial_tweak,
				 sizeof(self->attr.initial_tweak), tweak, 0,
				 "initial_tweak"))
		return -1;
	if (tag && crypto_copy(self->attr.keytag, sizeof(self->attr.keytag),
			       tag, 0, "keytag"))
		return -1;
	pv_set_slot(&self->dek, dek);
	return 0;
}

static PyObject *ca_get(PyObject *obj, void *closure)
{
	struct crypto_attr *self = (struct crypto_attr *)obj;

	switch ((intptr_t)closure) {
	case 0:
		return PyBool_FromLong(self->attr.encrypt_on_tx);
	case 1:
		return crypto_hex(self->attr.initial_tweak,
				  sizeof(self->attr.initial_tweak));
	default:
		return crypto_hex(self->attr.keytag, sizeof(self->attr.keytag));
	}
}

static PyGetSetDef ca_extra[] = {
	{ "encrypt_on_tx", ca_get, NULL,
	  "Encrypt memory data on TX, decrypt wire data on RX.", (void *)0 },
	{ "initial_tweak", ca_get, NULL, "The initial tweak, in hex (str).",
	  (void *)1 },
	{ "keytag", ca_get, NULL, "The keytag, in hex (str).", (void *)2 },
	{ NULL }
};

PV_OSLOTS_GC(ca, ca_oslots)

PV_GC_TYPE_SPEC(ca, "pyverbs.providers.mlx5.mlx5dv_crypto.Mlx5CryptoAttr",
		struct crypto_attr,
		"Mlx5CryptoAttr(crypto_standard=0, encrypt_on_tx=False, "
		"signature_crypto_order=0, data_unit_size=0, "
		"initial_tweak=b'', dek=None, keytag=b'', "
		"comp_mask=0)\n--\n\n"
		"The crypto attributes of an mkey (struct "
		"mlx5dv_crypto_attr), for Mlx5QP.wr_set_mkey_crypto(): "
		"initial_tweak is at most 16 bytes, keytag at most 8.",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, ca_init },
		{ Py_tp_getset, NULL }, PV_OSLOTS_GC_SLOTS(ca), );

/*
 * The weak accessor of mlx5.h: the struct of the Mlx5CryptoAttr obj with
 * its dek pointer, which stays valid while obj holds the open DEK.  A
 * closed DEK is refused: libmlx5 would dereference the freed one.
 */
int pv_mlx5_crypto_attr_get(PyObject *obj, struct mlx5dv_crypto_attr *out)
{
	struct crypto_attr *self = (struct crypto_attr *)obj;

	if (!pv_type_ok(obj, pv_mlx5.CryptoAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'attr' has incorrect type (expected "
			     "%s, got %.200s)",
			     ca_spec.name, Py_TYPE(obj)->tp_name);
		return -1;
	}
	*out = self->attr;
	out->dek = NULL;
	if (self->dek && self->dek != Py_None) {
		struct dek *d = (struct dek *)self->dek;

		if (pv_check_open(&d->obj))
			return -1;
		out->dek = d->dek;
	}
	return 0;
}

int pv_mlx5_crypto_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &cla_spec, &pv.PyverbsObject, &pv_mlx5.CryptoLoginAttr,
		  cla_fields, NULL, cla_extra },
		{ &cela_spec, &pv.PyverbsObject, &pv_mlx5.CryptoExtLoginAttr,
		  cela_fields, cela_oslots },
		{ &cl_spec, &pv.PyverbsCM, &pv_mlx5.CryptoLogin },
		{ &dia_spec, &pv.PyverbsObject, &pv_mlx5.DEKInitAttr,
		  dia_fields, dia_oslots, dia_extra },
		{ &da_spec, &pv.PyverbsObject, &pv_mlx5.DEKAttr, da_fields,
		  NULL, da_extra },
		{ &dek_spec, &pv.PyverbsCM, &pv_mlx5.DEK },
		{ &ca_spec, &pv.PyverbsObject, &pv_mlx5.CryptoAttr, ca_fields,
		  ca_oslots, ca_extra },
		{ NULL }
	};

	return pv_add_types(m, types);
}
