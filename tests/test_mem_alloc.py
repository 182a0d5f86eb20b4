# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs.mem_alloc: raw memory by address, without crashes on bad
addresses.  (Not in test_fuzz's module list: its generic bad values would
make posix_memalign() zero gigabytes.)"""
import errno
import mmap as pymmap

import pytest

import pyverbs.mem_alloc as mem
from pyverbs.pyverbs_error import PyverbsUserError

PAGE = pymmap.PAGESIZE


def test_functions_look_like_upstream():
    for name in ('malloc', 'posix_memalign', 'free', 'mmap', 'munmap',
                 'madvise', 'read', 'write', 'read32', 'read64', 'writebe32',
                 'writebe64'):
        fn = getattr(mem, name)
        assert fn.__module__ == 'pyverbs.mem_alloc'
        assert fn.__doc__
    from pyverbs._unimplemented import placeholders
    assert placeholders().get('pyverbs.mem_alloc', ()) == ()


def test_posix_memalign_read_write_free():
    for align in (8, 64, 4096):
        p = mem.posix_memalign(256, align)
        assert p % align == 0
        assert mem.read(p, 256) == bytes(256)      # zeroed
        mem.write(p, b'hello, world', 12)
        assert mem.read(p, 5) == b'hello'
        assert mem.read(p, 5, 7) == b'world'
        mem.write(p, 'abc', 3, offset=100)          # str: UTF-8
        assert mem.read(p, 3, 100) == b'abc'
        mem.write(p, bytearray(b'xy'), 1, 200)      # only length bytes
        assert mem.read(p, 2, 200) == b'x\x00'
        mem.free(p)
    assert mem.posix_memalign(16) % 8 == 0          # alignment=8 default


def test_fixed_width_values():
    p = mem.malloc(64)
    mem.writebe32(p, 0x01020304)
    assert mem.read(p, 4) == b'\x01\x02\x03\x04'
    assert mem.read32(p) == int.from_bytes(b'\x01\x02\x03\x04', 'little')
    mem.writebe32(p, 0xdeadbeef, 3)                 # offset in 4 bytes
    assert mem.read(p, 4, 12) == bytes.fromhex('deadbeef')
    mem.writebe64(p, 2**64 - 2, 2)                  # offset in 8 bytes
    assert mem.read(p, 8, 16) == (2**64 - 2).to_bytes(8, 'big')
    assert mem.read64(p, 2) == int.from_bytes((2**64 - 2).to_bytes(
        8, 'big'), 'little')
    with pytest.raises(OverflowError):
        mem.writebe32(p, 2**32)
    with pytest.raises(OverflowError):
        mem.writebe64(p, -1)
    with pytest.raises(TypeError):
        mem.writebe32(p, 1.0)
    mem.free(p)


def test_mmap_munmap():
    a = mem.mmap(length=2 * PAGE)
    assert a % PAGE == 0
    mem.write(a, b'z' * PAGE, PAGE, PAGE)
    assert mem.read(a, 2, 2 * PAGE - 2) == b'zz'
    # only whole mappings this module made
    with pytest.raises(PyverbsUserError, match='was mapped with length'):
        mem.munmap(a, PAGE)
    with pytest.raises(PyverbsUserError, match='not an address'):
        mem.munmap(a + PAGE, PAGE)
    # MAP_FIXED_ never replaces a mapping that exists
    with pytest.raises(MemoryError):
        mem.mmap(a, PAGE, flags=mem.MAP_FIXED_ | mem.MAP_PRIVATE_ |
                 mem.MAP_ANONYMOUS_)
    assert mem.read(a, 2, PAGE) == b'zz'
    mem.munmap(a, 2 * PAGE)
    with pytest.raises(PyverbsUserError, match='Cannot read'):
        mem.read(a, 1)
    with pytest.raises(PyverbsUserError, match='not an address'):
        mem.munmap(a, 2 * PAGE)


def test_munmap_length_within_the_last_page():
    """The kernel unmaps whole pages: a length that ends in the mapping's
    last page unmaps the whole mapping (rdma-core 65's ODP tests map
    msg_size bytes, shrink msg_size, then unmap with the smaller one)."""
    a = mem.mmap(length=1024)
    mem.write(a, b'q' * 8, 8)
    mem.munmap(a, 8)
    with pytest.raises(PyverbsUserError, match='not an address'):
        mem.munmap(a, 1024)
    b = mem.mmap(length=PAGE + 100)
    with pytest.raises(PyverbsUserError, match='was mapped with length'):
        mem.munmap(b, 100)
    mem.munmap(b, 2 * PAGE)
    with pytest.raises(PyverbsUserError, match='Cannot read'):
        mem.read(b, 1)


def test_read_only_mapping_is_not_written():
    a = mem.mmap(length=PAGE, prot=mem.PROT_READ_)
    assert mem.read(a, 4) == bytes(4)
    with pytest.raises(PyverbsUserError, match='Cannot write'):
        mem.write(a, b'abcd', 4)
    with pytest.raises(PyverbsUserError, match='Cannot write'):
        mem.writebe64(a, 1)
    mem.munmap(a, PAGE)


def test_bad_addresses_raise():
    for addr in (0, 8, 2**47 + 4096, 2**64 - 8):
        with pytest.raises(PyverbsUserError):
            mem.read(addr, 8)
        with pytest.raises(PyverbsUserError):
            mem.read32(addr)
        with pytest.raises(PyverbsUserError):
            mem.read64(addr)
        with pytest.raises(PyverbsUserError):
            mem.write(addr, b'12345678', 8)
        with pytest.raises(PyverbsUserError):
            mem.writebe32(addr, 1)
    with pytest.raises(PyverbsUserError):
        mem.read(2**64 - 4, 8)                      # wraps around
    with pytest.raises(OverflowError):
        mem.read64(2**64 - 8, 2**61)                # offset overflows
    with pytest.raises(OverflowError):
        mem.read(-1, 1)
    assert mem.read(0, 0) == b''                    # nothing to read


def test_free_only_what_was_allocated():
    p = mem.malloc(10)
    mem.free(p)
    with pytest.raises(PyverbsUserError, match='released already'):
        mem.free(p)                                 # double free
    buf = bytearray(16)
    with pytest.raises(PyverbsUserError, match='not an address'):
        mem.free(id(buf))                           # not ours
    a = mem.mmap(length=PAGE)
    with pytest.raises(PyverbsUserError, match='not an address'):
        mem.free(a)                                 # a mapping, not a block
    mem.munmap(a, PAGE)
    mem.free(0)                                     # free(NULL)


def test_argument_checks():
    p = mem.malloc(8)
    with pytest.raises(ValueError, match='more than the 2 bytes'):
        mem.write(p, b'ab', 3)
    with pytest.raises(TypeError):
        mem.write(p, 12, 1)
    with pytest.raises(TypeError):
        mem.write(p, None, 1)
    with pytest.raises(ValueError, match='power of two'):
        mem.posix_memalign(8, 24)
    with pytest.raises(ValueError, match='power of two'):
        mem.posix_memalign(8, 4)
    with pytest.raises(TypeError):
        mem.malloc(1.5)
    with pytest.raises(OverflowError):
        mem.malloc(-1)
    with pytest.raises(MemoryError):
        mem.malloc(2**63)
    with pytest.raises(MemoryError):
        mem.mmap(length=0)
    with pytest.raises(TypeError):
        mem.mmap(bogus=1)
    with pytest.raises(TypeError):
        mem.read(p)
    mem.free(p)


def test_dma_util():
    import pyverbs.dma_util as dma
    dma.udma_to_dev_barrier()
    dma.udma_from_dev_barrier()
    p = mem.posix_memalign(64, 64)
    dma.mmio_write64_as_be(p, 0x0102030405060708)
    assert mem.read(p, 8) == bytes(range(1, 9))
    dma.mmio_write32_as_be(addr=p + 8, val=0xa0b0c0d0)
    assert mem.read(p, 4, 8) == bytes.fromhex('a0b0c0d0')
    with pytest.raises(ValueError, match='aligned'):
        dma.mmio_write64_as_be(p + 4, 1)
    with pytest.raises(ValueError, match='aligned'):
        dma.mmio_write32_as_be(p + 2, 1)
    with pytest.raises(OverflowError):
        dma.mmio_write32_as_be(p, 2**32)
    with pytest.raises(TypeError):
        dma.mmio_write64_as_be(p, None)
    mem.free(p)
    ro = mem.mmap(length=PAGE, prot=mem.PROT_READ_)
    for addr in (0, 8, ro, 2**64 - 8):
        with pytest.raises(PyverbsUserError, match='not in a writable'):
            dma.mmio_write64_as_be(addr, 1)
    assert mem.read(ro, 8) == bytes(8)
    mem.munmap(ro, PAGE)
    from pyverbs._unimplemented import placeholders
    assert placeholders().get('pyverbs.dma_util', ()) == ()


# ------------------------------------------------------------- madvise

def test_madvise_signature_and_constants():
    import inspect
    import mmap as m
    sig = inspect.signature(mem.madvise)
    assert list(sig.parameters) == ['addr', 'length', 'flags']
    assert sig.parameters['flags'].default == m.MADV_DONTNEED == \
        mem.MADV_DONTNEED_
    assert (mem.MADV_NORMAL_, mem.MADV_RANDOM_, mem.MADV_SEQUENTIAL_,
            mem.MADV_WILLNEED_) == (m.MADV_NORMAL, m.MADV_RANDOM,
                                    m.MADV_SEQUENTIAL, m.MADV_WILLNEED)


def test_madvise_dontneed_empties_mapped_pages():
    """The real madvise(2): MADV_DONTNEED (the default) on private
    anonymous pages gives zero pages back on the next touch; the advice
    that keeps the contents keeps them."""
    a = mem.mmap(length=3 * PAGE)
    try:
        for i in range(3):
            mem.write(a, b'\xab' * 8, 8, i * PAGE)
        mem.madvise(a + PAGE, PAGE, mem.MADV_WILLNEED_)
        assert mem.read(a + PAGE, 8) == b'\xab' * 8
        mem.madvise(a + PAGE, PAGE)                 # page 1 only
        assert mem.read(a, 8) == b'\xab' * 8
        assert mem.read(a + PAGE, 8) == bytes(8)
        assert mem.read(a + 2 * PAGE, 8) == b'\xab' * 8
        mem.madvise(a, 3 * PAGE, flags=mem.MADV_DONTNEED_)
        assert mem.read(a + 2 * PAGE, 8) == bytes(8)
        # a length that ends inside the mapping's last page is its page
        mem.madvise(a + 2 * PAGE, 100)
        mem.madvise(a, 0)                           # nothing: no error
    finally:
        mem.munmap(a, 3 * PAGE)


def test_madvise_whole_heap_pages_only():
    p = mem.posix_memalign(2 * PAGE, PAGE)
    try:
        mem.write(p, b'x' * 4, 4)
        mem.madvise(p, 2 * PAGE, mem.MADV_NORMAL_)
        mem.madvise(p, PAGE)
        assert mem.read(p, 4) == bytes(4)
        # a page the block shares with the heap beyond it: refused
        with pytest.raises(PyverbsUserError, match='not all in memory'):
            mem.madvise(p + PAGE, PAGE + 1)
    finally:
        mem.free(p)
    small = mem.posix_memalign(100, PAGE)
    try:
        with pytest.raises(PyverbsUserError, match='madvise'):
            mem.madvise(small, 100)
    finally:
        mem.free(small)


def test_madvise_refuses_memory_pyverbs_did_not_allocate():
    """MADV_DONTNEED anywhere else could empty the interpreter's heap:
    only pyverbs's own memory is taken, whatever the advice."""
    import ctypes
    buf = ctypes.create_string_buffer(b'keep', 3 * PAGE)
    inside = (ctypes.addressof(buf) + PAGE - 1) & ~(PAGE - 1)
    for advice in (mem.MADV_DONTNEED_, mem.MADV_NORMAL_):
        with pytest.raises(PyverbsUserError, match='pyverbs allocated'):
            mem.madvise(inside, PAGE, advice)
    assert buf.value == b'keep'
    a = mem.mmap(length=PAGE)
    mem.munmap(a, PAGE)
    with pytest.raises(PyverbsUserError):          # unmapped already
        mem.madvise(a, PAGE)
    for addr, length in ((2 ** 64 - PAGE, 2 * PAGE), (0, 2 ** 64 - 1)):
        with pytest.raises(PyverbsUserError):
            mem.madvise(addr, length)


def test_madvise_errors():
    from pyverbs.pyverbs_error import PyverbsRDMAError
    a = mem.mmap(length=2 * PAGE)
    try:
        with pytest.raises(PyverbsRDMAError) as ei:
            mem.madvise(a + 1, PAGE)                # not page aligned
        assert ei.value.error_code == errno.EINVAL
        assert 'Failed to madvise memory' in str(ei.value)
        with pytest.raises(PyverbsRDMAError) as ei:
            mem.madvise(a, PAGE, 12345)             # no such advice
        assert ei.value.error_code == errno.EINVAL
        for bad in ((-1, PAGE), (a, -1), (a, PAGE, 2 ** 31), ('x', PAGE),
                    (a, PAGE, 'x')):
            with pytest.raises((OverflowError, TypeError)):
                mem.madvise(*bad)
        with pytest.raises(TypeError):
            mem.madvise(a)
    finally:
        mem.munmap(a, 2 * PAGE)
