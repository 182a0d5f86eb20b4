# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The printed formats of the core's C types: upstream pyverbs' __str__
output, byte for byte, with the number-to-text helpers they use, and the
other methods Python gives those types (WC.__reduce__, SGE.__repr__, the
helpers the formats call on self).

The module ends with FORMATS, one table {native type: {attribute: value}};
install() sets a table's attributes on its types.  pyverbs/__init__.py
installs this table and the providers' (pyverbs.providers.mlx5._formats,
pyverbs.providers.efa._formats) once, where the native module is first
imported, so that every import path sees the formatted types.  The public
helpers are re-exported by the modules upstream has them in
(pyverbs.device.translate_mtu, pyverbs.cq.cqe_status_to_str, ...).
"""
from __future__ import annotations

import operator
import socket
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import pyverbs.enums as _e
from pyverbs import _verbs as _v
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.utils import (access_flags_to_str, gid_str, mig_state_to_str,
                           mtu_to_str, qp_state_to_str, qp_type_to_str)

if TYPE_CHECKING:
    from pyverbs._verbs import (CQ, CQEX, ECE, GRH, MR, MW, QP, SGE, WC,
                                AHAttr, AsyncEvent, ConnParam, CqInitAttrEx,
                                DeviceAttr, GIDEntry, GlobalRoute, ODPCaps,
                                PortAttr, QPAttr, QPCap, QPInitAttr,
                                QPInitAttrEx, RecvWR, SendWR, Spec)

# {native type: {attribute: value}}
Formats = Mapping[type, Mapping[str, object]]


def install(table: Formats) -> None:
    """Set the attributes of table on its types (each package's FORMATS;
    pyverbs/__init__.py calls it once for each)."""
    for cls, attrs in table.items():
        for name, value in attrs.items():
            setattr(cls, name, value)


# ---- pyverbs.device: numbers to text, as upstream prints them ----

_DEVICE_CAPS: dict[int, str] = dict(getattr(_v, '_DEVICE_CAP_NAMES'))
_PORT_CAPS: dict[int, str] = dict(getattr(_v, '_PORT_CAP_NAMES'))
_PORT_CAPS2: dict[int, str] = dict(getattr(_v, '_PORT_CAP2_NAMES'))
_ODP_GENERAL: dict[int, str] = dict(getattr(_v, '_ODP_GENERAL_NAMES'))
_ODP_TRANSPORT: dict[int, str] = dict(getattr(_v, '_ODP_TRANSPORT_NAMES'))
# newer than the rdma-core 44 headers the name table is made from (58):
# printed after the others, as upstream does
_ODP_TRANSPORT.update({1 << 6: 'IBV_ODP_SUPPORT_FLUSH',
                       1 << 7: 'IBV_ODP_SUPPORT_ATOMIC_WRITE'})
_EVENT_TYPES: dict[int, str] = dict(getattr(_v, '_EVENT_TYPE_NAMES'))
# Upstream prints this one with a leading dot; kept for identical output.
_EVENT_TYPES[16] = '.' + _EVENT_TYPES[16]
# newer than the rdma-core 44 headers the name table is made from (62)
_EVENT_TYPES.setdefault(20, 'IBV_EVENT_DEVICE_SPEED_CHANGE')


def _be64toh(num: int) -> int:
    """Byte-swap a 64-bit unsigned value (the host is little endian on
    every platform rdma-core's pyverbs supports; so is be64toh here)."""
    num = operator.index(num)
    return int.from_bytes(num.to_bytes(8, 'little'), 'big')


def translate_gid_type(gid_type: int) -> str:
    types = {0: 'IB', 1: 'RoCEv1', 2: 'RoCEv2'}
    try:
        return types[gid_type]
    except KeyError:
        return f'Unknown gid_type ({gid_type})'


def guid_format(num: int) -> str:
    """
    A GUID as printed by upstream: the 64-bit value (network order, as in
    DeviceAttr.node_guid) as 'xxxx:xxxx:xxxx:xxxx'.
    """
    hex_str = '%016x' % _be64toh(num)
    return ':'.join(hex_str[i:i + 4] for i in range(0, 16, 4))


def translate_transport_type(transport_type: int) -> str:
    types = {0: 'IB', 1: 'IWARP', 2: 'USNIC', 3: 'USNIC UDP'}
    try:
        return types[transport_type]
    except KeyError:
        return 'Unknown'


def translate_node_type(node_type: int) -> str:
    types = {1: 'CA', 2: 'Switch', 3: 'Router', 4: 'RNIC', 5: 'USNIC',
             6: 'USNIC UDP'}
    try:
        return types[node_type]
    except KeyError:
        return 'Unknown'


def guid_to_hex(node_guid: int) -> str:
    return hex(node_guid).replace('L', '').replace('0x', '')


def port_state_to_str(port_state: int) -> str:
    states = {0: 'NOP', 1: 'Down', 2: 'Init', 3: 'Armed', 4: 'Active',
              5: 'Defer'}
    try:
        return '{s} ({n})'.format(s=states[port_state], n=port_state)
    except KeyError:
        return 'Invalid state ({s})'.format(s=port_state)


def translate_mtu(mtu: int) -> str:
    mtus = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}
    try:
        return '{s} ({n})'.format(s=mtus[mtu], n=mtu)
    except KeyError:
        return 'Invalid MTU ({m})'.format(m=mtu)


