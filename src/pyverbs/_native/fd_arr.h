/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_FD_ARR_H
#define PV_FD_ARR_H

#include "base.h"

#include <infiniband/verbs.h>

/* fd_arr.c: where struct ibv_fd_arr exists, fill *out from the FdArr o
 * (its array, valid while o lives and is not changed). */
#if HAVE_STRUCT_IBV_FD_ARR
int pv_fd_arr_get(PyObject *o, struct ibv_fd_arr *out);
#endif

#endif /* PV_FD_ARR_H */
