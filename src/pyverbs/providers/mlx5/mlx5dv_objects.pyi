from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import Mlx5DvCQ as Mlx5DvCQ, Mlx5DvObj as Mlx5DvObj, Mlx5DvPD as Mlx5DvPD, Mlx5DvQP as Mlx5DvQP, Mlx5DvSRQ as Mlx5DvSRQ