def translate_link_layer(ll: int) -> str:
    layers = {0: 'Unspecified', 1: 'InfiniBand', 2: 'Ethernet'}
    try:
        return layers[ll]
    except KeyError:
        return 'Invalid link layer ({ll})'.format(ll=ll)


def translate_port_cap_flags(flags: int) -> str:
    return str_from_flags(flags, _PORT_CAPS)


def translate_port_cap_flags2(flags: int) -> str:
    return str_from_flags(flags, _PORT_CAPS2)


def translate_device_caps(flags: int) -> str:
    return str_from_flags(flags, _DEVICE_CAPS)


def str_from_flags(flags: int, dictionary: Mapping[int, str]) -> str:
    """The names of the bits of flags found in dictionary ({bit: name}),
    each on a new line indented by two spaces, as upstream prints them."""
    str_flags = '\n  '
    for bit in dictionary:
        if flags & bit:
            str_flags += dictionary[bit]
            str_flags += '\n  '
    return str_flags


def phys_state_to_str(phys: int) -> str:
    states = {1: 'Sleep', 2: 'Polling', 3: 'Disabled',
              4: 'Port configuration training', 5: 'Link up',
              6: 'Link error recovery', 7: 'Phy test'}
    try:
        return '{s} ({n})'.format(s=states[phys], n=phys)
    except KeyError:
        return 'Invalid physical state'


def width_to_str(width: int) -> str:
    widths = {1: '1X', 2: '4X', 4: '8X', 8: '12X', 16: '2X'}
    try:
        return '{s} ({n})'.format(s=widths[width], n=width)
    except KeyError:
        return 'Invalid width'


def speed_to_str(active_speed: int, active_speed_ex: int = 0) -> str:
    """The port speed as upstream prints it: active_speed_ex (PortAttr's,
    rdma-core 49 and later) when it is not 0, else active_speed.  The
    second argument is optional here (upstream 65 requires it, 44 had
    only the first)."""
    speed = active_speed_ex or active_speed
    speeds = {0: '0.0 Gbps', 1: '2.5 Gbps', 2: '5.0 Gbps', 4: '5.0 Gbps',
              8: '10.0 Gbps', 16: '14.0 Gbps', 32: '25.0 Gbps',
              64: '50.0 Gbps', 128: '100.0 Gbps', 256: '200.0 Gbps'}
    try:
        return '{s} ({n})'.format(s=speeds[speed], n=speed)
    except KeyError:
        return 'Invalid speed'


def translate_event_type(event_type: int) -> str:
    try:
        return _EVENT_TYPES[event_type]
    except KeyError:
        return f'Unknown event_type ({event_type})'


