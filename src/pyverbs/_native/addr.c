/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Addressing: GID (union ibv_gid), GRH (struct ibv_grh), GlobalRoute
 * (struct ibv_global_route), AHAttr (struct ibv_ah_attr) and the address
 * handle AH (ibv_create_ah / ibv_create_ah_from_wc / ibv_destroy_ah).
 *
 * A GID prints as upstream's 8 groups of 4 hex digits, in the order of its
 * 16 raw (network order) bytes.  Wherever a GID is accepted, a GID object, a
 * GID string or 16 raw bytes will do; GID attributes of the other classes
 * read back as strings, as upstream's do.
 *
 * Multi-byte GRH fields (version_tclass_flow, paylen) are kept exactly as
 * stored in struct ibv_grh, i.e. big endian, without conversion: upstream
 * does the same.
 */
#include "addr.h"
#include "cq.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "memory.h"
#include "object.h"
#include "pd.h"
#include "rdmacm_ops.h"
#include "state.h"

#include <errno.h>

/* ------------------------------------------------------------------ */
/* GID                                                                 */
/* ------------------------------------------------------------------ */

#define GID_STR_LEN 39 /* "xxxx:" * 7 + "xxxx" */

/* Parse 'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx' (hex digits of either
 * case; nothing else).  Raises PyverbsUserError on a malformed string. */
static int gid_parse_str(PyObject *s, union ibv_gid *out)
{
	union ibv_gid gid;
	Py_ssize_t len;
	const char *p;
	int i, j;

	p = PyUnicode_AsUTF8AndSize(s, &len);
	if (!p)
		return -1;
	if (len != GID_STR_LEN)
		goto bad;
	for (i = 0; i < 8; i++) {
		const char *g = p + i * 5;
		unsigned int v = 0;

		for (j = 0; j < 4; j++) {
			int h = pv_hexval((unsigned char)g[j]);

			if (h < 0)
				goto bad;
			v = v << 4 | h;
		}
		if (i < 7 && g[4] != ':')
			goto bad;
		gid.raw[2 * i] = v >> 8;
		gid.raw[2 * i + 1] = v & 0xff;
	}
	*out = gid;
	return 0;
bad:
	pv_raise_user("Invalid GID value (%R): expected 8 groups of 4 hex "
		      "digits, 'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx'",
		      s);
	return -1;
}

static PyObject *gid_format(const union ibv_gid *gid)
{
	static const char digits[] = "0123456789abcdef";
	PyObject *s = PyUnicode_New(GID_STR_LEN, 127);
	Py_UCS1 *d;
	int i;

	if (!s)
		return NULL;
	d = PyUnicode_1BYTE_DATA(s);
	for (i = 0; i < 16; i++) {
		*d++ = digits[gid->raw[i] >> 4];
		*d++ = digits[gid->raw[i] & 0xf];
		if (i & 1 && i != 15)
			*d++ = ':';
	}
	return s;
}

int pv_gid_from_obj(PyObject *v, union ibv_gid *out)
{
	if (pv.GID && PyObject_TypeCheck(v, pv.GID)) {
		*out = ((struct pv_gid *)v)->gid;
		return 0;
	}
	if (PyUnicode_Check(v))
		return gid_parse_str(v, out);
	if (PyObject_CheckBuffer(v)) {
		Py_buffer b;
		int rc = -1;

		if (PyObject_GetBuffer(v, &b, PyBUF_SIMPLE))
			return -1;
		if (b.len == sizeof(out->raw)) {
			memcpy(out->raw, b.buf, sizeof(out->raw));
			rc = 0;
		} else {
			PyErr_Format(PyExc_ValueError,
				     "a raw GID is 16 bytes, not %zd", b.len);
		}
		PyBuffer_Release(&b);
		return rc;
	}
	PyErr_Format(PyExc_TypeError,
		     "a GID must be a GID, a 'xxxx:...:xxxx' string or 16 "
		     "bytes, not %.100s",
		     Py_TYPE(v)->tp_name);
	return -1;
}

