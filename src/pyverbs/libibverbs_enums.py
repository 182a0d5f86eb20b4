# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""libibverbs enums, newer upstream style: enum classes named after the C
enums (ibv_qp_type.IBV_QPT_RC, ibv_access_flags.IBV_ACCESS_LOCAL_WRITE),
plus the anonymous enums' members (IBV_LINK_LAYER_ETHERNET, ...) and every
named member as module globals.  Same objects as pyverbs.enums.
"""
from pyverbs._enumtab import populate as _populate

_populate(globals(), 'verbs', 'pyverbs.enums')
