# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""DMA ordering helpers for user-space data paths (udma_to_dev_barrier(),
mmio_write64_as_be(), ...).  Not implemented yet: calling one raises
PyverbsUserError."""
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)
