/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs-c: the RDMA connection manager (librdmacm), shared between
 * cm/addrinfo.c (AddrInfo, and the CMID's asynchronous lookup),
 * cm/event.c (CMEventChannel, CMEvent, ConnParam, UDParam, JoinMCAttrEx)
 * and the CMID's files: cm/cmid.c (the type, connection
 * management, multicast), cm/cmid_qp.c (its QP), cm/datapath.c (memory
 * and posting), cm/cmid_verbs.c (its Context and PD).
 *
 * Lifetimes (object.c's protocol):
 *   - a CMEvent is a child of its CMEventChannel: closing it acks the event;
 *   - an asynchronous CMID is a child of its CMEventChannel, a CMID made
 *     from a CONNECT_REQUEST event or by get_request() a child of the
 *     listening CMID, a CMID made with a PD a child of that PD too;
 *   - the Context and PD that wrap id->verbs and id->pd are children of the
 *     CMID (the Context first): librdmacm owns both, they die with the id.
 * rdma_destroy_id() waits until every event reported for the id is acked,
 * so a CMID acks the unacked CMEvents of its channel that name it before
 * destroying itself.
 */
#ifndef PV_CM_H
#define PV_CM_H

#include "errors.h"
#include "object.h"

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

struct pv_addrinfo {
	struct pv_obj obj;
	struct rdma_addrinfo *ai; /* NULL while empty */
	int filling;		  /* get_addrinfo()'s lookup runs */
};

struct pv_cm_channel {
	struct pv_obj obj;
	struct rdma_event_channel *ch;
	/* ids of CONNECT_REQUEST events acked without a CMID (event.c) */
	struct rdma_cm_id **orphans;
	int norphans, orphans_cap;
};

/*
 * A CM event.  copy holds the event's scalars so that the attributes stay
 * readable after the ack (the pointers in it are not used after the ack,
 * except id, which belongs to the user once reported).  parents[0] is the
 * channel.
 */
struct pv_cm_event {
	struct pv_obj obj;
	struct rdma_cm_event *event; /* NULL once acked */
	struct rdma_cm_event copy;
	PyObject *private_data;		 /* bytes or None */
	int adopted;			 /* a CMID took copy.id */
	struct pv_cm_channel *orphan_ch; /* keeps copy.id (strong), or NULL */
};

struct pv_cmid {
	struct pv_obj obj;
	struct rdma_cm_id *id;
	struct pv_cm_channel *channel; /* borrowed (an ancestor), or NULL */
	PyObject *ctx;		       /* Context wrapping id->verbs, or NULL */
	PyObject *pd; /* PD wrapping id->pd (or the user's), or NULL */
	PyObject *qp; /* the hidden owner of id->qp when it uses the
				 * user's CQs/SRQ (cmid_qp.c), or NULL */
	int sync;     /* made by rdma_create_ep/rdma_get_request */
	/* The multicast groups joined and not left (cmid.c): the QP must
	 * leave them before it can be destroyed (the kernel refuses to
	 * destroy an attached QP, and rdma_destroy_qp() cannot say so). */
	struct sockaddr_storage *mc;
	int nmc;
};

#define CMID(o) ((struct pv_cmid *)(o))

/* addrinfo.c: the open, filled AddrInfo o (else TypeError naming 'what',
 * or PyverbsUserError: closed, empty). */
struct pv_addrinfo *pv_addrinfo_arg(PyObject *o, const char *what);
/* addrinfo.c: hold ai's list for a call that uses it without the GIL:
 * checks it again (pv_addrinfo_arg) and that no refill runs, then marks
 * ai busy (pv_busy_leave(&ai->obj) after).  0 or -1. */
int pv_addrinfo_hold(struct pv_addrinfo *ai, const char *what);
/* addrinfo.c: CMID methods (librdmacm 60; else they raise) */
PyObject *pv_cmid_resolve_addrinfo(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_query_addrinfo(PyObject *obj, PyObject *unused);
int pv_addrinfo_init_type(PyObject *m);
/* event.c: the address of a JoinMCAttrEx, filled from its AddrInfo. */
int pv_join_mc_attr_get(PyObject *o, struct rdma_cm_join_mc_attr_ex *out);
/* event.c: fill *out from a ConnParam (None: returns 1 and leaves it). */
int pv_conn_param_get(PyObject *o, struct rdma_conn_param *out);
/* event.c: the id of a CONNECT_REQUEST event is for a CMID to take: 0
 * (ev->adopted set: the id is the caller's from now on, to destroy if it
 * fails), or -1 with PyverbsUserError (taken already, or destroyed with
 * its channel). */
int pv_cm_event_take_id(struct pv_cm_event *ev);
/* event.c: ack (close) the unacked events of ch that name id. 0 or -1. */
int pv_cm_ack_events_of(struct pv_cm_channel *ch, struct rdma_cm_id *id);
/* event.c: the ah_attr of the UDParam o (pv_cm_ops.ud_param_ah_attr). */
int pv_ud_param_ah_attr(PyObject *o, struct ibv_ah_attr *out);

/*
 * cmid_verbs.c: the CMID hooks of struct pv_cm_ops (rdmacm_ops.h), and the
 * Context wrapping id->verbs and the PD wrapping id->pd (or the user's),
 * borrowed and made on first use; None while the id is unbound.
 */
int pv_is_cmid(PyObject *o);
struct ibv_context *pv_cmid_verbs(PyObject *o);
struct ibv_pd *pv_cmid_pd(PyObject *o, PyObject **ctx);
PyObject *pv_cmid_pd_obj(PyObject *o);
PyObject *pv_cmid_context(struct pv_cmid *self);
PyObject *pv_cmid_pd_wrapper(struct pv_cmid *self);

/*
 * The id's QP; else NULL with PyverbsUserError (closed, no QP).
 */
static inline struct ibv_qp *pv_cmid_qp(struct pv_cmid *self)
{
	if (pv_check_open(&self->obj))
		return NULL;
	if (!self->id->qp) {
		pv_raise_user("The CMID has no QP (create_qp() first)");
		return NULL;
	}
	return self->id->qp;
}

/*
 * cmid_qp.c: fill *out from the QPInitAttr o, whose CQs and SRQ must be
 * open; cqs[] receives them (borrowed, NULL if none).  0 or -1.
 */
int pv_cmid_qp_init_attr(PyObject *o, struct ibv_qp_init_attr *out,
			 struct pv_obj *cqs[3]);
/* cmid_qp.c: give self's new QP an owner linked to the CQs/SRQ of cqs
 * (none: the CMID owns it directly).  0, or -1 (the caller destroys the
 * QP). */
int pv_cmid_own_qp(struct pv_cmid *self, struct pv_obj *cqs[3]);
/* cmid_qp.c: CMID methods (METH_VARARGS | METH_KEYWORDS) */
PyObject *pv_cmid_create_qp(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_query_qp(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_init_qp_attr(PyObject *obj, PyObject *args, PyObject *kw);
int pv_cmid_qp_init_types(void);

/* datapath.c: CMID methods (METH_VARARGS | METH_KEYWORDS, or NOARGS) */
PyObject *pv_cmid_reg_msgs(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_reg_read(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_reg_write(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_post_recv(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_post_send(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_post_read(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_post_write(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_post_ud_send(PyObject *obj, PyObject *args, PyObject *kw);
PyObject *pv_cmid_get_send_comp(PyObject *obj, PyObject *unused);
PyObject *pv_cmid_get_recv_comp(PyObject *obj, PyObject *unused);

int pv_cm_event_init_types(PyObject *m);
int pv_cmid_init_types(PyObject *m);

#endif /* PV_CM_H */
