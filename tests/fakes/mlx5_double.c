/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A test-only recording double of the libmlx5 entry points that the mlx5
 * QP builders go through, loaded with LD_PRELOAD in the Soft-RoCE guest
 * (tests/test_mlx5_double.py builds and runs it; never installed).
 *
 * For the devices named in PVFAKE_MLX5_DEVICES (e.g. "rxe0") it stands in
 * for libmlx5: mlx5dv_is_supported() says yes, mlx5dv_open_device() opens
 * the real rxe device, mlx5dv_create_qp() creates a real rxe RC QP (a DC
 * QP too: IBV_QPT_DRIVER becomes RC underneath) and logs every field it was
 * given, mlx5dv_qp_ex_from_ibv_qp_ex() hands out a struct mlx5dv_qp_ex
 * whose builder pointers record their arguments, and mkeys are plain
 * records.  Everything else, and every other device, goes to the real
 * library (dlvsym with the exact version), so the error paths stay real.
 *
 * The log ($PVFAKE_LOG) names objects by kind and creation order (ctx#1,
 * qp#2, ah#1, mkey#1) so that two implementations of the same scenario
 * give the same lines.  What libmlx5 would install per QP (the builder
 * pointers) follows mlx5_qp_fill_wr_pfns() of rdma-core 44: a model of the
 * library, not of the hardware.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mlx5dv.h>

#define MAX_OBJS 64
#define PVFAKE_LIB "libmlx5.so.1"
#define PVFAKE_DEVICES "PVFAKE_MLX5_DEVICES"
#include "double_common.h"

/* ------------------------------------------------------ object tables */

static struct ibv_context *ctxs[MAX_OBJS];
static int nctx;

static int ctx_id(struct ibv_context *c)
{
	for (int i = 0; i < nctx; i++)
		if (ctxs[i] == c)
			return i + 1;
	return 0;
}

static struct ibv_ah *ahs[MAX_OBJS];
static int nah;

static int ah_id(struct ibv_ah *ah)
{
	for (int i = 0; i < nah; i++)
		if (ahs[i] == ah)
			return i + 1;
	return 0;
}

struct fmkey {
	struct mlx5dv_mkey mkey;	/* handed out */
	int id;
	int live;
};
static struct fmkey *mkeys[MAX_OBJS];
static int nmkey;

static struct fmkey *by_mkey(struct mlx5dv_mkey *m)
{
	for (int i = 0; i < nmkey; i++)
		if (&mkeys[i]->mkey == m)
			return mkeys[i];
	return NULL;
}

struct fqp {
	struct mlx5dv_qp_ex dv;		/* handed out, recording pointers */
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	int id;
	int dc;				/* a DC QP: modify is simulated */
	int in_batch;
	void (*wr_start)(struct ibv_qp_ex *qpx);
	int (*wr_complete)(struct ibv_qp_ex *qpx);
	void (*wr_abort)(struct ibv_qp_ex *qpx);
};
static struct fqp *qps[MAX_OBJS];
static int nqp;

static struct fqp *by_qp(struct ibv_qp *qp)
{
	for (int i = 0; i < nqp; i++)
		if (qps[i] && qps[i]->qp == qp)
			return qps[i];
	return NULL;
}

static struct fqp *by_qpx(struct ibv_qp_ex *qpx)
{
	for (int i = 0; i < nqp; i++)
		if (qps[i] && qps[i]->qpx == qpx)
			return qps[i];
	return NULL;
}

static struct fqp *by_dv(struct mlx5dv_qp_ex *dv)
{
	struct fqp *f = (struct fqp *)dv;	/* dv is the first member */

	for (int i = 0; i < nqp; i++)
		if (qps[i] == f)
			return f;
	plog("FATAL builder called on a mlx5dv_qp_ex the double did not make");
	abort();
}

/* The id of an mkey the double made; a foreign or destroyed one aborts. */
static int mkey_id(struct mlx5dv_mkey *m, const char *who)
{
	struct fmkey *k = by_mkey(m);

	if (!k || !k->live) {
		plog("FATAL %s with an mkey that is not live", who);
		abort();
	}
	return k->id;
}

/* ------------------------------------------------------ the builders */

static void rec_set_dc_addr(struct mlx5dv_qp_ex *mqp, struct ibv_ah *ah,
			    uint32_t remote_dctn, uint64_t remote_dc_key)
{
	struct fqp *f = by_dv(mqp);

	plog("wr_set_dc_addr qp#%d in_batch=%d ah#%d remote_dctn=0x%x "
	     "remote_dc_key=0x%llx", f->id, f->in_batch, ah_id(ah),
	     remote_dctn, (unsigned long long)remote_dc_key);
}

static void rec_set_dc_addr_stream(struct mlx5dv_qp_ex *mqp,
				   struct ibv_ah *ah, uint32_t remote_dctn,
				   uint64_t remote_dc_key, uint16_t stream_id)
{
	struct fqp *f = by_dv(mqp);

	plog("wr_set_dc_addr_stream qp#%d in_batch=%d ah#%d remote_dctn=0x%x "
	     "remote_dc_key=0x%llx stream_id=%u", f->id, f->in_batch,
	     ah_id(ah), remote_dctn, (unsigned long long)remote_dc_key,
	     stream_id);
}

static void log_interleaved(const char *what, struct fqp *f, int mk,
			    uint32_t access, uint32_t repeat, uint16_t n,
			    const struct mlx5dv_mr_interleaved *d)
{
	char buf[4096];
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n && off < sizeof(buf) - 100; i++)
		off += snprintf(buf + off, sizeof(buf) - off,
				" {addr=0x%llx,bytes_count=%u,bytes_skip=%u,"
				"lkey=0x%x}", (unsigned long long)d[i].addr,
				d[i].bytes_count, d[i].bytes_skip, d[i].lkey);
	if (mk)
		plog("%s qp#%d in_batch=%d wr_flags=0x%x mkey#%d "
		     "access_flags=0x%x repeat_count=%u n=%u [%s ]", what,
		     f->id, f->in_batch, f->qpx->wr_flags, mk, access, repeat,
		     n, buf);
	else
		plog("%s qp#%d in_batch=%d repeat_count=%u n=%u [%s ]", what,
		     f->id, f->in_batch, repeat, n, buf);
}

static void log_sges(const char *what, struct fqp *f, int mk,
		     uint32_t access, uint16_t n, const struct ibv_sge *s)
{
	char buf[4096];
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n && off < sizeof(buf) - 80; i++)
		off += snprintf(buf + off, sizeof(buf) - off,
				" {addr=0x%llx,length=%u,lkey=0x%x}",
				(unsigned long long)s[i].addr, s[i].length,
				s[i].lkey);
	if (mk)
		plog("%s qp#%d in_batch=%d wr_flags=0x%x mkey#%d "
		     "access_flags=0x%x n=%u [%s ]", what, f->id, f->in_batch,
		     f->qpx->wr_flags, mk, access, n, buf);
	else
		plog("%s qp#%d in_batch=%d n=%u [%s ]", what, f->id,
		     f->in_batch, n, buf);
}

static void rec_mr_interleaved(struct mlx5dv_qp_ex *mqp,
			       struct mlx5dv_mkey *mkey, uint32_t access,
			       uint32_t repeat, uint16_t n,
			       struct mlx5dv_mr_interleaved *data)
{
	struct fqp *f = by_dv(mqp);

	log_interleaved("wr_mr_interleaved", f,
			mkey_id(mkey, "wr_mr_interleaved"), access, repeat, n,
			data);
}

static void rec_mr_list(struct mlx5dv_qp_ex *mqp, struct mlx5dv_mkey *mkey,
			uint32_t access, uint16_t n, struct ibv_sge *sge)
{
	struct fqp *f = by_dv(mqp);

	log_sges("wr_mr_list", f, mkey_id(mkey, "wr_mr_list"), access, n,
		 sge);
}

