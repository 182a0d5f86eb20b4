# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Tests of pyverbs.cq: CompChannel, CQ, WC, the string helpers, WCError
and CQPoller.  Host tests need no device; the others run on rxe in the VM.
"""
import gc
import inspect
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
import weakref

import pytest

import pyverbs.cq as c
from pyverbs.cq import (CQ, CQEX, WC, CompChannel, CQPoller, CqInitAttrEx,
                        PollCqAttr, WcTmInfo, WCError)
from pyverbs.pyverbs_error import (PyverbsError, PyverbsRDMAError,
                                   PyverbsUserError)

# the sanitize stage of tools/run-tests runs this module's host tests under
# valgrind's memcheck (-m memcheck)
pytestmark = pytest.mark.memcheck

EINVAL = 22

WC_FIELDS = ['wr_id', 'status', 'opcode', 'vendor_err', 'byte_len', 'qp_num',
             'src_qp', 'imm_data', 'wc_flags', 'pkey_index', 'slid', 'sl',
             'dlid_path_bits']
WC_MAX = {'wr_id': 2**64 - 1, 'status': 2**32 - 1, 'opcode': 2**32 - 1,
          'vendor_err': 2**32 - 1, 'byte_len': 2**32 - 1,
          'qp_num': 2**32 - 1, 'src_qp': 2**32 - 1, 'imm_data': 2**32 - 1,
          'wc_flags': 2**32 - 1, 'pkey_index': 2**16 - 1,
          'slid': 2**16 - 1, 'sl': 255, 'dlid_path_bits': 255}

# printed by rdma-core v44's pyverbs for
# WC(wr_id=5, status=4, opcode=0x80, wc_flags=3, imm_data=7)
WC_STR = ('WR ID                 : 5                   \n'
          'status                : local protection error\n'
          'opcode                : Receive             \n'
          'vendor error          : 0                   \n'
          'byte length           : 0                   \n'
          'QP num                : 0                   \n'
          'source QP             : 0                   \n'
          'WC flags              : GRH With immediate  \n'
          'pkey index            : 0                   \n'
          'slid                  : 0                   \n'
          'sl                    : 0                   \n'
          'imm_data              : 7                   \n'
          'dlid path bits        : 0                   \n')


# ---------------------------------------------------------------- host ---

def test_wc_defaults():
    wc = WC()
    assert [getattr(wc, f) for f in WC_FIELDS] == [0] * len(WC_FIELDS)


def test_wc_positional_and_keywords():
    wc = WC(*range(1, 14))
    assert [getattr(wc, f) for f in WC_FIELDS] == list(range(1, 14))
    wc = WC(**{f: i + 100 for i, f in enumerate(WC_FIELDS)})
    assert [getattr(wc, f) for f in WC_FIELDS] == list(range(100, 113))
    with pytest.raises(TypeError):
        WC(*range(14))
    with pytest.raises(TypeError):
        WC(bogus=1)
    with pytest.raises(TypeError):
        WC(1, wr_id=2)


@pytest.mark.parametrize('field', WC_FIELDS)
def test_wc_field_range(field):
    wc = WC()
    top = WC_MAX[field]
    setattr(wc, field, top)
    assert getattr(wc, field) == top
    setattr(wc, field, 0)
    assert getattr(wc, field) == 0
    for bad in (top + 1, -1):
        with pytest.raises(OverflowError):
            setattr(wc, field, bad)
        with pytest.raises(OverflowError):
            WC(**{field: bad})
    assert getattr(wc, field) == 0
    for bad in (1.0, None, '1', True):
        with pytest.raises(TypeError):
            setattr(wc, field, bad)
    with pytest.raises(AttributeError):
        delattr(wc, field)


def test_wc_failed_init_keeps_values():
    wc = WC(wr_id=9)
    with pytest.raises(OverflowError):
        wc.__init__(wr_id=1, sl=256)
    assert wc.wr_id == 9
    wc.__init__(sl=3)
    assert (wc.wr_id, wc.sl) == (0, 3)


def test_wc_str():
    assert str(WC(wr_id=5, status=4, opcode=0x80, wc_flags=3,
                  imm_data=7)) == WC_STR
    s = str(WC(status=99, opcode=9))
    assert 'status                : Unknown CQE status  \n' in s
    assert 'opcode                : Unknown CQE opcode 9\n' in s


def test_wc_pickle():
    wc = WC(*range(1, 14))
    wc2 = pickle.loads(pickle.dumps(wc))
    assert [getattr(wc2, f) for f in WC_FIELDS] == list(range(1, 14))


def test_wc_subclass():
    class MyWC(WC):
        pass
    wc = MyWC(wr_id=3)
    wc.extra = 1
    assert (wc.wr_id, wc.extra) == (3, 1)


def test_wc_free_list_keeps_values_and_subclasses():
    # freed WCs are reused by later ones: values never leak between them,
    # and instances of subclasses are freed as usual
    class MyWC(WC):
        pass
    for round_ in range(3):
        wcs = [WC(wr_id=i + round_, byte_len=i) for i in range(100)]
        subs = [MyWC(wr_id=i) for i in range(10)]
        for s_ in subs:
            s_.extra = s_.wr_id
        assert [w.wr_id for w in wcs] == [i + round_ for i in range(100)]
        assert all(type(w) is WC and w.status == 0 for w in wcs)
        assert [(s_.wr_id, s_.extra) for s_ in subs] == [(i, i)
                                                         for i in range(10)]
        del wcs, subs
    assert WC().wr_id == 0 and WC().byte_len == 0


def test_status_and_opcode_strings():
    assert c.cqe_status_to_str(0) == 'success'
    assert c.cqe_status_to_str(5) == 'WR flush error'
    assert c.cqe_status_to_str(13) == 'RNR retry exceeded'
    assert c.cqe_status_to_str(21) == 'general error'
    assert c.cqe_status_to_str(22) == 'Unknown CQE status'
    assert c.cqe_opcode_to_str(0) == 'Send'
    assert c.cqe_opcode_to_str(0x81) == 'Receive RDMA with immediate'
    assert c.cqe_opcode_to_str(0x86) == 'Tag matching - no tag'
    assert c.cqe_opcode_to_str(8) == 'Unknown CQE opcode 8'


def test_flag_strings():
    assert c.flags_to_str(5, {1: 'a', 2: 'b', 4: 'c'}) == 'a c '
    assert c.flags_to_str(0, {1: 'a'}) == ''
    assert c.cqe_flags_to_str(127) == (
        'GRH With immediate IP csum OK With invalidate TM sync request '
        'TM match TM data valid ')
    assert c.cqe_flags_to_str(0) == ''
    # as rdma-core v44: TM_INFO (1 << 10) has no name
    assert c.create_wc_flags_to_str(0xffffffff) == (
        'IBV_WC_EX_WITH_BYTE_LEN IBV_WC_EX_WITH_IMM IBV_WC_EX_WITH_QP_NUM '
        'IBV_WC_EX_WITH_SRC_QP IBV_WC_EX_WITH_SLID IBV_WC_EX_WITH_SL '
        'IBV_WC_EX_WITH_DLID_PATH_BITS IBV_WC_EX_WITH_COMPLETION_TIMESTAMP '
        'IBV_WC_EX_WITH_CVLAN IBV_WC_EX_WITH_FLOW_TAG '
        'IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK ')
    assert c.create_wc_flags_to_str(1 << 10) == ''


def test_signatures():
    assert str(inspect.signature(CQ)) == \
        '(context, cqe, cq_context=None, channel=None, comp_vector=0)'
    assert str(inspect.signature(CompChannel)) == '(context)'
    assert str(inspect.signature(CQ.poll)) == '(self, /, num_entries=1)'
    assert str(inspect.signature(CQ.req_notify)) == \
        '(self, /, solicited_only=False)'
    assert list(inspect.signature(WC).parameters) == WC_FIELDS


def test_cq_argument_checks():
    with pytest.raises(TypeError):
        CQ()
    with pytest.raises(TypeError):
        CQ(None)
    with pytest.raises(TypeError, match='Context'):
        CQ(None, 10)
    with pytest.raises(TypeError, match='Context'):
        CQ(object(), 10)
    # arguments are converted before the context is looked at
    with pytest.raises(OverflowError, match='cqe'):
        CQ(None, -1)
    with pytest.raises(OverflowError, match='cqe'):
        CQ(None, 2**31)
    with pytest.raises(OverflowError, match='cqe'):
        CQ(None, float('nan'))
    with pytest.raises(TypeError):
        CQ(None, '10')
    with pytest.raises(TypeError):
        CQ(None, None)
    with pytest.raises(OverflowError):
        CQ(None, 10, None, None, -1)
    with pytest.raises(TypeError):
        CQ(None, 10, bogus=1)


def test_comp_channel_argument_checks():
    with pytest.raises(TypeError):
        CompChannel()
    with pytest.raises(TypeError):
        CompChannel(None)
    with pytest.raises(TypeError):
        CompChannel(5)


def test_unopened_objects():
    cq = CQ.__new__(CQ)
    assert cq.closed and cq.cq == 0 and cq.num_events == 0
    assert cq.comp_channel is None and cq.cq_context is None
    assert repr(cq) == '<CQ closed>'
    for call in (cq.poll, cq.req_notify, lambda: cq.poll(3),
                 lambda: cq.ack_events(0), lambda: cq.resize(3),
                 lambda: cq.cqe, lambda: str(cq)):
        with pytest.raises(PyverbsUserError):
            call()
    cq.close()
    cc = CompChannel.__new__(CompChannel)
    assert repr(cc) == '<CompChannel closed>'
    for call in (cc.fileno, lambda: cc.fd, lambda: cc.get_cq_event(cq)):
        with pytest.raises(PyverbsUserError):
            call()


def test_poll_argument_checks_on_closed_cq():
    cq = CQ.__new__(CQ)
    with pytest.raises(TypeError):
        cq.poll(1, 2)
    with pytest.raises(TypeError):
        cq.poll(bogus=1)
    with pytest.raises(TypeError):
        cq.req_notify(solicited=True)
    with pytest.raises(TypeError):
        cq.req_notify(True, False)


def test_wc_error():
    wc = WC(wr_id=7, status=12, qp_num=0x11, vendor_err=0x81)
    with pytest.raises(WCError) as ei:
        wc.raise_for_status()
    ex = ei.value
    assert isinstance(ex, PyverbsRDMAError) and isinstance(ex, PyverbsError)
    assert ex.wc is wc and ex.status == 12 and ex.qp_num == 0x11
    assert ex.cq is None and ex.error_code == -1
    msg = str(ex)
    assert 'retry exceeded error' in msg and 'QP 17' in msg
    assert 'wr_id 7' in msg and '0x81' in msg
    ex2 = pickle.loads(pickle.dumps(ex))
    assert str(ex2) == msg and ex2.wc.status == 12
    ok = WC(status=0)
    assert ok.raise_for_status() is ok
    assert str(WCError(wc, msg='custom')) == 'custom'


def test_cq_poller_argument_checks():
    with pytest.raises(TypeError):
        CQPoller(None)
    with pytest.raises(TypeError):
        CQPoller(WC())


CIA_STR = ('Number of CQEs        : 100                 \n'
           'WC flags              : IBV_WC_EX_WITH_BYTE_LEN IBV_WC_EX_WITH_IMM '
           'IBV_WC_EX_WITH_QP_NUM IBV_WC_EX_WITH_SRC_QP IBV_WC_EX_WITH_SLID '
           'IBV_WC_EX_WITH_SL \n'
           'comp mask             : 0                   \n'
           'flags                 : 0                   \n')


def test_cq_init_attr_ex():
    a = CqInitAttrEx()
    assert (a.cqe, a.comp_vector, a.wc_flags, a.comp_mask, a.flags) == \
        (100, 0, 0, 0, 0)
    assert a.comp_channel is None and a.parent_domain is None
    assert a.cq_context is None
    a = CqInitAttrEx(10, None, 1, 2**64 - 1, 3, 4, None)
    assert (a.cqe, a.comp_vector, a.wc_flags, a.comp_mask, a.flags) == \
        (10, 1, 2**64 - 1, 3, 4)
    a = CqInitAttrEx(cqe=5, wc_flags=0x3f, comp_mask=1, flags=2)
    assert (a.cqe, a.wc_flags, a.comp_mask, a.flags) == (5, 0x3f, 1, 2)
    a.cqe = 2**32 - 1
    assert a.cqe == 2**32 - 1
    for bad in (-1, 2**32):
        with pytest.raises(OverflowError):
            a.cqe = bad
        with pytest.raises(OverflowError):
            CqInitAttrEx(cqe=bad)
    with pytest.raises(OverflowError):
        a.wc_flags = 2**64
    with pytest.raises(TypeError):
        a.flags = None
    with pytest.raises(TypeError):
        CqInitAttrEx(channel=5)
    with pytest.raises(TypeError):
        CqInitAttrEx(parent_domain=5)
    with pytest.raises(TypeError):
        a.comp_channel = 5
    with pytest.raises(TypeError):
        a.parent_domain = 'pd'
    a.comp_channel = None
    a.parent_domain = None
    tok = object()
    a.cq_context = tok
    assert a.cq_context is tok
    a.cq_context = None
    assert a.cq_context is None


def test_cq_init_attr_ex_str():
    a = CqInitAttrEx()
    a.wc_flags = 0x3f
    assert str(a) == CIA_STR
    assert str(inspect.signature(CqInitAttrEx)) == (
        '(cqe=100, channel=None, comp_vector=0, wc_flags=0, comp_mask=0, '
        'flags=0, parent_domain=None)')


def test_cq_init_attr_ex_cycle_collected():
    class Holder:
        pass
    a = CqInitAttrEx()
    h = Holder()
    a.cq_context = h
    h.attr = a          # cycle: a -> h -> a
    ref = weakref.ref(h)
    del a, h
    gc.collect()
    assert ref() is None


def test_poll_cq_attr_and_tm_info():
    p = PollCqAttr()
    assert p.comp_mask == 0
    p.comp_mask = 2**32 - 1
    assert p.comp_mask == 2**32 - 1
    with pytest.raises(OverflowError):
        p.comp_mask = -1
    assert PollCqAttr(comp_mask=3).comp_mask == 3
    with pytest.raises(TypeError):
        PollCqAttr(5)
    t = WcTmInfo()
    assert (t.tag, t.priv) == (0, 0)
    t.tag = 2**64 - 1
    t.priv = 2**32 - 1
    assert (t.tag, t.priv) == (2**64 - 1, 2**32 - 1)
    with pytest.raises(OverflowError):
        t.priv = 2**32
    with pytest.raises(TypeError):
        WcTmInfo(1)


def test_cqex_unopened_and_arguments():
    x = CQEX.__new__(CQEX)
    assert repr(x) == '<CQEX closed>' and x.cq == 0
    for name in ('start_poll', 'poll_next', 'end_poll', 'read_opcode',
                 'read_byte_len', 'read_tm_info', 'req_notify'):
        with pytest.raises(PyverbsUserError):
            getattr(x, name)()
    for name in ('status', 'wr_id', 'cqe', 'handle'):
        with pytest.raises(PyverbsUserError):
            getattr(x, name)
    with pytest.raises(TypeError):
        CQEX(None, None)
    with pytest.raises(TypeError):
        CQEX()
    assert str(inspect.signature(CQEX)) == '(context, init_attr)'


# -------------------------------------------------------------- device ---

def test_create_cq(ctx):
    cq = CQ(ctx, 10)
    assert not cq.closed and cq.cq != 0 and cq.cqe >= 10
    assert cq.comp_channel is None and cq.cq_context is None
    assert cq.num_events == 0 and cq.ctx is ctx
    assert str(cq) == ('CQ\n' + f'{"Handle":22}: {cq.handle:<20}\n' +
                       f'{"CQEs":22}: {cq.cqe:<20}\n')
    assert repr(cq) == f'<CQ handle={cq.handle} cqe={cq.cqe}>'
    with CQ(ctx, cqe=1, cq_context=None, channel=None, comp_vector=0) as cq2:
        assert cq2.cqe >= 1 and cq2.handle != cq.handle
    assert cq2.closed and cq2.cq == 0
    cq.close()
    cq.close()
    assert cq.closed and cq.cq == 0
    with pytest.raises(PyverbsUserError):
        cq.poll()


def test_create_cq_float_cqe(ctx):
    # rdma-core's tests pass max_cqe / 2: accepted, truncated like int()
    with CQ(ctx, 10.7) as cq:
        assert cq.cqe >= 10


def test_create_cq_bad_flow(ctx):
    with pytest.raises(PyverbsRDMAError) as ei:
        CQ(ctx, 2**31 - 1, None, None, 0)     # more than any max_cqe
    assert ei.value.error_code == EINVAL
    assert 'Failed to create a CQ' in str(ei.value)
    with pytest.raises(PyverbsRDMAError) as ei:
        CQ(ctx, 100, None, None, ctx.num_comp_vectors + 1)
    assert ei.value.error_code == EINVAL
    with CQ(ctx, 4, None, None, ctx.num_comp_vectors - 1) as cq:
        assert cq.cqe >= 4


def test_create_cq_closed_context(dev_name):
    from pyverbs.device import Context
    ctx = Context(name=dev_name)
    ctx.close()
    with pytest.raises(PyverbsUserError):
        CQ(ctx, 10)
    with pytest.raises(PyverbsUserError):
        CompChannel(ctx)


def test_cq_with_channel(ctx):
    cc = CompChannel(ctx)
    assert cc.fd == cc.fileno() >= 0 and cc.ctx is ctx
    assert repr(cc) == f'<CompChannel fd={cc.fd}>'
    cq = CQ(ctx, 10, None, cc, 0)
    assert cq.comp_channel is cc
    cq2 = CQ(ctx, 10, channel=cc)
    assert cq2.comp_channel is cc
    # closing the channel closes its CQs first
    cc.close()
    assert cq.closed and cq2.closed and cc.closed
    assert cq.comp_channel is None
    with pytest.raises(PyverbsUserError):
        CQ(ctx, 10, None, cc)


def test_channel_wrong_type(ctx):
    with pytest.raises(TypeError):
        CQ(ctx, 10, None, 5)
    with pytest.raises(TypeError):
        CQ(ctx, 10, None, ctx)


def test_channel_of_other_context_rejected(ctx, dev_name):
    from pyverbs.device import Context
    with Context(name=dev_name) as other, CompChannel(other) as cc:
        with pytest.raises(PyverbsUserError, match='another Context'):
            CQ(ctx, 10, None, cc)
        assert not cc.closed


def test_close_context_closes_cq_and_channel(dev_name):
    from pyverbs.device import Context
    ctx = Context(name=dev_name)
    cc = CompChannel(ctx)
    cq1 = CQ(ctx, 10, None, cc)
    cq2 = CQ(ctx, 10)
    ctx.close()
    assert cq1.closed and cq2.closed and cc.closed
    for call in (cq1.poll, cq2.req_notify, cc.fileno):
        with pytest.raises(PyverbsUserError):
            call()


def test_poll_empty(ctx):
    with CQ(ctx, 100) as cq:
        for r in (cq.poll(), cq.poll(1), cq.poll(0), cq.poll(16),
                  cq.poll(17), cq.poll(1000), cq.poll(2**40),
                  cq.poll(num_entries=5)):
            assert r == (0, [])
            assert type(r) is tuple and type(r[1]) is list
        a, b = cq.poll(), cq.poll()
        assert a[1] is not b[1]     # a fresh list each time
        # an empty answer nobody holds may be reused, but what a caller
        # holds or changed never comes back
        n, wcs = cq.poll()
        wcs.append('mine')
        del n
        assert cq.poll() == (0, [])
        assert wcs == ['mine']
        r = cq.poll()
        r[1].append('dropped')
        del r
        assert cq.poll() == (0, [])
        del wcs
        for _ in range(3):
            r = cq.poll()
            held = r[1]
            del r
            assert cq.poll()[1] is not held and held == []
            held.append(1)
        with pytest.raises(OverflowError):
            cq.poll(-1)
        with pytest.raises(TypeError):
            cq.poll(1.0)
        with pytest.raises(TypeError):
            cq.poll(None)


def test_req_notify(ctx):
    with CompChannel(ctx) as cc, CQ(ctx, 10, None, cc) as cq:
        cq.req_notify()
        cq.req_notify(True)
        cq.req_notify(solicited_only=False)
        cq.req_notify(0)
    with CQ(ctx, 10) as cq:     # no channel: arming still works
        cq.req_notify()


def test_resize(ctx):
    with CQ(ctx, 10) as cq:
        cq.resize(100)
        assert cq.cqe >= 100
        cq.resize(cqe=20)
        assert cq.cqe >= 20
        with pytest.raises(PyverbsRDMAError) as ei:
            cq.resize(0)
        assert 'Failed to resize CQ' in str(ei.value)
        with pytest.raises(OverflowError):
            cq.resize(-1)


def test_cq_context_kept_alive(ctx):
    class Token:
        pass
    tok = Token()
    ref = weakref.ref(tok)
    cq = CQ(ctx, 10, tok)
    del tok
    gc.collect()
    assert ref() is not None and cq.cq_context is ref()
    del cq
    gc.collect()
    assert ref() is None


def test_cq_context_cycle_collected(ctx):
    class Holder:
        pass
    h = Holder()
    cq = CQ(ctx, 10, h)
    h.cq = cq           # cycle: cq -> h -> cq
    ref = weakref.ref(cq)
    del cq, h
    gc.collect()
    assert ref() is None


def test_cq_dropped_without_close(ctx):
    cc = CompChannel(ctx)
    cq = CQ(ctx, 10, None, cc)
    ref = weakref.ref(cq)
    del cq
    gc.collect()
    assert ref() is None
    cc.close()          # would be EBUSY if the CQ had not been destroyed
    assert cc.closed


def test_get_cq_event_times_out(ctx):
    with CompChannel(ctx) as cc, CQ(ctx, 10, None, cc) as cq:
        cq.req_notify()
        r, _, _ = select.select([cc], [], [], 0.2)
        assert r == []
        r, _, _ = select.select([cc.fileno()], [], [], 0)
        assert r == []
        assert cq.num_events == 0


def test_get_cq_event_argument_checks(ctx):
    with CompChannel(ctx) as cc, CompChannel(ctx) as cc2, \
            CQ(ctx, 10, None, cc2) as other, CQ(ctx, 10) as plain:
        with pytest.raises(PyverbsUserError, match='not attached'):
            cc.get_cq_event(other)
        with pytest.raises(PyverbsUserError, match='not attached'):
            cc.get_cq_event(plain)
        with pytest.raises(TypeError):
            cc.get_cq_event(cc)
        with pytest.raises(TypeError):
            cc.get_cq_event()
        closed = CQ(ctx, 10, None, cc)
        closed.close()
        with pytest.raises(PyverbsUserError):
            cc.get_cq_event(expected_cq=closed)


def test_ack_events_checks(ctx):
    with CompChannel(ctx) as cc, CQ(ctx, 10, None, cc) as cq:
        cq.ack_events(0)
        with pytest.raises(PyverbsUserError, match='only 0'):
            cq.ack_events(1)
        with pytest.raises(OverflowError):
            cq.ack_events(-1)
        assert cq.num_events == 0


def test_cq_poller_empty(ctx):
    with CompChannel(ctx) as cc, CQ(ctx, 10, None, cc) as cq:
        poller = CQPoller(cq)
        assert poller.channel is cc
        assert list(poller.iterwc(count=1, timeout=0.2)) == []
        assert list(poller.iterwc(count=0)) == []
        with pytest.raises(ValueError):
            list(poller.iterwc(count=-1))
        poller.close()
        with CompChannel(ctx) as cc2:
            with pytest.raises(PyverbsUserError):
                CQPoller(cq, cc2)
    with CQ(ctx, 10) as cq:     # no channel: busy polls until the timeout
        assert list(CQPoller(cq).iterwc(timeout=0.05)) == []


class _Interrupted(Exception):
    pass


def _on_sigusr1(signum, frame):
    raise _Interrupted()


def test_get_cq_event_busy_then_signal(ctx):
    """While the main thread waits in get_cq_event (GIL released), another
    thread can use the CQ but cannot close the channel, the CQ, another CQ
    of the channel or the Context.  A signal interrupts the wait: its
    handler's exception comes out of get_cq_event."""
    cc = CompChannel(ctx)
    cq = CQ(ctx, 10, None, cc)
    cq2 = CQ(ctx, 10, None, cc)
    cq.req_notify()
    main = threading.get_ident()
    results = {}

    def checker():
        try:
            time.sleep(0.3)     # let the main thread block in read()
            for name, obj in (('cq', cq), ('cq2', cq2), ('cc', cc),
                              ('ctx', ctx)):
                try:
                    obj.close()
                    results[name] = 'closed'
                except PyverbsUserError as ex:
                    results[name] = str(ex)
            results['poll'] = cq.poll()
        finally:
            signal.pthread_kill(main, signal.SIGUSR1)

    old = signal.signal(signal.SIGUSR1, _on_sigusr1)
    try:
        t = threading.Thread(target=checker)
        t.start()
        with pytest.raises(_Interrupted):
            cc.get_cq_event(cq)
        t.join()
    finally:
        signal.signal(signal.SIGUSR1, old)
    assert 'blocking call' in results['cq']
    assert 'get_cq_event' in results['cq2']
    assert 'blocking call' in results['cc']
    # refused before any child is closed: the channel under it is busy
    assert 'blocking call' in results['ctx']
    assert results['poll'] == (0, [])
    assert not (cq.closed or cq2.closed or cc.closed or ctx.closed)
    assert cq.num_events == 0
    cc.close()
    assert cq.closed and cq2.closed


