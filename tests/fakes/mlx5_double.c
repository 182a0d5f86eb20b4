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

#ifndef PVFAKE_RDMA
#define PVFAKE_RDMA 44
#endif
/* mlx5_double_65.c: what rdma-core 45 .. 65 add (included at the end) */
static void open_device65(struct mlx5dv_context_attr *a);
static void query_device65(struct mlx5dv_context *attr);

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
	open_device65(a);
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
	query_device65(attr);
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

/* A VAR of the double's, with canned values (freed by free()). */
static struct mlx5dv_var *fake_var(void)
{
	struct mlx5dv_var *v = calloc(1, sizeof(*v));

	if (!v)
		abort();
	v->page_id = 17;
	v->length = 4096;
	v->mmap_off = 0x30000;
	v->comp_mask = 0;
	return v;
}

struct mlx5dv_var *mlx5dv_alloc_var(struct ibv_context *c, uint32_t flags)
{
	struct mlx5dv_var *v;
	int id = ctx_id(c);

	if (!id)
		return REAL(mlx5dv_alloc_var, "MLX5_1.12")(c, flags);
	v = fake_var();
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

/* The other families' entry points: one translation unit with the above. */
#include "mlx5_double_devx.c"
#include "mlx5_double_dr.c"
#include "mlx5_double_65.c"
