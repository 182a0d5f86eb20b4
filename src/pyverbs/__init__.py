# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs: the Python API over rdma-core (libibverbs, librdmacm).

This is pyverbs-c: upstream pyverbs's modules, classes and printed formats,
with the native layer written in C against the CPython C API.
"""
__version__ = '0.1.0'
