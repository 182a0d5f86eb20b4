/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * AddrInfo: a list of struct rdma_addrinfo (the first entry is the one
 * used), filled by rdma_getaddrinfo, or handed over by
 * rdma_query_addrinfo after a CMID's asynchronous lookup
 * (CMID.resolve_addrinfo / query_addrinfo, librdmacm 60; their methods
 * live here too).
 *
 * An AddrInfo is open from __init__ on, and may be empty: AddrInfo() with
 * no address (as upstream 65 allows) holds no list until get_addrinfo()
 * fills it.  Every use of the list refuses an empty one
 * (pv_addrinfo_arg).  A refill swaps the list with the GIL held and frees
 * the old one, so a call that uses the list without the GIL holds it busy
 * (pv_addrinfo_hold): a refill refuses to start while it is busy, and
 * such a call refuses to start while a refill's lookup runs.
 */
#include "cm.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/ib.h>
#include <netdb.h>

static int ai_destroy(struct pv_obj *o)
{
	struct pv_addrinfo *self = (struct pv_addrinfo *)o;

	if (self->ai) {
		rdma_freeaddrinfo(self->ai); /* void */
		self->ai = NULL;
	}
	return 0;
}

/*
 * A node or service argument: None (NULL), str, bytes, or an int (a
 * service given as a port number).  *keep holds the bytes while *out is
 * used.  0 or -1.
 */
static int ai_str_arg(PyObject *v, const char *what, PyObject **keep,
		      const char **out)
{
	*keep = NULL;
	*out = NULL;
	if (v == Py_None)
		return 0;
	if (PyLong_Check(v) && !PyBool_Check(v)) {
		PyObject *s = PyObject_Str(v); /* a port number */

		if (!s)
			return -1;
		v = s;
	} else {
		Py_INCREF(v);
	}
	if (PyUnicode_Check(v)) {
		*keep = PyUnicode_AsUTF8String(v);
	} else if (PyBytes_Check(v)) {
		*keep = Py_NewRef(v);
	} else {
		PyErr_Format(PyExc_TypeError,
			     "%s must be str, bytes or None, "
			     "not %.100s",
			     what, Py_TYPE(v)->tp_name);
	}
	Py_DECREF(v);
	if (!*keep)
		return -1;
	if (strlen(PyBytes_AS_STRING(*keep)) !=
	    (size_t)PyBytes_GET_SIZE(*keep)) {
		Py_CLEAR(*keep);
		PyErr_Format(PyExc_ValueError, "embedded null character in %s",
			     what);
		return -1;
	}
	*out = PyBytes_AS_STRING(*keep);
	return 0;
}

/* Convert n node/service arguments; on failure none is kept.  0 or -1. */
static int ai_str_args(int n, PyObject *const *v, const char *const *what,
		       PyObject **keep, const char **out)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (ai_str_arg(v[i], what[i], &keep[i], &out[i])) {
			for (j = 0; j < i; j++)
				Py_CLEAR(keep[j]);
			return -1;
		}
	}
	return 0;
}

/*
 * The hints of a lookup.  The IB port space names its nodes by GID, as
 * numbers, in the AF_IB family (upstream 65 sets the same three).
 */
static void ai_hints(struct rdma_addrinfo *h, int port_space, int flags)
{
	memset(h, 0, sizeof(*h));
	h->ai_port_space = port_space;
	h->ai_flags = flags;
	if (port_space == RDMA_PS_IB) {
		h->ai_flags |= RAI_FAMILY | RAI_NUMERICHOST;
		h->ai_family = AF_IB;
	}
}

/*
 * A failed lookup: code is an errno value (> 0), -1 (the library kept no
 * reason), or a getaddrinfo EAI_* code (< -1), which librdmacm passes on
 * as its return value or, from rdma_resolve_addrinfo, as errno.
 */
