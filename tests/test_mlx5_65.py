# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The mlx5 names upstream pyverbs added from rdma-core 45 to 65
(UPSTREAM65.md 1.7) over the real libmlx5.

- Host: every name imports where 65's tests import it (at module level);
  the constructors check their arguments (None, wrong types, ranges) where
  upstream dereferences them; the plain objects (EventFD, EventHeader)
  work; a name whose C call the build's rdma-core lacks raises the error
  that names the version bringing it.
- VM (rxe): libmlx5 refuses every one of them on a device that is not mlx5
  (EOPNOTSUPP), and that error comes through clean; the objects that rxe's
  root-only DR domain allows (DrFlowMeterAttr over a level-0 table) work,
  and close in any order.

What an mlx5 device would do with them is checked by the recording double
(tests/test_mlx5_double65.py).
"""
import errno
import gc
import os

import pytest

from pyverbs import _verbs
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError, \
    PyverbsUserError

pytestmark = pytest.mark.skipif(not getattr(_verbs, '_HAVE_MLX5', 0),
                                reason='built without libmlx5')

FEATURES = getattr(_verbs, '_MLX5_FEATURES', {})


def test_import_closure_of_65s_suite():
    """What rdma-core 65's tests import at module level (UPSTREAM65.md
    2.1): an ImportError here stops the whole suite."""
    from pyverbs.providers.mlx5.dr_action import (  # noqa: F401
        DrActionFlowMeter, DrFlowMeterAttr)
    from pyverbs.providers.mlx5.mlx5dv import Mlx5DevxCmdComp  # noqa: F401
    from pyverbs.providers.mlx5.mlx5dv_dmabuf import (  # noqa: F401
        Mlx5DmaBufMR)
    from pyverbs.providers.mlx5.mlx5dv_event import (  # noqa: F401
        DEFAULT_EQE_SIZE, EventChannel, EventFD, EventHeader)
    from pyverbs._unimplemented import placeholders
    filled = placeholders()
    for mod in ('pyverbs.providers.mlx5.dr_action',
                'pyverbs.providers.mlx5.mlx5dv',
                'pyverbs.providers.mlx5.mlx5dv_dmabuf',
                'pyverbs.providers.mlx5.mlx5dv_event'):
        assert not filled.get(mod), (mod, filled.get(mod))
    assert DEFAULT_EQE_SIZE == 1024


# ---- DrFlowMeterAttr, DrActionFlowMeter ----

def test_flow_meter_arguments():
    from pyverbs.providers.mlx5.dr_action import (DrActionDrop,
                                                  DrActionFlowMeter,
                                                  DrFlowMeterAttr)
    # upstream dereferences a None table or attr
    for make in (lambda: DrFlowMeterAttr(None),
                 lambda: DrFlowMeterAttr(DrActionDrop()),
                 lambda: DrActionFlowMeter(None),
                 lambda: DrActionFlowMeter(DrActionDrop()),
                 lambda: DrActionFlowMeter()):
        with pytest.raises(TypeError):
            make()
    assert DrActionFlowMeter.__mro__[1].__name__ == 'DrAction'


# ---- Mlx5DevxCmdComp, Mlx5DevxObj.query_async ----

def test_cmd_comp_arguments():
    from pyverbs.providers.mlx5.mlx5dv import Mlx5DevxCmdComp, Mlx5DevxObj
    with pytest.raises(TypeError):          # upstream dereferences None
        Mlx5DevxCmdComp(None)
    with pytest.raises(TypeError):
        Mlx5DevxCmdComp(5)
    cc = Mlx5DevxCmdComp.__new__(Mlx5DevxCmdComp)
    assert cc.closed                        # never opened
    for fn in (lambda: cc.fd, cc.get_async_cmd_comp, lambda: str(cc)):
        with pytest.raises(PyverbsUserError):
            fn()
    obj = Mlx5DevxObj.__new__(Mlx5DevxObj)
    with pytest.raises(PyverbsUserError):   # closed
        obj.query_async(b'', 16, 1, cc)
    with pytest.raises(TypeError):
        obj.query_async(b'', 16, 1)
    with pytest.raises(OverflowError):
        obj.query_async(b'', 16, -1, cc)


# ---- mlx5dv_event ----

def test_event_fd():
    from pyverbs.providers.mlx5.mlx5dv_event import EventFD
    with EventFD(7) as efd:
        fd = efd.fd
        assert fd >= 0
        assert int.from_bytes(os.read(fd, 8), 'little') == 7
    assert efd.closed
    with pytest.raises(OSError):            # closed with the object
        os.fstat(fd)
    with pytest.raises(PyverbsUserError):
        efd.fd
    efd.close()
    with pytest.raises(OverflowError):
        EventFD(-1)
    with pytest.raises(OverflowError):
        EventFD(2**32)
    with pytest.raises(PyverbsRDMAError) as ei:
        EventFD(0, 0x7fffffff)              # flags eventfd(2) refuses
    assert ei.value.error_code == errno.EINVAL
    before = len(os.listdir('/proc/self/fd'))
    for _ in range(50):
        EventFD()                           # closed by the finalizer
    gc.collect()
    assert len(os.listdir('/proc/self/fd')) == before


def test_event_header():
    from pyverbs.providers.mlx5.mlx5dv_event import EventHeader
    h = EventHeader(100, b'\x01\x02')
    assert (h.cookie, h.data) == (100, b'\x01\x02')
    with pytest.raises(AttributeError):     # read-only, as upstream
        h.cookie = 5
    with pytest.raises(TypeError):
        EventHeader(1)


def test_event_channel_arguments():
    from pyverbs.providers.mlx5.mlx5dv_event import EventChannel, EventFD
    with pytest.raises(TypeError):
        EventChannel(None)
    ch = EventChannel.__new__(EventChannel)
    assert ch.closed
    for fn in (lambda: ch.fd, lambda: ch.subscribe([1], 5),
               lambda: ch.get_event()):
        with pytest.raises(PyverbsUserError):
            fn()
    # argument errors come before the closed check, as for every method
    with pytest.raises(PyverbsError, match='Cookie must be provided'):
        ch.subscribe([1])
    with pytest.raises(TypeError):
        ch.subscribe([1], 5, fd=3)          # an EventFD, not an int
    with pytest.raises(PyverbsError, match='Only one event'):
        ch.subscribe([1, 2], fd=EventFD())
    with pytest.raises(OverflowError):
        ch.subscribe([2**16], 5)
    with pytest.raises(TypeError):
        ch.subscribe([1], 5, obj=5)


# ---- Mlx5DmaBufMR ----

def test_dmabuf_mr_arguments():
    from pyverbs.providers.mlx5.mlx5dv_dmabuf import Mlx5DmaBufMR
    from pyverbs.mr import DmaBufMR
    assert issubclass(Mlx5DmaBufMR, DmaBufMR)
    with pytest.raises(TypeError):
        Mlx5DmaBufMR(None, 0, 4096, fd=3)
    with pytest.raises(TypeError):          # upstream: None to a C int
        Mlx5DmaBufMR(None, 0, 4096)
    with pytest.raises(OverflowError):
        Mlx5DmaBufMR(None, -1, 4096, fd=3)


# ---- VM: rxe, real libmlx5 ----

def _eopnotsupp(fn):
    with pytest.raises(PyverbsRDMAError) as ei:
        fn()
    assert ei.value.error_code == errno.EOPNOTSUPP, ei.value
    return ei.value


def test_rxe_refused_cleanly(ctx, pd):
    """libmlx5 refuses a foreign device in every one of these."""
    from pyverbs.providers.mlx5.mlx5dv import Mlx5DevxCmdComp
    from pyverbs.providers.mlx5.mlx5dv_event import EventChannel
    from pyverbs.providers.mlx5.mlx5dv_dmabuf import Mlx5DmaBufMR
    _eopnotsupp(lambda: Mlx5DevxCmdComp(ctx))
    _eopnotsupp(lambda: EventChannel(ctx))
    _eopnotsupp(lambda: EventChannel(ctx, flags=1))
    ex = _eopnotsupp(lambda: Mlx5DmaBufMR(pd, 0, 4096, fd=0))
    if not FEATURES.get('mlx5dv_reg_dmabuf_mr'):
        assert 'needs rdma-core 54' in str(ex)
    assert not ctx.closed and not pd.closed


def test_rxe_flow_meter(ctx):
    """rxe's DR domain is root-only: the attribute works over its level-0
    table, the meter itself is refused (no SW steering) cleanly; the table
    and the attribute close in any order."""
    from pyverbs.providers.mlx5.dr_action import (DrActionFlowMeter,
                                                  DrFlowMeterAttr)
    from pyverbs.providers.mlx5.dr_domain import DrDomain
    from pyverbs.providers.mlx5.dr_table import DrTable
    dom = DrDomain(ctx, 0)
    tbl = DrTable(dom, 0)
    attr = DrFlowMeterAttr(tbl, 1, 0, b'\x00' * 32)
    for bad in (dict(active=256), dict(reg_c_index=-1)):
        with pytest.raises(OverflowError):
            DrFlowMeterAttr(tbl, flow_meter_parameter=b'', **bad)
    for param in (None, 5, 'x'):
        with pytest.raises(TypeError):      # bytes(None) upstream too
            DrFlowMeterAttr(tbl, 1, 0, param)
    _eopnotsupp(lambda: DrActionFlowMeter(attr))
    tbl.close()                             # the attribute holds it
    with pytest.raises(PyverbsUserError):
        DrActionFlowMeter(attr)             # its table is closed
    attr.close()
    with pytest.raises(PyverbsUserError):
        DrActionFlowMeter(attr)
    dom.close()


# ---- Mlx5DVContextAttr(fds), Mlx5DVContext's new fields ----

def _needs(fn, version):
    with pytest.raises(PyverbsRDMAError) as ei:
        fn()
    assert f'needs rdma-core {version}' in str(ei.value)
    assert ei.value.error_code == errno.EOPNOTSUPP


def test_context_attr_fds():
    from pyverbs.device import FdArr
    from pyverbs.providers.mlx5.mlx5dv import Mlx5DVContextAttr
    with pytest.raises(TypeError):
        Mlx5DVContextAttr(fds=3)
    attr = Mlx5DVContextAttr(0, 0, None)
    assert (attr.flags, attr.comp_mask) == (0, 0)
    fds = FdArr([0, 1], 2)
    if FEATURES['context_attr_fds']:
        attr = Mlx5DVContextAttr(comp_mask=1, fds=fds)
        assert attr.comp_mask == 1
        del fds                     # the attribute holds it
        gc.collect()
    else:
        _needs(lambda: Mlx5DVContextAttr(comp_mask=1, fds=fds), 57)


def test_dv_context_new_fields():
    from pyverbs.providers.mlx5.mlx5dv import Mlx5DVContext
    dv = Mlx5DVContext()
    if FEATURES['max_dc_rd_atom']:
        assert (dv.max_dc_rd_atom, dv.max_dc_init_rd_atom) == (0, 0)
        assert 'Max DC Init Read Atomic' in str(dv)
    else:
        _needs(lambda: dv.max_dc_rd_atom, 47)
        _needs(lambda: dv.max_dc_init_rd_atom, 47)
        assert 'Max DC' not in str(dv)
    if FEATURES['ooo_recv_wrs_caps']:
        assert dv.ooo_recv_wrs_caps == dict(max_rc=0, max_xrc=0, max_dct=0,
                                            max_ud=0, max_uc=0)
    else:
        _needs(lambda: dv.ooo_recv_wrs_caps, 55)


def test_context_flags_blueflame():
    from pyverbs.providers.mlx5.mlx5dv import context_flags_to_str
    assert context_flags_to_str(1 << 8) == 'Support BlueFlame (256)'
    assert context_flags_to_str(1 | 1 << 8) == 'CQE v1, Support BlueFlame (257)'


# ---- mlx5dv_flow: matcher ib_port, DevX actions, modify-header action ----

def test_matcher_attr_ib_port():
    import pyverbs.providers.mlx5.mlx5dv_flow as fl
    mask = fl.Mlx5FlowMatchParameters(8, b'')
    fl.Mlx5FlowMatcherAttr(mask, ib_port=0)
    with pytest.raises(OverflowError):
        fl.Mlx5FlowMatcherAttr(mask, ib_port=2**32)
    if FEATURES['matcher_ib_port']:
        fl.Mlx5FlowMatcherAttr(mask, comp_mask=2, ib_port=1)
    else:
        _needs(lambda: fl.Mlx5FlowMatcherAttr(mask, comp_mask=2, ib_port=1),
               57)


def test_flow_action_attr_devx():
    import pyverbs.providers.mlx5.mlx5dv_flow as fl
    from pyverbs.providers.mlx5.mlx5dv import Mlx5DevxObj
    DEST_DEVX, COUNTERS_DEVX, WITH_OFFSET = 5, 6, 8
    for t in (DEST_DEVX, COUNTERS_DEVX):
        with pytest.raises(PyverbsUserError, match='needs a DevX obj'):
            fl.Mlx5FlowActionAttr(t)            # upstream: None deref
    with pytest.raises(TypeError):
        fl.Mlx5FlowActionAttr(DEST_DEVX, obj=5)
    closed = Mlx5DevxObj.__new__(Mlx5DevxObj)
    with pytest.raises(PyverbsUserError):
        fl.Mlx5FlowActionAttr(DEST_DEVX, obj=closed)
    a = fl.Mlx5FlowActionAttr()
    for name in ('devx_obj', 'offset'):
        with pytest.raises(PyverbsUserError, match="doesn't have"):
            getattr(a, name)
    with pytest.raises(PyverbsUserError, match="doesn't have"):
        a.offset = 3
    if not FEATURES['counters_devx_with_offset']:
        _needs(lambda: fl.Mlx5FlowActionAttr(WITH_OFFSET), 60)


def test_modify_flow_action_arguments():
    import pyverbs.providers.mlx5.mlx5dv_flow as fl
    from pyverbs.flow import FlowAction
    assert issubclass(fl.Mlx5ModifyFlowAction, FlowAction)
    with pytest.raises(TypeError):
        fl.Mlx5ModifyFlowAction(None)
    a = fl.Mlx5ModifyFlowAction.__new__(fl.Mlx5ModifyFlowAction)
    assert a.closed
    a.close()


def test_rxe_flow_objects(ctx):
    """libmlx5 refuses the modify-header action on rxe; the DevX action
    attributes need a DevX object, which rxe cannot make either."""
    import pyverbs.providers.mlx5.mlx5dv_flow as fl
    _eopnotsupp(lambda: fl.Mlx5ModifyFlowAction(ctx, 0, [b'\x01' * 8]))
    with pytest.raises(ValueError):             # upstream pads or cuts
        fl.Mlx5ModifyFlowAction(ctx, 0, [b'\x01' * 7])
    with pytest.raises(TypeError):
        fl.Mlx5ModifyFlowAction(ctx, 0, [5])
    ctx.close()
    with pytest.raises(PyverbsUserError):
        fl.Mlx5ModifyFlowAction(ctx, 0, [])


# ---- export / import (rdma-core 63), UAR dma-buf (62) ----

EXPORTS = (('Mlx5DevxObj', 'import_obj', 'unimport_obj', 'destroy'),
           ('Mlx5UMEM', 'import_umem', 'unimport_umem', 'dereg'),
           ('Mlx5VAR', 'import_var', 'unimport_var', 'free'))


@pytest.mark.parametrize('cls, imp, unimp, release', EXPORTS)
def test_export_import_arguments(cls, imp, unimp, release):
    from pyverbs.providers.mlx5 import mlx5dv
    tp = getattr(mlx5dv, cls)
    if FEATURES['export_import']:
        assert tp.get_export_size() > 0
    else:
        _needs(tp.get_export_size, 63)
    with pytest.raises(TypeError):              # upstream: not None
        getattr(tp, imp)(None, b'')
    o = tp.__new__(tp)                          # never opened
    for fn in (o.export, getattr(o, unimp)):
        with pytest.raises(PyverbsUserError):
            fn()
    getattr(o, release)()                       # as close(): nothing to do


@pytest.mark.parametrize('cls, imp, unimp, release', EXPORTS)
def test_rxe_import(ctx, cls, imp, unimp, release):
    """libmlx5's import reads a whole export and checks nothing: a short
    one is refused here (upstream reads past it); a full one makes an
    imported object that only unimport releases (upstream's destroy,
    dereg and free would destroy the exporter's object)."""
    from pyverbs.providers.mlx5 import mlx5dv
    tp = getattr(mlx5dv, cls)
    if not FEATURES['export_import']:
        _needs(lambda: getattr(tp, imp)(ctx, b''), 63)
        return
    size = tp.get_export_size()
    for bad in (b'', bytes(size - 1), bytes(size + 1)):
        with pytest.raises(ValueError):
            getattr(tp, imp)(ctx, bad)
    o = getattr(tp, imp)(ctx, bytes(size))
    assert not o.closed
    with pytest.raises(PyverbsUserError, match='imported'):
        getattr(o, release)()
    getattr(o, unimp)()
    assert o.closed
    o = getattr(tp, imp)(ctx, bytearray(size))
    ctx.close()                                 # unimports it first
    assert o.closed


def test_uar_export_dmabuf_fd_closed():
    from pyverbs.providers.mlx5.mlx5dv import Mlx5UAR
    u = Mlx5UAR.__new__(Mlx5UAR)
    with pytest.raises(PyverbsUserError):
        u.export_dmabuf_fd()


# ---- Mlx5DmOpAddr: one access of 1, 2, 4 or 8 bytes ----

def test_dm_op_addr_closed():
    from pyverbs.providers.mlx5.mlx5dv import Mlx5DmOpAddr
    a = Mlx5DmOpAddr.__new__(Mlx5DmOpAddr)
    for fn in (lambda: a.read(8), lambda: a.write(b'\0' * 8)):
        with pytest.raises(PyverbsUserError):
            fn()
