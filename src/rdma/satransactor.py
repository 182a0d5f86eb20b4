# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's rdma.satransactor (SMPs turned into SA queries) needs
MADs, which pyverbs-c does not implement: the module imports, so that
python-rdma scripts load, and SATransactor() raises rdma.RDMAError."""
import rdma

__all__ = ['SATransactor']


class SATransactor:
    """python-rdma's SA transactor: not in this build."""

    def __init__(self, parent: object, sa_path: object = None) -> None:
        raise rdma._no_mads('rdma.satransactor.SATransactor')
