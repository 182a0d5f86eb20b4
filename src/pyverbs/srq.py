# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Shared receive queues: SrqAttr, SrqInitAttr, SrqInitAttrEx, SRQ and the
tag-matching OpsWr.

    srq = SRQ(pd, SrqInitAttr(SrqAttr(max_wr=64)))         # ibv_create_srq
    attr = SrqInitAttrEx(max_wr=64)                          # ibv_create_srq_ex
    attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | ...
    attr.srq_type, attr.pd, attr.xrcd, attr.cq = IBV_SRQT_XRC, pd, xrcd, cq
    srq = SRQ(ctx, attr)
    qp = QP(pd, QPInitAttr(qp_type=IBV_QPT_RC, scq=cq, rcq=cq, srq=srq))

The classes are implemented in C (pyverbs._verbs); they print as plain
objects, as upstream.  Beyond upstream pyverbs:

- SRQ.post_recv() also takes a list (or tuple) of RecvWRs, posted in one
  ibv_post_srq_recv(); a failure carries bad_wr_index, as QP.post_recv().
- The PD, XRCD and CQ of an SrqInitAttrEx are checked when the SRQ is
  created (open, of the same Context, present where the SRQ type needs
  them); closing any of them (or the PD, or the Context) closes the SRQ,
  and closing the SRQ closes the QPs created on it first.
- SRQ.srq is the address of the struct ibv_srq (0 once closed).
- OpsWr keeps its SGEs and next_wr chain like RecvWR (num_sge and sg_list
  read back); bad_wr of post_srq_ops() gets a copy of the failing OpsWr.
- AsyncEvent.element is the SRQ object for IBV_EVENT_SRQ_LIMIT_REACHED and
  IBV_EVENT_SRQ_ERR.
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError  # noqa: F401
from pyverbs._verbs import SrqAttr, SrqInitAttr, SrqInitAttrEx, SRQ, OpsWr
from pyverbs._unimplemented import fill_missing
# the defaults named in OpsWr's signature (inspect.signature resolves them
# here)
from pyverbs.enums import IBV_WR_TAG_ADD, IBV_OPS_SIGNALED  # noqa: F401

__all__ = ['SrqAttr', 'SrqInitAttr', 'SrqInitAttrEx', 'SRQ', 'OpsWr']

fill_missing(globals(), __name__)    # upstream's names: none left
