/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/* The use guard of the handle types (guard.c). */
#ifndef PV_GUARD_H
#define PV_GUARD_H

#include "base.h"

/* guard.c: wrap the methods, getters, setters and __init__ of a handle
 * type's spec (base a PyverbsCM) in uses; nothing for other types.  Call
 * before making the type; pv_add_type() does, once pv_guard_init() has
 * installed it.  0 or -1. */
int pv_guard_spec(PyType_Spec *spec, PyTypeObject *base);

#endif /* PV_GUARD_H */
