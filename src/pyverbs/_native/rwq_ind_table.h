/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_RWQ_IND_TABLE_H
#define PV_RWQ_IND_TABLE_H

#include "object.h"

#include <infiniband/verbs.h>

/*
 * rwq_ind_table.c.  An RwqIndTable's parents are its Context, then each
 * distinct WQ of its table (reserved extra links: see
 * pv_obj_reserve_parents()), so closing any of its WQs closes the table
 * (and its QPs) first; wqs is the list of WQs as given.
 */
struct pv_rwq_ind_table {
	struct pv_obj obj;
	struct ibv_rwq_ind_table *tbl;
	PyObject *wqs; /* list of WQ */
};
/* The open RwqIndTable o of Context ctx; else NULL with TypeError,
 * PyverbsUserError (closed, another Context). */
struct pv_rwq_ind_table *pv_rwq_ind_table_arg(PyObject *o, struct pv_obj *ctx);
/* Fill *out from the RxHashConf o (its key stays owned by o, which the
 * caller holds while *out is used).  Refuses a rx_hash_key_len longer than
 * the key (the provider reads that many bytes).  0 or -1. */
int pv_rx_hash_conf_get(PyObject *o, struct ibv_rx_hash_conf *out);

#endif /* PV_RWQ_IND_TABLE_H */
