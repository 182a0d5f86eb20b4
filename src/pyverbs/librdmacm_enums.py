# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""librdmacm enums, newer upstream style: enum classes named after the C
enums (rdma_port_space.RDMA_PS_TCP) plus module globals (RAI_PASSIVE,
RDMA_OPTION_ID, ...).  Same objects as pyverbs.cm_enums.
"""
from pyverbs._enumtab import populate as _populate

_populate(globals(), 'rdma_cm', 'pyverbs.cm_enums')