static PyObject *ai_raise(int code, const char *func, const char *msg)
{
	if (code > 0)
		return pv_raise_rc(code, func, "%s", msg);
	if (code < -1)
		return pv_raise_code(code, func, "%s: %s", msg,
				     gai_strerror(code));
	return pv_raise_code(-1, func, "%s (%s gave no reason)", msg, func);
}

/*
 * rdma_getaddrinfo() for src/dst/src_service/dst_service (s[0..3]), with
 * the GIL released.  A passive lookup resolves src alone; an active one
 * with src first resolves src passively and passes it as the hint's
 * source.  Returns 0, or the code for ai_raise().
 */
static int ai_lookup(const char *const s[4], int port_space, int flags,
		     struct rdma_addrinfo **out)
{
	struct rdma_addrinfo hints, *res = NULL;
	int rc;

	ai_hints(&hints, port_space, flags);
	errno = 0;
	if (hints.ai_flags & RAI_PASSIVE) {
		rc = rdma_getaddrinfo(s[0], s[2], &hints, out);
	} else {
		rc = 0;
		if (s[0]) {
			hints.ai_flags |= RAI_PASSIVE;
			rc = rdma_getaddrinfo(s[0], s[2], &hints, &res);
			if (!rc) {
				hints.ai_src_addr = res->ai_src_addr;
				hints.ai_src_len = res->ai_src_len;
				hints.ai_flags &= ~RAI_PASSIVE;
			}
		}
		if (!rc)
			rc = rdma_getaddrinfo(s[1], s[3], &hints, out);
		if (rc == -1)
			rc = errno ? errno : -1; /* before the free */
		if (res)
			rdma_freeaddrinfo(res);
		return rc;
	}
	return rc == -1 ? (errno ? errno : -1) : rc;
}

/*
 * Fill self with a new lookup, freeing the list it had.  The lookup runs
 * without the GIL, self busy (close() and other refills refuse).  0 or -1.
 */
static int ai_fill(struct pv_addrinfo *self, const char *const s[4],
		   int port_space, int flags)
{
	struct rdma_addrinfo *ai = NULL, *old;
	int rc;

	if (self->obj.busy || self->filling) {
		pv_raise_user("The AddrInfo is in use by a blocking call of "
			      "another thread: it cannot be refilled now");
		return -1;
	}
	self->filling = 1;
	pv_busy_enter(&self->obj);
	PV_BLOCKING_BEGIN
	rc = ai_lookup(s, port_space, flags, &ai);
	PV_BLOCKING_END
	pv_busy_leave(&self->obj);
	self->filling = 0;
	if (rc) {
		ai_raise(rc, "rdma_getaddrinfo", "Failed to get Address Info");
		return -1;
	}
	old = self->ai;
	self->ai = ai;
	if (old)
		rdma_freeaddrinfo(old); /* void */
	return 0;
}

static char *ai_kwlist[] = { "src",	    "dst",	  "src_service",
			     "dst_service", "port_space", "flags",
			     NULL };
static const char *const ai_names[4] = { "src", "dst", "src_service",
					 "dst_service" };

/*
 * Both __init__ and get_addrinfo: convert the arguments (v: the four
 * names, parsed), and fill self unless fill_if_given is set and none of
 * them is given (None, '' or 0, as upstream 65 tests them).  0 or -1.
 */
static int ai_fill_from(struct pv_addrinfo *self, PyObject *v[4],
			int port_space, int flags, int fill_if_given)
{
	PyObject *keep[4] = { NULL };
	const char *s[4];
	int rc = 0, i, given = 0;

	if (ai_str_args(4, v, ai_names, keep, s))
		return -1;
	for (i = 0; i < 4 && rc >= 0; i++) {
		rc = v[i] == Py_None ? 0 : PyObject_IsTrue(v[i]);
		given |= rc > 0;
	}
	/* an int subclass's __str__ or __bool__ may have closed it */
	if (rc < 0 || pv_check_open(&self->obj))
		rc = -1;
	else if (given || !fill_if_given)
		rc = ai_fill(self, s, port_space, flags);
	else
		rc = 0;
	for (i = 0; i < 4; i++)
		Py_XDECREF(keep[i]);
	return rc;
}