static void rec_mkey_configure(struct mlx5dv_qp_ex *mqp,
			       struct mlx5dv_mkey *mkey, uint8_t num_setters,
			       struct mlx5dv_mkey_conf_attr *attr)
{
	struct fqp *f = by_dv(mqp);

	plog("wr_mkey_configure qp#%d in_batch=%d wr_flags=0x%x mkey#%d "
	     "num_setters=%u conf_flags=0x%x comp_mask=0x%llx", f->id,
	     f->in_batch, f->qpx->wr_flags,
	     mkey_id(mkey, "wr_mkey_configure"), num_setters,
	     attr ? attr->conf_flags : 0,
	     attr ? (unsigned long long)attr->comp_mask : 0ULL);
}

static void rec_set_mkey_access_flags(struct mlx5dv_qp_ex *mqp,
				      uint32_t access)
{
	struct fqp *f = by_dv(mqp);

	plog("wr_set_mkey_access_flags qp#%d in_batch=%d access_flags=0x%x",
	     f->id, f->in_batch, access);
}

static void rec_set_mkey_layout_list(struct mlx5dv_qp_ex *mqp, uint16_t n,
				     const struct ibv_sge *sge)
{
	log_sges("wr_set_mkey_layout_list", by_dv(mqp), 0, 0, n, sge);
}

static void rec_set_mkey_layout_interleaved(
	struct mlx5dv_qp_ex *mqp, uint32_t repeat, uint16_t n,
	const struct mlx5dv_mr_interleaved *data)
{
	log_interleaved("wr_set_mkey_layout_interleaved", by_dv(mqp), 0, 0,
			repeat, n, data);
}

static void rec_set_mkey_sig_block(struct mlx5dv_qp_ex *mqp,
				   const struct mlx5dv_sig_block_attr *a)
{
	struct fqp *f = by_dv(mqp);

	plog("wr_set_mkey_sig_block qp#%d in_batch=%d mem=%s wire=%s "
	     "flags=0x%x check_mask=0x%x copy_mask=0x%x", f->id, f->in_batch,
	     a->mem ? "set" : "NULL", a->wire ? "set" : "NULL", a->flags,
	     a->check_mask, a->copy_mask);
}

static void rec_raw_wqe(struct mlx5dv_qp_ex *mqp, const void *wqe)
{
	struct fqp *f = by_dv(mqp);
	const unsigned char *b = wqe;

	plog("wr_raw_wqe qp#%d in_batch=%d first16=%02x%02x%02x%02x%02x%02x"
	     "%02x%02x%02x%02x%02x%02x%02x%02x%02x%02x", f->id, f->in_batch,
	     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
	     b[10], b[11], b[12], b[13], b[14], b[15]);
}

static void rec_memcpy(struct mlx5dv_qp_ex *mqp, uint32_t dest_lkey,
		       uint64_t dest_addr, uint32_t src_lkey,
		       uint64_t src_addr, size_t length)
{
	struct fqp *f = by_dv(mqp);

	plog("wr_memcpy qp#%d in_batch=%d dest_lkey=0x%x dest_addr=0x%llx "
	     "src_lkey=0x%x src_addr=0x%llx length=%zu", f->id, f->in_batch,
	     dest_lkey, (unsigned long long)dest_addr, src_lkey,
	     (unsigned long long)src_addr, length);
}

static void rec_set_mkey_crypto(struct mlx5dv_qp_ex *mqp,
				const struct mlx5dv_crypto_attr *a)
{
	struct fqp *f = by_dv(mqp);

	plog("wr_set_mkey_crypto qp#%d in_batch=%d crypto_standard=%d "
	     "encrypt_on_tx=%d data_unit_size=%d", f->id, f->in_batch,
	     a->crypto_standard, a->encrypt_on_tx, a->data_unit_size);
}

/* rxe's wr_start/complete/abort, wrapped to log the batch boundaries */
static void wrap_start(struct ibv_qp_ex *qpx)
{
	struct fqp *f = by_qpx(qpx);

	plog("wr_start qp#%d", f->id);
	f->in_batch = 1;
	f->wr_start(qpx);
}

static int wrap_complete(struct ibv_qp_ex *qpx)
{
	struct fqp *f = by_qpx(qpx);
	int rc = f->wr_complete(qpx);

	plog("wr_complete qp#%d -> %d", f->id, rc);
	f->in_batch = 0;
	return rc;
}

static void wrap_abort(struct ibv_qp_ex *qpx)
{
	struct fqp *f = by_qpx(qpx);

	plog("wr_abort qp#%d", f->id);
	f->in_batch = 0;
	f->wr_abort(qpx);
}

/* -------------------------------------------------- the entry points */

bool mlx5dv_is_supported(struct ibv_device *d)
{
	if (fake_dev(d)) {
		plog("mlx5dv_is_supported dev=%s -> 1", d->name);
		return true;
	}
	return REAL(mlx5dv_is_supported, "MLX5_1.8")(d);
}

struct ibv_context *mlx5dv_open_device(struct ibv_device *d,
				       struct mlx5dv_context_attr *a)
{
	struct ibv_context *c;

	if (!fake_dev(d))
		return REAL(mlx5dv_open_device, "MLX5_1.7")(d, a);
	c = ibv_open_device(d);
	if (c && nctx < MAX_OBJS)
		ctxs[nctx++] = c;
	plog("mlx5dv_open_device dev=%s attr.flags=0x%x attr.comp_mask=0x%llx"
	     " -> ctx#%d", d->name, a ? a->flags : 0,
	     a ? (unsigned long long)a->comp_mask : 0ULL, ctx_id(c));
	return c;
}

static void install_builders(struct fqp *f, uint32_t qp_type, int dc_type,
			     uint64_t mlx5_ops)
{
	if (mlx5_ops & MLX5DV_QP_EX_WITH_MR_INTERLEAVED)
		f->dv.wr_mr_interleaved = rec_mr_interleaved;
	if (mlx5_ops & MLX5DV_QP_EX_WITH_MR_LIST)
		f->dv.wr_mr_list = rec_mr_list;
	if (mlx5_ops & MLX5DV_QP_EX_WITH_MKEY_CONFIGURE) {
		f->dv.wr_mkey_configure = rec_mkey_configure;
		f->dv.wr_set_mkey_access_flags = rec_set_mkey_access_flags;
		f->dv.wr_set_mkey_layout_list = rec_set_mkey_layout_list;
		f->dv.wr_set_mkey_layout_interleaved =
			rec_set_mkey_layout_interleaved;
		f->dv.wr_set_mkey_sig_block = rec_set_mkey_sig_block;
		f->dv.wr_set_mkey_crypto = rec_set_mkey_crypto;
	}
	if (mlx5_ops & MLX5DV_QP_EX_WITH_RAW_WQE)
		f->dv.wr_raw_wqe = rec_raw_wqe;
	if (mlx5_ops & MLX5DV_QP_EX_WITH_MEMCPY)
		f->dv.wr_memcpy = rec_memcpy;
	if (qp_type == IBV_QPT_DRIVER && dc_type == MLX5DV_DCTYPE_DCI) {
		f->dv.wr_set_dc_addr = rec_set_dc_addr;
		f->dv.wr_set_dc_addr_stream = rec_set_dc_addr_stream;
	}
}

struct ibv_qp *mlx5dv_create_qp(struct ibv_context *c,
				struct ibv_qp_init_attr_ex *a,
				struct mlx5dv_qp_init_attr *dv)
{
	struct ibv_qp_init_attr_ex copy;
	const char *fail = getenv("PVFAKE_FAIL_CREATE_QP");
	struct fqp *f;
	int dc_type = 0;

