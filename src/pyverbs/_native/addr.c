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
#include <errno.h>

#include "pyverbs.h"

/* ------------------------------------------------------------------ */
/* GID                                                                 */
/* ------------------------------------------------------------------ */

#define GID_STR_LEN 39	/* "xxxx:" * 7 + "xxxx" */

static int hexval(unsigned int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

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
			int h = hexval((unsigned char)g[j]);

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
		      "digits, 'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx'", s);
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
		     "bytes, not %.100s", Py_TYPE(v)->tp_name);
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
	{ "__reduce__", gid_reduce, METH_NOARGS, NULL },
	{ NULL }
};

static PyGetSetDef gid_getset[] = {
	{ "gid", gid_get_gid, gid_set_gid,
	  "The GID as 'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx'.", NULL },
	{ "raw", gid_get_raw, NULL, "The 16 raw bytes of the GID.", NULL },
	{ NULL }
};

static PyType_Slot gid_slots[] = {
	{ Py_tp_doc, "GID(val=None)\n--\n\n"
		     "A GID (union ibv_gid).  val: a string of 8 groups of 4 "
		     "hex digits\n('fe80:0000:0000:0000:0202:c9ff:fe00:0001'), "
		     "another GID, or 16 raw\nbytes; None gives the zero GID.  "
		     "GIDs compare and hash by value." },
	{ Py_tp_init, gid_init },
	{ Py_tp_str, gid_str },
	{ Py_tp_repr, gid_repr },
	{ Py_tp_richcompare, gid_richcompare },
	{ Py_tp_hash, gid_hash },
	{ Py_tp_methods, gid_methods },
	{ Py_tp_getset, gid_getset },
	{ 0, NULL }
};

static PyType_Spec gid_spec = {
	.name = "pyverbs.addr.GID",
	.basicsize = sizeof(struct pv_gid),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.slots = gid_slots,
};

/* ------------------------------------------------------------------ */
/* Types registration                                                  */
/* ------------------------------------------------------------------ */

int pv_addr_init_types(PyObject *m)
{
	if (pv_add_type(m, &gid_spec, pv.PyverbsObject, &pv.GID))
		return -1;
	return 0;
}

PyObject *pv_ah_attr_new(const struct ibv_ah_attr *attr)
{
	return pv_raise_user("AHAttr is not implemented yet");
}
