# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Connected QP pairs for device tests and benchmarks, without a CM.

    from rdma_helpers import pair, poll, recv_wr, send_wr

    a, b = pair(ctx, e.IBV_QPT_RC)           # loopback on one Context
    a, b = pair(ctx, e.IBV_QPT_RC, ctx2)     # between two Contexts
    b.qp.post_recv(recv_wr(b))
    a.qp.post_send(send_wr(a, b'hello'))
    poll(a.cq); poll(b.cq)
    assert b.mr.read(5, 0) == b'hello'       # (UD: after the 40-byte GRH)

Each End holds a PD, a CQ (optionally with a CompChannel), an MR and a QP
on its Context; pair() builds two Ends and moves both QPs to RTS, each
addressed to the other through a RoCE GRH (IPv4-mapped RoCEv2 GID of the
port when there is one).  End.close() (or a with block) releases it all.

In the Soft-RoCE VM, rxe0 and rxe1 sit in one network namespace, so traffic
between them does not work (their IP addresses are both local and the RTR
transition times out resolving the path); loopback on one device does.
"""
import gc
import random
import subprocess
import sys
import time

import pytest

import pyverbs.enums as e
from pyverbs import _verbs
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ, CompChannel
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QP, QPCap, QPEx, QPInitAttr, QPInitAttrEx
from pyverbs.wr import SGE, RecvWR, SendWR

# rdma_cm is built only where librdmacm was found (meson option rdmacm)
HAVE_RDMACM = bool(getattr(_verbs, '_HAVE_RDMACM', 0))
needs_rdmacm = pytest.mark.skipif(
    not HAVE_RDMACM, reason='this pyverbs-c was built without librdmacm '
    '(meson -Drdmacm=disabled, or none found)')

# query_gid_type() returns the sysfs GID type: RoCE v2 is 1.
ROCE_V2_SYSFS = getattr(e, 'IBV_GID_TYPE_SYSFS_ROCE_V2', 1)

GRH_SIZE = 40
UD_QKEY = 0x11111111
ALL_ACCESS = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
              e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)


def find_gid_index(ctx, port=1):
    """Index of an IPv4-mapped (RoCEv2 when typed) GID of the port, else of
    any non-zero GID, else None."""
    fallback = None
    for idx in range(ctx.query_port(port).gid_tbl_len):
        try:
            gid = str(ctx.query_gid(port, idx))
        except PyverbsError:
            continue
        if not gid.replace('0', '').replace(':', ''):
            continue
        if gid.startswith('0000:0000:0000:0000:0000:ffff'):
            try:
                if ctx.query_gid_type(port, idx) != ROCE_V2_SYSFS:
                    fallback = idx if fallback is None else fallback
                    continue
            except (AttributeError, PyverbsError):
                pass
            return idx
        fallback = idx if fallback is None else fallback
    return fallback


class End:
    """One side of a connection: pd, cq (channel), mr and qp on ctx.

    mr_size defaults to msg_size (+ GRH_SIZE for UD).  The QP is created
    with max_send_wr=max_recv_wr=depth and left in RESET; connect() or
    pair() moves it on.  With send_ops_flags (IBV_QP_EX_WITH_*), it is a
    QPEx created on the Context.  psn is this side's random starting PSN.
    """

    def __init__(self, ctx, qp_type, port=1, gid_index=None, msg_size=1024,
                 mr_size=None, depth=16, access=ALL_ACCESS,
                 with_channel=False, max_inline_data=0, sq_sig_all=1,
                 max_send_sge=1, max_recv_sge=1, cq_depth=None,
                 send_ops_flags=0):
        self.ctx = ctx
        self.qp_type = qp_type
        self.port = port
        self.msg_size = msg_size
        self.gid_index = (find_gid_index(ctx, port) if gid_index is None
                          else gid_index)
        if self.gid_index is None:
            raise PyverbsError(f'{ctx.name} port {port} has no usable GID')
        self.gid = ctx.query_gid(port, self.gid_index)
        self.psn = random.getrandbits(24)
        self.ah = None
        self.remote = None
        self.pd = PD(ctx)
        self.channel = CompChannel(ctx) if with_channel else None
        self.cq = CQ(ctx, cq_depth or 2 * depth, None, self.channel, 0)
        if mr_size is None:
            mr_size = msg_size + (GRH_SIZE if qp_type == e.IBV_QPT_UD
                                  else 0)
        self.mr = MR(self.pd, mr_size, access)
        cap = QPCap(max_send_wr=depth, max_recv_wr=depth,
                    max_send_sge=max_send_sge, max_recv_sge=max_recv_sge,
                    max_inline_data=max_inline_data)
        if send_ops_flags:
            mask = e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
            self.qp = QPEx(ctx, QPInitAttrEx(
                qp_type=qp_type, scq=self.cq, rcq=self.cq, cap=cap,
                sq_sig_all=sq_sig_all, pd=self.pd, comp_mask=mask,
                send_ops_flags=send_ops_flags))
        else:
            self.qp = QP(self.pd, QPInitAttr(qp_type=qp_type, scq=self.cq,
                                             rcq=self.cq, cap=cap,
                                             sq_sig_all=sq_sig_all))

    def ah_attr_to(self, other):
        """An AHAttr addressing other's port through a GRH."""
        gr = GlobalRoute(dgid=other.gid, sgid_index=self.gid_index,
                         hop_limit=64)
        return AHAttr(port_num=self.port, is_global=1, gr=gr)

    def close(self):
        for o in (self.qp, self.mr, self.cq, self.channel, self.pd):
            if o is not None:
                o.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def connect(a, b, path_mtu=e.IBV_MTU_1024, access=ALL_ACCESS, rd_atomic=1,
            timeout=18):
    """Move a.qp and b.qp to RTS, each addressed to the other, through
    QP.establish().  For UD, each End also gets ah, an AH addressing the
    other.  timeout (4.096 us << timeout before a retransmission) defaults
    to about 1 s: Soft-RoCE under emulation can be slow to acknowledge, and
    its retransmission path is the least reliable part of it."""
    for x, y in ((a, b), (b, a)):
        x.remote = y
        if x.qp_type == e.IBV_QPT_UD:
            x.qp.establish(qkey=UD_QKEY, local_psn=x.psn, port_num=x.port)
            x.ah = AH(x.pd, attr=x.ah_attr_to(y))
            continue
        x.qp.establish(y.qp.qp_num, y.psn, x.ah_attr_to(y), local_psn=x.psn,
                       port_num=x.port, path_mtu=path_mtu,
                       qp_access_flags=access, max_rd_atomic=rd_atomic,
                       max_dest_rd_atomic=rd_atomic, timeout=timeout)