	if (!ctx_id(c))
		return REAL(mlx5dv_create_qp, "MLX5_1.3")(c, a, dv);
	if (dv && (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC))
		dc_type = dv->dc_init_attr.dc_type;
	plog("mlx5dv_create_qp ctx#%d qp_type=%d comp_mask=0x%x "
	     "send_ops_flags=0x%llx cap={%u,%u,%u,%u,%u} sq_sig_all=%d "
	     "pd=%s scq=%s rcq=%s srq=%s dv=%s", ctx_id(c), a->qp_type,
	     a->comp_mask, (unsigned long long)a->send_ops_flags,
	     a->cap.max_send_wr, a->cap.max_recv_wr, a->cap.max_send_sge,
	     a->cap.max_recv_sge, a->cap.max_inline_data, a->sq_sig_all,
	     a->pd ? "set" : "NULL", a->send_cq ? "set" : "NULL",
	     a->recv_cq ? "set" : "NULL", a->srq ? "set" : "NULL",
	     dv ? "set" : "NULL");
	if (dv)
		plog("  dv.comp_mask=0x%llx dv.create_flags=0x%x dv.dc_type=%d "
		     "dv.dct_access_key=0x%llx dv.send_ops_flags=0x%llx",
		     (unsigned long long)dv->comp_mask, dv->create_flags,
		     dv->dc_init_attr.dc_type,
		     (unsigned long long)dv->dc_init_attr.dct_access_key,
		     (unsigned long long)dv->send_ops_flags);
	if (fail) {
		errno = atoi(fail);
		return NULL;
	}
	copy = *a;
	if (copy.qp_type == IBV_QPT_DRIVER) {	/* DC over an RC QP */
		copy.qp_type = IBV_QPT_RC;
		if (!copy.recv_cq)
			copy.recv_cq = copy.send_cq;
	}
	f = calloc(1, sizeof(*f));
	if (!f || nqp >= MAX_OBJS)
		abort();
	f->qp = ibv_create_qp_ex(c, &copy);
	if (!f->qp) {
		int err = errno;

		plog("  (rxe refused the QP underneath: errno %d)", err);
		free(f);
		errno = err;
		return NULL;
	}
	a->cap = copy.cap;
	f->id = nqp + 1;
	f->dc = a->qp_type == IBV_QPT_DRIVER;
	qps[nqp++] = f;
	if (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		f->qpx = ibv_qp_to_qp_ex(f->qp);
		f->wr_start = f->qpx->wr_start;
		f->wr_complete = f->qpx->wr_complete;
		f->wr_abort = f->qpx->wr_abort;
		f->qpx->wr_start = wrap_start;
		f->qpx->wr_complete = wrap_complete;
		f->qpx->wr_abort = wrap_abort;
	}
	install_builders(f, a->qp_type, dc_type,
			 dv && (dv->comp_mask &
				MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS) ?
			 dv->send_ops_flags : 0);
	plog("  -> qp#%d", f->id);
	return f->qp;
}

struct mlx5dv_qp_ex *mlx5dv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qpx)
{
	struct fqp *f = qpx ? by_qpx(qpx) : NULL;

	if (!f) {
		plog("FATAL mlx5dv_qp_ex_from_ibv_qp_ex(%s) on a QP the double "
		     "did not make", qpx ? "qpx" : "NULL");
		abort();
	}
	plog("mlx5dv_qp_ex_from_ibv_qp_ex qp#%d", f->id);
	return &f->dv;
}

int mlx5dv_qp_cancel_posted_send_wrs(struct mlx5dv_qp_ex *dv_qp,
				     uint64_t wr_id)
{
	struct fqp *f = by_dv(dv_qp);

	plog("mlx5dv_qp_cancel_posted_send_wrs qp#%d wr_id=0x%llx -> 0",
	     f->id, (unsigned long long)wr_id);
	return 0;
}

struct mlx5dv_mkey *mlx5dv_create_mkey(struct mlx5dv_mkey_init_attr *a)
{
	struct fmkey *k;

	if (!a->pd || !ctx_id(a->pd->context))
		return REAL(mlx5dv_create_mkey, "MLX5_1.10")(a);
	plog("mlx5dv_create_mkey ctx#%d create_flags=0x%x max_entries=%u",
	     ctx_id(a->pd->context), a->create_flags, a->max_entries);
	k = calloc(1, sizeof(*k));
	if (!k || nmkey >= MAX_OBJS)
		abort();
	k->id = nmkey + 1;
	k->live = 1;
	k->mkey.lkey = k->mkey.rkey = 0xabc100 + k->id;
	a->max_entries = (a->max_entries + 3) & ~3;	/* libmlx5 rounds up */
	mkeys[nmkey++] = k;
	plog("  -> mkey#%d lkey=0x%x max_entries=%u", k->id, k->mkey.lkey,
	     a->max_entries);
	return &k->mkey;
}

int mlx5dv_destroy_mkey(struct mlx5dv_mkey *m)
{
	struct fmkey *k = by_mkey(m);

	if (!k)
		return REAL(mlx5dv_destroy_mkey, "MLX5_1.10")(m);
	plog("mlx5dv_destroy_mkey mkey#%d", mkey_id(m, "destroy"));
	k->live = 0;
	return 0;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah = REAL(ibv_create_ah, "IBVERBS_1.1")(pd, attr);

	if (ah && ctx_id(pd->context) && nah < MAX_OBJS) {
		ahs[nah++] = ah;
		plog("ibv_create_ah ctx#%d -> ah#%d", ctx_id(pd->context),
		     nah);
	}
	return ah;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct fqp *f = by_qp(qp);

	if (!f)
		return REAL(ibv_modify_qp, "IBVERBS_1.1")(qp, attr, mask);
	plog("ibv_modify_qp qp#%d state=%d mask=0x%x", f->id, attr->qp_state,
	     mask);
	if (f->dc) {			/* rxe's RC QP would refuse DC masks */
		if (mask & IBV_QP_STATE)
			qp->state = attr->qp_state;
		return 0;
	}
	return REAL(ibv_modify_qp, "IBVERBS_1.1")(qp, attr, mask);
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct fqp *f = by_qp(qp);
	int rc = REAL(ibv_destroy_qp, "IBVERBS_1.1")(qp);

	if (f) {
		plog("ibv_destroy_qp qp#%d -> %d", f->id, rc);
		if (!rc)
			f->qp = NULL, f->qpx = NULL;
	}
	return rc;
}

/* ------------------------------------------------------------ mlx5ctx */
/*
 * The context-wide queries and mlx5dv_create_cq on the contexts the double
 * opened: canned, distinct values (so that both bindings' printouts can be
 * compared), the requested comp_mask logged; a real rxe CQ underneath.
 * Anything else goes to the real libmlx5 (EOPNOTSUPP on rxe).
 */
int mlx5dv_query_device(struct ibv_context *c, struct mlx5dv_context *attr)
{
	int id = ctx_id(c);

	if (!id)
		return REAL(mlx5dv_query_device, "MLX5_1.0")(c, attr);
	plog("mlx5dv_query_device ctx#%d comp_mask=0x%llx", id,
	     (unsigned long long)attr->comp_mask);
	attr->version = 1;
	attr->flags = MLX5DV_CONTEXT_FLAGS_CQE_V1 |
		      MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW |
		      MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD;
	attr->comp_mask &= ~(uint64_t)MLX5DV_CONTEXT_MASK_DYN_BFREGS;
	attr->cqe_comp_caps.max_num = 64;
	attr->cqe_comp_caps.supported_format = MLX5DV_CQE_RES_FORMAT_HASH |
					       MLX5DV_CQE_RES_FORMAT_CSUM;
	attr->sw_parsing_caps.sw_parsing_offloads = MLX5DV_SW_PARSING |
						    MLX5DV_SW_PARSING_LSO;
	attr->sw_parsing_caps.supported_qpts = 1 << IBV_QPT_RAW_PACKET;
	attr->striding_rq_caps.min_single_stride_log_num_of_bytes = 6;
	attr->striding_rq_caps.max_single_stride_log_num_of_bytes = 13;
	attr->striding_rq_caps.min_single_wqe_log_num_of_strides = 9;
	attr->striding_rq_caps.max_single_wqe_log_num_of_strides = 16;
	attr->striding_rq_caps.supported_qpts = (1 << IBV_QPT_RC) |
						(1 << IBV_QPT_UD);
	attr->tunnel_offloads_caps =
		MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN |
		MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE;
	attr->max_dynamic_bfregs = 7;
	attr->max_clock_info_update_nsec = 1000000123ULL;
	attr->flow_action_flags = 1;
	attr->dc_odp_caps = IBV_ODP_SUPPORT_SEND;
	attr->num_lag_ports = 2;
	attr->dci_streams_caps.max_log_num_concurent = 4;
	attr->dci_streams_caps.max_log_num_errored = 3;
	attr->max_wr_memcpy_length = 1 << 20;
	attr->crypto_caps.failed_selftests = 5;
	attr->crypto_caps.crypto_engines = 3;
	attr->crypto_caps.wrapped_import_method = 1;
	attr->crypto_caps.log_max_num_deks = 12;
	attr->crypto_caps.flags = 6;
	return 0;
}

