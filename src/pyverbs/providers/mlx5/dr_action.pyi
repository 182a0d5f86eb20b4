from pyverbs.providers.mlx5.mlx5_enums import mlx5dv_dr_action_dest_type as mlx5dv_dr_action_dest_type
from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsRDMAError as PyverbsRDMAError
from pyverbs._verbs import DrAction as DrAction, DrActionDefMiss as DrActionDefMiss, DrActionDestArray as DrActionDestArray, DrActionDestAttr as DrActionDestAttr, DrActionDestTable as DrActionDestTable, DrActionDestTir as DrActionDestTir, DrActionDrop as DrActionDrop, DrActionFlowCounter as DrActionFlowCounter, DrActionFlowSample as DrActionFlowSample, DrActionIBPort as DrActionIBPort, DrActionModify as DrActionModify, DrActionPacketReformat as DrActionPacketReformat, DrActionPopVLan as DrActionPopVLan, DrActionPushVLan as DrActionPushVLan, DrActionQp as DrActionQp, DrActionTag as DrActionTag, DrActionVPort as DrActionVPort, DrFlowSamplerAttr as DrFlowSamplerAttr

ACTION_SIZE: int
