# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Tools for verbs programs (after python-rdma's rdma.vtools).

BufferPool: count fixed-size buffers carved out of one MR, for posting
receives and building sends without registering memory per message::

    pool = BufferPool(pd, count=64, size=4096)
    pool.post_recvs(qp, 32)                 # 32 receives, one post_recv
    ...
    for wc in wcs:
        data = pool.copy_from(wc.wr_id, length=wc.byte_len)
        pool.finish_wcs(qp, [wc])           # buffer back, re-posted
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Self, TypedDict, Unpack

import pyverbs.enums as e
from pyverbs.mr import MR
from pyverbs.pyverbs_error import PyverbsUserError
from pyverbs.wr import SGE, RecvWR, SendWR

if TYPE_CHECKING:
    from pyverbs.addr import AH
    from pyverbs.cq import WC
    from pyverbs.pd import PD
    from pyverbs.qp import QP

    class _SendWRKeywords(TypedDict, total=False):
        """What make_send_wr() passes on to SendWR."""
        imm_data: int
        next_wr: SendWR | None
        remote_addr: int | None
        rkey: int | None
        ah: AH | None
        remote_qpn: int | None
        remote_qkey: int | None
        compare_add: int | None
        swap: int | None

__all__ = ['BufferPool']


class BufferPool:
    """count buffers of size bytes in one MR; a buffer is named by its
    index, which is also the wr_id of the WRs the pool builds."""

    mr: MR
    count: int
    size: int

    def __init__(self, pd: PD, count: int, size: int,
                 access: int = e.IBV_ACCESS_LOCAL_WRITE) -> None:
        if count <= 0 or size <= 0:
            raise PyverbsUserError('BufferPool needs count > 0 and size > 0')
        self.count, self.size = count, size
        self.mr = MR(pd, count * size, access)
        self._free = list(range(count - 1, -1, -1))
        self._view = memoryview(self.mr)

    def close(self) -> None:
        self._view.release()
        self.mr.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        """Number of free buffers."""
        return len(self._free)

    def _check(self, idx: int) -> None:
        if not 0 <= idx < self.count:
            raise PyverbsUserError(f'buffer index {idx} out of range '
                                   f'0..{self.count - 1}')

    def pop(self) -> int:
        """Take a free buffer; returns its index."""
        if not self._free:
            raise PyverbsUserError('BufferPool is empty')
        return self._free.pop()

    def push(self, idx: int) -> None:
        """Give a buffer back."""
        self._check(idx)
        self._free.append(idx)

    def addr(self, idx: int, offset: int = 0) -> int:
        self._check(idx)
        return self.mr.buf + idx * self.size + offset

    def view(self, idx: int) -> memoryview:
        """A zero-copy memoryview of buffer idx."""
        self._check(idx)
        return self._view[idx * self.size:(idx + 1) * self.size]

    def make_sge(self, idx: int, length: int | None = None,
                 offset: int = 0) -> SGE:
        length = self.size - offset if length is None else length
        if offset < 0 or length < 0 or offset + length > self.size:
            raise PyverbsUserError(f'[{offset}, {offset + length}) is '
                                   f'outside a {self.size}-byte buffer')
        return SGE(self.addr(idx, offset), length, self.mr.lkey)

    def make_recv_wr(self, idx: int) -> RecvWR:
        return RecvWR(wr_id=idx, num_sge=1, sg=[self.make_sge(idx)])

    def make_send_wr(self, idx: int, length: int,
                     opcode: int = e.IBV_WR_SEND,
                     send_flags: int = e.IBV_SEND_SIGNALED,
                     **kw: Unpack[_SendWRKeywords]) -> SendWR:
        return SendWR(wr_id=idx, opcode=opcode, num_sge=1,
                      sg=[self.make_sge(idx, length)],
                      send_flags=send_flags, **kw)

    def post_recvs(self, qp: QP, count: int) -> None:
        """Post count receives (one buffer each) in a single post_recv."""
        if count > len(self._free):
            raise PyverbsUserError(f'only {len(self._free)} free buffers')
        idxs = [self.pop() for _ in range(count)]
        try:
            qp.post_recv([self.make_recv_wr(i) for i in idxs])
        except Exception:
            self._free.extend(reversed(idxs))
            raise

    def finish_wcs(self, qp: QP, wcs: Iterable[WC],
                   repost: bool = True) -> None:
        """Take back the buffers of receive completions wcs and, with
        repost, post them again as receives on qp."""
        idxs = [wc.wr_id for wc in wcs]
        for i in idxs:
            self._check(i)
        if repost and idxs:
            qp.post_recv([self.make_recv_wr(i) for i in idxs])
        elif idxs:
            self._free.extend(idxs)

    def copy_to(self, data: bytes | bytearray | memoryview, idx: int,
                offset: int = 0) -> None:
        self._check(idx)
        if offset < 0 or offset + len(data) > self.size:
            raise PyverbsUserError('data does not fit in the buffer')
        start = idx * self.size + offset
        self._view[start:start + len(data)] = data

    def copy_from(self, idx: int, offset: int = 0,
                  length: int | None = None) -> bytes:
        self._check(idx)
        length = self.size - offset if length is None else length
        if offset < 0 or length < 0 or offset + length > self.size:
            raise PyverbsUserError('range outside the buffer')
        start = idx * self.size + offset
        return bytes(self._view[start:start + length])