int _mlx5dv_query_port(struct ibv_context *c, uint32_t port,
		       struct mlx5dv_port *info, size_t info_len)
{
	int id = ctx_id(c);

	if (!id)
		return REAL(_mlx5dv_query_port, "MLX5_1.19")(c, port, info,
							      info_len);
	plog("_mlx5dv_query_port ctx#%d port=%u info_len=%zu", id, port,
	     info_len);
	memset(info, 0, info_len);
	info->flags = 0x5;
	info->vport = 3;
	info->vport_vhca_id = 4;
	info->esw_owner_vhca_id = 5;
	info->vport_steering_icm_rx = 0x1000;
	info->vport_steering_icm_tx = 0x2000;
	info->reg_c0.value = 0xab;
	info->reg_c0.mask = 0xff;
	return 0;
}

struct ibv_cq_ex *mlx5dv_create_cq(struct ibv_context *c,
				   struct ibv_cq_init_attr_ex *a,
				   struct mlx5dv_cq_init_attr *dv)
{
	int id = ctx_id(c);
	struct ibv_cq_ex *cq;

	if (!id)
		return REAL(mlx5dv_create_cq, "MLX5_1.1")(c, a, dv);
	if (dv)
		plog("mlx5dv_create_cq ctx#%d cqe=%u wc_flags=0x%llx "
		     "comp_mask=0x%x dv.comp_mask=0x%llx "
		     "dv.cqe_comp_res_format=0x%x dv.flags=0x%x "
		     "dv.cqe_size=%u", id, a->cqe,
		     (unsigned long long)a->wc_flags, a->comp_mask,
		     (unsigned long long)dv->comp_mask,
		     dv->cqe_comp_res_format, dv->flags, dv->cqe_size);
	else
		plog("mlx5dv_create_cq ctx#%d cqe=%u wc_flags=0x%llx "
		     "comp_mask=0x%x dv=NULL", id, a->cqe,
		     (unsigned long long)a->wc_flags, a->comp_mask);
	if (dv && (dv->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE) &&
	    dv->cqe_size != 64 && dv->cqe_size != 128) {
		errno = EINVAL;	/* as libmlx5 */
		return NULL;
	}
	cq = ibv_create_cq_ex(c, a);
	return cq;
}

/*
 * VAR, packet pacing and UAR on the double's contexts: plain allocations
 * with canned values, logged with symbolic ids; their frees are logged and
 * only objects the double made are freed here.
 */
struct fres {
	void *obj;
	int id;
};
static struct fres fress[MAX_OBJS];
static int nfres;

static int fres_add(void *obj)
{
	if (nfres >= MAX_OBJS)
		abort();
	fress[nfres].obj = obj;
	fress[nfres].id = nfres + 1;
	return fress[nfres++].id;
}

/* The id of obj (0: not the double's); forgets it when take. */
static int fres_take(void *obj)
{
	for (int i = 0; i < nfres; i++)
		if (fress[i].obj == obj) {
			fress[i].obj = NULL;
			return fress[i].id;
		}
	return 0;
}

struct mlx5dv_var *mlx5dv_alloc_var(struct ibv_context *c, uint32_t flags)
{
	struct mlx5dv_var *v;
	int id = ctx_id(c);

	if (!id)
		return REAL(mlx5dv_alloc_var, "MLX5_1.12")(c, flags);
	v = calloc(1, sizeof(*v));
	if (!v)
		abort();
	v->page_id = 17;
	v->length = 4096;
	v->mmap_off = 0x30000;
	v->comp_mask = 0;
	plog("mlx5dv_alloc_var ctx#%d flags=0x%x -> var#%d", id, flags,
	     fres_add(v));
	return v;
}

void mlx5dv_free_var(struct mlx5dv_var *v)
{
	int id = fres_take(v);

	if (!id) {
		REAL(mlx5dv_free_var, "MLX5_1.12")(v);
		return;
	}
	plog("mlx5dv_free_var var#%d", id);
	free(v);
}

struct mlx5dv_pp *mlx5dv_pp_alloc(struct ibv_context *c, size_t sz,
				  const void *pp_context, uint32_t flags)
{
	const unsigned char *b = pp_context;
	struct mlx5dv_pp *p;
	unsigned int sum = 0;
	int id = ctx_id(c);

	if (!id)
		return REAL(mlx5dv_pp_alloc, "MLX5_1.13")(c, sz, pp_context,
							   flags);
	for (size_t i = 0; i < sz; i++)	/* the whole context is readable */
		sum += b[i];
	p = calloc(1, sizeof(*p));
	if (!p)
		abort();
	p->index = 5;
	plog("mlx5dv_pp_alloc ctx#%d size=%zu sum=%u flags=0x%x -> pp#%d", id,
	     sz, sum, flags, fres_add(p));
	return p;
}

void mlx5dv_pp_free(struct mlx5dv_pp *p)
{
	int id = fres_take(p);

	if (!id) {
		REAL(mlx5dv_pp_free, "MLX5_1.13")(p);
		return;
	}
	plog("mlx5dv_pp_free pp#%d", id);
	free(p);
}

struct mlx5dv_devx_uar *mlx5dv_devx_alloc_uar(struct ibv_context *c,
					      uint32_t flags)
{
	struct mlx5dv_devx_uar *u;
	int id = ctx_id(c);

	if (!id)
		return REAL(mlx5dv_devx_alloc_uar, "MLX5_1.7")(c, flags);
	u = calloc(1, sizeof(*u));
	if (!u)
		abort();
	u->page_id = 9;
	u->mmap_off = 0x40000;
	u->comp_mask = 0;
	plog("mlx5dv_devx_alloc_uar ctx#%d flags=0x%x -> uar#%d", id, flags,
	     fres_add(u));
	return u;
}

void mlx5dv_devx_free_uar(struct mlx5dv_devx_uar *u)
{
	int id = fres_take(u);

	if (!id) {
		REAL(mlx5dv_devx_free_uar, "MLX5_1.7")(u);
		return;
	}
	plog("mlx5dv_devx_free_uar uar#%d", id);
	free(u);
}

/* ------------------------------------------------------------ mlx5objs */
/*
 * DevX objects, EQs, UMEMs, MSI vectors and scheduling elements on the
 * fake devices (any Context of one: these entry points take a plain
 * Context): each is a record the double numbers and logs; everything else
 * goes to the real library.
 *
 * A create command's output mailbox gets the status byte and the syndrome
 * of $PVFAKE_DEVX_STATUS ("status:syndrome", hex; default 0:0) in out[0]
 * and out[4:8] (big-endian, as the firmware writes them), and bytes
 * 0x80, 0x81, ... from out[8] on.  query and modify echo their input into
 * the output.  A destroyed record stays in the table (live = 0), so a
 * second destroy or a use after it aborts loudly instead of passing.
 */
