# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The version of this pyverbs, re-exported as pyverbs.__version__.

It is pyverbs-c's own package version (pyproject.toml's, what pip shows),
not an rdma-core release: upstream pyverbs, built inside rdma-core, puts
rdma-core's release here ("65.0"), while one pyverbs-c release builds
against any rdma-core from 44 on.  pkg-config or the libraries say which
rdma-core a build uses.
"""
__version__: str = '0.1.0'
