# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Memory regions.

MR registers memory on a PD; MREx does so with ibv_reg_mr_ex (an iova, a
dma-buf, a DMAHandle of TLP hints, a Buf); Buf is memory the PD's provider
allocates, BufMR an MR over part of it.  DmaBufMR and DMMR register a
dma-buf and device memory; MW binds a window over an MR.
"""
from pyverbs._verbs import (MR, DmaBufMR, DMMR, MW, MWBindInfo, MWBind, QP,
                            _qp_bind_mw, MREx, DMAHandle, DmaHandleInitAttr,
                            Buf, BufMR)
from pyverbs._unimplemented import fill_missing

HUGE_PAGE_SIZE = 0x200000


def _mr_str(self):
    fmt = '{:22}: {:<20}\n'
    return ('MR\n' + fmt.format('lkey', self.lkey) +
            fmt.format('rkey', self.rkey) +
            fmt.format('length', self.length) +
            fmt.format('buf', self.buf) +
            fmt.format('handle', self.handle))


MR.__str__ = _mr_str


def _qp_bind_mw_method(self, mw, mw_bind):
    """bind_mw(mw, mw_bind): bind a type 1 memory window (ibv_bind_mw)."""
    _qp_bind_mw(self, mw, mw_bind)


QP.bind_mw = _qp_bind_mw_method


def _mw_str(self):
    fmt = '{:22}: {:<20}\n'
    return ('MW\n' + fmt.format('Rkey', self.rkey) +
            fmt.format('Handle', self.handle) +
            fmt.format('MW Type', mwtype2str(self.type)))


MW.__str__ = _mw_str


def mwtype2str(mw_type):
    return {1: 'IBV_MW_TYPE_1', 2: 'IBV_MW_TYPE_2'}.get(
        mw_type, f'Unknown MW type ({mw_type})')


fill_missing(globals(), __name__)
