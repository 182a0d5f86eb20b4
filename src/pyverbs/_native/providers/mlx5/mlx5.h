/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5: mlx5 direct verbs over libmlx5 (built when meson
 * finds libmlx5; PV_HAVE_MLX5).  One C file per object family, each with
 * its pv_mlx5_<family>_init_types(), called in order by mlx5.c.
 */
#ifndef PV_MLX5_H
#define PV_MLX5_H

#include "field.h"
#include "object.h"

#include <infiniband/mlx5dv.h>

struct pv_context;

/*
 * mlx5_state.c: every mlx5 type, each named after its Python class less
 * the Mlx5 (Mlx5dv) prefix, set by the registration of the file named and
 * read by any file (the provider's lowest unit: it calls nothing).
 */
struct pv_mlx5_types {
	/* context.c */
	PyTypeObject *DVContextAttr, *DVContext, *DVPortAttr, *Context;
	/* cq.c */
	PyTypeObject *DVCQInitAttr, *CQ;
	/* uar.c */
	PyTypeObject *VAR, *PP, *UAR;
	/* crypto.c */
	PyTypeObject *CryptoLoginAttr, *CryptoExtLoginAttr, *CryptoLogin;
	PyTypeObject *DEKInitAttr, *DEKAttr, *DEK, *CryptoAttr;
	/* objects.c */
	PyTypeObject *DvCQ, *DvQP, *DvPD, *DvSRQ, *DvObj;
	/* vfio.c */
	PyTypeObject *VfioAttr, *VfioContext;
	/* qp_attr.c */
	PyTypeObject *DCIStreamInitAttr, *DVDCInitAttr, *DVQPInitAttr;
	/* mkey.c */
	PyTypeObject *SigCrc, *SigT10Dif, *SigBlockDomain, *SigBlockAttr;
	PyTypeObject *SigErr, *MkeyErr, *MkeyConfAttr, *MrInterleaved, *Mkey;
	/* qp.c */
	PyTypeObject *QP;
	/* devx.c */
	PyTypeObject *DevxObj, *UMEM, *DevxEq, *DevxMsiVector;
	/* dm_op.c */
	PyTypeObject *DmOpAddr;
	/* cmd_comp.c */
	PyTypeObject *DevxCmdComp;
	/* devx_event.c (mlx5dv_event's classes: no prefix to drop) */
	PyTypeObject *EventFD, *EventHeader, *EventChannel;
	/* dmabuf_mr.c */
	PyTypeObject *DmaBufMR;
	/* wqe.c (WqeSeg, WqeCtrlSeg, ...: no prefix to drop) */
	PyTypeObject *WqeSeg, *WqeCtrlSeg, *WqeDataSeg, *Wqe, *Cqe64;
	/* sched.c */
	PyTypeObject *SchedAttr, *SchedNode, *SchedLeaf;
	/* flow.c */
	PyTypeObject *FlowMatchParameters, *FlowMatcherAttr, *FlowMatcher;
	PyTypeObject *FlowActionAttr, *Flow;
	/* flow_action.c (FlowActionHandle: _FlowActionHandle, hidden) */
	PyTypeObject *FlowActionHandle, *PacketReformatFlowAction;
	PyTypeObject *ModifyFlowAction;
	/* dr.c */
	PyTypeObject *DrDomain, *DrTable, *DrMatcher, *DrRule;
	/* dr_action.c */
	PyTypeObject *DrAction, *DrActionDestAttr, *DrFlowSamplerAttr;
	PyTypeObject *DrActionQp, *DrActionFlowCounter, *DrActionDrop;
	PyTypeObject *DrActionModify, *DrActionTag, *DrActionDestTable;
	PyTypeObject *DrActionPopVLan, *DrActionPushVLan, *DrActionDestArray;
	PyTypeObject *DrActionDefMiss, *DrActionVPort, *DrActionIBPort;
	PyTypeObject *DrActionDestTir, *DrActionPacketReformat;
	PyTypeObject *DrActionFlowSample;
	/* dr_meter.c */
	PyTypeObject *DrFlowMeterAttr, *DrActionFlowMeter;
};
extern struct pv_mlx5_types pv_mlx5;

/*
 * args.c: the argument helpers every family may use (below every family;
 * unit; it calls only the core).
 */
