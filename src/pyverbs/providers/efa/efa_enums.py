# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""EFA direct-verbs enums: every enumerator of infiniband/efadv.h as a module
global (EFADV_QP_DRIVER_TYPE_SRD, EFADV_DEVICE_ATTR_CAPS_RDMA_READ, ...).
"""
from pyverbs._enumtab import populate as _populate

_populate(globals(), 'efadv', __name__)
