from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import Mlx5Mkey as Mlx5Mkey, Mlx5MkeyConfAttr as Mlx5MkeyConfAttr, Mlx5MkeyErr as Mlx5MkeyErr, Mlx5MrInterleaved as Mlx5MrInterleaved, Mlx5SigBlockAttr as Mlx5SigBlockAttr, Mlx5SigBlockDomain as Mlx5SigBlockDomain, Mlx5SigCrc as Mlx5SigCrc, Mlx5SigErr as Mlx5SigErr, Mlx5SigT10Dif as Mlx5SigT10Dif
