# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""PD: creation, properties, lifetime, bad input."""
import pytest

from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsUserError


@pytest.mark.parametrize('creator', [None, 1, 'rxe0', object()])
def test_pd_rejects_non_context(creator):
    with pytest.raises(TypeError):
        PD(creator)


def test_pd_needs_creator():
    with pytest.raises(TypeError):
        PD()


def test_pd_unopened_close_is_harmless():
    p = PD.__new__(PD)
    p.close()
    p.close()
    assert p.closed
    assert p.pd == 0
    with pytest.raises(PyverbsUserError):
        p.handle


def test_pd_alloc(ctx):
    with PD(ctx) as pd:
        assert isinstance(pd.handle, int)
        assert pd.pd != 0
        assert pd.ctx is ctx
        assert not pd.closed
        assert 'PD handle=' in repr(pd)
    assert pd.closed
    assert pd.pd == 0


def test_pd_many(ctx):
    pds = [PD(ctx) for _ in range(32)]
    assert len({p.handle for p in pds}) == 32
    for p in pds:
        p.close()


def test_pd_double_close(ctx):
    pd = PD(ctx)
    pd.close()
    pd.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        pd.handle


def test_pd_on_closed_context(ctx):
    ctx.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        PD(ctx)


def test_pd_closed_with_context(ctx):
    pd = PD(ctx)
    ctx.close()
    assert pd.closed
    assert ctx.closed
    with pytest.raises(PyverbsUserError):
        pd.handle
    pd.close()


def test_pd_init_twice(ctx):
    pd = PD(ctx)
    with pytest.raises(PyverbsUserError, match='already'):
        pd.__init__(ctx)
    pd.close()


def test_pd_import_needs_imported_context(ctx):
    pd = PD(ctx)
    # A plain context cannot import a PD handle: the kernel or the build
    # says no, as a Python exception.
    with pytest.raises((PyverbsUserError, Exception)) as ei:
        PD(ctx, handle=pd.handle)
    assert not isinstance(ei.value, SystemError)
    with pytest.raises(PyverbsUserError):
        pd.unimport()
    pd.close()