enum { FX_DEVX, FX_EQ, FX_UMEM, FX_MSI, FX_NODE, FX_LEAF, FX_KINDS };
static const char *const fx_names[FX_KINDS] = {
	"devx", "eq", "umem", "msi", "node", "leaf" };

struct fx {
	union {				/* handed out */
		struct mlx5dv_devx_eq eq;
		struct mlx5dv_devx_umem umem;
		struct mlx5dv_devx_msi_vector msi;
		char opaque[16];
	} pub;
	int kind, id, live;
};
static struct fx *fxs[MAX_OBJS * 4];
static int nfx, fx_count[FX_KINDS];

static struct fx *fx_find(const void *p)
{
	for (int i = 0; i < nfx; i++)
		if (&fxs[i]->pub == p)
			return fxs[i];
	return NULL;
}

static struct fx *fx_new(int kind)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || nfx >= MAX_OBJS * 4)
		abort();
	f->kind = kind;
	f->id = ++fx_count[kind];
	f->live = 1;
	fxs[nfx++] = f;
	return f;
}

/* The live record p of this kind: a dead or foreign one aborts. */
static struct fx *fx_live(const void *p, int kind, const char *who)
{
	struct fx *f = fx_find(p);

	if (!f || f->kind != kind || !f->live) {
		plog("FATAL %s on a %s that is not live", who,
		     fx_names[kind]);
		abort();
	}
	return f;
}

static int fake_ctx(struct ibv_context *c)
{
	return c && fake_dev(c->device);
}

static void hex(char *buf, size_t size, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < len && off + 3 < size; i++)
		off += snprintf(buf + off, size - off, "%02x", b[i]);
}

static int fx_fill_out(void *out, size_t outlen)
{
	const char *st = getenv("PVFAKE_DEVX_STATUS");
	unsigned int status = 0, syndrome = 0;
	unsigned char *o = out;

	if (st && sscanf(st, "%x:%x", &status, &syndrome) < 1)
		abort();
	for (size_t i = 8; i < outlen; i++)
		o[i] = 0x80 + (i - 8);
	if (outlen >= 1)
		o[0] = status;
	for (size_t i = 0; i < 4 && 4 + i < outlen; i++)
		o[4 + i] = syndrome >> (24 - 8 * i);
	return status;
}

static void *fx_create(int kind, const char *fn, struct ibv_context *c,
		       const void *in, size_t inlen, void *out, size_t outlen)
{
	char h[80];
	struct fx *f = fx_new(kind);
	int status = fx_fill_out(out, outlen);

	hex(h, sizeof(h), in, inlen < 16 ? inlen : 16);
	plog("%s dev=%s inlen=%zu in=%s outlen=%zu -> %s#%d status=0x%x", fn,
	     c->device->name, inlen, h, outlen, fx_names[kind], f->id,
	     status);
	return &f->pub;
}

static int fx_destroy(const void *p, int kind, const char *fn)
{
	struct fx *f = fx_live(p, kind, fn);

	plog("%s %s#%d", fn, fx_names[kind], f->id);
	f->live = 0;
	return 0;
}

struct mlx5dv_devx_obj *mlx5dv_devx_obj_create(struct ibv_context *c,
					       const void *in, size_t inlen,
					       void *out, size_t outlen)
{
	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_obj_create, "MLX5_1.7")(c, in, inlen,
								out, outlen);
	return fx_create(FX_DEVX, "mlx5dv_devx_obj_create", c, in, inlen, out,
			 outlen);
}

static int fx_cmd(struct mlx5dv_devx_obj *obj, const char *fn,
		  const void *in, size_t inlen, void *out, size_t outlen)
{
	struct fx *f = fx_live(obj, FX_DEVX, fn);
	char h[80];

	hex(h, sizeof(h), in, inlen < 16 ? inlen : 16);
	plog("%s devx#%d inlen=%zu in=%s outlen=%zu", fn, f->id, inlen, h,
	     outlen);
	memcpy(out, in, inlen < outlen ? inlen : outlen);
	return 0;
}

int mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
			  size_t inlen, void *out, size_t outlen)
{
	if (!fx_find(obj))
		return REAL(mlx5dv_devx_obj_query, "MLX5_1.7")(obj, in, inlen,
							       out, outlen);
	return fx_cmd(obj, "mlx5dv_devx_obj_query", in, inlen, out, outlen);
}

int mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in,
			   size_t inlen, void *out, size_t outlen)
{
	if (!fx_find(obj))
		return REAL(mlx5dv_devx_obj_modify, "MLX5_1.7")(obj, in, inlen,
								out, outlen);
	return fx_cmd(obj, "mlx5dv_devx_obj_modify", in, inlen, out, outlen);
}

int mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	if (!fx_find(obj))
		return REAL(mlx5dv_devx_obj_destroy, "MLX5_1.7")(obj);
	return fx_destroy(obj, FX_DEVX, "mlx5dv_devx_obj_destroy");
}

struct mlx5dv_devx_eq *mlx5dv_devx_create_eq(struct ibv_context *c,
					     const void *in, size_t inlen,
					     void *out, size_t outlen)
{
	struct mlx5dv_devx_eq *eq;

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_create_eq, "MLX5_1.23")(c, in, inlen,
								out, outlen);
	eq = fx_create(FX_EQ, "mlx5dv_devx_create_eq", c, in, inlen, out,
		       outlen);
	eq->vaddr = (void *)0xe0000;
	return eq;
}

int mlx5dv_devx_destroy_eq(struct mlx5dv_devx_eq *eq)
{
	if (!fx_find(eq))
		return REAL(mlx5dv_devx_destroy_eq, "MLX5_1.23")(eq);
	return fx_destroy(eq, FX_EQ, "mlx5dv_devx_destroy_eq");
}

static struct mlx5dv_devx_umem *fx_umem(const char *fn, const char *args)
{
	struct fx *f = fx_new(FX_UMEM);

	f->pub.umem.umem_id = 0x500 + f->id;
	plog("%s %s -> umem#%d umem_id=0x%x", fn, args, f->id,
	     f->pub.umem.umem_id);
	return &f->pub.umem;
}

struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg(struct ibv_context *c,
					      void *addr, size_t size,
					      uint32_t access)
{
	char args[160];

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_umem_reg, "MLX5_1.7")(c, addr, size,
							      access);
	/* the pages are the caller's: touch them all, as pinning would */
	for (size_t i = 0; i < size; i += 4096)
		((volatile char *)addr)[i];
	snprintf(args, sizeof(args), "size=%zu access=0x%x align64=%d", size,
		 access, !((uintptr_t)addr & 63));
	return fx_umem("mlx5dv_devx_umem_reg", args);
}

struct mlx5dv_devx_umem *
mlx5dv_devx_umem_reg_ex(struct ibv_context *c, struct mlx5dv_devx_umem_in *in)
{
	char args[200];

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_umem_reg_ex, "MLX5_1.19")(c, in);
	snprintf(args, sizeof(args), "size=%zu access=0x%x pgsz_bitmap=0x%llx "
		 "comp_mask=0x%llx dmabuf_fd=%d", in->size, in->access,
		 (unsigned long long)in->pgsz_bitmap,
		 (unsigned long long)in->comp_mask, in->dmabuf_fd);
	return fx_umem("mlx5dv_devx_umem_reg_ex", args);
}

int mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *umem)
{
	if (!fx_find(umem))
		return REAL(mlx5dv_devx_umem_dereg, "MLX5_1.7")(umem);
	return fx_destroy(umem, FX_UMEM, "mlx5dv_devx_umem_dereg");
}

struct mlx5dv_devx_msi_vector *
mlx5dv_devx_alloc_msi_vector(struct ibv_context *c)
{
	struct fx *f;

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_alloc_msi_vector, "MLX5_1.23")(c);
	f = fx_new(FX_MSI);
	f->pub.msi.vector = 40 + f->id;
	f->pub.msi.fd = -1;
	plog("mlx5dv_devx_alloc_msi_vector dev=%s -> msi#%d",
	     c->device->name, f->id);
	return &f->pub.msi;
}

