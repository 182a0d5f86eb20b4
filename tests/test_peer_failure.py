# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Peer failure: the remote process of a connection is killed with SIGKILL
while messages flow.  The survivor must see the failure (error completions
within its retry timeout for an RC QP; DISCONNECTED for rdma_cm) without
hanging, close everything, and connect again to a new peer.

Both sides are processes on rxe0 (loopback: in the Soft-RoCE VM, rxe0 and
rxe1 share one network namespace, and RC traffic between them does not
flow).  The peer is a child Python (tests/fakes/peer_child.py) that talks
to this one over its stdin/stdout.  tests/test_cmid.py's
test_peer_vanishes_mid_connection covers a peer that exits (os._exit)
with no traffic; here the peer is killed mid-traffic.
"""
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

import pytest

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID, ConnParam
from pyverbs.cq import CQ
from pyverbs.qp import QPCap, QPInitAttr

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rdma_helpers import End, send_wr  # noqa: E402

CHILD = os.path.join(HERE, 'fakes', 'peer_child.py')
# Local ACK timeout 4.096 us << 12 (about 17 ms), one retry: the survivor
# learns within well under a second (we allow 30 s: the guest is slow).
TIMEOUT, RETRY = 12, 1
DEADLINE = 30.0
WINDOW = 8


class Peer:
    """The child process: JSON lines both ways."""
    def __init__(self, *args):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (os.environ.get('PYTHONPATH'), HERE) if p))
        self.err = tempfile.TemporaryFile(mode='w+')
        self.p = subprocess.Popen([sys.executable, CHILD, *args],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, env=env)

    def stderr(self):
        self.err.seek(0)
        return self.err.read()[-2000:]

    def read(self, timeout=180):
        """The peer's next line (a slow guest can take a minute to start
        a Python)."""
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        assert r, f'the peer said nothing: {self.stderr()}'
        line = self.p.stdout.readline()
        assert line, f'the peer died (rc {self.p.poll()}): {self.stderr()}'
        return json.loads(line)

    def write(self, obj):
        self.p.stdin.write(json.dumps(obj) + '\n')
        self.p.stdin.flush()

    def kill(self):
        self.p.send_signal(signal.SIGKILL)
        assert self.p.wait(30) == -signal.SIGKILL

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(30)
        self.p.stdin.close()
        self.p.stdout.close()
        self.err.close()


def _connect_rc(ctx, gid_index, dev_name):
    """An RC End here, connected to a new peer process's End."""
    peer = Peer('rc', dev_name, str(gid_index), str(TIMEOUT), str(RETRY))
    end = End(ctx, e.IBV_QPT_RC, gid_index=gid_index, depth=64,
              msg_size=64)
    info = peer.read()
    gid = ctx.query_gid(1, gid_index)
    remote = type('Remote', (), {'gid': gid})()
    end.qp.establish(info['qpn'], info['psn'], end.ah_attr_to(remote),
                     local_psn=end.psn, timeout=TIMEOUT, retry_cnt=RETRY,
                     rnr_retry=7, path_mtu=e.IBV_MTU_1024)
    peer.write({'qpn': end.qp.qp_num, 'psn': end.psn})
    assert peer.read() == {'ready': True}
    return peer, end


def _send_some(end, n):
    """n messages, WINDOW at a time, all successful."""
    done = 0
    while done < n:
        k = min(WINDOW, n - done)
        for i in range(k):
            end.qp.post_send(send_wr(end, b'm' * 64, wr_id=done + i))
        got = 0
        limit = time.monotonic() + DEADLINE
        while got < k:
            _, wcs = end.cq.poll(k - got)
            for wc in wcs:
                assert wc.status == e.IBV_WC_SUCCESS, wc.status
            got += len(wcs)
            assert time.monotonic() < limit, 'no send completion'
        done += k


