# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The printed formats of the mlx5 C types (upstream pyverbs' __str__
output) and the mlx5dv *_to_str helpers they use, which
pyverbs.providers.mlx5.mlx5dv re-exports.  The module ends with FORMATS,
the mlx5 table {native type: {attribute: value}}, which pyverbs/__init__.py
installs with pyverbs._formats.install() (empty in a build without
libmlx5).

Upstream prints the WQE segment fields and the CQE members as stored in
memory (big-endian), not converted like the properties: raw() gives that
value back from the host-order property value."""
from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pyverbs.enums as _e
import pyverbs.providers.mlx5.mlx5_enums as _dve
from pyverbs import _verbs as _v

if TYPE_CHECKING:
    from pyverbs._verbs import (Mlx5CQ, Mlx5Cqe64, Mlx5CryptoAttr,
                                Mlx5CryptoExtLoginAttr, Mlx5CryptoLoginAttr,
                                Mlx5DCIStreamInitAttr, Mlx5DEKInitAttr,
                                Mlx5DVContext, Mlx5DVContextAttr,
                                Mlx5DVCQInitAttr, Mlx5DVDCInitAttr,
                                Mlx5DVPortAttr, Mlx5DVQPInitAttr,
                                Mlx5dvSchedAttr, Mlx5dvSchedLeaf,
                                Mlx5dvSchedNode, Mlx5UAR, Mlx5UMEM, Mlx5VAR,
                                WqeCtrlSeg, WqeDataSeg)

_ROW = '{:20}: {:<20}\n'
_SUBROW = '  {:20}: {:<20}\n'


# ---- mlx5dv: numbers to text ----

def qpts_to_str(qp_types: int) -> str:
    """The QP types of a supported_qpts mask (bit 1 << IBV_QPT_x), as
    upstream prints them: 'RC, UD (36)'."""
    names = {_e.IBV_QPT_RC: 'RC', _e.IBV_QPT_UC: 'UC', _e.IBV_QPT_UD: 'UD',
             _e.IBV_QPT_RAW_PACKET: 'Raw Packet',
             _e.IBV_QPT_XRC_SEND: 'XRC Send',
             _e.IBV_QPT_XRC_RECV: 'XRC Recv',
             _e.IBV_QPT_DRIVER: 'Driver QPT'}
    out, left = [], qp_types
    for qpt, name in names.items():
        if (1 << qpt) & left:
            out.append(name)
            # upstream subtracts the type, not its bit: kept for output
            # parity
            left -= qpt
        if left == 0:
            break
    return ', '.join(out) + f' ({qp_types})'


def bitmask_to_str(bits: int, values: Mapping[int, str]) -> str:
    """mlx5's flag printer: the names of the bits of bits found in values
    ({bit: name}, in its order), then the value in decimal: 'A, B (3)',
    ' (0)' for none."""
    out, left = [], bits
    for bit, name in values.items():
        if bit & left:
            out.append(name)
            left -= bit
        if left == 0:
            break
    return ', '.join(out) + f' ({bits})'


def context_comp_mask_to_str(mask: int) -> str:
    return bitmask_to_str(mask, {
        _dve.MLX5DV_CONTEXT_MASK_CQE_COMPRESION: 'CQE compression',
        _dve.MLX5DV_CONTEXT_MASK_SWP: 'SW parsing',
        _dve.MLX5DV_CONTEXT_MASK_STRIDING_RQ: 'Striding RQ',
        _dve.MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS: 'Tunnel offloads',
        _dve.MLX5DV_CONTEXT_MASK_DYN_BFREGS: 'Dynamic BF regs',
        _dve.MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE: 'Clock info update',
        _dve.MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS: 'Flow action flags'})


def context_flags_to_str(flags: int) -> str:
    return bitmask_to_str(flags, {
        _dve.MLX5DV_CONTEXT_FLAGS_CQE_V1: 'CQE v1',
        _dve.MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED: 'Multi packet WQE allowed',
        _dve.MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW: 'Enhanced multi packet WQE',
        _dve.MLX5DV_CONTEXT_FLAGS_CQE_128B_COMP:
            'Support CQE 128B compression',
        _dve.MLX5DV_CONTEXT_FLAGS_CQE_128B_PAD: 'Support CQE 128B padding',
        _dve.MLX5DV_CONTEXT_FLAGS_PACKET_BASED_CREDIT_MODE:
            'Support packet based credit mode (in RC QP)',
        # rdma-core 58 (a fixed value, whatever the build's headers)
        getattr(_dve, 'MLX5DV_CONTEXT_FLAGS_BLUEFLAME', 1 << 8):
            'Support BlueFlame'})


def swp_to_str(swps: int) -> str:
    return bitmask_to_str(swps, {
        _dve.MLX5DV_SW_PARSING: 'SW Parsing',
        _dve.MLX5DV_SW_PARSING_CSUM: 'SW Parsing CSUM',
        _dve.MLX5DV_SW_PARSING_LSO: 'SW Parsing LSO'})


def cqe_comp_to_str(cqe: int) -> str:
    return bitmask_to_str(cqe, {
        _dve.MLX5DV_CQE_RES_FORMAT_HASH: 'with hash',
        _dve.MLX5DV_CQE_RES_FORMAT_CSUM: 'with RX checksum CSUM',
        _dve.MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX: 'with stride index'})


def tunnel_offloads_to_str(tun: int) -> str:
    return bitmask_to_str(tun, {
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN: 'VXLAN',
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GRE: 'GRE',
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE: 'Geneve',
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_GRE:
            'Ctrl word + MPLS over GRE',
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_UDP:
            'Ctrl word + MPLS over UDP'})


def dc_type_to_str(dctype: int) -> str:
    names: dict[int, str] = {_dve.MLX5DV_DCTYPE_DCT: 'DCT',
                             _dve.MLX5DV_DCTYPE_DCI: 'DCI'}
    try:
        return names[dctype]
    except (KeyError, TypeError):
        return f'Unknown DC type ({dctype})'


def qp_comp_mask_to_str(flags: int) -> str:
    return bitmask_to_str(flags, {
        _dve.MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS: 'Create flags',
        _dve.MLX5DV_QP_INIT_ATTR_MASK_DC: 'DC',
        _dve.MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS: 'Send ops flags',
        _dve.MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS: 'DCI Stream'})


def qp_create_flags_to_str(flags: int) -> str:
    return bitmask_to_str(flags, {
        _dve.MLX5DV_QP_CREATE_TUNNEL_OFFLOADS: 'Tunnel offloads',
        _dve.MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC:
            'Allow UC self loopback',
        _dve.MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC:
            'Allow MC self loopback',
        _dve.MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE:
            'Disable scatter to CQE',
        _dve.MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE: 'Allow scatter to CQE',
        _dve.MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE:
            'Packet based credit mode',
        _dve.MLX5DV_QP_CREATE_SIG_PIPELINING:
            'Support signature pipeline support'})


def send_ops_flags_to_str(flags: int) -> str:
    return bitmask_to_str(flags, {
        _dve.MLX5DV_QP_EX_WITH_MR_INTERLEAVED: 'With MR interleaved',
        _dve.MLX5DV_QP_EX_WITH_MR_LIST: 'With MR list',
        _dve.MLX5DV_QP_EX_WITH_MKEY_CONFIGURE: 'With Mkey configure'})


# ---- mlx5dv: Mlx5Context & co. ----

def _context_attr_str(self: Mlx5DVContextAttr) -> str:
    return _ROW.format('flags', self.flags) + \
        _ROW.format('comp_mask', self.comp_mask)


def _port_attr_str(self: Mlx5DVPortAttr) -> str:
    return _ROW.format('flags', hex(self.flags))


def _dv_context_str(self: Mlx5DVContext) -> str:
    cqe = self.cqe_comp_caps
    swp = self.sw_parsing_caps
    strd = self.striding_rq_caps
    dci = self.dci_streams_caps
    return (
        _ROW.format('Version', self.version) +
        _ROW.format('Flags', context_flags_to_str(self.flags)) +
        _ROW.format('comp mask', context_comp_mask_to_str(self.comp_mask)) +
        'CQE compression caps:\n' +
        _SUBROW.format('max num', cqe['max_num']) +
        _SUBROW.format('supported formats',
                       cqe_comp_to_str(cqe['supported_format'])) +
        'SW parsing caps:\n' +
        _SUBROW.format('SW parsing offloads',
                       swp_to_str(swp['sw_parsing_offloads'])) +
        _SUBROW.format('supported QP types',
                       qpts_to_str(swp['supported_qpts'])) +
        'Striding RQ caps:\n' +
        _SUBROW.format('min single stride log num of bytes',
                       strd['min_single_stride_log_num_of_bytes']) +
        _SUBROW.format('max single stride log num of bytes',
                       strd['max_single_stride_log_num_of_bytes']) +
        _SUBROW.format('min single wqe log num of strides',
                       strd['min_single_wqe_log_num_of_strides']) +
        _SUBROW.format('max single wqe log num of strides',
                       strd['max_single_wqe_log_num_of_strides']) +
        _SUBROW.format('supported QP types',
                       qpts_to_str(strd['supported_qpts'])) +
        'DCI stream caps:\n' +
        _SUBROW.format('max log num concurrent streams',
                       dci['max_log_num_concurent']) +
        _SUBROW.format('max log num errored streams',
                       dci['max_log_num_errored']) +
        _ROW.format('Tunnel offloads caps',
                    tunnel_offloads_to_str(self.tunnel_offload_caps)) +
        _ROW.format('Max dynamic BF registers', self.max_dynamic_bfregs) +
        _ROW.format('Max clock info update [nsec]',
                    self.max_clock_info_update_nsec) +
        _ROW.format('Flow action flags', self.flow_action_flags) +
        _ROW.format('DC ODP caps', self.dc_odp_caps) +
        _ROW.format('Num LAG ports', self.num_lag_ports) +
        _ROW.format('Max WR memcpy length', self.max_wr_memcpy_length) +
        _dc_rd_atom_rows(self))


def _dc_rd_atom_rows(self: Mlx5DVContext) -> str:
    """The two lines rdma-core 65 adds (upstream reads misspelt fields
    there and raises AttributeError: these are the fields it means); none
    from a build whose rdma-core lacks the fields (older than 47)."""
    if not getattr(_v, '_MLX5_FEATURES', {}).get('max_dc_rd_atom'):
        return ''
    return (_ROW.format('Max DC Read Atomic', self.max_dc_rd_atom) +
            _ROW.format('Max DC Init Read Atomic', self.max_dc_init_rd_atom))


def _cq_init_attr_str(self: Mlx5DVCQInitAttr) -> str:
    row = '{:22}: {:<20}\n'
    flags: dict[int, str] = {_dve.MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD:
                             'MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD}'}
    mask: dict[int, str] = {
        _dve.MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE:
        'MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE',
        _dve.MLX5DV_CQ_INIT_ATTR_MASK_FLAGS:
        'MLX5DV_CQ_INIT_ATTR_MASK_FLAGS',
        _dve.MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE:
        'MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE'}
    fmt: dict[int, str] = {
        _dve.MLX5DV_CQE_RES_FORMAT_HASH: 'MLX5DV_CQE_RES_FORMAT_HASH',
        _dve.MLX5DV_CQE_RES_FORMAT_CSUM: 'MLX5DV_CQE_RES_FORMAT_CSUM',
        _dve.MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX:
        'MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX'}
    return 'Mlx5DVCQInitAttr:\n' + \
        row.format('comp_mask', bitmask_to_str(self.comp_mask, mask)) + \
        row.format('CQE compression format',
                   bitmask_to_str(self.cqe_comp_res_format, fmt)) + \
        row.format('flags', bitmask_to_str(self.flags, flags)) + \
        row.format('CQE size', self.cqe_size)


def _cq_str(self: Mlx5CQ) -> str:
    row = '{:<22}: {:<20}\n'
    return 'Mlx5 CQ:\n' + row.format('Handle', self.handle) + \
        row.format('CQEs', self.cqe)


def _var_str(self: Mlx5VAR) -> str:
    return _ROW.format('page id', self.page_id) + \
        _ROW.format('length', self.length) + \
        _ROW.format('mmap offset', self.mmap_off) + \
        _ROW.format('compatibility mask', self.comp_mask)


def _uar_str(self: Mlx5UAR) -> str:
    return _ROW.format('reg addr', self.reg_addr) + \
        _ROW.format('base addr', self.base_addr) + \
        _ROW.format('page id', self.page_id) + \
        _ROW.format('mmap off', self.mmap_off) + \
        _ROW.format('comp mask', self.comp_mask)


# ---- mlx5dv: Mlx5QP's init attributes ----

def _dci_streams_str(self: Mlx5DCIStreamInitAttr) -> str:
    return (_ROW.format('DCI Stream log_num_concurent',
                        self.log_num_concurent) +
            _ROW.format('DCI Stream log_num_errored',
                        self.log_num_errored))


def _dc_init_attr_str(self: Mlx5DVDCInitAttr) -> str:
    streams = self.dci_streams
    return (_ROW.format('DC type', dc_type_to_str(self.dc_type)) +
            _ROW.format('DCT access key', self.dct_access_key) +
            _ROW.format('DCI Stream log_num_concurent',
                        streams['log_num_concurent']) +
            _ROW.format('DCI Stream log_num_errored',
                        streams['log_num_errored']))


def _dv_qp_init_attr_str(self: Mlx5DVQPInitAttr) -> str:
    streams = self.dci_streams
    return (_ROW.format('Comp mask', qp_comp_mask_to_str(self.comp_mask)) +
            _ROW.format('Create flags',
                        qp_create_flags_to_str(self.create_flags)) +
            'DC init attr:\n' +
            _ROW.format('  DC type', dc_type_to_str(self.dc_type)) +
            _ROW.format('  DCI Stream log_num_concurent',
                        streams['log_num_concurent']) +
            _ROW.format('  DCI Stream log_num_errored',
                        streams['log_num_errored']) +
            _ROW.format('  DCT access key', self.dct_access_key) +
            _ROW.format('Send ops flags',
                        send_ops_flags_to_str(self.send_ops_flags)))


# ---- mlx5dv: DevX, WQE and CQE views ----

def raw(value: int, size: int) -> int:
    """The big-endian field of host-order value read back in host order."""
    return int.from_bytes(value.to_bytes(size, 'big'), sys.byteorder)


def _ctrl_str(self: WqeCtrlSeg) -> str:
    return (_ROW.format('opcode', raw(self.opmod_idx_opcode, 4)) +
            _ROW.format('qpn_ds', raw(self.qpn_ds, 4)) +
            _ROW.format('signature', self.signature) +
            _ROW.format('fm_ce_se', self.fm_ce_se) +
            _ROW.format('imm', raw(self.imm, 4)))


def _data_str(self: WqeDataSeg) -> str:
    return (_ROW.format('byte_count', raw(self.byte_count, 4)) +
            _ROW.format('lkey', raw(self.lkey, 4)) +
            _ROW.format('addr', raw(self.addr, 8)))


def _cqe64_str(self: Mlx5Cqe64) -> str:
    # upstream: the Cython dict of the members its .pxd declares
    return str({'wqe_id': raw(self.wqe_id, 2),
                'imm_inval_pkey': raw(self.imm_inval_pkey, 4),
                'byte_cnt': raw(self.byte_cnt, 4),
                'timestamp': raw(self.timestamp, 8),
                'wqe_counter': raw(self.wqe_counter, 2),
                'signature': self.signature, 'op_own': self.op_own})


def _umem_str(self: Mlx5UMEM) -> str:
    return (_ROW.format('umem id', self.umem_id) +
            _ROW.format('reg addr', self.umem_addr))


# ---- mlx5dv_crypto ----

def _login_attr_str(self: Mlx5CryptoLoginAttr) -> str:
    return 'Mlx5CryptoLoginAttr:\n' + \
        _ROW.format('Credential id', self.credential_id) + \
        _ROW.format('Import KEK id', self.import_kek_id) + \
        _ROW.format('Credential', str(self.credential)) + \
        _ROW.format('Comp mask', self.comp_mask)


def _ext_login_attr_str(self: Mlx5CryptoExtLoginAttr) -> str:
    return 'Mlx5CryptoExtLoginAttr:\n' + \
        _ROW.format('Credential id', self.credential_id) + \
        _ROW.format('Import KEK id', self.import_kek_id) + \
        _ROW.format('Credential', str(self.credential)) + \
        _ROW.format('credential_len', self.credential_len) + \
        _ROW.format('Comp mask', self.comp_mask)


def _dek_init_attr_str(self: Mlx5DEKInitAttr) -> str:
    return 'Mlx5DEKInitAttr:\n' + \
        _ROW.format('key_size', self.key_size) + \
        _ROW.format('Has keytag', self.has_keytag) + \
        _ROW.format('Key purpose', self.key_purpose) + \
        _ROW.format('Opaque', self.opaque) + \
        _ROW.format('Key (in hex format)', self.key) + \
        _ROW.format('Comp mask', self.comp_mask)


def _crypto_attr_str(self: Mlx5CryptoAttr) -> str:
    row = '{:30}: {:<20}\n'
    return 'Mlx5CryptoAttr:\n' + \
        row.format('Crypto standard', self.crypto_standard) + \
        row.format('Encrypt on TX', self.encrypt_on_tx) + \
        row.format('Signature crypto order', self.signature_crypto_order) + \
        row.format('Data unit size', self.data_unit_size) + \
        row.format('Initial tweak (in hex format)', self.initial_tweak) + \
        row.format('keytag (in hex format)', self.keytag) + \
        row.format('Comp mask', self.comp_mask)


# ---- mlx5dv_sched ----

def _sched_attr_str(self: Mlx5dvSchedAttr) -> str:
    fmt = '{:20}: {:<20}\n'
    return ('Mlx5dvSchedAttr:\n' +
            fmt.format('BW share', self.bw_share) +
            # sic: upstream's label
            fmt.format('Max avgerage BW', self.max_avg_bw) +
            fmt.format('Flags', self.flags) +
            fmt.format('Comp mask', self.comp_mask))


def _sched_elem_str(self: Mlx5dvSchedNode | Mlx5dvSchedLeaf) -> str:
    return (f'{type(self).__name__}:\n' +
            '{:20}: {:<20}\n'.format('sched attr', str(self.sched_attr)))


# ---- the table ----

FORMATS: dict[type, dict[str, object]] = {}
if getattr(_v, '_HAVE_MLX5', 0):
    FORMATS = {
        # mlx5dv: Mlx5Context & co.
        _v.Mlx5DVContextAttr: {'__str__': _context_attr_str},
        _v.Mlx5DVPortAttr: {'__str__': _port_attr_str},
        _v.Mlx5DVContext: {'__str__': _dv_context_str},
        _v.Mlx5DVCQInitAttr: {'__str__': _cq_init_attr_str},
        _v.Mlx5CQ: {'__str__': _cq_str},
        _v.Mlx5VAR: {'__str__': _var_str},
        _v.Mlx5UAR: {'__str__': _uar_str},
        # mlx5dv: Mlx5QP's init attributes
        _v.Mlx5DCIStreamInitAttr: {'__str__': _dci_streams_str},
        _v.Mlx5DVDCInitAttr: {'__str__': _dc_init_attr_str},
        _v.Mlx5DVQPInitAttr: {'__str__': _dv_qp_init_attr_str},
        # mlx5dv: DevX, WQE and CQE views
        _v.WqeCtrlSeg: {'__str__': _ctrl_str},
        _v.WqeDataSeg: {'__str__': _data_str},
        _v.Mlx5Cqe64: {'__str__': _cqe64_str},
        _v.Mlx5UMEM: {'__str__': _umem_str},
        # mlx5dv_crypto
        _v.Mlx5CryptoLoginAttr: {'__str__': _login_attr_str},
        _v.Mlx5CryptoExtLoginAttr: {'__str__': _ext_login_attr_str},
        _v.Mlx5DEKInitAttr: {'__str__': _dek_init_attr_str},
        _v.Mlx5CryptoAttr: {'__str__': _crypto_attr_str},
        # mlx5dv_sched
        _v.Mlx5dvSchedAttr: {'__str__': _sched_attr_str},
        _v.Mlx5dvSchedNode: {'__str__': _sched_elem_str},
        _v.Mlx5dvSchedLeaf: {'__str__': _sched_elem_str},
    }
