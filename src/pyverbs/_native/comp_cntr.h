/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * comp_cntr.c: completion counters.  The methods it gives other types
 * (their method tables name these; comp_cntr.c calls neither file back):
 *   Context.query_comp_cntr_caps() -> CompCntrCaps
 *   QP.attach_comp_cntr(comp_cntr, attr)
 */
#ifndef PV_COMP_CNTR_H
#define PV_COMP_CNTR_H

#include "base.h"

PyObject *pv_ctx_query_comp_cntr_caps(PyObject *self, PyObject *unused);
PyObject *pv_qp_attach_comp_cntr(PyObject *self, PyObject *args, PyObject *kw);

#endif /* PV_COMP_CNTR_H */
