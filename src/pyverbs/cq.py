# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Completion queues, completion channels and work completions.

CompChannel, CQ, WC and the extended CQ (CqInitAttrEx, CQEX, PollCqAttr,
WcTmInfo) come from the native layer; this module adds their
printed formats, upstream's string helpers, and two conveniences from
python-rdma: WCError (a failed completion as an exception) and CQPoller
(a generator of completions that sleeps on the completion channel).
"""
import select
import time

from pyverbs._verbs import (CompChannel, CQ, WC, CqInitAttrEx, CQEX,
                            PollCqAttr, WcTmInfo)
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs._unimplemented import fill_missing

_FMT = '{:22}: {:<20}\n'

# enum ibv_wc_status -> upstream's text (rdma-core v44 pyverbs)
_WC_STATUS = {
    0: 'success',
    1: 'local length error',
    2: 'local QP op error',
    3: 'local EEC op error',
    4: 'local protection error',
    5: 'WR flush error',
    6: 'memory window bind error',
    7: 'bad response error',
    8: 'local access error',
    9: 'remote invalidate request error',
    10: 'remote access error',
    11: 'remote op error',
    12: 'retry exceeded error',
    13: 'RNR retry exceeded',
    14: 'local RDD violation error',
    15: 'remote invalidate RD request error',
    16: 'remote abort error',
    17: 'invalidate EECN error',
    18: 'invalidate EEC state error',
    19: 'WC fatal error',
    20: 'response timeout error',
    21: 'general error',
}

# enum ibv_wc_opcode -> text
_WC_OPCODE = {
    0x0: 'Send', 0x1: 'RDMA write', 0x2: 'RDMA read',
    0x3: 'Compare and swap', 0x4: 'Fetch and add',
    0x5: 'Bind Memory window', 0x6: 'Local invalidate',
    0x7: 'TSO', 0x80: 'Receive',
    0x81: 'Receive RDMA with immediate',
    0x82: 'Tag matching - add', 0x83: 'Tag matching - delete',
    0x84: 'Tag matching - sync', 0x85: 'Tag matching - receive',
    0x86: 'Tag matching - no tag',
}

# enum ibv_wc_flags -> text
_WC_FLAGS = {1: 'GRH', 2: 'With immediate', 4: 'IP csum OK',
             8: 'With invalidate', 16: 'TM sync request', 32: 'TM match',
             64: 'TM data valid'}

# enum ibv_create_cq_wc_flags -> name.  As in rdma-core v44, TM_INFO (1 << 10)
# is not listed.
_CREATE_WC_FLAGS = {
    1 << 0: 'IBV_WC_EX_WITH_BYTE_LEN',
    1 << 1: 'IBV_WC_EX_WITH_IMM',
    1 << 2: 'IBV_WC_EX_WITH_QP_NUM',
    1 << 3: 'IBV_WC_EX_WITH_SRC_QP',
    1 << 4: 'IBV_WC_EX_WITH_SLID',
    1 << 5: 'IBV_WC_EX_WITH_SL',
    1 << 6: 'IBV_WC_EX_WITH_DLID_PATH_BITS',
    1 << 7: 'IBV_WC_EX_WITH_COMPLETION_TIMESTAMP',
    1 << 8: 'IBV_WC_EX_WITH_CVLAN',
    1 << 9: 'IBV_WC_EX_WITH_FLOW_TAG',
    1 << 11: 'IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK',
}


def cqe_status_to_str(status):
    """Text of a work completion status (enum ibv_wc_status)."""
    return _WC_STATUS.get(status, 'Unknown CQE status')


def cqe_opcode_to_str(opcode):
    """Text of a work completion opcode (enum ibv_wc_opcode)."""
    try:
        return _WC_OPCODE[opcode]
    except KeyError:
        return f'Unknown CQE opcode {opcode}'


def flags_to_str(flags, dictionary):
    """The names of the bits of flags found in dictionary {bit: name}, each
    followed by a space."""
    return ''.join(name + ' ' for bit, name in dictionary.items()
                   if flags & bit)


def cqe_flags_to_str(flags):
    """Text of the flags of a work completion (enum ibv_wc_flags)."""
    return flags_to_str(flags, _WC_FLAGS)


def create_wc_flags_to_str(flags):
    """Names of the WC fields requested from an extended CQ
    (enum ibv_create_cq_wc_flags)."""
    return flags_to_str(flags, _CREATE_WC_FLAGS)


def _cq_str(self):
    return 'CQ\n' + _FMT.format('Handle', self.handle) + \
        _FMT.format('CQEs', self.cqe)


def _cqex_str(self):
    return 'Extended CQ:\n' + _FMT.format('Handle', self.handle) + \
        _FMT.format('CQEs', self.cqe)


def _cq_init_attr_ex_str(self):
    return _FMT.format('Number of CQEs', self.cqe) + \
        _FMT.format('WC flags', create_wc_flags_to_str(self.wc_flags)) + \
        _FMT.format('comp mask', self.comp_mask) + \
        _FMT.format('flags', self.flags)


def _wc_str(self):
    return _FMT.format('WR ID', self.wr_id) + \
        _FMT.format('status', cqe_status_to_str(self.status)) + \
        _FMT.format('opcode', cqe_opcode_to_str(self.opcode)) + \
        _FMT.format('vendor error', self.vendor_err) + \
        _FMT.format('byte length', self.byte_len) + \
        _FMT.format('QP num', self.qp_num) + \
        _FMT.format('source QP', self.src_qp) + \
        _FMT.format('WC flags', cqe_flags_to_str(self.wc_flags)) + \
        _FMT.format('pkey index', self.pkey_index) + \
        _FMT.format('slid', self.slid) + \
        _FMT.format('sl', self.sl) + \
        _FMT.format('imm_data', self.imm_data) + \
        _FMT.format('dlid path bits', self.dlid_path_bits)


def _wc_reduce(self):
    return (WC, (self.wr_id, self.status, self.opcode, self.vendor_err,
                 self.byte_len, self.qp_num, self.src_qp, self.imm_data,
                 self.wc_flags, self.pkey_index, self.slid, self.sl,
                 self.dlid_path_bits))


CQ.__str__ = _cq_str
CQEX.__str__ = _cqex_str
CqInitAttrEx.__str__ = _cq_init_attr_ex_str
WC.__str__ = _wc_str
WC.__reduce__ = _wc_reduce


# ---- conveniences (python-rdma) ----

class WCError(PyverbsRDMAError):
    """A work completion that did not succeed.

    wc is the failed WC; status and qp_num are copied from it; cq is the CQ
    it was polled from, when known.  A subclass of PyverbsRDMAError because
    that is what upstream's tests raise for a failed completion.  There is
    no errno for a failed completion: error_code is -1.
    """

    def __init__(self, wc, cq=None, msg=None):
        self.wc = wc
        self.cq = cq
        self.status = wc.status
        self.qp_num = wc.qp_num
        if msg is None:
            msg = (f'Completion status is {cqe_status_to_str(wc.status)} '
                   f'(status {wc.status}, vendor error {wc.vendor_err:#x}) '
                   f'on QP {wc.qp_num}, wr_id {wc.wr_id}')
        super().__init__(msg)

    def __reduce__(self):
        return (type(self), (self.wc, None, self._msg))


def _wc_raise_for_status(self, cq=None):
    """Raise WCError if the completion failed (status != IBV_WC_SUCCESS);
    return the WC otherwise."""
    if self.status != 0:
        raise WCError(self, cq)
    return self


WC.raise_for_status = _wc_raise_for_status


class CQPoller:
    """Iterate over the completions of a CQ, sleeping on its completion
    channel while the CQ is empty::

        poller = CQPoller(cq)
        for wc in poller.iterwc(count=10, timeout=1.0):
            wc.raise_for_status()

    channel defaults to cq.comp_channel; without a channel the poller busy
    polls.  Events are acked in batches (and by cq.close()).
    """

    ACK_BATCH = 16

    def __init__(self, cq, channel=None):
        if not isinstance(cq, CQ):
            raise TypeError(f'cq must be a CQ, not {type(cq).__name__}')
        if channel is None:
            channel = cq.comp_channel
        elif cq.comp_channel is not channel:
            raise PyverbsUserError('The CQ is not attached to this '
                                   'completion channel')
        self.cq = cq
        self.channel = channel
        self._armed = False

    def _ack(self, force=False):
        n = self.cq.num_events
        if n and (force or n >= self.ACK_BATCH):
            self.cq.ack_events(n)

    def _sleep(self, deadline):
        """Wait for a completion event; False when the deadline passed."""
        if not self._armed:
            # Arm first, then poll again: a completion that arrived before
            # arming sends no event.
            self.cq.req_notify()
            self._armed = True
            return True
        timeout = None if deadline is None else \
            max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([self.channel], [], [], timeout)
        if not ready:
            return False
        self.channel.get_cq_event(self.cq)
        self._armed = False
        self._ack()
        return True

    def iterwc(self, count=None, timeout=None):
        """Yield up to count WCs (all of them, for ever, if None), waiting
        at most timeout seconds in total (None: no limit).  Stops early,
        without raising, when the timeout expires."""
        if count is not None and count < 0:
            raise ValueError('count must not be negative')
        deadline = None if timeout is None else time.monotonic() + timeout
        done = 0
        batch = 16
        while count is None or done < count:
            want = batch if count is None else min(batch, count - done)
            n, wcs = self.cq.poll(want)
            if n:
                for wc in wcs:
                    yield wc
                done += n
                continue
            if deadline is not None and time.monotonic() >= deadline:
                return
            if self.channel is None:
                continue
            if not self._sleep(deadline):
                return

    def close(self):
        """Ack the events the poller got."""
        if not self.cq.closed:
            self._ack(force=True)


fill_missing(globals(), __name__)
