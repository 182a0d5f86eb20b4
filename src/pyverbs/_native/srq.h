/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_SRQ_H
#define PV_SRQ_H

#include "object.h"
#include "post_probe.h"

#include <infiniband/verbs.h>

/*
 * srq.c: a shared receive queue.  parents: the PD (ibv_create_srq), or the
 * Context then the PD, XRCD and CQ of the SrqInitAttrEx that are set
 * (ibv_create_srq_ex).  srq->srq_context is the SRQ object itself
 * (borrowed: the ibv_srq never outlives it).  Its QPs are its children.
 */
struct pv_srq {
	struct pv_obj obj;
	struct ibv_srq *srq;
	struct pv_post_probe recv_probe;
};

#endif /* PV_SRQ_H */