PyObject *pv_gid_new(const union ibv_gid *gid)
{
	struct pv_gid *self;

	self = (struct pv_gid *)pv.GID->tp_alloc(pv.GID, 0);
	if (self)
		self->gid = *gid;
	return (PyObject *)self;
}

static int gid_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "val", NULL };
	struct pv_gid *self = (struct pv_gid *)obj;
	PyObject *val = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:GID", kwlist, &val))
		return -1;
	if (val == Py_None) {
		memset(&self->gid, 0, sizeof(self->gid));
		return 0;
	}
	return pv_gid_from_obj(val, &self->gid);
}

static PyObject *gid_str(PyObject *obj)
{
	return gid_format(&((struct pv_gid *)obj)->gid);
}

static PyObject *gid_repr(PyObject *obj)
{
	PyObject *s = gid_str(obj), *r;

	if (!s)
		return NULL;
	r = PyUnicode_FromFormat("%s('%U')", _PyType_Name(Py_TYPE(obj)), s);
	Py_DECREF(s);
	return r;
}

static PyObject *gid_get_gid(PyObject *obj, void *closure)
{
	return gid_str(obj);
}

static int gid_set_gid(PyObject *obj, PyObject *val, void *closure)
{
	if (!val) {
		PyErr_SetString(PyExc_AttributeError, "cannot delete gid");
		return -1;
	}
	return pv_gid_from_obj(val, &((struct pv_gid *)obj)->gid);
}

static PyObject *gid_get_raw(PyObject *obj, void *closure)
{
	struct pv_gid *self = (struct pv_gid *)obj;

	return PyBytes_FromStringAndSize((const char *)self->gid.raw,
					 sizeof(self->gid.raw));
}

