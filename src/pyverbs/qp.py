# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Queue pairs: QPCap, QPInitAttr, QPInitAttrEx, QPAttr, ECE and QP.

The classes are implemented in C (pyverbs._verbs); this module adds the
printed formats of upstream pyverbs and a few pure-Python helpers.

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
from pyverbs._verbs import (QPCap, QPInitAttr, QPInitAttrEx, QPAttr, QP, QPEx,
                            ECE, DataBuffer, QPAttachCompCntrAttr)
from pyverbs.pyverbs_error import (PyverbsError, PyverbsRDMAError,
                                   PyverbsUserError)
from pyverbs._unimplemented import fill_missing

from pyverbs.utils import (gid_str, qp_type_to_str, qp_state_to_str,
                           mtu_to_str, access_flags_to_str, mig_state_to_str)

__all__ = ['QPCap', 'QPInitAttr', 'QPInitAttrEx', 'QPAttr', 'QP', 'QPEx',
           'ECE', 'DataBuffer', 'QPAttachCompCntrAttr']


def _cap_str(self):
    f = '{:20}: {:<20}\n'
    return f.format('max send wrs', self.max_send_wr) + \
        f.format('max recv wrs', self.max_recv_wr) + \
        f.format('max send sges', self.max_send_sge) + \
        f.format('max recv sges', self.max_recv_sge) + \
        f.format('max inline data', self.max_inline_data)


def _init_attr_str(self):
    f = '{:20}: {:<20}\n'
    i = '    {:20}: {:<20}\n'
    return f.format('QP type', qp_type_to_str(self.qp_type)) + \
        f.format('SQ sig. all', self.sq_sig_all) + \
        'QP caps:\n' + \
        i.format('max send WR', self.max_send_wr) + \
        i.format('max recv WR', self.max_recv_wr) + \
        i.format('max send SGE', self.max_send_sge) + \
        i.format('max recv SGE', self.max_recv_sge) + \
        i.format('max inline data', self.max_inline_data)


_COMP_MASKS = {1: 'PD', 2: 'XRCD', 4: 'Create Flags', 8: 'Max TSO header',
               16: 'Indirection Table', 32: 'RX hash'}
_CREATE_FLAGS = {1: 'Block self mcast loopback', 2: 'Scatter FCS',
                 4: 'CVLAN stripping', 8: 'Source QPN',
                 16: 'PCI write end padding'}


def _mask_to_str(self, mask):
    """The names of the IBV_QP_INIT_ATTR_* bits of mask, space-separated."""
    return ''.join(n + ' ' for f, n in _COMP_MASKS.items() if mask & f)


def _flags_to_str(self, flags):
    """The names of the IBV_QP_CREATE_* bits of flags, space-separated."""
    return ''.join(n + ' ' for f, n in _CREATE_FLAGS.items() if flags & f)


def _init_attr_ex_str(self):
    f = '{:20}: {:<20}\n'
    return f.format('QP type', qp_type_to_str(self.qp_type)) + \
        f.format('SQ sig. all', self.sq_sig_all) + \
        'QP caps:\n' + \
        f.format('  max send WR', self.max_send_wr) + \
        f.format('  max recv WR', self.max_recv_wr) + \
        f.format('  max send SGE', self.max_send_sge) + \
        f.format('  max recv SGE', self.max_recv_sge) + \
        f.format('  max inline data', self.max_inline_data) + \
        f.format('comp mask', self.mask_to_str(self.comp_mask)) + \
        f.format('create flags', self.flags_to_str(self.create_flags)) + \
        f.format('max TSO header', self.max_tso_header) + \
        f.format('Source QPN', self.source_qpn)


def _ah_lines(fields, ident, glob):
    (port_num, sl, src_path_bits, dlid, static_rate, is_global, dgid,
     flow_label, sgid_index, hop_limit, traffic_class) = fields
    s = ident.format('port num', port_num) + \
        ident.format('sl', sl) + \
        ident.format('source path bits', src_path_bits) + \
        ident.format('dlid', dlid) + \
        ident.format('port num', port_num) + \
        ident.format('static rate', static_rate) + \
        ident.format('is global', is_global)
    if is_global:
        h = dgid.hex()
        s += glob.format('dgid', ':'.join(h[i:i + 4]
                                          for i in range(0, 32, 4))) + \
            glob.format('flow label', flow_label) + \
            glob.format('sgid index', sgid_index) + \
            glob.format('hop limit', hop_limit) + \
            glob.format('traffic_class', traffic_class)
    return s


def _qp_attr_str(self):
    f = '{:22}: {:<20}\n'
    glob = '    {:22}: {:<20}\n'
    ident = '  {:22}: {:<20}\n'
    cap = self.cap
    return f.format('QP state', qp_state_to_str(self.qp_state)) + \
        f.format('QP current state', qp_state_to_str(self.cur_qp_state)) + \
        f.format('Path MTU', mtu_to_str(self.path_mtu)) + \
        f.format('Path mig. state', mig_state_to_str(self.path_mig_state)) + \
        f.format('QKey', self.qkey) + \
        f.format('RQ PSN', self.rq_psn) + \
        f.format('SQ PSN', self.sq_psn) + \
        f.format('Dest QP number', self.dest_qp_num) + \
        f.format('QP access flags',
                 access_flags_to_str(self.qp_access_flags)) + \
        'QP caps:\n' + \
        ident.format('max send WR', cap.max_send_wr) + \
        ident.format('max recv WR', cap.max_recv_wr) + \
        ident.format('max send SGE', cap.max_send_sge) + \
        ident.format('max recv SGE', cap.max_recv_sge) + \
        ident.format('max inline data', cap.max_inline_data) + \
        'AH Attr:\n' + _ah_lines(self._ah_fields(False), ident, glob) + \
        'Alt. AH Attr:\n' + _ah_lines(self._ah_fields(True), ident, glob) + \
        f.format('PKey index', self.pkey_index) + \
        f.format('Alt. PKey index', self.alt_pkey_index) + \
        f.format('En. SQD async notify', self.en_sqd_async_notify) + \
        f.format('SQ draining', self.sq_draining) + \
        f.format('Max RD atomic', self.max_rd_atomic) + \
        f.format('Max dest. RD atomic', self.max_dest_rd_atomic) + \
        f.format('Min RNR timer', self.min_rnr_timer) + \
        f.format('Port number', self.port_num) + \
        f.format('Timeout', self.timeout) + \
        f.format('Retry counter', self.retry_cnt) + \
        f.format('RNR retry', self.rnr_retry) + \
        f.format('Alt. port number', self.alt_port_num) + \
        f.format('Alt. timeout', self.alt_timeout) + \
        f.format('Rate limit', self.rate_limit)


def _ece_str(self):
    f = '{:22}: 0x{:<20x}\n'
    return 'ECE:\n' + f.format('Vendor ID', self.vendor_id) + \
        f.format('Options', self.options) + \
        f.format('Comp Mask', self.comp_mask)


def _qp_str(self):
    f = '{:22}: {:<20}\n'
    return f.format('QP type', qp_type_to_str(self.qp_type)) + \
        f.format('  number', self.qp_num) + \
        f.format('  state', qp_state_to_str(self.qp_state))


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

QPCap.__str__ = _cap_str
QPInitAttr.__str__ = _init_attr_str
QPInitAttrEx.__str__ = _init_attr_ex_str
QPInitAttrEx.mask_to_str = _mask_to_str
QPInitAttrEx.flags_to_str = _flags_to_str
QPAttr.__str__ = _qp_attr_str
ECE.__str__ = _ece_str
QP.__str__ = _qp_str

fill_missing(globals(), __name__)
