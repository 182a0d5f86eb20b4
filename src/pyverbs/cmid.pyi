from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsRDMAError as PyverbsRDMAError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import AddrInfo as AddrInfo, CMEvent as CMEvent, CMEventChannel as CMEventChannel, CMID as CMID, ConnParam as ConnParam, JoinMCAttrEx as JoinMCAttrEx, UDParam as UDParam

__all__ = ['AddrInfo', 'CMEvent', 'CMEventChannel', 'CMID', 'ConnParam', 'JoinMCAttrEx', 'UDParam']
