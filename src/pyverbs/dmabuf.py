# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""DMA-BUF memory from a GPU (DRM) render node: DmaBuf.

DmaBuf(size, gpu=0, gtt=0) allocates size bytes on /dev/dri/renderD<128+gpu>
and exports them as a dma-buf file descriptor (fd); pyverbs.mr.DmaBufMR
registers such memory.  Drivers: amdgpu, i915, and any driver with dumb
buffers (vgem, virtio-gpu, ...) through the device's primary node."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs._verbs import DmaBuf
from pyverbs._unimplemented import fill_missing

__all__ = ['DmaBuf']

fill_missing(globals(), __name__)
