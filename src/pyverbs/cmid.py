# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The RDMA connection manager (librdmacm): CMID, AddrInfo, CMEventChannel,
CMEvent, ConnParam, UDParam and JoinMCAttrEx, implemented in C
(pyverbs._verbs); ConnParam's printed format is in pyverbs._formats.

A pyverbs-c built without librdmacm (meson -Drdmacm=disabled, or none
found) still has these names: each raises PyverbsUserError naming the
library and its packages (pyverbs._unimplemented)."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsError, PyverbsRDMAError, PyverbsUserError)
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

if getattr(_verbs, '_HAVE_RDMACM', 0):
    from pyverbs._verbs import (AddrInfo, CMEvent, CMEventChannel, CMID,
                                ConnParam, JoinMCAttrEx, UDParam)

__all__ = ['AddrInfo', 'CMEvent', 'CMEventChannel', 'CMID', 'ConnParam',
           'JoinMCAttrEx', 'UDParam']

fill_missing(globals(), __name__)
