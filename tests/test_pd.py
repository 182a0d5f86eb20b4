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


def test_advise_mr(ctx):
    """PD.advise_mr(): Soft-RoCE on kernel 6.1 has no ODP, so the kernel
    refuses every advice with EOPNOTSUPP (the reference says the same);
    the arguments are checked before the call."""
    import errno
    import pyverbs.enums as e
    from pyverbs.mr import MR
    from pyverbs.pyverbs_error import PyverbsRDMAError
    from pyverbs.wr import SGE
    with PD(ctx) as pd, MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE) as mr:
        sgl = [SGE(mr.buf, 4096, mr.lkey), SGE(mr.buf, 8, mr.lkey)]
        for advice in (e._IBV_ADVISE_MR_ADVICE_PREFETCH,
                       e._IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
                       e._IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT):
            for flags in (0, e._IBV_ADVISE_MR_FLAG_FLUSH):
                with pytest.raises(PyverbsRDMAError,
                                   match='Failed to advise MR') as ex:
                    pd.advise_mr(advice, flags, sgl)
                assert ex.value.error_code == errno.EOPNOTSUPP
        with pytest.raises(TypeError, match=r'sg_list\[1\]'):
            pd.advise_mr(0, 0, [sgl[0], mr])
        with pytest.raises(TypeError):
            pd.advise_mr(0, 0, None)
        with pytest.raises(OverflowError):
            pd.advise_mr(0, 2**32, sgl)
        with pytest.raises(TypeError):
            pd.advise_mr(advise=0, flags=0)
    with pytest.raises(PyverbsUserError, match='closed'):
        pd.advise_mr(0, 0, sgl)
