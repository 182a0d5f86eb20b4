# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Addressing: GIDs, GRHs, global routes, address handle attributes, AHs.

GID(val=None) holds 16 raw bytes and reads/prints as upstream's
'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx'; GIDs compare by value.  Where a
GID is accepted (GID(), GlobalRoute(dgid=), the dgid/sgid attributes), a GID,
such a string or 16 raw bytes will do; the dgid/sgid attributes read back as
strings, as upstream's do.

AH(pd, attr=AHAttr) or AH(pd, wc=WC, grh=<address or GRH>, port_num=N); the
AH is closed when its PD is.  Beyond upstream, attr may also come second
positionally, AH(pd, ah_attr), as upstream's README writes it.
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsRDMAError, PyverbsUserError)
from pyverbs._verbs import GID, GRH, GlobalRoute, AHAttr, AH
from pyverbs._unimplemented import fill_missing

__all__ = ['GID', 'GRH', 'GlobalRoute', 'AHAttr', 'AH']

fill_missing(globals(), __name__)
