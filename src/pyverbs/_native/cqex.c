/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The extended CQ: CqInitAttrEx, CQEX (ibv_create_cq_ex, and the
 * providers' creation hook, pv_cqex_setup()), its pollers and the read_*
 * of the current completion, PollCqAttr and WcTmInfo.  Its lifetime,
 * events and common attributes are CQ's (cq_impl.h).
 */
#include "cq.h"
#include "cq_impl.h"
#include "context.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "object.h"
#include "parent_domain.h"
#include "pd.h"
#include "state.h"

#include <errno.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* CqInitAttrEx, PollCqAttr, WcTmInfo                                  */
/* ------------------------------------------------------------------ */

/*
 * The channel and parent domain are kept as objects and turned into C
 * pointers only when a CQEX is created, so that a closed channel is refused
 * instead of being used.
 */
struct cq_init_attr_ex {
	PyObject_HEAD
	struct ibv_cq_init_attr_ex attr;
	PyObject *channel;	 /* CompChannel, None or NULL */
	PyObject *parent_domain; /* PD, None or NULL */
	PyObject *cq_context;	 /* any object, None or NULL */
};

#define CIA struct cq_init_attr_ex
static const struct pv_field cia_fields[] = {
	PV_FIELD(CIA, attr.cqe, "cqe"),
	PV_FIELD(CIA, attr.comp_vector, "comp_vector"),
	PV_FIELD(CIA, attr.wc_flags, "wc_flags"),
	PV_FIELD(CIA, attr.comp_mask, "comp_mask"),
	PV_FIELD(CIA, attr.flags, "flags"),
	PV_FIELD_END
};

/* Deleting one of these attributes stores None, as it always has here. */
#define CIA_OSLOT(member, pyname, tp, err, d)                                \
	{ PV_OSLOT_AT(CIA, member, pyname), .type = (tp), .type_err = (err), \
	  .flags = PV_OSLOT_DEL_NONE, .doc = (d) }

enum { CIA_CHANNEL, CIA_PD };
static const struct pv_oslot cia_oslots[] = {
	[CIA_CHANNEL] = CIA_OSLOT(channel, "comp_channel", &pv.CompChannel,
				  "channel must be a CompChannel or None",
				  "The CompChannel of the CQ to create, or "
				  "None."),
	[CIA_PD] = CIA_OSLOT(parent_domain, "parent_domain", &pv.PD,
			     "parent_domain must be a PD (ParentDomain) or "
			     "None",
			     "The ParentDomain of the CQ to create, or None."),
	CIA_OSLOT(cq_context, "cq_context", NULL, NULL,
		  "An object the created CQEX holds as its cq_context."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(cia, cia_oslots)

static int cia_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "cqe",	   "channel",	"comp_vector",
				  "wc_flags",	   "comp_mask", "flags",
				  "parent_domain", NULL };
	struct cq_init_attr_ex *self = (struct cq_init_attr_ex *)obj;
	PyObject *channel = Py_None, *pd = Py_None;
	struct ibv_cq_init_attr_ex a = { .cqe = 100 };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&OO&O&O&O&O:CqInitAttrEx",
					 kwlist, pv_conv_u32, &a.cqe, &channel,
					 pv_conv_u32, &a.comp_vector,
					 pv_conv_u64, &a.wc_flags, pv_conv_u32,
					 &a.comp_mask, pv_conv_u32, &a.flags,
					 &pd))
		return -1;
	/* both checked before anything changes */
	if (pv_oslot_check(&cia_oslots[CIA_CHANNEL], channel) ||
	    pv_oslot_check(&cia_oslots[CIA_PD], pd))
		return -1;
	self->attr = a;
	Py_XSETREF(self->channel, Py_NewRef(channel));
	Py_XSETREF(self->parent_domain, Py_NewRef(pd));
	Py_CLEAR(self->cq_context);
	return 0;
}

