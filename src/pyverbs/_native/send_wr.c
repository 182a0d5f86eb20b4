/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * SendWR (struct ibv_send_wr): the constructor with its keyword shortcuts,
 * set_wr_ud/rdma/atomic, set_qp_type_xrc, set_bind_wr, and what posting
 * needs (pv_send_wr_check(), pv_send_wr_copy()).  Its SGEs and next_wr
 * chain are held by the shared implementation in wr.c; the type registers
 * itself with pv_wr_add_type() (pv_send_wr_init_types()).
 */
#include "wr.h" /* first: Python.h sets _GNU_SOURCE */
#include "wr_impl.h"
#include "addr.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "mw.h"
#include "object.h"
#include "state.h"

PV_ARGS_SIG(send_sig, "SendWR", 7, 0, "wr_id", "opcode", "num_sge", "imm_data",
	    "sg", "send_flags", "next_wr",
	    /* keyword-only shortcuts for set_wr_ud/rdma/atomic */
	    "remote_addr", "rkey", "ah", "remote_qpn", "remote_qkey",
	    "compare_add", "swap");

enum {
	SW_WR_ID,
	SW_OPCODE,
	SW_NUM_SGE,
	SW_IMM,
	SW_SG,
	SW_FLAGS,
	SW_NEXT,
	SW_RADDR,
	SW_RKEY,
	SW_AH,
	SW_RQPN,
	SW_RQKEY,
	SW_CMP,
	SW_SWAP,
};

PV_ARGS_SIG(ud_sig, "set_wr_ud", 3, 3, "ah", "rqpn", "rqkey");
PV_ARGS_SIG(rdma_sig, "set_wr_rdma", 2, 2, "rkey", "addr");
PV_ARGS_SIG(atomic_sig, "set_wr_atomic", 4, 3, "rkey", "addr", "compare_add",
	    "swap");

static int sendwr_clear(PyObject *self)
{
	struct pv_send_wr *wr = (struct pv_send_wr *)self;

	wr->wr.next = NULL;
	Py_CLEAR(wr->next_wr);
	Py_CLEAR(wr->ah);
	Py_CLEAR(wr->bind);
	return 0;
}

static const struct pv_wr_kind send_kind =
	PV_WR_KIND(struct pv_send_wr, "SendWR", &pv.SendWR, sendwr_clear);

static int check_ah(PyObject *ah)
{
	if (!PyObject_TypeCheck(ah, pv.AH)) {
		PyErr_Format(PyExc_TypeError, "ah must be an AH, not %.100s",
			     Py_TYPE(ah)->tp_name);
		return -1;
	}
	return pv_check_open(PV_OBJ(ah));
}

/* Point the WR at ah (a checked, open AH) or at none. */
static void sendwr_set_ah(struct pv_send_wr *self, PyObject *ah)
{
	Py_XINCREF(ah);
	Py_XSETREF(self->ah, (struct pv_ah *)ah);
	if (ah)
		pv_wr_track((PyObject *)self);
}

/*
 * The keyword shortcuts: ah= (+ remote_qpn=, remote_qkey=) is set_wr_ud;
 * compare_add=/swap= (+ remote_addr=, rkey=) is set_wr_atomic; remote_addr=
 * /rkey= alone is set_wr_rdma.  Fills wr->wr and *ah.
 */
