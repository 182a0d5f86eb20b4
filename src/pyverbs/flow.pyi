from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsRDMAError as PyverbsRDMAError
from pyverbs._verbs import Flow as Flow, FlowAction as FlowAction, FlowAttr as FlowAttr

__all__ = ['Flow', 'FlowAttr', 'FlowAction']
