# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""librdmacm enums, rdma-core 44 style: flat names (ce.RDMA_PS_TCP).

Every enumerator of rdma/rdma_cma.h plus RAI_PASSIVE/NUMERICHOST/NOROUTE/
FAMILY, and the enum classes (rdma_port_space, rdma_cm_event_type, ...).
pyverbs.librdmacm_enums holds the same objects.
"""
from pyverbs._enumtab import populate as _populate

_populate(globals(), 'rdma_cm', __name__)
