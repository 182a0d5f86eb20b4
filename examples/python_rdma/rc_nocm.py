#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""No CM RC QP setup: the two sides exchange pickled rdma.path.IBPath
objects over a side channel (a socketpair; side A runs in a thread) and
bring their RC QPs up with modify_to_init/rtr/rts, then side A RDMA WRITEs
into side B's memory and SENDs it a message.

The document asks the SA for the path on side B (rdma.get_umad() and
resolve_path(umad, path)); here resolve_path(None, path) resolves the RoCE
path locally."""
import pickle
import socket
import threading

import rdma
import rdma.ibverbs as ibv
import rdma.path
import rdma.vtools

from common import end_ports


def send_obj(sock, obj):
    data = pickle.dumps(obj)
    sock.sendall(len(data).to_bytes(4, 'big') + data)


def recv_obj(sock):
    def exactly(n):
        buf = b''
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError('side channel closed')
            buf += chunk
        return buf
    return pickle.loads(exactly(int.from_bytes(exactly(4), 'big')))


def side_a(sock, end_port, qp, access):
    """The document's side A (it starts the exchange)."""
    path = rdma.path.IBPath(end_port, SGID=end_port.default_gid)
    rdma.path.fill_path(qp, path)
    path.reverse(for_reply=False)
    send_obj(sock, path)
    path = recv_obj(sock)
    path.reverse(for_reply=False)
    path.end_port = end_port

    qp.modify_to_init(path, access)
    qp.modify_to_rtr(path)
    qp.modify_to_rts(path)

    # Synchronize transition to RTS
    send_obj(sock, True)
    recv_obj(sock)
    return path


def side_b(sock, end_port, qp, access):
    """The document's side B (it answers)."""
    path = recv_obj(sock)
    path.end_port = end_port
    rdma.path.fill_path(qp, path)
    rdma.path.resolve_path(None, path)      # python-rdma: an SA query
    send_obj(sock, path)

    qp.modify_to_init(path, access)
    qp.modify_to_rtr(path)
    qp.modify_to_rts(path)

    # Synchronize transition to RTS
    recv_obj(sock)
    send_obj(sock, True)
    return path


def connect(ep_a, qp_a, ep_b, qp_b, access):
    """Connect qp_a (on ep_a) and qp_b (on ep_b) the document's way, side
    A in a thread; returns the two paths."""
    sa, sb = socket.socketpair()
    result = {}

    def run_a():
        try:
            result['a'] = side_a(sa, ep_a, qp_a, access)
        except BaseException as err:    # reported by the caller
            result['error'] = err

    with sa, sb:
        t = threading.Thread(target=run_a)
        t.start()
        try:
            path_b = side_b(sb, ep_b, qp_b, access)
        finally:
            t.join(30)
    if 'error' in result:
        raise result['error']
    return result['a'], path_b


def rc_qps(ctx_a, ctx_b, depth=8):
    """A PD, CQ and RC QP on each side: (pd_a, cq_a, qp_a), (pd_b, ...)."""
    out = []
    for ctx in (ctx_a, ctx_b):
        pd, cq = ctx.pd(), ctx.cq(2 * depth)
        out.append((pd, cq, pd.qp(ibv.IBV_QPT_RC, depth, cq, depth, cq)))
    return out


ACCESS = (ibv.IBV_ACCESS_LOCAL_WRITE | ibv.IBV_ACCESS_REMOTE_WRITE |
          ibv.IBV_ACCESS_REMOTE_READ)


def main():
    ep_a, ep_b = end_ports(__doc__)
    with rdma.get_verbs(ep_a) as ctx_a, rdma.get_verbs(ep_b) as ctx_b:
        (pd_a, cq_a, qp_a), (pd_b, cq_b, qp_b) = rc_qps(ctx_a, ctx_b)
        path_a, path_b = connect(ep_a, qp_a, ep_b, qp_b, ACCESS)
        assert path_a.dqpn == qp_b.qp_num and path_b.dqpn == qp_a.qp_num
        assert path_a.sqpsn == path_b.dqpsn and path_b.sqpsn == path_a.dqpsn
        print(f'ok: connected {qp_a} and {qp_b}: {path_a}')

        # RDMA WRITE into B's memory, then a SEND
        dst = bytearray(64)
        mr_b = pd_b.mr(dst, ACCESS)
        src = bytearray(b'written by side A'.ljust(64, b'.'))
        mr_a = pd_a.mr(src, ibv.IBV_ACCESS_LOCAL_WRITE)
        qp_a.post_send(ibv.send_wr(wr_id=1, opcode=ibv.IBV_WR_RDMA_WRITE,
                                   send_flags=ibv.IBV_SEND_SIGNALED,
                                   sg_list=mr_a.sge(),
                                   remote_addr=mr_b.addr, rkey=mr_b.rkey))
        rbuf = bytearray(64)
        mr_r = pd_b.mr(rbuf, ibv.IBV_ACCESS_LOCAL_WRITE)
        qp_b.post_recv(ibv.recv_wr(wr_id=2, sg_list=mr_r.sge()))
        msg = bytearray(b'sent by side A')
        mr_m = pd_a.mr(msg, ibv.IBV_ACCESS_LOCAL_WRITE)
        qp_a.post_send(ibv.send_wr(wr_id=3, opcode=ibv.IBV_WR_SEND,
                                   send_flags=ibv.IBV_SEND_SIGNALED,
                                   sg_list=mr_m.sge()))
        wcs = list(rdma.vtools.CQPoller(cq_a).iterwc(count=2, timeout=10))
        wcs += list(rdma.vtools.CQPoller(cq_b).iterwc(count=1, timeout=10))
        for wc in wcs:
            if wc.status != ibv.IBV_WC_SUCCESS:
                raise ibv.WCError(wc, cq_a)
        assert sorted(wc.wr_id for wc in wcs) == [1, 2, 3], wcs
        assert dst == src, dst
        assert rbuf[:len(msg)] == msg, rbuf
        print('ok: RDMA WRITE and SEND arrived')


if __name__ == '__main__':
    main()
