# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The efa names upstream pyverbs added from rdma-core 46 to 65
(UPSTREAM65.md 1.8) over the real libefa.

- Host: the attribute classes (EfaDVMRAttr, EfaDVSQDepthAttr,
  EfaDVRQDepthAttr, EfaCompCntrInitAttr, EfaQPInitAttr's flags/sl/wr_flags,
  EfaDVDeviceAttr.inline_buf_size_ex), dev_cap_to_str's new names, and the
  error naming the rdma-core version where the build lacks a field or call.
- VM (rxe): libefa refuses a foreign device (EOPNOTSUPP) in efadv_query_mr,
  cleanly; closed objects are refused.

What an EFA device would be handed is checked by the recording double
(tests/test_efa_double65.py), where SRD QPs and EFA CQs exist over rxe.
"""
import errno

import pytest

from pyverbs import _verbs
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError

pytestmark = pytest.mark.skipif(not getattr(_verbs, '_HAVE_EFA', 0),
                                reason='built without libefa')


def build_has(version):
    """Whether the build's rdma-core is at least version, as the efa
    fields say (rdma-core 52: EfaQPInitAttr.flags; 55: sl; 63:
    inline_buf_size_ex; 64: wr_flags)."""
    from pyverbs.providers.efa.efadv import EfaDVDeviceAttr, EfaQPInitAttr
    probe = {52: (EfaQPInitAttr, 'flags'), 55: (EfaQPInitAttr, 'sl'),
             63: (EfaDVDeviceAttr, 'inline_buf_size_ex'),
             64: (EfaQPInitAttr, 'wr_flags')}[version]
    try:
        getattr(probe[0](), probe[1])
        return True
    except PyverbsRDMAError:
        return False


def _needs(fn, version):
    with pytest.raises(PyverbsRDMAError) as ei:
        fn()
    assert f'needs rdma-core {version}' in str(ei.value)
    assert ei.value.error_code == errno.EOPNOTSUPP


def test_names():
    from pyverbs.providers.efa import efadv
    from pyverbs.mr import MR
    from pyverbs._unimplemented import placeholders
    for name in ('EfaDVMRAttr', 'EfaMR', 'EfaDVSQDepthAttr',
                 'EfaDVRQDepthAttr', 'EfaCompCntrInitAttr'):
        assert hasattr(efadv, name)
    assert issubclass(efadv.EfaMR, MR)
    assert not placeholders().get('pyverbs.providers.efa.efadv')


@pytest.mark.parametrize('name, version, width',
                         [('flags', 52, 16), ('sl', 55, 8),
                          ('wr_flags', 64, 64)])
def test_qp_init_attr_fields(name, version, width):
    from pyverbs.providers.efa.efadv import EfaQPInitAttr
    a = EfaQPInitAttr()
    if not build_has(version):
        _needs(lambda: getattr(a, name), version)
        _needs(lambda: setattr(a, name, 1), version)
        return
    assert getattr(a, name) == 0
    setattr(a, name, 2**width - 1)
    assert getattr(a, name) == 2**width - 1
    with pytest.raises(OverflowError):      # upstream truncates
        setattr(a, name, 2**width)
    with pytest.raises(OverflowError):
        setattr(a, name, -1)


def test_device_attr_inline_buf_size_ex():
    from pyverbs.providers.efa.efadv import EfaDVDeviceAttr
    a = EfaDVDeviceAttr()
    if build_has(63):
        assert a.inline_buf_size_ex == 0
        assert 'Inline buffer size ex: 0' in str(a)
    else:
        _needs(lambda: a.inline_buf_size_ex, 63)
        assert 'Inline buffer size ex' not in str(a)


def test_dev_cap_to_str():
    from pyverbs.providers.efa.efadv import dev_cap_to_str
    assert dev_cap_to_str(0x78) == (
        'RDMA Write, Unsolicited RDMA Write receive, CQ with external '
        'memory, Completion Counters (78)')
    assert dev_cap_to_str(0x81) == 'RDMA Read, ??(80) (81)'


def test_mr_attr():
    from pyverbs.providers.efa.efadv import EfaDVMRAttr
    a = EfaDVMRAttr()
    assert (a.comp_mask, a.ic_id_validity, a.recv_ic_id, a.rdma_read_ic_id,
            a.rdma_recv_ic_id) == (0, 0, 0, 0, 0)
    with pytest.raises(AttributeError):     # read-only, as upstream's
        a.recv_ic_id = 1
    assert str(a) == (
        'comp_mask                   : 0                   \n'
        'Interconnect id validity    : 0                   \n'
        'Receive interconnect id     : 0                   \n'
        'RDMA read interconnect id   : 0                   \n'
        'RDMA receive interconnect id: 0                   \n')
    with pytest.raises(TypeError):
        EfaDVMRAttr(1)


def test_depth_attrs():
    from pyverbs.providers.efa.efadv import EfaDVRQDepthAttr, \
        EfaDVSQDepthAttr
    sq, rq = EfaDVSQDepthAttr(), EfaDVRQDepthAttr()
    for name in ('comp_mask', 'flags', 'max_send_sge', 'max_rdma_sge',
                 'max_inline_data'):
        setattr(sq, name, 3)
        assert getattr(sq, name) == 3
    # upstream's RQ getters read the SQ's field (AttributeError there)
    rq.comp_mask, rq.max_recv_sge = 1, 2
    assert (rq.comp_mask, rq.max_recv_sge) == (1, 2)
    with pytest.raises(OverflowError):
        sq.flags = 2**32
    with pytest.raises(OverflowError):
        rq.max_recv_sge = -1


def test_comp_cntr_init_attr():
    from pyverbs.providers.efa.efadv import EfaCompCntrInitAttr
    a = EfaCompCntrInitAttr()
    a = EfaCompCntrInitAttr(0x1000, 0x2000)
    a.set_comp_ext_mem_va(0x3000)
    a.set_err_ext_mem_va(2**64 - 1)
    for bad, exc in ((-1, OverflowError), (2**64, OverflowError),
                     ('x', TypeError), (None, TypeError)):
        with pytest.raises(exc):
            a.set_comp_ext_mem_va(bad)
    with pytest.raises(OverflowError):
        EfaCompCntrInitAttr(comp_ext_mem_ptr=-5)


def test_comp_cntr_arguments():
    """EfaCompCntr(ctx, attr, efa_attr=None): a CompCntr; its arguments
    checked before anything reaches libefa."""
    from pyverbs.comp_cntr import CompCntr, CompCntrInitAttr
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.providers.efa.efadv import EfaCompCntr, EfaCompCntrInitAttr
    assert issubclass(EfaCompCntr, CompCntr)
    ctx = Context.__new__(Context)          # never opened
    with pytest.raises(TypeError, match='ctx must be a Context'):
        EfaCompCntr(PD.__new__(PD), CompCntrInitAttr())
    with pytest.raises(TypeError, match='attr must be a CompCntrInitAttr'):
        EfaCompCntr(ctx, EfaCompCntrInitAttr())
    with pytest.raises(TypeError, match='efa_attr must be'):
        EfaCompCntr(ctx, CompCntrInitAttr(), CompCntrInitAttr())
    with pytest.raises(TypeError):
        EfaCompCntr(ctx)
    for efa in (None, EfaCompCntrInitAttr(0x1000, 0x2000)):
        with pytest.raises(PyverbsUserError, match='Context object is '
                           'closed'):
            EfaCompCntr(ctx, CompCntrInitAttr(), efa_attr=efa)
    c = EfaCompCntr.__new__(EfaCompCntr)
    with pytest.raises(PyverbsUserError, match='closed'):
        c.read()
    c.close()


def test_closed_objects():
    from pyverbs.providers.efa.efadv import EfaCQ, EfaMR, SRDQPEx
    mr = EfaMR.__new__(EfaMR)
    with pytest.raises(PyverbsUserError):
        mr.query()
    cq = EfaCQ.__new__(EfaCQ)
    with pytest.raises(PyverbsUserError):
        cq.is_unsolicited()
    qp = SRDQPEx.__new__(SRDQPEx)
    with pytest.raises(PyverbsUserError):
        qp.wr_set_processing_hints(1)
    with pytest.raises(OverflowError):      # argument errors first
        qp.wr_set_processing_hints(2**32)


# ---- VM: rxe, real libefa ----

def test_rxe_comp_cntr(ctx):
    """libefa refuses a foreign device (EOPNOTSUPP), whatever the external
    memory; a build before rdma-core 65 names the version instead."""
    from pyverbs.comp_cntr import CompCntrInitAttr
    from pyverbs.providers.efa.efadv import EfaCompCntr, EfaCompCntrInitAttr
    words = bytearray(16)
    import ctypes
    va = ctypes.addressof((ctypes.c_char * 16).from_buffer(words))
    for efa in (None, EfaCompCntrInitAttr(), EfaCompCntrInitAttr(va, va + 8)):
        with pytest.raises(PyverbsRDMAError) as ei:
            EfaCompCntr(ctx, CompCntrInitAttr(), efa)
        assert ei.value.error_code == errno.EOPNOTSUPP
        if _verbs._HAVE_COMP_CNTR:
            assert ei.value.func == 'efadv_create_comp_cntr'
            assert 'Failed to create EFA comp_cntr' in str(ei.value)
        else:
            assert 'efadv_create_comp_cntr' in str(ei.value)
            assert 'needs rdma-core 65' in str(ei.value)
    assert words == bytearray(16)           # untouched
    ctx.query_device()                      # the Context is fine


def test_rxe_query_mr(pd):
    from pyverbs.providers.efa.efadv import EfaMR
    import pyverbs.enums as e
    mr = EfaMR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    with pytest.raises(PyverbsRDMAError) as ei:
        mr.query()
    assert ei.value.error_code == errno.EOPNOTSUPP
    pd.close()                              # closes the MR first
    assert mr.closed
    with pytest.raises(PyverbsUserError):
        mr.query()
