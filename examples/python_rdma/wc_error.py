#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""WC error handling: an RDMA WRITE to memory the peer did not open for
remote writing completes in error; the poll loop raises
rdma.ibverbs.WCError(wc, qp=qp) as the document does."""
import rdma
import rdma.ibverbs as ibv
import rdma.vtools

from common import end_ports
from rc_nocm import connect, rc_qps


def main():
    ep_a, ep_b = end_ports(__doc__)
    with rdma.get_verbs(ep_a) as ctx_a, rdma.get_verbs(ep_b) as ctx_b:
        (pd_a, cq_a, qp), (pd_b, cq_b, qp_b) = rc_qps(ctx_a, ctx_b)
        connect(ep_a, qp, ep_b, qp_b, ibv.IBV_ACCESS_REMOTE_WRITE)
        # local write only: a remote write into it is an access error
        target = pd_b.mr(bytearray(64), ibv.IBV_ACCESS_LOCAL_WRITE)
        src = pd_a.mr(bytearray(64), ibv.IBV_ACCESS_LOCAL_WRITE)
        qp.post_send(ibv.send_wr(wr_id=7, opcode=ibv.IBV_WR_RDMA_WRITE,
                                 send_flags=ibv.IBV_SEND_SIGNALED,
                                 sg_list=src.sge(),
                                 remote_addr=target.addr, rkey=target.rkey))
        caught = None
        try:
            for wc in rdma.vtools.CQPoller(cq_a).iterwc(count=1, timeout=10):
                if wc.status != ibv.IBV_WC_SUCCESS:
                    raise ibv.WCError(wc, qp=qp)
        except ibv.WCError as err:
            caught = err
        assert caught is not None, 'the bad RDMA WRITE did not fail'
        assert caught.qp is qp and caught.wc.wr_id == 7
        assert caught.wc.status == ibv.IBV_WC_REM_ACCESS_ERR, caught
        print(f'ok: {caught}')
        # the QP went to the error state: it has to be torn down
        assert qp.state == ibv.IBV_QPS_ERR
        qp.close()
        print('ok: QP in error state, closed')


if __name__ == '__main__':
    main()
