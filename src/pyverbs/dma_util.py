# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""DMA ordering helpers for user-space data paths, as upstream's
pyverbs.dma_util: udma_to_dev_barrier(), udma_from_dev_barrier(),
mmio_write32_as_be(addr, val) and mmio_write64_as_be(addr, val).

The MMIO writes check first that the target is aligned and inside a
writable mapping of the process (PyverbsUserError otherwise), then store
the whole value at once, as a device register (a doorbell) needs.
"""
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

globals().update(_verbs._dma_util)

fill_missing(globals(), __name__)    # upstream's names: none left
