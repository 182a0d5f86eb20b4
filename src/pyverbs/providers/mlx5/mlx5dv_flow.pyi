from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsRDMAError as PyverbsRDMAError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import Mlx5Flow as Mlx5Flow, Mlx5FlowActionAttr as Mlx5FlowActionAttr, Mlx5FlowMatchParameters as Mlx5FlowMatchParameters, Mlx5FlowMatcher as Mlx5FlowMatcher, Mlx5FlowMatcherAttr as Mlx5FlowMatcherAttr, Mlx5PacketReformatFlowAction as Mlx5PacketReformatFlowAction, Mlx5ModifyFlowAction as Mlx5ModifyFlowAction

ACTION_SIZE: int

def be64toh(num: bytes | bytearray | memoryview) -> int: ...
