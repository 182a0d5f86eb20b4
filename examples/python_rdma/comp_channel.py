#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Completion channels: waiting for completions with select.poll and
CompChannel.register_poll()/check_poll(), then with rdma.vtools.CQPoller.
Side A sends UD datagrams; side B sleeps on its channel until they come."""
import select

import rdma
import rdma.ibverbs as ibv
import rdma.vtools
from rdma import IBA
from rdma.path import IBPath

from common import end_ports
from ud import GRH, QKEY, poll, ud_qp


def receiver(ctx, pd, end_port, cq, count):
    """A UD QP on cq with count receives posted; (qp, buffer)."""
    qp = pd.qp(ibv.IBV_QPT_UD, 4, cq, count, cq)
    qp.establish(IBPath(end_port, qkey=QKEY, sqpn=qp.qp_num))
    buf = bytearray((GRH + 64) * count)
    mr = pd.mr(buf, ibv.IBV_ACCESS_LOCAL_WRITE)
    qp.post_recv([ibv.recv_wr(wr_id=i, sg_list=mr.sge(GRH + 64,
                                                       i * (GRH + 64)))
                  for i in range(count)])
    qp._keep = mr       # the receives use it
    return qp, buf


def main():
    ep_a, ep_b = end_ports(__doc__)
    depth = 8
    with rdma.get_verbs(ep_a) as ctx_a, rdma.get_verbs(ep_b) as ctx:
        pd_a, pd = ctx_a.pd(), ctx.pd()
        cq_a, qp_a = ud_qp(ctx_a, pd_a, ep_a)
        msg = pd_a.mr(b'datagram', 0)

        def send_to(qp, n=1):
            path = rdma.path.resolve_path(
                None, IBPath(ep_a, DGID=ep_b.default_gid, qkey=QKEY,
                             dqpn=qp.qp_num))
            for i in range(n):
                qp_a.post_send(ibv.send_wr(
                    opcode=ibv.IBV_WR_SEND, send_flags=ibv.IBV_SEND_SIGNALED,
                    ah=pd_a.ah(path), remote_qpn=path.dqpn,
                    remote_qkey=path.qkey, sg_list=msg.sge(), wr_id=i))
            poll(cq_a, n)

        # --- with select.poll, as the document writes it
        cc = ctx.comp_channel()
        pollobj = select.poll()
        cc.register_poll(pollobj)
        cq = ctx.cq(2 * depth, cc)
        cq.req_notify_cq()

        def get_wcs():
            while True:
                ret = pollobj.poll(10000)
                if not ret:
                    raise TimeoutError('no completion event')
                for I in ret:
                    if cc.check_poll(I) is not None:
                        wcs = cq.poll()
                        if wcs is not None:
                            return wcs

        qp, buf = receiver(ctx, pd, ep_b, cq, depth)
        send_to(qp)
        wcs = get_wcs()
        assert len(wcs) == 1 and wcs[0].status == ibv.IBV_WC_SUCCESS, wcs
        assert buf[GRH:GRH + 8] == b'datagram'
        print(f'ok: select.poll woke up for {wcs[0]}')

        # --- with CQPoller
        cc2 = ctx.comp_channel()
        cq2 = ctx.cq(2 * depth, cc2)
        poller = rdma.vtools.CQPoller(cq2, cc2)
        qp2, buf2 = receiver(ctx, pd, ep_b, cq2, depth)
        send_to(qp2, 3)
        got = []
        for wc in poller.iterwc(count=3, timeout=10):
            print(f'   {wc}')
            got.append(wc)
        assert len(got) == 3 and not poller.timedout
        assert all(wc.status == ibv.IBV_WC_SUCCESS for wc in got)
        assert list(poller.iterwc(timeout=0.2)) == [] and poller.timedout
        print('ok: CQPoller gave 3 completions, then timed out')
        assert IBA.PKEY_DEFAULT in ep_b.pkeys


if __name__ == '__main__':
    main()
