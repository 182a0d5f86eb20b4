/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs-c: what every header of the native layer (pyverbs._verbs)
 * includes first.  Python.h comes before anything else, as the Python
 * docs ask: its pyconfig.h defines _GNU_SOURCE and the other feature
 * macros, which must be set before the first system header.  So every .c
 * file includes one of the layer's headers (each starts with this one)
 * before any system header.  pv_config.h follows: the build's HAVE_* and
 * PV_HAVE_* (tested with #if, where a missing definition would read as 0).
 *
 * Return conventions: a function returning PyObject * returns NULL with an
 * exception set on failure; a function returning int returns -1 with an
 * exception set on failure and 0 (or a non-negative value) on success,
 * unless its comment says otherwise.
 */
#ifndef PV_BASE_H
#define PV_BASE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "pv_config.h"

#endif /* PV_BASE_H */
