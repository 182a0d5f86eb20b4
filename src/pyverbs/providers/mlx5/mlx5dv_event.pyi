from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError
from pyverbs._verbs import EventChannel as EventChannel, EventFD as EventFD, EventHeader as EventHeader

DEFAULT_EQE_SIZE: int
