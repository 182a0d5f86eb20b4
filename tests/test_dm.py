# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Device memory: AllocDmAttr, DM, DMMR (and FdArr, device.py's other
plain-data object).

Soft-RoCE has no device memory (max_dm_size 0): DM refuses it before
ibv_alloc_dm, as upstream does, and ibv_import_dm fails with EOPNOTSUPP;
DMMR's argument checks come before ibv_reg_dm_mr.  The tests that need
device memory skip on such a device, saying so, and run on one that has it
(mlx5).
"""
import errno
import gc

import pytest

import pyverbs.device as d
import pyverbs.enums as e
from pyverbs import _verbs
from pyverbs.device import DM, AllocDmAttr, FdArr
from pyverbs.mr import DMMR, MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError

from ref_compare import run_both

DM_ACCESS = e.IBV_ACCESS_ZERO_BASED | e.IBV_ACCESS_LOCAL_WRITE


# ---------------------------------------------------------------- host --

def test_alloc_dm_attr_fields():
    a = AllocDmAttr(64)
    assert (a.length, a.log_align_req, a.comp_mask) == (64, 0, 0)
    a = AllocDmAttr(length=128, log_align_req=3, comp_mask=1)
    assert (a.length, a.log_align_req, a.comp_mask) == (128, 3, 1)
    a = AllocDmAttr(1, 2, 3)
    assert (a.length, a.log_align_req, a.comp_mask) == (1, 2, 3)
    a.length = 2**64 - 1
    a.log_align_req = 2**32 - 1
    a.comp_mask = 2**32 - 1
    assert (a.length, a.log_align_req, a.comp_mask) == (
        2**64 - 1, 2**32 - 1, 2**32 - 1)
    assert isinstance(a, d.PyverbsObject)


@pytest.mark.parametrize('kw, exc', [
    ({'length': -1}, OverflowError),
    ({'length': 2**64}, OverflowError),
    ({'length': 1, 'log_align_req': 2**32}, OverflowError),
    ({'length': 1, 'comp_mask': 2**32}, OverflowError),
    ({'length': 1, 'comp_mask': -1}, OverflowError),
    ({'length': None}, TypeError),
    ({'length': 'a'}, TypeError),
    # stricter than upstream, which truncates these silently
    ({'length': 1.5}, TypeError),
    ({'length': True}, TypeError),
    ({}, TypeError),
    ({'length': 1, 'align': 1}, TypeError),
])
def test_alloc_dm_attr_bad(kw, exc):
    with pytest.raises(exc):
        AllocDmAttr(**kw)


def test_alloc_dm_attr_setters_refuse():
    a = AllocDmAttr(8)
    with pytest.raises(OverflowError):
        a.length = -1
    with pytest.raises(OverflowError):
        a.log_align_req = 2**32
    with pytest.raises(TypeError):
        a.comp_mask = 'x'
    with pytest.raises((AttributeError, TypeError)):
        del a.length
    assert (a.length, a.log_align_req, a.comp_mask) == (8, 0, 0)


def test_unopened_dm_is_safe():
    dm = DM.__new__(DM)
    assert dm.closed
    for call in (lambda: dm.handle, lambda: dm.copy_to_dm(0, b'abcd', 4),
                 lambda: dm.copy_from_dm(0, 4), dm.unimport,
                 dm.export_dmabuf_fd):
        with pytest.raises(PyverbsUserError, match='closed'):
            call()
    dm.close()
    dm.close()


def test_dm_bad_arguments():
    for bad in (None, 1, 'rxe0', AllocDmAttr(8)):
        with pytest.raises(TypeError):
            DM(bad, AllocDmAttr(8))
    with pytest.raises(TypeError):
        DM()
    with pytest.raises(TypeError):           # handle is keyword-only
        DM(d.Context.__new__(d.Context), None, 1)


def test_dmmr_is_an_mr():
    assert issubclass(DMMR, MR)
    mr = DMMR.__new__(DMMR)
    assert mr.closed and mr.buf == 0
    for call in (lambda: mr.read(4, 0), lambda: mr.write(b'abcd', 4),
                 lambda: mr.lkey, lambda: MR.read(mr, 4, 0)):
        with pytest.raises(PyverbsUserError, match='closed'):
            call()
    mr.close()


def test_dmmr_arguments_before_the_device():
    pd = PD.__new__(PD)                      # never opened
    dm = DM.__new__(DM)
    with pytest.raises(TypeError):
        DMMR(None, 64, DM_ACCESS, dm, 0)
    with pytest.raises(TypeError):
        DMMR(pd, 64, DM_ACCESS, None, 0)
    with pytest.raises(TypeError):
        DMMR(pd, 64, DM_ACCESS, MR.__new__(MR), 0)
    with pytest.raises(TypeError):
        DMMR(pd, 64, DM_ACCESS, dm)          # offset is required
    with pytest.raises(OverflowError):
        DMMR(pd, -1, DM_ACCESS, dm, 0)
    with pytest.raises(OverflowError):
        DMMR(pd, 64, DM_ACCESS, dm, 2**64)
    with pytest.raises(PyverbsUserError, match='closed'):
        DMMR(pd, 64, DM_ACCESS, dm, 0)


def test_fd_arr():
    f = FdArr([3, 4, 5], 2)
    assert (f.arr, f.count) == ([3, 4, 5], 2)
    f = FdArr(arr=(7,), count=1)
    assert (f.arr, f.count) == ([7], 1)
    assert FdArr([], 0).arr == []
    f.arr = [1, 2, -1]
    f.count = 3
    assert (f.arr, f.count) == ([1, 2, -1], 3)
    assert repr(f) == 'FdArr([1, 2, -1], 3)'
    assert isinstance(f, d.PyverbsObject)


def test_fd_arr_defaults_close_str():
    """Upstream 57's FdArr(arr=[], count=0), close() and printed form
    (upstream's own __str__ raises TypeError, and its close() frees the
    array a second time when the object dies)."""
    import inspect
    assert str(inspect.signature(FdArr)) == '(arr=[], count=0)'
    f = FdArr()
    assert (f.arr, f.count) == ([], 0)
    assert FdArr([5, 6]).count == 0
    f = FdArr([3, 4, 5], 2)
    assert str(f) == ('Number of fd in arr : 2                   \n'
                      'FDs in arr          : [3, 4]              \n')
    long = FdArr(list(range(100, 130)), 30)
    assert str(long).endswith(f': {list(range(100, 130))}\n')
    f.close()
    assert (f.arr, f.count) == ([], 0)
    assert str(f) == ('Number of fd in arr : 0                   \n'
                      'FDs in arr          : []                  \n')
    f.close()                                # again: nothing
    f.arr = [9]                              # usable again, as a new one
    f.count = 1
    assert (f.arr, f.count, repr(f)) == ([9], 1, 'FdArr([9], 1)')
    del f
    gc.collect()
    raw = FdArr.__new__(FdArr)
    raw.close()
    assert str(raw).startswith('Number of fd in arr : 0')


def test_fd_arr_bad():
    with pytest.raises(PyverbsUserError, match='exceeds'):
        FdArr([1], 2)
    for arr in (None, 1, 'abc', b'ab', [1.5], [2**31], [None]):
        with pytest.raises((TypeError, OverflowError)):
            FdArr(arr, 0)
    with pytest.raises(OverflowError):
        FdArr([], -1)
    with pytest.raises(TypeError):
        FdArr([], 0, 1)
    with pytest.raises(TypeError):
        FdArr([]).close(1)
    f = FdArr([1, 2], 2)
    with pytest.raises(PyverbsUserError, match='exceeds'):
        f.arr = [1]                          # count 2 would not fit
    with pytest.raises(PyverbsUserError, match='exceeds'):
        f.count = 3
    with pytest.raises(TypeError):
        f.arr = [1, 'x']
    assert (f.arr, f.count) == ([1, 2], 2)   # unchanged by the failures
    with pytest.raises(AttributeError):
        del f.count
    raw = FdArr.__new__(FdArr)
    assert (raw.arr, raw.count) == ([], 0)


def test_fuzz_constructed_objects():
    from test_fuzz import fuzz_instance
    for obj in (AllocDmAttr(8, 1, 0), FdArr([1, 2], 1)):
        fuzz_instance(obj)


REF_SNIPPET = '''
import pyverbs.device as d
import pyverbs.mr as m
a = d.AllocDmAttr(10)
show('defaults', lambda: (a.length, a.log_align_req, a.comp_mask))
show('keywords', lambda: (lambda x: (x.length, x.log_align_req,
                                     x.comp_mask))(
    d.AllocDmAttr(length=1, log_align_req=2, comp_mask=3)))
show('str', lambda: str(a).split(' at ')[0])
show('no length', lambda: d.AllocDmAttr())
show('negative', lambda: d.AllocDmAttr(-1))
show('too long', lambda: d.AllocDmAttr(2**64))
show('max', lambda: d.AllocDmAttr(2**64 - 1).length)
show('align', lambda: d.AllocDmAttr(1, 2**32))
show('mask', lambda: d.AllocDmAttr(1, 0, 2**32))
show('text', lambda: d.AllocDmAttr('a'))
show('unknown kw', lambda: d.AllocDmAttr(1, foo=2))
def set_negative():
    a.length = -1
show('set negative', set_negative)
def set_mask():
    a.comp_mask = 7
    return a.comp_mask
show('set mask', set_mask)
show('dm unopened close', lambda: d.DM.__new__(d.DM).close())
show('dmmr bases', lambda: [c.__name__ for c in m.DMMR.__mro__][:3])
show('dm bases', lambda: [c.__name__ for c in d.DM.__mro__][:3])
show('dmmr no args', lambda: m.DMMR())
'''


def test_matches_reference():
    ours, theirs = run_both(REF_SNIPPET)
    assert ours == theirs
    assert 'defaults ok (10, 0, 0)' in ours


# -------------------------------------------------------------- device --

def has_dm(ctx):
    return ctx.query_device_ex().max_dm_size > 0


def test_dm_on_a_device_without_device_memory(ctx):
    if has_dm(ctx):
        pytest.skip('the device has device memory')
    # upstream checks max_dm_size before ibv_alloc_dm
    with pytest.raises(PyverbsUserError,
                       match="Device doesn't support dm allocation"):
        DM(ctx, AllocDmAttr(64))
    # nothing was linked to the Context
    pd = PD(ctx)
    ctx.close()
    assert pd.closed


def test_dm_import_unsupported(ctx):
    if has_dm(ctx):
        pytest.skip('the device has device memory')
    with pytest.raises(PyverbsRDMAError, match='Failed to import DM') as ex:
        DM(ctx, handle=0)
    assert ex.value.error_code == errno.EOPNOTSUPP
    assert ex.value.func == 'ibv_import_dm'


def test_dm_needs_an_attr(ctx):
    with pytest.raises(TypeError, match='AllocDmAttr'):
        DM(ctx)
    with pytest.raises(TypeError, match='AllocDmAttr'):
        DM(ctx, None)
    with pytest.raises(TypeError):
        DM(ctx, AllocDmAttr(8), handle='x')
    with pytest.raises(OverflowError):
        DM(ctx, handle=2**32)


def test_dm_on_closed_context(ctx):
    ctx.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        DM(ctx, AllocDmAttr(64))


def test_dmmr_checks_before_registration(ctx, ctx2):
    pd = PD(ctx)
    with pytest.raises(PyverbsUserError, match='closed'):
        DMMR(pd, 64, DM_ACCESS, DM.__new__(DM), 0)
    with pytest.raises(TypeError, match='dm must be a DM'):
        DMMR(pd, 64, DM_ACCESS, pd, 0)
    with pytest.raises(TypeError, match='pd must be a PD'):
        DMMR(ctx, 64, DM_ACCESS, DM.__new__(DM), 0)
    pd.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        DMMR(pd, 64, DM_ACCESS, DM.__new__(DM), 0)


# ---- with device memory (mlx5); skipped on Soft-RoCE ----

@pytest.fixture
def dm_size(ctx):
    size = ctx.query_device_ex().max_dm_size
    if not size:
        pytest.skip('Device memory is not supported')
    return min(size, 4096) & ~7


def test_dm_copy_round_trip(ctx, dm_size):
    with DM(ctx, AllocDmAttr(dm_size)) as dm:
        assert isinstance(dm.handle, int)
        data = bytes(range(256)) * (dm_size // 256) + bytes(dm_size % 256)
        dm.copy_to_dm(0, data, dm_size)
        assert dm.copy_from_dm(0, dm_size) == data
        dm.copy_to_dm(4, bytearray(b'wxyz'), 4)
        assert dm.copy_from_dm(4, 4) == b'wxyz'
        assert dm.copy_from_dm(dm_size, 0) == b''
    assert dm.closed


def test_dm_copy_checks(ctx, dm_size):
    with DM(ctx, AllocDmAttr(dm_size)) as dm:
        # past the end, or wrapping around 2^64: EFAULT, before the call
        for off, n in ((dm_size, 4), (0, dm_size + 4), (2**64 - 4, 8)):
            with pytest.raises(PyverbsRDMAError,
                               match='Failed to copy to dm') as ex:
                dm.copy_to_dm(off, bytes(n), n)
            assert ex.value.error_code == errno.EFAULT
            with pytest.raises(PyverbsRDMAError,
                               match='Failed to copy from dm') as ex:
                dm.copy_from_dm(off, n)
            assert ex.value.error_code == errno.EFAULT
        # never read past the data given
        with pytest.raises(PyverbsUserError, match='exceeds'):
            dm.copy_to_dm(0, b'abcd', 8)
        with pytest.raises(TypeError):
            dm.copy_to_dm(0, 'abcd', 4)
        # the provider's alignment rule (mlx5: 4 bytes)
        with pytest.raises(PyverbsRDMAError, match='Failed to copy to dm'):
            dm.copy_to_dm(1, b'abcd', 4)


def test_dm_too_large(ctx, dm_size):
    big = ctx.query_device_ex().max_dm_size + 1
    with pytest.raises(PyverbsRDMAError,
                       match='Failed to allocate device memory of size') as ex:
        DM(ctx, AllocDmAttr(big))
    assert 'Max available size' in str(ex.value)


def test_dmmr(ctx, dm_size):
    pd = PD(ctx)
    dm = DM(ctx, AllocDmAttr(dm_size))
    mr = DMMR(pd, dm_size, DM_ACCESS, dm, 0)
    assert mr.length == dm_size and mr.buf == 0
    assert mr.lkey != 0 and mr.pd is pd
    mr.write('abcd', 4)                      # str: UTF-8, as upstream
    mr.write(b'efgh', 4, offset=4)
    assert mr.read(8, 0) == b'abcdefgh'
    assert dm.copy_from_dm(0, 8) == b'abcdefgh'
    with pytest.raises(PyverbsUserError, match='device memory'):
        MR.read(mr, 4, 0)
    with pytest.raises(PyverbsRDMAError,
                       match='Failed to register a device MR'):
        DMMR(pd, dm_size + 4, DM_ACCESS, dm, 0)
    # closing the DM deregisters its MRs first
    dm.close()
    assert mr.closed
    assert not pd.closed
    with pytest.raises(PyverbsUserError, match='closed'):
        mr.read(4, 0)


def test_dmmr_other_context(ctx, ctx2, dm_size):
    if ctx2.name == ctx.name:
        pytest.skip('needs two devices')
    with DM(ctx, AllocDmAttr(dm_size)) as dm:
        with pytest.raises(PyverbsUserError, match='another Context'):
            DMMR(PD(ctx2), dm_size, DM_ACCESS, dm, 0)


def test_dm_not_imported(ctx, dm_size):
    with DM(ctx, AllocDmAttr(dm_size)) as dm:
        with pytest.raises(PyverbsUserError, match='not imported'):
            dm.unimport()
        assert not dm.closed


def test_native_names():
    assert _verbs.DM is DM and _verbs.DMMR is DMMR
    assert DM.__module__ == 'pyverbs.device'
    assert DMMR.__module__ == 'pyverbs.mr'
