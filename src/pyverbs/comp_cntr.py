# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Completion counters (rdma-core 65): CompCntr(ctx, CompCntrInitAttr(...))
counts the completions (and errors) of the QPs attached to it
(QP.attach_comp_cntr(cntr, QPAttachCompCntrAttr(op_mask))); set, inc and
read reach its two counts.  Context.query_comp_cntr_caps() says what the
device offers.  A build against an older rdma-core has the names; using
them raises PyverbsRDMAError (EOPNOTSUPP) naming rdma-core 65."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsRDMAError  # noqa: F401
from pyverbs._verbs import CompCntr, CompCntrInitAttr

__all__ = ['CompCntr', 'CompCntrInitAttr']
