# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Addressing: GIDs, global routes, address handle attributes and AHs."""
from pyverbs._verbs import GID
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)
