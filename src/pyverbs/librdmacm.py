# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""An empty module, as upstream's is.

Upstream pyverbs declares librdmacm's C API for Cython in librdmacm.pxd and,
from rdma-core 50 on, ships an empty module of the same name beside it;
this one exists so that `import pyverbs.librdmacm` works the same.  The
rdma_cm API is pyverbs.cmid (its enums: pyverbs.librdmacm_enums).
"""
