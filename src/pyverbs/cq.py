# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Completion queues, completion channels and work completions.

CompChannel, CQ, WC and the extended CQ (CqInitAttrEx, CQEX, PollCqAttr,
WcTmInfo) come from the native layer, their printed formats from
pyverbs._formats; this module re-exports upstream's string helpers and
adds two conveniences from python-rdma: WCError (a failed completion as an exception) and CQPoller
(a generator of completions that sleeps on the completion channel).
"""
import select
import time

from pyverbs._verbs import (CompChannel, CQ, WC, CqInitAttrEx, CQEX,
                            PollCqAttr, WcTmInfo)
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsError, PyverbsRDMAError, PyverbsUserError)
from pyverbs._unimplemented import fill_missing
from pyverbs._formats import (  # noqa: F401  (upstream's helpers)
    cqe_flags_to_str, cqe_opcode_to_str, cqe_status_to_str,
    create_wc_flags_to_str, flags_to_str)


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
