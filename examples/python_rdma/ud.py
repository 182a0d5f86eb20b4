#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""UD QP setup with a path, and the UD response path.

Side A sets up a UD QP the document's way (a path to B's QP, resolved,
then modify_to_init/rtr/rts from it) and sends a request; side B answers
along the path it builds from the request's WC and GRH (ibv.WCPath, then
reverse()).  Then the several-destinations case: one QP of A sends to B and
to a second QP of A, with paths resolved with the same P_Key and Q_Key.

The document resolves paths with the SA (rdma.get_umad()); here
resolve_path(None, path) resolves the RoCE paths locally."""
import time

import rdma
import rdma.ibverbs as ibv
from rdma import IBA
from rdma.path import IBPath

from common import end_ports

QKEY = IBA.IB_DEFAULT_QP1_QKEY
GRH = 40


def poll(cq, n, timeout=10):
    """n WCs of cq (the document's cq.poll(), until n came)."""
    wcs: list[ibv.wc] = []
    deadline = time.monotonic() + timeout
    while len(wcs) < n:
        wcs += cq.poll()
        if time.monotonic() > deadline:
            raise TimeoutError(f'{len(wcs)} of {n} completions')
    for wc in wcs:
        if wc.status != ibv.IBV_WC_SUCCESS:
            raise ibv.WCError(wc, cq)
    return wcs


def ud_qp(ctx, pd, end_port, depth=16):
    """A UD QP in RTS on end_port, with Q_Key QKEY."""
    cq = ctx.cq(2 * depth)
    qp = pd.qp(ibv.IBV_QPT_UD, depth, cq, depth, cq)
    qp.establish(IBPath(end_port, qkey=QKEY, sqpn=qp.qp_num))
    return cq, qp


def main():
    ep_a, ep_b = end_ports(__doc__)
    with rdma.get_verbs(ep_a) as ctx, rdma.get_verbs(ep_b) as ctx_b:
        # side B: a UD QP with receives posted
        pd_b = ctx_b.pd()
        cq_b, qp_b = ud_qp(ctx_b, pd_b, ep_b)
        rbuf = bytearray(GRH + 256)
        rmr = pd_b.mr(rbuf, ibv.IBV_ACCESS_LOCAL_WRITE)
        qp_b.post_recv(ibv.recv_wr(wr_id=1, sg_list=rmr.sge()))

        # side A, as the document writes it (its "dpqn" is dqpn)
        end_port = ep_a
        path = IBPath(end_port, dqpn=qp_b.qp_num, qkey=QKEY,
                      DGID=ep_b.default_gid)
        rdma.path.resolve_path(None, path, reversible=True)
        with ctx.pd() as pd:
            depth = 16
            cq = pd.cq(2 * depth)
            qp = pd.qp(ibv.IBV_QPT_UD, depth, cq, depth, cq)
            path.sqpn = qp.qp_num
            abuf = bytearray(GRH + 256)
            amr = pd.mr(abuf, ibv.IBV_ACCESS_LOCAL_WRITE)
            qp.modify_to_init(path)
            # "Post receive work requests to qp here": the document posts
            # them in RESET, which verbs (and rxe) refuse; INIT takes them
            qp.post_recv(ibv.recv_wr(wr_id=2, sg_list=amr.sge()))
            qp.modify_to_rtr(path)
            qp.modify_to_rts(path)

            req = pd.mr(b'request from A', 0)
            qp.post_send(ibv.send_wr(opcode=ibv.IBV_WR_SEND,
                                     send_flags=ibv.IBV_SEND_SIGNALED,
                                     ah=pd.ah(path),
                                     remote_qpn=path.dqpn,
                                     remote_qkey=path.qkey,
                                     sg_list=req.sge(), wr_id=3))
            assert pd.ah(path) is pd.ah(path)   # cached in the path
            poll(cq, 1)

            # side B: the response path from the WC
            wcs = poll(cq_b, 1)
            for wc in wcs:
                assert rbuf[GRH:GRH + wc.byte_len - GRH] == \
                    b'request from A'
                request_path = ibv.WCPath(ep_b, wc, rbuf, 0,
                                          pkey=IBA.PKEY_DEFAULT, qkey=QKEY)
                reply_path = request_path.reverse()
                assert reply_path.DGID == ep_a.default_gid
                assert reply_path.dqpn == qp.qp_num
                ah = pd_b.ah(reply_path)
                rep = pd_b.mr(b'reply from B', 0)
                qp_b.post_send(ibv.send_wr(opcode=ibv.IBV_WR_SEND,
                                           send_flags=ibv.IBV_SEND_SIGNALED,
                                           ah=ah, remote_qpn=reply_path.dqpn,
                                           remote_qkey=reply_path.qkey,
                                           sg_list=rep.sge(), wr_id=4))
                print(f'ok: B got the request by {request_path}')
            poll(cq_b, 1)
            (wc,) = poll(cq, 1)
            assert wc.src_qp == qp_b.qp_num
            assert abuf[GRH:GRH + 12] == b'reply from B'
            print('ok: A got the reply along the reversed path')

            # several destinations: B's QP and a second QP of A
            cq_c, qp_c = ud_qp(ctx, pd, ep_a)
            cbuf = bytearray(GRH + 64)
            cmr = pd.mr(cbuf, ibv.IBV_ACCESS_LOCAL_WRITE)
            qp_c.post_recv(ibv.recv_wr(wr_id=5, sg_list=cmr.sge()))
            qp_b.post_recv(ibv.recv_wr(wr_id=6, sg_list=rmr.sge()))
            destinations = [ep_b.default_gid, ep_a.default_gid]
            paths = [rdma.path.resolve_path(
                None, IBPath(end_port, DGID=gid, qkey=QKEY),
                reversible=True, properties={'PKey': IBA.DEFAULT_PKEY})
                for gid in destinations]
            for p, dqpn in zip(paths, (qp_b.qp_num, qp_c.qp_num)):
                assert p.pkey == IBA.DEFAULT_PKEY and p.qkey == QKEY
                p.dqpn = dqpn
                qp.post_send(ibv.send_wr(opcode=ibv.IBV_WR_SEND,
                                         send_flags=ibv.IBV_SEND_SIGNALED,
                                         ah=pd.ah(p), remote_qpn=p.dqpn,
                                         remote_qkey=p.qkey,
                                         sg_list=req.sge(), wr_id=7))
            poll(cq, 2)
            poll(cq_b, 1)
            poll(cq_c, 1)
            assert cbuf[GRH:GRH + 14] == b'request from A'
            print('ok: one QP reached two destinations')


if __name__ == '__main__':
    main()