static PyObject *gid_set_gid_meth(PyObject *obj, PyObject *val)
{
	if (pv_gid_from_obj(val, &((struct pv_gid *)obj)->gid))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *gid_reduce(PyObject *obj, PyObject *unused)
{
	PyObject *s = gid_str(obj), *r;

	if (!s)
		return NULL;
	r = Py_BuildValue("O(N)", (PyObject *)Py_TYPE(obj), s);
	return r;
}

static PyObject *gid_richcompare(PyObject *a, PyObject *b, int op)
{
	int eq;

	if (!PyObject_TypeCheck(b, pv.GID) || (op != Py_EQ && op != Py_NE))
		Py_RETURN_NOTIMPLEMENTED;
	eq = !memcmp(((struct pv_gid *)a)->gid.raw,
		     ((struct pv_gid *)b)->gid.raw, 16);
	return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

/* By value, like bytes: a GID used as a dict key must not be changed. */
static Py_hash_t gid_hash(PyObject *obj)
{
	PyObject *raw = gid_get_raw(obj, NULL);
	Py_hash_t h;

	if (!raw)
		return -1;
	h = PyObject_Hash(raw);
	Py_DECREF(raw);
	return h;
}

static PyMethodDef gid_methods[] = {
	{ "_set_gid", gid_set_gid_meth, METH_O,
	  "_set_gid($self, val, /)\n--\n\nSet the GID from a string." },
	{ "__reduce__", gid_reduce, METH_NOARGS,
	  "__reduce__($self, /)\n--\n\nPickle support: rebuilt from the GID "
	  "string." },
	{ NULL }
};

static PyGetSetDef gid_getset[] = {
	{ "gid", gid_get_gid, gid_set_gid,
	  "The GID as 'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx'.", NULL },
	{ "raw", gid_get_raw, NULL, "The 16 raw bytes of the GID.", NULL },
	{ NULL }
};

PV_TYPE_SPEC(gid, "pyverbs.addr.GID", struct pv_gid,
	     "GID(val=None)\n--\n\n"
	     "A GID (union ibv_gid).  val: a string of 8 groups of 4 "
	     "hex digits\n('fe80:0000:0000:0000:0202:c9ff:fe00:0001'), "
	     "another GID, or 16 raw\nbytes; None gives the zero GID.  "
	     "GIDs compare and hash by value.",
	     { Py_tp_init, gid_init }, { Py_tp_str, gid_str },
	     { Py_tp_repr, gid_repr }, { Py_tp_richcompare, gid_richcompare },
	     { Py_tp_hash, gid_hash }, { Py_tp_methods, gid_methods },
	     { Py_tp_getset, gid_getset }, );

/* ------------------------------------------------------------------ */
/* GID-valued attributes of the other classes                          */
/* ------------------------------------------------------------------ */

/* closure: offset of the union ibv_gid from the start of the object */
#define GID_AT(obj, closure) \
	((union ibv_gid *)((char *)(obj) + (uintptr_t)(closure)))
#define GID_OFF(st, member) ((void *)offsetof(st, member))

static PyObject *gidat_get(PyObject *obj, void *closure)
{
	return gid_format(GID_AT(obj, closure));
}

static int gidat_set(PyObject *obj, PyObject *val, void *closure)
{
	if (!val) {
		PyErr_SetString(PyExc_AttributeError, "cannot delete a GID");
		return -1;
	}
	return pv_gid_from_obj(val, GID_AT(obj, closure));
}

/* O& converter: None leaves *out alone, else any GID form. */
static int conv_gid_opt(PyObject *v, void *out)
{
	if (v == Py_None)
		return 1;
	return pv_gid_from_obj(v, out) ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* GRH                                                                 */
/* ------------------------------------------------------------------ */

static const struct pv_field grh_fields[] = {
	PV_FIELD(struct pv_grh, grh.version_tclass_flow, "version_tclass_flow"),
	PV_FIELD(struct pv_grh, grh.paylen, "paylen"),
	PV_FIELD(struct pv_grh, grh.next_hdr, "next_hdr"),
	PV_FIELD(struct pv_grh, grh.hop_limit, "hop_limit"), PV_FIELD_END
};

static const PyGetSetDef grh_extra[] = {
	{ "dgid", gidat_get, gidat_set, "Destination GID (string).",
	  GID_OFF(struct pv_grh, grh.dgid) },
	{ "sgid", gidat_get, gidat_set, "Source GID (string).",
	  GID_OFF(struct pv_grh, grh.sgid) },
	{ NULL }
};

static int grh_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "sgid",   "dgid",	"version_tclass_flow",
				  "paylen", "next_hdr", "hop_limit",
				  NULL };
	struct pv_grh *self = (struct pv_grh *)obj;
	struct ibv_grh grh = { .hop_limit = 1 };
	PyObject *sgid = Py_None, *dgid = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO&O&O&O&:GRH", kwlist,
					 &sgid, &dgid, pv_conv_u32,
					 &grh.version_tclass_flow, pv_conv_u16,
					 &grh.paylen, pv_conv_u8, &grh.next_hdr,
					 pv_conv_u8, &grh.hop_limit))
		return -1;
	if (!conv_gid_opt(sgid, &grh.sgid) || !conv_gid_opt(dgid, &grh.dgid))
		return -1;
	self->grh = grh;
	return 0;
}

PV_DATA_SPEC(grh, "pyverbs.addr.GRH", struct pv_grh,
	     "GRH(sgid=None, dgid=None, version_tclass_flow=0, "
	     "paylen=0, next_hdr=0, hop_limit=1)\n--\n\n"
	     "A global routing header (struct ibv_grh), as found in "
	     "the first 40 bytes\nof a UD receive buffer.  "
	     "version_tclass_flow and paylen are kept as stored\n"
	     "(big endian).",
	     { Py_tp_init, grh_init }, );

/* ------------------------------------------------------------------ */
/* GlobalRoute                                                         */
/* ------------------------------------------------------------------ */

static const struct pv_field gr_fields[] = {
	PV_FIELD(struct pv_global_route, gr.flow_label, "flow_label"),
	PV_FIELD(struct pv_global_route, gr.sgid_index, "sgid_index"),
	PV_FIELD(struct pv_global_route, gr.hop_limit, "hop_limit"),
	PV_FIELD(struct pv_global_route, gr.traffic_class, "traffic_class"),
	PV_FIELD_END
};

