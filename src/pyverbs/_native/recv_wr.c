/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * What is posted to a receive queue: RecvWR (struct ibv_recv_wr), and
 * OpsWr (struct ibv_ops_wr, pyverbs.srq), the tag-matching operations
 * posted to an SRQ.  Their SGEs and next_wr chain are held by the shared
 * implementation in wr.c; the types register themselves with
 * pv_wr_add_type() (pv_recv_wr_init_types()).
 */
#include "wr.h" /* first: Python.h sets _GNU_SOURCE */
#include "wr_impl.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "state.h"

/* ------------------------------------------------------------------ */
/* RecvWR                                                              */
/* ------------------------------------------------------------------ */

PV_ARGS_SIG(recv_sig, "RecvWR", 4, 0, "wr_id", "num_sge", "sg", "next_wr");

enum { RV_WR_ID, RV_NUM_SGE, RV_SG, RV_NEXT };

static int recvwr_clear(PyObject *self)
{
	struct pv_recv_wr *wr = (struct pv_recv_wr *)self;

	wr->wr.next = NULL;
	Py_CLEAR(wr->next_wr);
	return 0;
}

static const struct pv_wr_kind recv_kind =
	PV_WR_KIND(struct pv_recv_wr, "RecvWR", &pv.RecvWR, recvwr_clear);

/* fresh: self was just allocated, so no WR can point at it (no cycle). */
static int recvwr_fill(struct pv_recv_wr *self, PyObject **v, int fresh)
{
	PyObject *next = v[RV_NEXT], *const * items, *one[1];
	uint64_t wr_id = 0;
	int num_sge, none;

	if (pv_args_u64(v[RV_WR_ID], UINT64_MAX, &wr_id, "wr_id") ||
	    pv_wr_num_sge(v[RV_NUM_SGE], &num_sge))
		return -1;
	if (next == Py_None)
		next = NULL;
	if (next && (!fresh || !PyObject_TypeCheck(next, pv.RecvWR)) &&
	    pv_wr_check_next((PyObject *)self, &recv_kind, next))
		return -1;
	/* no Python code runs from here on */
	if (pv_wr_sg_collect("RecvWR", v[RV_SG], &num_sge, &items, &none, one))
		return -1;
	/* no SGE is fine (rdma-core 57's pyverbs): a receive of no data */
	if (none && num_sge > 0) {
		pv_raise_user("RecvWR(): num_sge is %d but no sg was given",
			      num_sge);
		return -1;
	}
	if (pv_wr_sg_store(&self->wr.sg_list, self->sge_inline, items, num_sge))
		return -1;
	self->wr.num_sge = num_sge;
	self->sg_cap = num_sge;
	self->wr.wr_id = wr_id;
	pv_wr_link((PyObject *)self, &recv_kind, next);
	return 0;
}

static PyObject *recvwr_vectorcall(PyObject *type, PyObject *const *args,
				   size_t nargsf, PyObject *kwnames)
{
	PyObject *v[4], *self;

	if (pv_args_parse_vc(&recv_sig, args, PyVectorcall_NARGS(nargsf),
			     kwnames, v))
		return NULL;
	self = pv_wr_alloc((PyTypeObject *)type, pv.RecvWR,
			   sizeof(struct pv_recv_wr));
	if (!self)
		return NULL;
	if (recvwr_fill((struct pv_recv_wr *)self, v, 1)) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

static PyObject *recvwr_tp_new(PyTypeObject *tp, PyObject *a, PyObject *k)
{
	return pv_wr_alloc(tp, pv.RecvWR, sizeof(struct pv_recv_wr));
}

static int recvwr_init(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *v[4];

	if (pv_args_parse_tuple(&recv_sig, args, kw, v))
		return -1;
	return recvwr_fill((struct pv_recv_wr *)self, v, 0);
}

static int recvwr_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self));
	Py_VISIT(((struct pv_recv_wr *)self)->next_wr);
	return 0;
}

static void recvwr_dealloc(PyObject *self)
{
	pv_wr_dealloc(self, &recv_kind, recvwr_dealloc);
}

int pv_recv_wr_copy(struct pv_recv_wr *dst, const struct pv_recv_wr *src)
{
	return pv_wr_copy((PyObject *)dst, (PyObject *)src, &recv_kind);
}

static const struct pv_field recvwr_fields[] = {
	PV_FIELD(struct pv_recv_wr, wr.wr_id, "wr_id"), PV_FIELD_END
};

