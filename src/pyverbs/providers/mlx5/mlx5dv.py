# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct verbs: Mlx5Context, Mlx5QP, Mlx5CQ, DevX objects, UAR/VAR/PP, ...

The classes are C types of pyverbs._verbs (src/pyverbs/_native/providers/
mlx5/), the printers Python.  A build without libmlx5 keeps every name as a
placeholder whose error names the library (see pyverbs._unimplemented)."""
from pyverbs._unimplemented import fill_missing

# mlx5ctx
import pyverbs.providers.mlx5.mlx5_enums as _dve
import pyverbs.enums as _e
from pyverbs import _verbs

if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5DVContextAttr, Mlx5Context,
                                Mlx5DVContext, Mlx5DVPortAttr,
                                Mlx5DVCQInitAttr, Mlx5CQ)
    try:
        from pyverbs._verbs import Mlx5VAR, Mlx5PP, Mlx5UAR
    except ImportError:
        pass
    try:
        from pyverbs._verbs import Mlx5VfioAttr
    except ImportError:
        pass

_ROW = '{:20}: {:<20}\n'
_SUBROW = '  {:20}: {:<20}\n'


def qpts_to_str(qp_types):
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


def bitmask_to_str(bits, values):
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


def context_comp_mask_to_str(mask):
    return bitmask_to_str(mask, {
        _dve.MLX5DV_CONTEXT_MASK_CQE_COMPRESION: 'CQE compression',
        _dve.MLX5DV_CONTEXT_MASK_SWP: 'SW parsing',
        _dve.MLX5DV_CONTEXT_MASK_STRIDING_RQ: 'Striding RQ',
        _dve.MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS: 'Tunnel offloads',
        _dve.MLX5DV_CONTEXT_MASK_DYN_BFREGS: 'Dynamic BF regs',
        _dve.MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE: 'Clock info update',
        _dve.MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS: 'Flow action flags'})


def context_flags_to_str(flags):
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


def swp_to_str(swps):
    return bitmask_to_str(swps, {
        _dve.MLX5DV_SW_PARSING: 'SW Parsing',
        _dve.MLX5DV_SW_PARSING_CSUM: 'SW Parsing CSUM',
        _dve.MLX5DV_SW_PARSING_LSO: 'SW Parsing LSO'})


def cqe_comp_to_str(cqe):
    return bitmask_to_str(cqe, {
        _dve.MLX5DV_CQE_RES_FORMAT_HASH: 'with hash',
        _dve.MLX5DV_CQE_RES_FORMAT_CSUM: 'with RX checksum CSUM',
        _dve.MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX: 'with stride index'})


def tunnel_offloads_to_str(tun):
    return bitmask_to_str(tun, {
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN: 'VXLAN',
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GRE: 'GRE',
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE: 'Geneve',
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_GRE:
            'Ctrl word + MPLS over GRE',
        _dve.MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_UDP:
            'Ctrl word + MPLS over UDP'})


def dc_type_to_str(dctype):
    names = {_dve.MLX5DV_DCTYPE_DCT: 'DCT', _dve.MLX5DV_DCTYPE_DCI: 'DCI'}
    try:
        return names[dctype]
    except (KeyError, TypeError):
        return f'Unknown DC type ({dctype})'


def qp_comp_mask_to_str(flags):
    return bitmask_to_str(flags, {
        _dve.MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS: 'Create flags',
        _dve.MLX5DV_QP_INIT_ATTR_MASK_DC: 'DC',
        _dve.MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS: 'Send ops flags',
        _dve.MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS: 'DCI Stream'})


def qp_create_flags_to_str(flags):
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


def send_ops_flags_to_str(flags):
    return bitmask_to_str(flags, {
        _dve.MLX5DV_QP_EX_WITH_MR_INTERLEAVED: 'With MR interleaved',
        _dve.MLX5DV_QP_EX_WITH_MR_LIST: 'With MR list',
        _dve.MLX5DV_QP_EX_WITH_MKEY_CONFIGURE: 'With Mkey configure'})


def _context_attr_str(self):
    return _ROW.format('flags', self.flags) + \
        _ROW.format('comp_mask', self.comp_mask)


def _port_attr_str(self):
    return _ROW.format('flags', hex(self.flags))


def _dv_context_str(self):
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


def _dc_rd_atom_rows(self):
    """The two lines rdma-core 65 adds (upstream reads misspelt fields
    there and raises AttributeError: these are the fields it means); none
    from a build whose rdma-core lacks the fields (older than 47)."""
    if not getattr(_verbs, '_MLX5_FEATURES', {}).get('max_dc_rd_atom'):
        return ''
    return (_ROW.format('Max DC Read Atomic', self.max_dc_rd_atom) +
            _ROW.format('Max DC Init Read Atomic', self.max_dc_init_rd_atom))


def _cq_init_attr_str(self):
    row = '{:22}: {:<20}\n'
    flags = {_dve.MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD:
             'MLX5DV_CQ_INIT_ATTR_FLAGS_CQE_PAD}'}
    mask = {_dve.MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE:
            'MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE',
            _dve.MLX5DV_CQ_INIT_ATTR_MASK_FLAGS:
            'MLX5DV_CQ_INIT_ATTR_MASK_FLAGS',
            _dve.MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE:
            'MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE'}
    fmt = {_dve.MLX5DV_CQE_RES_FORMAT_HASH: 'MLX5DV_CQE_RES_FORMAT_HASH',
           _dve.MLX5DV_CQE_RES_FORMAT_CSUM: 'MLX5DV_CQE_RES_FORMAT_CSUM',
           _dve.MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX:
           'MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX'}
    return 'Mlx5DVCQInitAttr:\n' + \
        row.format('comp_mask', bitmask_to_str(self.comp_mask, mask)) + \
        row.format('CQE compression format',
                   bitmask_to_str(self.cqe_comp_res_format, fmt)) + \
        row.format('flags', bitmask_to_str(self.flags, flags)) + \
        row.format('CQE size', self.cqe_size)


def _cq_str(self):
    row = '{:<22}: {:<20}\n'
    return 'Mlx5 CQ:\n' + row.format('Handle', self.handle) + \
        row.format('CQEs', self.cqe)


def _var_str(self):
    return _ROW.format('page id', self.page_id) + \
        _ROW.format('length', self.length) + \
        _ROW.format('mmap offset', self.mmap_off) + \
        _ROW.format('compatibility mask', self.comp_mask)


def _uar_str(self):
    return _ROW.format('reg addr', self.reg_addr) + \
        _ROW.format('base addr', self.base_addr) + \
        _ROW.format('page id', self.page_id) + \
        _ROW.format('mmap off', self.mmap_off) + \
        _ROW.format('comp mask', self.comp_mask)


if not getattr(_verbs, '_HAVE_MLX5', 0):
    # a build without libmlx5: every upstream name is a placeholder that
    # names the library (fill_missing)
    for _name in ('qpts_to_str', 'bitmask_to_str', 'context_comp_mask_to_str',
                  'context_flags_to_str', 'swp_to_str', 'cqe_comp_to_str',
                  'tunnel_offloads_to_str', 'dc_type_to_str',
                  'qp_comp_mask_to_str', 'qp_create_flags_to_str',
                  'send_ops_flags_to_str'):
        del globals()[_name]
else:
    Mlx5DVContextAttr.__str__ = _context_attr_str
    Mlx5DVPortAttr.__str__ = _port_attr_str
    Mlx5DVContext.__str__ = _dv_context_str
    Mlx5DVCQInitAttr.__str__ = _cq_init_attr_str
    Mlx5CQ.__str__ = _cq_str
    if 'Mlx5VAR' in globals():
        Mlx5VAR.__str__ = _var_str
        Mlx5UAR.__str__ = _uar_str

# mlx5qp
if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5DCIStreamInitAttr, Mlx5DVDCInitAttr,
                                Mlx5DVQPInitAttr, Mlx5QP)

    def _dci_streams_str(self):
        return (_ROW.format('DCI Stream log_num_concurent',
                            self.log_num_concurent) +
                _ROW.format('DCI Stream log_num_errored',
                            self.log_num_errored))

    def _dc_init_attr_str(self):
        streams = self.dci_streams
        return (_ROW.format('DC type', dc_type_to_str(self.dc_type)) +
                _ROW.format('DCT access key', self.dct_access_key) +
                _ROW.format('DCI Stream log_num_concurent',
                            streams['log_num_concurent']) +
                _ROW.format('DCI Stream log_num_errored',
                            streams['log_num_errored']))

    def _dv_qp_init_attr_str(self):
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

    Mlx5DCIStreamInitAttr.__str__ = _dci_streams_str
    Mlx5DVDCInitAttr.__str__ = _dc_init_attr_str
    Mlx5DVQPInitAttr.__str__ = _dv_qp_init_attr_str

# mlx5objs
from pyverbs import _verbs as _mlx5objs
if getattr(_mlx5objs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5DevxObj, Mlx5UMEM, Mlx5DevxEq,
                                Mlx5DevxMsiVector, Mlx5DmOpAddr, WqeSeg,
                                WqeCtrlSeg, WqeDataSeg, Wqe, Mlx5Cqe64,
                                Mlx5DevxCmdComp)
    from pyverbs.providers.mlx5 import _mlx5objs_str
    _mlx5objs_str.install(globals())
del _mlx5objs


fill_missing(globals(), __name__)
