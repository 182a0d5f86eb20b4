/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A test-only recording double of libefa, loaded with LD_PRELOAD in the
 * Soft-RoCE guest (tests/test_efa_double.py builds and runs it; never
 * installed).
 *
 * For the devices named in PVFAKE_EFA_DEVICES (e.g. "rxe0") it stands in
 * for libefa over real rxe objects:
 *   - efadv_query_device() / efadv_query_ah() fill fixed values;
 *   - efadv_create_driver_qp() and efadv_create_qp_ex() check what libefa
 *     checks (qp_type IBV_QPT_DRIVER, driver_qp_type SRD, comp_mask and
 *     reserved bytes zero) and create a real rxe UD QP (SRD is a datagram
 *     transport), whose ibv_qp.qp_type then reads IBV_QPT_DRIVER, as an
 *     EFA SRD QP's does;
 *   - efadv_create_cq() creates a real rxe CQ and an efadv_cq whose
 *     wc_read_sgid is set only with EFADV_WC_EX_WITH_SGID, as libefa's; it
 *     reads the current completion: an odd wr_id has no source GID
 *     (returns ENOENT), an even one gives fe80::<wr_id>;
 *   - efadv_cq_from_ibv_cq_ex() on a CQ the double did not make aborts
 *     (libefa's is a container_of: pyverbs must never call it so).
 * Every call, and ibv_modify_qp()/ibv_destroy_qp()/ibv_destroy_cq() on its
 * objects, is logged to $PVFAKE_LOG with the arguments libefa would see.
 * Everything else, and every other device, goes to the real library
 * (dlvsym with the exact version), so the error paths stay real.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/efadv.h>

#define MAX_OBJS 64
#define PVFAKE_LIB "libefa.so.1"
#define PVFAKE_DEVICES "PVFAKE_EFA_DEVICES"
#include "double_common.h"

#ifndef PVFAKE_RDMA
#define PVFAKE_RDMA 44
#endif
/* efa_double_65.c: what rdma-core 46 .. 65 add (included at the end) */
struct fcq;
static void log_qp_efa65(const struct efadv_qp_init_attr *efa);
static void qp_dv_new(struct ibv_qp *qp, const struct efadv_qp_init_attr *efa);
static void cq_efa65(struct fcq *f, const struct efadv_cq_init_attr *efa);

static int zero(const void *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (((const unsigned char *)p)[i])
			return 0;
	return 1;
}

/* libefa's rule for inlen: a shorter struct is refused, a longer one only
 * when its extra bytes are zero. */
static int inlen_ok(const void *attr, size_t ours, uint32_t inlen)
{
	return inlen >= ours &&
	       zero((const char *)attr + ours, inlen - ours);
}

static struct ibv_qp *qps[MAX_OBJS];
static int nqp;

static int qp_id(struct ibv_qp *qp)
{
	for (int i = 0; i < nqp; i++)
		if (qps[i] == qp)
			return i + 1;
	return 0;
}

struct fcq {
	struct efadv_cq dv;	/* handed out */
	struct ibv_cq_ex *cq;
	int id;
};
static struct fcq *cqs[MAX_OBJS];
static int ncq;

static struct fcq *by_cq(struct ibv_cq_ex *cq)
{
	for (int i = 0; i < ncq; i++)
		if (cqs[i] && cqs[i]->cq == cq)
			return cqs[i];
	return NULL;
}

/* ------------------------------------------------------------ queries */

int efadv_query_device(struct ibv_context *ctx, struct efadv_device_attr *attr,
		       uint32_t inlen)
{
	struct efadv_device_attr a = {
		.max_sq_wr = 512, .max_rq_wr = 256, .max_sq_sge = 2,
		.max_rq_sge = 3, .inline_buf_size = 32,
#if PVFAKE_RDMA >= 63
		.inline_buf_size_ex = 64,
#endif
		.device_caps = EFADV_DEVICE_ATTR_CAPS_RDMA_READ |
			       EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID | 0x40,
		.max_rdma_size = 1 << 20,
	};

	if (!fake_dev(ctx->device))
		return REAL(efadv_query_device, "EFA_1.1")(ctx, attr, inlen);
	plog("efadv_query_device inlen=%u", inlen);
	if (inlen < offsetof(struct efadv_device_attr, max_rdma_size))
		return EINVAL;
	memset(attr, 0, inlen);
	memcpy(attr, &a, inlen < sizeof(a) ? inlen : sizeof(a));
	return 0;
}

int efadv_query_ah(struct ibv_ah *ah, struct efadv_ah_attr *attr,
		   uint32_t inlen)
{
	if (!fake_dev(ah->context->device))
		return REAL(efadv_query_ah, "EFA_1.1")(ah, attr, inlen);
	plog("efadv_query_ah inlen=%u", inlen);
	if (inlen < sizeof(*attr))
		return EINVAL;
	memset(attr, 0, inlen);
	attr->ahn = 0x1234;
	return 0;
}

/* ---------------------------------------------------------------- QPs */

static void log_caps(const char *what, const struct ibv_qp_cap *c)
{
	plog("%s max_send_wr=%u max_recv_wr=%u max_send_sge=%u "
	     "max_recv_sge=%u max_inline_data=%u", what, c->max_send_wr,
	     c->max_recv_wr, c->max_send_sge, c->max_recv_sge,
	     c->max_inline_data);
}

/* The created UD QP, which now reads as an SRD (driver) QP. */
static struct ibv_qp *adopt_qp(struct ibv_qp *qp, const char *what)
{
	if (!qp) {
		plog("%s -> errno %d", what, errno);
		return NULL;
	}
	qp->qp_type = IBV_QPT_DRIVER;
	if (nqp < MAX_OBJS)
		qps[nqp++] = qp;
	plog("%s -> qp#%d", what, qp_id(qp));
	return qp;
}

struct ibv_qp *efadv_create_driver_qp(struct ibv_pd *pd,
				      struct ibv_qp_init_attr *attr,
				      uint32_t driver_qp_type)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	if (!fake_dev(pd->context->device))
		return REAL(efadv_create_driver_qp, "EFA_1.0")(pd, attr,
							      driver_qp_type);
	plog("efadv_create_driver_qp qp_type=%d driver_qp_type=%u "
	     "sq_sig_all=%d srq=%d same_cq=%d", attr->qp_type, driver_qp_type,
	     attr->sq_sig_all, attr->srq != NULL,
	     attr->send_cq == attr->recv_cq);
	log_caps(" cap", &attr->cap);
	if (attr->qp_type != IBV_QPT_DRIVER ||
	    driver_qp_type != EFADV_QP_DRIVER_TYPE_SRD) {
		errno = EINVAL;
		return adopt_qp(NULL, " create");
	}
	a = *attr;
	a.qp_type = IBV_QPT_UD;
	qp = ibv_create_qp(pd, &a);
	if (qp)
		attr->cap = a.cap;
	return adopt_qp(qp, " create");
}

