from pyverbs.libibverbs_enums import ibv_qp_attr_mask as ibv_qp_attr_mask
from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError
from pyverbs._verbs import EfaAH as EfaAH, EfaCQ as EfaCQ, EfaCompCntr as EfaCompCntr, EfaCompCntrInitAttr as EfaCompCntrInitAttr, EfaContext as EfaContext, EfaDVAHAttr as EfaDVAHAttr, EfaDVCQInitAttr as EfaDVCQInitAttr, EfaDVDeviceAttr as EfaDVDeviceAttr, EfaDVMRAttr as EfaDVMRAttr, EfaDVRQDepthAttr as EfaDVRQDepthAttr, EfaDVSQDepthAttr as EfaDVSQDepthAttr, EfaMR as EfaMR, EfaQPInitAttr as EfaQPInitAttr, SRDQP as SRDQP, SRDQPEx as SRDQPEx

def bitmask_to_str(bits, values): ...
def dev_cap_to_str(flags): ...