static const PyGetSetDef gr_extra[] = {
	{ "dgid", gidat_get, gidat_set,
	  "Destination GID (reads as a string; set from a GID, a string or "
	  "16 bytes).",
	  GID_OFF(struct pv_global_route, gr.dgid) },
	{ NULL }
};

static int gr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dgid",      "flow_label",	"sgid_index",
				  "hop_limit", "traffic_class", NULL };
	struct pv_global_route *self = (struct pv_global_route *)obj;
	struct ibv_global_route gr = { .hop_limit = 1 };
	PyObject *dgid = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO&O&O&O&:GlobalRoute",
					 kwlist, &dgid, pv_conv_u32,
					 &gr.flow_label, pv_conv_u8,
					 &gr.sgid_index, pv_conv_u8,
					 &gr.hop_limit, pv_conv_u8,
					 &gr.traffic_class))
		return -1;
	if (!conv_gid_opt(dgid, &gr.dgid))
		return -1;
	self->gr = gr;
	return 0;
}

static PyObject *gr_new_from(const struct ibv_global_route *gr)
{
	struct pv_global_route *self;

	self = (struct pv_global_route *)
		       pv.GlobalRoute->tp_alloc(pv.GlobalRoute, 0);
	if (self)
		self->gr = *gr;
	return (PyObject *)self;
}

PV_DATA_SPEC(gr, "pyverbs.addr.GlobalRoute", struct pv_global_route,
	     "GlobalRoute(dgid=None, flow_label=0, sgid_index=0, "
	     "hop_limit=1, traffic_class=0)\n--\n\n"
	     "The GRH values of an address "
	     "(struct ibv_global_route).",
	     { Py_tp_init, gr_init }, );

/* ------------------------------------------------------------------ */
/* AHAttr                                                              */
/* ------------------------------------------------------------------ */

static const struct pv_field ahattr_fields[] = {
	PV_FIELD(struct pv_ah_attr, ah.port_num, "port_num"),
	PV_FIELD(struct pv_ah_attr, ah.sl, "sl"),
	PV_FIELD(struct pv_ah_attr, ah.src_path_bits, "src_path_bits"),
	PV_FIELD(struct pv_ah_attr, ah.dlid, "dlid"),
	PV_FIELD(struct pv_ah_attr, ah.static_rate, "static_rate"),
	PV_FIELD_END
};

/* The GRH fields read as None unless is_global, as upstream's do. */
static const struct pv_field ahattr_grh_fields[] = {
	PV_FIELD(struct pv_ah_attr, ah.grh.flow_label, "flow_label"),
	PV_FIELD(struct pv_ah_attr, ah.grh.sgid_index, "sgid_index"),
	PV_FIELD(struct pv_ah_attr, ah.grh.hop_limit, "hop_limit"),
	PV_FIELD(struct pv_ah_attr, ah.grh.traffic_class, "traffic_class"),
	PV_FIELD_END
};

/* is_global takes a bool too (upstream's callers pass is_global=True). */
static int conv_flag_u8(PyObject *v, void *out)
{
	if (PyBool_Check(v)) {
		*(uint8_t *)out = v == Py_True;
		return 1;
	}
	return pv_conv_u8(v, out);
}

static PyObject *ahattr_get_is_global(PyObject *obj, void *closure)
{
	return PyLong_FromLong(((struct pv_ah_attr *)obj)->ah.is_global);
}

static int ahattr_set_is_global(PyObject *obj, PyObject *v, void *closure)
{
	uint8_t x;

	if (!v) {
		PyErr_SetString(PyExc_AttributeError,
				"cannot delete is_global");
		return -1;
	}
	if (PyBool_Check(v)) {
		x = v == Py_True;
	} else {
		uint64_t u;

		if (pv_to_u64(v, UINT8_MAX, &u, "is_global"))
			return -1;
		x = u;
	}
	((struct pv_ah_attr *)obj)->ah.is_global = x;
	return 0;
}

static PyObject *ahattr_get_grh_field(PyObject *obj, void *closure)
{
	if (!((struct pv_ah_attr *)obj)->ah.is_global)
		Py_RETURN_NONE;
	return pv_field_get(obj, closure);
}