int mlx5dv_devx_free_msi_vector(struct mlx5dv_devx_msi_vector *msi)
{
	if (!fx_find(msi))
		return REAL(mlx5dv_devx_free_msi_vector, "MLX5_1.23")(msi);
	return fx_destroy(msi, FX_MSI, "mlx5dv_devx_free_msi_vector");
}

static void sched_args(char *buf, size_t size,
		       const struct mlx5dv_sched_attr *a)
{
	struct fx *p = a->parent ? fx_find(a->parent) : NULL;

	if (a->parent && (!p || p->kind != FX_NODE || !p->live)) {
		plog("FATAL sched attr with a parent that is not a live node");
		abort();
	}
	snprintf(buf, size, "parent=%s%d flags=0x%x bw_share=%u max_avg_bw=%u "
		 "comp_mask=0x%llx", p ? "node#" : "", p ? p->id : 0,
		 a->flags, a->bw_share, a->max_avg_bw,
		 (unsigned long long)a->comp_mask);
}

static void *fx_sched_create(int kind, const char *fn, struct ibv_context *c,
			     const struct mlx5dv_sched_attr *a)
{
	char args[200];
	struct fx *f;

	sched_args(args, sizeof(args), a);
	f = fx_new(kind);
	plog("%s dev=%s %s -> %s#%d", fn, c->device->name, args,
	     fx_names[kind], f->id);
	return &f->pub;
}

static int fx_sched_modify(const void *p, int kind, const char *fn,
			   const struct mlx5dv_sched_attr *a)
{
	struct fx *f = fx_live(p, kind, fn);
	char args[200];

	sched_args(args, sizeof(args), a);
	plog("%s %s#%d %s", fn, fx_names[kind], f->id, args);
	return 0;
}

/* A node with live children cannot go first (the firmware refuses). */
struct mlx5dv_sched_node *
mlx5dv_sched_node_create(struct ibv_context *c,
			 const struct mlx5dv_sched_attr *a)
{
	if (!fake_ctx(c))
		return REAL(mlx5dv_sched_node_create, "MLX5_1.17")(c, a);
	return fx_sched_create(FX_NODE, "mlx5dv_sched_node_create", c, a);
}

struct mlx5dv_sched_leaf *
mlx5dv_sched_leaf_create(struct ibv_context *c,
			 const struct mlx5dv_sched_attr *a)
{
	if (!fake_ctx(c))
		return REAL(mlx5dv_sched_leaf_create, "MLX5_1.17")(c, a);
	return fx_sched_create(FX_LEAF, "mlx5dv_sched_leaf_create", c, a);
}

int mlx5dv_sched_node_modify(struct mlx5dv_sched_node *n,
			     const struct mlx5dv_sched_attr *a)
{
	if (!fx_find(n))
		return REAL(mlx5dv_sched_node_modify, "MLX5_1.17")(n, a);
	return fx_sched_modify(n, FX_NODE, "mlx5dv_sched_node_modify", a);
}

int mlx5dv_sched_leaf_modify(struct mlx5dv_sched_leaf *l,
			     const struct mlx5dv_sched_attr *a)
{
	if (!fx_find(l))
		return REAL(mlx5dv_sched_leaf_modify, "MLX5_1.17")(l, a);
	return fx_sched_modify(l, FX_LEAF, "mlx5dv_sched_leaf_modify", a);
}

int mlx5dv_sched_node_destroy(struct mlx5dv_sched_node *n)
{
	if (!fx_find(n))
		return REAL(mlx5dv_sched_node_destroy, "MLX5_1.17")(n);
	return fx_destroy(n, FX_NODE, "mlx5dv_sched_node_destroy");
}

int mlx5dv_sched_leaf_destroy(struct mlx5dv_sched_leaf *l)
{
	if (!fx_find(l))
		return REAL(mlx5dv_sched_leaf_destroy, "MLX5_1.17")(l);
	return fx_destroy(l, FX_LEAF, "mlx5dv_sched_leaf_destroy");
}

/*
 * Device memory, with $PVFAKE_DM set: the contexts of the fake devices get
 * alloc_dm/free_dm (host memory standing for the device's, its copies
 * logged) and a max_dm_size of 64 KiB, so that a DM exists to map;
 * mlx5dv_dm_map_op_addr() of such a DM maps anonymous pages the size of
 * the DM rounded up to pages (as libmlx5 maps the device's), the DM at
 * offset $PVFAKE_DM in the first page, and fills the DM's bytes there.
 */
#include <sys/mman.h>
#include <unistd.h>

struct fdm {
	struct ibv_dm dm;		/* handed out */
	size_t length;
	unsigned char *mem;
	int id;
};
static struct fdm *fdms[MAX_OBJS];
static int nfdm;
static int (*real_query_device_ex)(struct ibv_context *,
				   const struct ibv_query_device_ex_input *,
				   struct ibv_device_attr_ex *, size_t);

static struct fdm *by_dm(struct ibv_dm *dm)
{
	for (int i = 0; i < nfdm; i++)
		if (&fdms[i]->dm == dm)
			return fdms[i];
	return NULL;
}

static int fdm_to(struct ibv_dm *dm, uint64_t off, const void *src,
		  size_t len)
{
	struct fdm *f = by_dm(dm);

	if (!f || off + len > f->length)
		return EINVAL;
	memcpy(f->mem + off, src, len);
	return 0;
}

static int fdm_from(void *dst, struct ibv_dm *dm, uint64_t off, size_t len)
{
	struct fdm *f = by_dm(dm);

	if (!f || off + len > f->length)
		return EINVAL;
	memcpy(dst, f->mem + off, len);
	return 0;
}

static struct ibv_dm *fdm_alloc(struct ibv_context *c,
				struct ibv_alloc_dm_attr *a)
{
	struct fdm *f = calloc(1, sizeof(*f));

	if (!f || nfdm >= MAX_OBJS)
		abort();
	f->length = a->length;
	f->mem = calloc(1, a->length ? a->length : 1);
	f->id = nfdm + 1;
	f->dm.context = c;
	f->dm.memcpy_to_dm = fdm_to;
	f->dm.memcpy_from_dm = fdm_from;
	fdms[nfdm++] = f;
	plog("ibv_alloc_dm dev=%s length=%zu -> dm#%d", c->device->name,
	     f->length, f->id);
	return &f->dm;
}

static int fdm_free(struct ibv_dm *dm)
{
	struct fdm *f = by_dm(dm);

	if (!f || !f->mem) {
		plog("FATAL ibv_free_dm of a DM that is not live");
		abort();
	}
	plog("ibv_free_dm dm#%d", f->id);
	free(f->mem);
	f->mem = NULL;
	return 0;
}

static int fdm_query_device_ex(struct ibv_context *c,
			       const struct ibv_query_device_ex_input *in,
			       struct ibv_device_attr_ex *attr, size_t size)
{
	int rc = real_query_device_ex(c, in, attr, size);

	if (!rc)
		attr->max_dm_size = 65536;
	return rc;
}

struct ibv_context *ibv_open_device(struct ibv_device *d)
{
	struct ibv_context *c = REAL(ibv_open_device, "IBVERBS_1.1")(d);
	struct verbs_context *v = c ? verbs_get_ctx(c) : NULL;

	if (v && fake_dev(d) && getenv("PVFAKE_DM")) {
		real_query_device_ex = v->query_device_ex;
		v->query_device_ex = fdm_query_device_ex;
		v->alloc_dm = fdm_alloc;
		v->free_dm = fdm_free;
	}
	return c;
}

