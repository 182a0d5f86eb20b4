# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Base classes and small helpers shared by every pyverbs module."""
import logging

from pyverbs._verbs import PyverbsObject, PyverbsCM, _errno
from pyverbs.pyverbs_error import PyverbsRDMAError

LOG_LEVEL = logging.INFO
LOG_FORMAT = ('[%(levelname)s] %(asctime)s %(filename)s:%(lineno)s: '
              '%(message)s')
logging.basicConfig(format=LOG_FORMAT, level=LOG_LEVEL)

__all__ = ['PyverbsObject', 'PyverbsCM', 'PyverbsRDMAError',
           'PyverbsRDMAErrno', 'inc_rkey']


def PyverbsRDMAErrno(msg: str) -> PyverbsRDMAError:
    """PyverbsRDMAError(msg) carrying the calling thread's current errno."""
    return PyverbsRDMAError(msg, _errno())


def inc_rkey(rkey: int) -> int:
    """The next rkey value for the same memory window (ibv_inc_rkey)."""
    # ibv_inc_rkey() keeps the index (upper 24 bits) and bumps the key byte.
    return (rkey & 0xffffff00) | ((rkey + 1) & 0xff)
