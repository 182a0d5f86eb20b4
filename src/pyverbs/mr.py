# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Memory regions.

MR registers memory on a PD; MREx does so with ibv_reg_mr_ex (an iova, a
dma-buf, a DMAHandle of TLP hints, a Buf); Buf is memory the PD's provider
allocates, BufMR an MR over part of it.  DmaBufMR and DMMR register a
dma-buf and device memory; MW binds a window over an MR.
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsError, PyverbsRDMAError, PyverbsUserError)
from pyverbs._verbs import (MR, DmaBufMR, DMMR, MW, MWBindInfo, MWBind, QP,
                            _qp_bind_mw, MREx, DMAHandle, DmaHandleInitAttr,
                            Buf, BufMR)
from pyverbs._unimplemented import fill_missing
from pyverbs._formats import mwtype2str  # noqa: F401  (upstream's helper)

HUGE_PAGE_SIZE = 0x200000


def _qp_bind_mw_method(self, mw, mw_bind):
    """bind_mw(mw, mw_bind): bind a type 1 memory window (ibv_bind_mw)."""
    _qp_bind_mw(self, mw, mw_bind)


QP.bind_mw = _qp_bind_mw_method

fill_missing(globals(), __name__)
