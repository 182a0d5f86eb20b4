/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Flow steering specifications: Spec (abstract), EthSpec, Ipv4ExtSpec,
 * Ipv6Spec and TcpUdpSpec -- the L2/L3/L4 matchers of a flow
 * (struct ibv_flow_spec_eth, _ipv4_ext, _ipv6, _tcp_udp).
 *
 * C or Python: C.  Every spec object embeds a struct ibv_flow_spec (the
 * union of all spec kinds), whose hdr.type and hdr.size the concrete
 * constructor sets, so the bytes Flow (flow.c) hands to ibv_create_flow()
 * are the very C struct, laid out by the compiler: there is no packing to
 * get wrong.  Each spec kind is declared once, as a table of its matched
 * fields in upstream's keyword order; the table gives the constructor's
 * keywords (each field, then its mask), the properties (value and mask)
 * and the conversions.  The printed formats and upstream's static helpers
 * are added in pyverbs/spec.py.
 *
 * As upstream pyverbs: multi-byte fields are kept in network byte order
 * (the properties read and write host order); a value given to a
 * constructor without its mask gets the field's full mask; a mask given
 * without its value is ignored (value and mask stay 0).
 */
#include "spec.h" /* first: Python.h defines _GNU_SOURCE */
#include "errors.h"
#include "field.h"
#include "init.h"
#include "state.h"

#include <arpa/inet.h>
#include <string.h>

/* ---- field kinds and tables ---- */

enum spec_kind {
	SK_U8,	 /* uint8_t, an int */
	SK_BE16, /* __be16, an int in host order */
	SK_BE32, /* __be32, an int in host order */
	SK_MAC,	 /* uint8_t[6], 'aa:bb:cc:dd:ee:ff' */
	SK_IPV4, /* __be32, '1.2.3.4' */
	SK_IPV6, /* uint8_t[16], 'a0a1::a2a3' */
};

/* The C size of a field of kind k (a constant expression). */
#define SK_SIZE(k)             \
	((k) == SK_U8	? 1 :  \
	 (k) == SK_BE16 ? 2 :  \
	 (k) == SK_MAC	? 6 :  \
	 (k) == SK_IPV6 ? 16 : \
			  4)

static const char *const sk_doc[] = {
	[SK_U8] = "An 8-bit field (int).",
	[SK_BE16] = "A 16-bit field, kept in network byte order (int, host "
		    "order).",
	[SK_BE32] = "A 32-bit field, kept in network byte order (int, host "
		    "order).",
	[SK_MAC] = "A MAC address 'aa:bb:cc:dd:ee:ff' ('' when all zero; "
		   "None or '' sets zero).",
	[SK_IPV4] = "An IPv4 address '1.2.3.4' (kept in network byte order).",
	[SK_IPV6] = "An IPv6 address '2001:db8::1'.",
};

/*
 * One property of a spec: a matched field or its mask, at offset in the
 * object.  The tables list each field's value entry followed by its mask
 * entry; the value entry carries the field's full mask (defmask), which a
 * constructor gives a value passed without a mask (byte arrays: all ones).
 */
struct spec_prop {
	const char *name;
	Py_ssize_t offset;
	unsigned char kind; /* enum spec_kind */
	unsigned char is_mask;
	uint32_t defmask;
};

/* 0, or a compile error when cond holds (the kernel's BUILD_BUG_ON_ZERO). */
#define SPEC_BUILD_BUG_ON_ZERO(cond) \
	((int)sizeof(struct { int : (-!!(cond)); }))

#define SPEC_OFF(sp, part, member) offsetof(struct pv_spec, spec.sp.part.member)
/* The value and mask entries of sp's member, whose C size must be the
 * kind's. */
