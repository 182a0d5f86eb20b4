# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""An empty module, as upstream's is.

Upstream pyverbs declares libibverbs's C API for Cython in libibverbs.pxd
and, from rdma-core 50 on, ships an empty module of the same name beside
it; this one exists so that `import pyverbs.libibverbs` works the same.
The verbs themselves are in pyverbs.device, .pd, .qp, ... (and their enums
in pyverbs.libibverbs_enums).
"""
