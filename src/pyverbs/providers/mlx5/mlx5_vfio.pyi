from pyverbs._verbs import Mlx5VfioAttr as Mlx5VfioAttr, Mlx5VfioContext as Mlx5VfioContext
