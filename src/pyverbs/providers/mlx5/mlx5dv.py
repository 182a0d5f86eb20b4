# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct verbs: Mlx5Context, Mlx5QP, Mlx5CQ, DevX objects, UAR/VAR/PP, ...

Not implemented yet: the names of upstream's module are placeholders that
raise PyverbsUserError when used (see pyverbs._unimplemented)."""
from pyverbs._unimplemented import fill_missing

# mlx5ctx

# mlx5qp
from pyverbs import _verbs as _v_mlx5qp
if getattr(_v_mlx5qp, '_HAVE_MLX5', 0):
    import pyverbs.providers.mlx5.mlx5_enums as _dve
    from pyverbs._verbs import (Mlx5DCIStreamInitAttr, Mlx5DVDCInitAttr,
                                Mlx5DVQPInitAttr, Mlx5QP)

    # The printers of the QP attributes; family mlx5ctx's module functions
    # (above) take precedence once merged, these are the fallback.
    if 'send_ops_flags_to_str' not in globals():
        def _qp_bits_str(bits, values):
            """mlx5's bitmask_to_str: the names, then the value (decimal)."""
            numeric, res = bits, ''
            for t, name in values.items():
                if t & bits:
                    res += name + ', '
                    bits -= t
                if bits == 0:
                    break
            return res[:-2] + ' ({})'.format(numeric)

        def dc_type_to_str(dctype):
            names = {_dve.MLX5DV_DCTYPE_DCT: 'DCT',
                     _dve.MLX5DV_DCTYPE_DCI: 'DCI'}
            return names.get(dctype,
                             'Unknown DC type ({dc})'.format(dc=dctype))

        def qp_comp_mask_to_str(flags):
            return _qp_bits_str(flags, {
                _dve.MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS:
                    'Create flags',
                _dve.MLX5DV_QP_INIT_ATTR_MASK_DC: 'DC',
                _dve.MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS:
                    'Send ops flags',
                _dve.MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS: 'DCI Stream'})

        def qp_create_flags_to_str(flags):
            return _qp_bits_str(flags, {
                _dve.MLX5DV_QP_CREATE_TUNNEL_OFFLOADS: 'Tunnel offloads',
                _dve.MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC:
                    'Allow UC self loopback',
                _dve.MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC:
                    'Allow MC self loopback',
                _dve.MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE:
                    'Disable scatter to CQE',
                _dve.MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE:
                    'Allow scatter to CQE',
                _dve.MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE:
                    'Packet based credit mode',
                _dve.MLX5DV_QP_CREATE_SIG_PIPELINING:
                    'Support signature pipeline support'})

        def send_ops_flags_to_str(flags):
            return _qp_bits_str(flags, {
                _dve.MLX5DV_QP_EX_WITH_MR_INTERLEAVED: 'With MR interleaved',
                _dve.MLX5DV_QP_EX_WITH_MR_LIST: 'With MR list',
                _dve.MLX5DV_QP_EX_WITH_MKEY_CONFIGURE: 'With Mkey configure'})

    _QP_FMT = '{:20}: {:<20}\n'

    def _dci_streams_str(self):
        return (_QP_FMT.format('DCI Stream log_num_concurent',
                               self.log_num_concurent) +
                _QP_FMT.format('DCI Stream log_num_errored',
                               self.log_num_errored))

    def _dc_init_attr_str(self):
        streams = self.dci_streams
        return (_QP_FMT.format('DC type', dc_type_to_str(self.dc_type)) +
                _QP_FMT.format('DCT access key', self.dct_access_key) +
                _QP_FMT.format('DCI Stream log_num_concurent',
                               streams['log_num_concurent']) +
                _QP_FMT.format('DCI Stream log_num_errored',
                               streams['log_num_errored']))

    def _dv_qp_init_attr_str(self):
        streams = self.dci_streams
        return (_QP_FMT.format('Comp mask',
                               qp_comp_mask_to_str(self.comp_mask)) +
                _QP_FMT.format('Create flags',
                               qp_create_flags_to_str(self.create_flags)) +
                'DC init attr:\n' +
                _QP_FMT.format('  DC type', dc_type_to_str(self.dc_type)) +
                _QP_FMT.format('  DCI Stream log_num_concurent',
                               streams['log_num_concurent']) +
                _QP_FMT.format('  DCI Stream log_num_errored',
                               streams['log_num_errored']) +
                _QP_FMT.format('  DCT access key', self.dct_access_key) +
                _QP_FMT.format('Send ops flags',
                               send_ops_flags_to_str(self.send_ops_flags)))

    Mlx5DCIStreamInitAttr.__str__ = _dci_streams_str
    Mlx5DVDCInitAttr.__str__ = _dc_init_attr_str
    Mlx5DVQPInitAttr.__str__ = _dv_qp_init_attr_str

# mlx5objs


fill_missing(globals(), __name__)
