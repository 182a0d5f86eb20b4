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
