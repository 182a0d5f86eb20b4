/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The setup functions of the module's parts (types, functions, constants);
 * each returns 0, or -1 with an exception set.
 */
#ifndef PV_INIT_H
#define PV_INIT_H

#include "base.h"

/* state.c: the exception classes, from pyverbs.pyverbs_error. */
int pv_state_init(PyObject *m);
/* guard.c: install pv_guard_spec() (guard.h) as the hook of pv_add_type(). */
int pv_guard_init(PyObject *m);

/* Per-file type registration, called by module.c in dependency order. */
int pv_object_init_types(PyObject *m);
int pv_context_init_types(PyObject *m);
int pv_device_attr_init_types(PyObject *m); /* called by context.c */
int pv_pd_init_types(PyObject *m);
int pv_parent_domain_init_types(PyObject *m); /* after pd */
int pv_xrcd_init_types(PyObject *m);
int pv_mr_init_types(PyObject *m);
int pv_mw_init_types(PyObject *m);
int pv_dmah_init_types(PyObject *m);
int pv_buf_init_types(PyObject *m);   /* after pv_mr_init_types */
int pv_mr_ex_init_types(PyObject *m); /* after mr, buf, dmah */
int pv_comp_cntr_init_types(PyObject *m);
int pv_dmabuf_init_types(PyObject *m); /* after pv_mr_init_types */
int pv_dm_init_types(PyObject *m);     /* after pv_mr_init_types */
int pv_fd_arr_init_types(PyObject *m);
int pv_cq_init_types(PyObject *m);
int pv_cqex_init_types(PyObject *m); /* after cq */
int pv_addr_init_types(PyObject *m);
int pv_sge_init_types(PyObject *m);
int pv_recv_wr_init_types(PyObject *m);
int pv_send_wr_init_types(PyObject *m);
int pv_srq_init_types(PyObject *m); /* after cq, xrcd and wr */
int pv_qp_attr_init_types(PyObject *m);
int pv_qp_rate_limit_init_types(PyObject *m);
int pv_qp_init_types(PyObject *m);
int pv_qpex_init_types(PyObject *m);
int pv_spec_init_types(PyObject *m);
int pv_flow_init_types(PyObject *m); /* after spec and qp */
int pv_wq_init_types(PyObject *m);
int pv_rwq_ind_table_init_types(PyObject *m); /* after wq */
int pv_cm_init_types(PyObject *m);	      /* cm/cmid.c, after qp_attr, mr;
					 * with librdmacm */
int pv_mlx5_init_types(PyObject *m); /* providers/mlx5/mlx5.c, when built */
int pv_efa_init_types(PyObject *m);  /* providers/efa/efa.c, when built */
int pv_enums_init(PyObject *m);
int pv_misc_init(PyObject *m); /* misc.c, called by pv_enums_init */

#endif /* PV_INIT_H */
