/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_MW_H
#define PV_MW_H

#include "object.h"

#include <infiniband/verbs.h>

/* mw.c; MW parents[0] is the PD, [1] the QP of its type 2 bind */
struct pv_mw {
	struct pv_obj obj;
	struct ibv_mw *mw;
};
struct pv_mw_bind_info {
	PyObject_HEAD
	struct ibv_mw_bind_info info;
	PyObject *mr; /* the MR of info.mr, kept alive */
};
struct pv_mw_bind {
	PyObject_HEAD
	struct ibv_mw_bind bind;
	PyObject *info; /* the MWBindInfo */
};
/* Copy the bind info out of an MWBindInfo whose MR is still open. */
int pv_mw_bind_info_get(PyObject *obj, struct ibv_mw_bind_info *out);
/* A type 2 MW bound through qp: closed with it (mw.c). */
void pv_mw_bound_via(PyObject *mw, struct pv_obj *qp, PyObject **old);

#endif /* PV_MW_H */
