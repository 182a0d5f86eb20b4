/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_RDMACM_OPS_H
#define PV_RDMACM_OPS_H

#include "base.h"

#include <infiniband/verbs.h>

/*
 * rdmacm_ops.c: the core's calls into rdma_cm (Context(cmid=), PD(cmid),
 * MR(cmid, ...), AHAttr.init_from_ud_param), through a table the cm layer
 * fills at init (pv_cm_set_ops, from pv_cm_init_types), as libibverbs'
 * verbs_context_ops: the core never references cm/.  The defaults are
 * those of a build without librdmacm, which has no CMID and no UDParam
 * type (their Python names are placeholders that cannot be made): nothing
 * is a CMID, so the CMID hooks are never reached; each still fails cleanly.
 *   - is_cmid(o): whether o is a CMID;
 *   - cmid_verbs(o): the id->verbs of the open, bound CMID o;
 *   - cmid_pd(o, ctx): its id->pd, and in *ctx its Context wrapper
 *     (borrowed, made if needed);
 *   - cmid_pd_obj(o): its PD object (borrowed, made if needed);
 *   - ud_param_ah_attr(o, out): the ah_attr of the UDParam o; 0 or -1
 *     (TypeError).
 * The CMID hooks fail with PyverbsUserError when closed or unbound.
 */
struct pv_cm_ops {
	int (*is_cmid)(PyObject *o);
	struct ibv_context *(*cmid_verbs)(PyObject *o);
	struct ibv_pd *(*cmid_pd)(PyObject *o, PyObject **ctx);
	PyObject *(*cmid_pd_obj)(PyObject *o);
	int (*ud_param_ah_attr)(PyObject *o, struct ibv_ah_attr *out);
};
extern struct pv_cm_ops pv_cm_ops;
/* Install the non-NULL members of ops (at module init, once). */
void pv_cm_set_ops(const struct pv_cm_ops *ops);

#endif /* PV_RDMACM_OPS_H */
