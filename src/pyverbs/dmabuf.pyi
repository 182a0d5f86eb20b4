from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs._verbs import DmaBuf as DmaBuf

__all__ = ['DmaBuf']
