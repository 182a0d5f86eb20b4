#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""RC ping-pong between two RDMA devices (rxe0 and rxe1 in the test VM).

Connects one RC QP on each device (no CM: the peers' QP numbers and GIDs are
exchanged in-process), then:
  1. SEND/RECV ping-pong: the client sends a message, the server answers
     it; prints the average round-trip latency;
  2. RDMA WRITE stream: 64-byte writes into the server's MR, up to 64 in
     flight; prints the message rate and checks the data arrived.

    python3 examples/rc_pingpong.py [--dev rxe0] [--peer rxe1] [-n 1000]
"""
import argparse
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

PORT = 1
MSG = 64
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ)


def roce_gid_index(ctx):
    """The RoCEv2 GID index of the port's IPv4 address."""
    best = None
    for idx in range(ctx.query_port(PORT).gid_tbl_len):
        try:
            gid = str(ctx.query_gid(PORT, idx))
        except Exception:
            continue
        if gid.startswith('0000:0000:0000:0000:0000:ffff'):
            best = idx
            if ctx.query_gid_type(PORT, idx) == e.IBV_GID_TYPE_ROCE_V2:
                return idx
    if best is None:
        raise SystemExit(f'{ctx.name}: port {PORT} has no IPv4 GID')
    return best


class Peer:
    """One end: a Context, PD, CQ, MR and an RC QP."""

    def __init__(self, name):
        self.ctx = Context(name=name)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 256)
        self.mr = MR(self.pd, 2 * MSG, ACCESS)
        cap = QPCap(max_send_wr=128, max_recv_wr=128)
        self.qp = QP(self.pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                         rcq=self.cq, cap=cap, sq_sig_all=1))
        self.gid_index = roce_gid_index(self.ctx)
        self.gid = self.ctx.query_gid(PORT, self.gid_index)

    def connect(self, other):
        attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=PORT)
        attr.qp_access_flags = ACCESS
        self.qp.to_init(attr)
        attr.ah_attr = AHAttr(gr=GlobalRoute(dgid=other.gid,
                                             sgid_index=self.gid_index),
                              is_global=1, port_num=PORT)
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = other.qp.qp_num
        attr.rq_psn = attr.sq_psn = 0
        attr.max_dest_rd_atomic = attr.max_rd_atomic = 1
        attr.min_rnr_timer, attr.timeout = 12, 14
        attr.retry_cnt = attr.rnr_retry = 7
        self.qp.to_rtr(attr)
        self.qp.to_rts(attr)

    def post_recv(self):
        self.qp.post_recv(RecvWR(num_sge=1,
                                 sg=[SGE(self.mr.buf, MSG, self.mr.lkey)]))

    def wait(self, count=1):
        """Poll until count completions arrived; fail on an error status."""
        got = 0
        while got < count:
            n, wcs = self.cq.poll(count - got)
            for wc in wcs:
                if wc.status != e.IBV_WC_SUCCESS:
                    raise SystemExit(f'completion error: status '
                                     f'{wc.status} on QP {wc.qp_num}')
            got += n


def ping_pong(client, server, iters):
    send_c = SendWR(num_sge=1, sg=[SGE(client.mr.buf + MSG, MSG,
                                       client.mr.lkey)])
    send_s = SendWR(num_sge=1, sg=[SGE(server.mr.buf + MSG, MSG,
                                       server.mr.lkey)])
    client.post_recv()
    server.post_recv()
    start = time.perf_counter()
    for i in range(iters):
        client.mr.write(f'ping {i}'.ljust(MSG), MSG, MSG)
        client.qp.post_send(send_c)
        client.wait()                       # send done
        server.wait()                       # ping arrived
        assert server.mr.read(MSG, 0).startswith(f'ping {i}'.encode())
        server.post_recv()
        server.qp.post_send(send_s)
        server.wait()
        client.wait()                       # pong arrived
        client.post_recv()
    return (time.perf_counter() - start) / iters


def write_stream(client, server, count, window=64):
    wr = SendWR(opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                sg=[SGE(client.mr.buf, MSG, client.mr.lkey)])
    wr.set_wr_rdma(server.mr.rkey, server.mr.buf)
    client.mr.write(b'W' * MSG, MSG)
    posted = done = 0
    start = time.perf_counter()
    while done < count:
        while posted - done < window and posted < count:
            client.qp.post_send(wr)
            posted += 1
        n, wcs = client.cq.poll(window)
        for wc in wcs:
            if wc.status != e.IBV_WC_SUCCESS:
                raise SystemExit(f'RDMA WRITE failed: status {wc.status}')
        done += n
    elapsed = time.perf_counter() - start
    assert server.mr.read(MSG, 0) == b'W' * MSG
    return count / elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dev', default='rxe0')
    ap.add_argument('--peer', default='rxe1')
    ap.add_argument('-n', '--iters', type=int, default=1000)
    args = ap.parse_args()

    client, server = Peer(args.dev), Peer(args.peer)
    client.connect(server)
    server.connect(client)
    print(f'RC {args.dev} (QP {client.qp.qp_num}) <-> {args.peer} '
          f'(QP {server.qp.qp_num}), {MSG}-byte messages')
    rtt = ping_pong(client, server, args.iters)
    print(f'SEND/RECV ping-pong: {args.iters} round trips, '
          f'average latency {rtt * 1e6 / 2:.1f} us one way '
          f'({rtt * 1e6:.1f} us round trip)')
    rate = write_stream(client, server, args.iters * 10)
    print(f'RDMA WRITE: {args.iters * 10} messages, {rate:,.0f} msg/s, '
          f'{rate * MSG * 8 / 1e6:.1f} Mbit/s')
    client.ctx.close()
    server.ctx.close()


if __name__ == '__main__':
    main()