#define SPEC_FIELD(sp, member, kind, defmask)                                  \
	{ #member,                                                             \
	  SPEC_OFF(sp, val, member) +                                          \
		  SPEC_BUILD_BUG_ON_ZERO(                                      \
			  sizeof(((struct pv_spec *)0)->spec.sp.val.member) != \
			  SK_SIZE(kind)),                                      \
	  kind, 0, defmask },                                                  \
		{ #member "_mask", SPEC_OFF(sp, mask, member), kind, 1, 0 }
#define SPEC_END { NULL }

struct pv_spec {
	PyObject_HEAD
	struct ibv_flow_spec spec; /* hdr.size 0: not initialised */
};

/* A kind of spec: its type (0: given to the constructor), C size and
 * fields.  kwlist and fmt are built from the table at import. */
#define SPEC_MAX_KW 16
struct spec_desc {
	const char *name;
	enum ibv_flow_spec_type type;
	uint16_t size;
	const struct spec_prop *props;
	char *kwlist[SPEC_MAX_KW];
	char fmt[SPEC_MAX_KW + 16];
	int nprops;
};

static const struct spec_prop eth_props[] = {
	SPEC_FIELD(eth, dst_mac, SK_MAC, 0),
	SPEC_FIELD(eth, src_mac, SK_MAC, 0),
	SPEC_FIELD(eth, ether_type, SK_BE16, 0xffff),
	SPEC_FIELD(eth, vlan_tag, SK_BE16, 0xffff), SPEC_END
};

static const struct spec_prop ipv4_props[] = {
	SPEC_FIELD(ipv4_ext, dst_ip, SK_IPV4, 0xffffffff),
	SPEC_FIELD(ipv4_ext, src_ip, SK_IPV4, 0xffffffff),
	SPEC_FIELD(ipv4_ext, proto, SK_U8, 0xff),
	SPEC_FIELD(ipv4_ext, tos, SK_U8, 0xff),
	SPEC_FIELD(ipv4_ext, ttl, SK_U8, 0xff),
	SPEC_FIELD(ipv4_ext, flags, SK_U8, 0xff),
	SPEC_END
};

/* The flow label is 20 bits: its full mask is 0xfffff, as upstream. */
static const struct spec_prop ipv6_props[] = {
	SPEC_FIELD(ipv6, dst_ip, SK_IPV6, 0),
	SPEC_FIELD(ipv6, src_ip, SK_IPV6, 0),
	SPEC_FIELD(ipv6, flow_label, SK_BE32, 0xfffff),
	SPEC_FIELD(ipv6, next_hdr, SK_U8, 0xff),
	SPEC_FIELD(ipv6, traffic_class, SK_U8, 0xff),
	SPEC_FIELD(ipv6, hop_limit, SK_U8, 0xff),
	SPEC_END
};

static const struct spec_prop tcp_udp_props[] = {
	SPEC_FIELD(tcp_udp, dst_port, SK_BE16, 0xffff),
	SPEC_FIELD(tcp_udp, src_port, SK_BE16, 0xffff), SPEC_END
};

static struct spec_desc eth_desc = { "EthSpec", IBV_FLOW_SPEC_ETH,
				     sizeof(struct ibv_flow_spec_eth),
				     eth_props };
static struct spec_desc ipv4_desc = { "Ipv4ExtSpec", IBV_FLOW_SPEC_IPV4_EXT,
				      sizeof(struct ibv_flow_spec_ipv4_ext),
				      ipv4_props };
static struct spec_desc ipv6_desc = { "Ipv6Spec", IBV_FLOW_SPEC_IPV6,
				      sizeof(struct ibv_flow_spec_ipv6),
				      ipv6_props };
static struct spec_desc tcp_udp_desc = { "TcpUdpSpec", 0,
					 sizeof(struct ibv_flow_spec_tcp_udp),
					 tcp_udp_props };

/* ---- conversions ---- */

static inline void *prop_ptr(void *base, const struct spec_prop *p)
{
	return (char *)base + p->offset;
}

/* The UTF-8 of str v without embedded NULs, for the C parsers. */
static const char *prop_cstr(PyObject *v, const struct spec_prop *p)
{
	Py_ssize_t len;
	const char *s;

	if (!PyUnicode_Check(v)) {
		PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s",
			     p->name, Py_TYPE(v)->tp_name);
		return NULL;
	}
	s = PyUnicode_AsUTF8AndSize(v, &len);
	if (s && strlen(s) != (size_t)len) {
		PyErr_Format(PyExc_ValueError, "%s: embedded null character",
			     p->name);
		return NULL;
	}
	return s;
}

