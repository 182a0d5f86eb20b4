from pyverbs._verbs import Mlx5DmaBufMR as Mlx5DmaBufMR
