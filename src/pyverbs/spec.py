# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Flow steering specifications: Spec, EthSpec, Ipv4ExtSpec, Ipv6Spec and
TcpUdpSpec.

The classes are implemented in C (pyverbs._verbs, spec.c: each object holds
its struct ibv_flow_spec_*), upstream's printed formats and type_to_str()
in pyverbs._formats; this module adds the class constants and the other
static helpers.

As upstream: a value given to a constructor without its mask gets the
field's full mask, a mask given without its value is ignored, multi-byte
fields are kept in network byte order (the properties use host order, and
EthSpec prints its ether type and VLAN tag as stored, as upstream does).

Differences from upstream pyverbs (rdma-core 44):

- Ipv6Spec() works without addresses (they stay '::', not matched), and its
  address properties and print() work for every address (upstream's read
  past the 16 bytes and raise ValueError).
- A MAC address property reads '' only for the zero address (upstream: for
  any address whose first byte is 0); a MAC must have exactly six groups.
- Every spec has a read-only spec_type (IBV_FLOW_SPEC_*, with
  IBV_FLOW_SPEC_INNER for an inner spec).
- Integer fields refuse bools and floats; type_to_str() raises PyverbsError
  for an unknown type (upstream: KeyError).
- _copy_data() (which wrote the spec to any address) is not provided: Flow
  copies the specs itself.
"""
import socket
import struct

from pyverbs._verbs import Spec, EthSpec, Ipv4ExtSpec, Ipv6Spec, TcpUdpSpec
from pyverbs.pyverbs_error import PyverbsError  # noqa: F401
from pyverbs._unimplemented import fill_missing

__all__ = ['Spec', 'EthSpec', 'Ipv4ExtSpec', 'Ipv6Spec', 'TcpUdpSpec',
           'U32_MASK']

U32_MASK = 0xffffffff


def _set_val_mask(default_mask, val=None, val_mask=None):
    """The (value, mask) a constructor stores: (0, 0) when val is None,
    else val with val_mask, or default_mask when no mask is given."""
    if val is None:
        return 0, 0
    return val, default_mask if val_mask is None else val_mask


def _set_mac(self, val):
    """The six bytes of a MAC address string, as a list ([0] * 6 for a
    false value)."""
    if not val:
        return EthSpec.ZERO_MAC[:]
    mac = [int(p, 16) for p in val.split(':')]
    if len(mac) != EthSpec.MAC_LEN or not all(0 <= b <= 0xff for b in mac):
        raise ValueError(f'{val!r} is not a MAC address')
    return mac


def _str_to_ip(ip_str):
    """'1.2.3.4' -> 0x01020304 (None stays None)."""
    return None if ip_str is None else \
        struct.unpack('!L', socket.inet_aton(ip_str))[0]


def _ip_to_str(ip):
    """0x01020304 -> '1.2.3.4'."""
    return socket.inet_ntoa(struct.pack('!L', ip))


Spec._set_val_mask = staticmethod(_set_val_mask)

EthSpec.MAC_LEN = 6
EthSpec.MAC_MASK = ('ff:' * EthSpec.MAC_LEN)[:-1]
EthSpec.ZERO_MAC = [0] * EthSpec.MAC_LEN
EthSpec._set_mac = _set_mac

Ipv4ExtSpec._str_to_ip = staticmethod(_str_to_ip)
Ipv4ExtSpec._ip_to_str = staticmethod(_ip_to_str)

Ipv6Spec.EMPTY_IPV6 = [0] * 16
Ipv6Spec.IPV6_MASK = ('ffff:' * 8)[:-1]
Ipv6Spec.FLOW_LABEL_MASK = 0xfffff

fill_missing(globals(), __name__)    # upstream's names: none left
