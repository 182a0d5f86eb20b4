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