void *mlx5dv_dm_map_op_addr(struct ibv_dm *dm, uint8_t op)
{
	struct fdm *f = by_dm(dm);
	size_t page = sysconf(_SC_PAGESIZE), off, span;
	char *p;

	if (!f)
		return REAL(mlx5dv_dm_map_op_addr, "MLX5_1.19")(dm, op);
	off = strtoul(getenv("PVFAKE_DM"), NULL, 0) % page;
	span = (f->length + page - 1) / page * page;
	p = mmap(NULL, span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	memset(p, 0xdd, span);
	memcpy(p + off, f->mem, f->length < span - off ? f->length :
							 span - off);
	plog("mlx5dv_dm_map_op_addr dm#%d op=%u -> %zu bytes mapped, dm at "
	     "offset %zu", f->id, op, span, off);
	return p + off;
}

/* ------------------------------------------------------------- mlx5dr */
/*
 * Direct-rules matchers and rules, which rxe cannot make (its domain is
 * root-only and the matcher needs DevX): with PVFAKE_MLX5_DR set, a
 * matcher made on any table is a record, and so are the rules made on
 * such a matcher.  The model keeps libmlx5's refcounts: a table with
 * matchers, a matcher with rules and an action used by a rule refuse to be
 * destroyed with EBUSY (logged "-> EBUSY"), so a binding that closes in
 * the wrong order is seen.  Tables, domains and actions stay real. 
 */
struct fdr_matcher {
	int id;
	int live;
	int rules;			/* live rules on it */
	struct mlx5dv_dr_table *tbl;
};
struct fdr_rule {
	int id;
	int live;
	struct fdr_matcher *m;
	size_t nact;
	struct mlx5dv_dr_action *acts[16];
};
static struct fdr_matcher *dr_matchers[MAX_OBJS];
static int ndr_matcher;
static struct fdr_rule *dr_rules[MAX_OBJS];
static int ndr_rule;
/* real tables and actions named in the log: tbl#N, act#N */
static void *dr_tbls[MAX_OBJS], *dr_acts[MAX_OBJS];
static int ndr_tbl, ndr_act;


static int dr_on(void)
{
	return getenv("PVFAKE_MLX5_DR") != NULL;
}

static int dr_id(void **tab, int *n, void *p)
{
	for (int i = 0; i < *n; i++)
		if (tab[i] == p)
			return i + 1;
	if (*n >= MAX_OBJS)
		abort();
	tab[(*n)++] = p;
	return *n;
}

static struct fdr_matcher *dr_matcher_of(void *p)
{
	for (int i = 0; i < ndr_matcher; i++)
		if ((void *)dr_matchers[i] == p)
			return dr_matchers[i];
	return NULL;
}

static struct fdr_rule *dr_rule_of(void *p)
{
	for (int i = 0; i < ndr_rule; i++)
		if ((void *)dr_rules[i] == p)
			return dr_rules[i];
	return NULL;
}

/* live rules using action a */
static int dr_act_refs(struct mlx5dv_dr_action *a)
{
	int n = 0;

	for (int i = 0; i < ndr_rule; i++)
		for (size_t j = 0; dr_rules[i]->live && j < dr_rules[i]->nact;
		     j++)
			n += dr_rules[i]->acts[j] == a;
	return n;
}

struct mlx5dv_dr_matcher *
mlx5dv_dr_matcher_create(struct mlx5dv_dr_table *tbl, uint16_t prio,
			 uint8_t mce, struct mlx5dv_flow_match_parameters *mask)
{
	struct fdr_matcher *m;

	if (!dr_on())
		return REAL(mlx5dv_dr_matcher_create, "MLX5_1.10")(tbl, prio,
								    mce, mask);
	m = calloc(1, sizeof(*m));
	if (!m || ndr_matcher >= MAX_OBJS || !mask)
		abort();
	m->id = ndr_matcher + 1;
	m->live = 1;
	m->tbl = tbl;
	dr_matchers[ndr_matcher++] = m;
	plog("mlx5dv_dr_matcher_create tbl#%d priority=%u mce=0x%x "
	     "mask.match_sz=%zu -> matcher#%d",
	     dr_id(dr_tbls, &ndr_tbl, tbl), prio, mce, mask->match_sz, m->id);
	return (struct mlx5dv_dr_matcher *)m;
}

int mlx5dv_dr_matcher_destroy(struct mlx5dv_dr_matcher *matcher)
{
	struct fdr_matcher *m = dr_matcher_of(matcher);

	if (!m)
		return REAL(mlx5dv_dr_matcher_destroy, "MLX5_1.10")(matcher);
	if (!m->live)
		abort();		/* a double destroy */
	if (m->rules) {
		plog("mlx5dv_dr_matcher_destroy matcher#%d -> EBUSY", m->id);
		errno = EBUSY;
		return EBUSY;
	}
	m->live = 0;
	plog("mlx5dv_dr_matcher_destroy matcher#%d", m->id);
	return 0;
}

int mlx5dv_dr_matcher_set_layout(struct mlx5dv_dr_matcher *matcher,
				 struct mlx5dv_dr_matcher_layout *layout)
{
	struct fdr_matcher *m = dr_matcher_of(matcher);

	if (!m)
		return REAL(mlx5dv_dr_matcher_set_layout, "MLX5_1.21")(
			matcher, layout);
	if (!m->live)
		abort();
	plog("mlx5dv_dr_matcher_set_layout matcher#%d flags=0x%x "
	     "log_num_of_rules_hint=%u", m->id, layout->flags,
	     layout->log_num_of_rules_hint);
	return 0;
}

struct mlx5dv_dr_rule *
mlx5dv_dr_rule_create(struct mlx5dv_dr_matcher *matcher,
		      struct mlx5dv_flow_match_parameters *value,
		      size_t num_actions, struct mlx5dv_dr_action *actions[])
{
	struct fdr_matcher *m = dr_matcher_of(matcher);
	struct fdr_rule *r;
	char buf[512];
	size_t len = 0;

	if (!m)
		return REAL(mlx5dv_dr_rule_create, "MLX5_1.10")(
			matcher, value, num_actions, actions);
	if (!m->live || !value || num_actions > 16)
		abort();
	r = calloc(1, sizeof(*r));
	if (!r || ndr_rule >= MAX_OBJS)
		abort();
	r->id = ndr_rule + 1;
	r->live = 1;
	r->m = m;
	r->nact = num_actions;
	buf[0] = 0;
	for (size_t i = 0; i < num_actions; i++) {
		if (!actions[i])
			abort();
		r->acts[i] = actions[i];
		len += snprintf(buf + len, sizeof(buf) - len, " act#%d",
				dr_id(dr_acts, &ndr_act, actions[i]));
	}
	m->rules++;
	dr_rules[ndr_rule++] = r;
	plog("mlx5dv_dr_rule_create matcher#%d value.match_sz=%zu "
	     "actions=[%s ] -> rule#%d", m->id, value->match_sz, buf, r->id);
	return (struct mlx5dv_dr_rule *)r;
}

int mlx5dv_dr_rule_destroy(struct mlx5dv_dr_rule *rule)
{
	struct fdr_rule *r = dr_rule_of(rule);

	if (!r)
		return REAL(mlx5dv_dr_rule_destroy, "MLX5_1.10")(rule);
	if (!r->live)
		abort();
	r->live = 0;
	r->m->rules--;
	plog("mlx5dv_dr_rule_destroy rule#%d", r->id);
	return 0;
}

int mlx5dv_dr_table_destroy(struct mlx5dv_dr_table *tbl)
{
	int rc;

	for (int i = 0; dr_on() && i < ndr_matcher; i++)
		if (dr_matchers[i]->live && dr_matchers[i]->tbl == tbl) {
			plog("mlx5dv_dr_table_destroy tbl#%d -> EBUSY",
			     dr_id(dr_tbls, &ndr_tbl, tbl));
			errno = EBUSY;
			return EBUSY;
		}
	rc = REAL(mlx5dv_dr_table_destroy, "MLX5_1.10")(tbl);
	if (dr_on())
		plog("mlx5dv_dr_table_destroy tbl#%d -> %d",
		     dr_id(dr_tbls, &ndr_tbl, tbl), rc);
	return rc;
}

int mlx5dv_dr_action_destroy(struct mlx5dv_dr_action *a)
{
	if (dr_on() && dr_act_refs(a)) {
		plog("mlx5dv_dr_action_destroy act#%d -> EBUSY",
		     dr_id(dr_acts, &ndr_act, a));
		errno = EBUSY;
		return EBUSY;
	}
	if (dr_on()) {
		for (int i = 0; i < ndr_act; i++)
			if (dr_acts[i] == a) {
				plog("mlx5dv_dr_action_destroy act#%d", i + 1);
				dr_acts[i] = NULL;	/* may be reused */
			}
	}
	return REAL(mlx5dv_dr_action_destroy, "MLX5_1.10")(a);
}

/*
 * Flow steering (mlx5dv_flow): with PVFAKE_MLX5_DR set, flow matchers,
 * packet-reformat flow actions and flows are records too.  The flows and
 * actions handed out name a verbs context of the double's own (ibv_flow's
 * and ibv_flow_action's destroy are inline in verbs.h and go through the
 * context's ops), whose destroy ops log and keep the refcounts: a matcher
 * with flows and an action used by a flow refuse with EBUSY.
 */
struct fflow_matcher {
	int id, live, flows;
};
struct fflow_action {
	struct ibv_flow_action fa;	/* handed out */
	int id, live, flows;
};
struct fflow {
	struct ibv_flow flow;		/* handed out */
	int id, live;
	struct fflow_matcher *m;
	struct fflow_action *acts[8];
	size_t nact;
};
static struct fflow_matcher *fl_matchers[MAX_OBJS];
static int nfl_matcher;
static struct fflow_action *fl_actions[MAX_OBJS];
static int nfl_action;
static struct fflow *fl_flows[MAX_OBJS];
static int nfl_flow;
static struct verbs_context *fl_vctx;

static struct fflow_matcher *fl_matcher_of(void *p)
{
	for (int i = 0; i < nfl_matcher; i++)
		if ((void *)fl_matchers[i] == p)
			return fl_matchers[i];
	return NULL;
}

static struct fflow_action *fl_action_of(void *p)
{
	for (int i = 0; i < nfl_action; i++)
		if ((void *)fl_actions[i] == p)
			return fl_actions[i];
	return NULL;
}

static int fl_destroy_flow(struct ibv_flow *flow)
{
	struct fflow *f = NULL;

	for (int i = 0; i < nfl_flow; i++)
		if (&fl_flows[i]->flow == flow)
			f = fl_flows[i];
	if (!f || !f->live)
		abort();
	f->live = 0;
	f->m->flows--;
	for (size_t i = 0; i < f->nact; i++)
		f->acts[i]->flows--;
	plog("ibv_destroy_flow flow#%d", f->id);
	return 0;
}

static int fl_destroy_action(struct ibv_flow_action *fa)
{
	struct fflow_action *a = fl_action_of(fa);

	if (!a || !a->live)
		abort();
	if (a->flows) {
		plog("ibv_destroy_flow_action fa#%d -> EBUSY", a->id);
		return EBUSY;
	}
	a->live = 0;
	plog("ibv_destroy_flow_action fa#%d", a->id);
	return 0;
}

static struct ibv_context *fl_context(void)
{
	if (!fl_vctx) {
		fl_vctx = calloc(1, sizeof(*fl_vctx));
		if (!fl_vctx)
			abort();
		fl_vctx->sz = sizeof(*fl_vctx);
		fl_vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
		fl_vctx->ibv_destroy_flow = fl_destroy_flow;
		fl_vctx->destroy_flow_action = fl_destroy_action;
	}
	return &fl_vctx->context;
}

struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *c,
			   struct mlx5dv_flow_matcher_attr *attr)
{
	struct fflow_matcher *m;

