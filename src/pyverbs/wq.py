# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Work queues and receive side scaling (RSS).

WQInitAttr, WQAttr and WQ (ibv_create_wq, ibv_modify_wq, ibv_post_wq_recv),
RwqIndTableInitAttr and RwqIndTable (an indirection table over WQs, for an
RSS QP: QPInitAttrEx(ind_table=..., hash_conf=...)), and RxHashConf (its RX
hash).  The classes are implemented in C (pyverbs._verbs); upstream prints
none of them specially.

Differences from upstream pyverbs, all additive or refusing what would
crash there:

- WQ() needs the PD and CQ of its WQInitAttr open and of the same Context
  (PyverbsUserError otherwise); the CQ may be a CQEX.  WQInitAttr also
  exposes wq_context, max_wr, max_sge, comp_mask and create_flags; WQ has
  pd, cq, wq_context, wq_state and wq besides wqn.
- WQ.post_recv() also takes a list of RecvWRs, posted in one call.
- RwqIndTableInitAttr checks that wqs_list holds WQs (None is an empty
  list) and exposes log_ind_tbl_size, wqs_list and comp_mask; RwqIndTable()
  needs exactly 2**log_ind_tbl_size WQs, open and of its Context, since
  libibverbs reads that many.  Each WQ of a table is a parent of it:
  closing a WQ closes its tables (and their QPs) first.
- RxHashConf.rx_hash_key reads back the key as a list of ints (upstream
  returns rx_hash_fields_mask); None is accepted to clear it.  A QP is
  refused when rx_hash_key_len is longer than the key.
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsError, PyverbsRDMAError, PyverbsUserError)
from pyverbs._verbs import (WQInitAttr, WQAttr, WQ, RwqIndTableInitAttr,
                            RwqIndTable, RxHashConf)
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)    # upstream's names: none left