static const PyGetSetDef recvwr_extra[] = { PV_WR_GETSET(recv_kind, "RecvWR"),
					    { NULL } };

static PyMethodDef recvwr_methods[] = { PV_WR_CM_METHODS, { NULL } };

PV_GC_TYPE_SPEC(recvwr, "pyverbs.wr.RecvWR", struct pv_recv_wr,
		"RecvWR(wr_id=0, num_sge=0, sg=None, next_wr=None)\n--\n"
		"\n"
		"A receive work request (struct ibv_recv_wr).  sg: a list "
		"of SGEs, copied\nin; num_sge of them are used (all of "
		"them when num_sge is not given).\nnext_wr chains WRs "
		"for one post_recv().",
		{ Py_tp_new, recvwr_tp_new }, { Py_tp_init, recvwr_init },
		{ Py_tp_dealloc, recvwr_dealloc },
		{ Py_tp_traverse, recvwr_traverse },
		{ Py_tp_clear, recvwr_clear },
		{ Py_tp_methods, recvwr_methods }, { Py_tp_getset, NULL }, );

static struct pv_args_sig *const recv_sigs[] = { &recv_sig, NULL };

static const struct pv_wr_type recv_type = {
	.spec = &recvwr_spec,
	.fields = recvwr_fields,
	.extra = recvwr_extra,
	.slot = &pv.RecvWR,
	.vc = recvwr_vectorcall,
	.sigs = recv_sigs,
};

/* ------------------------------------------------------------------ */
/* OpsWr (pyverbs.srq): a tag-matching operation                       */
/* ------------------------------------------------------------------ */

PV_ARGS_SIG(ops_sig, "OpsWr", 10, 0, "wr_id", "opcode", "flags", "next_wr",
	    "unexpected_cnt", "recv_wr_id", "num_sge", "tag", "mask",
	    "sg_list");

enum {
	OP_WR_ID,
	OP_OPCODE,
	OP_FLAGS,
	OP_NEXT,
	OP_UNEXP,
	OP_RECV_WR_ID,
	OP_NUM_SGE,
	OP_TAG,
	OP_MASK,
	OP_SG
};

static int opswr_clear(PyObject *self)
{
	struct pv_ops_wr *wr = (struct pv_ops_wr *)self;

	wr->wr.next = NULL;
	Py_CLEAR(wr->next_wr);
	return 0;
}

static const struct pv_wr_kind ops_kind =
	PV_WR_KIND_SG(struct pv_ops_wr, "OpsWr", &pv.OpsWr, opswr_clear,
		      wr.tm.add.);

static PyObject *opswr_tp_new(PyTypeObject *tp, PyObject *a, PyObject *k)
{
	return pv_wr_alloc(tp, pv.OpsWr, sizeof(struct pv_ops_wr));
}

/*
 * Upstream's defaults: TAG_ADD, signaled, no SGE.  The integers are
 * converted before anything changes, so that a failed __init__ leaves the
 * WR as it was.
 */
static int opswr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	struct pv_ops_wr *self = (struct pv_ops_wr *)obj;
	PyObject *v[10], *next, *const *items, *one[1];
	uint64_t wr_id = 0, recv_wr_id = 0, tag = 0, mask = 0;
	uint32_t opcode = IBV_WR_TAG_ADD, unexp = 0;
	int64_t flags = IBV_OPS_SIGNALED;
	int num_sge, none;

	if (pv_args_parse_tuple(&ops_sig, args, kw, v) ||
	    pv_args_u64(v[OP_WR_ID], UINT64_MAX, &wr_id, "wr_id") ||
	    pv_args_u32(v[OP_OPCODE], &opcode, "opcode") ||
	    (v[OP_FLAGS] &&
	     pv_to_i64(v[OP_FLAGS], INT_MIN, INT_MAX, &flags, "flags")) ||
	    pv_args_u32(v[OP_UNEXP], &unexp, "unexpected_cnt") ||
	    pv_args_u64(v[OP_RECV_WR_ID], UINT64_MAX, &recv_wr_id,
			"recv_wr_id") ||
	    pv_args_u64(v[OP_TAG], UINT64_MAX, &tag, "tag") ||
	    pv_args_u64(v[OP_MASK], UINT64_MAX, &mask, "mask") ||
	    pv_wr_num_sge(v[OP_NUM_SGE] == Py_None ? NULL : v[OP_NUM_SGE],
			  &num_sge))
		return -1;
	next = v[OP_NEXT] == Py_None ? NULL : v[OP_NEXT];
	if (next && pv_wr_check_next(obj, &ops_kind, next))
		return -1;
	/* no Python code runs from here on */
	if (pv_wr_sg_collect("OpsWr", v[OP_SG], &num_sge, &items, &none, one))
		return -1;
	if (none && num_sge) {
		pv_raise_user("OpsWr(): num_sge is %d but there is no sg_list",
			      num_sge);
		return -1;
	}
	if (pv_wr_sg_store(&self->wr.tm.add.sg_list, self->sge_inline, items,
			   num_sge))
		return -1;
	self->wr.tm.add.num_sge = num_sge;
	self->sg_cap = num_sge;
	self->wr.wr_id = wr_id;
	self->wr.opcode = opcode;
	self->wr.flags = (int)flags;
	self->wr.tm.unexpected_cnt = unexp;
	self->wr.tm.handle = 0;
	self->wr.tm.add.recv_wr_id = recv_wr_id;
	self->wr.tm.add.tag = tag;
	self->wr.tm.add.mask = mask;
	pv_wr_link(obj, &ops_kind, next);
	return 0;
}

