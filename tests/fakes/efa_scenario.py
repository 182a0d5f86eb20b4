# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Upstream's efadv API end to end, run under the efa double
(tests/fakes/efa_double.c) by tests/test_efa_double.py, with pyverbs-c and
with the reference: both must print the same lines and hand libefa the
same calls.  Usage: efa_scenario.py DEV GID_INDEX
"""
import sys
import time

import pyverbs.enums as e
import pyverbs.providers.efa.efa_enums as ee
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CqInitAttrEx, PollCqAttr
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QPAttr, QPCap, QPInitAttr, QPInitAttrEx
from pyverbs.wr import RecvWR, SGE
from pyverbs.providers.efa.efadv import (EfaAH, EfaContext, EfaCQ,
                                         EfaDVCQInitAttr, EfaQPInitAttr,
                                         SRDQP, SRDQPEx)

QKEY = 0x11111111
dev, gid_index = sys.argv[1], int(sys.argv[2])


def qp_attr():
    a = QPAttr(port_num=1)
    a.qkey = QKEY
    return a


def attempt(label, fn):
    try:
        print(label, 'ok', fn())
    except Exception as ex:
        print(label, type(ex).__name__)


ctx = EfaContext(name=dev)
print(ctx.query_efa_device())
pd = PD(ctx)
gid = ctx.query_gid(1, gid_index)
ah = EfaAH(pd, attr=AHAttr(port_num=1, is_global=1,
                           gr=GlobalRoute(dgid=gid, sgid_index=gid_index)))
print(ah.query_efa_ah())

cq = EfaCQ(ctx, CqInitAttrEx(cqe=16, wc_flags=e.IBV_WC_EX_WITH_BYTE_LEN),
           EfaDVCQInitAttr(ee.EFADV_WC_EX_WITH_SGID))
plain_cq = EfaCQ(ctx, CqInitAttrEx(cqe=8), None)
cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)

qp = SRDQP(pd, QPInitAttr(qp_type=e.IBV_QPT_DRIVER, scq=cq, rcq=cq, cap=cap))
print('srdqp type', qp.qp_type)
attempt('srdqp to_init', lambda: qp.to_init(qp_attr()))
attempt('srdqp bad type', lambda: SRDQP(pd, QPInitAttr(
    qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, cap=cap)))
qp.close()

bad = EfaQPInitAttr()
bad.driver_qp_type = 3
ia = QPInitAttrEx(qp_type=e.IBV_QPT_DRIVER, scq=cq, rcq=cq, pd=pd, cap=cap,
                  comp_mask=e.IBV_QP_INIT_ATTR_PD |
                  e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
                  send_ops_flags=e.IBV_QP_EX_WITH_SEND)
attempt('srdqpex bad driver type', lambda: SRDQPEx(ctx, ia, bad))
qpx = SRDQPEx(ctx, ia, EfaQPInitAttr())
qpx.to_rts(qp_attr())
print('srdqpex state', qpx.qp_state)

mr = MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
qpx.post_recv(RecvWR(wr_id=1, num_sge=1,
                     sg=[SGE(mr.buf + 8, 48, mr.lkey)]))
qpx.wr_start()
qpx.wr_id = 2
qpx.wr_flags = e.IBV_SEND_SIGNALED
qpx.wr_send()
qpx.wr_set_ud_addr(ah, qpx.qp_num, QKEY)
qpx.wr_set_sge(SGE(mr.buf, 8, mr.lkey))
qpx.wr_complete()

seen = {}
deadline = time.time() + 10
while len(seen) < 2 and time.time() < deadline:
    if cq.start_poll(PollCqAttr()) != 0:
        continue
    while True:
        sgid = cq.read_sgid()
        seen[cq.wr_id] = (cq.status, cq.read_byte_len(),
                          None if sgid is None else str(sgid))
        if cq.poll_next() != 0:
            break
    cq.end_poll()
for wr_id in sorted(seen):
    print('completion', wr_id, seen[wr_id])

qpx.close()
plain_cq.close()
cq.close()
mr.close()
ah.close()
pd.close()
ctx.close()
print('done')