# ---- pyverbs.device: printed formats ----

def _device_attr_str(self: DeviceAttr) -> str:
    f = '{:<22}: {:<20}\n'
    return f.format('FW version', self.fw_version) +\
        f.format('Node guid', guid_format(self.node_guid)) +\
        f.format('Sys image GUID', guid_format(self.sys_image_guid)) +\
        f.format('Max MR size', hex(self.max_mr_size)) +\
        f.format('Page size cap', hex(self.page_size_cap)) +\
        f.format('Vendor ID', hex(self.vendor_id)) +\
        f.format('Vendor part ID', self.vendor_part_id) +\
        f.format('HW version', self.hw_ver) +\
        f.format('Max QP', self.max_qp) +\
        f.format('Max QP WR', self.max_qp_wr) +\
        f.format('Device cap flags',
                 translate_device_caps(self.device_cap_flags)) +\
        f.format('Max SGE', self.max_sge) +\
        f.format('Max SGE RD', self.max_sge_rd) +\
        f.format('MAX CQ', self.max_cq) +\
        f.format('Max CQE', self.max_cqe) +\
        f.format('Max MR', self.max_mr) +\
        f.format('Max PD', self.max_pd) +\
        f.format('Max QP RD atom', self.max_qp_rd_atom) +\
        f.format('Max EE RD atom', self.max_ee_rd_atom) +\
        f.format('Max res RD atom', self.max_res_rd_atom) +\
        f.format('Max QP init RD atom', self.max_qp_init_rd_atom) +\
        f.format('Max EE init RD atom', self.max_ee_init_rd_atom) +\
        f.format('Atomic caps', self.atomic_caps) +\
        f.format('Max EE', self.max_ee) +\
        f.format('Max RDD', self.max_rdd) +\
        f.format('Max MW', self.max_mw) +\
        f.format('Max raw IPv6 QPs', self.max_raw_ipv6_qps) +\
        f.format('Max raw ethy QP', self.max_raw_ethy_qp) +\
        f.format('Max mcast group', self.max_mcast_grp) +\
        f.format('Max mcast QP attach', self.max_mcast_qp_attach) +\
        f.format('Max AH', self.max_ah) +\
        f.format('Max FMR', self.max_fmr) +\
        f.format('Max map per FMR', self.max_map_per_fmr) +\
        f.format('Max SRQ', self.max_srq) +\
        f.format('Max SRQ WR', self.max_srq_wr) +\
        f.format('Max SRQ SGE', self.max_srq_sge) +\
        f.format('Max PKeys', self.max_pkeys) +\
        f.format('local CA ack delay', self.local_ca_ack_delay) +\
        f.format('Phys port count', self.phys_port_cnt)


def _odp_caps_str(self: ODPCaps) -> str:
    f = '{}: {}\n'
    return f.format('ODP General caps',
                    str_from_flags(self.general_caps, _ODP_GENERAL)) +\
        f.format('RC ODP caps', str_from_flags(self.rc_odp_caps,
                                               _ODP_TRANSPORT)) +\
        f.format('UD ODP caps', str_from_flags(self.ud_odp_caps,
                                               _ODP_TRANSPORT)) +\
        f.format('UC ODP caps', str_from_flags(self.uc_odp_caps,
                                               _ODP_TRANSPORT)) +\
        f.format('XRC ODP caps', str_from_flags(self.xrc_odp_caps,
                                                _ODP_TRANSPORT))


