from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError
from pyverbs.pyverbs_error import PyverbsUserError as PyverbsUserError
from pyverbs._verbs import DataBuffer as DataBuffer, ECE as ECE, QP as QP, QPAttr as QPAttr, QPCap as QPCap, QPEx as QPEx, QPInitAttr as QPInitAttr, QPInitAttrEx as QPInitAttrEx, QPRateLimitAttr as QPRateLimitAttr, QPAttachCompCntrAttr as QPAttachCompCntrAttr

__all__ = ['QPCap', 'QPInitAttr', 'QPInitAttrEx', 'QPAttr', 'QP', 'QPEx', 'ECE', 'DataBuffer', 'QPRateLimitAttr', 'QPAttachCompCntrAttr']
