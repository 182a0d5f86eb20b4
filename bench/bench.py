#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Micro-benchmarks written against the public pyverbs API.

The same script runs against pyverbs-c and against upstream's Cython
pyverbs (e.g. Debian's python3-pyverbs under /usr/bin/python3), inside one
Soft-RoCE VM run, so that their numbers can be compared as ratios.  It
prints one JSON object: {benchmark name: operations per second}.

    python3 bench/bench.py [--dev rxe0] [--peer rxe1] [--seconds 2]

Benchmarks:
  write64_window      64-byte RDMA WRITEs, one WR per post_send, at most 64
                      outstanding, every WR signalled, completions polled
                      in batches of up to 64 (msg/s)
  write64_batch       the same, but 16 WRs per post_send: a list where the
                      package takes one (pyverbs-c), else a next_wr chain
  poll_empty          CQ.poll() on an empty CQ (calls/s)
  wr_build            SGE(...) + SendWR(...) construction (WRs/s)
  pd, mr4k, cq, rc_qp create-and-destroy (objects/s); rc_qp includes the
                      moves RESET->INIT->RTR->RTS
  cm_connect          rdma_cm RC connections set up and torn down (/s):
                      resolve address and route, QPs on both sides,
                      connect, accept, ESTABLISHED on both, disconnect
                      on both, DISCONNECTED on both, close; --cm-client to
                      --cm-server (IPs of the two devices), both sides
                      driven from one thread through two event channels
"""
import argparse
import json
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, SendWR

# query_gid_type() returns the sysfs GID type: RoCE v2 is 1.
ROCE_V2_SYSFS = getattr(e, 'IBV_GID_TYPE_SYSFS_ROCE_V2', 1)

PORT = 1
# a write benchmark that sees no completion for this long gives up
STALL_SECONDS = 30
ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
          e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)


def roce_gid_index(ctx):
    """An IPv4-mapped RoCEv2 GID index of PORT (prefer the v2 entry)."""
    found = None
    for idx in range(ctx.query_port(PORT).gid_tbl_len):
        try:
            gid = str(ctx.query_gid(PORT, idx))
        except Exception:
            continue
        if not gid.startswith('0000:0000:0000:0000:0000:ffff'):
            continue
        found = idx
        try:
            if ctx.query_gid_type(PORT, idx) == ROCE_V2_SYSFS:
                return idx
        except Exception:
            pass
    if found is None:
        raise SystemExit(f'{ctx.name}: no IPv4 RoCE GID')
    return found


class Side:
    def __init__(self, name, depth=256, size=4096):
        self.ctx = Context(name=name)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, depth)
        self.mr = MR(self.pd, size, ACCESS)
        self.gid_index = roce_gid_index(self.ctx)
        self.gid = self.ctx.query_gid(PORT, self.gid_index)
        self.qp = make_rc_qp(self.pd, self.cq, depth // 2)

    def close(self):
        self.ctx.close()


def make_rc_qp(pd, cq, depth=128):
    cap = QPCap(max_send_wr=depth, max_recv_wr=depth, max_send_sge=1,
                max_recv_sge=1)
    init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap,
                      sq_sig_all=0)
    return QP(pd, init)


def connect(qp, gid_index, remote_gid, remote_qpn):
    attr = QPAttr(qp_state=e.IBV_QPS_INIT, port_num=PORT)
    attr.qp_access_flags = ACCESS
    attr.pkey_index = 0
    qp.to_init(attr)
    gr = GlobalRoute(dgid=remote_gid, sgid_index=gid_index)
    attr.ah_attr = AHAttr(gr=gr, is_global=1, port_num=PORT)
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = remote_qpn
    attr.rq_psn = 0
    attr.max_dest_rd_atomic = 1
    attr.min_rnr_timer = 12
    qp.to_rtr(attr)
    attr.sq_psn = 0
    # 4.096 us << 18 = about 1 s before a retransmission: under software
    # emulation a shorter timeout retransmits packets that are only late
    attr.timeout = 18
    attr.retry_cnt = 7
    attr.rnr_retry = 7
    attr.max_rd_atomic = 1
    qp.to_rts(attr)


def rate(fn, seconds):
    """Run fn() (which returns how many operations it did) repeatedly for
    about `seconds`; return operations per second."""
    fn()                                    # warm up
    ops = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        ops += fn()
        now = time.perf_counter()
        if now >= end:
            return ops / (now - start)


def bench_write(a, b, seconds, batch, use_list):
    rkey, raddr = b.mr.rkey, b.mr.buf
    window = 64
    n_per_round = 4096
    wrs = []
    for i in range(window):
        wr = SendWR(wr_id=i, opcode=e.IBV_WR_RDMA_WRITE, num_sge=1,
                    sg=[SGE(a.mr.buf, 64, a.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(rkey, raddr)
        wrs.append(wr)
    groups, keep = [], []
    if batch > 1:
        for g in range(0, window, batch):
            chunk = wrs[g:g + batch]
            if use_list:
                groups.append(chunk)
            else:                            # upstream: a next_wr chain
                head = SendWR(wr_id=g, opcode=e.IBV_WR_RDMA_WRITE,
                              num_sge=1, sg=[SGE(a.mr.buf, 64, a.mr.lkey)],
                              send_flags=e.IBV_SEND_SIGNALED)
                head.set_wr_rdma(rkey, raddr)
                tail = head
                for k in range(1, batch):
                    nxt = SendWR(wr_id=g + k, opcode=e.IBV_WR_RDMA_WRITE,
                                 num_sge=1,
                                 sg=[SGE(a.mr.buf, 64, a.mr.lkey)],
                                 send_flags=e.IBV_SEND_SIGNALED)
                    nxt.set_wr_rdma(rkey, raddr)
                    # upstream's next_wr setter keeps only the C pointer:
                    # hold every WR of the chain, or the freed ones are
                    # posted as garbage (bad requests, lost completions)
                    keep.append(nxt)
                    tail.next_wr = nxt
                    tail = nxt
                groups.append(head)
    qp, cq = a.qp, a.cq
    post, poll = qp.post_send, cq.poll
    clock = time.monotonic

    def run():
        posted = done = outstanding = 0
        gi = 0
        progress = clock()
        while done < n_per_round:
            if batch == 1:
                while outstanding < window and posted < n_per_round:
                    post(wrs[posted % window])
                    posted += 1
                    outstanding += 1
            else:
                while outstanding + batch <= window and \
                        posted < n_per_round:
                    post(groups[gi])
                    gi = (gi + 1) % len(groups)
                    posted += batch
                    outstanding += batch
            n, wcs = poll(window)
            if n:
                for wc in wcs:
                    if wc.status:
                        raise SystemExit(f'WC error status {wc.status}')
                done += n
                outstanding -= n
                progress = clock()
            elif clock() - progress > STALL_SECONDS:
                raise SystemExit(f'no completion for {STALL_SECONDS} s '
                                 f'({outstanding} WRs outstanding, '
                                 f'{done} done)')
        return done
    return rate(run, seconds)


def bench_poll_empty(cq, seconds):
    poll = cq.poll

    def run():
        for _ in range(10000):
            poll()
        return 10000
    return rate(run, seconds)


def bench_wr_build(mr, seconds):
    buf, lkey = mr.buf, mr.lkey
    op, flags = e.IBV_WR_RDMA_WRITE, e.IBV_SEND_SIGNALED

    def run():
        for i in range(5000):
            SendWR(wr_id=i, opcode=op, num_sge=1, sg=[SGE(buf, 64, lkey)],
                   send_flags=flags)
        return 5000
    return rate(run, seconds)


def allow_local_delivery():
    """rdma_cm between two local IPs crosses the veth pair only when the
    kernel accepts packets from a local source address (root only)."""
    for conf in ('all', 'default'):
        try:
            with open(f'/proc/sys/net/ipv4/conf/{conf}/accept_local',
                      'w') as f:
                f.write('1')
        except OSError:
            pass


def bench_cm_connect(client_ip, server_ip, seconds, port='7471'):
    """Connections per second over rdma_cm, asynchronous ids only (the
    reference's blocking calls hold the GIL, so one thread drives both
    sides and waits only for events that are sure to come)."""
    import pyverbs.cm_enums as ce
    from pyverbs.cmid import (AddrInfo, CMEvent, CMEventChannel, CMID,
                              ConnParam)
    allow_local_delivery()
    tcp = ce.RDMA_PS_TCP
    sch, cch = CMEventChannel(), CMEventChannel()
    src = AddrInfo(src=server_ip, src_service=port, port_space=tcp,
                   flags=ce.RAI_PASSIVE)
    dst = AddrInfo(src=client_ip, dst=server_ip, dst_service=port,
                   port_space=tcp)
    listener = CMID(creator=sch, port_space=tcp)
    listener.bind_addr(src)
    listener.listen()

    def init():
        # a new one each time: the reference's create_qp leaves librdmacm's
        # CQs in the attribute, and a second QP made from it fails (ENOENT)
        return QPInitAttr(qp_type=e.IBV_QPT_RC,
                          cap=QPCap(max_send_wr=4, max_recv_wr=4))

    def expect(ch, etype):
        ev = CMEvent(ch)
        if ev.event_type != etype:
            got = ev.event_str()
            ev.ack_cm_event()
            raise RuntimeError(f'rdma_cm: expected event {etype}, got {got}')
        return ev

    def wait(ch, etype):
        expect(ch, etype).ack_cm_event()

    def one():
        c = CMID(creator=cch, port_space=tcp)
        c.resolve_addr(dst, 2000)
        wait(cch, ce.RDMA_CM_EVENT_ADDR_RESOLVED)
        c.resolve_route(2000)
        wait(cch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED)
        c.create_qp(init())
        c.connect(ConnParam())
        ev = expect(sch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)
        s = CMID(creator=ev, listen_id=listener)
        ev.ack_cm_event()
        s.create_qp(init())
        s.accept(ConnParam())
        wait(cch, ce.RDMA_CM_EVENT_ESTABLISHED)
        wait(sch, ce.RDMA_CM_EVENT_ESTABLISHED)
        c.disconnect()
        wait(sch, ce.RDMA_CM_EVENT_DISCONNECTED)
        s.disconnect()
        wait(cch, ce.RDMA_CM_EVENT_DISCONNECTED)
        s.close()
        c.close()

    def run():
        for _ in range(5):
            one()
        return 5
    try:
        return rate(run, seconds)
    finally:
        for o in (listener, src, dst, sch, cch):
            o.close()


def bench_create(make, seconds, count=50):
    def run():
        for _ in range(count):
            make().close()
        return count
    return rate(run, seconds)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dev', default='rxe0')
    ap.add_argument('--peer', default='rxe1')
    ap.add_argument('--seconds', type=float, default=2.0)
    ap.add_argument('--cm-client', default='192.0.2.1')
    ap.add_argument('--cm-server', default='192.0.2.2')
    ap.add_argument('--only', help='comma-separated benchmark names')
    args = ap.parse_args()
    only = set(args.only.split(',')) if args.only else None
    s = args.seconds

    a, b = Side(args.dev), Side(args.peer)
    connect(a.qp, a.gid_index, b.gid, b.qp.qp_num)
    connect(b.qp, b.gid_index, a.gid, a.qp.qp_num)
    # does this pyverbs take a list of WRs in one post_send?
    try:
        a.qp.post_send([])
        takes_list = True
    except Exception:
        takes_list = False

    res = {}

    def want(name):
        return only is None or name in only

    if want('write64_window'):
        res['write64_window'] = bench_write(a, b, s, 1, False)
    if want('write64_batch'):
        res['write64_batch'] = bench_write(a, b, s, 16, takes_list)
    if want('poll_empty'):
        res['poll_empty'] = bench_poll_empty(b.cq, s)
    if want('wr_build'):
        res['wr_build'] = bench_wr_build(a.mr, s)
    if want('pd'):
        res['pd'] = bench_create(lambda: PD(a.ctx), s)
    if want('mr4k'):
        res['mr4k'] = bench_create(lambda: MR(a.pd, 4096, ACCESS), s)
    if want('cq'):
        res['cq'] = bench_create(lambda: CQ(a.ctx, 64), s)
    if want('rc_qp'):
        def make_qp():
            qp = make_rc_qp(a.pd, a.cq, 16)
            connect(qp, a.gid_index, b.gid, b.qp.qp_num)
            return qp
        res['rc_qp'] = bench_create(make_qp, s, 10)
    if want('cm_connect'):
        res['cm_connect'] = bench_cm_connect(args.cm_client, args.cm_server,
                                             s)
    res['_list_post'] = takes_list
    a.close()
    b.close()
    json.dump(res, sys.stdout)
    print()


if __name__ == '__main__':
    main()
