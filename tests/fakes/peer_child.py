# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The peer of tests/test_peer_failure.py: receives messages until it is
killed, saying so on stdout (JSON lines); reads the survivor's connection
details from stdin.

Usage: peer_child.py rc DEV GID_INDEX TIMEOUT RETRY_CNT
       peer_child.py cm IP PORT
"""
import json
import select
import sys

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID
from pyverbs.device import Context
from pyverbs.qp import QPCap, QPInitAttr

from rdma_helpers import End, recv_wr

DEPTH = 32
EVERY = 8


def say(**kw):
    print(json.dumps(kw), flush=True)


def rc(dev, gid_index, timeout, retry):
    ctx = Context(name=dev)
    end = End(ctx, e.IBV_QPT_RC, gid_index=int(gid_index), depth=64,
              msg_size=64)
    say(qpn=end.qp.qp_num, psn=end.psn)
    peer = json.loads(sys.stdin.readline())
    gid = ctx.query_gid(1, int(gid_index))
    remote = type('Remote', (), {'gid': gid})()
    end.qp.establish(peer['qpn'], peer['psn'], end.ah_attr_to(remote),
                     local_psn=end.psn, timeout=int(timeout),
                     retry_cnt=int(retry), rnr_retry=7,
                     path_mtu=e.IBV_MTU_1024)
    for i in range(DEPTH):
        end.qp.post_recv(recv_wr(end, wr_id=i))
    say(ready=True)
    n = 0
    while True:
        _, wcs = end.cq.poll(DEPTH)
        for wc in wcs:
            end.qp.post_recv(recv_wr(end, wr_id=wc.wr_id))
            n += 1
            if n % EVERY == 0:
                say(received=n)


def expect(ch, etype):
    r, _, _ = select.select([ch], [], [], 180)
    assert r, f'no CM event {etype}'
    ev = CMEvent(ch)
    assert ev.event_type == etype, ev.event_str()
    return ev


def cm(ip, port):
    ch = CMEventChannel()
    lid = CMID(creator=ch)
    lid.bind_addr(AddrInfo(src=ip, src_service=port, flags=ce.RAI_PASSIVE))
    lid.listen()
    say(listening=True)
    ev = expect(ch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)
    child = CMID(creator=ev, listen_id=lid)
    ev.close()
    child.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC,
                               cap=QPCap(max_send_wr=4, max_recv_wr=64)))
    mr = child.reg_msgs(1024)
    for _ in range(DEPTH):
        child.post_recv(mr, 64)
    child.accept()
    expect(ch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
    say(up=True)
    n = 0
    while True:
        child.get_recv_comp()
        child.post_recv(mr, 64)
        n += 1
        if n % EVERY == 0:
            say(received=n)


if __name__ == '__main__':
    {'rc': rc, 'cm': cm}[sys.argv[1]](*sys.argv[2:])
