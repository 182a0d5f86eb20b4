# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's verbs helpers: BufferPool and CQPoller, as adapters over
pyverbs.vtools.BufferPool and pyverbs.cq.CQPoller that speak
rdma.ibverbs's types (sge, send_wr, recv_wr, wc)."""
import time

import rdma
import rdma.ibverbs as ibv
from pyverbs import cq as _cq
from pyverbs import vtools as _vtools
from pyverbs.pyverbs_error import PyverbsUserError

__all__ = ['BufferPool', 'CQPoller']

_RECV_DONE = (ibv.IBV_WC_SEND, ibv.IBV_WC_RDMA_WRITE, ibv.IBV_WC_RDMA_READ)


class BufferPool:
    """count buffers of size bytes in one MR of pd, for send and receive
    work requests.  A buffer is named by its index, which the WRs the pool
    makes carry as wr_id; qp arguments may be a QP or an SRQ."""

    #: wr_id of a WR that carries no pool buffer
    NO_WR_ID = 0xFFFFFFFF

    def __init__(self, pd, count, size):
        if not isinstance(pd, ibv.PD):
            raise TypeError('pd must be an rdma.ibverbs.PD')
        try:
            self._pool = _vtools.BufferPool(
                pd.native, count, size,
                access=ibv.IBV_ACCESS_LOCAL_WRITE)
        except PyverbsUserError as err:
            raise ValueError(str(err)) from None
        self._pd = pd
        self.count = count
        self.size = size
        self._lkey = self._pool.mr.lkey

    def close(self):
        """Deregister and free the buffers."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def _live(self):
        if self._pool is None:
            raise rdma.RDMAError('the BufferPool is closed')
        return self._pool

    def __len__(self):
        """The number of free buffers."""
        return len(self._live())

    def pop(self):
        """Take a free buffer: its index.  IndexError when none is
        left."""
        try:
            return self._live().pop()
        except PyverbsUserError:
            raise IndexError('pop from an empty BufferPool') from None

    def push(self, buf_idx):
        """Give buffer buf_idx back."""
        try:
            self._live().push(buf_idx)
        except PyverbsUserError as err:
            raise IndexError(str(err)) from None

    def make_sge(self, buf_idx, buf_len):
        """An rdma.ibverbs.sge for the first buf_len bytes of buffer
        buf_idx."""
        if not 0 <= buf_len <= self.size:
            raise ValueError(f'buf_len {buf_len} is outside 0..{self.size}')
        try:
            addr = self._live().addr(buf_idx)
        except PyverbsUserError as err:
            raise IndexError(str(err)) from None
        return ibv.sge(addr=addr, length=buf_len, lkey=self._lkey)

    def make_send_wr(self, buf_idx, buf_len, path=None):
        """A signaled IBV_WR_SEND of buf_len bytes of buffer buf_idx; with
        path (UD), addressed along it (its AH, dqpn, qkey)."""
        sg = self.make_sge(buf_idx, buf_len)
        if path is None:
            return ibv.send_wr(wr_id=buf_idx, sg_list=sg,
                               opcode=ibv.IBV_WR_SEND,
                               send_flags=ibv.IBV_SEND_SIGNALED)
        return ibv.send_wr(wr_id=buf_idx, sg_list=sg,
                           opcode=ibv.IBV_WR_SEND,
                           send_flags=ibv.IBV_SEND_SIGNALED,
                           ah=self._pd.ah(path), remote_qpn=path.dqpn,
                           remote_qkey=path.qkey)

    def post_recvs(self, qp, count):
        """Post count free buffers as receives on qp, in one call."""
        if count == 0:
            return
        pool = self._live()
        if not 0 < count <= len(pool):
            raise IndexError(f'{count} receives asked, {len(pool)} free '
                             'buffers')
        idxs = [pool.pop() for _ in range(count)]
        try:
            qp.post_recv([ibv.recv_wr(wr_id=i,
                                      sg_list=self.make_sge(i, self.size))
                          for i in idxs])
        except BaseException:
            for i in reversed(idxs):
                pool.push(i)
            raise

    def finish_wcs(self, qp, wcs):
        """Take back the buffers of completions wcs (receives, and sends,
        RDMA WRITEs and READs with a pool wr_id) and post as many receives
        again on qp.  Raises rdma.ibverbs.WCError for a failed WC."""
        pool = self._live()
        new_recvs = 0
        for wc in wcs:
            if wc is None:
                continue
            if wc.status != ibv.IBV_WC_SUCCESS:
                raise ibv.WCError(wc, obj=qp if isinstance(
                    qp, (ibv.QP, ibv.SRQ)) else None)
            if wc.opcode & ibv.IBV_WC_RECV:
                new_recvs += 1
            elif wc.opcode not in _RECV_DONE:
                continue
            if wc.wr_id != self.NO_WR_ID:
                pool.push(wc.wr_id)
        self.post_recvs(qp, new_recvs)

    def _range(self, buf_idx, offset, length):
        if not 0 <= offset <= self.size:
            raise ValueError(f'offset {offset} is outside 0..{self.size}')
        if length < 0:
            raise ValueError('length cannot be negative')
        try:
            view = self._live().view(buf_idx)
        except PyverbsUserError as err:
            raise IndexError(str(err)) from None
        return view, min(length, self.size - offset)

    def copy_from(self, buf_idx, offset=0, length=0xFFFFFFFF):
        """A copy (bytearray) of buffer buf_idx from offset, at most length
        bytes."""
        view, length = self._range(buf_idx, offset, length)
        with view:
            return bytearray(view[offset:offset + length])

    def copy_to(self, buf, buf_idx, offset=0, length=0xFFFFFFFF):
        """Copy buf (bytes-like) into buffer buf_idx at offset; what does
        not fit in length bytes or the buffer is left out."""
        if isinstance(buf, str):
            raise TypeError('copy_to() takes bytes; encode the str first')
        data = memoryview(buf).cast('B')
        view, length = self._range(buf_idx, offset, length)
        length = min(length, len(data))
        with view:
            view[offset:offset + length] = data[:length]


class CQPoller:
    """Iterate over the completions of cq (rdma.ibverbs.CQ), sleeping on
    completion channel cc (if given) while the CQ is empty; an adapter
    over pyverbs.cq.CQPoller.  Asynchronous events are not watched while
    sleeping (async_events is accepted for python-rdma's signature)."""

    #: True when the last iterwc() stopped at its time limit
    timedout = False
    #: time.monotonic() value at which iteration stops (None: no limit)
    wakeat = None

    def __init__(self, cq, cc=None, async_events=True):
        if not isinstance(cq, ibv.CQ):
            raise TypeError('cq must be an rdma.ibverbs.CQ')
        if cc is not None and not isinstance(cc, ibv.CompChannel):
            raise TypeError('cc must be an rdma.ibverbs.CompChannel')
        if cc is not None and cq.comp_chan is not cc:
            raise ValueError('the CQ is not attached to this completion '
                             'channel')
        self._cq = cq
        self._cc = cc
        # Without cc the poller busy-polls (python-rdma's behaviour).
        self._poller = _cq.CQPoller(cq.native,
                                    None if cc is None else cc.native)
        if cc is None:
            self._poller.channel = None

    def __iter__(self):
        return self.iterwc()

    def iterwc(self, count=None, timeout=None, wakeat=None):
        """Yield rdma.ibverbs.wc: at most count (None: no limit), for at
        most timeout seconds, or until time.monotonic() passes wakeat.
        Stops without raising at the limit, setting timedout."""
        if count is not None and count < 0:
            raise ValueError('count cannot be negative')
        self.timedout = False
        self.wakeat = wakeat
        if timeout is not None:
            self.wakeat = time.monotonic() + timeout
        left = None if self.wakeat is None else \
            max(0.0, self.wakeat - time.monotonic())
        done = 0
        for w in self._poller.iterwc(count, left):
            done += 1
            yield ibv._wc_from(w)
        if count is None or done < count:
            self.timedout = True

    def close(self):
        """Acknowledge the completion events the poller consumed."""
        self._poller.close()
