from pyverbs._verbs import Flow as Flow, FlowAction as FlowAction, FlowAttr as FlowAttr

__all__ = ['Flow', 'FlowAttr', 'FlowAction']