static int sendwr_shortcuts(struct ibv_send_wr *wr, PyObject **v, PyObject **ah)
{
	uint64_t raddr = 0, cmp = 0, swap = 0;
	uint32_t rkey = 0, qpn = 0, qkey = 0;

	*ah = NULL;
	if (v[SW_AH] && v[SW_AH] != Py_None) {
		if (v[SW_RADDR] || v[SW_RKEY] || v[SW_CMP] || v[SW_SWAP]) {
			pv_raise_user("SendWR: ah= (UD) cannot be combined "
				      "with remote_addr=, rkey=, compare_add= "
				      "or swap=");
			return -1;
		}
		if (!v[SW_RQPN]) {
			PyErr_SetString(PyExc_TypeError,
					"SendWR: ah= needs remote_qpn=");
			return -1;
		}
		if (check_ah(v[SW_AH]) ||
		    pv_args_u32(v[SW_RQPN], &qpn, "remote_qpn") ||
		    pv_args_u32(v[SW_RQKEY], &qkey, "remote_qkey"))
			return -1;
		wr->wr.ud.ah = ((struct pv_ah *)v[SW_AH])->ah;
		wr->wr.ud.remote_qpn = qpn;
		wr->wr.ud.remote_qkey = qkey;
		*ah = v[SW_AH];
		return 0;
	}
	if (v[SW_RQPN] || v[SW_RQKEY]) {
		pv_raise_user("SendWR: remote_qpn= and remote_qkey= need ah=");
		return -1;
	}
	if (pv_args_u64(v[SW_RADDR], UINT64_MAX, &raddr, "remote_addr") ||
	    pv_args_u32(v[SW_RKEY], &rkey, "rkey") ||
	    pv_args_u64(v[SW_CMP], UINT64_MAX, &cmp, "compare_add") ||
	    pv_args_u64(v[SW_SWAP], UINT64_MAX, &swap, "swap"))
		return -1;
	if (v[SW_CMP] || v[SW_SWAP]) {
		wr->wr.atomic.remote_addr = raddr;
		wr->wr.atomic.rkey = rkey;
		wr->wr.atomic.compare_add = cmp;
		wr->wr.atomic.swap = swap;
	} else {
		wr->wr.rdma.remote_addr = raddr;
		wr->wr.rdma.rkey = rkey;
	}
	return 0;
}

static int sendwr_fill(struct pv_send_wr *self, PyObject **v, int fresh)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	PyObject *next = v[SW_NEXT], *ah = NULL, *const * items, *one[1];
	uint32_t opcode = IBV_WR_SEND;
	uint64_t wr_id = 0;
	int num_sge, none;

	if (pv_args_u64(v[SW_WR_ID], UINT64_MAX, &wr_id, "wr_id") ||
	    pv_args_u32(v[SW_OPCODE], &opcode, "opcode") ||
	    pv_args_u32(v[SW_IMM], &wr.imm_data, "imm_data") ||
	    pv_args_u32(v[SW_FLAGS], &wr.send_flags, "send_flags") ||
	    pv_wr_num_sge(v[SW_NUM_SGE], &num_sge))
		return -1;
	wr.wr_id = wr_id;
	wr.opcode = opcode;
	/* the shortcuts, only when one of them is given */
	if ((v[SW_RADDR] || v[SW_RKEY] || v[SW_AH] || v[SW_RQPN] ||
	     v[SW_RQKEY] || v[SW_CMP] || v[SW_SWAP]) &&
	    sendwr_shortcuts(&wr, v, &ah))
		return -1;
	if (next == Py_None)
		next = NULL;
	if (next && (!fresh || !PyObject_TypeCheck(next, pv.SendWR)) &&
	    pv_wr_check_next((PyObject *)self, &send_kind, next))
		return -1;
	/* no Python code runs from here on */
	if (pv_wr_sg_collect("SendWR", v[SW_SG], &num_sge, &items, &none, one))
		return -1;
	/*
	 * Upstream lets only these opcodes carry no data.  pyverbs-c also
	 * takes a send given no SGE list at all (SendWR(), as upstream's own
	 * README posts it): a zero-length send, num_sge 0 and sg_list NULL.
	 */
	if (none && !num_sge &&
	    (opcode == IBV_WR_SEND || opcode == IBV_WR_SEND_WITH_IMM))
		;
	else if ((num_sge < 1 || none) && opcode != IBV_WR_LOCAL_INV &&
		 opcode != IBV_WR_BIND_MW && opcode != IBV_WR_SEND_WITH_INV) {
		pv_raise_user("A WR needs at least one SGE");
		return -1;
	}
	if (none && num_sge) {
		PyErr_Format(PyExc_TypeError,
			     "SendWR(): num_sge is %d but sg is None", num_sge);
		return -1;
	}
	wr.sg_list = self->wr.sg_list;
	if (pv_wr_sg_store(&wr.sg_list, self->sge_inline, items, num_sge))
		return -1;
	if (!num_sge)
		wr.sg_list = NULL; /* nothing for the provider to read */
	wr.num_sge = num_sge;
	self->wr = wr;
	self->sg_cap = num_sge;
	pv_wr_link((PyObject *)self, &send_kind, next);
	if (ah || self->ah)
		sendwr_set_ah(self, ah);
	return 0;
}