/* Parse exactly six ':'-separated groups of one or two hex digits. */
static int parse_mac(const char *s, uint8_t mac[6])
{
	int i, h, n;

	for (i = 0; i < 6; i++) {
		if (i && *s++ != ':')
			return -1;
		mac[i] = 0;
		for (n = 0; n < 2 && (h = pv_hexval(*s)) >= 0; n++) {
			mac[i] = mac[i] << 4 | h;
			s++;
		}
		if (!n)
			return -1;
	}
	return *s ? -1 : 0;
}

/* Convert v for property p into dst (p's bytes in a struct ibv_flow_spec
 * laid out like the object's).  Returns 0 or -1. */
static int prop_convert(const struct spec_prop *p, PyObject *v, void *dst)
{
	const char *s;
	uint64_t x;

	switch (p->kind) {
	case SK_U8:
	case SK_BE16:
	case SK_BE32:
		if (pv_to_u64(v,
			      p->kind == SK_U8	 ? UINT8_MAX :
			      p->kind == SK_BE16 ? UINT16_MAX :
						   UINT32_MAX,
			      &x, p->name))
			return -1;
		if (p->kind == SK_U8)
			*(uint8_t *)dst = x;
		else if (p->kind == SK_BE16)
			*(uint16_t *)dst = htons(x);
		else
			*(uint32_t *)dst = htonl(x);
		return 0;
	case SK_MAC:
		/* upstream: None and '' mean the zero address */
		if (v == Py_None) {
			memset(dst, 0, 6);
			return 0;
		}
		s = prop_cstr(v, p);
		if (!s)
			return -1;
		if (!*s) {
			memset(dst, 0, 6);
			return 0;
		}
		if (parse_mac(s, dst)) {
			PyErr_Format(PyExc_ValueError,
				     "%s must be a MAC address like "
				     "'aa:bb:cc:dd:ee:ff', not %R",
				     p->name, v);
			return -1;
		}
		return 0;
	case SK_IPV4:
		s = prop_cstr(v, p);
		if (!s)
			return -1;
		/* inet_aton() stores network order; it accepts what
		 * socket.inet_aton() does ('1.2.3' too). */
		if (!inet_aton(s, dst)) {
			PyErr_SetString(PyExc_OSError,
					"illegal IP address "
					"string passed to inet_aton");
			return -1;
		}
		return 0;
	case SK_IPV6:
		s = prop_cstr(v, p);
		if (!s)
			return -1;
		if (inet_pton(AF_INET6, s, dst) != 1) {
			PyErr_SetString(PyExc_OSError,
					"illegal IP address "
					"string passed to inet_pton");
			return -1;
		}
		return 0;
	}
	PyErr_SetString(PyExc_SystemError, "bad spec field kind");
	return -1;
}

/* Store the full mask of value entry p into the mask at dst. */
static void prop_full_mask(const struct spec_prop *p, void *dst)
{
	switch (p->kind) {
	case SK_U8:
		*(uint8_t *)dst = p->defmask;
		break;
	case SK_BE16:
		*(uint16_t *)dst = htons(p->defmask);
		break;
	case SK_BE32:
	case SK_IPV4:
		*(uint32_t *)dst = htonl(p->defmask);
		break;
	default: /* byte arrays */
		memset(dst, 0xff, SK_SIZE(p->kind));
	}
}

static PyObject *spec_prop_get(PyObject *self, void *closure)
{
	const struct spec_prop *p = closure;
	const uint8_t *b = prop_ptr(self, p);
	char buf[INET6_ADDRSTRLEN];
	uint16_t u16;
	uint32_t u32;
	int i;

	switch (p->kind) {
	case SK_U8:
		return PyLong_FromLong(*b);
	case SK_BE16:
		memcpy(&u16, b, 2);
		return PyLong_FromLong(ntohs(u16));
	case SK_BE32:
		memcpy(&u32, b, 4);
		return PyLong_FromUnsignedLong(ntohl(u32));
	case SK_MAC:
		/* the zero address reads '', as upstream prints it */
		for (i = 0; i < 6 && !b[i]; i++)
			;
		if (i == 6)
			return PyUnicode_FromString("");
		return PyUnicode_FromFormat("%02x:%02x:%02x:%02x:%02x:%02x",
					    b[0], b[1], b[2], b[3], b[4], b[5]);
	case SK_IPV4:
	case SK_IPV6:
		if (!inet_ntop(p->kind == SK_IPV4 ? AF_INET : AF_INET6, b, buf,
			       sizeof(buf)))
			return PyErr_SetFromErrno(PyExc_OSError);
		return PyUnicode_FromString(buf);
	}
	PyErr_SetString(PyExc_SystemError, "bad spec field kind");
	return NULL;
}