static PyObject *ahattr_get_dgid(PyObject *obj, void *closure)
{
	struct pv_ah_attr *self = (struct pv_ah_attr *)obj;

	if (!self->ah.is_global)
		Py_RETURN_NONE;
	return gid_format(&self->ah.grh.dgid);
}

static int ahattr_set_dgid(PyObject *obj, PyObject *v, void *closure)
{
	/* Stored even when not global (upstream drops it silently). */
	return gidat_set(obj, v, GID_OFF(struct pv_ah_attr, ah.grh.dgid));
}

static PyObject *ahattr_get_gr(PyObject *obj, void *closure)
{
	return gr_new_from(&((struct pv_ah_attr *)obj)->ah.grh);
}

static int ahattr_set_gr(PyObject *obj, PyObject *v, void *closure)
{
	if (!v || !PyObject_TypeCheck(v, pv.GlobalRoute)) {
		PyErr_Format(PyExc_TypeError,
			     "gr must be a GlobalRoute, not "
			     "%.100s",
			     v ? Py_TYPE(v)->tp_name : "nothing");
		return -1;
	}
	((struct pv_ah_attr *)obj)->ah.grh = ((struct pv_global_route *)v)->gr;
	return 0;
}

#define AHATTR_GRH_GS(i, name, doc)                      \
	{ name, ahattr_get_grh_field, pv_field_set, doc, \
	  (void *)&ahattr_grh_fields[i] }

static const PyGetSetDef ahattr_extra[] = {
	{ "is_global", ahattr_get_is_global, ahattr_set_is_global,
	  "Non-zero: the address has a GRH (the grh fields are used).", NULL },
	{ "dgid", ahattr_get_dgid, ahattr_set_dgid,
	  "Destination GID as a string (None unless is_global).", NULL },
	AHATTR_GRH_GS(0, "flow_label", "Flow label (None unless is_global)."),
	AHATTR_GRH_GS(1, "sgid_index",
		      "Source GID index (None unless is_global)."),
	AHATTR_GRH_GS(2, "hop_limit", "Hop limit (None unless is_global)."),
	AHATTR_GRH_GS(3, "traffic_class",
		      "Traffic class (None unless is_global)."),
	{ "gr", ahattr_get_gr, ahattr_set_gr,
	  "The GRH fields as a GlobalRoute (a copy; set copies in).", NULL },
	{ NULL }
};

static int ahattr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dlid",	 "sl",	      "src_path_bits",
				  "static_rate", "is_global", "port_num",
				  "gr",		 NULL };
	struct pv_ah_attr *self = (struct pv_ah_attr *)obj;
	struct ibv_ah_attr ah = { .port_num = 1 };
	PyObject *gr = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&O&O&O&O&O:AHAttr",
					 kwlist, pv_conv_u16, &ah.dlid,
					 pv_conv_u8, &ah.sl, pv_conv_u8,
					 &ah.src_path_bits, pv_conv_u8,
					 &ah.static_rate, conv_flag_u8,
					 &ah.is_global, pv_conv_u8,
					 &ah.port_num, &gr))
		return -1;
	if (gr != Py_None && !PyObject_TypeCheck(gr, pv.GlobalRoute)) {
		PyErr_Format(PyExc_TypeError,
			     "gr must be a GlobalRoute or None, not %.100s",
			     Py_TYPE(gr)->tp_name);
		return -1;
	}
	/* as upstream: the GRH fields are only taken for a global address */
	if (ah.is_global) {
		if (gr == Py_None) {
			pv_raise_user("Global AH Attr is created but gr "
				      "parameter is None");
			return -1;
		}
		ah.grh = ((struct pv_global_route *)gr)->gr;
	}
	self->ah = ah;
	return 0;
}

static PyObject *ahattr_init_from_ud_param(PyObject *obj, PyObject *arg)
{
	if (pv_cm_ops.ud_param_ah_attr(arg, &((struct pv_ah_attr *)obj)->ah))
		return NULL;
	Py_RETURN_NONE;
}

