# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Completion counters (rdma-core 65): CompCntrInitAttr, CompCntr,
CompCntrCaps (Context.query_comp_cntr_caps), QPAttachCompCntrAttr
(QP.attach_comp_cntr).

No provider of the test guest has counters (rxe: libibverbs answers
EOPNOTSUPP), so the device tests check the clean errors: EOPNOTSUPP from
the library where the build has the calls, the error naming rdma-core 65
where it does not; and the argument checks before either.
"""
import errno
import inspect

import pytest

import pyverbs.enums as e
from pyverbs import _verbs
from pyverbs.comp_cntr import CompCntr, CompCntrInitAttr
from pyverbs.cq import CQ
from pyverbs.device import CompCntrCaps, Context
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.qp import QP, QPAttachCompCntrAttr, QPCap, QPInitAttr

pytestmark = pytest.mark.memcheck

HAVE = bool(_verbs._HAVE_COMP_CNTR)


def refused():
    """pytest.raises for what the build or rxe answer: EOPNOTSUPP, from
    the library or naming rdma-core 65 (check_refused() tells which)."""
    return pytest.raises(PyverbsRDMAError,
                         match='comp' if HAVE else 'needs rdma-core 65')


def check_refused(ei, func):
    assert ei.value.error_code == errno.EOPNOTSUPP
    if HAVE:
        assert ei.value.func == func
    else:
        assert func in str(ei.value)


# ------------------------------------------------------------------- host

def test_modules_and_signatures():
    assert CompCntr.__module__ == CompCntrInitAttr.__module__ == \
        'pyverbs.comp_cntr'
    assert CompCntrCaps.__module__ == 'pyverbs.device'
    assert QPAttachCompCntrAttr.__module__ == 'pyverbs.qp'
    sig = inspect.signature(CompCntrInitAttr)
    assert [(p.name, p.default) for p in sig.parameters.values()] == \
        [('comp_mask', 0), ('cntr_type', 0), ('flags', 0)]
    assert list(inspect.signature(CompCntr).parameters) == ['ctx', 'attr']
    assert list(inspect.signature(QP.attach_comp_cntr).parameters) == \
        ['self', 'comp_cntr', 'attr']
    for m in ('set', 'set_err', 'inc', 'inc_err', 'read', 'read_err',
              'close'):
        assert callable(getattr(CompCntr, m))


def test_attribute_classes():
    a = CompCntrInitAttr()
    assert (a.comp_mask, a.cntr_type, a.flags) == (0, 0, 0)
    a = CompCntrInitAttr(comp_mask=1, cntr_type=1, flags=2**32 - 1)
    assert (a.comp_mask, a.cntr_type, a.flags) == (1, 1, 2**32 - 1)
    a.cntr_type = 0
    assert a.cntr_type == 0
    q = QPAttachCompCntrAttr(op_mask=0x3f)
    assert q.op_mask == 0x3f
    assert QPAttachCompCntrAttr().op_mask == 0
    c = CompCntrCaps()
    assert (c.max_counters, c.max_value, c.supported_qp_attach_ops) == \
        (0, 0, 0)
    with pytest.raises(AttributeError):
        c.max_value = 1                     # what the device said
    with pytest.raises(TypeError):
        CompCntrCaps(1)


@pytest.mark.parametrize('cls,kw,exc', [
    (CompCntrInitAttr, {'comp_mask': -1}, OverflowError),
    (CompCntrInitAttr, {'cntr_type': 2**32}, OverflowError),
    (CompCntrInitAttr, {'flags': 'x'}, TypeError),
    (CompCntrInitAttr, {'flags': None}, TypeError),
    (CompCntrInitAttr, {'type': 1}, TypeError),
    (QPAttachCompCntrAttr, {'op_mask': -1}, OverflowError),
    (QPAttachCompCntrAttr, {'op_mask': 1.5}, TypeError),
])
def test_attribute_classes_bad(cls, kw, exc):
    with pytest.raises(exc):
        cls(**kw)


def test_argument_checks():
    ctx = Context.__new__(Context)          # never opened
    with pytest.raises(TypeError, match='attr must be a CompCntrInitAttr'):
        CompCntr(ctx, QPAttachCompCntrAttr())
    with pytest.raises(TypeError, match='ctx must be a Context'):
        CompCntr(PD.__new__(PD), CompCntrInitAttr())
    with pytest.raises(PyverbsUserError, match='Context object is closed'):
        CompCntr(ctx, CompCntrInitAttr())
    with pytest.raises(PyverbsUserError, match='Context object is closed'):
        ctx.query_comp_cntr_caps()
    qp = QP.__new__(QP)
    cntr = CompCntr.__new__(CompCntr)
    with pytest.raises(TypeError):
        qp.attach_comp_cntr(None, QPAttachCompCntrAttr())
    with pytest.raises(TypeError):
        qp.attach_comp_cntr(cntr, CompCntrInitAttr())
    if HAVE:
        with pytest.raises(PyverbsUserError, match='QP object is closed'):
            qp.attach_comp_cntr(cntr, QPAttachCompCntrAttr())
    else:
        with pytest.raises(PyverbsRDMAError, match='needs rdma-core 65'):
            qp.attach_comp_cntr(cntr, QPAttachCompCntrAttr())


def test_unopened_counter():
    c = CompCntr.__new__(CompCntr)
    for call in (c.read, c.read_err, lambda: c.set(1), lambda: c.inc(1),
                 lambda: c.set_err(0), lambda: c.inc_err(2**64 - 1)):
        with pytest.raises(PyverbsUserError, match='closed'):
            call()
    for bad, exc in ((-1, OverflowError), (2**64, OverflowError),
                     ('1', TypeError), (None, TypeError)):
        with pytest.raises(exc):
            c.set(bad)
        with pytest.raises(exc):
            c.inc_err(bad)
    with pytest.raises(TypeError):
        c.read(1)
    c.close()
    c.close()


# ----------------------------------------------------------------- device

def test_rxe_has_no_counters(ctx, pd):
    with refused() as ei:
        ctx.query_comp_cntr_caps()
    check_refused(ei, 'ibv_query_comp_cntr_caps')
    with refused() as ei:
        CompCntr(ctx, CompCntrInitAttr(cntr_type=1))
    check_refused(ei, 'ibv_create_comp_cntr')
    with CQ(ctx, 4) as cq:
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                               cap=QPCap(max_send_wr=1, max_recv_wr=1)))
        attr = QPAttachCompCntrAttr(op_mask=1)
        cntr = CompCntr.__new__(CompCntr)   # none can be made on rxe
        if HAVE:
            with pytest.raises(PyverbsUserError, match='CompCntr object is '
                               'closed'):
                qp.attach_comp_cntr(cntr, attr)
        else:
            with pytest.raises(PyverbsRDMAError, match='needs rdma-core 65'):
                qp.attach_comp_cntr(cntr, attr)
        qp.close()
    # the Context is still fine
    ctx.query_device()
