# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 DevX event channels (rdma-core 60's pyverbs API): EventChannel
(mlx5dv_devx_create_event_channel, subscribe, get_event), the EventHeader
get_event() returns, and EventFD, an eventfd(2) to subscribe with.

The classes are C types of pyverbs._verbs (providers/mlx5/devx_event.c).
A build without libmlx5 keeps the names as placeholders that name the
missing library (see pyverbs._unimplemented)."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsError  # noqa: F401
from pyverbs import _verbs as _v
from pyverbs._unimplemented import fill_missing

if getattr(_v, '_HAVE_MLX5', 0):
    from pyverbs._verbs import EventChannel, EventFD, EventHeader
del _v

# the bytes get_event() reads by default: enough for every event type
DEFAULT_EQE_SIZE = 1024

fill_missing(globals(), __name__)