struct ibv_qp *efadv_create_qp_ex(struct ibv_context *ctx,
				  struct ibv_qp_init_attr_ex *attr,
				  struct efadv_qp_init_attr *efa,
				  uint32_t inlen)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	if (!fake_dev(ctx->device))
		return REAL(efadv_create_qp_ex, "EFA_1.1")(ctx, attr, efa,
							  inlen);
	plog("efadv_create_qp_ex qp_type=%d comp_mask=0x%x "
	     "send_ops_flags=0x%llx sq_sig_all=%d pd=%d create_flags=0x%x "
	     "efa.comp_mask=0x%llx efa.driver_qp_type=%u inlen=%u",
	     attr->qp_type, attr->comp_mask,
	     (unsigned long long)attr->send_ops_flags, attr->sq_sig_all,
	     attr->pd != NULL, attr->create_flags,
	     (unsigned long long)efa->comp_mask, efa->driver_qp_type, inlen);
	log_caps(" cap", &attr->cap);
	log_qp_efa65(efa);
	if (attr->qp_type != IBV_QPT_DRIVER || efa->comp_mask ||
	    efa->driver_qp_type != EFADV_QP_DRIVER_TYPE_SRD ||
	    !zero(&efa->reserved, sizeof(efa->reserved)) ||
	    !inlen_ok(efa, sizeof(*efa), inlen)) {
		errno = EINVAL;
		return adopt_qp(NULL, " create");
	}
	a = *attr;
	a.qp_type = IBV_QPT_UD;
	qp = ibv_create_qp_ex(ctx, &a);
	if (qp)
		attr->cap = a.cap;
	qp = adopt_qp(qp, " create");
	if (qp)
		qp_dv_new(qp, efa);
	return qp;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int id = qp_id(qp);
	int rc = REAL(ibv_modify_qp, "IBVERBS_1.1")(qp, attr, mask);

	if (id)
		plog("ibv_modify_qp qp#%d state=%d mask=0x%x qkey=0x%x -> %d",
		     id, attr->qp_state, mask,
		     (mask & IBV_QP_QKEY) ? attr->qkey : 0, rc);
	return rc;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	int id = qp_id(qp);
	int rc = REAL(ibv_destroy_qp, "IBVERBS_1.1")(qp);

	if (id) {
		plog("ibv_destroy_qp qp#%d -> %d", id, rc);
		if (!rc)
			qps[id - 1] = NULL;
	}
	return rc;
}

