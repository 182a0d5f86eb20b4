/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_DMAH_H
#define PV_DMAH_H

#include "object.h"

struct ibv_dmah; /* rdma-core 59 */

/* dmah.c: a DMAHandle; parents[0] is the Context.  An MREx registered
 * with it is its child (closing the handle deregisters the MR first). */
struct pv_dmah {
	struct pv_obj obj;
	struct ibv_dmah *dmah;
};

#endif /* PV_DMAH_H */
