# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Raw memory by address, as upstream's pyverbs.mem_alloc: malloc,
posix_memalign, free, mmap, munmap, madvise, read, write, read32, read64,
writebe32, writebe64, and <sys/mman.h>'s constants (PROT_*_, MAP_*_, with
upstream's trailing underscore; MADV_*_ for madvise, ours).

Unlike upstream, these do not crash on a bad address: read/write of an
unmapped, unreadable or read-only range raises PyverbsUserError; free()
and munmap() accept only what malloc()/posix_memalign() and mmap() of this
module returned (once); a MAP_FIXED_ mmap() never replaces a mapping that
exists; madvise() (MADV_DONTNEED_ empties pages) takes only pages of that
memory or of an MR's own buffer.  For memory to use with an MR, MR(pd, length, access) allocates
and exposes its own (MR.read/write, memoryview(mr)).
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

globals().update(_verbs._mem_alloc)

fill_missing(globals(), __name__)    # upstream's names: none left