/* ---------------------------------------------------------------- CQs */

/* libefa's reads the current CQE: so does this, through the real CQ. */
static int fake_read_sgid(struct efadv_cq *dv, union ibv_gid *sgid)
{
	struct fcq *f = (struct fcq *)dv;
	uint64_t wr_id = f->cq->wr_id;

	plog("wc_read_sgid cq#%d wr_id=%llu", f->id,
	     (unsigned long long)wr_id);
	if (wr_id & 1)
		return ENOENT;
	memset(sgid, 0, sizeof(*sgid));
	sgid->raw[0] = 0xfe;
	sgid->raw[1] = 0x80;
	sgid->raw[15] = (uint8_t)wr_id;
	return 0;
}

struct ibv_cq_ex *efadv_create_cq(struct ibv_context *ctx,
				  struct ibv_cq_init_attr_ex *attr,
				  struct efadv_cq_init_attr *efa,
				  uint32_t inlen)
{
	struct ibv_cq_ex *cq;
	struct fcq *f;

	if (!fake_dev(ctx->device))
		return REAL(efadv_create_cq, "EFA_1.2")(ctx, attr, efa, inlen);
	plog("efadv_create_cq cqe=%u wc_flags=0x%llx comp_mask=0x%x "
	     "channel=%d efa.comp_mask=0x%llx efa.wc_flags=0x%llx inlen=%u",
	     attr->cqe, (unsigned long long)attr->wc_flags, attr->comp_mask,
	     attr->channel != NULL, (unsigned long long)efa->comp_mask,
	     (unsigned long long)efa->wc_flags, inlen);
	if (efa->comp_mask || !inlen_ok(efa, sizeof(*efa), inlen) ||
	    ncq == MAX_OBJS) {
		errno = EINVAL;
		return NULL;
	}
	cq = ibv_create_cq_ex(ctx, attr);
	if (!cq) {
		plog(" create -> errno %d", errno);
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		abort();
	f->cq = cq;
	f->id = ncq + 1;
	if (efa->wc_flags & EFADV_WC_EX_WITH_SGID)
		f->dv.wc_read_sgid = fake_read_sgid;
	cq_efa65(f, efa);
	cqs[ncq++] = f;
	plog(" create -> cq#%d", f->id);
	return cq;
}

struct efadv_cq *efadv_cq_from_ibv_cq_ex(struct ibv_cq_ex *cq)
{
	struct fcq *f = by_cq(cq);

	if (!f) {
		plog("FATAL efadv_cq_from_ibv_cq_ex on a CQ efadv_create_cq "
		     "did not make");
		abort();
	}
	plog("efadv_cq_from_ibv_cq_ex cq#%d", f->id);
	return &f->dv;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct fcq *f = by_cq((struct ibv_cq_ex *)cq);
	int rc = REAL(ibv_destroy_cq, "IBVERBS_1.1")(cq);

	if (f) {
		plog("ibv_destroy_cq cq#%d -> %d", f->id, rc);
		if (!rc) {
			cqs[f->id - 1] = NULL;
			free(f);
		}
	}
	return rc;
}

/* What rdma-core 46 .. 65 add: one translation unit with the above. */
#include "efa_double_65.c"