PV_GC_TYPE_SPEC(cia, "pyverbs.cq.CqInitAttrEx", struct cq_init_attr_ex,
		"CqInitAttrEx(cqe=100, channel=None, comp_vector=0, "
		"wc_flags=0, comp_mask=0, flags=0, parent_domain=None)"
		"\n--\n\n"
		"Attributes of an extended CQ (struct "
		"ibv_cq_init_attr_ex).",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, cia_init },
		PV_OSLOTS_GC_SLOTS(cia), { Py_tp_getset, NULL },
		/* filled by pv_add_data_type() */);

struct poll_cq_attr {
	PyObject_HEAD
	struct ibv_poll_cq_attr attr;
};

static const struct pv_field pca_fields[] = {
	PV_FIELD(struct poll_cq_attr, attr.comp_mask, "comp_mask"), PV_FIELD_END
};

static int pca_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", NULL };
	struct poll_cq_attr *self = (struct poll_cq_attr *)obj;
	uint32_t comp_mask = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|$O&:PollCqAttr", kwlist,
					 pv_conv_u32, &comp_mask))
		return -1;
	self->attr.comp_mask = comp_mask;
	return 0;
}

PV_DATA_SPEC(pca, "pyverbs.cq.PollCqAttr", struct poll_cq_attr,
	     "PollCqAttr(*, comp_mask=0)\n--\n\n"
	     "Attributes of CQEX.start_poll() (struct "
	     "ibv_poll_cq_attr).",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, pca_init }, );

struct wc_tm_info {
	PyObject_HEAD
	struct ibv_wc_tm_info info;
};

static const struct pv_field tmi_fields[] = {
	PV_FIELD(struct wc_tm_info, info.tag, "tag"),
	PV_FIELD(struct wc_tm_info, info.priv, "priv"), PV_FIELD_END
};

static int tmi_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { NULL };

	return PyArg_ParseTupleAndKeywords(args, kw, ":WcTmInfo", kwlist) ? 0 :
									    -1;
}

PV_DATA_SPEC(tmi, "pyverbs.cq.WcTmInfo", struct wc_tm_info,
	     "WcTmInfo()\n--\n\n"
	     "Tag matching information of a completion (struct "
	     "ibv_wc_tm_info).",
	     { Py_tp_new, PyType_GenericNew }, { Py_tp_init, tmi_init }, );

/* ------------------------------------------------------------------ */
/* CQEX                                                                */
/* ------------------------------------------------------------------ */

/* The default creation of a CQEX: ibv_create_cq_ex() */
static struct ibv_cq_ex *cqex_create_plain(struct ibv_context *ctx,
					   struct ibv_cq_init_attr_ex *attr,
					   void *arg)
{
	struct ibv_cq_ex *cq = ibv_create_cq_ex(ctx, attr);

	if (!cq)
		pv_raise_errno("ibv_create_cq_ex",
			       "Failed to create extended CQ");
	return cq;
}

