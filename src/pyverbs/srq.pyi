from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsRDMAError as PyverbsRDMAError
from pyverbs._verbs import OpsWr as OpsWr, SRQ as SRQ, SrqAttr as SrqAttr, SrqInitAttr as SrqInitAttr, SrqInitAttrEx as SrqInitAttrEx

__all__ = ['SrqAttr', 'SrqInitAttr', 'SrqInitAttrEx', 'SRQ', 'OpsWr']
IBV_WR_TAG_ADD: int
IBV_OPS_SIGNALED: int
