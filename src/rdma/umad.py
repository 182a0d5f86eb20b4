# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's rdma.umad (MADs through the kernel's umad interface) is
not part of pyverbs-c: the module imports, so that python-rdma scripts
load, and UMAD() raises rdma.RDMAError saying so (rdma.get_umad() too)."""
import rdma

__all__ = ['UMAD']


class UMAD:
    """python-rdma's umad MAD transactor: not in this build."""

    def __init__(self, parent: object, **kwargs: object) -> None:
        raise rdma._no_mads('rdma.umad.UMAD')
