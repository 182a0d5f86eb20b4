/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The module state (state.c): the exception classes and every type
 * object, in one global instance, and pv_add_type(), which makes a type
 * into it.
 */
#ifndef PV_STATE_H
#define PV_STATE_H

#include "base.h"

struct pv_state {
	/* exceptions, from pyverbs.pyverbs_error */
	PyObject *PyverbsError;
	PyObject *PyverbsRDMAError;
	PyObject *PyverbsUserError;

	/* bases */
	PyTypeObject *PyverbsObject;
	PyTypeObject *PyverbsCM;

	/* device / context.c */
	PyTypeObject *Context;
	PyTypeObject *DeviceAttr;
	PyTypeObject *DeviceAttrEx;
	PyTypeObject *PortAttr;
	PyTypeObject *GIDEntry;
	PyTypeObject *AsyncEvent;
	/* device_attr.c */
	PyTypeObject *QueryDeviceExInput;
	PyTypeObject *ODPCaps;
	PyTypeObject *TSOCaps;
	PyTypeObject *RSSCaps;
	PyTypeObject *PacketPacingCaps;
	PyTypeObject *TMCaps;
	PyTypeObject *CQModerationCaps;
	PyTypeObject *PCIAtomicCaps;
	/* pd.c */
	PyTypeObject *PD;
	/* parent_domain.c */
	PyTypeObject *ParentDomainContext;
	PyTypeObject *ParentDomainInitAttr;
	PyTypeObject *ParentDomain;
	/* xrcd.c */
	PyTypeObject *XRCDInitAttr;
	PyTypeObject *XRCD;
	/* mr.c */
	PyTypeObject *MR;
	/* dmah.c */
	PyTypeObject *DmaHandleInitAttr;
	PyTypeObject *DMAHandle;
	/* buf.c */
	PyTypeObject *Buf;
	PyTypeObject *BufMR;
	/* mr_ex.c */
	PyTypeObject *MREx;
	/* comp_cntr.c */
	PyTypeObject *CompCntrInitAttr;
	PyTypeObject *CompCntr;
	PyTypeObject *CompCntrCaps;
	PyTypeObject *QPAttachCompCntrAttr;
	/* dmabuf.c */
	PyTypeObject *DmaBuf;
	PyTypeObject *DmaBufMR;
	/* dm.c */
	PyTypeObject *AllocDmAttr;
	PyTypeObject *DM;
	PyTypeObject *DMMR;
	/* fd_arr.c */
	PyTypeObject *FdArr;
	/* cq.c */
	PyTypeObject *CompChannel;
	PyTypeObject *CQ;
	PyTypeObject *WC;
	/* cqex.c */
	PyTypeObject *CqInitAttrEx;
	PyTypeObject *PollCqAttr;
	PyTypeObject *WcTmInfo;
	PyTypeObject *CQEX;
	/* addr.c */
	PyTypeObject *GID;
	PyTypeObject *GRH;
	PyTypeObject *GlobalRoute;
	PyTypeObject *AHAttr;
	PyTypeObject *AH;
	/* sge.c, send_wr.c, recv_wr.c (registered by wr.c) */
	PyTypeObject *SGE;
	PyTypeObject *SendWR;
	PyTypeObject *RecvWR;
	/* qp.c */
	PyTypeObject *QPCap;
	PyTypeObject *QPInitAttr;
	PyTypeObject *QPInitAttrEx;
	PyTypeObject *QPAttr;
	PyTypeObject *ECE;
	PyTypeObject *QPRateLimitAttr; /* qp_rate_limit.c */
	PyTypeObject *QP;
	PyTypeObject *DataBuffer;
	PyTypeObject *QPEx;
	/* mw.c */
	PyTypeObject *MW;
	PyTypeObject *MWBindInfo;
	PyTypeObject *MWBind;
	/* spec.c */
	PyTypeObject *Spec;
	PyTypeObject *EthSpec;
	PyTypeObject *Ipv4ExtSpec;
	PyTypeObject *Ipv6Spec;
	PyTypeObject *TcpUdpSpec;
	/* flow.c */
	PyTypeObject *FlowAttr;
	PyTypeObject *Flow;
	PyTypeObject *FlowAction;
	/* wq.c */
	PyTypeObject *WQInitAttr;
	PyTypeObject *WQAttr;
	PyTypeObject *WQ;
	PyTypeObject *RwqIndTableInitAttr;
	PyTypeObject *RwqIndTable;
	PyTypeObject *RxHashConf;
	/* srq.c (OpsWr: recv_wr.c) */
	PyTypeObject *SrqAttr;
	PyTypeObject *SrqInitAttr;
	PyTypeObject *SrqInitAttrEx;
	PyTypeObject *SRQ;
	PyTypeObject *OpsWr;
	/* cm/event.c, cm/cmid.c */
	PyTypeObject *AddrInfo;
	PyTypeObject *CMEventChannel;
	PyTypeObject *CMEvent;
	PyTypeObject *ConnParam;
	PyTypeObject *UDParam;
	PyTypeObject *JoinMCAttrEx;
	PyTypeObject *CMID;
	PyTypeObject *CMIDQP; /* cm/cmid_qp.c, hidden: _CMIDQP */

	/* the hook pv_add_type() calls before making each type (guard.c) */
	int (*prepare_spec)(PyType_Spec *spec, PyTypeObject *base);
};

/* state.c */
extern struct pv_state pv;
/*
 * Create a heap type from spec, with the given base (NULL: object), store
 * it in *slot and add it to module m under its short name.
 */
int pv_add_type(PyObject *m, PyType_Spec *spec, PyTypeObject *base,
		PyTypeObject **slot);
/* The same without adding it to the module: a hidden helper type. */
int pv_make_type(PyObject *m, PyType_Spec *spec, PyTypeObject *base,
		 PyTypeObject **slot);

#endif /* PV_STATE_H */