/* The arguments of __init__ and get_addrinfo (fmt: "|OOOOO&O&:<name>"). */
static int ai_parse(PyObject *args, PyObject *kw, const char *fmt,
		    PyObject *v[4], int *port_space, int *flags)
{
	v[0] = v[1] = v[2] = v[3] = Py_None;
	*port_space = *flags = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, ai_kwlist, &v[0], &v[1],
					 &v[2], &v[3], pv_conv_int, port_space,
					 pv_conv_int, flags))
		return -1;
	return 0;
}

static int ai_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	struct pv_addrinfo *self = (struct pv_addrinfo *)obj;
	int port_space, flags;
	PyObject *v[4];

	if (ai_parse(args, kw, "|OOOOO&O&:AddrInfo", v, &port_space, &flags))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("AddrInfo is already initialised");
		return -1;
	}
	pv_obj_setup(&self->obj, ai_destroy);
	self->ai = NULL;
	self->filling = 0;
	pv_obj_opened(&self->obj); /* empty until filled */
	return ai_fill_from(self, v, port_space, flags, 1);
}

static PyObject *ai_get_addrinfo(PyObject *obj, PyObject *args, PyObject *kw)
{
	struct pv_addrinfo *self = (struct pv_addrinfo *)obj;
	int port_space, flags;
	PyObject *v[4];

	if (ai_parse(args, kw, "|OOOOO&O&:get_addrinfo", v, &port_space,
		     &flags) ||
	    pv_check_open(&self->obj) ||
	    ai_fill_from(self, v, port_space, flags, 0))
		return NULL;
	Py_RETURN_NONE;
}

/* Format a sockaddr as "ip:port" (None for NULL). */
static PyObject *ai_sockaddr_str(const struct sockaddr *sa)
{
	char host[INET6_ADDRSTRLEN];
	const void *a;
	unsigned int port;

	if (!sa)
		Py_RETURN_NONE;
	if (sa->sa_family == AF_INET) {
		a = &((const struct sockaddr_in *)sa)->sin_addr;
		port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		port = ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	} else {
		return PyUnicode_FromFormat("<family %d>", sa->sa_family);
	}
	if (!inet_ntop(sa->sa_family, a, host, sizeof(host)))
		return pv_raise_errno("inet_ntop", "Failed to format address");
	return PyUnicode_FromFormat("%s:%u", host, port);
}

enum { AI_SRC, AI_DST, AI_PORT_SPACE, AI_FLAGS, AI_EMPTY };

/* The attribute closure names (an AI_* value); None or 0 while empty. */
static PyObject *ai_get(PyObject *obj, void *closure)
{
	struct rdma_addrinfo *ai = ((struct pv_addrinfo *)obj)->ai;
	int what = (int)(intptr_t)closure;

	if (pv_check_open(PV_OBJ(obj)))
		return NULL;
	if (what == AI_EMPTY)
		return PyBool_FromLong(!ai);
	if (what == AI_SRC || what == AI_DST)
		return ai_sockaddr_str(!ai	      ? NULL :
				       what == AI_SRC ? ai->ai_src_addr :
							ai->ai_dst_addr);
	if (!ai)
		return PyLong_FromLong(0);
	return PyLong_FromLong(what == AI_FLAGS ? ai->ai_flags :
						  ai->ai_port_space);
}

#define AI_ATTR(name, what, doc) \
	{ name, ai_get, NULL, doc, (void *)(intptr_t)(what) }

static PyGetSetDef ai_getset[] = {
	AI_ATTR("src_addr", AI_SRC,
		"The source address as 'ip:port', or None (beyond upstream)."),
	AI_ATTR("dst_addr", AI_DST,
		"The destination address as 'ip:port', or None (beyond "
		"upstream)."),
	AI_ATTR("port_space", AI_PORT_SPACE,
		"The port space of the result, 0 while empty (beyond "
		"upstream)."),
	AI_ATTR("flags", AI_FLAGS,
		"The RAI_* flags of the result, 0 while empty (beyond "
		"upstream)."),
	AI_ATTR("empty", AI_EMPTY,
		"True until a lookup fills it (beyond upstream)."),
	{ NULL }
};

