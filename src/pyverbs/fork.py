# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Fork support of libibverbs (ibv_fork_init)."""
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError
from pyverbs import _verbs


def fork_init() -> None:
    """ibv_fork_init(): make registered memory safe across fork().  Call it
    before creating any resource; raises PyverbsRDMAError('Failed to init
    fork support', errno) if libibverbs refuses."""
    _verbs._fork_init()


def is_fork_initialized() -> int:
    """ibv_is_fork_initialized(): enums.IBV_FORK_DISABLED (0),
    IBV_FORK_ENABLED (1) or IBV_FORK_UNNEEDED (2: the kernel makes fork safe
    by itself), as a plain int."""
    return _verbs._is_fork_initialized()
