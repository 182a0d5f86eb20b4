from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError
from pyverbs._verbs import Mlx5CryptoAttr as Mlx5CryptoAttr, Mlx5CryptoExtLoginAttr as Mlx5CryptoExtLoginAttr, Mlx5CryptoLogin as Mlx5CryptoLogin, Mlx5CryptoLoginAttr as Mlx5CryptoLoginAttr, Mlx5DEK as Mlx5DEK, Mlx5DEKAttr as Mlx5DEKAttr, Mlx5DEKInitAttr as Mlx5DEKInitAttr