static PyObject *sendwr_vectorcall(PyObject *type, PyObject *const *args,
				   size_t nargsf, PyObject *kwnames)
{
	PyObject *v[PV_ARGS_MAX], *self;

	if (pv_args_parse_vc(&send_sig, args, PyVectorcall_NARGS(nargsf),
			     kwnames, v))
		return NULL;
	self = pv_wr_alloc((PyTypeObject *)type, pv.SendWR,
			   sizeof(struct pv_send_wr));
	if (!self)
		return NULL;
	if (sendwr_fill((struct pv_send_wr *)self, v, 1)) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

static PyObject *sendwr_tp_new(PyTypeObject *tp, PyObject *a, PyObject *k)
{
	return pv_wr_alloc(tp, pv.SendWR, sizeof(struct pv_send_wr));
}

static int sendwr_init(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *v[PV_ARGS_MAX];

	if (pv_args_parse_tuple(&send_sig, args, kw, v))
		return -1;
	return sendwr_fill((struct pv_send_wr *)self, v, 0);
}

static int sendwr_traverse(PyObject *self, visitproc visit, void *arg)
{
	struct pv_send_wr *wr = (struct pv_send_wr *)self;

	Py_VISIT(Py_TYPE(self));
	Py_VISIT(wr->next_wr);
	Py_VISIT(wr->ah);
	Py_VISIT(wr->bind);
	return 0;
}

static void sendwr_dealloc(PyObject *self)
{
	pv_wr_dealloc(self, &send_kind, sendwr_dealloc);
}

int pv_send_wr_check(struct pv_send_wr *wr, enum ibv_qp_type qpt)
{
	int i;

	for (i = 0; wr; wr = (struct pv_send_wr *)wr->next_wr, i++) {
		if (wr->ah && wr->ah->obj.closed) {
			pv_raise_user("SendWR %d of the list uses an AH that "
				      "is closed",
				      i);
			return -1;
		}
		if (qpt == IBV_QPT_UD && !wr->ah) {
			pv_raise_user("SendWR %d of the list has no address: "
				      "call set_wr_ud() for a UD QP",
				      i);
			return -1;
		}
		if (wr->wr.opcode == IBV_WR_BIND_MW && !wr->wr.bind_mw.mw) {
			pv_raise_user("SendWR %d of the list is a BIND_MW "
				      "without a memory window",
				      i);
			return -1;
		}
		if (wr->wr.opcode == IBV_WR_BIND_MW && wr->bind) {
			PyObject *mw = PyTuple_GET_ITEM(wr->bind, 0);
			struct ibv_mw_bind_info bi;

			/* never hand a freed MW or MR to the provider */
			if (PV_OBJ(mw)->closed) {
				pv_raise_user("SendWR %d of the list binds a "
					      "closed MW",
					      i);
				return -1;
			}
			if (pv_mw_bind_info_get(PyTuple_GET_ITEM(wr->bind, 1),
						&bi))
				return -1;
		}
	}
	return 0;
}

int pv_send_wr_copy(struct pv_send_wr *dst, const struct pv_send_wr *src)
{
	if (dst == src)
		return 0;
	if (pv_wr_copy((PyObject *)dst, (PyObject *)src, &send_kind))
		return -1;
	if (src->ah || dst->ah)
		sendwr_set_ah(dst, (PyObject *)src->ah);
	Py_XINCREF(src->bind);
	Py_XSETREF(dst->bind, src->bind);
	return 0;
}

static PyObject *sendwr_get_opcode(PyObject *obj, void *closure)
{
	return PyLong_FromUnsignedLong(((struct pv_send_wr *)obj)->wr.opcode);
}

static int sendwr_set_opcode(PyObject *obj, PyObject *val, void *closure)
{
	uint32_t op = 0;

	if (!val) {
		PyErr_SetString(PyExc_AttributeError, "cannot delete opcode");
		return -1;
	}
	if (pv_args_u32(val, &op, "opcode"))
		return -1;
	((struct pv_send_wr *)obj)->wr.opcode = op;
	return 0;
}

static PyObject *sendwr_get_ah(PyObject *obj, void *closure)
{
	PyObject *ah = (PyObject *)((struct pv_send_wr *)obj)->ah;

	return Py_NewRef(ah ? ah : Py_None);
}

static PyObject *sendwr_set_wr_ud(PyObject *obj, PyObject *const *args,
				  Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_send_wr *self = (struct pv_send_wr *)obj;
	uint32_t qpn = 0, qkey = 0;
	PyObject *v[3];

	if (pv_args_parse_vc(&ud_sig, args, nargs, kwnames, v) ||
	    check_ah(v[0]) || pv_args_u32(v[1], &qpn, "rqpn") ||
	    pv_args_u32(v[2], &qkey, "rqkey"))
		return NULL;
	memset(&self->wr.wr, 0, sizeof(self->wr.wr));
	self->wr.wr.ud.ah = ((struct pv_ah *)v[0])->ah;
	self->wr.wr.ud.remote_qpn = qpn;
	self->wr.wr.ud.remote_qkey = qkey;
	sendwr_set_ah(self, v[0]);
	Py_RETURN_NONE;
}

static PyObject *sendwr_set_wr_rdma(PyObject *obj, PyObject *const *args,
				    Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_send_wr *self = (struct pv_send_wr *)obj;
	uint64_t addr = 0;
	uint32_t rkey = 0;
	PyObject *v[2];

	if (pv_args_parse_vc(&rdma_sig, args, nargs, kwnames, v) ||
	    pv_args_u32(v[0], &rkey, "rkey") ||
	    pv_args_u64(v[1], UINT64_MAX, &addr, "addr"))
		return NULL;
	/* the union no longer holds an AH */
	if (self->ah)
		sendwr_set_ah(self, NULL);
	memset(&self->wr.wr, 0, sizeof(self->wr.wr));
	self->wr.wr.rdma.remote_addr = addr;
	self->wr.wr.rdma.rkey = rkey;
	Py_RETURN_NONE;
}

static PyObject *sendwr_set_wr_atomic(PyObject *obj, PyObject *const *args,
				      Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_send_wr *self = (struct pv_send_wr *)obj;
	uint64_t addr = 0, cmp = 0, swap = 0;
	uint32_t rkey = 0;
	PyObject *v[4];

	if (pv_args_parse_vc(&atomic_sig, args, nargs, kwnames, v) ||
	    pv_args_u32(v[0], &rkey, "rkey") ||
	    pv_args_u64(v[1], UINT64_MAX, &addr, "addr") ||
	    pv_args_u64(v[2], UINT64_MAX, &cmp, "compare_add") ||
	    pv_args_u64(v[3], UINT64_MAX, &swap, "swap"))
		return NULL;
	if (self->ah)
		sendwr_set_ah(self, NULL);
	memset(&self->wr.wr, 0, sizeof(self->wr.wr));
	self->wr.wr.atomic.remote_addr = addr;
	self->wr.wr.atomic.rkey = rkey;
	self->wr.wr.atomic.compare_add = cmp;
	self->wr.wr.atomic.swap = swap;
	Py_RETURN_NONE;
}

static PyObject *sendwr_set_qp_type_xrc(PyObject *obj, PyObject *val)
{
	uint32_t srqn = 0;

	if (pv_args_u32(val, &srqn, "remote_srqn"))
		return NULL;
	((struct pv_send_wr *)obj)->wr.qp_type.xrc.remote_srqn = srqn;
	Py_RETURN_NONE;
}

static PyObject *sendwr_set_bind_wr(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "mw", "bind_info", NULL };
	struct pv_send_wr *self = (struct pv_send_wr *)obj;
	struct ibv_mw_bind_info bi;
	PyObject *mw, *info, *keep;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:set_bind_wr", kwlist,
					 &mw, &info))
		return NULL;
	if (!PyObject_TypeCheck(mw, pv.MW))
		return PyErr_Format(PyExc_TypeError,
				    "mw must be an MW, not %.100s",
				    Py_TYPE(mw)->tp_name);
	if (pv_check_open(PV_OBJ(mw)) || pv_mw_bind_info_get(info, &bi))
		return NULL;
	keep = PyTuple_Pack(2, mw, info);
	if (!keep)
		return NULL;
	Py_XSETREF(self->bind, keep);
	self->wr.bind_mw.mw = ((struct pv_mw *)mw)->mw;
	/* a type 2 bind must give the window a new rkey */
	self->wr.bind_mw.rkey = ibv_inc_rkey(((struct pv_mw *)mw)->mw->rkey);
	self->wr.bind_mw.bind_info = bi;
	Py_RETURN_NONE;
}