def pair(ctx, qp_type, ctx2=None, **kw):
    """Two connected Ends: on ctx and ctx2, or both on ctx (loopback).
    Keyword arguments go to End()."""
    a = End(ctx, qp_type, **kw)
    try:
        b = End(ctx2 if ctx2 is not None else ctx, qp_type, **kw)
    except BaseException:
        a.close()
        raise
    try:
        connect(a, b)
    except BaseException:
        a.close()
        b.close()
        raise
    return a, b


def sge(end, length=None, offset=0):
    """An SGE over end's MR (all of it by default)."""
    if length is None:
        length = end.mr.length - offset
    return SGE(end.mr.buf + offset, length, end.mr.lkey)


def recv_wr(end, wr_id=0, length=None, offset=0):
    """A RecvWR over end's MR."""
    return RecvWR(wr_id=wr_id, num_sge=1, sg=[sge(end, length, offset)])


def send_wr(end, data=None, wr_id=0, opcode=e.IBV_WR_SEND,
            send_flags=e.IBV_SEND_SIGNALED, length=None, offset=0,
            imm_data=0):
    """A SendWR over end's MR, after writing data (bytes) at offset.  For a
    UD End it is addressed to end.remote through end.ah."""
    if data is not None:
        end.mr.write(data, len(data), offset)
        if length is None:
            length = len(data)
    if length is None:
        length = end.msg_size
    wr = SendWR(wr_id=wr_id, opcode=opcode, num_sge=1,
                sg=[sge(end, length, offset)], send_flags=send_flags,
                imm_data=imm_data)
    if end.qp_type == e.IBV_QPT_UD and end.ah is not None:
        wr.set_wr_ud(end.ah, end.remote.qp.qp_num, UD_QKEY)
    return wr


