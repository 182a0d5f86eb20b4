/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The EFA provider's state: its type pointers, set by the registration of
 * efa_attr.c and efadv.c and read by both.  A unit of its own, below them,
 * so that nothing calls back up into efa.c (the module setup).
 */
#include "efa.h"

struct pv_efa_types pv_efa;
