/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_FLOW_H
#define PV_FLOW_H

#include "object.h"

#include <infiniband/verbs.h>

/* flow.c: a Flow (parents[0] is the QP; a provider's subclass, Mlx5Flow,
 * has its own parents) and its destroy() (ibv_destroy_flow). */
struct pv_flow {
	struct pv_obj obj;
	struct ibv_flow *flow;
};
int pv_flow_destroy(struct pv_obj *o);

/* flow.c: the base of the providers' flow actions */
struct pv_flow_action {
	PyObject_HEAD
	struct ibv_flow_action *action; /* NULL in the base class */
};

#endif /* PV_FLOW_H */
