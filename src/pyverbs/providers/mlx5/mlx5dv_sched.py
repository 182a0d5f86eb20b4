# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 QoS scheduling elements: Mlx5dvSchedAttr, Mlx5dvSchedNode and
Mlx5dvSchedLeaf (mlx5dv_sched_node/leaf_*, implemented in C: sched.c).
A build without libmlx5 keeps the names as placeholders that name the
missing library (see pyverbs._unimplemented)."""
from pyverbs import _verbs as _v
from pyverbs._unimplemented import fill_missing

if getattr(_v, '_HAVE_MLX5', 0):
    from pyverbs._verbs import Mlx5dvSchedAttr, Mlx5dvSchedNode, \
        Mlx5dvSchedLeaf

    def _attr_str(self):
        fmt = '{:20}: {:<20}\n'
        return ('Mlx5dvSchedAttr:\n' +
                fmt.format('BW share', self.bw_share) +
                # sic: upstream's label
                fmt.format('Max avgerage BW', self.max_avg_bw) +
                fmt.format('Flags', self.flags) +
                fmt.format('Comp mask', self.comp_mask))

    def _elem_str(self):
        return (f'{type(self).__name__}:\n' +
                '{:20}: {:<20}\n'.format('sched attr', str(self.sched_attr)))

    Mlx5dvSchedAttr.__str__ = _attr_str
    Mlx5dvSchedNode.__str__ = _elem_str
    Mlx5dvSchedLeaf.__str__ = _elem_str
del _v

fill_missing(globals(), __name__)
