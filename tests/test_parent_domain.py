# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Parent domains: ParentDomainInitAttr, ParentDomainContext, ParentDomain.

Soft-RoCE has no parent domains: ibv_alloc_parent_domain fails with
EOPNOTSUPP, which the device tests assert.  The tests that need one (the
provider calling the Python allocators through pyverbs' C trampolines) skip
on such a device, saying so, and run on one that has them (mlx5).
"""
import errno
import gc
import sys
import weakref

import pytest

import pyverbs.enums as e
import pyverbs.mem_alloc as mem
from pyverbs import _verbs
from pyverbs.cq import CQEX, CqInitAttrEx
from pyverbs.mr import MR
from pyverbs.pd import PD, ParentDomain, ParentDomainContext, \
    ParentDomainInitAttr
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.qp import QP, QPCap, QPInitAttr, QPInitAttrEx

from ref_compare import run_both

BOTH = (e.IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
        e.IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)


def use_default(pd, context, size, alignment, resource_type):
    return e._IBV_ALLOCATOR_USE_DEFAULT


def no_free(pd, context, ptr, resource_type):
    pass


# ---------------------------------------------------------------- host --

def test_allocator_use_default_constant():
    assert e._IBV_ALLOCATOR_USE_DEFAULT == 2**64 - 1   # (void *)-1


def test_init_attr():
    pd = PD.__new__(PD)
    a = ParentDomainInitAttr(pd)
    assert a.comp_mask == 0
    a = ParentDomainInitAttr(pd=pd, pd_context=None)
    assert a.comp_mask == 0
    ctx = ParentDomainContext(pd, use_default, no_free)
    a = ParentDomainInitAttr(pd, ctx)
    assert a.comp_mask == BOTH == 3
    with pytest.raises(AttributeError):
        a.comp_mask = 0                      # read-only, as upstream
    assert a.comp_mask == BOTH
    # upstream exposes neither the PD nor the context
    assert not hasattr(a, 'pd') and not hasattr(a, 'pd_context')


@pytest.mark.parametrize('args, kw', [
    ((), {}),
    ((None,), {}),
    ((1,), {}),
    ((MR.__new__(MR),), {}),
    ((PD.__new__(PD), 5), {}),
    ((PD.__new__(PD), PD.__new__(PD)), {}),
    ((PD.__new__(PD),), {'comp_mask': 'x'}),
    ((PD.__new__(PD), None, 1.0), {}),
    ((PD.__new__(PD), None, 0, 0), {}),
])
def test_init_attr_bad(args, kw):
    with pytest.raises(TypeError):
        ParentDomainInitAttr(*args, **kw)


def test_init_attr_comp_mask():
    """comp_mask (upstream since rdma-core 64): kept as given, with
    ALLOCATORS and PD_CONTEXT added by a pd_context and refused without
    one; out of 32 bits is an OverflowError."""
    pd = PD.__new__(PD)
    cc = e.IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC
    assert cc == 4
    assert ParentDomainInitAttr(pd, comp_mask=cc).comp_mask == 4
    assert ParentDomainInitAttr(pd, None, 0).comp_mask == 0
    ctx = ParentDomainContext(pd, use_default, no_free)
    assert ParentDomainInitAttr(pd, ctx, cc).comp_mask == BOTH | 4
    assert ParentDomainInitAttr(pd, ctx, BOTH).comp_mask == BOTH
    assert ParentDomainInitAttr(pd, ctx, 1 << 31).comp_mask == BOTH | 1 << 31
    for bits in (e.IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS,
                 e.IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT, BOTH | cc):
        with pytest.raises(PyverbsUserError,
                           match='comp_mask bits ALLOCATORS/PD_CONTEXT '
                                 'require pd_context to be provided'):
            ParentDomainInitAttr(pd, comp_mask=bits)
    for bad in (-1, 1 << 32):
        with pytest.raises(OverflowError):
            ParentDomainInitAttr(pd, comp_mask=bad)


def test_context():
    pd = PD.__new__(PD)
    c = ParentDomainContext(pd, use_default, no_free)
    assert c.user_data is None
    c = ParentDomainContext(pd, use_default, no_free, [1])
    assert c.user_data == [1]
    c.user_data = 0x1000
    c.user_data += 8                         # rdma-core's huge page test
    assert c.user_data == 0x1008
    c = ParentDomainContext(pd=None, alloc_func=use_default,
                            free_func=no_free, user_data='x')
    assert c.user_data == 'x'                # pd None: as upstream
    with pytest.raises(AttributeError):
        del c.user_data
    for hidden in ('pd', 'alloc_func', 'free_func', 'exc'):
        assert not hasattr(c, hidden)


@pytest.mark.parametrize('args', [
    (),
    (PD.__new__(PD), use_default),
    (1, use_default, no_free),
    ('pd', use_default, no_free),
    # stricter than upstream, which would call them (and fail) later
    (PD.__new__(PD), None, no_free),
    (PD.__new__(PD), use_default, 3),
    (PD.__new__(PD), use_default, no_free, None, None),
])
def test_context_bad(args):
    with pytest.raises(TypeError):
        ParentDomainContext(*args)


class Sentinel:
    pass


def test_context_cycles_are_collected():
    s = Sentinel()
    gone = weakref.ref(s)
    s.context = ParentDomainContext(None, use_default, no_free, s)
    del s
    gc.collect()
    assert gone() is None
    # through an init attr holding the context
    s = Sentinel()
    gone = weakref.ref(s)
    c = ParentDomainContext(PD.__new__(PD), use_default, no_free, s)
    s.attr = ParentDomainInitAttr(PD.__new__(PD), c)
    del s, c
    gc.collect()
    assert gone() is None


def test_parent_domain_is_a_pd():
    assert issubclass(ParentDomain, PD)
    p = ParentDomain.__new__(ParentDomain)
    assert p.closed and p.pd == 0 and p.ctx is None
    assert repr(p) == '<ParentDomain closed>'
    with pytest.raises(PyverbsUserError, match='closed'):
        p.handle
    with pytest.raises(PyverbsUserError, match='closed'):
        p.unimport()
    p.close()
    # accepted wherever a PD is
    assert QPInitAttrEx(pd=p).pd is p
    assert CqInitAttrEx(parent_domain=p).parent_domain is p
    with pytest.raises(PyverbsUserError, match='closed'):
        MR(p, 4096, 0)


def test_parent_domain_bad_arguments():
    attr = ParentDomainInitAttr(PD.__new__(PD))
    for args in ((), (None, attr), (1, attr), (attr,)):
        with pytest.raises(TypeError):
            ParentDomain(*args)
    with pytest.raises(TypeError):
        ParentDomain(_verbs.Context.__new__(_verbs.Context), None)
    with pytest.raises(TypeError):
        ParentDomain(_verbs.Context.__new__(_verbs.Context),
                     attr=PD.__new__(PD))
    with pytest.raises(PyverbsUserError, match='closed'):
        ParentDomain(_verbs.Context.__new__(_verbs.Context), attr=attr)


REF_SNIPPET = '''
import pyverbs.pd as p
import pyverbs.enums as e
def f(*args):
    return e._IBV_ALLOCATOR_USE_DEFAULT
pd = p.PD.__new__(p.PD)
c = p.ParentDomainContext(pd, f, f)
show('use default', lambda: e._IBV_ALLOCATOR_USE_DEFAULT)
show('masks', lambda: (e.IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS,
                       e.IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT))
show('attr mask', lambda: p.ParentDomainInitAttr(pd).comp_mask)
show('attr mask ctx', lambda: p.ParentDomainInitAttr(pd, c).comp_mask)
show('attr kw', lambda: p.ParentDomainInitAttr(pd=pd, pd_context=c).comp_mask)
show('attr str', lambda: str(p.ParentDomainInitAttr(pd)).split(' at ')[0])
show('attr no pd', lambda: p.ParentDomainInitAttr(None))
show('attr bad ctx', lambda: p.ParentDomainInitAttr(pd, 5))
a = p.ParentDomainInitAttr(pd, c)
def set_mask():
    a.comp_mask = 1
show('attr set mask', set_mask)
show('ctx user_data', lambda: c.user_data)
show('ctx 4 args', lambda: p.ParentDomainContext(pd, f, f, 3).user_data)
show('ctx kw', lambda: p.ParentDomainContext(pd=pd, alloc_func=f,
                                             free_func=f,
                                             user_data=7).user_data)
show('ctx pd none', lambda: p.ParentDomainContext(None, f, f).user_data)
show('ctx pd int', lambda: p.ParentDomainContext(3, f, f))
show('ctx 2 args', lambda: p.ParentDomainContext(pd, f))
show('ctx str', lambda: str(c).split(' at ')[0])
def set_user_data():
    c.user_data = 9
    return c.user_data
show('ctx set', set_user_data)
show('pdom bases', lambda: [k.__name__ for k in p.ParentDomain.__mro__][:3])
show('pdom no args', lambda: p.ParentDomain())
show('pdom unopened close', lambda: p.ParentDomain.__new__(
    p.ParentDomain).close())
'''


def test_matches_reference():
    ours, theirs = run_both(REF_SNIPPET)
    assert ours == theirs
    assert 'attr mask ctx ok 3' in ours


# -------------------------------------------------------------- device --

def test_parent_domain_unsupported(ctx, pd):
    """Soft-RoCE: EOPNOTSUPP, with or without allocators; nothing is left
    linked (the PD closes, the context is released)."""
    c = ParentDomainContext(pd, use_default, no_free)
    refs = sys.getrefcount(c)
    cc = e.IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC
    for attr in (ParentDomainInitAttr(pd), ParentDomainInitAttr(pd, c),
                 ParentDomainInitAttr(pd, comp_mask=cc),
                 ParentDomainInitAttr(pd, c, cc)):
        try:
            pdom = ParentDomain(ctx, attr=attr)
        except PyverbsRDMAError as ex:
            assert 'Failed to allocate Parent Domain' in str(ex)
            assert ex.error_code == errno.EOPNOTSUPP
            assert ex.func == 'ibv_alloc_parent_domain'
        else:
            pdom.close()
            pytest.skip('the device has parent domains')
    del attr
    assert sys.getrefcount(c) == refs
    pd.close()
    assert pd.closed


def test_parent_domain_argument_checks(ctx, ctx2, pd):
    with pytest.raises(PyverbsUserError, match='not initialised'):
        ParentDomain(ctx, ParentDomainInitAttr.__new__(ParentDomainInitAttr))
    other = PD(ctx2)
    if ctx2.name != ctx.name:
        with pytest.raises(PyverbsUserError, match='another Context'):
            ParentDomain(ctx, ParentDomainInitAttr(other))
    other.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        ParentDomain(ctx, ParentDomainInitAttr(other))
    attr = ParentDomainInitAttr(pd)
    ctx.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        ParentDomain(ctx, attr)


def test_cqex_parent_domain_is_its_parent(ctx, pd):
    """The PD named as CqInitAttrEx.parent_domain is a lifetime parent of
    the CQEX (Soft-RoCE takes a plain PD there and ignores it)."""
    attr = CqInitAttrEx(cqe=16, parent_domain=pd,
                        comp_mask=e.IBV_CQ_INIT_ATTR_MASK_PD)
    try:
        cq = CQEX(ctx, attr)
    except PyverbsRDMAError as ex:
        # a provider with parent domains wants one there (mlx5: EINVAL)
        assert ex.error_code in (errno.EINVAL, errno.EOPNOTSUPP)
        return
    pd.close()
    assert cq.closed


# ---- with parent domains (mlx5); skipped on Soft-RoCE ----

class Allocators:
    """posix_memalign/free through pyverbs.mem_alloc, counting calls; fail
    makes alloc raise, or return what it names."""

    def __init__(self):
        self.allocs = []
        self.frees = []
        self.fail = None

    def alloc(self, pd, context, size, alignment, resource_type):
        assert isinstance(context, ParentDomainContext)
        if self.fail == 'raise':
            raise ValueError('allocator refuses')
        if self.fail is not None:
            return self.fail
        p = mem.posix_memalign(size, max(alignment, 8))
        self.allocs.append(p)
        return p

    def free(self, pd, context, ptr, resource_type):
        self.frees.append(ptr)
        mem.free(ptr)


def make_parent_domain(ctx, pd, allocators=None):
    c = None
    if allocators is not None:
        c = ParentDomainContext(pd, allocators.alloc, allocators.free)
    try:
        return ParentDomain(ctx, attr=ParentDomainInitAttr(pd, c))
    except PyverbsRDMAError as ex:
        if ex.error_code == errno.EOPNOTSUPP:
            pytest.skip('Parent Domain is not supported on this device')
        raise


def rc_qp(ctx, pdom):
    cq = CQEX(ctx, CqInitAttrEx(cqe=16))
    attr = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                      cap=QPCap(max_send_wr=4, max_recv_wr=4))
    return QP(pdom, attr), cq


def test_parent_domain_lifetime(ctx, pd):
    pdom = make_parent_domain(ctx, pd)
    assert pdom.ctx is ctx and not pdom.closed
    assert repr(pdom).startswith('<ParentDomain handle=')
    qp, cq = rc_qp(ctx, pdom)
    mr = MR(pdom, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    # closing the PD it wraps closes the parent domain and its children
    pd.close()
    assert pdom.closed and qp.closed and mr.closed
    assert not cq.closed


def test_allocators_are_called(ctx, pd):
    al = Allocators()
    pdom = make_parent_domain(ctx, pd, al)
    qp, cq = rc_qp(ctx, pdom)
    assert al.allocs
    cqx = CQEX(ctx, CqInitAttrEx(
        cqe=16, parent_domain=pdom, wc_flags=e.IBV_WC_STANDARD_FLAGS,
        comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS | e.IBV_CQ_INIT_ATTR_MASK_PD))
    pdom.close()                              # closes the QP and the CQEX
    assert qp.closed and cqx.closed
    # what the provider allocated through us it frees through us
    assert al.frees and set(al.frees) <= set(al.allocs)


@pytest.mark.parametrize('fail, cause', [
    ('raise', ValueError), ('x', TypeError), (-1, OverflowError),
    (2**64, OverflowError), (None, None)])
def test_allocator_failure_is_the_cause(ctx, pd, fail, cause):
    al = Allocators()
    pdom = make_parent_domain(ctx, pd, al)
    al.fail = 0 if fail is None else fail    # 0: NULL, a plain failure
    with pytest.raises(PyverbsRDMAError, match='Failed to create QP') as ex:
        rc_qp(ctx, pdom)
    if cause is None:
        assert ex.value.__cause__ is None
    else:
        assert isinstance(ex.value.__cause__, cause)
    # the parent domain still works
    al.fail = None
    qp, cq = rc_qp(ctx, pdom)
    qp.close()


def test_allocator_cannot_close_what_is_in_use(ctx, pd):
    al = Allocators()
    make_parent_domain(ctx, pd, al).close()     # skips without them

    def closing_alloc(*args):
        pdom.close()
        return al.alloc(*args)
    pdom = ParentDomain(ctx, ParentDomainInitAttr(
        pd, ParentDomainContext(pd, closing_alloc, al.free)))
    with pytest.raises(PyverbsRDMAError) as ex:
        rc_qp(ctx, pdom)
    assert isinstance(ex.value.__cause__, PyverbsUserError)
    assert not pdom.closed


def test_free_closing_its_parent_does_not_hang(ctx, pd):
    al = Allocators()
    seen = []
    make_parent_domain(ctx, pd, al).close()     # skips without them

    def closing_free(pd_, context, ptr, resource_type):
        al.free(pd_, context, ptr, resource_type)
        pdom.close()
    pdom = ParentDomain(ctx, ParentDomainInitAttr(
        pd, ParentDomainContext(pd, al.alloc, closing_free)))
    qp, cq = rc_qp(ctx, pdom)
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_value)
    try:
        qp.close()
    finally:
        sys.unraisablehook = old
    assert qp.closed and not pdom.closed
    assert seen and isinstance(seen[0], PyverbsUserError)
    pdom.close()


def test_fuzz_constructed_objects():
    from test_fuzz import fuzz_instance
    pd = PD.__new__(PD)
    c = ParentDomainContext(pd, use_default, no_free, 1)
    for obj in (c, ParentDomainInitAttr(pd, c), ParentDomainInitAttr(pd)):
        fuzz_instance(obj)
