# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""libibverbs enums, rdma-core 44 style: flat names (e.IBV_QPT_RC).

Every enumerator of infiniband/verbs.h (and tm_types.h) as a module global,
the enum classes named after the C enums (ibv_qp_type, ...), and upstream's
private re-exports of macros (_IBV_DEVICE_RAW_SCATTER_FCS,
_IBV_ALLOCATOR_USE_DEFAULT, _IBV_ADVISE_MR_ADVICE_PREFETCH*, ...).
pyverbs.libibverbs_enums holds the same objects.  See pyverbs._enumtab for
the IntEnum/IntFlag rule.
"""
from pyverbs._enumtab import populate as _populate

_populate(globals(), 'verbs', __name__)
