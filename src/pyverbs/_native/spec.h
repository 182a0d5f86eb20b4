/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_SPEC_H
#define PV_SPEC_H

#include "base.h"

#include <infiniband/verbs.h>

/*
 * spec.c: the C spec (type, size, value and mask) of o, an initialised
 * Spec; else NULL with TypeError (not a Spec) or PyverbsUserError (no
 * concrete constructor ran).  Valid while o is alive.
 */
const struct ibv_flow_spec *pv_spec_data(PyObject *o);

#endif /* PV_SPEC_H */