/* The open Context o, argument argname of a static method; else NULL with
 * TypeError (Cython's wording) or PyverbsUserError. */
struct pv_context *pv_mlx5_ctx_arg(PyObject *o, const char *argname);
/* Store vals[i] (NULL: skip) into fields[i], i < n.  0 or -1. */
int pv_mlx5_store_fields(PyObject *obj, const struct pv_field *fields,
			 PyObject *const *vals, int n);
/* bytes(in) of a DevX/PP input (bytes or __bytes__; an int is refused with
 * TypeError); a new reference or NULL. */
PyObject *pv_mlx5_mailbox_in(PyObject *in);
/* The bytes of o: a bytes-like object or one with __bytes__ (an int,
 * which bytes() takes as a length, is refused with TypeError naming what);
 * a new reference or NULL. */
PyObject *pv_mlx5_bytes(PyObject *o, const char *what);
/* An 8-byte modify-header action (the device's format, as is) into *out;
 * ValueError for another length.  0 or -1. */
int pv_mlx5_action8(PyObject *o, uint64_t *out, const char *what);
/* The 8-byte actions of the list actions (NULL: none) in a new PyMem
 * array of *n entries (at least one allocated); NULL with an exception. */
uint64_t *pv_mlx5_actions8(PyObject *actions, size_t *n);
/*
 * Export and import of DevX objects, UMEMs and VARs (rdma-core 63): which
 * export (PV_MLX5_EXPORT_*), the size libmlx5 reports for it as an int
 * (the error naming rdma-core 63 where the build lacks the calls).
 */
enum { PV_MLX5_EXPORT_VAR, PV_MLX5_EXPORT_UMEM, PV_MLX5_EXPORT_OBJ };
PyObject *pv_mlx5_export_size(int which);
/* bytes of the export size filled by fn(handle, data), which returns an
 * errno value (func, msg: the error's); fn NULL: the build lacks it. */
PyObject *pv_mlx5_export(int which, int (*fn)(void *handle, void *data),
			 void *handle, const char *func, const char *msg);
/* A static import_*(context, data): data must be exactly the export size
 * (libmlx5 reads all of it); import (NULL: the build lacks it) returns the
 * handle or NULL with errno; adopt stores it in the new object of type
 * (destroy set up, imported), which is then linked to the Context. */
struct pv_mlx5_import {
	const char *fmt; /* "OO:import_var" */
	int which;
	PyTypeObject *type;
	void *(*import)(struct ibv_context *ctx, void *data);
	void (*adopt)(PyObject *o, void *handle);
	const char *func, *msg;
};
PyObject *pv_mlx5_import(PyObject *args, PyObject *kw,
			 const struct pv_mlx5_import *imp);
/* TypeError as Cython words it for a typed argument ("Argument 'arg' has
 * incorrect type (expected <expected>, got <type>)"); -1. */
int pv_mlx5_arg_type_error(const char *arg, const char *expected,
			   PyObject *got);

/*
 * Run fn(arg), which blocks (a read of an event fd), without the GIL, with o
 * and o2 (NULL: none) marked busy so that no close runs under it.  fn
 * returns >= 0, or < 0 with errno set; EINTR runs Python's signal handlers,
 * then fn again.  Returns what fn returned, its errno in *err (0 on
 * success; EINTR with an exception set when a handler raised).
 */
ssize_t pv_mlx5_blocking(struct pv_obj *o, struct pv_obj *o2,
			 ssize_t (*fn)(void *arg), void *arg, int *err);

/* Each family's type registration (0, or -1 with an exception set). */
/* mlx5ctx */
int pv_mlx5_context_init_types(PyObject *m); /* context.c */
int pv_mlx5_cq_init_types(PyObject *m);	     /* cq.c */
int pv_mlx5_uar_init_types(PyObject *m);     /* uar.c */
int pv_mlx5_crypto_init_types(PyObject *m);  /* crypto.c */
int pv_mlx5_objects_init_types(PyObject *m); /* objects.c */
int pv_mlx5_vfio_init_types(PyObject *m);    /* vfio.c, after context */
/* context.c: Context.__init__(name=name, attr=attr) on obj (a lookup that
 * keeps the device, the object left closed).  0 or -1. */
