from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsRDMAError as PyverbsRDMAError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import PD as PD, ParentDomain as ParentDomain, ParentDomainContext as ParentDomainContext, ParentDomainInitAttr as ParentDomainInitAttr
