#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""rdma.vtools.BufferPool: side B posts receives from a pool; side A takes
a buffer from its pool, copies a message in and SENDs it (UD); both give
the buffers back with finish_wcs()."""
import rdma
import rdma.ibverbs as ibv
import rdma.vtools
from rdma.path import IBPath

from common import end_ports
from ud import GRH, QKEY, ud_qp


def main():
    ep_a, ep_b = end_ports(__doc__)
    with rdma.get_verbs(ep_a) as ctx, rdma.get_verbs(ep_b) as ctx_b:
        pd, pd_b = ctx.pd(), ctx_b.pd()
        cq, qp = ud_qp(ctx, pd, ep_a, depth=64)
        cq_b, qp_b = ud_qp(ctx_b, pd_b, ep_b, depth=64)
        path = rdma.path.resolve_path(
            None, IBPath(ep_a, DGID=ep_b.default_gid, qkey=QKEY,
                         dqpn=qp_b.qp_num))

        # B's buffers also hold the 40-byte GRH of each datagram
        pool_b = rdma.vtools.BufferPool(pd_b, count=100, size=1024 + GRH)
        pool_b.post_recvs(qp_b, 50)
        assert len(pool_b) == 50

        # the document's example, on side A
        pool = rdma.vtools.BufferPool(pd, count=100, size=1024)
        pool.post_recvs(qp, 50)

        buf_idx = pool.pop()
        pool.copy_to(b'Hello message!', buf_idx)
        qp.post_send(ibv.send_wr(wr_id=buf_idx,
                                 sg_list=pool.make_sge(buf_idx, pool.size),
                                 opcode=ibv.IBV_WR_SEND,
                                 send_flags=ibv.IBV_SEND_SIGNALED,
                                 ah=pd.ah(path),
                                 remote_qpn=path.dqpn,
                                 remote_qkey=path.qkey))
        # and one more, made by the pool
        idx2 = pool.pop()
        pool.copy_to(b'second', idx2)
        qp.post_send(pool.make_send_wr(idx2, 6, path))
        assert len(pool) == 48

        sent = list(rdma.vtools.CQPoller(cq).iterwc(count=2, timeout=10))
        pool.finish_wcs(qp, sent)
        assert len(pool) == 50, len(pool)

        got = list(rdma.vtools.CQPoller(cq_b).iterwc(count=2, timeout=10))
        texts = sorted(bytes(pool_b.copy_from(wc.wr_id, GRH, 14))
                       for wc in got)
        assert texts[0].startswith(b'Hello message!'), texts
        assert texts[1].startswith(b'second'), texts
        assert {wc.byte_len for wc in got} == {GRH + 1024, GRH + 6}
        pool_b.finish_wcs(qp_b, got)       # back, and posted again
        assert len(pool_b) == 50
        print(f'ok: {texts[0][:14]!r} and {texts[1][:6]!r} through the pools')
        pool.close()
        pool_b.close()


if __name__ == '__main__':
    main()