#define SW_GETTER(name, expr)                                       \
	static PyObject *sendwr_get_##name(PyObject *obj, void *c)  \
	{                                                           \
		struct pv_send_wr *self = (struct pv_send_wr *)obj; \
		return PyLong_FromUnsignedLongLong(expr);           \
	}
SW_GETTER(rkey, self->wr.bind_mw.rkey)
SW_GETTER(rdma_remote_addr, self->wr.wr.rdma.remote_addr)
SW_GETTER(rdma_rkey, self->wr.wr.rdma.rkey)
SW_GETTER(atomic_remote_addr, self->wr.wr.atomic.remote_addr)
SW_GETTER(atomic_rkey, self->wr.wr.atomic.rkey)
SW_GETTER(compare_add, self->wr.wr.atomic.compare_add)
SW_GETTER(swap, self->wr.wr.atomic.swap)
SW_GETTER(remote_qpn, self->ah ? self->wr.wr.ud.remote_qpn : 0)
SW_GETTER(remote_qkey, self->ah ? self->wr.wr.ud.remote_qkey : 0)
SW_GETTER(remote_srqn, self->wr.qp_type.xrc.remote_srqn)

static const struct pv_field sendwr_fields[] = {
	PV_FIELD(struct pv_send_wr, wr.wr_id, "wr_id"),
	PV_FIELD(struct pv_send_wr, wr.send_flags, "send_flags"),
	PV_FIELD(struct pv_send_wr, wr.imm_data, "imm_data"), PV_FIELD_END
};