static int spec_prop_set(PyObject *self, PyObject *v, void *closure)
{
	const struct spec_prop *p = closure;
	uint8_t tmp[16];

	if (pv_refuse_delete(v, p->name) || prop_convert(p, v, tmp))
		return -1;
	memcpy(prop_ptr(self, p), tmp, SK_SIZE(p->kind));
	return 0;
}

/* ---- Spec ---- */

static int spec_abstract_init(PyObject *self, PyObject *args, PyObject *kw)
{
	PyErr_SetString(PyExc_NotImplementedError, "This class is abstract.");
	return -1;
}

static PyObject *spec_get_size(PyObject *self, void *closure)
{
	return PyLong_FromLong(((struct pv_spec *)self)->spec.hdr.size);
}

static PyObject *spec_get_type(PyObject *self, void *closure)
{
	return PyLong_FromLong(((struct pv_spec *)self)->spec.hdr.type);
}

/* The bytes Flow copies for this spec (hdr.size of them; none before a
 * concrete constructor ran). */
static PyObject *spec_data(PyObject *self, PyObject *unused)
{
	const struct ibv_flow_spec *s = &((struct pv_spec *)self)->spec;

	return PyBytes_FromStringAndSize((const char *)s,
					 s->hdr.size <= sizeof(*s) ?
						 s->hdr.size :
						 0);
}

static PyMethodDef spec_methods[] = {
	{ "_data", spec_data, METH_NOARGS,
	  "_data($self, /)\n--\n\n"
	  "The C spec (struct ibv_flow_spec_*) as bytes, as Flow passes it "
	  "to ibv_create_flow()." },
	{ NULL }
};

static PyGetSetDef spec_getset[] = {
	{ "size", spec_get_size, NULL,
	  "The size of the C spec (struct ibv_flow_spec_*) in bytes; 0 until "
	  "a concrete constructor ran.",
	  NULL },
	{ "spec_type", spec_get_type, NULL,
	  "IBV_FLOW_SPEC_* of this spec, with IBV_FLOW_SPEC_INNER for an "
	  "inner one.",
	  NULL },
	{ NULL }
};

PV_TYPE_SPEC(spec, "pyverbs.spec.Spec", struct pv_spec,
	     "Spec()\n--\n\n"
	     "Abstract base of the flow steering specifications; "
	     "constructing it raises NotImplementedError.",
	     { Py_tp_new, PyType_GenericNew },
	     { Py_tp_init, spec_abstract_init }, { Py_tp_getset, spec_getset },
	     { Py_tp_methods, spec_methods }, );

/*
 * The constructor of a spec kind: vals holds the optional arguments of the
 * table (value, mask, value, mask, ...) then is_inner, NULL where absent.
 * Everything is converted into a local copy first, so a bad argument
 * leaves the object as it was.
 */
static int spec_fill(struct pv_spec *self, const struct spec_desc *d,
		     enum ibv_flow_spec_type type, PyObject **vals)
{
	struct pv_spec tmp;
	PyObject *inner = vals[d->nprops];
	int i, t;

	memset(&tmp.spec, 0, sizeof(tmp.spec));
	for (i = 0; i < d->nprops; i += 2) {
		const struct spec_prop *p = &d->props[i];
		PyObject *v = vals[i], *m = vals[i + 1];

		if (!v || v == Py_None)
			continue; /* not matched: value and mask 0 */
		if (prop_convert(p, v, prop_ptr(&tmp, p)))
			return -1;
		if (!m || m == Py_None)
			prop_full_mask(p, prop_ptr(&tmp, p + 1));
		else if (prop_convert(p + 1, m, prop_ptr(&tmp, p + 1)))
			return -1;
	}
	t = inner ? PyObject_IsTrue(inner) : 0;
	if (t < 0)
		return -1;
	tmp.spec.hdr.type = type | (t ? IBV_FLOW_SPEC_INNER : 0);
	tmp.spec.hdr.size = d->size;
	self->spec = tmp.spec;
	return 0;
}

