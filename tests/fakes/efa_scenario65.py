# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What upstream pyverbs's efadv gained from rdma-core 46 to 65, in one
scenario written only against upstream 65's API, run under the efa
recording double (tests/fakes/efa_double.c with efa_double_65.c) by
pyverbs-c and, in the Debian sid guest, by Debian's python3-pyverbs 65:
both must print the same lines and hand libefa the same calls.

    PVFAKE_EFA_DEVICES=rxe0 PVFAKE_LOG=log LD_PRELOAD=libefa_double.so \\
        python3 efa_scenario65.py rxe0 GID_INDEX

It covers the device's inline_buf_size_ex and new capability names, an
MR's EFA attributes (EfaMR.query), EfaQPInitAttr's flags, sl and wr_flags,
an SRDQPEx sending with processing hints, and an EfaCQ reporting
unsolicited completions, and EFA completion counters (EfaCompCntr) with
and without external memory.  A part whose call the build's rdma-core lacks
prints the exception's class and errno instead (pyverbs-c built against
44 raises PyverbsRDMAError EOPNOTSUPP naming the version).
"""
import ctypes
import sys
import time

from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.comp_cntr import CompCntrInitAttr
from pyverbs.cq import CqInitAttrEx, PollCqAttr
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QPAttr, QPCap, QPInitAttrEx
from pyverbs.wr import RecvWR, SGE
from pyverbs.providers.efa.efadv import (EfaAH, EfaCompCntr,
                                         EfaCompCntrInitAttr, EfaContext,
                                         EfaCQ, EfaDVCQInitAttr,
                                         EfaDVRQDepthAttr,
                                         EfaDVSQDepthAttr, EfaMR,
                                         EfaQPInitAttr, SRDQPEx,
                                         dev_cap_to_str)

# verbs.h's values (upstream 65 has them only as enum classes, pyverbs-c
# 44 only flat: numbers run under both)
IBV_QPT_DRIVER = 0xff
IBV_ACCESS_LOCAL_WRITE = 1
IBV_WC_EX_WITH_BYTE_LEN = 1
IBV_QP_INIT_ATTR_PD = 1
IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6
IBV_QP_EX_WITH_SEND = 1 << 2
IBV_SEND_SIGNALED = 1 << 1
QKEY = 0x11111111
WITH_SGID, WITH_IS_UNSOLICITED = 1, 2       # EFADV_WC_EX_WITH_*
WITH_PROCESSING_HINTS = 1                   # EFADV_WR_EX_WITH_*
BURST_PPS_SENSITIVE = 1                     # EFADV_WR_PROCESSING_HINT_*
dev, gid_index = sys.argv[1], int(sys.argv[2])


def part(label, fn):
    try:
        print(label, fn(), flush=True)
    except PyverbsError as ex:
        print(label, type(ex).__name__, getattr(ex, 'error_code', ''),
              flush=True)


ctx = EfaContext(name=dev)
attr = ctx.query_efa_device()
part('inline_buf_size_ex', lambda: attr.inline_buf_size_ex)
print('caps', dev_cap_to_str(0x7f))
sq, rq = EfaDVSQDepthAttr(), EfaDVRQDepthAttr()
sq.flags, sq.max_send_sge, sq.max_inline_data = 1, 2, 32
rq.max_recv_sge = 3
print('depths', sq.flags, sq.max_send_sge, sq.max_inline_data)

pd = PD(ctx)
mr = EfaMR(pd, 4096, IBV_ACCESS_LOCAL_WRITE)
part('mr query', lambda: str(mr.query()).splitlines())

gid = ctx.query_gid(1, gid_index)
ah = EfaAH(pd, attr=AHAttr(port_num=1, is_global=1,
                           gr=GlobalRoute(dgid=gid, sgid_index=gid_index)))


def efa_cq():
    try:
        return EfaCQ(ctx, CqInitAttrEx(cqe=16,
                                       wc_flags=IBV_WC_EX_WITH_BYTE_LEN),
                     EfaDVCQInitAttr(WITH_SGID | WITH_IS_UNSOLICITED))
    except PyverbsError as ex:      # libefa older than 52 refuses the flag
        print('cq', type(ex).__name__)
    return EfaCQ(ctx, CqInitAttrEx(cqe=16, wc_flags=IBV_WC_EX_WITH_BYTE_LEN),
                 EfaDVCQInitAttr(WITH_SGID))


# a CQ each for the sends and the receives: completions in a fixed order
scq, rcq = efa_cq(), efa_cq()

efa_attr = EfaQPInitAttr()


def set_fields():
    efa_attr.flags = 1          # EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV
    efa_attr.sl = 2
    efa_attr.wr_flags = WITH_PROCESSING_HINTS
    return efa_attr.flags, efa_attr.sl, efa_attr.wr_flags


part('qp attr', set_fields)
cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
ia = QPInitAttrEx(qp_type=IBV_QPT_DRIVER, scq=scq, rcq=rcq, pd=pd, cap=cap,
                  comp_mask=IBV_QP_INIT_ATTR_PD |
                  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
                  send_ops_flags=IBV_QP_EX_WITH_SEND)
qpx = SRDQPEx(ctx, ia, efa_attr)
a = QPAttr(port_num=1)
a.qkey = QKEY
qpx.to_rts(a)

buf = EfaMR(pd, 64, IBV_ACCESS_LOCAL_WRITE)
qpx.post_recv(RecvWR(wr_id=2, num_sge=1, sg=[SGE(buf.buf + 8, 48, buf.lkey)]))
qpx.wr_start()
qpx.wr_id = 4
qpx.wr_flags = IBV_SEND_SIGNALED
qpx.wr_send()
part('hints', lambda: qpx.wr_set_processing_hints(BURST_PPS_SENSITIVE))
qpx.wr_set_ud_addr(ah, qpx.qp_num, QKEY)
qpx.wr_set_sge(SGE(buf.buf, 8, buf.lkey))
qpx.wr_complete()



def completion(cq):
    """(wr_id, status, unsolicited) of the CQ's one completion."""
    deadline = time.time() + 10
    while cq.start_poll(PollCqAttr()) != 0:
        if time.time() > deadline:
            return 'none'
    try:
        unsolicited = cq.is_unsolicited()
    except PyverbsError as ex:
        unsolicited = type(ex).__name__
    got = (cq.wr_id, int(cq.status), unsolicited)
    cq.end_poll()
    return got


print('send completion', completion(scq))
print('recv completion', completion(rcq))

# completion counters, counts kept in the scenario's memory or the device's
counts = (ctypes.c_uint64 * 2)()


def counters():
    va = ctypes.addressof(counts)
    c = EfaCompCntr(ctx, CompCntrInitAttr(cntr_type=1),
                    EfaCompCntrInitAttr(comp_ext_mem_ptr=va,
                                        err_ext_mem_ptr=va + 8))
    c.set(5)
    c.inc(3)
    c.set_err(1)
    c.inc_err(2)
    got = (c.read(), c.read_err(), counts[0], counts[1])
    c.close()
    d = EfaCompCntr(ctx, CompCntrInitAttr())
    d.inc(7)
    got += (d.read(), d.read_err())
    d.close()
    return got


part('comp cntr', counters)

for o in (qpx, scq, rcq, buf, mr, ah, pd, ctx):
    o.close()
print('done')
