# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Devices and device contexts.

Context opens an RDMA device (Context(name='rxe0')) and queries it:
query_device() -> DeviceAttr, query_device_ex() -> DeviceAttrEx,
query_port() -> PortAttr, query_gid*() -> GID / GIDEntry, query_pkey(),
get_async_event() -> AsyncEvent.  get_device_list() lists the devices.
DM(context, AllocDmAttr(length)) allocates device memory; FdArr holds an
array of file descriptors.

The classes are implemented in C (pyverbs._verbs), their printed formats
(upstream pyverbs' own) in pyverbs._formats, with the helpers that decode
numbers into text, which this module re-exports.
"""
import weakref  # noqa: F401  (upstream's module exports it)

from pyverbs import _verbs
from pyverbs._verbs import (AllocDmAttr, AsyncEvent, CompCntrCaps,
                            CQModerationCaps, Context, DeviceAttr, DeviceAttrEx, DM, FdArr,
                            DMAHandle, DMMR,
                            GIDEntry, ODPCaps,
                            PacketPacingCaps, PCIAtomicCaps, PortAttr,
                            QueryDeviceExInput, RSSCaps, TMCaps, TSOCaps)
from pyverbs.base import PyverbsObject, PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (PyverbsError,  # noqa: F401
                                   PyverbsRDMAError, PyverbsUserError)
from pyverbs._unimplemented import fill_missing
from pyverbs.utils import gid_str  # noqa: F401
# upstream's number-to-text helpers; the printed formats of the classes are
# pyverbs._formats's too
from pyverbs._formats import (  # noqa: F401
    guid_format, guid_to_hex, phys_state_to_str, port_state_to_str,
    speed_to_str, str_from_flags, translate_device_caps, translate_event_type,
    translate_gid_type, translate_link_layer, translate_mtu,
    translate_node_type, translate_port_cap_flags, translate_port_cap_flags2,
    translate_transport_type, width_to_str)


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


if not hasattr(PortAttr, 'active_speed_ex'):
    # a build against rdma-core < 49, whose ibv_port_attr lacks the field:
    # 0, "not reported", as a library that does not fill it says
    PortAttr.active_speed_ex = property(
        lambda self: 0, doc='The extended active speed (rdma-core 49 and '
        'later; 0 from this build, made against an older one).')

fill_missing(globals(), __name__)
