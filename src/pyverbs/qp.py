# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Queue pairs: QPCap, QPInitAttr, QPInitAttrEx, QPAttr, ECE, QPRateLimitAttr
and QP.

The classes are implemented in C (pyverbs._verbs), the printed formats of
upstream pyverbs in pyverbs._formats; this module adds a few pure-Python
helpers.

Differences from upstream pyverbs, all additive:

- QPAttr accepts every field of struct ibv_qp_attr as a keyword argument
  (QPAttr(qp_state=..., dest_qp_num=..., rq_psn=..., ah_attr=...)), and
  QPInitAttr/QPInitAttrEx accept the capability fields (max_send_wr, ...).
- QP.post_send()/post_recv() also take a list (or tuple) of WRs, posted in
  one call; a failure carries bad_wr_index, the position of the failing WR.
- QP.establish(remote_qpn, remote_psn, ah_attr, local_psn=...) moves a QP
  to RTS in one call, for a connection set up over any side channel.
- QPAttr.alt_ah_attr reads back the alternate path's own port_num
  (upstream returns the primary path's).
- query() returns a QPInitAttr naming the QP's CQs and SRQ (upstream:
  None); QP.srq is the SRQ the QP receives from.
- The SRQ, XRCD, PD and CQs of the init attributes are checked open and of
  the QP's Context at creation; the QP is their child (closing any of them
  closes the QP first).
- QPEx refuses what would crash or hang upstream: a builder the QP was not
  created for, a call outside wr_start()..wr_complete(), a second
  wr_start(), an AH closed before wr_complete(); inline data and TSO
  headers are copied from their address through a fault-safe read.
- An RSS QP (comp_mask IBV_QP_INIT_ATTR_IND_TABLE / _RX_HASH) needs the
  ind_table / hash_conf the mask names, and no CQ; its RwqIndTable must be
  open and of the QP's Context, and becomes a parent of the QP.  The
  RxHashConf is read when the QP is created (upstream: when the
  QPInitAttrEx is made).  QPEx.ind_table is the table (None once closed).
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs._verbs import (QPCap, QPInitAttr, QPInitAttrEx, QPAttr, QP, QPEx,
                            ECE, DataBuffer, QPRateLimitAttr,
                            QPAttachCompCntrAttr)
from pyverbs.pyverbs_error import (PyverbsError, PyverbsRDMAError,
                                   PyverbsUserError)
from pyverbs._unimplemented import fill_missing

from pyverbs.utils import (gid_str, qp_type_to_str,  # noqa: F401
                           qp_state_to_str, mtu_to_str, access_flags_to_str,
                           mig_state_to_str)

__all__ = ['QPCap', 'QPInitAttr', 'QPInitAttrEx', 'QPAttr', 'QP', 'QPEx',
           'ECE', 'DataBuffer', 'QPRateLimitAttr',
           'QPAttachCompCntrAttr']


_CONNECTED = (2, 3, 9, 10)       # RC, UC, XRC_SEND, XRC_RECV
_DEFAULT_ACCESS = 1 | 2 | 4     # local write, remote write, remote read


def _establish(self, remote_qpn=0, remote_psn=0, ah_attr=None, *,
               local_psn=0, port_num=1, path_mtu=3, pkey_index=0, qkey=0,
               qp_access_flags=_DEFAULT_ACCESS, max_rd_atomic=1,
               max_dest_rd_atomic=1, min_rnr_timer=12, timeout=14,
               retry_cnt=7, rnr_retry=7):
    """Move the QP from RESET or INIT to RTS in one call, without a CM.

    For RC/UC/XRC QPs, give the peer's QP number and starting PSN and
    ah_attr, an AHAttr addressing the peer (with a GRH on RoCE); local_psn
    is the PSN this side starts sending with (the peer's remote_psn).  For
    UD and raw packet QPs only qkey/local_psn matter.  The other keywords
    are the QPAttr fields of upstream's to_init/to_rtr/to_rts masks, with
    the values of ibv_rc_pingpong (path_mtu=IBV_MTU_1024).  The numbers to
    exchange over any side channel are qp.qp_num, the PSN and the GID.
    """
    attr = QPAttr(port_num=port_num, path_mtu=path_mtu,
                  pkey_index=pkey_index, qkey=qkey,
                  qp_access_flags=qp_access_flags, sq_psn=local_psn,
                  rq_psn=remote_psn, dest_qp_num=remote_qpn,
                  max_rd_atomic=max_rd_atomic,
                  max_dest_rd_atomic=max_dest_rd_atomic,
                  min_rnr_timer=min_rnr_timer, timeout=timeout,
                  retry_cnt=retry_cnt, rnr_retry=rnr_retry)
    if self.qp_type in _CONNECTED:
        if ah_attr is None:
            raise PyverbsUserError('establish() needs ah_attr (the path '
                                   'to the peer) for a connected QP')
        attr.ah_attr = ah_attr
    self.to_rts(attr)


_establish.__name__ = 'establish'
_establish.__qualname__ = 'QP.establish'
QP.establish = _establish

fill_missing(globals(), __name__)