PyObject *pv_ah_attr_new(const struct ibv_ah_attr *attr)
{
	struct pv_ah_attr *self;

	self = (struct pv_ah_attr *)pv.AHAttr->tp_alloc(pv.AHAttr, 0);
	if (self)
		self->ah = *attr;
	return (PyObject *)self;
}

static PyMethodDef ahattr_methods[] = {
	{ "init_from_ud_param", ahattr_init_from_ud_param, METH_O,
	  "init_from_ud_param($self, udparam, /)\n--\n\n"
	  "Fill the attributes from an rdma_cm UDParam (its ah_attr)." },
	{ NULL }
};

PV_DATA_SPEC(ahattr, "pyverbs.addr.AHAttr", struct pv_ah_attr,
	     "AHAttr(dlid=0, sl=0, src_path_bits=0, static_rate=0, "
	     "is_global=0, port_num=1, gr=None)\n--\n\n"
	     "Address handle attributes (struct ibv_ah_attr).  With "
	     "is_global, gr (a\nGlobalRoute) gives the GRH fields "
	     "(dgid, flow_label, sgid_index,\nhop_limit, "
	     "traffic_class), "
	     "also readable here directly.",
	     { Py_tp_init, ahattr_init }, { Py_tp_methods, ahattr_methods }, );

/* ------------------------------------------------------------------ */
/* AH                                                                  */
/* ------------------------------------------------------------------ */

static int ah_destroy(struct pv_obj *o)
{
	struct pv_ah *self = (struct pv_ah *)o;
	int rc;

	if (!self->ah)
		return 0;
	rc = ibv_destroy_ah(self->ah); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_destroy_ah", "Failed to destroy AH");
		return -1;
	}
	self->ah = NULL;
	return 0;
}

/*
 * The GRH for ibv_create_ah_from_wc(), which reads 40 bytes from it whatever
 * the WC's flags say: a GRH object, the address (int) of a receive buffer's
 * first 40 bytes, copied here without trusting it, or None (zeros).
 */