static PyMethodDef ai_methods[] = {
	{ "get_addrinfo", (PyCFunction)(void (*)(void))ai_get_addrinfo,
	  METH_VARARGS | METH_KEYWORDS,
	  "get_addrinfo($self, src=None, dst=None, src_service=None, "
	  "dst_service=None, port_space=0, flags=0)\n--\n\n"
	  "Look the addresses up (rdma_getaddrinfo) and keep the result in "
	  "place of the\nprevious one.  With RAI_PASSIVE in flags, src and "
	  "src_service name the local\naddress to listen on; else dst and "
	  "dst_service name the peer, and src\n(resolved first) the local "
	  "address to use.  With port_space RDMA_PS_IB the\nnames are GIDs "
	  "(RAI_FAMILY | RAI_NUMERICHOST, family AF_IB)." },
	{ NULL }
};

PV_GC_TYPE_SPEC(ai, "pyverbs.cmid.AddrInfo", struct pv_addrinfo,
		"AddrInfo(src=None, dst=None, src_service=None, "
		"dst_service=None, port_space=0, flags=0)\n--\n\n"
		"Address information (rdma_getaddrinfo).  Without any of src, "
		"dst and the\nservices it is empty until get_addrinfo() fills "
		"it; else it is filled at\nonce, as get_addrinfo() with the "
		"same arguments does.",
		{ Py_tp_init, ai_init }, { Py_tp_methods, ai_methods },
		{ Py_tp_getset, ai_getset }, PV_CM_SLOTS, );

/* The open AddrInfo o, or NULL with an exception; also refuses an empty
 * one. */
