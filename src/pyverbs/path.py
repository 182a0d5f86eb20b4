# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Paths: connect QPs without a connection manager.

A `Path` carries what one end of a connection needs to know about both ends
(the style of python-rdma's rdma.path, made RoCE-friendly): local and remote
QP numbers, PSNs, the GIDs (or LIDs on InfiniBand), port, MTU, timeouts.
Paths are plain data and picklable, so they can travel over any side
channel (a socket, a file, multiprocessing) -- no rdma_cm needed:

    local = Path.from_qp(qp, gid_index=1)        # my half
    # ... send pickle.dumps(local) to the peer, receive its half ...
    path = local.connect(remote)                 # the whole path, my view
    establish(qp, path)                          # RESET -> INIT -> RTR -> RTS

`path.reverse()` is the same path seen from the other end.  For UD,
`path.ah(pd)` builds (and caches) the AH to address the peer, and
`Path.from_wc(...)` builds the reply path of a received datagram.
"""
from __future__ import annotations

import copy
import dataclasses
import random
from typing import TYPE_CHECKING, Any, Self

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GID, GlobalRoute

if TYPE_CHECKING:
    from pyverbs.cq import WC
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.qp import QP, QPAttr

# query_gid_type() returns the sysfs GID type: RoCE v2 is 1.
ROCE_V2_SYSFS: int = getattr(e, 'IBV_GID_TYPE_SYSFS_ROCE_V2', 1)

__all__ = ['Path', 'establish', 'modify_to_init', 'modify_to_rtr',
           'modify_to_rts', 'DEFAULT_ACCESS', 'DEFAULT_QKEY']

DEFAULT_ACCESS: int = (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
                       e.IBV_ACCESS_REMOTE_READ | e.IBV_ACCESS_REMOTE_ATOMIC)
DEFAULT_QKEY: int = 0x11111111


@dataclasses.dataclass
class Path:
    """Both ends of a connection, seen from the local end."""
    port_num: int = 1
    qp_type: int = e.IBV_QPT_RC
    sqpn: int = 0            # local QP number
    dqpn: int = 0            # remote QP number
    sq_psn: int = 0          # first PSN the local end sends
    rq_psn: int = 0          # first PSN the local end expects (= remote's)
    sgid: str | None = None  # local GID string (RoCE / global routing)
    dgid: str | None = None  # remote GID string
    sgid_index: int = 0
    slid: int = 0
    dlid: int = 0
    sl: int = 0
    src_path_bits: int = 0
    static_rate: int = 0
    mtu: int = e.IBV_MTU_1024
    pkey_index: int = 0
    qkey: int = DEFAULT_QKEY
    hop_limit: int = 64
    traffic_class: int = 0
    flow_label: int = 0
    access: int = DEFAULT_ACCESS
    timeout: int = 14
    retry_cnt: int = 7
    rnr_retry: int = 7
    min_rnr_timer: int = 12
    max_rd_atomic: int = 1
    max_dest_rd_atomic: int = 1
    is_global: bool | None = None   # None: global iff there is a dgid
    _ah: AH | None = dataclasses.field(default=None, repr=False,
                                       compare=False)

    # -- building -------------------------------------------------------
    @classmethod
    def from_qp(cls, qp: QP, ctx: Context | None = None, port_num: int = 1,
                gid_index: int | None = None, psn: int | None = None,
                **kw: Any) -> Self:
        """The local half of a path for qp: its QP number, a random PSN,
        the port's LID and (if gid_index, or the port is Ethernet) GID.
        ctx defaults to the QP's Context."""
        if ctx is None:
            ctx = _context_of(qp)
        port = ctx.query_port(port_num)
        if gid_index is None and \
                port.link_layer == e.IBV_LINK_LAYER_ETHERNET:
            gid_index = _roce_gid_index(ctx, port_num, port.gid_tbl_len)
        sgid = None
        if gid_index is not None:
            sgid = str(ctx.query_gid(port_num, gid_index))
        return cls(port_num=port_num, qp_type=qp.qp_type, sqpn=qp.qp_num,
                   sq_psn=random.getrandbits(24) if psn is None else psn,
                   sgid=sgid, sgid_index=gid_index or 0, slid=port.lid,
                   mtu=min(port.active_mtu, e.IBV_MTU_4096), **kw)

    def connect(self, remote: Path) -> Self:
        """Complete this local half with the peer's half (its from_qp)."""
        p = copy.copy(self)
        p._ah = None
        p.dqpn, p.rq_psn = remote.sqpn, remote.sq_psn
        p.dgid, p.dlid = remote.sgid, remote.slid
        p.mtu = min(self.mtu, remote.mtu)
        return p

    def reverse(self) -> Self:
        """The same path seen from the other end (its GID index is not
        known here: set sgid_index on the result if it is not 0)."""
        p = copy.copy(self)
        p._ah = None
        p.sqpn, p.dqpn = self.dqpn, self.sqpn
        p.sq_psn, p.rq_psn = self.rq_psn, self.sq_psn
        p.sgid, p.dgid = self.dgid, self.sgid
        p.slid, p.dlid = self.dlid, self.slid
        p.sgid_index = 0
        return p

    @classmethod
    def from_wc(cls, pd: PD, wc: WC, grh_addr: int, port_num: int = 1,
                qkey: int = DEFAULT_QKEY) -> Self:
        """The reply path of a UD datagram: wc is its WC, grh_addr the
        address of the 40-byte GRH at the start of its receive buffer.
        The path's AH is made from the WC and GRH (ibv_create_ah_from_wc)
        and cached; its dqpn is the sender's QP."""
        ah = AH(pd, wc=wc, grh=grh_addr, port_num=port_num)
        p = cls(port_num=port_num, qp_type=e.IBV_QPT_UD, dqpn=wc.src_qp,
                dlid=wc.slid, sl=wc.sl, qkey=qkey)
        p._ah = ah
        return p

    # -- using ----------------------------------------------------------
    @property
    def global_route(self) -> bool:
        return self.is_global if self.is_global is not None \
            else self.dgid is not None

    def ah_attr(self) -> AHAttr:
        """An AHAttr addressing the remote end."""
        kw: dict[str, Any] = dict(
            dlid=self.dlid, sl=self.sl, src_path_bits=self.src_path_bits,
            static_rate=self.static_rate, port_num=self.port_num)
        if self.global_route:
            kw.update(is_global=1, gr=GlobalRoute(
                dgid=GID(self.dgid), flow_label=self.flow_label,
                sgid_index=self.sgid_index, hop_limit=self.hop_limit,
                traffic_class=self.traffic_class))
        return AHAttr(**kw)

    def ah(self, pd: PD) -> AH:
        """The AH for the remote end, created once and cached (not
        pickled).  A cached AH of a closed PD is made again."""
        if self._ah is None or self._ah.closed:
            self._ah = AH(pd, attr=self.ah_attr())
        return self._ah

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state['_ah'] = None
        return state


def _context_of(qp: QP) -> Context:
    pd = getattr(qp, 'pd', None)
    ctx: Context | None = getattr(pd, 'ctx', None) if pd is not None \
        else None
    if ctx is None:
        ctx = getattr(qp, 'context', None) or getattr(qp, 'ctx', None)
    if ctx is None:
        raise ValueError('cannot find the Context of this QP: pass ctx=')
    return ctx


def _roce_gid_index(ctx: Context, port_num: int, tbl_len: int) -> int:
    """The first IPv4-mapped RoCEv2 GID, else the first non-zero GID."""
    first = None
    for idx in range(tbl_len):
        try:
            gid = str(ctx.query_gid(port_num, idx))
        except Exception:
            continue
        if set(gid) <= {'0', ':'}:
            continue
        if first is None:
            first = idx
        if gid.startswith('0000:0000:0000:0000:0000:ffff'):
            try:
                if ctx.query_gid_type(port_num, idx) != \
                        ROCE_V2_SYSFS:
                    continue
            except Exception:
                pass
            return idx
    if first is None:
        raise ValueError(f'port {port_num} has no usable GID')
    return first


def _qp_attr(state: int) -> QPAttr:
    from pyverbs.qp import QPAttr
    return QPAttr(qp_state=state)


def modify_to_init(qp: QP, path: Path, access: int | None = None) -> None:
    """RESET -> INIT with the path's port, P_Key index, access (RC/UC) or
    Q_Key (UD)."""
    attr = _qp_attr(e.IBV_QPS_INIT)
    attr.port_num = path.port_num
    attr.pkey_index = path.pkey_index
    mask = e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT
    if qp.qp_type == e.IBV_QPT_UD:
        attr.qkey = path.qkey
        mask |= e.IBV_QP_QKEY
    else:
        attr.qp_access_flags = path.access if access is None else access
        mask |= e.IBV_QP_ACCESS_FLAGS
    qp.modify(attr, mask)


def modify_to_rtr(qp: QP, path: Path) -> None:
    """INIT -> RTR: for RC/UC the remote QP, PSN, MTU and address."""
    attr = _qp_attr(e.IBV_QPS_RTR)
    mask = e.IBV_QP_STATE
    if qp.qp_type != e.IBV_QPT_UD:
        attr.ah_attr = path.ah_attr()
        attr.path_mtu = path.mtu
        attr.dest_qp_num = path.dqpn
        attr.rq_psn = path.rq_psn
        mask |= (e.IBV_QP_AV | e.IBV_QP_PATH_MTU | e.IBV_QP_DEST_QPN |
                 e.IBV_QP_RQ_PSN)
        if qp.qp_type == e.IBV_QPT_RC:
            attr.max_dest_rd_atomic = path.max_dest_rd_atomic
            attr.min_rnr_timer = path.min_rnr_timer
            mask |= e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER
    qp.modify(attr, mask)


def modify_to_rts(qp: QP, path: Path) -> None:
    """RTR -> RTS: the send PSN and, for RC, the retry parameters."""
    attr = _qp_attr(e.IBV_QPS_RTS)
    attr.sq_psn = path.sq_psn
    mask = e.IBV_QP_STATE | e.IBV_QP_SQ_PSN
    if qp.qp_type == e.IBV_QPT_RC:
        attr.timeout = path.timeout
        attr.retry_cnt = path.retry_cnt
        attr.rnr_retry = path.rnr_retry
        attr.max_rd_atomic = path.max_rd_atomic
        mask |= (e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
                 e.IBV_QP_RNR_RETRY | e.IBV_QP_MAX_QP_RD_ATOMIC)
    qp.modify(attr, mask)


def establish(qp: QP, path: Path, access: int | None = None) -> QP:
    """Move qp from RESET to RTS along path (INIT, RTR, RTS)."""
    modify_to_init(qp, path, access)
    modify_to_rtr(qp, path)
    modify_to_rts(qp, path)
    return qp
