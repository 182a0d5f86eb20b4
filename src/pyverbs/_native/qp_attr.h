/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_QP_ATTR_H
#define PV_QP_ATTR_H

#include "object.h"

#include <infiniband/verbs.h>

struct pv_cq;
struct pv_srq;
struct pv_xrcd;
struct pv_rwq_ind_table;

/*
 * qp_attr.c: attribute objects.  The pointers of the embedded init attributes
 * (send_cq, recv_cq, srq, pd, qp_context) are filled from the Python objects
 * held beside them when a QP is created, never earlier, so that a closed CQ
 * or PD is refused instead of being passed to libibverbs.  ibv_create_qp()
 * writes the actual capabilities back into attr.cap, as upstream shows.
 */
struct pv_qp_cap {
	PyObject_HEAD
	struct ibv_qp_cap cap;
};
struct pv_qp_init_attr {
	PyObject_HEAD
	struct ibv_qp_init_attr attr;
	PyObject *qp_context; /* any object, or None */
	PyObject *scq, *rcq;  /* CQ, CQEX or None */
	PyObject *srq;	      /* SRQ or None */
};
struct pv_qp_init_attr_ex {
	PyObject_HEAD
	struct ibv_qp_init_attr_ex attr;
	PyObject *qp_context;
	PyObject *scq, *rcq;
	PyObject *srq;	     /* SRQ or None */
	PyObject *xrcd;	     /* XRCD or None */
	PyObject *ind_table; /* RwqIndTable or None */
	PyObject *hash_conf; /* RxHashConf or None */
	PyObject *pd;	     /* PD or None */
};
struct pv_qp_attr {
	PyObject_HEAD
	struct ibv_qp_attr attr;
};
/* qp_attr.c: the check of an object slot that takes a CQ, a CQEX or None
 * (PyverbsUserError otherwise). */
int pv_oslot_check_cq(PyObject *v);

/* Upstream derives ECE from PyverbsCM although it owns no resource. */
struct pv_ece {
	struct pv_obj obj;
	struct ibv_ece ece;
};

/* qp_attr.c: the objects a QPInitAttr (is_ex: QPInitAttrEx) names, for QP
 * creation on ctx: the CQs, SRQ, XRCD and RSS table open and of ctx (NULL
 * where none), what the comp_mask asks for given (pd_o: the PD, or None),
 * the RX hash copied.  0 or -1. */
struct pv_qp_objs {
	PyObject *qp_context; /* borrowed, or NULL */
	struct pv_cq *scq, *rcq;
	struct pv_srq *srq;
	struct pv_xrcd *xrcd;
	struct pv_rwq_ind_table *ind;
	struct ibv_rx_hash_conf rx;
};
int pv_qp_init_attr_objs(PyObject *init_attr, int is_ex, struct pv_obj *ctx,
			 PyObject *pd_o, struct pv_qp_objs *q);

/* qp_attr.c: DataBuffer(addr, length), one buffer of
 * QPEx.wr_set_inline_data_list(); upstream derives it from PyverbsCM. */
struct pv_data_buf {
	struct pv_obj obj;
	struct ibv_data_buf data;
};

#endif /* PV_QP_ATTR_H */
