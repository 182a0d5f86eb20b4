# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Protection domains."""
from pyverbs._verbs import PD
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)
