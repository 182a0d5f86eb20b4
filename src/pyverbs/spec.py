# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Flow steering specifications: Spec, EthSpec, Ipv4ExtSpec, Ipv6Spec and
TcpUdpSpec.

The classes are implemented in C (pyverbs._verbs, spec.c: each object holds
its struct ibv_flow_spec_*); this module adds upstream's printed formats,
class constants and static helpers.

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
from pyverbs.pyverbs_error import PyverbsError
from pyverbs._unimplemented import fill_missing
import pyverbs.enums as _e

__all__ = ['Spec', 'EthSpec', 'Ipv4ExtSpec', 'Ipv6Spec', 'TcpUdpSpec',
           'U32_MASK']

U32_MASK = 0xffffffff

_TYPES = {_e.IBV_FLOW_SPEC_ETH: 'IBV_FLOW_SPEC_ETH',
          _e.IBV_FLOW_SPEC_IPV4_EXT: 'IBV_FLOW_SPEC_IPV4_EXT',
          _e.IBV_FLOW_SPEC_IPV6: 'IBV_FLOW_SPEC_IPV6',
          _e.IBV_FLOW_SPEC_TCP: 'IBV_FLOW_SPEC_TCP',
          _e.IBV_FLOW_SPEC_UDP: 'IBV_FLOW_SPEC_UDP'}


def _type_to_str(spec_type):
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


def _set_val_mask(default_mask, val=None, val_mask=None):
    """The (value, mask) a constructor stores: (0, 0) when val is None,
    else val with val_mask, or default_mask when no mask is given."""
    if val is None:
        return 0, 0
    return val, default_mask if val_mask is None else val_mask


def _head(self):
    return f"{'Spec type':<16}: {self.type_to_str(self.spec_type):<20}\n" \
           f"{'Size':<16}: {self.size:<20}\n"


def _same(x):
    return x


def _printer(rows):
    """A __str__: the header, then for each (label, field, conv) of rows
    conv() of the field and of its mask, in upstream's columns."""
    def __str__(self):
        return _head(self) + ''.join(
            f'{label:<16}: {conv(getattr(self, f)):<20} '
            f'{conv(getattr(self, f + "_mask")):<20}\n'
            for label, f, conv in rows)
    return __str__


_IP_ROWS = (('Src IP', 'src_ip', _same), ('Dst IP', 'dst_ip', _same))
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


Spec.__str__ = _head
Spec.type_to_str = staticmethod(_type_to_str)
Spec._set_val_mask = staticmethod(_set_val_mask)

EthSpec.MAC_LEN = 6
EthSpec.MAC_MASK = ('ff:' * EthSpec.MAC_LEN)[:-1]
EthSpec.ZERO_MAC = [0] * EthSpec.MAC_LEN
EthSpec._set_mac = _set_mac
EthSpec.__str__ = _eth_str

Ipv4ExtSpec._str_to_ip = staticmethod(_str_to_ip)
Ipv4ExtSpec._ip_to_str = staticmethod(_ip_to_str)
Ipv4ExtSpec.__str__ = _ipv4_str

Ipv6Spec.EMPTY_IPV6 = [0] * 16
Ipv6Spec.IPV6_MASK = ('ffff:' * 8)[:-1]
Ipv6Spec.FLOW_LABEL_MASK = 0xfffff
Ipv6Spec.__str__ = _ipv6_str

TcpUdpSpec.__str__ = _tcp_udp_str

fill_missing(globals(), __name__)    # upstream's names: none left
