/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.efa: EFA direct verbs over libefa (built when meson
 * finds libefa; PV_HAVE_EFA).
 *
 *   efa.c       registration (pv_efa_init_types), calling the others
 *   efa_state.c the provider's state (pv_efa, the type pointers)
 *   efa_attr.c  the plain-data attribute classes (EfaDVDeviceAttr,
 *               EfaDVAHAttr, EfaQPInitAttr, EfaDVCQInitAttr)
 *   efadv.c     the objects (EfaContext, EfaAH, SRDQP, SRDQPEx, EfaCQ),
 *               subclasses of the core's Context, AH, QP, QPEx and CQEX
 *
 * Every efadv_* call taking an inlen gets sizeof() of the struct this
 * pyverbs was compiled with, zero-initialised apart from the fields Python
 * set: an older libefa accepts a longer struct only if its extra bytes are
 * zero.
 */
#ifndef PV_EFA_H
#define PV_EFA_H

#include "base.h"

#include <infiniband/efadv.h>

/* efa_state.c: the EFA types, set by registration. */
struct pv_efa_types {
	PyTypeObject *DeviceAttr; /* EfaDVDeviceAttr */
	PyTypeObject *AHAttr;	  /* EfaDVAHAttr */
	PyTypeObject *QPInitAttr; /* EfaQPInitAttr */
	PyTypeObject *CQInitAttr; /* EfaDVCQInitAttr */
	PyTypeObject *Context;	  /* EfaContext */
	PyTypeObject *AH;	  /* EfaAH */
	PyTypeObject *SRDQP;
	PyTypeObject *SRDQPEx;
	PyTypeObject *CQ; /* EfaCQ */
};
extern struct pv_efa_types pv_efa;

/* efa_attr.c: plain data, each one C struct of efadv.h */
struct pv_efa_device_attr {
	PyObject_HEAD
	struct efadv_device_attr attr;
};
struct pv_efa_ah_attr {
	PyObject_HEAD
	struct efadv_ah_attr attr;
};
struct pv_efa_qp_init_attr {
	PyObject_HEAD
	struct efadv_qp_init_attr attr;
};
struct pv_efa_cq_init_attr {
	PyObject_HEAD
	struct efadv_cq_init_attr attr;
};
/* A new attribute object of type tp holding a copy of the len bytes of
 * its struct at src, or NULL. */
PyObject *pv_efa_attr_new(PyTypeObject *tp, const void *src, size_t len);

int pv_efa_attr_init_types(PyObject *m);
int pv_efadv_init_types(PyObject *m); /* after pv_efa_attr_init_types */

#endif