def _until_error(cq, deadline):
    """Poll until a completion with an error status: (its status, seconds
    waited); every completion after it must be an error too."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline:
        _, wcs = cq.poll(WINDOW)
        errs = [wc.status for wc in wcs if wc.status != e.IBV_WC_SUCCESS]
        if errs:
            return errs[0], time.monotonic() - t0
        time.sleep(0.001)
    raise AssertionError(f'no error completion within {deadline} s')


@pytest.mark.device
def test_rc_peer_killed_mid_traffic(ctx, gid_index, dev_name):
    peer, end = _connect_rc(ctx, gid_index, dev_name)
    try:
        _send_some(end, 64)
        assert peer.read()['received'] >= 1
        # sends in flight while the peer dies
        for i in range(WINDOW):
            end.qp.post_send(send_wr(end, b'k' * 64, wr_id=1000 + i))
        peer.kill()
        for i in range(WINDOW):
            try:
                end.qp.post_send(send_wr(end, b'z' * 64, wr_id=2000 + i))
            except Exception:   # noqa: BLE001 -- the QP may be in ERR
                break
        status, waited = _until_error(end.cq, DEADLINE)
        assert status in (e.IBV_WC_RETRY_EXC_ERR, e.IBV_WC_WR_FLUSH_ERR,
                          e.IBV_WC_REM_ACCESS_ERR, e.IBV_WC_REM_OP_ERR,
                          e.IBV_WC_RNR_RETRY_EXC_ERR), status
        attr, _ = end.qp.query(e.IBV_QP_STATE)
        assert attr.qp_state == e.IBV_QPS_ERR
    finally:
        peer.close()
        end.close()
    assert end.qp.closed and end.cq.closed and end.pd.closed
    # a new peer, a new connection: traffic flows again
    peer, end = _connect_rc(ctx, gid_index, dev_name)
    try:
        _send_some(end, 16)
        assert peer.read()['received'] >= 1
    finally:
        peer.close()
        end.close()


IP = '192.0.2.1'


def _expect(ch, want, timeout=DEADLINE):
    r, _, _ = select.select([ch], [], [], timeout)
    assert r, f'no CM event within {timeout} s (wanted {want})'
    ev = CMEvent(ch)
    try:
        assert ev.event_type in want, ev.event_str()
        return ev.event_type
    finally:
        ev.close()


def _cm_client(port):
    """This side of an rdma_cm connection to a new peer: (peer, channel,
    id, cq, mr); the QP's completions go to cq, polled here."""
    peer = Peer('cm', IP, port)
    assert peer.read() == {'listening': True}
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    cid.set_option(ce.RDMA_OPTION_ID, ce.RDMA_OPTION_ID_ACK_TIMEOUT,
                   TIMEOUT, 1)
    cid.resolve_addr(AddrInfo(src=IP, dst=IP, dst_service=port))
    _expect(ch, (ce.RDMA_CM_EVENT_ADDR_RESOLVED,))
    cid.resolve_route()
    _expect(ch, (ce.RDMA_CM_EVENT_ROUTE_RESOLVED,))
    cq = CQ(cid.context, 64)
    cid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                             cap=QPCap(max_send_wr=32, max_recv_wr=4)))
    mr = cid.reg_msgs(1024)
    cid.connect(ConnParam(retry=RETRY, rnr_retry=7))
    _expect(ch, (ce.RDMA_CM_EVENT_ESTABLISHED,))
    assert peer.read() == {'up': True}
    return peer, ch, cid, cq, mr


def _cm_send(cid, cq, mr, n):
    for _ in range(n):
        cid.post_send(mr, length=64)
        limit = time.monotonic() + DEADLINE
        while True:
            _, wcs = cq.poll()
            if wcs:
                assert wcs[0].status == e.IBV_WC_SUCCESS, wcs[0].status
                break
            assert time.monotonic() < limit, 'no send completion'


@pytest.mark.device
def test_cm_peer_killed_mid_traffic(dev_names, accept_local):
    peer, ch, cid, cq, mr = _cm_client('18601')
    try:
        _cm_send(cid, cq, mr, 32)
        assert peer.read()['received'] >= 1
        for _ in range(WINDOW):
            cid.post_send(mr, length=64)
        peer.kill()
        # the kernel closes the dead process's rdma_cm ids: DREQ, and the
        # survivor sees DISCONNECTED (never a hang)
        t0 = time.monotonic()
        _expect(ch, (ce.RDMA_CM_EVENT_DISCONNECTED,))
        assert time.monotonic() - t0 < DEADLINE
        cid.disconnect()            # our QP to ERR: the rest flushes
        # every send accounted for: successes before the death, errors
        # after it, none lost
        seen, limit = 0, time.monotonic() + DEADLINE
        while seen < WINDOW:
            _, wcs = cq.poll(WINDOW)
            seen += len(wcs)
            assert time.monotonic() < limit, f'{seen} of {WINDOW} sends'
    finally:
        peer.close()
        ch.close()
    assert cid.closed
    cq.close()
    # a new peer, a new connection on the same port
    peer, ch, cid, cq, mr = _cm_client('18601')
    try:
        _cm_send(cid, cq, mr, 8)
        assert peer.read()['received'] >= 1
    finally:
        peer.close()
        ch.close()
        cq.close()
