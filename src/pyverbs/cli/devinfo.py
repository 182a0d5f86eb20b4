# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""``pyverbs devinfo``: a device's attributes and its ports', laid out as
ibverbs-utils' ibv_devinfo (rdma-core 44) prints them, read through
pyverbs (Context.query_device_ex, query_port, query_gid_ex); the ODP caps
of RDMA FLUSH and ATOMIC WRITE (kernel 7.2's rxe has them) are named as
the ibv_devinfo of rdma-core 58 on names them."""
import argparse
import errno
import socket
import sys

from pyverbs.cli import device_list
from pyverbs.device import Context, Device, DeviceAttrEx, PortAttr
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError

NAME = 'devinfo'
HELP = 'print the attributes of RDMA devices and ports (as ibv_devinfo)'

# Numbers to the words ibv_devinfo prints for them; a value missing from a
# table prints as the table's default.
_Table = tuple[dict[int, str], str]
TRANSPORTS: _Table = ({0: 'InfiniBand', 1: 'iWARP', 2: 'usNIC', 3: 'usNIC UDP'},
              'invalid transport')
PORT_STATES: _Table = ({1: 'PORT_DOWN', 2: 'PORT_INIT', 3: 'PORT_ARMED',
                4: 'PORT_ACTIVE'}, 'invalid state')
PHYS_STATES: _Table = ({1: 'SLEEP', 2: 'POLLING', 3: 'DISABLED',
                4: 'PORT_CONFIGURATION TRAINNING', 5: 'LINK_UP',
                6: 'LINK_ERROR_RECOVERY', 7: 'PHY TEST'},
               'invalid physical state')
ATOMIC_CAPS: _Table = ({0: 'ATOMIC_NONE', 1: 'ATOMIC_HCA', 2: 'ATOMIC_GLOB'},
               'invalid atomic capability')
MTUS: _Table = ({1: '256', 2: '512', 3: '1024', 4: '2048', 5: '4096'},
        'invalid MTU')
WIDTHS: _Table = ({1: '1', 2: '4', 4: '8', 8: '12', 16: '2'}, 'invalid width')
SPEEDS: _Table = ({1: '2.5 Gbps', 2: '5.0 Gbps', 4: '10.0 Gbps', 8: '10.0 Gbps',
           16: '14.0 Gbps', 32: '25.0 Gbps', 64: '50.0 Gbps',
           128: '100.0 Gbps'}, 'invalid speed')
VLS: _Table = ({1: '1', 2: '2', 3: '4', 4: '8', 5: '15'}, 'invalid value')
# link layer 0 (unspecified) is InfiniBand.
LINK_LAYERS: _Table = ({0: 'InfiniBand', 1: 'InfiniBand', 2: 'Ethernet'},
               'Unknown')
LINK_LAYER_ETHERNET = 2
GID_TYPES: dict[int, str] = {1: 'RoCE v1', 2: 'RoCE v2'}

# Flag words: (bit, name) in the order printed, bits outside them are
# summed up as "Unknown flags".
_Bits = list[tuple[int, str]]
DEVICE_CAPS: _Bits = [(1 << i, n) for i, n in enumerate((
    'RESIZE_MAX_WR', 'BAD_PKEY_CNTR', 'BAD_QKEY_CNTR', 'RAW_MULTI',
    'AUTO_PATH_MIG', 'CHANGE_PHY_PORT', 'UD_AV_PORT_ENFORCE',
    'CURR_QP_STATE_MOD', 'SHUTDOWN_PORT', 'INIT_TYPE', 'PORT_ACTIVE_EVENT',
    'SYS_IMAGE_GUID', 'RC_RNR_NAK_GEN', 'SRQ_RESIZE', 'N_NOTIFY_CQ'))] + [
    (1 << 17, 'MEM_WINDOW'), (1 << 18, 'UD_IP_CSUM'), (1 << 20, 'XRC'),
    (1 << 21, 'MEM_MGT_EXTENSIONS'), (1 << 23, 'MEM_WINDOW_TYPE_2A'),
    (1 << 24, 'MEM_WINDOW_TYPE_2B'), (1 << 25, 'RC_IP_CSUM'),
    (1 << 26, 'RAW_IP_CSUM'), (1 << 29, 'MANAGED_FLOW_STEERING')]
DEVICE_CAPS_EX: _Bits = [(1 << 32, 'RAW_SCATTER_FCS'),
                  (1 << 36, 'PCI_WRITE_END_PADDING')]
ODP_GENERAL: _Bits = [(1, 'ODP_SUPPORT'), (2, 'ODP_SUPPORT_IMPLICIT')]
ODP_TRANSPORT: _Bits = [(1, 'SUPPORT_SEND'), (2, 'SUPPORT_RECV'),
                 (4, 'SUPPORT_WRITE'), (8, 'SUPPORT_READ'),
                 (16, 'SUPPORT_ATOMIC'), (32, 'SUPPORT_SRQ'),
                 (64, 'SUPPORT_FLUSH'), (128, 'SUPPORT_ATOMIC_WRITE')]
# _Bits of a supported_qpts word: 1 << IBV_QPT_xxx.
QPT_BITS: _Bits = [(1 << 8, 'SUPPORT_RAW_PACKET'), (1 << 4, 'SUPPORT_UD')]
RAW_PACKET_CAPS: _Bits = [(1, 'C-VLAN stripping offload'),
                   (2, 'Scatter FCS offload'), (4, 'IP csum offload'),
                   (8, 'Delay drop')]
TM_CAP_RC = 1
FLAG_INDENT = '\t' * 5


def word(table: _Table, value: int) -> str:
    names, default = table
    return names.get(value, default)


def guid_str(guid: int) -> str:
    """A GUID as pyverbs gives it (network byte order) as xxxx:xxxx:..."""
    h = '%016x' % int.from_bytes(guid.to_bytes(8, 'little'), 'big')
    return ':'.join(h[i:i + 4] for i in range(0, 16, 4))


def flag_lines(value: int, bits: _Bits, unknown_fmt: str = '%X',
               report_unknown: bool = True) -> list[str]:
    out = [FLAG_INDENT + name for bit, name in bits if value & bit]
    known = 0
    for bit, _ in bits:
        known |= bit
    if report_unknown and value & ~known:
        out.append(FLAG_INDENT + 'Unknown flags: 0x' +
                   unknown_fmt % (value & ~known))
    return out


def odp_transport_lines(value: int) -> list[str]:
    if not value:
        return [FLAG_INDENT + 'NO SUPPORT']
    return flag_lines(value, ODP_TRANSPORT)


def qpt_lines(indent: str, qpts: int) -> list[str]:
    return [indent + 'supported_qp:'] + flag_lines(qpts, QPT_BITS)


def board_id(name: str) -> str | None:
    """The board_id sysfs attribute of the device, None without one."""
    try:
        with open(f'/sys/class/infiniband/{name}/board_id') as f:
            text = f.read()
    except OSError:
        return None
    text = text.rstrip('\n')
    return text or None


def device_lines(dev: Device, ctx: Context, attr_ex: DeviceAttrEx,
                 verbose: bool) -> list[str]:
    """The lines of one device, before its ports."""
    a = attr_ex.orig_attr
    out = [f'hca_id:\t{dev.name.decode()}',
           '\ttransport:\t\t\t%s (%d)' % (word(TRANSPORTS,
                                                 dev.transport_type),
                                            dev.transport_type)]
    if a.fw_version:
        out.append(f'\tfw_ver:\t\t\t\t{a.fw_version}')
    out += [f'\tnode_guid:\t\t\t{guid_str(a.node_guid)}',
            f'\tsys_image_guid:\t\t\t{guid_str(a.sys_image_guid)}',
            '\tvendor_id:\t\t\t0x%04x' % a.vendor_id,
            f'\tvendor_part_id:\t\t\t{a.vendor_part_id}',
            '\thw_ver:\t\t\t\t0x%X' % a.hw_ver]
    board = board_id(dev.name.decode())
    if board:
        out.append(f'\tboard_id:\t\t\t{board}')
    out.append(f'\tphys_port_cnt:\t\t\t{a.phys_port_cnt}')
    if verbose:
        out += verbose_device_lines(ctx, attr_ex)
    return out


def verbose_device_lines(ctx: Context, ax: DeviceAttrEx) -> list[str]:
    a = ax.orig_attr
    out = ['\tmax_mr_size:\t\t\t0x%x' % a.max_mr_size,
           '\tpage_size_cap:\t\t\t0x%x' % a.page_size_cap,
           f'\tmax_qp:\t\t\t\t{a.max_qp}',
           f'\tmax_qp_wr:\t\t\t{a.max_qp_wr}',
           '\tdevice_cap_flags:\t\t0x%08x' % a.device_cap_flags]
    out += flag_lines(a.device_cap_flags, DEVICE_CAPS)
    out += [f'\tmax_sge:\t\t\t{a.max_sge}',
            f'\tmax_sge_rd:\t\t\t{a.max_sge_rd}',
            f'\tmax_cq:\t\t\t\t{a.max_cq}',
            f'\tmax_cqe:\t\t\t{a.max_cqe}',
            f'\tmax_mr:\t\t\t\t{a.max_mr}',
            f'\tmax_pd:\t\t\t\t{a.max_pd}',
            f'\tmax_qp_rd_atom:\t\t\t{a.max_qp_rd_atom}',
            f'\tmax_ee_rd_atom:\t\t\t{a.max_ee_rd_atom}',
            f'\tmax_res_rd_atom:\t\t{a.max_res_rd_atom}',
            f'\tmax_qp_init_rd_atom:\t\t{a.max_qp_init_rd_atom}',
            f'\tmax_ee_init_rd_atom:\t\t{a.max_ee_init_rd_atom}',
            '\tatomic_cap:\t\t\t%s (%d)' % (word(ATOMIC_CAPS, a.atomic_caps),
                                              a.atomic_caps),
            f'\tmax_ee:\t\t\t\t{a.max_ee}',
            f'\tmax_rdd:\t\t\t{a.max_rdd}',
            f'\tmax_mw:\t\t\t\t{a.max_mw}',
            f'\tmax_raw_ipv6_qp:\t\t{a.max_raw_ipv6_qps}',
            f'\tmax_raw_ethy_qp:\t\t{a.max_raw_ethy_qp}',
            f'\tmax_mcast_grp:\t\t\t{a.max_mcast_grp}',
            f'\tmax_mcast_qp_attach:\t\t{a.max_mcast_qp_attach}',
            f'\tmax_total_mcast_qp_attach:\t{a.max_total_mcast_qp_attach}',
            f'\tmax_ah:\t\t\t\t{a.max_ah}',
            f'\tmax_fmr:\t\t\t{a.max_fmr}']
    if a.max_fmr:
        out.append(f'\tmax_map_per_fmr:\t\t{a.max_map_per_fmr}')
    out.append(f'\tmax_srq:\t\t\t{a.max_srq}')
    if a.max_srq:
        out += [f'\tmax_srq_wr:\t\t\t{a.max_srq_wr}',
                f'\tmax_srq_sge:\t\t\t{a.max_srq_sge}']
    out += [f'\tmax_pkeys:\t\t\t{a.max_pkeys}',
            f'\tlocal_ca_ack_delay:\t\t{a.local_ca_ack_delay}']

    odp = ax.odp_caps
    out.append('\tgeneral_odp_caps:')
    out += flag_lines(odp.general_caps, ODP_GENERAL)
    for label, value in (('rc', odp.rc_odp_caps), ('uc', odp.uc_odp_caps),
                         ('ud', odp.ud_odp_caps), ('xrc', odp.xrc_odp_caps)):
        out.append(f'\t{label}_odp_caps:')
        out += odp_transport_lines(value)

    if ax.completion_timestamp_mask:
        out.append('\tcompletion timestamp_mask:\t\t\t0x%016x' %
                   ax.completion_timestamp_mask)
    else:
        out.append('\tcompletion_timestamp_mask not supported')
    if ax.hca_core_clock:
        out.append(f'\thca_core_clock:\t\t\t{ax.hca_core_clock}kHZ')
    else:
        out.append('\tcore clock not supported')
    if ax.raw_packet_caps:
        out.append('\traw packet caps:')
        out += flag_lines(ax.raw_packet_caps, RAW_PACKET_CAPS,
                          report_unknown=False)

    out.append('\tdevice_cap_flags_ex:\t\t0x%X' % ax.device_cap_flags_ex)
    out += flag_lines(ax.device_cap_flags_ex & 0xffffffff00000000,
                      DEVICE_CAPS_EX)

    tso = ax.tso_caps
    out += ['\ttso_caps:', f'\t\tmax_tso:\t\t\t{tso.max_tso}']
    if tso.max_tso:
        out += qpt_lines('\t\t', tso.supported_qpts)

    rss = ax.rss_caps
    out += ['\trss_caps:',
            '\t\tmax_rwq_indirection_tables:\t\t\t%u' %
            rss.max_rwq_indirection_tables,
            '\t\tmax_rwq_indirection_table_size:\t\t\t%u' %
            rss.max_rwq_indirection_table_size,
            '\t\trx_hash_function:\t\t\t\t0x%x' % rss.rx_hash_function,
            '\t\trx_hash_fields_mask:\t\t\t\t0x%X' %
            rss.rx_hash_fields_mask]
    if rss.supported_qpts:
        out += qpt_lines('\t\t', rss.supported_qpts)
    out.append(f'\tmax_wq_type_rq:\t\t\t{ax.max_wq_type_rq}')

    pp = ax.packet_pacing_caps
    out += ['\tpacket_pacing_caps:',
            f'\t\tqp_rate_limit_min:\t{pp.qp_rate_limit_min}kbps',
            f'\t\tqp_rate_limit_max:\t{pp.qp_rate_limit_max}kbps']
    if pp.qp_rate_limit_max:
        out += qpt_lines('\t\t', pp.supported_qpts)

    tm = ax.tm_caps
    if tm.max_num_tags:
        out += [f'\tmax_rndv_hdr_size:\t\t{tm.max_rndv_hdr_size}',
                f'\tmax_num_tags:\t\t\t{tm.max_num_tags}',
                f'\tmax_ops:\t\t\t{tm.max_ops}',
                f'\tmax_sge:\t\t\t{tm.max_sge}', '\tflags:']
        if tm.flags & TM_CAP_RC:
            out.append(FLAG_INDENT + 'IBV_TM_CAP_RC')
    else:
        out.append('\ttag matching not supported')

    cqm = ax.cq_mod_caps
    if cqm.max_cq_count and cqm.max_cq_period:
        out += ['', '\tcq moderation caps:',
                f'\t\tmax_cq_count:\t{cqm.max_cq_count}',
                f'\t\tmax_cq_period:\t{cqm.max_cq_period} us', '']
    if ax.max_dm_size:
        out += [f'\tmaximum available device memory:\t'
                f'{ax.max_dm_size}Bytes', '']
    out.append(f'\tnum_comp_vectors:\t\t{ctx.num_comp_vectors}')
    return out


def gid_lines(ctx: Context, port: int, pattr: PortAttr) -> list[str]:
    """The non-empty GIDs of a port, with their RoCE type on Ethernet."""
    out = []
    for index in range(pattr.gid_tbl_len):
        try:
            entry = ctx.query_gid_ex(port, index)
        except PyverbsRDMAError as err:
            if err.error_code in (errno.ENODATA, -errno.ENODATA):
                continue  # an unused entry of the table
            raise
        # Both halves are raw (network order) as the library stores them.
        raw = (entry.gid_subnet_prefix.to_bytes(8, 'little') +
               entry.gid_interface_id.to_bytes(8, 'little'))
        if not any(raw[8:]):
            continue
        text = socket.inet_ntop(socket.AF_INET6, raw)
        if pattr.link_layer == LINK_LAYER_ETHERNET:
            text += ', ' + GID_TYPES.get(entry.gid_type, 'Unknown')
        out.append('\t\t\tGID[%3d]:\t\t%s' % (index, text))
    return out


def port_lines(dev: Device, ctx: Context, port: int,
               verbose: bool) -> list[str]:
    p = ctx.query_port(port)
    out = [f'\t\tport:\t{port}',
           '\t\t\tstate:\t\t\t%s (%d)' % (word(PORT_STATES, p.state),
                                            p.state),
           '\t\t\tmax_mtu:\t\t%s (%d)' % (word(MTUS, p.max_mtu), p.max_mtu),
           '\t\t\tactive_mtu:\t\t%s (%d)' % (word(MTUS, p.active_mtu),
                                               p.active_mtu),
           f'\t\t\tsm_lid:\t\t\t{p.sm_lid}',
           f'\t\t\tport_lid:\t\t{p.lid}',
           '\t\t\tport_lmc:\t\t0x%02x' % p.lmc,
           f'\t\t\tlink_layer:\t\t{word(LINK_LAYERS, p.link_layer)}']
    if verbose:
        out += ['\t\t\tmax_msg_sz:\t\t0x%x' % p.max_msg_sz,
                '\t\t\tport_cap_flags:\t\t0x%08x' % p.port_cap_flags,
                '\t\t\tport_cap_flags2:\t0x%04x' % p.port_cap_flags2,
                '\t\t\tmax_vl_num:\t\t%s (%d)' % (word(VLS, p.max_vl_num),
                                                   p.max_vl_num),
                '\t\t\tbad_pkey_cntr:\t\t0x%x' % p.bad_pkey_cntr,
                '\t\t\tqkey_viol_cntr:\t\t0x%x' % p.qkey_viol_cntr,
                f'\t\t\tsm_sl:\t\t\t{p.sm_sl}',
                f'\t\t\tpkey_tbl_len:\t\t{p.pkey_tbl_len}',
                f'\t\t\tgid_tbl_len:\t\t{p.gid_tbl_len}',
                f'\t\t\tsubnet_timeout:\t\t{p.subnet_timeout}',
                f'\t\t\tinit_type_reply:\t{p.init_type_reply}',
                '\t\t\tactive_width:\t\t%sX (%d)' % (
                    word(WIDTHS, p.active_width), p.active_width),
                '\t\t\tactive_speed:\t\t%s (%d)' % (
                    word(SPEEDS, p.active_speed), p.active_speed)]
        if dev.transport_type == 0:  # phys_state means something on IB
            out.append('\t\t\tphys_state:\t\t%s (%d)' % (
                word(PHYS_STATES, p.phys_state), p.phys_state))
        out += gid_lines(ctx, port, p)
    out.append('')
    return out


def print_device(dev: Device, port: int, verbose: bool) -> int:
    """Print one device (all its ports, or only port); returns the exit
    status ibv_devinfo gives for it."""
    try:
        ctx = Context(name=dev.name.decode())
    except PyverbsError:
        print('Failed to open device', file=sys.stderr)
        return 1
    with ctx:
        try:
            attr_ex = ctx.query_device_ex()
        except PyverbsError:
            print('Failed to query device props', file=sys.stderr)
            return 2
        nports = attr_ex.orig_attr.phys_port_cnt
        if port and port > nports:
            print('Invalid port requested for device', file=sys.stderr)
            return 4
        print('\n'.join(device_lines(dev, ctx, attr_ex, verbose)))
        for p in range(1, nports + 1):
            if port and p != port:
                continue
            try:
                print('\n'.join(port_lines(dev, ctx, p, verbose)))
            except PyverbsError as err:
                print(f'Failed to query port {p} props: {err}',
                      file=sys.stderr)
                return 1
    return 0


def positive_int(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f'invalid port {text!r}')
    if value <= 0 or value > 255:
        raise argparse.ArgumentTypeError(
            f'port {text!r} out of range 1..255')
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('-d', '--ib-dev', metavar='DEV',
                        help='use device DEV (default: every device)')
    parser.add_argument('-i', '--ib-port', metavar='PORT', type=positive_int,
                        default=0,
                        help='print only port PORT (default: every port)')
    parser.add_argument('-l', '--list', action='store_true',
                        help='print only the device names')
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print every attribute of the device(s)')


def run(args: argparse.Namespace) -> int:
    devices = device_list()
    if devices is None:
        return 255
    if args.list:
        print('%d HCA%s found:' % (len(devices),
                                    '' if len(devices) == 1 else 's'))
        for dev in devices:
            print(f'\t{dev.name.decode()}')
        print()
        return 0
    if args.ib_dev is not None:
        devices = [d for d in devices if d.name.decode() == args.ib_dev]
        if not devices:
            print(f"IB device '{args.ib_dev}' wasn't found",
                  file=sys.stderr)
            return 255
    elif not devices:
        print('No IB devices found', file=sys.stderr)
        return 255
    rc = 0
    for dev in devices:
        rc |= print_device(dev, args.ib_port, args.verbose)
    return rc
