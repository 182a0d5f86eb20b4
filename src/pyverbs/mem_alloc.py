# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Raw memory by address (mmap, posix_memalign, read/write at an address).

The constants (PROT_*_, MAP_*_: <sys/mman.h>'s values, trailing underscore
as upstream) are real.  The functions are not implemented yet: calling one
raises PyverbsUserError.  (MR(pd, length, access) allocates and exposes its
own memory, see MR.read/write and memoryview(mr).)
"""
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

globals().update(_verbs._mman_constants)

fill_missing(globals(), __name__)
