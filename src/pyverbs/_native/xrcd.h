/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_XRCD_H
#define PV_XRCD_H

#include "object.h"

#include <infiniband/verbs.h>

/* xrcd.c; parents[0] is the Context */
struct pv_xrcd {
	struct pv_obj obj;
	struct ibv_xrcd *xrcd;
};

#endif /* PV_XRCD_H */
