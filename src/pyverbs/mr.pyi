from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsRDMAError as PyverbsRDMAError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import Buf as Buf, BufMR as BufMR, DMAHandle as DMAHandle, DMMR as DMMR, DmaBufMR as DmaBufMR, DmaHandleInitAttr as DmaHandleInitAttr, MR as MR, MREx as MREx, MW as MW, MWBind as MWBind, MWBindInfo as MWBindInfo, QP as QP

HUGE_PAGE_SIZE: int

def mwtype2str(mw_type: int) -> str: ...
