from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError
from pyverbs._verbs import CompCntr as CompCntr, CompCntrInitAttr as CompCntrInitAttr

__all__ = ['CompCntr', 'CompCntrInitAttr']
