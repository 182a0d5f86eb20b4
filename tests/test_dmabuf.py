# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""DmaBuf (pyverbs.dmabuf) and DmaBufMR (pyverbs.mr).

The DmaBuf tests need a DRM device (/dev/dri/renderD128): inside the
Soft-RoCE VM that is vgem, the virtual GEM driver, when the guest kernel has
it.  rxe cannot register dma-buf memory: DmaBufMR on it fails with
EOPNOTSUPP, which is checked here (with the lifetimes around the failure).
"""
import errno
import mmap
import os

import pytest

import pyverbs.enums as e
from pyverbs.dmabuf import DmaBuf
from pyverbs.mr import DmaBufMR, MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError

NO_GPU = 4000       # /dev/dri/renderD4128 exists nowhere


def _open_fds():
    return set(os.listdir('/proc/self/fd'))


@pytest.fixture
def dmabuf_ok():
    """Skip (naming the reason) unless a DmaBuf can be allocated."""
    try:
        DmaBuf(1).close()
    except PyverbsRDMAError as ex:
        reasons = {errno.ENOENT: 'no /dev/dri/renderD128 (vgem not loaded)',
                   errno.EACCES: 'no permission on /dev/dri/renderD128',
                   errno.EOPNOTSUPP: 'the DRM driver cannot allocate'}
        pytest.skip(f'DmaBuf unavailable: '
                    f'{reasons.get(ex.error_code, ex)}')


# ---- no device needed ----

def test_classes():
    assert issubclass(DmaBufMR, MR)
    assert DmaBuf.__module__ == 'pyverbs.dmabuf'
    assert DmaBufMR.__module__ == 'pyverbs.mr'


def test_dmabuf_no_device():
    with pytest.raises(PyverbsRDMAError) as ex:
        DmaBuf(4096, gpu=NO_GPU)
    assert ex.value.error_code == errno.ENOENT
    assert 'Failed to allocate dmabuf of size 4096' in str(ex.value)


@pytest.mark.parametrize('args, exc', [
    ((), TypeError), (('x',), TypeError), ((-1,), OverflowError),
    ((1.5,), TypeError), ((2**64,), OverflowError), ((None,), TypeError),
    ((1, -1), OverflowError), ((1, 'a'), TypeError), ((1, 0, 'a'), TypeError),
    ((1, 2**31), OverflowError), ((1, 2**16), OverflowError)])
def test_dmabuf_bad_args(args, exc):
    with pytest.raises(exc):
        DmaBuf(*args)


def test_dmabuf_unopened():
    d = DmaBuf.__new__(DmaBuf)
    with pytest.raises(PyverbsUserError):
        d.fd
    d.close()
    d.close()


@pytest.mark.parametrize('args', [(None, 1, 0), ('pd', 1, 0)])
def test_dmabuf_mr_needs_pd(args):
    with pytest.raises(TypeError, match='pd must be a PD'):
        DmaBufMR(*args)


# ---- with a device ----

@pytest.mark.device
def test_dmabuf_alloc_and_close(dmabuf_ok):
    before = _open_fds()
    d = DmaBuf(3 * 4096 + 1)
    assert d.size == 3 * 4096 + 1
    assert d.fd >= 0 and d.drm_fd >= 0 and d.fd != d.drm_fd
    assert d.handle > 0
    assert os.readlink(f'/proc/self/fd/{d.drm_fd}').startswith('/dev/dri/')
    # the dma-buf is a real one: its size is the buffer's (page rounded)
    assert os.lseek(d.fd, 0, os.SEEK_END) >= d.size
    # the buffer is reachable through drm_fd at map_offset
    m = mmap.mmap(d.drm_fd, 4096, offset=d.map_offset)
    m[:5] = b'hello'
    m2 = mmap.mmap(d.drm_fd, 4096, offset=d.map_offset)
    assert m2[:5] == b'hello'
    m.close()
    m2.close()
    d.close()
    d.close()                       # idempotent
    assert d.closed
    assert _open_fds() == before    # both descriptors closed
    with pytest.raises(PyverbsUserError):
        d.fd
    with DmaBuf(1, gpu=0, gtt=True) as d2:
        assert d2.fd >= 0
    assert d2.closed


@pytest.mark.device
def test_dmabuf_many(dmabuf_ok):
    bufs = [DmaBuf(4096 * (i + 1)) for i in range(8)]
    # each has its own DRM file (so its GEM handles start anew)
    assert len({b.fd for b in bufs} | {b.drm_fd for b in bufs}) == 16
    assert [b.size for b in bufs] == [4096 * (i + 1) for i in range(8)]
    for b in bufs:
        b.close()


def test_dmabuf_mr_rxe_eopnotsupp(pd):
    """rxe has no dma-buf support: it says EOPNOTSUPP, in upstream's words;
    the DmaBuf allocated for the MR is freed again."""
    try:
        DmaBuf(1).close()
    except PyverbsRDMAError:
        pytest.skip('no DRM device: the registration is not reached')
    before = _open_fds()
    with pytest.raises(PyverbsRDMAError) as ex:
        DmaBufMR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    assert ex.value.error_code == errno.EOPNOTSUPP
    assert str(ex.value).startswith(
        'Failed to register a dma-buf MR. length: 4096, access flags: 1')
    assert _open_fds() == before
    # the same with a DmaBuf of ours (left open and usable), and an fd
    with DmaBuf(8192) as d:
        for dmabuf in (d, d.fd):
            with pytest.raises(PyverbsRDMAError) as ex:
                DmaBufMR(pd, 4096, 0, dmabuf=dmabuf, offset=4096)
            assert ex.value.error_code == errno.EOPNOTSUPP
        assert not d.closed and d.fd >= 0


def test_dmabuf_mr_bad_args(pd):
    with pytest.raises(TypeError, match='dmabuf must be a DmaBuf'):
        DmaBufMR(pd, 1, 0, dmabuf='x')
    with pytest.raises(TypeError):
        DmaBufMR(pd, 1, 0, dmabuf=True)
    with pytest.raises(OverflowError):
        DmaBufMR(pd, -1, 0)
    with pytest.raises(OverflowError):
        DmaBufMR(pd, 2**63, 0, offset=2**63)
    with pytest.raises(TypeError):
        DmaBufMR(pd, 1, 'a')
    # a GPU that does not exist: the allocation fails first
    with pytest.raises(PyverbsRDMAError) as ex:
        DmaBufMR(pd, 1, 0, gpu=NO_GPU)
    assert ex.value.error_code == errno.ENOENT
    # a bad fd reaches the kernel, which refuses it
    with pytest.raises(PyverbsRDMAError):
        DmaBufMR(pd, 1, 0, dmabuf=-1)


def test_dmabuf_mr_closed_parents(ctx):
    pd = PD(ctx)
    pd.close()
    with pytest.raises(PyverbsUserError):
        DmaBufMR(pd, 1, 0)
    try:
        d = DmaBuf(4096)
    except PyverbsRDMAError:
        pytest.skip('no DRM device')
    d.close()
    with pytest.raises(PyverbsUserError):
        DmaBufMR(PD(ctx), 1, 0, dmabuf=d)


def test_dmabuf_mr_unopened(pd):
    mr = DmaBufMR.__new__(DmaBufMR)
    assert mr.dmabuf is None and mr.offset == 0
    with pytest.raises(PyverbsUserError):
        mr.read(1, 0)
    with pytest.raises(PyverbsUserError):
        mr.write(b'x', 1, 0)
    with pytest.raises(PyverbsUserError):
        mr.lkey
    mr.close()
    mr.close()
