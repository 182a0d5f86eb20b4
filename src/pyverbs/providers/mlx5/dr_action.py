# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct rules: the actions (DrAction and its subclasses) and their
attribute objects DrActionDestAttr and DrFlowSamplerAttr, in C
(pyverbs._verbs, providers/mlx5/dr_action.c) over libmlx5.

Each action is closed before what it was made from (its DrDomain, DrTable,
QP, Mlx5DevxObj, the actions of a dest array or a sampler) and closes the
rules using it first.  DrActionFlowCounter and DrActionDestTir need
Mlx5DevxObj (NotImplementedError while it is not built in).

Differences from upstream pyverbs (rdma-core 44):

- each modify-header action (DrActionModify's actions, DrFlowSamplerAttr's
  action) must be exactly ACTION_SIZE bytes (upstream pads or truncates);
- DrActionDestAttr with MLX5DV_DR_ACTION_DEST_REFORMAT works (upstream
  writes through a NULL pointer) and requires a reformat action;
- lists of the wrong types, closed objects and None give TypeError or
  PyverbsUserError where upstream crashes.
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError  # noqa: F401
from pyverbs import _verbs
from pyverbs.providers.mlx5.mlx5_enums import (  # noqa: F401
    mlx5dv_dr_action_dest_type)

if hasattr(_verbs, '_HAVE_MLX5'):      # built with libmlx5
    from pyverbs._verbs import (
        DrAction, DrActionQp, DrActionFlowCounter, DrActionDrop,
        DrActionModify, DrActionTag, DrActionDestTable, DrActionPopVLan,
        DrActionPushVLan, DrActionDestAttr, DrActionDestArray,
        DrActionDefMiss, DrActionVPort, DrActionIBPort, DrActionDestTir,
        DrActionPacketReformat, DrFlowSamplerAttr, DrActionFlowSample,
        DrFlowMeterAttr, DrActionFlowMeter)
from pyverbs._unimplemented import fill_missing

ACTION_SIZE = 8     # bytes of one modify-header action

fill_missing(globals(), __name__)