def poll(cq, count=1, timeout=10.0):
    """Poll cq until count completions arrived; return their WCs.  A
    completion with an error status, or a timeout, raises PyverbsError."""
    wcs = []
    end = time.monotonic() + timeout
    while len(wcs) < count:
        n, got = cq.poll(count - len(wcs))
        for wc in got[:n]:
            if wc.status != e.IBV_WC_SUCCESS:
                raise PyverbsError(f'Completion status is {wc.status} '
                                   f'(wr_id {wc.wr_id})')
            wcs.append(wc)
        if not n and time.monotonic() > end:
            raise PyverbsError(f'Got {len(wcs)} of {count} completions '
                               f'in {timeout} s')
    return wcs


def settled_blocks():
    """sys.getallocatedblocks() once the collector has run twice.  The
    free-threaded build frees some memory of a collection's garbage (dict
    keys of the **kwargs of a call that raised, seen on 3.13t) only at
    the next collection, once no thread can still be reading it (QSBR):
    measured after a single collect, each run's block looks kept."""
    gc.collect()
    gc.collect()
    return sys.getallocatedblocks()


def device_resources():
    """The kernel's RDMA object counts (`rdma resource show`), or None
    where the rdma tool is missing or fails."""
    try:
        r = subprocess.run(['rdma', 'resource', 'show'], capture_output=True,
                           text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout if r.returncode == 0 else None


def poll_one(cq, timeout=10.0):
    """The next WC of cq whatever its status (PyverbsError after timeout
    seconds without one)."""
    end = time.monotonic() + timeout
    while True:
        n, got = cq.poll(1)
        if n:
            return got[0]
        if time.monotonic() > end:
            raise PyverbsError(f'No completion in {timeout} s')


def odp_or_skip(ctx, pd, transport='rc_odp_caps', needed=0):
    """The device's odp_caps where it has ODP (IBV_ODP_SUPPORT) and the
    transport's caps include needed.  Otherwise the test skips saying what
    the device lacks, after checking that an ODP registration is refused
    cleanly where the device has no ODP at all (Soft-RoCE before kernel
    6.14): the kernel's check of the access flags answers EINVAL (6.1) or
    EOPNOTSUPP (later kernels)."""
    import errno
    from pyverbs.pyverbs_error import PyverbsRDMAError
    odp = ctx.query_device_ex().odp_caps
    have = getattr(odp, transport)
    if odp.general_caps & e.IBV_ODP_SUPPORT and have & needed == needed:
        return odp
    if not odp.general_caps & e.IBV_ODP_SUPPORT:
        with pytest.raises(PyverbsRDMAError) as ei:
            MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_ON_DEMAND)
        assert ei.value.error_code in (errno.EINVAL, errno.EOPNOTSUPP)
        assert ei.value.func == 'ibv_reg_mr'
        assert str(ei.value).startswith('Failed to register a MR.')
    pytest.skip(f'{ctx.name} of this kernel has no ODP for this (odp_caps: '
                f'general_caps {odp.general_caps:#x}, {transport} '
                f'{have:#x}, needs {needed:#x}); an ODP MR is refused '
                'cleanly where it has none')