static int ah_get_grh(PyObject *v, struct ibv_grh *out)
{
	uint64_t addr;

	if (v == NULL || v == Py_None) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	if (PyObject_TypeCheck(v, pv.GRH)) {
		*out = ((struct pv_grh *)v)->grh;
		return 0;
	}
	if (!PyIndex_Check(v) || PyBool_Check(v)) {
		PyErr_Format(PyExc_TypeError,
			     "grh must be an address (int), a GRH or None, "
			     "not %.100s",
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	if (pv_to_u64(v, UINTPTR_MAX, &addr, "grh"))
		return -1;
	return pv_read_mem(out, addr, sizeof(*out));
}

static int ah_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	/*
	 * attr may also come second positionally (AH(pd, ah_attr), as
	 * upstream's README writes it); wc, grh, port_num stay keywords.
	 */
	static char *kwlist[] = { "pd", "attr", "wc", "grh", "port_num", NULL };
	struct pv_ah *self = (struct pv_ah *)obj;
	PyObject *pdo, *attr = NULL, *wc = NULL, *grh = NULL, *port = NULL;
	struct pv_pd *pd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OOO:AH", kwlist, &pdo,
					 &attr, &wc, &grh, &port))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("AH is already initialised");
		return -1;
	}
	if (!PyObject_TypeCheck(pdo, pv.PD)) {
		PyErr_Format(PyExc_TypeError, "AH needs a PD, not %.100s",
			     Py_TYPE(pdo)->tp_name);
		return -1;
	}
	pd = (struct pv_pd *)pdo;
	if (pv_check_open(&pd->obj))
		return -1;
	pv_obj_setup(&self->obj, ah_destroy);

	if (attr && (wc || grh || port)) {
		pv_raise_user("AH is created either from attr, or from wc, grh "
			      "and port_num, not both");
		return -1;
	}
	if (attr) {
		if (!PyObject_TypeCheck(attr, pv.AHAttr)) {
			PyErr_Format(PyExc_TypeError,
				     "attr must be an AHAttr, not %.100s",
				     Py_TYPE(attr)->tp_name);
			return -1;
		}
		errno = 0;
		self->ah =
			ibv_create_ah(pd->pd, &((struct pv_ah_attr *)attr)->ah);
		if (!self->ah) {
			pv_raise_errno("ibv_create_ah", "Failed to create AH");
			return -1;
		}
	} else if (wc) {
		struct ibv_grh g;
		uint8_t port_num;

		if (!pv.WC || !PyObject_TypeCheck(wc, pv.WC)) {
			PyErr_Format(PyExc_TypeError,
				     "wc must be a WC, not %.100s",
				     Py_TYPE(wc)->tp_name);
			return -1;
		}
		if (!port) {
			PyErr_SetString(PyExc_TypeError,
					"AH from a WC needs port_num=");
			return -1;
		}
		if (!pv_conv_u8(port, &port_num) || ah_get_grh(grh, &g))
			return -1;
		errno = 0;
		self->ah = ibv_create_ah_from_wc(pd->pd,
						 &((struct pv_wc *)wc)->wc, &g,
						 port_num);
		if (!self->ah) {
			pv_raise_errno("ibv_create_ah_from_wc",
				       "Failed to create AH");
			return -1;
		}
	} else {
		PyErr_SetString(PyExc_TypeError,
				"AH(pd, attr=AHAttr) or AH(pd, wc=WC, "
				"grh=addr, port_num=N): no attr nor wc "
				"given");
		return -1;
	}
	if (pv_obj_link(&self->obj, &pd->obj)) {
		ah_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *ah_get_ah(PyObject *obj, void *closure)
{
	struct pv_ah *self = (struct pv_ah *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->ah);
}

static PyObject *ah_get_pd(PyObject *obj, void *closure)
{
	struct pv_obj *pd = pv_obj_parent(&((struct pv_ah *)obj)->obj, 0);

	return Py_NewRef(pd ? (PyObject *)pd : Py_None);
}

static PyGetSetDef ah_getset[] = {
	{ "ah", ah_get_ah, NULL, "Address of the struct ibv_ah (0 if closed).",
	  NULL },
	{ "pd", ah_get_pd, NULL,
	  "The PD this AH belongs to (None once "
	  "closed).",
	  NULL },
	{ NULL }
};

static PyObject *ah_repr(PyObject *obj)
{
	struct pv_ah *self = (struct pv_ah *)obj;

	if (self->obj.closed)
		return PyUnicode_FromString("<AH closed>");
	return PyUnicode_FromFormat("<AH handle=%u>", self->ah->handle);
}

PV_GC_TYPE_SPEC(ah, "pyverbs.addr.AH", struct pv_ah,
		"AH(pd, attr=None, *, wc=None, grh=None, port_num=None)"
		"\n--\n\n"
		"An address handle on a PD.  Either attr (an AHAttr; "
		"ibv_create_ah), or\nwc (a received WC), grh (the address "
		"of the 40 bytes of GRH at the start\nof the receive "
		"buffer, or a GRH) and port_num "
		"(ibv_create_ah_from_wc).\nattr may be passed second "
		"positionally (upstream: keyword only).",
		{ Py_tp_init, ah_init }, { Py_tp_getset, ah_getset },
		{ Py_tp_repr, ah_repr }, PV_CM_SLOTS, );

/* ------------------------------------------------------------------ */
/* Types registration                                                  */
/* ------------------------------------------------------------------ */

int pv_addr_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &gid_spec, &pv.PyverbsObject, &pv.GID },
		{ &grh_spec, &pv.PyverbsObject, &pv.GRH, grh_fields, NULL,
		  grh_extra },
		{ &gr_spec, &pv.PyverbsObject, &pv.GlobalRoute, gr_fields, NULL,
		  gr_extra },
		{ &ahattr_spec, &pv.PyverbsObject, &pv.AHAttr, ahattr_fields,
		  NULL, ahattr_extra },
		{ &ah_spec, &pv.PyverbsCM, &pv.AH },
		{ NULL }
	};

	return pv_add_types(m, types);
}
