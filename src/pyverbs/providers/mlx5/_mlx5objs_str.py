# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""__str__ of the DevX, WQE and CQE classes of mlx5dv (the C lives in
_native/providers/mlx5/devx.c and wqe.c), in upstream's format.

Upstream prints the WQE segment fields and the CQE members as stored in
memory (big-endian), not converted like the properties: raw() gives that
value back from the host-order property value."""
from __future__ import annotations

import sys
from collections.abc import MutableMapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyverbs._verbs import Mlx5Cqe64, Mlx5UMEM, WqeCtrlSeg, WqeDataSeg

_FMT = '{:20}: {:<20}\n'


def raw(value: int, size: int) -> int:
    """The big-endian field of host-order value read back in host order."""
    return int.from_bytes(value.to_bytes(size, 'big'), sys.byteorder)


def _ctrl_str(self: WqeCtrlSeg) -> str:
    return (_FMT.format('opcode', raw(self.opmod_idx_opcode, 4)) +
            _FMT.format('qpn_ds', raw(self.qpn_ds, 4)) +
            _FMT.format('signature', self.signature) +
            _FMT.format('fm_ce_se', self.fm_ce_se) +
            _FMT.format('imm', raw(self.imm, 4)))


def _data_str(self: WqeDataSeg) -> str:
    return (_FMT.format('byte_count', raw(self.byte_count, 4)) +
            _FMT.format('lkey', raw(self.lkey, 4)) +
            _FMT.format('addr', raw(self.addr, 8)))


def _cqe64_str(self: Mlx5Cqe64) -> str:
    # upstream: the Cython dict of the members its .pxd declares
    return str({'wqe_id': raw(self.wqe_id, 2),
                'imm_inval_pkey': raw(self.imm_inval_pkey, 4),
                'byte_cnt': raw(self.byte_cnt, 4),
                'timestamp': raw(self.timestamp, 8),
                'wqe_counter': raw(self.wqe_counter, 2),
                'signature': self.signature, 'op_own': self.op_own})


def _umem_str(self: Mlx5UMEM) -> str:
    return (_FMT.format('umem id', self.umem_id) +
            _FMT.format('reg addr', self.umem_addr))


def install(ns: MutableMapping[str, Any]) -> None:
    ns['WqeCtrlSeg'].__str__ = _ctrl_str
    ns['WqeDataSeg'].__str__ = _data_str
    ns['Mlx5Cqe64'].__str__ = _cqe64_str
    ns['Mlx5UMEM'].__str__ = _umem_str
