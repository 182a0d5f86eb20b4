# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Work queues and RSS (pyverbs.wq): WQInitAttr, WQAttr, WQ,
RwqIndTableInitAttr, RwqIndTable, RxHashConf, and RSS QPs
(QPInitAttrEx(ind_table=..., hash_conf=...)).

Soft-RoCE has no WQs and no RSS: libibverbs answers ibv_create_wq() and an
RX hash QP with EOPNOTSUPP, which the device tests assert exactly, with
upstream's messages.  Since no WQ can exist there, an indirection table
cannot be created either; what the device cannot show is tested on the
host: every attribute object (compared with the reference pyverbs where
they should agree), and the lifetime links the tables rely on (a child of
any number of parents), through _verbs._child_of().
"""
import errno
import gc
import os
import re
import subprocess
import sys

import pytest

import pyverbs
import pyverbs._verbs as _verbs
import pyverbs.enums as e
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.qp import QPCap, QPEx, QPInitAttrEx
from pyverbs.wq import (RwqIndTable, RwqIndTableInitAttr, RxHashConf, WQ,
                        WQAttr, WQInitAttr)

import ref_compare

U32 = 2**32 - 1
HASH_KEY = list(range(0x20, 0x48))          # 40 bytes, as a Toeplitz key
RSS_MASK = (e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_RX_HASH |
            e.IBV_QP_INIT_ATTR_IND_TABLE)


def unopened(cls):
    """An instance whose __init__ never ran (closed, no resource)."""
    return cls.__new__(cls)


def assert_u32_field(cls, obj, name):
    """name is a u32 of obj, also a keyword of cls: range and types."""
    setattr(obj, name, U32)
    assert getattr(obj, name) == U32
    for bad in (U32 + 1, -1):
        with pytest.raises(OverflowError):
            setattr(obj, name, bad)
        with pytest.raises(OverflowError):
            cls(**{name: bad})
    for bad in ('x', 1.0, None, True):
        with pytest.raises(TypeError):
            setattr(obj, name, bad)
    assert getattr(obj, name) == U32
    with pytest.raises(AttributeError):
        delattr(obj, name)


# ------------------------------------------------------------ WQInitAttr --

def test_wq_init_attr_defaults():
    a = WQInitAttr()
    assert (a.wq_context, a.pd, a.cq) == (None, None, None)
    assert (a.wq_type, a.max_wr, a.max_sge, a.comp_mask,
            a.create_flags) == (e.IBV_WQT_RQ, 100, 1, 0, 0)


def test_wq_init_attr_constructor():
    ctx_obj = object()
    a = WQInitAttr(ctx_obj, None, None, 1, 7, 3, 2, 4)
    assert a.wq_context is ctx_obj
    assert (a.wq_type, a.max_wr, a.max_sge, a.comp_mask,
            a.create_flags) == (1, 7, 3, 2, 4)
    a = WQInitAttr(max_sge=U32, create_flags=U32, wq_type=U32)
    assert (a.max_sge, a.create_flags, a.wq_type) == (U32, U32, U32)
    with pytest.raises(TypeError):
        WQInitAttr(1, 2, 3, 4, 5, 6, 7, 8, 9)
    with pytest.raises(TypeError):
        WQInitAttr(bogus=1)
    with pytest.raises(TypeError):
        WQInitAttr(pd=None)                 # the keyword is wq_pd


@pytest.mark.parametrize('name', ['wq_type', 'max_wr', 'max_sge',
                                  'comp_mask', 'create_flags'])
def test_wq_init_attr_u32_fields(name):
    a = WQInitAttr(**{name: 5})
    assert getattr(a, name) == 5
    assert_u32_field(WQInitAttr, a, name)


def test_wq_init_attr_objects():
    from pyverbs.cq import CQ, CQEX
    from pyverbs.pd import PD
    a = WQInitAttr()
    pd, cq, cqex = unopened(PD), unopened(CQ), unopened(CQEX)
    a.pd, a.cq = pd, cq
    assert a.pd is pd and a.cq is cq
    a.cq = cqex                             # a CQEX too (upstream: CQ only)
    assert a.cq is cqex
    with pytest.raises(TypeError, match='pd must be a PD, not pyverbs.cq.CQ'):
        a.pd = cq
    with pytest.raises(TypeError, match='cq must be a CQ or a CQEX, not pyverbs.pd.PD'):
        a.cq = pd
    with pytest.raises(TypeError):
        WQInitAttr(wq_pd=5)
    with pytest.raises(TypeError):
        WQInitAttr(wq_cq=pd)
    assert a.pd is pd and a.cq is cqex
    a.pd = a.cq = None
    assert a.pd is None and a.cq is None
    b = WQInitAttr(wq_pd=pd, wq_cq=cq, wq_context='mine')
    assert (b.pd, b.cq, b.wq_context) == (pd, cq, 'mine')
    for name in ('pd', 'cq', 'wq_context'):
        with pytest.raises(AttributeError):
            delattr(b, name)


def test_wq_init_attr_cycle_collected():
    a = WQInitAttr()
    a.wq_context = a
    del a
    assert gc.collect() >= 1


# ---------------------------------------------------------------- WQAttr --

def test_wq_attr():
    a = WQAttr()
    names = ('attr_mask', 'wq_state', 'curr_wq_state', 'flags',
             'flags_mask')
    assert [getattr(a, n) for n in names] == [0] * 5
    a = WQAttr(1, 2, 3, 4, 5)
    assert [getattr(a, n) for n in names] == [1, 2, 3, 4, 5]
    a = WQAttr(attr_mask=e.IBV_WQ_ATTR_STATE, wq_state=e.IBV_WQS_RDY)
    assert (a.attr_mask, a.wq_state) == (e.IBV_WQ_ATTR_STATE, e.IBV_WQS_RDY)
    for n in names:
        assert_u32_field(WQAttr, a, n)
    with pytest.raises(TypeError):
        WQAttr(1, 2, 3, 4, 5, 6)
    with pytest.raises(TypeError):
        WQAttr(state=1)


# --------------------------------------------------- RwqIndTableInitAttr --

def test_ind_table_init_attr():
    a = RwqIndTableInitAttr()
    assert (a.log_ind_tbl_size, a.wqs_list, a.comp_mask) == (5, [], 0)
    wqs = [unopened(WQ) for _ in range(4)]
    a = RwqIndTableInitAttr(2, wqs, 3)
    assert (a.log_ind_tbl_size, a.comp_mask) == (2, 3)
    assert a.wqs_list == wqs and a.wqs_list is not wqs    # a copy
    a = RwqIndTableInitAttr(log_ind_tbl_size=1, wqs_list=tuple(wqs[:1]))
    assert a.wqs_list == wqs[:1]
    a.comp_mask = U32
    with pytest.raises(OverflowError):
        a.comp_mask = U32 + 1
    with pytest.raises(AttributeError):
        a.log_ind_tbl_size = 3               # checked at construction
    with pytest.raises(AttributeError):
        a.wqs_list = []
    assert RwqIndTableInitAttr(31).log_ind_tbl_size == 31
    assert RwqIndTableInitAttr(U32).log_ind_tbl_size == U32


def test_ind_table_init_attr_refused():
    wqs = [unopened(WQ) for _ in range(3)]
    for log in (0, -1, -2**70):
        with pytest.raises(PyverbsUserError,
                           match=r'^Invalid indirection table size\. Log '
                                 r'size must be > 0$'):
            RwqIndTableInitAttr(log, [])
    with pytest.raises(PyverbsUserError,
                       match=r'^Requested table size \(2\) is smaller than '
                             r'the number of wqs \(3\)$'):
        RwqIndTableInitAttr(1, wqs)
    with pytest.raises(OverflowError):
        RwqIndTableInitAttr(U32 + 1, [])
    with pytest.raises(TypeError):
        RwqIndTableInitAttr('5', [])
    with pytest.raises(TypeError, match=r'wqs_list\[1\] must be a WQ, not '
                                        'int'):
        RwqIndTableInitAttr(2, [wqs[0], 1])
    for bad in (wqs[0], 'ab', iter(wqs), {wqs[0]}):
        with pytest.raises(TypeError, match='wqs_list must be a list'):
            RwqIndTableInitAttr(2, bad)
    with pytest.raises(OverflowError):
        RwqIndTableInitAttr(2, [], -1)
    with pytest.raises(TypeError):
        RwqIndTableInitAttr(2, [], 0, 0)


# ------------------------------------------------------------ RxHashConf --

def test_rx_hash_conf_defaults_and_fields():
    c = RxHashConf()
    assert (c.rx_hash_function, c.rx_hash_key_len, c.rx_hash_key,
            c.rx_hash_fields_mask) == (0, 0, None, 0)
    c = RxHashConf(e.IBV_RX_HASH_FUNC_TOEPLITZ, len(HASH_KEY), HASH_KEY,
                   e.IBV_RX_HASH_SRC_IPV4 | e.IBV_RX_HASH_DST_IPV4)
    assert c.rx_hash_function == e.IBV_RX_HASH_FUNC_TOEPLITZ
    assert (c.rx_hash_key_len, c.rx_hash_key) == (40, HASH_KEY)
    assert c.rx_hash_fields_mask == (e.IBV_RX_HASH_SRC_IPV4 |
                                     e.IBV_RX_HASH_DST_IPV4)
    c.rx_hash_fields_mask = 2**64 - 1
    assert c.rx_hash_fields_mask == 2**64 - 1
    c.rx_hash_function = 255
    for name, bad in (('rx_hash_fields_mask', 2**64),
                      ('rx_hash_fields_mask', -1),
                      ('rx_hash_function', 256),
                      ('rx_hash_key_len', 256)):
        with pytest.raises(OverflowError):
            setattr(c, name, bad)
        with pytest.raises(OverflowError):
            RxHashConf(**{name: bad})
    with pytest.raises(TypeError):
        c.rx_hash_function = 1.0
    assert (c.rx_hash_function, c.rx_hash_key_len) == (255, 40)


def test_rx_hash_conf_key():
    c = RxHashConf(rx_hash_key=b'abc', rx_hash_key_len=3)
    assert (c.rx_hash_key, c.rx_hash_key_len) == ([97, 98, 99], 3)
    # the setter sets the length from the key, as upstream
    c.rx_hash_key = [1, 2]
    assert (c.rx_hash_key, c.rx_hash_key_len) == ([1, 2], 2)
    c.rx_hash_key = bytearray(b'\xff' * 255)
    assert c.rx_hash_key_len == 255 and c.rx_hash_key == [255] * 255
    c.rx_hash_key = []
    assert (c.rx_hash_key, c.rx_hash_key_len) == ([], 0)
    c.rx_hash_key = None                    # clears (upstream: TypeError)
    assert (c.rx_hash_key, c.rx_hash_key_len) == (None, 0)
    for bad, exc in (([256], OverflowError), ([-1], OverflowError),
                     ([1.0], TypeError), ([None], TypeError),
                     (5, TypeError), ('ab', TypeError),
                     ([0] * 256, OverflowError)):
        with pytest.raises(exc):
            c.rx_hash_key = bad
    assert (c.rx_hash_key, c.rx_hash_key_len) == (None, 0)
    with pytest.raises(AttributeError):
        del c.rx_hash_key
    with pytest.raises(PyverbsUserError,
                       match='^Length of rx_hash_key not equal to '
                             'rx_hash_key_len$'):
        RxHashConf(rx_hash_key_len=2, rx_hash_key=[1, 2, 3])
    with pytest.raises(PyverbsUserError):
        RxHashConf(rx_hash_key=[1])         # the length defaults to 0
    # an empty key is not checked (upstream), the length is kept
    c = RxHashConf(rx_hash_key=[], rx_hash_key_len=5)
    assert (c.rx_hash_key, c.rx_hash_key_len) == (None, 5)


def test_rx_hash_conf_key_len_setter():
    c = RxHashConf()
    for bad in (0, -1, -2**70):
        with pytest.raises(PyverbsUserError,
                           match='^Invalid rx_hash_key_len. Must be greater '
                                 'then 0$'):
            c.rx_hash_key_len = bad
    with pytest.raises(OverflowError):
        c.rx_hash_key_len = 300
    with pytest.raises(TypeError):
        c.rx_hash_key_len = '3'
    c.rx_hash_key_len = 40
    assert c.rx_hash_key_len == 40 and c.rx_hash_key is None


# ---------------------------------------------------- QPInitAttrEx (RSS) --

def test_qp_init_attr_ex_rss_objects():
    hc, tbl = RxHashConf(), unopened(RwqIndTable)
    a = QPInitAttrEx(hash_conf=hc, ind_table=tbl)
    assert a.hash_conf is hc and a.ind_table is tbl
    assert QPInitAttrEx().ind_table is None
    assert QPInitAttrEx().hash_conf is None
    with pytest.raises(TypeError, match='hash_conf must be an RxHashConf'):
        QPInitAttrEx(hash_conf=5)
    with pytest.raises(TypeError, match='ind_table must be an RwqIndTable'):
        QPInitAttrEx(ind_table=hc)
    with pytest.raises(TypeError):
        a.ind_table = RwqIndTableInitAttr()
    a.ind_table = a.hash_conf = None
    assert a.ind_table is None and a.hash_conf is None


# ------------------------------------------------ handles never created --

def test_unopened_handles():
    w = unopened(WQ)
    w.close()
    assert w.closed and w.wq == 0 and w.pd is None and w.cq is None
    for name in ('wqn', 'wq_state'):
        with pytest.raises(PyverbsUserError, match='closed'):
            getattr(w, name)
    with pytest.raises(PyverbsUserError, match='closed'):
        w.modify(WQAttr())
    with pytest.raises(TypeError):
        w.modify(None)
    from pyverbs.wr import SGE, RecvWR
    wr = RecvWR(num_sge=1, sg=[SGE(0x1000, 8, 1)])
    for arg in (wr, [wr]):
        with pytest.raises(PyverbsUserError, match='closed'):
            w.post_recv(arg)
    with pytest.raises(TypeError):
        w.post_recv()
    t = unopened(RwqIndTable)
    t.close()
    assert t.closed and t.rwq_ind_table == 0 and t.wqs is None
    with pytest.raises(PyverbsUserError, match='closed'):
        t.ind_tbl_num


def test_handle_arguments():
    from pyverbs.device import Context
    ctx = unopened(Context)
    for bad in (None, 1, WQInitAttr()):
        with pytest.raises(TypeError):
            WQ(bad, WQInitAttr())
    for bad in (None, 1, ctx):
        with pytest.raises(TypeError):
            WQ(ctx, bad)
    with pytest.raises(TypeError):
        WQ(ctx, RwqIndTableInitAttr())
    with pytest.raises(PyverbsUserError, match='closed'):
        WQ(ctx, WQInitAttr())
    with pytest.raises(TypeError):
        RwqIndTable(ctx, WQInitAttr())
    with pytest.raises(PyverbsUserError, match='closed'):
        RwqIndTable(ctx, RwqIndTableInitAttr())


# ------------------------------------------- the links tables depend on --

def test_add_ref_arguments():
    """add_ref (upstream's WQ and RwqIndTable): another type is
    PyverbsError 'Unrecognized object type', as upstream; closed objects
    are refused."""
    from pyverbs.pyverbs_error import PyverbsError
    from pyverbs.qp import QP
    wq, table = unopened(WQ), unopened(RwqIndTable)
    for obj, arg in ((wq, wq), (wq, unopened(QP)), (table, table),
                     (table, wq), (wq, None), (table, 5)):
        with pytest.raises(PyverbsError,
                           match='Unrecognized object type') as ei:
            obj.add_ref(arg)
        assert type(ei.value) is PyverbsError
    with pytest.raises(PyverbsUserError, match='WQ object is closed'):
        wq.add_ref(table)
    with pytest.raises(PyverbsUserError, match='RwqIndTable object is '
                       'closed'):
        table.add_ref(unopened(QP))
    with pytest.raises(TypeError):
        wq.add_ref()


def test_add_ref_links():
    """What add_ref links (object.c's pv_obj_add_ref, through _add_ref:
    rxe has no WQ to show it): the child closes before its new parent;
    once, however often it is added; of the same Context only; refused
    when the child has no room for another parent."""
    from pyverbs.pyverbs_error import PyverbsError
    root = _verbs._child_of()
    parent, child = _verbs._child_of(root), _verbs._child_of(root)
    for _ in range(8):                      # one link, not eight
        _verbs._add_ref(parent, child)
    made_so = _verbs._child_of(root, parent)
    _verbs._add_ref(parent, made_so)        # already its child
    parent.close()
    assert child.closed and made_so.closed and not root.closed
    other = _verbs._child_of(_verbs._child_of())
    with pytest.raises(PyverbsUserError, match='another Context'):
        _verbs._add_ref(other, _verbs._child_of(root))
    full = _verbs._child_of(root, *[_verbs._child_of(root)
                                    for _ in range(4)])   # 5 parents
    with pytest.raises(PyverbsError, match='too many parent'):
        _verbs._add_ref(_verbs._child_of(root), full)
    with pytest.raises(PyverbsUserError, match='closed'):
        _verbs._add_ref(parent, _verbs._child_of(root))
    with pytest.raises(TypeError):
        _verbs._add_ref(1, full)
    grand = _verbs._child_of(full)
    for obj in (full, grand):               # no cycle
        with pytest.raises(PyverbsUserError, match='cannot close before'):
            _verbs._add_ref(obj, full)
    root.close()
    assert full.closed and other.closed is False


def test_child_of_many_parents():
    """An indirection table is a child of every WQ of its table: beyond
    the five parent slots in place, the links live in a reserved array."""
    roots = [_verbs._child_of() for _ in range(12)]
    child = _verbs._child_of(*roots, roots[0], roots[11])    # duplicates
    grandchild = _verbs._child_of(child, roots[3])
    assert not child.closed and not grandchild.closed
    roots[9].close()                        # an extra link's parent
    assert child.closed and grandchild.closed
    assert not any(r.closed for i, r in enumerate(roots) if i != 9)
    # the closed child let go of every parent: they close alone now
    for r in roots:
        r.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        _verbs._child_of(roots[0])
    with pytest.raises(TypeError, match='parent 1 is not a PyverbsCM'):
        _verbs._child_of(_verbs._child_of(), 1)


def test_child_of_closed_first_and_collected():
    roots = [_verbs._child_of() for _ in range(8)]
    child = _verbs._child_of(*roots)
    child.close()
    assert child.closed and not any(r.closed for r in roots)
    roots[7].close()
    # a garbage cycle through the extra links is collected and closed
    roots = [_verbs._child_of() for _ in range(300)]
    child = _verbs._child_of(*roots)
    child.ref = roots                       # child -> roots -> child
    probe = _verbs._child_of(roots[299])
    del roots, child
    gc.collect()
    assert not probe.closed                 # still referenced: alive
    probe.close()


def test_child_of_parent_collected_with_children_alive():
    roots = [_verbs._child_of() for _ in range(7)]
    child = _verbs._child_of(*roots)
    del roots                               # held by the child
    gc.collect()
    assert not child.closed
    child.close()


# --------------------------------------------- the reference, on the host --

REFERENCE_PYTHON = '/usr/bin/python3'
REFERENCE_PATH = os.path.join(
    os.environ.get('PYVERBS_VM_CACHE') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or os.path.expanduser('~/.cache'),
        'pyverbs-c-vm'),
    'reference/usr/lib/python3/dist-packages')

# What upstream and we both do: values, printed objects (addresses
# masked), exception types, and the messages of upstream's own errors.
SAME_AS_REFERENCE = r'''
import re
import pyverbs.enums as e
from pyverbs.pyverbs_error import PyverbsUserError
from pyverbs.qp import QPInitAttrEx
from pyverbs.wq import *

def show(label, f):
    try:
        r = repr(f())
    except PyverbsUserError as x:
        r = 'PyverbsUserError %s' % x
    except Exception as x:
        r = type(x).__name__
    print(re.sub('0x[0-9a-f]+', 'ADDR', '%s %s' % (label, r)))

def setter(obj, name, val):
    def f():
        setattr(obj, name, val)
        return getattr(obj, name)
    return f

W = WQ.__new__(WQ)
a = WQInitAttr()
show('wia', lambda: (str(a), a.wq_type, a.pd, a.cq))
show('wia pos', lambda: WQInitAttr(None, None, None, 1).wq_type)
for v in (2**32, -1, 'x', 7):
    show('wia wq_type %r' % (v,), setter(a, 'wq_type', v))
show('wia pd', setter(a, 'pd', 3))
show('wia pd None', setter(a, 'pd', None))
show('wia cq', setter(a, 'cq', 3))
for k in ('max_wr', 'max_sge', 'comp_mask', 'create_flags', 'wq_type'):
    for v in (-1, 2**32, 'x'):
        show('wia %s %r' % (k, v), lambda: WQInitAttr(**{k: v}))
show('wia wq_pd', lambda: WQInitAttr(wq_pd=5))
show('wia wq_cq', lambda: WQInitAttr(wq_cq=5))
show('wia bogus', lambda: WQInitAttr(bogus=1))
show('wia too many', lambda: WQInitAttr(*range(9)))

b = WQAttr(1, 2, 3, 4, 5)
names = ('attr_mask', 'wq_state', 'curr_wq_state', 'flags', 'flags_mask')
show('wqa', lambda: [getattr(WQAttr(), n) for n in names])
show('wqa pos', lambda: [getattr(b, n) for n in names])
show('wqa str', lambda: str(b))
for n in names:
    for v in (-1, 2**32, 'a', 9):
        show('wqa %s %r' % (n, v), setter(b, n, v))
        show('wqa kw %s %r' % (n, v), lambda: getattr(WQAttr(**{n: v}), n))

for args in ((0, []), (-1, []), (1, [W] * 3), (5, []), (1, [W] * 2),
             (2, [W], 7), (2, [W], -1), (2, [W], 2**32)):
    show('ria %r' % (args,), lambda: str(RwqIndTableInitAttr(*args)))

for kw in ({}, {'rx_hash_key_len': 3, 'rx_hash_key': [1, 2, 3]},
           {'rx_hash_key_len': 2, 'rx_hash_key': [1, 2, 3]},
           {'rx_hash_key_len': 3, 'rx_hash_key': b'abc'},
           {'rx_hash_function': 256}, {'rx_hash_key_len': 256},
           {'rx_hash_fields_mask': 2**64}, {'rx_hash_fields_mask': -1},
           {'rx_hash_key': [], 'rx_hash_key_len': 5},
           {'rx_hash_key': 5}, {'rx_hash_key': [256], 'rx_hash_key_len': 1},
           {'rx_hash_function': 1, 'rx_hash_fields_mask': 2**63}):
    show('rhc %r' % (kw,), lambda: (lambda c: (
        str(c), c.rx_hash_function, c.rx_hash_key_len,
        c.rx_hash_fields_mask))(RxHashConf(**kw)))
c = RxHashConf()
for n, v in (('rx_hash_key_len', 0), ('rx_hash_key_len', -1),
             ('rx_hash_key_len', 300), ('rx_hash_key_len', 40),
             ('rx_hash_function', 256), ('rx_hash_function', 1),
             ('rx_hash_fields_mask', 2**64), ('rx_hash_fields_mask', 2**63)):
    show('rhc %s %r' % (n, v), setter(c, n, v))
for v in ([1, 2], b'abc', [256], 5):
    def f(v=v):
        c.rx_hash_key = v
        return c.rx_hash_key_len
    show('rhc key %r' % (v,), f)

show('qiax hash_conf', lambda: QPInitAttrEx(hash_conf=5))
show('qiax ind_table', lambda: QPInitAttrEx(ind_table=5))
show('qiax ind_table None', lambda: QPInitAttrEx().ind_table)
show('qiax rss', lambda: str(QPInitAttrEx(
    hash_conf=RxHashConf(), ind_table=RwqIndTable.__new__(RwqIndTable),
    comp_mask=e.IBV_QP_INIT_ATTR_IND_TABLE | e.IBV_QP_INIT_ATTR_RX_HASH)))
show('unopened', lambda: (W.close(),
                          RwqIndTable.__new__(RwqIndTable).close()))
show('unopened wqs', lambda: RwqIndTable.__new__(RwqIndTable).wqs)
'''


def run_same_as_reference(pythonpath, python):
    env = ref_compare.child_env(pythonpath,
                                reference=python != sys.executable)
    r = subprocess.run([python, '-s', '-c', SAME_AS_REFERENCE], env=env,
                       cwd='/', capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_same_as_reference():
    if not (os.path.exists(REFERENCE_PYTHON) and
            os.path.isdir(os.path.join(REFERENCE_PATH, 'pyverbs'))):
        pytest.skip('the reference pyverbs is not unpacked '
                    '(tools/fetch-reference)')
    ours = run_same_as_reference(
        os.path.dirname(os.path.dirname(pyverbs.__file__)), sys.executable)
    ref = run_same_as_reference(REFERENCE_PATH, REFERENCE_PYTHON)
    assert len(ours) > 100
    assert ours == ref


# ---------------------------------------------------------------- device --

CREATE_WQ_ERR = 'Failed to create WQ. Errno: 95, Operation not supported'
CREATE_QP_ERR = 'Failed to create QP. Errno: 95, Operation not supported'


def assert_eopnotsupp(excinfo, message):
    assert excinfo.value.error_code == errno.EOPNOTSUPP
    assert str(excinfo.value) == message


def test_create_wq_unsupported(ctx, pd, cq):
    attr = WQInitAttr(wq_pd=pd, wq_cq=cq, max_wr=8)
    w = WQ.__new__(WQ)
    with pytest.raises(PyverbsRDMAError) as ei:
        w.__init__(ctx, attr)
    assert_eopnotsupp(ei, CREATE_WQ_ERR)
    assert w.closed and w.pd is None and w.wq == 0
    with pytest.raises(PyverbsUserError, match='closed'):
        w.wqn
    w.close()
    assert attr.pd is pd and attr.cq is cq  # the attributes are unchanged
    # a CQEX is a CQ for a WQ too; keywords work
    from pyverbs.cq import CQEX, CqInitAttrEx
    with CQEX(ctx, CqInitAttrEx(cqe=8)) as cqex:
        with pytest.raises(PyverbsRDMAError) as ei:
            WQ(ctx=ctx, attr=WQInitAttr(wq_pd=pd, wq_cq=cqex))
        assert_eopnotsupp(ei, CREATE_WQ_ERR)
    # nothing was linked: the parents close alone
    pd.close()
    cq.close()


def test_create_wq_refused_before_libibverbs(ctx, ctx2, pd, cq):
    from pyverbs.pd import PD
    with pytest.raises(PyverbsUserError, match='has no pd'):
        WQ(ctx, WQInitAttr(wq_cq=cq))
    with pytest.raises(PyverbsUserError, match='has no cq'):
        WQ(ctx, WQInitAttr(wq_pd=pd))
    with PD(ctx2) as pd2:
        with pytest.raises(PyverbsUserError, match='another Context'):
            WQ(ctx, WQInitAttr(wq_pd=pd2, wq_cq=cq))
    closed_pd = PD(ctx)
    closed_pd.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        WQ(ctx, WQInitAttr(wq_pd=closed_pd, wq_cq=cq))
    attr = WQInitAttr(wq_pd=pd, wq_cq=cq)
    cq.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        WQ(ctx, attr)


def test_create_ind_table_refused(ctx):
    """No WQ exists on Soft-RoCE, so no table can be asked of libibverbs:
    what is refused before it is."""
    with pytest.raises(PyverbsUserError,
                       match=r'has 2\*\*1 entries but wqs_list has 0 WQs'):
        RwqIndTable(ctx, RwqIndTableInitAttr(1, []))
    with pytest.raises(PyverbsUserError, match='2 WQs'):
        RwqIndTable(ctx, RwqIndTableInitAttr(2, [unopened(WQ)] * 2))
    with pytest.raises(PyverbsUserError, match='WQ object is closed'):
        RwqIndTable(ctx, RwqIndTableInitAttr(1, [unopened(WQ)] * 2))
    attr = RwqIndTableInitAttr(1, [unopened(WQ)] * 2)
    attr.wqs_list[1] = 'not a WQ'           # the list is the user's
    with pytest.raises(TypeError, match=r'wqs_list\[1\] must be a WQ'):
        RwqIndTable(ctx, attr)
    t = RwqIndTable.__new__(RwqIndTable)
    with pytest.raises(PyverbsUserError):
        t.__init__(ctx, RwqIndTableInitAttr(1, []))
    assert t.closed and t.wqs is None


def rss_attr(pd, cq=None, **kw):
    return QPInitAttrEx(qp_type=e.IBV_QPT_UD, pd=pd, scq=cq, rcq=cq,
                        cap=QPCap() if cq else None, **kw)


@pytest.mark.parametrize('qp_type', [e.IBV_QPT_UD, e.IBV_QPT_RAW_PACKET])
def test_rx_hash_qp_unsupported(ctx, pd, cq, qp_type):
    hc = RxHashConf(e.IBV_RX_HASH_FUNC_TOEPLITZ, len(HASH_KEY), HASH_KEY,
                    e.IBV_RX_HASH_SRC_IPV4 | e.IBV_RX_HASH_DST_IPV4)
    attr = rss_attr(pd, cq, hash_conf=hc, comp_mask=e.IBV_QP_INIT_ATTR_PD |
                    e.IBV_QP_INIT_ATTR_RX_HASH)
    attr.qp_type = qp_type
    qp = QPEx.__new__(QPEx)
    with pytest.raises(PyverbsRDMAError) as ei:
        qp.__init__(ctx, attr)
    assert_eopnotsupp(ei, CREATE_QP_ERR)
    assert qp.closed and qp.ind_table is None
    # the same attributes without the RX hash make a QP: the hash is why
    if qp_type == e.IBV_QPT_UD:
        attr.comp_mask = e.IBV_QP_INIT_ATTR_PD
        with QPEx(ctx, attr) as ok:
            assert ok.ind_table is None
    pd.close()


def test_rss_qp_refused_before_libibverbs(ctx, pd, cq):
    rx = e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_RX_HASH
    with pytest.raises(PyverbsUserError, match='no hash_conf'):
        QPEx(ctx, rss_attr(pd, cq, comp_mask=rx))
    # libibverbs would read 40 bytes of a 4-byte key
    hc = RxHashConf(rx_hash_key=[1, 2, 3, 4], rx_hash_key_len=4)
    hc.rx_hash_key_len = 40
    with pytest.raises(PyverbsUserError,
                       match='rx_hash_key_len is 40 but rx_hash_key has 4 '
                             'bytes'):
        QPEx(ctx, rss_attr(pd, cq, comp_mask=rx, hash_conf=hc))
    with pytest.raises(PyverbsUserError, match='has 0 bytes'):
        QPEx(ctx, rss_attr(pd, cq, comp_mask=rx,
                           hash_conf=RxHashConf(rx_hash_key_len=5)))
    with pytest.raises(PyverbsUserError, match='no ind_table'):
        QPEx(ctx, rss_attr(pd, comp_mask=RSS_MASK, hash_conf=RxHashConf()))
    with pytest.raises(PyverbsUserError, match='RwqIndTable object is '
                                               'closed'):
        QPEx(ctx, rss_attr(pd, comp_mask=RSS_MASK, hash_conf=RxHashConf(),
                           ind_table=unopened(RwqIndTable)))
    # an RSS QP needs no CQ, unless it has a send queue
    attr = rss_attr(pd, comp_mask=RSS_MASK, hash_conf=RxHashConf(),
                    ind_table=unopened(RwqIndTable))
    attr.max_send_wr = 1
    with pytest.raises(PyverbsUserError, match='needs a send CQ'):
        QPEx(ctx, attr)


def test_same_errors_as_reference(dev_name):
    """Where the device answers, upstream's pyverbs answers the same."""
    if not (os.path.exists(REFERENCE_PYTHON) and
            os.path.isdir(os.path.join(REFERENCE_PATH, 'pyverbs'))):
        pytest.skip('the reference pyverbs is not unpacked')
    script = r'''
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.qp import QP, QPEx, QPInitAttrEx, QPCap
from pyverbs.wq import *
ctx = Context(name=%r)
pd, cq = PD(ctx), CQ(ctx, 8)
def show(label, f):
    try:
        print(label, f())
    except Exception as x:
        print(label, type(x).__name__, x, getattr(x, 'error_code', None))
show('wq', lambda: WQ(ctx, WQInitAttr(wq_pd=pd, wq_cq=cq)))
hc = RxHashConf(1, 4, [1, 2, 3, 4], 3)
for t in (e.IBV_QPT_UD, e.IBV_QPT_RAW_PACKET, e.IBV_QPT_RC):
    for cls in (QP, QPEx):
        show('rx hash %%d %%s' %% (t, cls.__name__), lambda: cls(
            ctx, QPInitAttrEx(qp_type=t, pd=pd, scq=cq, rcq=cq, cap=QPCap(),
                              hash_conf=hc, comp_mask=e.IBV_QP_INIT_ATTR_PD |
                              e.IBV_QP_INIT_ATTR_RX_HASH)))
''' % dev_name

    def run(path, python):
        env = ref_compare.child_env(path, reference=python != sys.executable)
        r = subprocess.run([python, '-s', '-c', script], env=env, cwd='/',
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout.splitlines()
    ours = run(os.path.dirname(os.path.dirname(pyverbs.__file__)),
               sys.executable)
    assert len(ours) == 7 and all('EOPNOTSUPP' not in x for x in ours)
    assert re.search('^wq PyverbsRDMAError .* 95$', ours[0])
    assert ours == run(REFERENCE_PATH, REFERENCE_PYTHON)