int pv_cqex_setup(PyObject *obj, PyObject *ctxo, PyObject *ia,
		  pv_cqex_create_fn create, void *arg)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	PyObject *channel = Py_None, *pd = Py_None;
	struct ibv_cq_init_attr_ex a = { .cqe = 100 };
	struct pv_alloc_guard guard;
	struct pv_obj *uses[2];
	struct pv_context *ctx;
	PyObject *cq_context = NULL;

	ctx = pv_cq_init_context(self, ctxo, _PyType_Name(Py_TYPE(obj)));
	if (!ctx)
		return -1;
	if (ia != Py_None) {
		struct cq_init_attr_ex *cia = (struct cq_init_attr_ex *)ia;

		if (!PyObject_TypeCheck(ia, pv.CqInitAttrEx)) {
			PyErr_Format(PyExc_TypeError,
				     "init_attr must be a CqInitAttrEx or "
				     "None, not %.100s",
				     Py_TYPE(ia)->tp_name);
			return -1;
		}
		a = cia->attr;
		/* the slots hold None or NULL when unset */
		if (cia->channel)
			channel = cia->channel;
		if (cia->parent_domain)
			pd = cia->parent_domain;
		if (cia->cq_context != Py_None)
			cq_context = cia->cq_context;
	}
	if (pv_cq_check_parents(ctx, channel))
		return -1;
	if (pd != Py_None) {
		if (pv_check_open(PV_OBJ(pd)))
			return -1;
		if (!pv_obj_descends_from(PV_OBJ(pd), &ctx->obj)) {
			pv_raise_user("The parent domain belongs to another "
				      "Context");
			return -1;
		}
		a.parent_domain = ((struct pv_pd *)pd)->pd;
	} else {
		a.parent_domain = NULL;
	}
	a.channel = channel == Py_None ?
			    NULL :
			    ((struct pv_comp_channel *)channel)->cc;
	a.cq_context = self;
	pv_obj_setup(&self->obj, pv_cq_destroy);
	uses[0] = &ctx->obj;
	uses[1] = channel == Py_None ? NULL : PV_OBJ(channel);
	pv_alloc_guard_begin(&guard, pd == Py_None ? NULL : (struct pv_pd *)pd,
			     uses, 2);
	self->cq_ex = (create ? create : cqex_create_plain)(ctx->ctx, &a, arg);
	pv_alloc_guard_end(&guard, !self->cq_ex);
	if (!self->cq_ex)
		return -1;
	self->cq = ibv_cq_ex_to_cq(self->cq_ex);
	if (pv_cq_link_parents(self, ctx, channel))
		return -1;
	if (pd != Py_None && pv_obj_link(&self->obj, PV_OBJ(pd))) {
		pv_cq_destroy(&self->obj);
		return -1;
	}
	Py_XSETREF(self->cq_context, Py_XNewRef(cq_context));
	self->num_events = 0;
	self->polling = self->current = 0;
	pv_obj_opened(&self->obj);
	return 0;
}

static int cqex_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "context", "init_attr", NULL };
	PyObject *ctxo, *ia = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:CQEX", kwlist, &ctxo,
					 &ia))
		return -1;
	return pv_cqex_setup(obj, ctxo, ia, NULL, NULL);
}

static PyObject *cqex_start_poll(PyObject *obj, PyObject *const *args,
				 Py_ssize_t nargs, PyObject *kwnames)
{
	static struct ibv_poll_cq_attr dflt;
	struct pv_cq *self = (struct pv_cq *)obj;
	struct ibv_poll_cq_attr *attr = &dflt;
	PyObject *arg = NULL;
	int rc;

	if ((nargs || kwnames) &&
	    pv_cq_one_arg("start_poll", "attr", args, nargs, kwnames, &arg))
		return NULL;
	if (arg && arg != Py_None) {
		if (!PyObject_TypeCheck(arg, pv.PollCqAttr)) {
			PyErr_Format(PyExc_TypeError,
				     "attr must be a PollCqAttr or None, not "
				     "%.100s",
				     Py_TYPE(arg)->tp_name);
			return NULL;
		}
		attr = &((struct poll_cq_attr *)arg)->attr;
	}
	if (pv_check_open(&self->obj))
		return NULL;
	if (self->polling)
		return pv_raise_user("start_poll(): a poll batch is already "
				     "open; call end_poll() first");
	/* returns 0, ENOENT when the CQ is empty (no end_poll() then), or
	 * another errno */
	rc = ibv_start_poll(self->cq_ex, attr);
	self->polling = self->current = rc == 0;
	return PyLong_FromLong(rc);
}

static PyObject *cqex_poll_next(PyObject *obj, PyObject *unused)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	int rc;

	if (pv_check_open(&self->obj))
		return NULL;
	if (!self->polling)
		return pv_raise_user("poll_next(): no poll batch is open; "
				     "call start_poll() first");
	rc = ibv_next_poll(self->cq_ex); /* 0, ENOENT or errno */
	self->current = rc == 0;
	return PyLong_FromLong(rc);
}

static PyObject *cqex_end_poll(PyObject *obj, PyObject *unused)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	/* Without an open batch (start_poll() failed) ibv_end_poll() must not
	 * be called: it would release a lock not taken. */
	if (self->polling) {
		ibv_end_poll(self->cq_ex);
		self->polling = self->current = 0;
	}
	Py_RETURN_NONE;
}

/* Check that the CQEX has a current completion and that the provider
 * supplies the reader (it does only for the wc_flags the CQ was created
 * with).  Returns 0 or -1. */
