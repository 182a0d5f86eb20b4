/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_WQ_H
#define PV_WQ_H

#include "object.h"
#include "post_probe.h"

#include <infiniband/verbs.h>

/*
 * wq.c.  A WQ's parents are its Context, PD and CQ; ibv_wq.wq_context is
 * the WQ object itself (borrowed), the user's wq_context is kept beside.
 */
struct pv_wq {
	struct pv_obj obj;
	struct ibv_wq *wq;
	PyObject *wq_context;
	unsigned char mark; /* scratch while a table is being built */
	struct pv_post_probe recv_probe;
};

#endif /* PV_WQ_H */
