# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Devices and device contexts."""
from pyverbs import _verbs
from pyverbs._verbs import Context
from pyverbs._unimplemented import fill_missing


class Device:
    """An RDMA device as listed by ibv_get_device_list()."""

    def __init__(self, name, guid, node_type, transport_type, index=0):
        self.name = name
        self.guid = guid
        self.node_type = node_type
        self.transport_type = transport_type
        self.index = index


def get_device_list():
    """The RDMA devices of this machine, as Device objects."""
    return [Device(name, guid, node, transport, index)
            for name, node, transport, guid, index in _verbs._device_list()]


fill_missing(globals(), __name__)