int pv_mlx5_ctx_lookup(PyObject *obj, PyObject *name, PyObject *attr);
/* context.c: is v the int -1? (never raises) */
int pv_mlx5_is_minus_one(PyObject *v);
/*
 * The slots and spec (var_slots, var_spec) of a plain-data type whose
 * instances answer a query (no constructor arguments; struct st; Python
 * name pyname, dotted), for pv_add_data_type().
 */
#define PV_MLX5_ANSWER_SPEC(var, pyname, st, doc)                            \
	PV_DATA_SPEC(var, pyname, st, doc, { Py_tp_new, PyType_GenericNew }, \
		     { Py_tp_init, pv_noargs_init }, )
/* crypto.c: the struct of the Mlx5CryptoLoginAttr o; 0, or -1 with
 * TypeError. */
int pv_mlx5_crypto_login_attr_get(PyObject *o,
				  struct mlx5dv_crypto_login_attr *out);

/* mlx5qp */
/* qp_attr.c: Mlx5DCIStreamInitAttr, Mlx5DVDCInitAttr, Mlx5DVQPInitAttr */
int pv_mlx5_qp_attr_init_types(PyObject *m);
/* mkey.c: mlx5dv_mkey's classes (Mlx5Mkey, Mlx5MrInterleaved, Mlx5Sig*) */
int pv_mlx5_mkey_init_types(PyObject *m);
/* qp.c: Mlx5QP (after qp_attr.c and mkey.c) */
int pv_mlx5_qp_init_types(PyObject *m);

struct pv_mlx5_dv_qp_init_attr {
	PyObject_HEAD
	struct mlx5dv_qp_init_attr attr;
};

/* An indirect mkey; parents[0] is the PD. */
struct pv_mlx5_mkey {
	struct pv_obj obj;
	struct mlx5dv_mkey *mkey;
	unsigned int max_entries; /* as libmlx5 rounded it */
};
struct pv_mlx5_mr_interleaved {
	PyObject_HEAD
	struct mlx5dv_mr_interleaved mr;
};
struct pv_mlx5_mkey_conf_attr {
	PyObject_HEAD
	struct mlx5dv_mkey_conf_attr attr;
};
/*
 * A Mlx5SigBlockAttr as a struct for one call: *out and the domains and
 * signatures it points to are copied into *store (valid while store is).
 * obj must be a Mlx5SigBlockAttr (checked by the caller).
 */
struct pv_mlx5_sig_block_store {
	struct mlx5dv_sig_block_domain dom[2];
	struct mlx5dv_sig_t10dif dif[2];
	struct mlx5dv_sig_crc crc[2];
};
void pv_mlx5_sig_block_attr_get(PyObject *obj,
				struct mlx5dv_sig_block_attr *out,
				struct pv_mlx5_sig_block_store *store);

/* mlx5objs */
int pv_mlx5_devx_init_types(PyObject *m);	/* devx.c */
int pv_mlx5_wqe_init_types(PyObject *m);	/* wqe.c */
int pv_mlx5_sched_init_types(PyObject *m);	/* sched.c */
int pv_mlx5_cmd_comp_init_types(PyObject *m);	/* cmd_comp.c */
int pv_mlx5_devx_event_init_types(PyObject *m); /* devx_event.c, after devx */
int pv_mlx5_dm_op_init_types(PyObject *m);	/* dm_op.c */
int pv_mlx5_dmabuf_mr_init_types(PyObject *m);	/* dmabuf_mr.c */
/* cmd_comp.c: the channel of the open Mlx5DevxCmdComp o, which must belong
 * to the Context ctx; NULL with TypeError or PyverbsUserError. */
struct mlx5dv_devx_cmd_comp *pv_mlx5_cmd_comp_get(PyObject *o,
						  struct pv_obj *ctx);
/* args.c: destroy what a failed constructor created (o->destroy), keeping
 * the exception set; a failing destroy is reported as unraisable. */
void pv_mlx5_undo_create(struct pv_obj *o);

/* mlx5dr */
int pv_mlx5_flow_init_types(PyObject *m);	 /* flow.c */
int pv_mlx5_flow_action_init_types(PyObject *m); /* flow_action.c */
/* flow_action.c: the ibv_flow_action of the open Mlx5PacketReformat- or
 * Mlx5ModifyFlowAction o and its handle object in *handle (what a flow
 * using it links to); NULL, with no exception, for anything else. */
