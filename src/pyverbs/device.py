# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Devices and device contexts.

Context opens an RDMA device (Context(name='rxe0')) and queries it:
query_device() -> DeviceAttr, query_device_ex() -> DeviceAttrEx,
query_port() -> PortAttr, query_gid*() -> GID / GIDEntry, query_pkey(),
get_async_event() -> AsyncEvent.  get_device_list() lists the devices.
DM(context, AllocDmAttr(length)) allocates device memory; FdArr holds an
array of file descriptors.

The classes are implemented in C (pyverbs._verbs); this module adds the
helpers that decode numbers into text and the printed formats, which are
upstream pyverbs' own.
"""
import operator
import weakref  # noqa: F401  (upstream's module exports it)

from pyverbs import _verbs
from pyverbs._verbs import (AllocDmAttr, AsyncEvent, CQModerationCaps,
                            Context, DeviceAttr, DeviceAttrEx, DM, FdArr,
                            GIDEntry, ODPCaps,
                            PacketPacingCaps, PCIAtomicCaps, PortAttr,
                            QueryDeviceExInput, RSSCaps, TMCaps, TSOCaps)
from pyverbs.base import PyverbsObject, PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (PyverbsError,  # noqa: F401
                                   PyverbsRDMAError, PyverbsUserError)
from pyverbs._unimplemented import fill_missing
from pyverbs.utils import gid_str


def _be64toh(num):
    """Byte-swap a 64-bit unsigned value (the host is little endian on
    every platform rdma-core's pyverbs supports; so is be64toh here)."""
    num = operator.index(num)
    return int.from_bytes(num.to_bytes(8, 'little'), 'big')


class Device(PyverbsObject):
    """
    An RDMA device as listed by get_device_list(): name (bytes), node_type,
    transport_type, guid (int, host order) and index.  Not needed to create
    objects: open a Context by name.
    """
    def __init__(self, name, guid, node_type, transport_type, index=0):
        super().__init__()
        self._name = name
        self._guid = guid
        self._node_type = node_type
        self._transport_type = transport_type
        self._index = index

    @property
    def name(self):
        return self._name

    @property
    def node_type(self):
        return self._node_type

    @property
    def transport_type(self):
        return self._transport_type

    @property
    def guid(self):
        return self._guid

    @property
    def index(self):
        return self._index

    def __str__(self):
        return 'Device {dev}, node type {ntype}, transport type {ttype},' \
               ' guid {guid}, index {index}'.format(
                   dev=self.name.decode(),
                   ntype=translate_node_type(self.node_type),
                   ttype=translate_transport_type(self.transport_type),
                   guid=guid_to_hex(self.guid), index=self._index)


def get_device_list():
    """The RDMA devices of this machine, as Device objects
    (ibv_get_device_list)."""
    return [Device(name, guid, node, transport, index)
            for name, node, transport, guid, index in _verbs._device_list()]


def rdma_get_devices():
    """The RDMA devices librdmacm can use, as Device objects
    (rdma_get_devices)."""
    return [Device(name, guid, node, transport, index)
            for name, node, transport, guid, index
            in _verbs._rdma_device_list()]


if not getattr(_verbs, '_HAVE_RDMACM', 0):
    # a build without librdmacm: fill_missing() makes rdma_get_devices a
    # placeholder naming the library
    del rdma_get_devices


# ---- translators: numbers to text, as upstream prints them ----

_DEVICE_CAPS = dict(_verbs._DEVICE_CAP_NAMES)
_PORT_CAPS = dict(_verbs._PORT_CAP_NAMES)
_PORT_CAPS2 = dict(_verbs._PORT_CAP2_NAMES)
_ODP_GENERAL = dict(_verbs._ODP_GENERAL_NAMES)
_ODP_TRANSPORT = dict(_verbs._ODP_TRANSPORT_NAMES)
# newer than the rdma-core 44 headers the name table is made from (58):
# printed after the others, as upstream does
_ODP_TRANSPORT.update({1 << 6: 'IBV_ODP_SUPPORT_FLUSH',
                       1 << 7: 'IBV_ODP_SUPPORT_ATOMIC_WRITE'})
_EVENT_TYPES = dict(_verbs._EVENT_TYPE_NAMES)
# Upstream prints this one with a leading dot; kept for identical output.
_EVENT_TYPES[16] = '.' + _EVENT_TYPES[16]
# newer than the rdma-core 44 headers the name table is made from (62)
_EVENT_TYPES.setdefault(20, 'IBV_EVENT_DEVICE_SPEED_CHANGE')


def translate_gid_type(gid_type):
    types = {0: 'IB', 1: 'RoCEv1', 2: 'RoCEv2'}
    try:
        return types[gid_type]
    except KeyError:
        return f'Unknown gid_type ({gid_type})'


def guid_format(num):
    """
    A GUID as printed by upstream: the 64-bit value (network order, as in
    DeviceAttr.node_guid) as 'xxxx:xxxx:xxxx:xxxx'.
    """
    hex_str = '%016x' % _be64toh(num)
    return ':'.join(hex_str[i:i + 4] for i in range(0, 16, 4))


def translate_transport_type(transport_type):
    types = {0: 'IB', 1: 'IWARP', 2: 'USNIC', 3: 'USNIC UDP'}
    try:
        return types[transport_type]
    except KeyError:
        return 'Unknown'


def translate_node_type(node_type):
    types = {1: 'CA', 2: 'Switch', 3: 'Router', 4: 'RNIC', 5: 'USNIC',
             6: 'USNIC UDP'}
    try:
        return types[node_type]
    except KeyError:
        return 'Unknown'


def guid_to_hex(node_guid):
    return hex(node_guid).replace('L', '').replace('0x', '')


def port_state_to_str(port_state):
    states = {0: 'NOP', 1: 'Down', 2: 'Init', 3: 'Armed', 4: 'Active',
              5: 'Defer'}
    try:
        return '{s} ({n})'.format(s=states[port_state], n=port_state)
    except KeyError:
        return 'Invalid state ({s})'.format(s=port_state)


def translate_mtu(mtu):
    mtus = {1: 256, 2: 512, 3: 1024, 4: 2048, 5: 4096}
    try:
        return '{s} ({n})'.format(s=mtus[mtu], n=mtu)
    except KeyError:
        return 'Invalid MTU ({m})'.format(m=mtu)


def translate_link_layer(ll):
    layers = {0: 'Unspecified', 1: 'InfiniBand', 2: 'Ethernet'}
    try:
        return layers[ll]
    except KeyError:
        return 'Invalid link layer ({ll})'.format(ll=ll)


def translate_port_cap_flags(flags):
    return str_from_flags(flags, _PORT_CAPS)


def translate_port_cap_flags2(flags):
    return str_from_flags(flags, _PORT_CAPS2)


def translate_device_caps(flags):
    return str_from_flags(flags, _DEVICE_CAPS)


def str_from_flags(flags, dictionary):
    """The names of the bits of flags found in dictionary ({bit: name}),
    each on a new line indented by two spaces, as upstream prints them."""
    str_flags = '\n  '
    for bit in dictionary:
        if flags & bit:
            str_flags += dictionary[bit]
            str_flags += '\n  '
    return str_flags


def phys_state_to_str(phys):
    states = {1: 'Sleep', 2: 'Polling', 3: 'Disabled',
              4: 'Port configuration training', 5: 'Link up',
              6: 'Link error recovery', 7: 'Phy test'}
    try:
        return '{s} ({n})'.format(s=states[phys], n=phys)
    except KeyError:
        return 'Invalid physical state'


def width_to_str(width):
    widths = {1: '1X', 2: '4X', 4: '8X', 8: '12X', 16: '2X'}
    try:
        return '{s} ({n})'.format(s=widths[width], n=width)
    except KeyError:
        return 'Invalid width'


def speed_to_str(active_speed, active_speed_ex=0):
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


def translate_event_type(event_type):
    try:
        return _EVENT_TYPES[event_type]
    except KeyError:
        return f'Unknown event_type ({event_type})'


# ---- printed formats ----

def _device_attr_str(self):
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


def _odp_caps_str(self):
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


def _port_attr_str(self):
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


def _gid_entry_gid_str(self):
    """The GID as 'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx'."""
    return gid_str(self.gid_subnet_prefix, self.gid_interface_id)


def _gid_entry_str(self):
    f = '{:<24}: {:<20}\n'
    return f.format('GID', self.gid_str()) +\
        f.format('GID Index', self.gid_index) +\
        f.format('Port number', self.port_num) +\
        f.format('GID type', translate_gid_type(self.gid_type)) +\
        f.format('Ndev ifindex', self.ndev_ifindex)


def _async_event_str(self):
    f = '{:<24}: {:<20}\n'
    return f.format('Event Type', translate_event_type(self.event_type))


DeviceAttr.__str__ = _device_attr_str
ODPCaps.__str__ = _odp_caps_str
PortAttr.__str__ = _port_attr_str
if not hasattr(PortAttr, 'active_speed_ex'):
    # a build against rdma-core < 49, whose ibv_port_attr lacks the field:
    # 0, "not reported", as a library that does not fill it says
    PortAttr.active_speed_ex = property(
        lambda self: 0, doc='The extended active speed (rdma-core 49 and '
        'later; 0 from this build, made against an older one).')
GIDEntry.gid_str = _gid_entry_gid_str
GIDEntry.__str__ = _gid_entry_str
AsyncEvent.__str__ = _async_event_str

fill_missing(globals(), __name__)