def _port_attr_str(self: PortAttr) -> str:
    f = '{:<24}: {:<20}\n'
    return f.format('Port state', port_state_to_str(self.state)) +\
        f.format('Max MTU', translate_mtu(self.max_mtu)) +\
        f.format('Active MTU', translate_mtu(self.active_mtu)) +\
        f.format('SM lid', self.sm_lid) +\
        f.format('Port lid', self.lid) +\
        f.format('lmc', hex(self.lmc)) +\
        f.format('Link layer', translate_link_layer(self.link_layer)) +\
        f.format('Max message size', hex(self.max_msg_sz)) +\
        f.format('Port cap flags',
                 translate_port_cap_flags(self.port_cap_flags)) +\
        f.format('Port cap flags 2',
                 translate_port_cap_flags2(self.port_cap_flags2)) +\
        f.format('max VL num', self.max_vl_num) +\
        f.format('Bad Pkey counter', self.bad_pkey_cntr) +\
        f.format('Qkey violations counter', self.qkey_viol_cntr) +\
        f.format('GID table len', self.gid_tbl_len) +\
        f.format('Pkey table len', self.pkey_tbl_len) +\
        f.format('SM sl', self.sm_sl) +\
        f.format('Subnet timeout', self.subnet_timeout) +\
        f.format('Init type reply', self.init_type_reply) +\
        f.format('Active width', width_to_str(self.active_width)) +\
        f.format('Active speed', speed_to_str(self.active_speed,
                                              self.active_speed_ex)) +\
        f.format('Phys state', phys_state_to_str(self.phys_state)) +\
        f.format('Flags', self.flags)


def _gid_entry_gid_str(self: GIDEntry) -> str:
    """The GID as 'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx'."""
    return gid_str(self.gid_subnet_prefix, self.gid_interface_id)


def _gid_entry_str(self: GIDEntry) -> str:
    f = '{:<24}: {:<20}\n'
    return f.format('GID', self.gid_str()) +\
        f.format('GID Index', self.gid_index) +\
        f.format('Port number', self.port_num) +\
        f.format('GID type', translate_gid_type(self.gid_type)) +\
        f.format('Ndev ifindex', self.ndev_ifindex)


def _async_event_str(self: AsyncEvent) -> str:
    f = '{:<24}: {:<20}\n'
    return f.format('Event Type', translate_event_type(self.event_type))


# ---- pyverbs.cq ----

_FMT = '{:22}: {:<20}\n'

# enum ibv_wc_status -> upstream's text (rdma-core v44 pyverbs)
_WC_STATUS = {
    0: 'success',
    1: 'local length error',
    2: 'local QP op error',
    3: 'local EEC op error',
    4: 'local protection error',
    5: 'WR flush error',
    6: 'memory window bind error',
    7: 'bad response error',
    8: 'local access error',
    9: 'remote invalidate request error',
    10: 'remote access error',
    11: 'remote op error',
    12: 'retry exceeded error',
    13: 'RNR retry exceeded',
    14: 'local RDD violation error',
    15: 'remote invalidate RD request error',
    16: 'remote abort error',
    17: 'invalidate EECN error',
    18: 'invalidate EEC state error',
    19: 'WC fatal error',
    20: 'response timeout error',
    21: 'general error',
}

# enum ibv_wc_opcode -> text
_WC_OPCODE = {
    0x0: 'Send', 0x1: 'RDMA write', 0x2: 'RDMA read',
    0x3: 'Compare and swap', 0x4: 'Fetch and add',
    0x5: 'Bind Memory window', 0x6: 'Local invalidate',
    0x7: 'TSO', 0x80: 'Receive',
    0x81: 'Receive RDMA with immediate',
    0x82: 'Tag matching - add', 0x83: 'Tag matching - delete',
    0x84: 'Tag matching - sync', 0x85: 'Tag matching - receive',
    0x86: 'Tag matching - no tag',
}

# enum ibv_wc_flags -> text
_WC_FLAGS = {1: 'GRH', 2: 'With immediate', 4: 'IP csum OK',
             8: 'With invalidate', 16: 'TM sync request', 32: 'TM match',
             64: 'TM data valid'}

