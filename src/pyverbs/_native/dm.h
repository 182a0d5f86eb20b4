/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_DM_H
#define PV_DM_H

#include "base.h"

#include <infiniband/verbs.h>

/* dm.c: the open DM o's ibv_dm and in *length its size (0 if unknown:
 * imported); else NULL with TypeError or PyverbsUserError (closed). */
struct ibv_dm *pv_dm_get(PyObject *o, uint64_t *length);

#endif /* PV_DM_H */