static struct pv_addrinfo *ai_usable(PyObject *o, const char *what)
{
	if (!pv_type_ok(o, pv.AddrInfo)) {
		PyErr_Format(PyExc_TypeError,
			     "%s must be an AddrInfo, not "
			     "%.100s",
			     what, Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	if (!((struct pv_addrinfo *)o)->ai) {
		pv_raise_user("The AddrInfo %s is empty: fill it with "
			      "get_addrinfo() first",
			      what);
		return NULL;
	}
	return (struct pv_addrinfo *)o;
}

struct pv_addrinfo *pv_addrinfo_arg(PyObject *o, const char *what)
{
	return ai_usable(o, what);
}

int pv_addrinfo_hold(struct pv_addrinfo *ai, const char *what)
{
	if (!ai_usable((PyObject *)ai, what))
		return -1;
	if (ai->filling) {
		pv_raise_user("The AddrInfo %s is being refilled by "
			      "get_addrinfo() in another thread",
			      what);
		return -1;
	}
	pv_busy_enter(&ai->obj);
	return 0;
}

/* ---- CMID.resolve_addrinfo / query_addrinfo (librdmacm 60) ---- */

#if HAVE_RDMA_RESOLVE_ADDRINFO
/*
 * rdma_resolve_addrinfo() failed with errno err.  librdmacm 65 loses the
 * errno of some failures (errno -1): for a DNS lookup, the lookup again
 * tells a bad name (its own error) from a kernel whose rdma_ucm refuses
 * the event write that queues the result (kernel 6.1 does: EOPNOTSUPP).
 */
static PyObject *resolve_failed(int err, const char *const s[2],
				const struct rdma_addrinfo *hints)
{
	static const char fn[] = "rdma_resolve_addrinfo";
	struct rdma_addrinfo *res = NULL;
	int rc;

	if (err != -1)
		return ai_raise(err, fn, "Failed to Resolve AddrInfo");
	if ((hints->ai_flags & RAI_SA) && !s[1])
		return pv_raise_rc(EINVAL, fn,
				   "Failed to Resolve AddrInfo: RAI_SA needs a "
				   "service (an IB service name or ID)");
	if (hints->ai_flags & RAI_SA)
		return pv_raise_code(-1, fn,
				     "Failed to Resolve AddrInfo: the kernel "
				     "refused the IB SA lookup (librdmacm "
				     "keeps no errno for it)");
	PV_BLOCKING_BEGIN
	errno = 0;
	rc = rdma_getaddrinfo(s[0], s[1], hints, &res);
	if (rc == -1)
		rc = errno ? errno : -1;
	if (!rc)
		rdma_freeaddrinfo(res);
	PV_BLOCKING_END
	if (rc)
		return ai_raise(rc, fn, "Failed to Resolve AddrInfo");
	return pv_raise_rc(EOPNOTSUPP, fn,
			   "Failed to Resolve AddrInfo: the lookup works, but "
			   "this kernel's rdma_ucm cannot queue its result "
			   "event (it lacks RDMA_USER_CM_CMD_WRITE_CM_EVENT)");
}

/* Start self's lookup of node/service (s[0], s[1]).  None or NULL. */
static PyObject *cmid_resolve(struct pv_cmid *self, const char *const s[2],
			      int port_space, int flags)
{
	struct rdma_addrinfo hints;
	int rc, err;

	if (pv_check_open(&self->obj))
		return NULL;
	ai_hints(&hints, port_space, flags);
	/* a synchronous id waits here for the result */
	pv_busy_enter(&self->obj);
	PV_BLOCKING_BEGIN
	errno = 0;
	rc = rdma_resolve_addrinfo(self->id, s[0], s[1], &hints);
	err = errno ? errno : -1;
	PV_BLOCKING_END
	pv_busy_leave(&self->obj);
	if (rc) /* -1; errno an errno value, -1 or an EAI_* code */
		return resolve_failed(err, s, &hints);
	Py_RETURN_NONE;
}
#endif

PyObject *pv_cmid_resolve_addrinfo(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "node", "service", "port_space", "flags",
				  NULL };
	static const char *const names[2] = { "node", "service" };
	PyObject *v[2] = { Py_None, Py_None }, *keep[2] = { NULL }, *r;
	int port_space = 0, flags = 0;
	const char *s[2];

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO&O&:resolve_addrinfo",
					 kwlist, &v[0], &v[1], pv_conv_int,
					 &port_space, pv_conv_int, &flags))
		return NULL;
	if (ai_str_args(2, v, names, keep, s))
		return NULL;
#if HAVE_RDMA_RESOLVE_ADDRINFO
	r = cmid_resolve(CMID(obj), s, port_space, flags);
#else
	r = pv_raise_needs("rdma_resolve_addrinfo", 60);
#endif
	Py_XDECREF(keep[0]);
	Py_XDECREF(keep[1]);
	return r;
}

PyObject *pv_cmid_query_addrinfo(PyObject *obj, PyObject *unused)
{
#if HAVE_RDMA_RESOLVE_ADDRINFO
	struct pv_cmid *self = CMID(obj);
	struct pv_addrinfo *ai;

	if (pv_check_open(&self->obj))
		return NULL;
	/* an empty one first: nothing can fail once the list is ours */
	ai = (struct pv_addrinfo *)PyObject_CallNoArgs((PyObject *)pv.AddrInfo);
	if (!ai)
		return NULL;
	if (pv_check_open(&self->obj)) { /* a collector's finalizer */
		Py_DECREF(ai);
		return NULL;
	}
	if (rdma_query_addrinfo(self->id, &ai->ai)) { /* -1 + errno */
		ai->ai = NULL;
		Py_DECREF(ai);
		return pv_raise_errno("rdma_query_addrinfo",
				      "Failed to Query AddrInfo");
	}
	return (PyObject *)ai;
#else
	return pv_raise_needs("rdma_query_addrinfo", 60);
#endif
}

int pv_addrinfo_init_type(PyObject *m)
{
	return pv_add_type(m, &ai_spec, pv.PyverbsCM, &pv.AddrInfo);
}
