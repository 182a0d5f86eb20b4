/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_PD_H
#define PV_PD_H

#include "object.h"

#include <infiniband/verbs.h>

/* pd.c; parents[0] is the Context */
struct pv_pd {
	struct pv_obj obj;
	struct ibv_pd *pd;
	int imported;
	int adopted; /* a CMID's id->pd, librdmacm's to free */
};
/* The open PD given as argument o; else NULL with TypeError ("pd must be a
 * PD, not ...") or PyverbsUserError (closed). */
struct pv_pd *pv_pd_arg(PyObject *o);
/* The same without the open check (for a constructor that checks its
 * handles once every argument is converted). */
struct pv_pd *pv_pd_typed(PyObject *o);
/* The destroy() of a PD (ibv_dealloc_pd), also a ParentDomain's. */
int pv_pd_destroy(struct pv_obj *o);

#endif /* PV_PD_H */
