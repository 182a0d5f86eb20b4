import errno, os, sys, tempfile, traceback
import pyverbs.enums as e
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import CQ
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr, SrqInitAttrEx, OpsWr
from pyverbs.qp import QP, QPInitAttr, QPInitAttrEx, QPCap
from pyverbs.xrcd import XRCD, XRCDInitAttr
from pyverbs.wr import RecvWR, SGE
from pyverbs.mr import MR

def t(label, fn):
    try:
        r = fn()
        print(label, 'OK', r)
        return r
    except Exception as ex:
        print(label, type(ex).__name__, getattr(ex, 'error_code', None), str(ex).replace('\n', ' ')[:150])

ctx = Context(name='rxe0')
pd = PD(ctx)
cq = CQ(ctx, 100)
ia = SrqInitAttr(SrqAttr(max_wr=64, max_sge=2))
srq = t('create', lambda: SRQ(pd, ia))
print('written back', ia.max_wr, ia.max_sge, ia.srq_limit)
a = t('query', lambda: srq.query())
print('q', a.max_wr, a.max_sge, a.srq_limit)
t('modify limit', lambda: srq.modify(SrqAttr(srq_limit=10), e.IBV_SRQ_LIMIT))
a = srq.query(); print('q', a.max_wr, a.max_sge, a.srq_limit)
t('modify maxwr', lambda: srq.modify(SrqAttr(max_wr=128), e.IBV_SRQ_MAX_WR))
a = srq.query(); print('q', a.max_wr, a.max_sge, a.srq_limit)
t('modify bad mask', lambda: srq.modify(SrqAttr(), 0xff))
t('srq num', lambda: srq.get_srq_num())
t('ops', lambda: srq.post_srq_ops(OpsWr()))
mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
t('post one', lambda: srq.post_recv(RecvWR(1, 1, [SGE(mr.buf, 64, mr.lkey)])))
t('post list', lambda: srq.post_recv([RecvWR(i, 1, [SGE(mr.buf, 64, mr.lkey)]) for i in range(10)]))
t('post too many sge', lambda: srq.post_recv(RecvWR(1, 3, [SGE(mr.buf, 64, mr.lkey)]*3)))
t('post overflow', lambda: srq.post_recv([RecvWR(i, 1, [SGE(mr.buf, 64, mr.lkey)]) for i in range(300)]))
qp = t('qp', lambda: QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, srq=srq, cap=QPCap(max_recv_wr=0, max_recv_sge=0))))
t('qp query', lambda: qp.query(e.IBV_QP_CAP)[1].srq is srq)
t('qp post_recv', lambda: qp.post_recv(RecvWR(1, 1, [SGE(mr.buf, 64, mr.lkey)])))
qpu = t('qp ud', lambda: QP(pd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=cq, rcq=cq, srq=srq)))
# ex
x = SrqInitAttrEx(max_wr=32)
x.comp_mask = e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD
x.srq_type = e.IBV_SRQT_BASIC
x.pd = pd
s2 = t('ex basic', lambda: SRQ(ctx, x))
x.comp_mask = e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD | e.IBV_SRQ_INIT_ATTR_CQ
s3 = t('ex basic+cq', lambda: SRQ(ctx, x))
x.cq = cq
s3 = t('ex basic+cq', lambda: SRQ(ctx, x))
x.srq_type = e.IBV_SRQT_TM
x.comp_mask = e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD | e.IBV_SRQ_INIT_ATTR_CQ | e.IBV_SRQ_INIT_ATTR_TM
x.max_num_tags = 8; x.max_ops = 8
t('ex tm', lambda: SRQ(ctx, x))
x.max_num_tags = 0
t('ex tm 0 tags', lambda: SRQ(ctx, x))
x.srq_type = e.IBV_SRQT_XRC
x.comp_mask = e.IBV_SRQ_INIT_ATTR_TYPE | e.IBV_SRQ_INIT_ATTR_PD | e.IBV_SRQ_INIT_ATTR_CQ
t('ex xrc no xrcd', lambda: SRQ(ctx, x))
with tempfile.NamedTemporaryFile() as f:
    fd = os.open(f.name, os.O_RDONLY)
    t('xrcd', lambda: XRCD(ctx, XRCDInitAttr(e.IBV_XRCD_INIT_ATTR_FD | e.IBV_XRCD_INIT_ATTR_OFLAGS, os.O_CREAT, fd)))
t('xrc send qp', lambda: QP(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_XRC_SEND, scq=cq, pd=pd, comp_mask=e.IBV_QP_INIT_ATTR_PD)))
t('srq err ctx', lambda: ctx.query_device().max_srq)