struct ibv_flow_action *pv_mlx5_flow_action_get(PyObject *o,
						struct pv_obj **handle);
int pv_mlx5_dr_init_types(PyObject *m);	       /* dr.c */
int pv_mlx5_dr_action_init_types(PyObject *m); /* dr_action.c, after dr.c */
/* A DR domain or table: parents[0] is the Context / the DrDomain. */
struct pv_dr_domain {
	struct pv_obj obj;
	struct mlx5dv_dr_domain *domain;
};
struct pv_dr_table {
	struct pv_obj obj;
	struct mlx5dv_dr_table *table;
};
/* A DR action; its parents depend on the subclass (dr_action.c). */
struct pv_dr_action {
	struct pv_obj obj;
	struct mlx5dv_dr_action *action;
};
/* dr_action.c: the start of a DrAction constructor (refuses a second run,
 * resets the object) and its end: a (NULL: raise from errno with func and
 * msg), then the links to the n parents.  0 or -1 (the action destroyed). */
int pv_dr_action_begin(struct pv_dr_action *self);
int pv_dr_action_finish(struct pv_dr_action *self, struct mlx5dv_dr_action *a,
			const char *func, const char *msg,
			struct pv_obj *const *parents, size_t n);
/* dr_meter.c: DrFlowMeterAttr, DrActionFlowMeter (after dr_action.c) */
int pv_mlx5_dr_meter_init_types(PyObject *m);
/* The open DrDomain / DrTable / DrAction o ('what' names the argument);
 * else NULL with TypeError or PyverbsUserError (closed). */
struct pv_dr_domain *pv_dr_domain_arg(PyObject *o, const char *what);
struct pv_dr_table *pv_dr_table_arg(PyObject *o, const char *what);
struct pv_dr_action *pv_dr_action_arg(PyObject *o, const char *what);
/* flow.c: the parameters of the Mlx5FlowMatchParameters o (valid while o
 * lives and is not closed); NULL with TypeError or PyverbsUserError. */
struct mlx5dv_flow_match_parameters *pv_mlx5_match_params(PyObject *o,
							  const char *what);

/*
 * Accessors one family offers the others.  Declared weak so that a family
 * builds and is tested before the one defining them is merged: a caller
 * checks the pointer and raises NotImplementedError when it is NULL.
 */

/* mlx5ctx: the Mlx5CryptoAttr obj as a struct for one call (its dek pointer
 * stays valid while obj lives); 0, or -1 with TypeError. */
int pv_mlx5_crypto_attr_get(PyObject *obj, struct mlx5dv_crypto_attr *out)
	__attribute__((weak));
/* mlx5ctx: 1 if obj is an Mlx5Context (or subclass), else 0. */
int pv_mlx5_is_context(PyObject *obj) __attribute__((weak));

/* mlx5objs: the open Mlx5dvSchedLeaf obj's leaf; NULL with an exception
 * (TypeError for another type, closed object error). */
struct mlx5dv_sched_leaf *pv_mlx5_sched_leaf_get(PyObject *obj)
	__attribute__((weak));
/* mlx5objs: the open Mlx5DevxObj obj's mlx5dv_devx_obj; NULL with an
 * exception. */
struct mlx5dv_devx_obj *pv_mlx5_devx_obj_get(PyObject *obj)
	__attribute__((weak));

/* qp_static.c: the static methods of Mlx5QP (METH_VARARGS | METH_KEYWORDS) */
PyObject *pv_mlx5_qp_query_lag_port(PyObject *unused, PyObject *args,
				    PyObject *kw);
PyObject *pv_mlx5_qp_modify_lag_port(PyObject *unused, PyObject *args,
				     PyObject *kw);
PyObject *pv_mlx5_qp_modify_qp_sched_elem(PyObject *unused, PyObject *args,
					  PyObject *kw);
PyObject *pv_mlx5_qp_modify_udp_sport(PyObject *unused, PyObject *args,
				      PyObject *kw);
PyObject *pv_mlx5_qp_map_ah_to_qp(PyObject *unused, PyObject *args,
				  PyObject *kw);
PyObject *pv_mlx5_qp_modify_dci_stream_channel_id(PyObject *unused,
						  PyObject *args, PyObject *kw);

#endif
