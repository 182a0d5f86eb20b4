# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""XRCD and XRCDInitAttr: fields, bad input, lifetime, and what the device
says to ibv_open_xrcd (Soft-RoCE has no XRC: EOPNOTSUPP)."""
import errno
import os
import tempfile

import pytest

import pyverbs.enums as e
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.qp import QPInitAttrEx
from pyverbs.xrcd import XRCD, XRCDInitAttr

FD_OFLAGS = e.IBV_XRCD_INIT_ATTR_FD | e.IBV_XRCD_INIT_ATTR_OFLAGS


def test_init_attr_fields():
    a = XRCDInitAttr(FD_OFLAGS, os.O_CREAT, -1)
    assert (a.comp_mask, a.oflags, a.fd) == (FD_OFLAGS, os.O_CREAT, -1)
    a = XRCDInitAttr(comp_mask=1, oflags=2, fd=3)
    a.fd = 2**31 - 1
    a.comp_mask = 2**32 - 1
    assert (a.comp_mask, a.oflags, a.fd) == (2**32 - 1, 2, 2**31 - 1)
    with pytest.raises(OverflowError):
        a.fd = 2**31
    with pytest.raises(OverflowError):
        a.comp_mask = -1
    with pytest.raises(TypeError):
        a.oflags = 1.0
    with pytest.raises(TypeError):
        XRCDInitAttr(1, 2)              # all three are required
    with pytest.raises(TypeError):
        XRCDInitAttr(None, 0, -1)


def test_xrcd_bad_arguments():
    attr = XRCDInitAttr(0, 0, -1)
    for bad in (None, 1, 'rxe0', attr):
        with pytest.raises(TypeError):
            XRCD(bad, attr)
    with pytest.raises(TypeError):
        XRCD()


def test_unopened_xrcd():
    x = XRCD.__new__(XRCD)
    x.close()
    x.close()
    assert x.closed and x.xrcd == 0 and x.ctx is None
    # QPInitAttrEx takes an XRCD (and only that) ...
    qia = QPInitAttrEx(xrcd=x)
    assert qia.xrcd is x
    qia.xrcd = None
    with pytest.raises(TypeError, match='xrcd must be an XRCD'):
        qia.xrcd = object()


def test_xrcd_needs_an_attr(ctx):
    with pytest.raises(TypeError):
        XRCD(ctx, None)
    with pytest.raises(TypeError):
        XRCD(ctx, PD(ctx))


def _open(ctx):
    """ibv_open_xrcd on a shared file, as rdma-core's tests do; returns the
    XRCD or the PyverbsRDMAError."""
    with tempfile.NamedTemporaryFile() as f:
        fd = os.open(f.name, os.O_RDONLY)
        try:
            return XRCD(ctx, XRCDInitAttr(FD_OFLAGS, os.O_CREAT, fd))
        except PyverbsRDMAError as ex:
            return ex
        finally:
            os.close(fd)


def test_open_xrcd(ctx):
    res = _open(ctx)
    if isinstance(res, PyverbsRDMAError):
        # a device without XRC (rxe) must say so, and nothing is left open
        assert res.error_code == errno.EOPNOTSUPP, res
        assert res.func == 'ibv_open_xrcd'
        assert 'Failed to allocate XRCD' in str(res)
        PD(ctx).close()                 # the context is still fine
        return
    with res as xrcd:
        assert xrcd.xrcd and xrcd.ctx is ctx
    assert xrcd.closed and xrcd.xrcd == 0
    xrcd = _open(ctx)
    ctx.close()                         # closes the XRCD first
    assert xrcd.closed


def test_qp_refuses_a_closed_or_missing_xrcd(ctx, pd):
    from pyverbs.qp import QP
    attr = QPInitAttrEx(qp_type=e.IBV_QPT_XRC_RECV, pd=pd,
                        comp_mask=e.IBV_QP_INIT_ATTR_XRCD)
    with pytest.raises(PyverbsUserError, match='no xrcd'):
        QP(ctx, attr)
    attr.xrcd = XRCD.__new__(XRCD)      # never opened
    with pytest.raises(PyverbsUserError, match='closed'):
        QP(ctx, attr)