# enum ibv_create_cq_wc_flags -> name.  As in rdma-core v44, TM_INFO (1 << 10)
# is not listed.
_CREATE_WC_FLAGS = {
    1 << 0: 'IBV_WC_EX_WITH_BYTE_LEN',
    1 << 1: 'IBV_WC_EX_WITH_IMM',
    1 << 2: 'IBV_WC_EX_WITH_QP_NUM',
    1 << 3: 'IBV_WC_EX_WITH_SRC_QP',
    1 << 4: 'IBV_WC_EX_WITH_SLID',
    1 << 5: 'IBV_WC_EX_WITH_SL',
    1 << 6: 'IBV_WC_EX_WITH_DLID_PATH_BITS',
    1 << 7: 'IBV_WC_EX_WITH_COMPLETION_TIMESTAMP',
    1 << 8: 'IBV_WC_EX_WITH_CVLAN',
    1 << 9: 'IBV_WC_EX_WITH_FLOW_TAG',
    1 << 11: 'IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK',
}


def cqe_status_to_str(status: int) -> str:
    """Text of a work completion status (enum ibv_wc_status)."""
    return _WC_STATUS.get(status, 'Unknown CQE status')


def cqe_opcode_to_str(opcode: int) -> str:
    """Text of a work completion opcode (enum ibv_wc_opcode)."""
    try:
        return _WC_OPCODE[opcode]
    except KeyError:
        return f'Unknown CQE opcode {opcode}'


def flags_to_str(flags: int, dictionary: dict[int, str]) -> str:
    """The names of the bits of flags found in dictionary {bit: name}, each
    followed by a space."""
    return ''.join(name + ' ' for bit, name in dictionary.items()
                   if flags & bit)


def cqe_flags_to_str(flags: int) -> str:
    """Text of the flags of a work completion (enum ibv_wc_flags)."""
    return flags_to_str(flags, _WC_FLAGS)


def create_wc_flags_to_str(flags: int) -> str:
    """Names of the WC fields requested from an extended CQ
    (enum ibv_create_cq_wc_flags)."""
    return flags_to_str(flags, _CREATE_WC_FLAGS)


def _cq_str(self: CQ) -> str:
    return 'CQ\n' + _FMT.format('Handle', self.handle) + \
        _FMT.format('CQEs', self.cqe)


def _cqex_str(self: CQEX) -> str:
    return 'Extended CQ:\n' + _FMT.format('Handle', self.handle) + \
        _FMT.format('CQEs', self.cqe)


def _cq_init_attr_ex_str(self: CqInitAttrEx) -> str:
    return _FMT.format('Number of CQEs', self.cqe) + \
        _FMT.format('WC flags', create_wc_flags_to_str(self.wc_flags)) + \
        _FMT.format('comp mask', self.comp_mask) + \
        _FMT.format('flags', self.flags)


def _wc_str(self: WC) -> str:
    return _FMT.format('WR ID', self.wr_id) + \
        _FMT.format('status', cqe_status_to_str(self.status)) + \
        _FMT.format('opcode', cqe_opcode_to_str(self.opcode)) + \
        _FMT.format('vendor error', self.vendor_err) + \
        _FMT.format('byte length', self.byte_len) + \
        _FMT.format('QP num', self.qp_num) + \
        _FMT.format('source QP', self.src_qp) + \
        _FMT.format('WC flags', cqe_flags_to_str(self.wc_flags)) + \
        _FMT.format('pkey index', self.pkey_index) + \
        _FMT.format('slid', self.slid) + \
        _FMT.format('sl', self.sl) + \
        _FMT.format('imm_data', self.imm_data) + \
        _FMT.format('dlid path bits', self.dlid_path_bits)


def _wc_reduce(self: WC) -> tuple[type[WC], tuple[int, ...]]:
    return (_v.WC, (self.wr_id, self.status, self.opcode, self.vendor_err,
                    self.byte_len, self.qp_num, self.src_qp, self.imm_data,
                    self.wc_flags, self.pkey_index, self.slid, self.sl,
                    self.dlid_path_bits))


# ---- pyverbs.mr ----

def _mr_str(self: MR) -> str:
    fmt = '{:22}: {:<20}\n'
    return ('MR\n' + fmt.format('lkey', self.lkey) +
            fmt.format('rkey', self.rkey) +
            fmt.format('length', self.length) +
            fmt.format('buf', self.buf) +
            fmt.format('handle', self.handle))