#define SW_RO(name, doc) { #name, sendwr_get_##name, NULL, doc, NULL }

static const PyGetSetDef sendwr_extra[] = {
	{ "opcode", sendwr_get_opcode, sendwr_set_opcode,
	  "The operation (IBV_WR_*).", NULL },
	PV_WR_GETSET(send_kind, "SendWR"),
	{ "ah", sendwr_get_ah, NULL, "The AH given to set_wr_ud(), or None.",
	  NULL },
	SW_RO(rkey, "The new rkey of a memory window bind (bind_mw.rkey)."),
	SW_RO(rdma_remote_addr, "Remote address of an RDMA operation."),
	SW_RO(rdma_rkey, "Remote key of an RDMA operation."),
	SW_RO(atomic_remote_addr, "Remote address of an atomic operation."),
	SW_RO(atomic_rkey, "Remote key of an atomic operation."),
	SW_RO(compare_add, "Compare (CMP_AND_SWP) or add (FETCH_AND_ADD) "
			   "operand."),
	SW_RO(swap, "Swap operand of an atomic compare and swap."),
	SW_RO(remote_qpn, "Remote QP number of a UD send (0 without an AH)."),
	SW_RO(remote_qkey, "Remote Q_Key of a UD send (0 without an AH)."),
	SW_RO(remote_srqn, "Remote XRC SRQ number."),
	{ NULL }
};

