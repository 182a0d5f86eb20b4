from pyverbs._verbs import EventChannel as EventChannel, EventFD as EventFD, EventHeader as EventHeader

DEFAULT_EQE_SIZE: int