/*
 * The constructor of every kind: the arguments of d's keyword list (the
 * spec type first when d->type is 0, which must be IBV_FLOW_SPEC_TCP or
 * _UDP: TcpUdpSpec), then spec_fill().  SPEC_MAX_KW pointers are passed:
 * spec_add_type() makes sure no keyword list is longer.
 */
static int spec_init(PyObject *self, PyObject *args, PyObject *kw,
		     struct spec_desc *d)
{
	PyObject *a[SPEC_MAX_KW] = { NULL }, **vals = a;
	int64_t type = d->type;

	if (!PyArg_ParseTupleAndKeywords(args, kw, d->fmt, d->kwlist, &a[0],
					 &a[1], &a[2], &a[3], &a[4], &a[5],
					 &a[6], &a[7], &a[8], &a[9], &a[10],
					 &a[11], &a[12], &a[13], &a[14],
					 &a[15]))
		return -1;
	if (!d->type) {
		vals++;
		if (pv_to_i64(a[0], INT64_MIN, INT64_MAX, &type, "spec_type"))
			return -1;
		if (type != IBV_FLOW_SPEC_TCP && type != IBV_FLOW_SPEC_UDP) {
			pv_raise_error("Spec type must be IBV_FLOW_SPEC_TCP or "
				       "IBV_FLOW_SPEC_UDP");
			return -1;
		}
	}
	return spec_fill((struct pv_spec *)self, d, type, vals);
}

static int eth_init(PyObject *self, PyObject *args, PyObject *kw)
{
	return spec_init(self, args, kw, &eth_desc);
}

static int ipv4_init(PyObject *self, PyObject *args, PyObject *kw)
{
	return spec_init(self, args, kw, &ipv4_desc);
}

static int ipv6_init(PyObject *self, PyObject *args, PyObject *kw)
{
	return spec_init(self, args, kw, &ipv6_desc);
}

static int tcp_udp_init(PyObject *self, PyObject *args, PyObject *kw)
{
	return spec_init(self, args, kw, &tcp_udp_desc);
}