static PyMethodDef sendwr_methods[] = {
	{ "set_wr_ud", (PyCFunction)(void (*)(void))sendwr_set_wr_ud,
	  METH_FASTCALL | METH_KEYWORDS,
	  "set_wr_ud($self, ah, rqpn, rqkey)\n--\n\n"
	  "Address a UD send: the AH (held by the WR), the remote QP number "
	  "and\nQ_Key." },
	{ "set_wr_rdma", (PyCFunction)(void (*)(void))sendwr_set_wr_rdma,
	  METH_FASTCALL | METH_KEYWORDS,
	  "set_wr_rdma($self, rkey, addr)\n--\n\n"
	  "Remote key and address of an RDMA read or write." },
	{ "set_wr_atomic", (PyCFunction)(void (*)(void))sendwr_set_wr_atomic,
	  METH_FASTCALL | METH_KEYWORDS,
	  "set_wr_atomic($self, rkey, addr, compare_add, swap=0)\n--\n\n"
	  "Remote key, address and operands of an atomic operation." },
	{ "set_qp_type_xrc", sendwr_set_qp_type_xrc, METH_O,
	  "set_qp_type_xrc($self, remote_srqn, /)\n--\n\n"
	  "The remote XRC SRQ number that receives this send." },
	{ "set_bind_wr", (PyCFunction)(void (*)(void))sendwr_set_bind_wr,
	  METH_VARARGS | METH_KEYWORDS,
	  "set_bind_wr($self, mw, bind_info)\n--\n\n"
	  "Bind a memory window (not implemented yet)." },
	PV_WR_CM_METHODS,
	{ NULL }
};

PV_GC_TYPE_SPEC(
	sendwr, "pyverbs.wr.SendWR", struct pv_send_wr,
	"SendWR(wr_id=0, opcode=2, num_sge=0, "
	"imm_data=0, sg=None, send_flags=2, "
	"next_wr=None, *, remote_addr=None, rkey=None, ah=None, "
	"remote_qpn=None, remote_qkey=None, compare_add=None, "
	"swap=None)\n--\n\n"
	"Defaults: opcode=IBV_WR_SEND, send_flags=IBV_SEND_SIGNALED.\n"
	"A send work request (struct ibv_send_wr).  sg: a list of "
	"SGEs, copied in;\nnum_sge of them are used (all of them "
	"when num_sge is not given).  A WR\nneeds at least one "
	"SGE "
	"unless its opcode is LOCAL_INV, BIND_MW or\n"
	"SEND_WITH_INV, or it is a SEND / SEND_WITH_IMM given no "
	"sg at all\n(a zero-length send, sg_list NULL).  imm_data is stored as given (network "
	"order is the\ncaller's business, as upstream).\n\n"
	"Keyword shortcuts (pyverbs-c): ah=, remote_qpn=, "
	"remote_qkey= do\nset_wr_ud(); compare_add=, swap= with "
	"remote_addr=, rkey= do\nset_wr_atomic(); remote_addr=, "
	"rkey= alone do set_wr_rdma().",
	{ Py_tp_new, sendwr_tp_new }, { Py_tp_init, sendwr_init },
	{ Py_tp_dealloc, sendwr_dealloc }, { Py_tp_traverse, sendwr_traverse },
	{ Py_tp_clear, sendwr_clear }, { Py_tp_methods, sendwr_methods },
	{ Py_tp_getset, NULL }, );

static struct pv_args_sig *const send_sigs[] = { &send_sig, &ud_sig, &rdma_sig,
						 &atomic_sig, NULL };

static const struct pv_wr_type send_type = {
	.spec = &sendwr_spec,
	.fields = sendwr_fields,
	.extra = sendwr_extra,
	.slot = &pv.SendWR,
	.vc = sendwr_vectorcall,
	.sigs = send_sigs,
};

int pv_send_wr_init_types(PyObject *m)
{
	return pv_wr_add_type(m, &send_type);
}
