# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""InfiniBand Architecture values that the verbs part of python-rdma uses.

python-rdma's rdma.IBA also describes every MAD and SA record; pyverbs-c
carries only what the verbs API needs: GID and GUID, the default keys,
MTU and rate codes, LID ranges and the timer encoding of IBA 9.7.6.1.3.
"""
import ipaddress
import math
import struct

__all__ = ['GID', 'GUID', 'to_timer', 'PKEY_DEFAULT', 'PKEY_PARTIAL_DEFAULT',
           'DEFAULT_PKEY', 'IB_DEFAULT_QP0_QKEY', 'IB_DEFAULT_QP1_QKEY',
           'MTU_256', 'MTU_512', 'MTU_1024', 'MTU_2048', 'MTU_4096',
           'PR_RATE_2Gb5', 'PR_RATE_10Gb', 'PR_RATE_30Gb', 'PR_RATE_5Gb',
           'PR_RATE_20Gb', 'PR_RATE_40Gb', 'PR_RATE_60Gb', 'PR_RATE_80Gb',
           'PR_RATE_120Gb', 'LID_PERMISSIVE', 'LID_MULTICAST',
           'LID_RESERVED', 'GID_DEFAULT_PREFIX']

PKEY_DEFAULT = 0xFFFF
PKEY_PARTIAL_DEFAULT = 0x7FFF
# The document's multi-destination example spells it this way.
DEFAULT_PKEY = PKEY_DEFAULT
IB_DEFAULT_QP0_QKEY = 0
IB_DEFAULT_QP1_QKEY = 0x80010000

MTU_256 = 1
MTU_512 = 2
MTU_1024 = 3
MTU_2048 = 4
MTU_4096 = 5

# PathRecord rate codes (the same numbers as enum ibv_rate)
PR_RATE_2Gb5 = 2
PR_RATE_10Gb = 3
PR_RATE_30Gb = 4
PR_RATE_5Gb = 5
PR_RATE_20Gb = 6
PR_RATE_40Gb = 7
PR_RATE_60Gb = 8
PR_RATE_80Gb = 9
PR_RATE_120Gb = 10

LID_RESERVED = 0
LID_MULTICAST = 0xC000
LID_PERMISSIVE = 0xFFFF
GID_DEFAULT_PREFIX = 0xFE80 << 48


def to_timer(seconds):
    """The IBA timer code (0..31) of the shortest period 4.096 us * 2**code
    that is at least seconds long."""
    if seconds < 0:
        raise ValueError(f'a time cannot be negative: {seconds!r}')
    if seconds <= 4.096E-6:
        return 0
    return min(31, math.ceil(math.log2(seconds / 4.096E-6)))


class _Identifier(bytes):
    """A fixed-size identifier in network byte order: an int (big
    endian), equal to the same bytes, pickled as raw bytes."""

    def __int__(self):
        return int.from_bytes(self, 'big')

    __index__ = __int__

    def __reduce__(self):
        return (type(self), (bytes(self), True))

    def __eq__(self, other):
        return isinstance(other, bytes) and bytes(self) == bytes(other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return bytes.__hash__(self)


class GID(_Identifier):
    """A 16-byte GID in network order, shown in IPv6 notation.

    GID('fe80::1'), GID('fe80:0000:...') (sysfs format), GID(an int) or
    GID(16 raw bytes, raw=True).  Compares equal to the same 16 bytes.
    """

    def __new__(cls, s=None, raw=False):
        if s is None:
            return super().__new__(cls, 16)
        if isinstance(s, GID):
            return super().__new__(cls, bytes(s))
        if raw:
            data = bytes(s)
            if len(data) != 16:
                raise ValueError(f'a raw GID is 16 bytes, not {len(data)}')
            return super().__new__(cls, data)
        if isinstance(s, int):
            if not 0 <= s < 1 << 128:
                raise ValueError(f'{s:#x} does not fit in a GID')
            return super().__new__(cls, s.to_bytes(16, 'big'))
        if isinstance(s, (bytes, bytearray)):
            s = bytes(s).decode('ascii', 'replace')
        if not isinstance(s, str):
            raise TypeError(f'a GID is made from a str, an int or raw '
                            f'bytes, not {type(s).__name__}')
        try:
            addr = ipaddress.IPv6Address(s.strip())
        except ValueError:
            raise ValueError(f'{s!r} is not a valid GID') from None
        return super().__new__(cls, addr.packed)

    def __str__(self):
        addr = ipaddress.IPv6Address(bytes(self))
        if addr.ipv4_mapped is not None:
            return f'::ffff:{addr.ipv4_mapped}'
        return str(addr)

    def __repr__(self):
        return f"GID('{self}')"


    @property
    def prefix(self):
        """The upper 64 bits (the subnet prefix)."""
        return int(self) >> 64

    def guid(self):
        """The lower 64 bits, as a GUID."""
        return GUID(bytes(self)[8:], raw=True)

    def ipv4(self):
        """The IPv4 address of an IPv4-mapped GID (RoCE), else None."""
        mapped = ipaddress.IPv6Address(bytes(self)).ipv4_mapped
        return None if mapped is None else str(mapped)


class GUID(_Identifier):
    """An 8-byte EUI-64, shown as four groups of hex digits
    ('0002:c903:0000:1491', the sysfs format)."""

    def __new__(cls, s=None, raw=False):
        if s is None:
            return super().__new__(cls, 8)
        if raw:
            data = bytes(s)
            if len(data) != 8:
                raise ValueError(f'a raw GUID is 8 bytes, not {len(data)}')
            return super().__new__(cls, data)
        if isinstance(s, int):
            if not 0 <= s < 1 << 64:
                raise ValueError(f'{s:#x} does not fit in a GUID')
            return super().__new__(cls, struct.pack('>Q', s))
        if not isinstance(s, str):
            raise TypeError(f'a GUID is made from a str, an int or raw '
                            f'bytes, not {type(s).__name__}')
        parts = s.strip().split(':')
        if len(parts) != 4 or not all(1 <= len(p) <= 4 for p in parts):
            raise ValueError(f'{s!r} is not a valid GUID')
        try:
            words = [int(p, 16) for p in parts]
        except ValueError:
            raise ValueError(f'{s!r} is not a valid GUID') from None
        return super().__new__(cls, struct.pack('>4H', *words))

    def __str__(self):
        return ':'.join(f'{w:04x}' for w in struct.unpack('>4H', self))

    def __repr__(self):
        return f"GUID('{self}')"

