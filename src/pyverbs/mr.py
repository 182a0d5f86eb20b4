# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Memory regions."""
from pyverbs._verbs import (MR, DmaBufMR, DMMR, MW, MWBindInfo, MWBind, QP,
                            _qp_bind_mw)
from pyverbs._unimplemented import fill_missing
from pyverbs._formats import mwtype2str  # noqa: F401  (upstream's helper)

HUGE_PAGE_SIZE = 0x200000


def _qp_bind_mw_method(self, mw, mw_bind):
    """bind_mw(mw, mw_bind): bind a type 1 memory window (ibv_bind_mw)."""
    _qp_bind_mw(self, mw, mw_bind)


QP.bind_mw = _qp_bind_mw_method

fill_missing(globals(), __name__)
