from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError
from pyverbs._verbs import Mlx5dvSchedAttr as Mlx5dvSchedAttr, Mlx5dvSchedLeaf as Mlx5dvSchedLeaf, Mlx5dvSchedNode as Mlx5dvSchedNode