def mwtype2str(mw_type: int) -> str:
    return {1: 'IBV_MW_TYPE_1', 2: 'IBV_MW_TYPE_2'}.get(
        mw_type, f'Unknown MW type ({mw_type})')


def _mw_str(self: MW) -> str:
    fmt = '{:22}: {:<20}\n'
    return ('MW\n' + fmt.format('Rkey', self.rkey) +
            fmt.format('Handle', self.handle) +
            fmt.format('MW Type', mwtype2str(self.type)))


# ---- pyverbs.wr ----

# enum ibv_send_flags, in upstream's printing order
_SEND_FLAGS = ((1 << 0, 'IBV_SEND_FENCE'),
               (1 << 1, 'IBV_SEND_SIGNALED'),
               (1 << 2, 'IBV_SEND_SOLICITED'),
               (1 << 3, 'IBV_SEND_INLINE'),
               (1 << 4, 'IBV_SEND_IP_CSUM'))


def send_flags_to_str(flags: int) -> str:
    """Names of the IBV_SEND_* flags set in flags, each followed by a
    space (upstream's format)."""
    return ''.join(name + ' ' for bit, name in _SEND_FLAGS if flags & bit)


def _sge_str(self: SGE) -> str:
    return (_FMT.format('Address', hex(self.addr)) +
            _FMT.format('Length', self.length) +
            _FMT.format('Key', hex(self.lkey)))


def _sge_repr(self: SGE) -> str:
    return (f'{type(self).__name__}(addr={self.addr:#x}, '
            f'length={self.length}, lkey={self.lkey:#x})')


def _recv_wr_str(self: RecvWR) -> str:
    return _FMT.format('WR ID', self.wr_id) + \
           _FMT.format('Num SGE', self.num_sge)


def _send_wr_str(self: SendWR) -> str:
    # Upstream's format, including its misplaced parenthesis: the 'Imm Data'
    # line is formatted into the 'Send flags' value.
    return _FMT.format('WR ID', self.wr_id) + \
           _FMT.format('Num SGE', self.num_sge) + \
           _FMT.format('Opcode', self.opcode) + \
           _FMT.format('Send flags',
                       send_flags_to_str(self.send_flags) +
                       _FMT.format('Imm Data', self.imm_data))


# ---- pyverbs.qp ----

def _cap_str(self: QPCap) -> str:
    f = '{:20}: {:<20}\n'
    return f.format('max send wrs', self.max_send_wr) + \
        f.format('max recv wrs', self.max_recv_wr) + \
        f.format('max send sges', self.max_send_sge) + \
        f.format('max recv sges', self.max_recv_sge) + \
        f.format('max inline data', self.max_inline_data)


def _init_attr_str(self: QPInitAttr) -> str:
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


def _mask_to_str(self: QPInitAttrEx, mask: int) -> str:
    """The names of the IBV_QP_INIT_ATTR_* bits of mask, space-separated."""
    return ''.join(n + ' ' for f, n in _COMP_MASKS.items() if mask & f)


def _flags_to_str(self: QPInitAttrEx, flags: int) -> str:
    """The names of the IBV_QP_CREATE_* bits of flags, space-separated."""
    return ''.join(n + ' ' for f, n in _CREATE_FLAGS.items() if flags & f)


def _init_attr_ex_str(self: QPInitAttrEx) -> str:
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


def _ah_lines(fields: tuple[int, int, int, int, int, int, bytes, int, int,
                            int, int], ident: str, glob: str) -> str:
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


def _qp_attr_str(self: QPAttr) -> str:
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


def _ece_str(self: ECE) -> str:
    f = '{:22}: 0x{:<20x}\n'
    return 'ECE:\n' + f.format('Vendor ID', self.vendor_id) + \
        f.format('Options', self.options) + \
        f.format('Comp Mask', self.comp_mask)