	if (!dr_on())
		return REAL(mlx5dv_create_flow_matcher, "MLX5_1.6")(c, attr);
	m = calloc(1, sizeof(*m));
	if (!m || nfl_matcher >= MAX_OBJS || !attr->match_mask)
		abort();
	m->id = nfl_matcher + 1;
	m->live = 1;
	fl_matchers[nfl_matcher++] = m;
	plog("mlx5dv_create_flow_matcher type=%d flags=0x%x priority=%u "
	     "mce=0x%x mask.match_sz=%zu comp_mask=0x%llx ft_type=%d "
	     "-> fm#%d", attr->type, attr->flags, attr->priority,
	     attr->match_criteria_enable, attr->match_mask->match_sz,
	     (unsigned long long)attr->comp_mask, attr->ft_type, m->id);
	return (struct mlx5dv_flow_matcher *)m;
}

int mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	struct fflow_matcher *m = fl_matcher_of(matcher);

	if (!m)
		return REAL(mlx5dv_destroy_flow_matcher, "MLX5_1.6")(matcher);
	if (!m->live)
		abort();
	if (m->flows) {
		plog("mlx5dv_destroy_flow_matcher fm#%d -> EBUSY", m->id);
		return EBUSY;
	}
	m->live = 0;
	plog("mlx5dv_destroy_flow_matcher fm#%d", m->id);
	return 0;
}

struct ibv_flow_action *mlx5dv_create_flow_action_packet_reformat(
	struct ibv_context *c, size_t data_sz, void *data,
	enum mlx5dv_flow_action_packet_reformat_type type,
	enum mlx5dv_flow_table_type ft_type)
{
	struct fflow_action *a;

	if (!dr_on())
		return REAL(mlx5dv_create_flow_action_packet_reformat,
			    "MLX5_1.7")(c, data_sz, data, type, ft_type);
	a = calloc(1, sizeof(*a));
	if (!a || nfl_action >= MAX_OBJS || (data_sz && !data))
		abort();
	a->id = nfl_action + 1;
	a->live = 1;
	a->fa.context = fl_context();
	fl_actions[nfl_action++] = a;
	plog("mlx5dv_create_flow_action_packet_reformat data_sz=%zu type=%d "
	     "ft_type=%d -> fa#%d", data_sz, type, ft_type, a->id);
	return &a->fa;
}

struct ibv_flow *mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				    struct mlx5dv_flow_match_parameters *value,
				    size_t num_actions,
				    struct mlx5dv_flow_action_attr actions[])
{
	struct fflow_matcher *m = fl_matcher_of(matcher);
	struct fflow *f;
	char buf[512];
	size_t len = 0;

	if (!m)
		return REAL(mlx5dv_create_flow, "MLX5_1.6")(
			matcher, value, num_actions, actions);
	if (!m->live || !value || num_actions > 8)
		abort();
	f = calloc(1, sizeof(*f));
	if (!f || nfl_flow >= MAX_OBJS)
		abort();
	buf[0] = 0;
	for (size_t i = 0; i < num_actions; i++) {
		if (actions[i].type == MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION) {
			struct fflow_action *a =
				fl_action_of(actions[i].action);

			if (!a || !a->live)
				abort();
			f->acts[f->nact++] = a;
			len += snprintf(buf + len, sizeof(buf) - len,
					" fa#%d", a->id);
		} else if (actions[i].type == MLX5DV_FLOW_ACTION_DEST_IBV_QP) {
			if (!actions[i].qp)
				abort();
			len += snprintf(buf + len, sizeof(buf) - len,
					" qp%s", actions[i].qp->qp_type ==
					IBV_QPT_UD ? "(ud)" : "");
		} else {
			abort();
		}
	}
	f->id = nfl_flow + 1;
	f->live = 1;
	f->m = m;
	f->flow.context = fl_context();
	m->flows++;
	for (size_t i = 0; i < f->nact; i++)
		f->acts[i]->flows++;
	fl_flows[nfl_flow++] = f;
	plog("mlx5dv_create_flow fm#%d value.match_sz=%zu actions=[%s ] "
	     "-> flow#%d", m->id, value->match_sz, buf, f->id);
	return &f->flow;
}
