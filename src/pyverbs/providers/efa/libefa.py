# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""An empty module, as upstream's is.

Upstream pyverbs declares libefa's direct-verbs C API for Cython in
libefa.pxd and, from rdma-core 50 on, ships an empty module of the same
name beside it; this one exists so that
`import pyverbs.providers.efa.libefa` works the same.  The EFA API is
pyverbs.providers.efa.efadv.
"""
