/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_WR_H
#define PV_WR_H

#include "base.h"

#include <infiniband/verbs.h>

struct pv_ah;

/* The work requests: wr.c (shared parts), sge.c, send_wr.c, recv_wr.c */

#define PV_WR_INLINE_SGES 2
struct pv_sge {
	PyObject_HEAD
	struct ibv_sge sge;
};
/*
 * A send WR.  wr.sg_list points at sge_inline when the SGEs fit, else at a
 * PyMem allocation owned by the object; sg_cap SGEs are stored there and
 * wr.num_sge <= sg_cap always.  wr.next is kept in step with next_wr (a
 * strong reference; cycles are refused), so a chain is always valid C
 * memory while its head is alive.  ah holds the AH given to set_wr_ud() so
 * that it outlives the WR; wr.wr.ud.ah is only meaningful while ah is set.
 * Before ibv_post_send(), call pv_send_wr_check() on the head.
 */
struct pv_send_wr {
	PyObject_HEAD
	struct ibv_send_wr wr;
	struct ibv_sge sge_inline[PV_WR_INLINE_SGES];
	int sg_cap;
	PyObject *next_wr; /* SendWR or NULL */
	struct pv_ah *ah;
	PyObject *bind;	       /* (MW, MWBindInfo) of set_bind_wr, or NULL */
	unsigned char in_post; /* scratch flag used while posting a list */
};
struct pv_recv_wr {
	PyObject_HEAD
	struct ibv_recv_wr wr;
	struct ibv_sge sge_inline[PV_WR_INLINE_SGES];
	int sg_cap;
	PyObject *next_wr; /* RecvWR or NULL */
	unsigned char in_post;
};
/*
 * A tag-matching operation on an SRQ (struct ibv_ops_wr, pyverbs.srq.OpsWr).
 * Its SGEs (wr.tm.add.sg_list) and next_wr chain are held as a RecvWR's.
 */
struct pv_ops_wr {
	PyObject_HEAD
	struct ibv_ops_wr wr;
	struct ibv_sge sge_inline[PV_WR_INLINE_SGES];
	int sg_cap;
	PyObject *next_wr; /* OpsWr or NULL */
};
int pv_ops_wr_copy(struct pv_ops_wr *dst, const struct pv_ops_wr *src);

/*
 * Refuse a chain of send WRs that the provider could not post safely: an AH
 * that was closed (its PD was closed), a UD QP's WR without set_wr_ud(), a
 * BIND_MW without a memory window.  Returns 0, or -1 with PyverbsUserError
 * naming the WR's index in the chain.
 */
int pv_send_wr_check(struct pv_send_wr *wr, enum ibv_qp_type qpt);
/*
 * Make dst a copy of src (upstream's bad_wr): every field, the SGEs (into
 * dst's own storage, sg_cap updated) and the AH reference; dst keeps its own
 * next_wr and wr.next.  Returns 0 or -1 (MemoryError).
 */
int pv_send_wr_copy(struct pv_send_wr *dst, const struct pv_send_wr *src);
int pv_recv_wr_copy(struct pv_recv_wr *dst, const struct pv_recv_wr *src);

#endif /* PV_WR_H */
