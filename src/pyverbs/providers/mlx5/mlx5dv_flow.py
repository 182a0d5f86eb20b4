# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 flow steering: Mlx5FlowMatchParameters, Mlx5FlowMatcherAttr,
Mlx5FlowMatcher, Mlx5FlowActionAttr, Mlx5PacketReformatFlowAction,
Mlx5ModifyFlowAction (rdma-core 65's API) and Mlx5Flow, in C (pyverbs._verbs,
providers/mlx5/flow.c, flow_action.c) over libmlx5.

An Mlx5FlowMatcher and an Mlx5PacketReformatFlowAction are closed with
their Context; an Mlx5Flow is closed before its matcher and before any QP
or flow action its action attributes use.

Differences from upstream pyverbs (rdma-core 44):

- Mlx5FlowMatchParameters refuses values longer than size (upstream copies
  them past its buffer) and an int as values; an object that was closed is
  refused where upstream passes NULL on.
- Mlx5FlowMatcher is a PyverbsCM (close(), closed, with).
- Mlx5Flow refuses num_actions other than len(action_attrs) (upstream
  warns and overflows its array), a DEST_IBV_QP attribute without a QP and
  an IBV_FLOW_ACTION attribute without an open flow action; it has qp (the
  first QP it steers to).
- Mlx5PacketReformatFlowAction and Mlx5ModifyFlowAction have close() and
  closed; Mlx5ModifyFlowAction wants each action exactly 8 bytes (upstream
  pads or cuts them).
- Mlx5FlowActionAttr with a DevX type and no obj raises (upstream
  dereferences None); Mlx5Flow refuses a DevX object of another Context.
"""
import struct

from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsError, PyverbsRDMAError, PyverbsUserError)
from pyverbs import _verbs

if hasattr(_verbs, '_HAVE_MLX5'):      # built with libmlx5
    from pyverbs._verbs import Mlx5FlowMatchParameters, Mlx5FlowMatcherAttr, \
        Mlx5FlowMatcher, Mlx5FlowActionAttr, Mlx5PacketReformatFlowAction, \
        Mlx5Flow, Mlx5ModifyFlowAction
from pyverbs._unimplemented import fill_missing

ACTION_SIZE = 8     # bytes of one modify-header action


def be64toh(num: bytes | bytearray | memoryview) -> int:
    """The 64-bit integer whose bytes in host order are num (at most
    ACTION_SIZE of them; fewer are completed with zero bytes at the end):
    upstream's helper that turns a modify-header action, written in network
    order, into the word stored in the action buffer.  More than
    ACTION_SIZE bytes raise ValueError (upstream drops the rest), an int
    TypeError."""
    if not isinstance(num, (bytes, bytearray, memoryview)):
        raise TypeError(f'be64toh() takes bytes, not {type(num).__name__}')
    data = bytes(num)
    if len(data) > ACTION_SIZE:
        raise ValueError(f'be64toh() takes at most {ACTION_SIZE} bytes, '
                         f'not {len(data)}')
    value: int = struct.unpack('=Q', data.ljust(ACTION_SIZE, b'\0'))[0]
    return value


fill_missing(globals(), __name__)
