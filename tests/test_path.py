# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs.path (QP connection without a CM) and pyverbs.vtools."""
import pickle

import pytest

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.path import Path, establish
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsUserError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.vtools import BufferPool
from pyverbs.wr import SendWR

from rdma_helpers import poll

GID_A = '0000:0000:0000:0000:0000:ffff:c000:0201'
GID_B = '0000:0000:0000:0000:0000:ffff:c000:0202'


def test_path_pickle_and_reverse():
    p = Path(sqpn=17, dqpn=42, sq_psn=100, rq_psn=200, sgid=GID_A,
             dgid=GID_B, sgid_index=1, mtu=e.IBV_MTU_1024)
    q = pickle.loads(pickle.dumps(p))
    assert q == p
    r = p.reverse()
    assert (r.sqpn, r.dqpn, r.sq_psn, r.rq_psn) == (42, 17, 200, 100)
    assert (r.sgid, r.dgid) == (GID_B, GID_A)
    rr = r.reverse()
    assert (rr.sqpn, rr.dqpn, rr.sgid, rr.dgid) == (17, 42, GID_A, GID_B)


def test_path_connect_halves():
    a = Path(sqpn=1, sq_psn=10, sgid=GID_A, mtu=e.IBV_MTU_4096)
    b = Path(sqpn=2, sq_psn=20, sgid=GID_B, mtu=e.IBV_MTU_1024)
    pa = a.connect(b)
    assert (pa.dqpn, pa.rq_psn, pa.dgid) == (2, 20, GID_B)
    assert pa.mtu == e.IBV_MTU_1024
    assert pa.global_route
    attr = pa.ah_attr()
    assert attr.is_global == 1
    assert str(attr.gr.dgid) == GID_B


def _rc_qp(ctx):
    pd = PD(ctx)
    cq = CQ(ctx, 32)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=16, max_recv_wr=16)))
    return pd, cq, qp


def test_establish_and_traffic_with_buffer_pool(ctx, ctx2):
    pd_a, cq_a, qp_a = _rc_qp(ctx)
    pd_b, cq_b, qp_b = _rc_qp(ctx2)
    half_a = Path.from_qp(qp_a, ctx)
    half_b = Path.from_qp(qp_b, ctx2)
    # the halves travel by pickle, as over a socket
    path_a = half_a.connect(pickle.loads(pickle.dumps(half_b)))
    path_b = half_b.connect(pickle.loads(pickle.dumps(half_a)))
    establish(qp_a, path_a)
    establish(qp_b, path_b)
    assert qp_a.qp_state == e.IBV_QPS_RTS == qp_b.qp_state

    with BufferPool(pd_a, 4, 256) as tx, BufferPool(pd_b, 8, 256) as rx:
        rx.post_recvs(qp_b, 4)
        assert len(rx) == 4
        for i in range(3):
            idx = tx.pop()
            tx.copy_to(f'message {i}'.encode(), idx)
            qp_a.post_send(tx.make_send_wr(idx, 64))
            wc, = poll(cq_a)
            tx.push(wc.wr_id)
            wc, = poll(cq_b)
            assert rx.copy_from(wc.wr_id, 0, 9) == f'message {i}'.encode()
            assert bytes(rx.view(wc.wr_id)[:9]) == f'message {i}'.encode()
            rx.finish_wcs(qp_b, [wc])
        with pytest.raises(PyverbsUserError):
            rx.copy_from(99)
        with pytest.raises(PyverbsUserError):
            tx.make_sge(0, 257)
    ctx.close()
    ctx2.close()


def test_ud_reply_path_from_wc(ctx, ctx2):
    pd_a, pd_b = PD(ctx), PD(ctx2)
    cq_a, cq_b = CQ(ctx, 16), CQ(ctx2, 16)
    mk = lambda pd, cq: QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq,
                                          rcq=cq, cap=QPCap()))
    qp_a, qp_b = mk(pd_a, cq_a), mk(pd_b, cq_b)
    half_a, half_b = Path.from_qp(qp_a, ctx), Path.from_qp(qp_b, ctx2)
    path_a = half_a.connect(half_b)
    establish(qp_a, path_a)
    establish(qp_b, half_b.connect(half_a))
    with BufferPool(pd_a, 2, 256) as pa, BufferPool(pd_b, 2, 256) as pb:
        pb.post_recvs(qp_b, 1)
        idx = pa.pop()
        pa.copy_to(b'ping', idx)
        wr = pa.make_send_wr(idx, 4)
        wr.set_wr_ud(path_a.ah(pd_a), path_a.dqpn, path_a.qkey)
        assert path_a.ah(pd_a) is path_a.ah(pd_a)       # cached
        qp_a.post_send(wr)
        poll(cq_a)
        wc, = poll(cq_b)
        assert pb.copy_from(wc.wr_id, 40, 4) == b'ping'
        # answer the sender using only what arrived
        reply = Path.from_wc(pd_b, wc, pb.addr(wc.wr_id), port_num=1)
        assert reply.dqpn == qp_a.qp_num
        pa.post_recvs(qp_a, 1)
        j = pb.pop()
        pb.copy_to(b'pong', j)
        wr = pb.make_send_wr(j, 4)
        wr.set_wr_ud(reply.ah(pd_b), reply.dqpn, reply.qkey)
        qp_b.post_send(wr)
        poll(cq_b)
        wc, = poll(cq_a)
        assert pa.copy_from(wc.wr_id, 40, 4) == b'pong'
    ctx.close()
    ctx2.close()
