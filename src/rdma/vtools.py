# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's verbs helpers: BufferPool (over pyverbs.vtools.BufferPool)
and CQPoller, speaking rdma.ibverbs' types (sge, send_wr, recv_wr, wc)."""
import math
import select

import rdma
import rdma.ibverbs as ibv
import rdma.tools
from pyverbs import vtools as _vtools
from pyverbs.pyverbs_error import PyverbsUserError

__all__ = ['BufferPool', 'CQPoller']

_RECV_DONE = (ibv.IBV_WC_SEND, ibv.IBV_WC_RDMA_WRITE, ibv.IBV_WC_RDMA_READ)


class BufferPool:
    """count buffers of size bytes in one MR of pd, for send and receive
    work requests; qp arguments may be a QP or an SRQ.

    A buffer is named by its index.  The send WRs the pool makes carry the
    index as wr_id; the receives it posts carry index | RECV_FLAG, so that
    finish_wcs() knows a receive buffer even from an error WC (whose opcode
    is undefined).  wr_id & BUF_ID_MASK is the index again, and
    _mem[index * size:] the buffer (a memoryview of the whole MR)."""

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
        #: the bit set in the wr_id of the receives the pool posts
        self.RECV_FLAG = 1 << count.bit_length()
        #: wr_id & BUF_ID_MASK is the buffer index
        self.BUF_ID_MASK = self.RECV_FLAG - 1
        self._mem = self._pool._view
        self._out = set()

    def close(self):
        """Deregister and free the buffers."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
            self._mem = None

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
            idx = self._live().pop()
        except PyverbsUserError:
            raise IndexError('pop from an empty BufferPool') from None
        self._out.add(idx)
        return idx

    def _index(self, buf_idx):
        """The buffer index of buf_idx, an index or a receive's wr_id
        (index | RECV_FLAG); IndexError if it names no buffer."""
        idx = buf_idx & ~self.RECV_FLAG
        if not 0 <= idx < self.count:
            raise IndexError(f'{buf_idx:#x} names no buffer of the pool '
                             f'(0..{self.count - 1}, | RECV_FLAG)')
        return idx

    def push(self, buf_idx):
        """Give buffer buf_idx (or a wr_id naming it) back.  IndexError for
        an index out of range or a buffer that is not taken."""
        idx = self._index(buf_idx)
        if idx not in self._out:
            raise IndexError(f'buffer {idx} is not taken from the pool')
        self._live().push(idx)
        self._out.discard(idx)

    def _addr(self, buf_idx):
        return self._live().addr(self._index(buf_idx))

    def make_sge(self, buf_idx, buf_len):
        """An rdma.ibverbs.sge for the first buf_len bytes of buffer
        buf_idx."""
        if not 0 <= buf_len <= self.size:
            raise ValueError(f'buf_len {buf_len} is outside 0..{self.size}')
        return ibv.sge(addr=self._addr(buf_idx), length=buf_len,
                       lkey=self._lkey)

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
        idxs = [self.pop() for _ in range(count)]
        try:
            qp.post_recv([ibv.recv_wr(wr_id=i | self.RECV_FLAG,
                                      sg_list=self.make_sge(i, self.size))
                          for i in idxs])
        except BaseException:
            for i in reversed(idxs):
                self.push(i)
            raise

    def finish_wcs(self, qp, wcs):
        """Take back the buffers of completions wcs (a list, or one wc):
        every WC whose wr_id names a buffer taken from the pool gives it
        back, and as many receives as came back are posted again on qp.
        Then, if a WC failed, raise rdma.ibverbs.WCError for the first
        one (after the buffers are back)."""
        self._live()
        if isinstance(wcs, ibv.wc):
            wcs = (wcs,)
        new_recvs = 0
        err = None
        for wc in wcs:
            if wc is None:
                continue
            if wc.wr_id != self.NO_WR_ID and \
                    wc.wr_id & ~self.RECV_FLAG in self._out:
                self.push(wc.wr_id)
                if wc.wr_id & self.RECV_FLAG:
                    new_recvs += 1
            if wc.status != ibv.IBV_WC_SUCCESS and err is None:
                err = wc
        self.post_recvs(qp, new_recvs)
        if err is not None:
            is_rq = None if err.wr_id == self.NO_WR_ID else \
                bool(err.wr_id & self.RECV_FLAG)
            raise ibv.WCError(err, obj=qp if isinstance(
                qp, (ibv.QP, ibv.SRQ)) else None, is_rq=is_rq)

    def _range(self, buf_idx, offset, length):
        if not 0 <= offset <= self.size:
            raise ValueError(f'offset {offset} is outside 0..{self.size}')
        if length < 0:
            raise ValueError('length cannot be negative')
        view = self._live().view(self._index(buf_idx))
        return view, min(length, self.size - offset)

    def copy_from(self, buf_idx, offset=0, length=0xFFFFFFFF):
        """A copy (bytearray) of buffer buf_idx (or the buffer a wr_id
        names) from offset, at most length bytes."""
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
    """Iterate over the completions of cq (rdma.ibverbs.CQ).  If the CQ
    has a completion channel, the poller sleeps on it while the CQ is
    empty (else it spins), and with async_events it also services the
    Context's asynchronous events meanwhile (Context.handle_async_event:
    an error event raises rdma.ibverbs.AsyncError, port changes refresh
    the EndPort).  solicited_only arms the CQ for solicited completions
    only.  (A CompChannel given as second argument, the CQ's own, is
    accepted for this package's earlier CQPoller(cq, cc).)"""

    #: True when the last iterwc() stopped at its time limit
    timedout = False
    #: rdma.tools.clock_monotonic() value at which iteration stops (None:
    #: no limit); the caller may move it while iterating
    wakeat = None

    def __init__(self, cq, async_events=True, solicited_only=False):
        if not isinstance(cq, ibv.CQ):
            raise TypeError('cq must be an rdma.ibverbs.CQ')
        cc = cq.comp_chan
        if isinstance(async_events, ibv.CompChannel):
            if async_events is not cc:
                raise ValueError('the CQ is not attached to this '
                                 'completion channel')
            async_events = True
        self._cq = cq
        self._cc = cc
        self._solicited_only = bool(solicited_only)
        self._ctx = None
        self._poll = None
        if cc is not None:
            self._poll = select.poll()
            cc.register_poll(self._poll)
            if async_events:
                self._ctx = cq.ctx
                self._ctx.register_poll(self._poll)

    def __iter__(self):
        return self.iterwc()

    def sleep(self, wakeat):
        """Wait for the CQ's completion channel to fire, servicing async
        events meanwhile: True when it fired (at once without a channel),
        None once clock_monotonic() passes wakeat (None: no limit).  Arm
        the CQ (req_notify) and poll it empty first, or an event can be
        missed."""
        while True:
            left = None if wakeat is None else \
                wakeat - rdma.tools.clock_monotonic()
            if left is not None and left <= 0:
                return None
            if self._poll is None:
                return True
            ms = -1 if left is None else max(1, math.ceil(left * 1000))
            for ev in self._poll.poll(ms):
                if self._cc.check_poll(ev) is not None:
                    return True
                if self._ctx is not None and self._ctx.check_poll(ev):
                    aev = self._ctx.get_async_event()
                    if aev is not None:
                        self._ctx.handle_async_event(aev)

    def iterwc(self, count=None, timeout=None, wakeat=None):
        """Yield rdma.ibverbs.wc: at most count (None: no limit), until
        timeout seconds have passed, or until rdma.tools.clock_monotonic()
        passes wakeat; the deadline is read from self.wakeat each time the
        CQ is found empty, so the caller can move it while iterating.
        Stops without raising at the limit, setting timedout."""
        if count is not None and count < 0:
            raise ValueError('count cannot be negative')
        self.timedout = False
        self.wakeat = wakeat
        if timeout is not None:
            self.wakeat = rdma.tools.clock_monotonic() + timeout
        left = count
        while left is None or left > 0:
            batch = 16 if left is None else min(left, 16)
            wcs = self._cq.poll(batch)
            if not wcs:
                if self._poll is not None:
                    self._cq.req_notify(self._solicited_only)
                    wcs = self._cq.poll(batch)
                if not wcs and self.sleep(self.wakeat) is None:
                    self.timedout = True
                    return
            for wc in wcs:
                if left is not None:
                    left -= 1
                yield wc

    def close(self):
        """Stop watching the completion channel and the async events."""
        self._poll = None
        self._ctx = None