_DEALLOC_WHILE_BUSY = r"""
import os, signal, sys, threading, time
from pyverbs.device import Context
from pyverbs.cq import CQ, CompChannel

class Stop(Exception):
    pass

def handler(signum, frame):
    raise Stop()

ctx = Context(name=sys.argv[1])
cc = CompChannel(ctx)
cq = CQ(ctx, 10, None, cc)
holder = [CQ(ctx, 10, None, cc)]
import weakref
ref = weakref.ref(holder[0])
cq.req_notify()
main = threading.get_ident()

def drop():
    try:
        time.sleep(0.3)
        holder.clear()      # dealloc of a CQ that cannot close now
    finally:
        signal.pthread_kill(main, signal.SIGUSR1)

signal.signal(signal.SIGUSR1, handler)
threading.Thread(target=drop).start()
try:
    cc.get_cq_event(cq)
except Stop:
    pass
# the finalizer deferred the close; the wait's end closed and freed it
print('survived', 'freed' if ref() is None else 'alive', flush=True)
ctx.close()
"""


def test_dealloc_of_cq_that_cannot_close(dev_name):
    """A CQ that cannot close when it becomes garbage (get_cq_event()
    reads its channel) is closed and freed once the read ends, with
    nothing unraisable, never freed twice."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(sys.path)
    p = subprocess.run([sys.executable, '-c', _DEALLOC_WHILE_BUSY, dev_name],
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout == 'survived freed\n', (p.stdout, p.stderr)
    assert 'Exception ignored' not in p.stderr, p.stderr


# ------------------------------------------- device: real completions ---

def _rc_pair(ctx, **kw):
    import pyverbs.enums as e
    from rdma_helpers import pair
    return pair(ctx, e.IBV_QPT_RC, **kw)


def _close(*ends):
    for end in ends:
        end.close()


def test_poll_real_completions(ctx):
    from rdma_helpers import poll, recv_wr, send_wr
    a, b = _rc_pair(ctx, msg_size=64, depth=32)
    try:
        n = 20
        for i in range(n):
            b.qp.post_recv(recv_wr(b, wr_id=100 + i))
        for i in range(n):
            a.qp.post_send(send_wr(a, b'x' * 64, wr_id=i))
        sends = poll(a.cq, n)
        assert [w.wr_id for w in sends] == list(range(n))
        assert all(w.opcode == 0 and w.status == 0 and
                   w.qp_num == a.qp.qp_num for w in sends)
        # several completions in one call, more than the on-stack array
        got = []
        deadline = time.monotonic() + 10
        while len(got) < n and time.monotonic() < deadline:
            cnt, wcs = b.cq.poll(num_entries=n)
            assert cnt == len(wcs)
            got += wcs
        assert [w.wr_id for w in got] == [100 + i for i in range(n)]
        for w in got:
            assert (w.status, w.opcode, w.byte_len) == (0, 0x80, 64)
            assert w.qp_num == b.qp.qp_num
            assert w.raise_for_status() is w
        assert 'status                : success' in str(got[0])
        assert 'opcode                : Receive' in str(got[0])
        assert b.cq.poll(n) == (0, [])
    finally:
        _close(a, b)


def test_poll_answers_reused_only_when_free(ctx):
    # poll() refills an answer nobody holds any more; the answers a caller
    # holds, kept or changed, never change
    from rdma_helpers import recv_wr, send_wr
    a, b = _rc_pair(ctx, msg_size=64, depth=128)
    try:
        n = 96
        for i in range(n):
            b.qp.post_recv(recv_wr(b, wr_id=i))
        for i in range(n):
            a.qp.post_send(send_wr(a, b'x' * 64, wr_id=i))
        time.sleep(0.5)
        got, kept = [], []
        deadline = time.monotonic() + 10
        # the usual loop: the previous answer's list is held while polling
        while len(got) < 30 and time.monotonic() < deadline:
            nc, wcs = a.cq.poll()
            got += [w.wr_id for w in wcs]
            if nc and len(got) % 3 == 0:
                kept.append((list(wcs), wcs))
        while len(got) < 60 and time.monotonic() < deadline:
            nc, wcs = a.cq.poll(4)
            assert nc == len(wcs)
            got += [w.wr_id for w in wcs]
            if nc == 4:
                kept.append((list(wcs), wcs))

        def poll2():
            # an answer of 2 WCs (the completions may still be arriving)
            while time.monotonic() < deadline:
                nc, wcs = a.cq.poll(2)
                got.extend(w.wr_id for w in wcs)
                if nc == 2:
                    return wcs
            raise AssertionError('completions missing')
        # a dropped answer whose list the caller changed
        wcs = poll2()
        wcs.append('extra')
        del wcs
        # an object in a dropped list that polls when freed
        seen = []

        class Repoll:
            def __del__(self):
                seen.append(a.cq.poll(2))
        wcs = poll2()
        wcs[0] = Repoll()
        del wcs
        while len(got) + sum(r[0] for r in seen) < n and \
                time.monotonic() < deadline:
            nc, wcs = a.cq.poll(2)
            got += [w.wr_id for w in wcs]
        for r in seen:
            got += [w.wr_id for w in r[1]]
        assert sorted(got) == list(range(n)), got
        for copy, held in kept:
            assert held == copy
        assert a.cq.poll(16) == (0, [])
    finally:
        _close(a, b)


def test_failed_completion_raises_wc_error(ctx):
    from rdma_helpers import recv_wr, send_wr
    a, b = _rc_pair(ctx, msg_size=64)
    try:
        b.qp.post_recv(recv_wr(b, wr_id=7, length=8))   # too small
        a.qp.post_send(send_wr(a, b'y' * 64, wr_id=8))
        wcs = list(CQPoller(b.cq).iterwc(count=1, timeout=10))
        # rxe reports a local QP op error here, others a local length error
        assert len(wcs) == 1 and wcs[0].status in (1, 2)
        status = wcs[0].status
        with pytest.raises(WCError) as ei:
            wcs[0].raise_for_status(b.cq)
        ex = ei.value
        assert ex.cq is b.cq and ex.wc is wcs[0]
        assert ex.qp_num == b.qp.qp_num and ex.status == status
        assert c.cqe_status_to_str(status) in str(ex)
        assert f'QP {b.qp.qp_num}' in str(ex)
    finally:
        _close(a, b)


def test_get_cq_event_real_completion(ctx):
    from rdma_helpers import recv_wr, send_wr
    a, b = _rc_pair(ctx, msg_size=64, with_channel=True)
    try:
        cc = b.channel
        b.cq.req_notify()
        assert select.select([cc], [], [], 0.1)[0] == []
        b.qp.post_recv(recv_wr(b, wr_id=1))
        a.qp.post_send(send_wr(a, b'z' * 64))
        assert select.select([cc], [], [], 10)[0] == [cc]
        cc.get_cq_event(b.cq)
        assert b.cq.num_events == 1
        n, wcs = b.cq.poll()
        assert n == 1 and wcs[0].wr_id == 1
        b.cq.ack_events(1)
        assert b.cq.num_events == 0
        # a second event, left unacked: close() acks it instead of hanging
        b.cq.req_notify()
        b.qp.post_recv(recv_wr(b, wr_id=2))
        a.qp.post_send(send_wr(a, b'z' * 64))
        cc.get_cq_event(expected_cq=b.cq)
        assert b.cq.num_events == 1
        b.cq.close()
        assert b.cq.closed
    finally:
        _close(a, b)


def test_get_cq_event_unexpected_cq(ctx):
    from rdma_helpers import recv_wr, send_wr
    a, b = _rc_pair(ctx, msg_size=64, with_channel=True)
    try:
        other = CQ(ctx, 10, None, b.channel)
        b.cq.req_notify()
        b.qp.post_recv(recv_wr(b))
        a.qp.post_send(send_wr(a, b'w' * 64))
        with pytest.raises(PyverbsRDMAError, match='unexpected CQ'):
            b.channel.get_cq_event(other)
        # the event was counted on the CQ that got it
        assert b.cq.num_events == 1 and other.num_events == 0
        other.close()
        b.cq.close()        # acks it: does not block
    finally:
        _close(a, b)


def test_get_cq_event_wakes_blocked_thread(ctx):
    """A thread blocked in get_cq_event (GIL released) is woken by a real
    completion while the main thread keeps running Python code."""
    from rdma_helpers import recv_wr, send_wr
    a, b = _rc_pair(ctx, msg_size=64, with_channel=True)
    try:
        b.cq.req_notify()
        b.qp.post_recv(recv_wr(b))
        done = []
        t = threading.Thread(
            target=lambda: done.append(b.channel.get_cq_event(b.cq)))
        t.start()
        t.join(0.3)
        assert t.is_alive() and not done
        with pytest.raises(PyverbsUserError):
            b.cq.close()
        a.qp.post_send(send_wr(a, b'v' * 64))
        t.join(10)
        assert not t.is_alive() and done == [None]
        assert b.cq.num_events == 1
        assert b.cq.poll()[0] == 1
    finally:
        _close(a, b)


def test_cq_poller_sleeps_on_channel(ctx):
    from rdma_helpers import recv_wr, send_wr
    a, b = _rc_pair(ctx, msg_size=64, depth=32, with_channel=True)
    try:
        n = 6
        for i in range(n):
            b.qp.post_recv(recv_wr(b, wr_id=i))

        def sender():
            for i in range(n):
                time.sleep(0.05)
                a.qp.post_send(send_wr(a, b'u' * 64, wr_id=i))
        t = threading.Thread(target=sender)
        poller = CQPoller(b.cq)
        t.start()
        wcs = list(poller.iterwc(count=n, timeout=20))
        t.join()
        assert [w.wr_id for w in wcs] == list(range(n))
        assert all(w.status == 0 for w in wcs)
        assert list(poller.iterwc(count=1, timeout=0.1)) == []
        poller.close()
        assert b.cq.num_events == 0
    finally:
        _close(a, b)


# ------------------------------------------------------ device: CQEX ---

IBV_WC_STANDARD_FLAGS = 0x7f
IBV_WC_EX_WITH_IMM = 1 << 1
ENOENT = 2


def _cqex_pair(ctx, wc_flags=IBV_WC_STANDARD_FLAGS, channel=False):
    """An RC pair whose QPs use CQEXs (b's on a channel if asked)."""
    import pyverbs.enums as e
    from pyverbs.qp import QP, QPCap, QPInitAttr
    from rdma_helpers import connect, End
    ends = []
    try:
        for i in range(2):
            end = End(ctx, e.IBV_QPT_RC, msg_size=64)
            ends.append(end)
            end.qp.close()
            cc = CompChannel(ctx) if channel and i else None
            end.channel = cc
            end.cq.close()
            end.cq = CQEX(ctx, CqInitAttrEx(cqe=64, channel=cc,
                                            wc_flags=wc_flags))
            end.qp = QP(end.pd, QPInitAttr(
                qp_type=e.IBV_QPT_RC, scq=end.cq, rcq=end.cq,
                cap=QPCap(max_send_wr=16, max_recv_wr=16)))
        connect(*ends)
    except BaseException:
        for end in ends:
            end.close()
        raise
    return ends


def _cqex_wait(cq, timeout=10):
    deadline = time.monotonic() + timeout
    while True:
        rc = cq.start_poll(PollCqAttr())
        if rc != ENOENT or time.monotonic() > deadline:
            return rc


def test_cqex_create(ctx):
    with CQEX(ctx, CqInitAttrEx(cqe=10)) as cq:
        assert cq.cqe >= 10 and cq.cq != 0 and cq.comp_channel is None
        assert str(cq) == ('Extended CQ:\n' +
                           f'{"Handle":22}: {cq.handle:<20}\n' +
                           f'{"CQEs":22}: {cq.cqe:<20}\n')
        assert cq.start_poll(PollCqAttr()) == ENOENT
        assert cq.start_poll(None) == ENOENT
        cq.end_poll()           # no batch: nothing to do
        with pytest.raises(PyverbsUserError):
            cq.poll_next()
        with pytest.raises(PyverbsUserError, match='no current'):
            cq.read_opcode()
    with CQEX(ctx, None) as cq:     # upstream: None means the defaults
        assert cq.cqe >= 100
    tok = object()
    attr = CqInitAttrEx(cqe=10)
    attr.cq_context = tok
    with CQEX(ctx, attr) as cq:
        assert cq.cq_context is tok
    with pytest.raises(TypeError):
        CQEX(ctx, 5)


def test_cqex_bad_flow(ctx):
    with pytest.raises(PyverbsRDMAError) as ei:
        CQEX(ctx, CqInitAttrEx(cqe=2**31 - 1))
    assert ei.value.error_code == EINVAL
    assert 'Failed to create extended CQ' in str(ei.value)
    attr = CqInitAttrEx(10)
    attr.comp_vector = ctx.num_comp_vectors + 1
    with pytest.raises(PyverbsRDMAError) as ei:
        CQEX(ctx, attr)
    assert ei.value.error_code == EINVAL


def test_cqex_parents(ctx, dev_name):
    from pyverbs.device import Context
    from pyverbs.pd import PD
    with Context(name=dev_name) as other:
        cc_other = CompChannel(other)
        with pytest.raises(PyverbsUserError, match='another Context'):
            CQEX(ctx, CqInitAttrEx(channel=cc_other))
        pd_other = PD(other)
        with pytest.raises(PyverbsUserError, match='another Context'):
            CQEX(ctx, CqInitAttrEx(parent_domain=pd_other))
    cc = CompChannel(ctx)
    cq = CQEX(ctx, CqInitAttrEx(cqe=10, channel=cc))
    assert cq.comp_channel is cc
    cc.close()
    assert cq.closed
    with pytest.raises(PyverbsUserError):
        CQEX(ctx, CqInitAttrEx(channel=cc))


def test_cqex_traffic_and_readers(ctx):
    import socket
    from rdma_helpers import recv_wr, send_wr
    import pyverbs.enums as e
    a, b = _cqex_pair(ctx)
    try:
        n = 4
        for i in range(n):
            b.qp.post_recv(recv_wr(b, wr_id=10 + i))
        for i in range(n):
            a.qp.post_send(send_wr(a, b'q' * 64, wr_id=i,
                                   opcode=e.IBV_WR_SEND_WITH_IMM,
                                   imm_data=socket.htonl(0x1234 + i)))
        got = []
        assert _cqex_wait(b.cq) == 0
        while True:
            assert b.cq.status == 0
            got.append((b.cq.wr_id, b.cq.read_opcode(), b.cq.read_byte_len(),
                        b.cq.read_qp_num(), socket.ntohl(b.cq.read_imm_data()),
                        b.cq.read_wc_flags() & 2))
            b.cq.read_src_qp()
            b.cq.read_slid()
            b.cq.read_sl()
            b.cq.read_dlid_path_bits()
            b.cq.read_vendor_err()
            if len(got) == n:
                break
            while (rc := b.cq.poll_next()) == ENOENT:
                pass
            assert rc == 0
        with pytest.raises(PyverbsUserError, match='start_poll'):
            b.cq.start_poll(None)
        b.cq.end_poll()
        with pytest.raises(PyverbsUserError, match='no current'):
            b.cq.read_byte_len()
        assert got == [(10 + i, 0x80, 64, b.qp.qp_num, 0x1234 + i, 2)
                       for i in range(n)]
        assert b.cq.start_poll(None) == ENOENT
        # the send side
        sends = 0
        assert _cqex_wait(a.cq) == 0
        while True:
            assert a.cq.status == 0 and a.cq.read_opcode() == 0
            sends += 1
            if sends == n:
                break
            while (rc := a.cq.poll_next()) == ENOENT:
                pass
        a.cq.end_poll()
        a.cq.end_poll()
    finally:
        _close(a, b)


def test_cqex_reader_not_requested(ctx):
    from rdma_helpers import recv_wr, send_wr
    a, b = _cqex_pair(ctx, wc_flags=0)
    try:
        b.qp.post_recv(recv_wr(b, wr_id=5))
        a.qp.post_send(send_wr(a, b'p' * 64))
        assert _cqex_wait(b.cq) == 0
        assert b.cq.wr_id == 5 and b.cq.read_opcode() == 0x80
        for name in ('read_byte_len', 'read_imm_data', 'read_tm_info',
                     'read_cvlan', 'read_flow_tag'):
            with pytest.raises(PyverbsUserError, match='WC flag'):
                getattr(b.cq, name)()
        b.cq.close()        # ends the open batch first
        assert b.cq.closed
    finally:
        _close(a, b)


def test_cqex_events(ctx):
    from rdma_helpers import recv_wr, send_wr
    a, b = _cqex_pair(ctx, channel=True)
    try:
        b.cq.req_notify()
        b.qp.post_recv(recv_wr(b))
        a.qp.post_send(send_wr(a, b'o' * 64))
        assert select.select([b.channel], [], [], 10)[0]
        b.channel.get_cq_event(b.cq)
        assert b.cq.num_events == 1
        assert _cqex_wait(b.cq) == 0
        b.cq.end_poll()
        b.cq.ack_events(1)
        assert b.cq.num_events == 0
    finally:
        _close(a, b)