static int opswr_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(Py_TYPE(self));
	Py_VISIT(((struct pv_ops_wr *)self)->next_wr);
	return 0;
}

static void opswr_dealloc(PyObject *self)
{
	pv_wr_dealloc(self, &ops_kind, opswr_dealloc);
}

int pv_ops_wr_copy(struct pv_ops_wr *dst, const struct pv_ops_wr *src)
{
	return pv_wr_copy((PyObject *)dst, (PyObject *)src, &ops_kind);
}

#define OPSWR struct pv_ops_wr
static const struct pv_field opswr_fields[] = {
	PV_FIELD(OPSWR, wr.wr_id, "wr_id"),
	PV_FIELD(OPSWR, wr.opcode, "opcode"),
	PV_FIELD(OPSWR, wr.flags, "flags"),
	PV_FIELD(OPSWR, wr.tm.unexpected_cnt, "unexpected_cnt"),
	PV_FIELD(OPSWR, wr.tm.handle, "handle"),
	PV_FIELD(OPSWR, wr.tm.add.recv_wr_id, "recv_wr_id"),
	PV_FIELD(OPSWR, wr.tm.add.tag, "tag"),
	PV_FIELD(OPSWR, wr.tm.add.mask, "mask"),
	PV_FIELD_END
};

static const PyGetSetDef opswr_extra[] = { PV_WR_GETSET(ops_kind, "OpsWr"),
					   { NULL } };

static PyMethodDef opswr_methods[] = { PV_WR_CM_METHODS, { NULL } };

PV_GC_TYPE_SPEC(opswr, "pyverbs.srq.OpsWr", struct pv_ops_wr,
		"OpsWr(wr_id=0, opcode=0, "
		"flags=1, next_wr=None, unexpected_cnt=0, "
		"recv_wr_id=0, num_sge=None, tag=0, mask=0, sg_list=None)"
		"\n--\n\n"
		"Defaults: opcode=IBV_WR_TAG_ADD, flags=IBV_OPS_SIGNALED.\n"
		"A tag-matching operation for SRQ.post_srq_ops() (struct "
		"ibv_ops_wr).  sg_list: the SGEs of a TAG_ADD, copied in "
		"(num_sge of them, all by default).  handle is what the "
		"provider returns for an added tag, to delete it with.",
		{ Py_tp_new, opswr_tp_new }, { Py_tp_init, opswr_init },
		{ Py_tp_dealloc, opswr_dealloc },
		{ Py_tp_traverse, opswr_traverse },
		{ Py_tp_clear, opswr_clear }, { Py_tp_methods, opswr_methods },
		{ Py_tp_getset, NULL }, );

static struct pv_args_sig *const ops_sigs[] = { &ops_sig, NULL };

/* no vectorcall constructor: tp_new and tp_init build an OpsWr */
static const struct pv_wr_type ops_type = {
	.spec = &opswr_spec,
	.fields = opswr_fields,
	.extra = opswr_extra,
	.slot = &pv.OpsWr,
	.sigs = ops_sigs,
};

int pv_recv_wr_init_types(PyObject *m)
{
	return pv_wr_add_type(m, &recv_type) || pv_wr_add_type(m, &ops_type);
}
