# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's rdma.vmad (GMPs sent through a verbs UD QP on QP1) is a
MAD layer, which pyverbs-c does not implement: the module imports, so that
python-rdma scripts load, and VMAD() raises rdma.RDMAError saying so."""
import rdma

__all__ = ['VMAD']


class VMAD:
    """python-rdma's verbs MAD transactor: not in this build."""

    def __init__(self, parent: object, path: object, depth: int = 16) -> None:
        raise rdma._no_mads('rdma.vmad.VMAD')
