from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs._verbs import Mlx5DmaBufMR as Mlx5DmaBufMR
