from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import RecvWR as RecvWR, SGE as SGE, SendWR as SendWR

__all__ = ['SGE', 'RecvWR', 'SendWR', 'send_flags_to_str']

def send_flags_to_str(flags: int) -> str: ...
IBV_WR_SEND: int
IBV_SEND_SIGNALED: int
