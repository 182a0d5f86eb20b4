from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError
from pyverbs._verbs import Mlx5VfioAttr as Mlx5VfioAttr, Mlx5VfioContext as Mlx5VfioContext
