/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.efa: EFA direct verbs over libefa (built when meson
 * finds libefa; PV_HAVE_EFA).
 */
#ifndef PV_EFA_H
#define PV_EFA_H

#include "pyverbs.h"
#include <infiniband/efadv.h>

#endif
