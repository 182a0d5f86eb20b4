from pyverbs._verbs import PyverbsCM as PyverbsCM, PyverbsObject as PyverbsObject
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError

__all__ = ['PyverbsObject', 'PyverbsCM', 'PyverbsRDMAError', 'PyverbsRDMAErrno', 'inc_rkey']

def PyverbsRDMAErrno(msg): ...
def inc_rkey(rkey): ...
LOG_LEVEL: int
LOG_FORMAT: str
