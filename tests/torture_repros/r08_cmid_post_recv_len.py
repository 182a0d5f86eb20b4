# cmid.post_recv(mr, length=n): n.__index__ closes the MR after post_recv
# checked it open; rdma_post_recv then posts the freed MR and buffer
import pyverbs.enums as e
import pyverbs.cm_enums as ce
from pyverbs.cmid import AddrInfo, CMID
from pyverbs.qp import QPInitAttr, QPCap
from pyverbs.mr import MR
ai = AddrInfo(src='192.0.2.1', dst='192.0.2.1', dst_service='18777',
              port_space=ce.RDMA_PS_TCP)
cid = CMID(creator=ai, qp_init_attr=QPInitAttr(qp_type=e.IBV_QPT_RC,
                                                cap=QPCap(4, 4)))
mr = MR(cid, 4096, e.IBV_ACCESS_LOCAL_WRITE)
class N:
    def __index__(self): mr.close(); return 64
cid.post_recv(mr, N())
print('posted a receive into a deregistered MR, no error')