def _qp_str(self: QP) -> str:
    f = '{:22}: {:<20}\n'
    return f.format('QP type', qp_type_to_str(self.qp_type)) + \
        f.format('  number', self.qp_num) + \
        f.format('  state', qp_state_to_str(self.qp_state))


# ---- pyverbs.addr ----

_AH_FMT = '  {:22}: {:<20}\n'


def _grh_str(self: GRH) -> str:
    return (_FMT.format('DGID', self.dgid) +
            _FMT.format('SGID', self.sgid) +
            _FMT.format('version tclass flow', self.version_tclass_flow) +
            _FMT.format('paylen', self.paylen) +
            _FMT.format('next header', self.next_hdr) +
            _FMT.format('hop limit', self.hop_limit))


def _gr_str(self: GlobalRoute) -> str:
    return (_FMT.format('DGID', self.dgid) +
            _FMT.format('flow label', self.flow_label) +
            _FMT.format('sgid index', self.sgid_index) +
            _FMT.format('hop limit', self.hop_limit) +
            _FMT.format('traffic class', self.traffic_class))


def _ah_attr_str(self: AHAttr) -> str:
    out = (_AH_FMT.format('port num', self.port_num) +
           _AH_FMT.format('sl', self.sl) +
           _AH_FMT.format('source path bits', self.src_path_bits) +
           _AH_FMT.format('dlid', self.dlid) +
           _AH_FMT.format('static rate', self.static_rate) +
           _AH_FMT.format('is global', self.is_global))
    if self.is_global:
        out += (_AH_FMT.format('dgid', self.dgid) +
                _AH_FMT.format('flow label', self.flow_label) +
                _AH_FMT.format('sgid index', self.sgid_index) +
                _AH_FMT.format('hop limit', self.hop_limit) +
                _AH_FMT.format('traffic_class', self.traffic_class))
    return out


# ---- pyverbs.spec ----

_TYPES: dict[int, str] = {
    _e.IBV_FLOW_SPEC_ETH: 'IBV_FLOW_SPEC_ETH',
    _e.IBV_FLOW_SPEC_IPV4_EXT: 'IBV_FLOW_SPEC_IPV4_EXT',
    _e.IBV_FLOW_SPEC_IPV6: 'IBV_FLOW_SPEC_IPV6',
    _e.IBV_FLOW_SPEC_TCP: 'IBV_FLOW_SPEC_TCP',
    _e.IBV_FLOW_SPEC_UDP: 'IBV_FLOW_SPEC_UDP'}


def _type_to_str(spec_type: int) -> str:
    """'IBV_FLOW_SPEC_ETH', prefixed by 'IBV_FLOW_SPEC_INNER ' for an inner
    spec."""
    prefix = ''
    if spec_type & _e.IBV_FLOW_SPEC_INNER:
        prefix = 'IBV_FLOW_SPEC_INNER '
    s_type = spec_type & ~_e.IBV_FLOW_SPEC_INNER
    try:
        return prefix + _TYPES[s_type]
    except KeyError:
        raise PyverbsError(f'This type {s_type} is not implemented yet') \
            from None


def _head(self: Spec) -> str:
    return f"{'Spec type':<16}: {self.type_to_str(self.spec_type):<20}\n" \
           f"{'Size':<16}: {self.size:<20}\n"


def _same(x: int | str) -> int | str:
    return x


# (label, field, conversion of the field and of its mask)
_Rows = tuple[tuple[str, str, Callable[[int], int | str]], ...]


def _printer(rows: _Rows) -> Callable[[Spec], str]:
    """A __str__: the header, then for each (label, field, conv) of rows
    conv() of the field and of its mask, in upstream's columns."""
    def __str__(self: Spec) -> str:
        return _head(self) + ''.join(
            f'{label:<16}: {conv(getattr(self, f)):<20} '
            f'{conv(getattr(self, f + "_mask")):<20}\n'
            for label, f, conv in rows)
    return __str__


