/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Part of the efa recording double efa_double.c (which includes it at its
 * end: one translation unit): what libefa gained from rdma-core 46 to 65
 * (UPSTREAM65.md 1.8), each piece built when the headers have it
 * (PVFAKE_RDMA, the headers' rdma-core release, from tests/doubles.py):
 *   52  efadv_qp_init_attr.flags, logged; an EfaCQ made with
 *       EFADV_WC_EX_WITH_IS_UNSOLICITED gets wc_is_unsolicited (as libefa:
 *       NULL otherwise), which reads the current completion: a wr_id with
 *       bit 1 set is unsolicited
 *   50  efadv_query_mr on an MR of a faked device: fixed interconnect ids
 *       (RECV and RDMA_READ valid)
 *   55  efadv_qp_init_attr.sl, 64 .wr_flags, logged
 *   64  efadv_qp_from_ibv_qp_ex hands out a struct efadv_qp per SRD QP the
 *       double made, whose wr_set_processing_hints is set only with
 *       EFADV_WR_EX_WITH_PROCESSING_HINTS and records its hints (a QP the
 *       double did not make aborts: libefa's is a container_of)
 *   65  efadv_create_comp_cntr makes a counter of the double's, whose
 *       counts libibverbs' counter calls (interposed for its counters
 *       only) set, add to and read, in the external memory given
 */

static void log_qp_efa65(const struct efadv_qp_init_attr *efa)
{
#if PVFAKE_RDMA >= 64
	plog(" efa.flags=0x%x efa.sl=%u efa.wr_flags=0x%llx", efa->flags,
	     efa->sl, (unsigned long long)efa->wr_flags);
#elif PVFAKE_RDMA >= 55
	plog(" efa.flags=0x%x efa.sl=%u", efa->flags, efa->sl);
#elif PVFAKE_RDMA >= 52
	plog(" efa.flags=0x%x", efa->flags);
#else
	(void)efa;
#endif
}

#if PVFAKE_RDMA >= 64
struct fqp_dv {
	struct efadv_qp dv;	/* handed out */
	struct ibv_qp *qp;
};
static struct fqp_dv *qp_dvs[MAX_OBJS];
static int nqp_dv;

static void rec_processing_hints(struct efadv_qp *dv, uint32_t hints)
{
	struct fqp_dv *f = (struct fqp_dv *)dv;

	plog("wr_set_processing_hints qp#%d hints=0x%x", qp_id(f->qp), hints);
}
#endif

static void qp_dv_new(struct ibv_qp *qp, const struct efadv_qp_init_attr *efa)
{
#if PVFAKE_RDMA >= 64
	struct fqp_dv *f = calloc(1, sizeof(*f));

	if (!f || nqp_dv >= MAX_OBJS)
		abort();
	f->qp = qp;
	if (efa->wr_flags & EFADV_WR_EX_WITH_PROCESSING_HINTS)
		f->dv.wr_set_processing_hints = rec_processing_hints;
	qp_dvs[nqp_dv++] = f;
#else
	(void)qp;
	(void)efa;
#endif
}

#if PVFAKE_RDMA >= 64
struct efadv_qp *efadv_qp_from_ibv_qp_ex(struct ibv_qp_ex *qpx)
{
	for (int i = 0; i < nqp_dv; i++)
		if (qp_dvs[i]->qp == &qpx->qp_base) {
			plog("efadv_qp_from_ibv_qp_ex qp#%d",
			     qp_id(qp_dvs[i]->qp));
			return &qp_dvs[i]->dv;
		}
	plog("FATAL efadv_qp_from_ibv_qp_ex on a QP efadv_create_qp_ex did "
	     "not make");
	abort();
}
#endif

#if PVFAKE_RDMA >= 52
static bool fake_is_unsolicited(struct efadv_cq *dv)
{
	struct fcq *f = (struct fcq *)dv;
	uint64_t wr_id = f->cq->wr_id;

	plog("wc_is_unsolicited cq#%d wr_id=%llu", f->id,
	     (unsigned long long)wr_id);
	return (wr_id & 2) != 0;
}
#endif

static void cq_efa65(struct fcq *f, const struct efadv_cq_init_attr *efa)
{
#if PVFAKE_RDMA >= 52
	if (efa->wc_flags & EFADV_WC_EX_WITH_IS_UNSOLICITED)
		f->dv.wc_is_unsolicited = fake_is_unsolicited;
#else
	(void)f;
	(void)efa;
#endif
}

#if PVFAKE_RDMA >= 50
int efadv_query_mr(struct ibv_mr *mr, struct efadv_mr_attr *attr,
		   uint32_t inlen)
{
	if (!fake_dev(mr->context->device))
		return REAL(efadv_query_mr, "EFA_1.3")(mr, attr, inlen);
	plog("efadv_query_mr inlen=%u", inlen);
	if (inlen < sizeof(*attr))
		return EINVAL;
	memset(attr, 0, inlen);
	attr->ic_id_validity = EFADV_MR_ATTR_VALIDITY_RECV_IC_ID |
			       EFADV_MR_ATTR_VALIDITY_RDMA_READ_IC_ID;
	attr->recv_ic_id = 1;
	attr->rdma_read_ic_id = 2;
	attr->rdma_recv_ic_id = 3;
	return 0;
}
#endif

/*
 * 65: completion counters.  efadv_create_comp_cntr on a faked device makes
 * a counter of the double's (checked as libefa checks inlen), whose counts
 * live in the external memory given (EFADV_MEMORY_LOCATION_VA: zeroed at
 * creation, as the device would) or in the counter; libibverbs' calls on
 * it (set, inc, read, their _err forms, destroy) are the double's too,
 * logged; on any other counter they go to libibverbs.
 */
#if PVFAKE_RDMA >= 65
struct fcntr {
	struct ibv_comp_cntr cc; /* handed out */
	uint64_t own[2];	 /* completion and error counts, if not ext */
	uint64_t *count[2];
	int id;
};
static struct fcntr *cntrs[MAX_OBJS];
static int ncntr;

static struct fcntr *by_cntr(struct ibv_comp_cntr *cc)
{
	for (int i = 0; i < ncntr; i++)
		if (cntrs[i] && &cntrs[i]->cc == cc)
			return cntrs[i];
	return NULL;
}

/* Where one count lives: the external memory m if flagged, else own. */
static uint64_t *cntr_mem(const struct efadv_memory_location *m, int flagged,
			  uint64_t *own)
{
	if (!flagged)
		return own;
	if (m->type != EFADV_MEMORY_LOCATION_VA || !m->ptr)
		return NULL;
	return (uint64_t *)(void *)m->ptr;
}

struct ibv_comp_cntr *efadv_create_comp_cntr(
	struct ibv_context *ctx, struct ibv_comp_cntr_init_attr *attr,
	struct efadv_comp_cntr_init_attr *efa, uint32_t inlen)
{
	struct fcntr *f;
	int comp_ext, err_ext;

	if (!fake_dev(ctx->device))
		return REAL(efadv_create_comp_cntr, "EFA_1.7")(ctx, attr, efa,
							       inlen);
	comp_ext = !!(efa->flags & EFADV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM);
	err_ext = !!(efa->flags & EFADV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM);
	plog("efadv_create_comp_cntr comp_mask=0x%x type=%u flags=0x%x "
	     "efa.comp_mask=0x%llx efa.flags=0x%x comp_ext=%s err_ext=%s "
	     "inlen=%u", attr->comp_mask, attr->type, attr->flags,
	     (unsigned long long)efa->comp_mask, efa->flags,
	     comp_ext ? "va" : "none", err_ext ? "va" : "none", inlen);
	f = calloc(1, sizeof(*f));
	if (!f || ncntr >= MAX_OBJS)
		abort();
	f->count[0] = cntr_mem(&efa->comp_cntr_ext_mem, comp_ext, &f->own[0]);
	f->count[1] = cntr_mem(&efa->err_cntr_ext_mem, err_ext, &f->own[1]);
	if (!inlen_ok(efa, sizeof(*efa), inlen) || efa->comp_mask ||
	    !f->count[0] || !f->count[1]) {
		free(f);
		errno = EINVAL;
		return NULL;
	}
	*f->count[0] = *f->count[1] = 0;
	f->cc.context = ctx;
	f->id = ncntr + 1;
	cntrs[ncntr++] = f;
	plog(" create -> cntr#%d", f->id);
	return &f->cc;
}

int ibv_destroy_comp_cntr(struct ibv_comp_cntr *cc)
{
	struct fcntr *f = by_cntr(cc);

	if (!f)
		return REAL(ibv_destroy_comp_cntr, "IBVERBS_1.18")(cc);
	plog("ibv_destroy_comp_cntr cntr#%d -> 0", f->id);
	cntrs[f->id - 1] = NULL;
	free(f);
	return 0;
}

/* set (add 0) or add v to count which (0: completions, 1: errors) */
static int cntr_update(struct fcntr *f, const char *call, int which,
		       int add, uint64_t v)
{
	plog("%s cntr#%d %llu", call, f->id, (unsigned long long)v);
	*f->count[which] = add ? *f->count[which] + v : v;
	return 0;
}

static int cntr_read(struct fcntr *f, const char *call, int which,
		     uint64_t *v)
{
	*v = *f->count[which];
	plog("%s cntr#%d -> %llu", call, f->id, (unsigned long long)*v);
	return 0;
}

#define CNTR_UPDATE(name, which, add)                                   \
	int name(struct ibv_comp_cntr *cc, uint64_t v)                  \
	{                                                               \
		struct fcntr *f = by_cntr(cc);                          \
                                                                        \
		if (!f)                                                 \
			return REAL(name, "IBVERBS_1.18")(cc, v);       \
		return cntr_update(f, #name, which, add, v);            \
	}
#define CNTR_READ(name, which)                                          \
	int name(struct ibv_comp_cntr *cc, uint64_t *v)                 \
	{                                                               \
		struct fcntr *f = by_cntr(cc);                          \
                                                                        \
		if (!f)                                                 \
			return REAL(name, "IBVERBS_1.18")(cc, v);       \
		return cntr_read(f, #name, which, v);                   \
	}
CNTR_UPDATE(ibv_set_comp_cntr, 0, 0)
CNTR_UPDATE(ibv_set_err_comp_cntr, 1, 0)
CNTR_UPDATE(ibv_inc_comp_cntr, 0, 1)
CNTR_UPDATE(ibv_inc_err_comp_cntr, 1, 1)
CNTR_READ(ibv_read_comp_cntr, 0)
CNTR_READ(ibv_read_err_comp_cntr, 1)
#endif
