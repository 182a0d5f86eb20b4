/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.efa: EFA direct verbs over libefa (built when meson
 * finds libefa; PV_HAVE_EFA).
 *
 *   efa.c       registration (pv_efa_init_types), calling the others
 *   efa_state.c the provider's state (pv_efa, the type pointers)
 *   efa_attr.c  the plain-data attribute classes (EfaDVDeviceAttr,
 *               EfaDVAHAttr, EfaQPInitAttr, EfaDVCQInitAttr, EfaDVMRAttr,
 *               EfaDVSQDepthAttr, EfaDVRQDepthAttr, EfaCompCntrInitAttr)
 *   efadv.c     the objects (EfaContext, EfaAH, SRDQP, SRDQPEx, EfaCQ,
 *               EfaMR, EfaCompCntr), subclasses of the core's Context, AH,
 *               QP, QPEx, CQEX, MR and CompCntr
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
	/* rdma-core 50 .. 65 */
	PyTypeObject *MRAttr;	    /* EfaDVMRAttr */
	PyTypeObject *SQDepthAttr;  /* EfaDVSQDepthAttr */
	PyTypeObject *RQDepthAttr;  /* EfaDVRQDepthAttr */
	PyTypeObject *CompCntrAttr; /* EfaCompCntrInitAttr */
	PyTypeObject *MR;	    /* EfaMR */
	PyTypeObject *CompCntr;	    /* EfaCompCntr */
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
/*
 * The structs of rdma-core 50 (efadv_query_mr) and 63 (the queue depths):
 * the library's where the build has them, else the same layout here, so
 * that the attribute classes exist in every build (their calls raise the
 * error naming the version).
 */
#if HAVE_EFADV_QUERY_MR
typedef struct efadv_mr_attr pv_efadv_mr_attr;
#else
typedef struct {
	uint64_t comp_mask;
	uint16_t ic_id_validity;
	uint16_t recv_ic_id;
	uint16_t rdma_read_ic_id;
	uint16_t rdma_recv_ic_id;
} pv_efadv_mr_attr;
#endif
#if HAVE_EFADV_GET_MAX_SQ_DEPTH
typedef struct efadv_sq_depth_attr pv_efadv_sq_depth_attr;
typedef struct efadv_rq_depth_attr pv_efadv_rq_depth_attr;
#else
typedef struct {
	uint64_t comp_mask;
	uint32_t flags;
	uint32_t max_send_sge;
	uint32_t max_rdma_sge;
	uint32_t max_inline_data;
} pv_efadv_sq_depth_attr;
typedef struct {
	uint64_t comp_mask;
	uint32_t max_recv_sge;
} pv_efadv_rq_depth_attr;
#endif
struct pv_efa_mr_attr {
	PyObject_HEAD
	pv_efadv_mr_attr attr;
};
struct pv_efa_sq_depth_attr {
	PyObject_HEAD
	pv_efadv_sq_depth_attr attr;
};
struct pv_efa_rq_depth_attr {
	PyObject_HEAD
	pv_efadv_rq_depth_attr attr;
};
/* EfaCompCntrInitAttr (rdma-core 65): what efadv_comp_cntr_init_attr gets
 * (flags EFADV_COMP_CNTR_INIT_WITH_*_EXTERNAL_MEM and the two virtual
 * addresses), kept apart from the struct, which older builds lack. */
struct pv_efa_comp_cntr_attr {
	PyObject_HEAD
	uint32_t flags;
	uint64_t comp_va, err_va;
};

/* A new attribute object of type tp holding a copy of the len bytes of
 * its struct at src, or NULL. */
PyObject *pv_efa_attr_new(PyTypeObject *tp, const void *src, size_t len);

int pv_efa_attr_init_types(PyObject *m);
int pv_efadv_init_types(PyObject *m); /* after pv_efa_attr_init_types */

#endif
