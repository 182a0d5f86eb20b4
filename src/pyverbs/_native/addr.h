/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_ADDR_H
#define PV_ADDR_H

#include "object.h"

#include <infiniband/verbs.h>

/* addr.c */
struct pv_gid {
	PyObject_HEAD
	union ibv_gid gid;
};
struct pv_grh {
	PyObject_HEAD
	struct ibv_grh grh;
};
struct pv_global_route {
	PyObject_HEAD
	struct ibv_global_route gr;
};
struct pv_ah_attr {
	PyObject_HEAD
	struct ibv_ah_attr ah;
};
/* parents[0] is the PD */
struct pv_ah {
	struct pv_obj obj;
	struct ibv_ah *ah;
};
/* A new GID object holding a copy of *gid. */
PyObject *pv_gid_new(const union ibv_gid *gid);
/* Fill *out from a GID object, a 'xxxx:...:xxxx' string or 16 raw bytes
 * (TypeError/ValueError/PyverbsUserError otherwise). */
int pv_gid_from_obj(PyObject *v, union ibv_gid *out);
PyObject *pv_ah_attr_new(const struct ibv_ah_attr *attr);

#endif /* PV_ADDR_H */