static int cqex_can_read(struct pv_cq *self, const void *fn, const char *name)
{
	if (pv_check_open(&self->obj))
		return -1;
	if (!self->current) {
		pv_raise_user("%s(): no current completion (start_poll() or "
			      "poll_next() did not return 0)",
			      name);
		return -1;
	}
	if (!fn) {
		pv_raise_user("%s(): the CQ was not created with the WC flag "
			      "for this field",
			      name);
		return -1;
	}
	return 0;
}

#define CQEX_READER(name, member, conv)                                       \
	static PyObject *cqex_##name(PyObject *obj, PyObject *unused)         \
	{                                                                     \
		struct pv_cq *self = (struct pv_cq *)obj;                     \
		if (cqex_can_read(self,                                       \
				  self->cq_ex ?                               \
					  (const void *)self->cq_ex->member : \
					  NULL,                               \
				  #name))                                     \
			return NULL;                                          \
		return conv(self->cq_ex->member(self->cq_ex));                \
	}

CQEX_READER(read_opcode, read_opcode, PyLong_FromUnsignedLong)
CQEX_READER(read_vendor_err, read_vendor_err, PyLong_FromUnsignedLong)
CQEX_READER(read_byte_len, read_byte_len, PyLong_FromUnsignedLong)
CQEX_READER(read_imm_data, read_imm_data, PyLong_FromUnsignedLong)
CQEX_READER(read_qp_num, read_qp_num, PyLong_FromUnsignedLong)
CQEX_READER(read_src_qp, read_src_qp, PyLong_FromUnsignedLong)
CQEX_READER(read_wc_flags, read_wc_flags, PyLong_FromUnsignedLong)
CQEX_READER(read_slid, read_slid, PyLong_FromUnsignedLong)
CQEX_READER(read_sl, read_sl, PyLong_FromUnsignedLong)
CQEX_READER(read_dlid_path_bits, read_dlid_path_bits, PyLong_FromUnsignedLong)
CQEX_READER(read_timestamp, read_completion_ts, PyLong_FromUnsignedLongLong)
CQEX_READER(read_cvlan, read_cvlan, PyLong_FromUnsignedLong)
CQEX_READER(read_flow_tag, read_flow_tag, PyLong_FromUnsignedLong)
CQEX_READER(read_completion_wallclock_ns, read_completion_wallclock_ns,
	    PyLong_FromUnsignedLongLong)

static PyObject *cqex_read_tm_info(PyObject *obj, PyObject *unused)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	struct wc_tm_info *info;

	if (cqex_can_read(self,
			  self->cq_ex ?
				  (const void *)self->cq_ex->read_tm_info :
				  NULL,
			  "read_tm_info"))
		return NULL;
	info = (struct wc_tm_info *)pv.WcTmInfo->tp_alloc(pv.WcTmInfo, 0);
	if (info)
		self->cq_ex->read_tm_info(self->cq_ex, &info->info);
	return (PyObject *)info;
}

/* status and wr_id of the current completion: the closure is 0 for
 * status, 1 for wr_id. */
static PyObject *cqex_get_wc(PyObject *obj, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;

	if (pv_check_open(&self->obj))
		return NULL;
	if (closure)
		return PyLong_FromUnsignedLongLong(self->cq_ex->wr_id);
	return PyLong_FromUnsignedLong(self->cq_ex->status);
}

static int cqex_set_wc(PyObject *obj, PyObject *v, void *closure)
{
	struct pv_cq *self = (struct pv_cq *)obj;
	const char *name = closure ? "wr_id" : "status";
	uint64_t x;

	if (!v) {
		PyErr_Format(PyExc_AttributeError, "cannot delete %s", name);
		return -1;
	}
	/* converted first: an __index__ may close the CQ (guard.c) */
	if (pv_to_u64(v, closure ? UINT64_MAX : UINT32_MAX, &x, name) ||
	    pv_check_open(&self->obj))
		return -1;
	if (closure)
		self->cq_ex->wr_id = x;
	else
		self->cq_ex->status = (enum ibv_wc_status)x;
	return 0;
}

#define CQEX_READ_METHOD(name)             \
	{ #name, cqex_##name, METH_NOARGS, \
	  #name "($self, /)\n--\n\n"       \
		"The field of the current completion (ibv_wc_" #name ")." }

static PyMethodDef cqex_methods[] = {
	{ "start_poll", (PyCFunction)(void (*)(void))cqex_start_poll,
	  METH_FASTCALL | METH_KEYWORDS,
	  "start_poll($self, /, attr=None)\n--\n\n"
	  "Start a poll batch (ibv_start_poll).  Return 0 (a completion is "
	  "current),\nENOENT (the CQ is empty) or another errno." },
	{ "poll_next", cqex_poll_next, METH_NOARGS,
	  "poll_next($self, /)\n--\n\n"
	  "Move to the next completion of the batch (ibv_next_poll).  Return "
	  "0 or ENOENT." },
	{ "end_poll", cqex_end_poll, METH_NOARGS,
	  "end_poll($self, /)\n--\n\n"
	  "End the poll batch (ibv_end_poll); does nothing without one." },
	CQEX_READ_METHOD(read_opcode),
	CQEX_READ_METHOD(read_vendor_err),
	CQEX_READ_METHOD(read_byte_len),
	CQEX_READ_METHOD(read_imm_data),
	CQEX_READ_METHOD(read_qp_num),
	CQEX_READ_METHOD(read_src_qp),
	CQEX_READ_METHOD(read_wc_flags),
	CQEX_READ_METHOD(read_slid),
	CQEX_READ_METHOD(read_sl),
	CQEX_READ_METHOD(read_dlid_path_bits),
	CQEX_READ_METHOD(read_timestamp),
	CQEX_READ_METHOD(read_cvlan),
	CQEX_READ_METHOD(read_flow_tag),
	CQEX_READ_METHOD(read_tm_info),
	CQEX_READ_METHOD(read_completion_wallclock_ns),
	{ "req_notify", (PyCFunction)(void (*)(void))pv_cq_req_notify,
	  METH_FASTCALL | METH_KEYWORDS,
	  "req_notify($self, /, solicited_only=False)\n--\n\n"
	  "Arm the CQ for a completion event (ibv_req_notify_cq)." },
	{ "ack_events", (PyCFunction)(void (*)(void))pv_cq_ack_events,
	  METH_VARARGS | METH_KEYWORDS,
	  "ack_events($self, /, num_events)\n--\n\n"
	  "Acknowledge num_events events got by get_cq_event()." },
	{ NULL }
};

static PyGetSetDef cqex_getset[] = {
	{ "status", cqex_get_wc, cqex_set_wc,
	  "Status of the current completion.", NULL },
	{ "wr_id", cqex_get_wc, cqex_set_wc, "wr_id of the current completion.",
	  (void *)1 },
	CQ_GETSET("Address of the struct ibv_cq_ex (0 if closed).",
		  "The cq_context object of the init_attr (held), or None."),
	{ NULL }
};

PV_GC_TYPE_SPEC(cqex, "pyverbs.cq.CQEX", struct pv_cq,
		"CQEX(context, init_attr)\n--\n\n"
		"An extended completion queue (ibv_create_cq_ex), polled "
		"with\nstart_poll() / poll_next() / end_poll() and the "
		"read_*() accessors.",
		{ Py_tp_init, cqex_init }, { Py_tp_methods, cqex_methods },
		{ Py_tp_getset, cqex_getset }, { Py_tp_repr, pv_cq_repr },
		{ Py_tp_traverse, pv_cq_traverse },
		{ Py_tp_clear, pv_cq_clear }, );

int pv_cqex_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &cia_spec, &pv.PyverbsObject, &pv.CqInitAttrEx, cia_fields,
		  cia_oslots },
		{ &pca_spec, &pv.PyverbsObject, &pv.PollCqAttr, pca_fields },
		{ &tmi_spec, &pv.PyverbsObject, &pv.WcTmInfo, tmi_fields },
		{ &cqex_spec, &pv.PyverbsCM, &pv.CQEX },
		{ NULL }
	};

	if (pv_add_types(m, types))
		return -1;
	return pv_obj_register_handle(pv.CQEX, offsetof(struct pv_cq, cq));
}