/* A spec type: its Py_tp_getset is filled from its table (spec_add_type). */
#define SPEC_TYPE(prefix, pyname, doc)                                    \
	PV_DATA_SPEC(prefix, "pyverbs.spec." pyname, struct pv_spec, doc, \
		     { Py_tp_init, prefix##_init }, )

SPEC_TYPE(eth, "EthSpec",
	  "EthSpec(dst_mac=None, dst_mac_mask=None, src_mac=None, "
	  "src_mac_mask=None, ether_type=None, ether_type_mask=None, "
	  "vlan_tag=None, vlan_tag_mask=None, is_inner=0)\n--\n\n"
	  "An Ethernet header matcher (struct ibv_flow_spec_eth).  A value "
	  "given without its mask is matched exactly (full mask); a field "
	  "not given is not matched.");
SPEC_TYPE(ipv4, "Ipv4ExtSpec",
	  "Ipv4ExtSpec(dst_ip=None, dst_ip_mask=None, src_ip=None, "
	  "src_ip_mask=None, proto=None, proto_mask=None, tos=None, "
	  "tos_mask=None, ttl=None, ttl_mask=None, flags=None, "
	  "flags_mask=None, is_inner=False)\n--\n\n"
	  "An IPv4 header matcher (struct ibv_flow_spec_ipv4_ext); addresses "
	  "as '1.2.3.4'.  A value given without its mask is matched exactly.");
SPEC_TYPE(ipv6, "Ipv6Spec",
	  "Ipv6Spec(dst_ip=None, dst_ip_mask=None, src_ip=None, "
	  "src_ip_mask=None, flow_label=None, flow_label_mask=None, "
	  "next_hdr=None, next_hdr_mask=None, traffic_class=None, "
	  "traffic_class_mask=None, hop_limit=None, hop_limit_mask=None, "
	  "is_inner=False)\n--\n\n"
	  "An IPv6 header matcher (struct ibv_flow_spec_ipv6).  A value given "
	  "without its mask is matched exactly (the flow label's full mask is "
	  "0xfffff).");
SPEC_TYPE(tcp_udp, "TcpUdpSpec",
	  "TcpUdpSpec(spec_type, dst_port=None, dst_port_mask=None, "
	  "src_port=None, src_port_mask=None, is_inner=False)\n--\n\n"
	  "A TCP or UDP header matcher (struct ibv_flow_spec_tcp_udp); "
	  "spec_type is IBV_FLOW_SPEC_TCP or IBV_FLOW_SPEC_UDP.");

/*
 * Build d's keyword list and format from its table (the spec type first
 * when d->type is 0, is_inner last), its getset table into the
 * { Py_tp_getset, NULL } slot of spec, and add the type.
 */
static int spec_add_type(PyObject *m, PyType_Spec *spec, struct spec_desc *d,
			 PyTypeObject **slot)
{
	PyGetSetDef *gs;
	PyType_Slot *s;
	int n, k = 0;

	for (n = 0; d->props[n].name; n++)
		;
	d->nprops = n;
	/* the fields, is_inner, the spec type: no more than spec_init()
	 * parses, and a NULL after them */
	if (n + 2 >= SPEC_MAX_KW) {
		PyErr_SetString(PyExc_SystemError, "spec table too long");
		return -1;
	}
	if (!d->type)
		d->kwlist[k++] = "spec_type";
	for (n = 0; n < d->nprops; n++)
		d->kwlist[k++] = (char *)d->props[n].name;
	d->kwlist[k++] = "is_inner";
	d->kwlist[k] = NULL;
	snprintf(d->fmt, sizeof(d->fmt), "%s|%.*s:%s", d->type ? "" : "O",
		 d->nprops + 1, "OOOOOOOOOOOOOOOO", d->name);

	gs = PyMem_RawCalloc(d->nprops + 1, sizeof(*gs)); /* for ever */
	if (!gs) {
		PyErr_NoMemory();
		return -1;
	}
	for (n = 0; n < d->nprops; n++) {
		gs[n].name = d->props[n].name;
		gs[n].get = spec_prop_get;
		gs[n].set = spec_prop_set;
		gs[n].doc =
			d->props[n].is_mask ?
				"The mask of the field of "
				"the same name: the bits of the value that must match." :
				sk_doc[d->props[n].kind];
		gs[n].closure = (void *)&d->props[n];
	}
	for (s = spec->slots; s->slot != Py_tp_getset; s++)
		;
	s->pfunc = gs;
	return pv_add_type(m, spec, pv.Spec, slot);
}

int pv_spec_init_types(PyObject *m)
{
	if (pv_add_type(m, &spec_spec, pv.PyverbsObject, &pv.Spec) ||
	    spec_add_type(m, &eth_spec, &eth_desc, &pv.EthSpec) ||
	    spec_add_type(m, &ipv4_spec, &ipv4_desc, &pv.Ipv4ExtSpec) ||
	    spec_add_type(m, &ipv6_spec, &ipv6_desc, &pv.Ipv6Spec) ||
	    spec_add_type(m, &tcp_udp_spec, &tcp_udp_desc, &pv.TcpUdpSpec))
		return -1;
	return 0;
}

/* Flow (flow.c): the C spec of an initialised Spec object. */
const struct ibv_flow_spec *pv_spec_data(PyObject *o)
{
	const struct ibv_flow_spec *s;

	if (!pv_type_ok(o, pv.Spec)) {
		PyErr_Format(PyExc_TypeError,
			     "specs must hold Spec objects, "
			     "not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	s = &((struct pv_spec *)o)->spec;
	if (s->hdr.size < sizeof(s->hdr) || s->hdr.size > sizeof(*s)) {
		pv_raise_user("%s was not initialised by a spec constructor",
			      Py_TYPE(o)->tp_name);
		return NULL;
	}
	return s;
}
