#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Memory registration over any buffer: bytes (read-only: REMOTE_READ),
bytearray and mmap (REMOTE_WRITE), SGEs from mr.sge(); side A then RDMA
READs the bytes and RDMA WRITEs into the bytearray and the mmap of side B.
(The document registers a str; a Python 3 str has no buffer: bytes.)"""
import mmap

import rdma
import rdma.ibverbs as ibv
import rdma.vtools

from common import end_ports
from rc_nocm import connect, rc_qps


def main():
    ep_a, ep_b = end_ports(__doc__)
    with rdma.get_verbs(ep_a) as ctx_a, rdma.get_verbs(ep_b) as ctx_b:
        (pd_a, cq_a, qp_a), (pd, cq_b, qp_b) = rc_qps(ctx_a, ctx_b)

        # the document's registrations (on side B)
        s = b'Hello'
        mr_ro = pd.mr(s, ibv.IBV_ACCESS_REMOTE_READ)
        s2 = bytearray(256)
        mr_ba = pd.mr(s2, ibv.IBV_ACCESS_REMOTE_WRITE)
        s3 = mmap.mmap(-1, 256)
        mr_mm = pd.mr(s3, ibv.IBV_ACCESS_REMOTE_WRITE)

        # SGEs through the MR
        sge = mr_ba.sge()
        assert (sge.addr, sge.length, sge.lkey) == \
            (mr_ba.addr, 256, mr_ba.lkey)
        sge = mr_ba.sge(length=128, off=10)
        assert (sge.addr, sge.length) == (mr_ba.addr + 10, 128)
        print(f'ok: {mr_ro!r}\nok: {mr_ba!r}\nok: {mr_mm!r}')

        connect(ep_a, qp_a, ep_b, qp_b,
                ibv.IBV_ACCESS_REMOTE_READ | ibv.IBV_ACCESS_REMOTE_WRITE)

        local = bytearray(256)
        lmr = pd_a.mr(local, ibv.IBV_ACCESS_LOCAL_WRITE)
        src = bytearray(b'W' * 100 + b'M' * 100)
        smr = pd_a.mr(src, 0)
        qp_a.post_send([
            ibv.send_wr(wr_id=1, opcode=ibv.IBV_WR_RDMA_READ,
                        send_flags=ibv.IBV_SEND_SIGNALED,
                        sg_list=lmr.sge(len(s)), remote_addr=mr_ro.addr,
                        rkey=mr_ro.rkey),
            ibv.send_wr(wr_id=2, opcode=ibv.IBV_WR_RDMA_WRITE,
                        send_flags=ibv.IBV_SEND_SIGNALED,
                        sg_list=smr.sge(100), remote_addr=mr_ba.addr + 10,
                        rkey=mr_ba.rkey),
            ibv.send_wr(wr_id=3, opcode=ibv.IBV_WR_RDMA_WRITE,
                        send_flags=ibv.IBV_SEND_SIGNALED,
                        sg_list=smr.sge(100, 100), remote_addr=mr_mm.addr,
                        rkey=mr_mm.rkey)])
        wcs = list(rdma.vtools.CQPoller(cq_a).iterwc(count=3, timeout=10))
        for wc in wcs:
            if wc.status != ibv.IBV_WC_SUCCESS:
                raise ibv.WCError(wc, cq_a)
        assert len(wcs) == 3, wcs
        assert bytes(local[:5]) == b'Hello', local[:5]
        assert s2[10:110] == b'W' * 100 and s2[:10] == bytes(10)
        assert s3[:100] == b'M' * 100
        print('ok: RDMA READ from bytes, RDMA WRITE into bytearray and mmap')
        mr_mm.close()
        s3.close()


if __name__ == '__main__':
    main()
