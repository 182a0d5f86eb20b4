# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The RDMA connection manager (librdmacm): CMID, AddrInfo, CMEventChannel,
CMEvent, ConnParam, UDParam and JoinMCAttrEx, implemented in C
(pyverbs._verbs); this module adds the printed formats.

A pyverbs-c built without librdmacm (meson -Drdmacm=disabled, or none
found) still has these names: each raises PyverbsUserError naming the
library and its packages (pyverbs._unimplemented)."""
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

if getattr(_verbs, '_HAVE_RDMACM', 0):
    from pyverbs._verbs import (AddrInfo, CMEvent, CMEventChannel, CMID,
                                ConnParam, JoinMCAttrEx, UDParam)

__all__ = ['AddrInfo', 'CMEvent', 'CMEventChannel', 'CMID', 'ConnParam',
           'JoinMCAttrEx', 'UDParam']


def _conn_param_str(self):
    fmt = '{:<4}: {:<4}\n'
    return ('{}: {}\n'.format('Connection parameters', '') +
            fmt.format('responder resources', self.responder_resources) +
            fmt.format('initiator depth', self.initiator_depth) +
            fmt.format('flow control', self.flow_control) +
            fmt.format('retry count', self.retry_count) +
            fmt.format('rnr retry count', self.rnr_retry_count) +
            fmt.format('srq', self.srq) +
            fmt.format('qp number', self.qpn))


if getattr(_verbs, '_HAVE_RDMACM', 0):
    ConnParam.__str__ = _conn_param_str

fill_missing(globals(), __name__)