_IP_ROWS: _Rows = (('Src IP', 'src_ip', _same), ('Dst IP', 'dst_ip', _same))
# upstream prints EthSpec's ether type and VLAN tag as stored: network order
_eth_str = _printer((('Src mac', 'src_mac', _same),
                     ('Dst mac', 'dst_mac', _same),
                     ('Ether type', 'ether_type', socket.htons),
                     ('Vlan tag', 'vlan_tag', socket.htons)))
_ipv4_str = _printer(_IP_ROWS + (
    ('Proto', 'proto', _same), ('ToS', 'tos', _same),
    ('TTL', 'ttl', _same), ('Flags', 'flags', _same)))
_ipv6_str = _printer(_IP_ROWS + (
    ('Flow label', 'flow_label', _same), ('Next header', 'next_hdr', _same),
    ('Traffic class', 'traffic_class', _same),
    ('Hop limit', 'hop_limit', _same)))
_tcp_udp_str = _printer((('Src port', 'src_port', _same),
                         ('Dst port', 'dst_port', _same)))


# ---- pyverbs.cmid ----

def _conn_param_str(self: ConnParam) -> str:
    fmt = '{:<4}: {:<4}\n'
    return ('{}: {}\n'.format('Connection parameters', '') +
            fmt.format('responder resources', self.responder_resources) +
            fmt.format('initiator depth', self.initiator_depth) +
            fmt.format('flow control', self.flow_control) +
            fmt.format('retry count', self.retry_count) +
            fmt.format('rnr retry count', self.rnr_retry_count) +
            fmt.format('srq', self.srq) +
            fmt.format('qp number', self.qpn))


# ---- the table ----

FORMATS: dict[type, dict[str, object]] = {
    # pyverbs.device
    _v.DeviceAttr: {'__str__': _device_attr_str},
    _v.ODPCaps: {'__str__': _odp_caps_str},
    _v.PortAttr: {'__str__': _port_attr_str},
    _v.GIDEntry: {'__str__': _gid_entry_str, 'gid_str': _gid_entry_gid_str},
    _v.AsyncEvent: {'__str__': _async_event_str},
    # pyverbs.cq
    _v.CQ: {'__str__': _cq_str},
    _v.CQEX: {'__str__': _cqex_str},
    _v.CqInitAttrEx: {'__str__': _cq_init_attr_ex_str},
    _v.WC: {'__str__': _wc_str, '__reduce__': _wc_reduce},
    # pyverbs.mr
    _v.MR: {'__str__': _mr_str},
    _v.MW: {'__str__': _mw_str},
    # pyverbs.wr
    _v.SGE: {'__str__': _sge_str, '__repr__': _sge_repr},
    _v.RecvWR: {'__str__': _recv_wr_str},
    _v.SendWR: {'__str__': _send_wr_str},
    # pyverbs.qp
    _v.QPCap: {'__str__': _cap_str},
    _v.QPInitAttr: {'__str__': _init_attr_str},
    _v.QPInitAttrEx: {'__str__': _init_attr_ex_str,
                      'mask_to_str': _mask_to_str,
                      'flags_to_str': _flags_to_str},
    _v.QPAttr: {'__str__': _qp_attr_str},
    _v.ECE: {'__str__': _ece_str},
    _v.QP: {'__str__': _qp_str},
    # pyverbs.addr
    _v.GRH: {'__str__': _grh_str},
    _v.GlobalRoute: {'__str__': _gr_str},
    _v.AHAttr: {'__str__': _ah_attr_str},
    # pyverbs.spec
    _v.Spec: {'__str__': _head, 'type_to_str': staticmethod(_type_to_str)},
    _v.EthSpec: {'__str__': _eth_str},
    _v.Ipv4ExtSpec: {'__str__': _ipv4_str},
    _v.Ipv6Spec: {'__str__': _ipv6_str},
    _v.TcpUdpSpec: {'__str__': _tcp_udp_str},
}
# pyverbs.cmid, in a build with librdmacm
if getattr(_v, '_HAVE_RDMACM', 0):
    FORMATS[_v.ConnParam] = {'__str__': _conn_param_str}
