# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Flow steering: FlowAttr, Flow and FlowAction.

The classes are implemented in C (pyverbs._verbs, flow.c).  A Flow is a
child of its QP: closing the QP closes its flows first.

Differences from upstream pyverbs (rdma-core 44):

- Flow() raises PyverbsUserError when flow_attr.num_of_specs differs from
  the number of specs in flow_attr.specs, or when the list holds anything
  but initialised specs (upstream fails with AttributeError, or hands
  libibverbs a short buffer), and TypeError for a qp that is not a QP
  (upstream crashes on None).
- Flow has a read-only qp (the QP it steers to).
- FlowAttr's integer fields refuse bools and floats.
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError  # noqa: F401
from pyverbs._verbs import Flow, FlowAttr, FlowAction
from pyverbs._unimplemented import fill_missing

__all__ = ['Flow', 'FlowAttr', 'FlowAction']

fill_missing(globals(), __name__)    # upstream's names: none left
