# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""InfiniBand Architecture values that the verbs part of python-rdma uses.

python-rdma's rdma.IBA also describes every MAD and SA record; pyverbs-c
carries only what the verbs API needs: GID and GUID, the default keys,
MTU and rate codes, LID ranges and the timer encoding of IBA 9.7.6.1.3.
"""
import ipaddress
import math
import struct
import sys

__all__ = ['GID', 'GUID', 'to_timer', 'PKEY_DEFAULT', 'PKEY_PARTIAL_DEFAULT',
           'DEFAULT_PKEY', 'IB_DEFAULT_QP0_QKEY', 'IB_DEFAULT_QP1_QKEY',
           'MTU_256', 'MTU_512', 'MTU_1024', 'MTU_2048', 'MTU_4096',
           'PR_RATE_2Gb5', 'PR_RATE_10Gb', 'PR_RATE_30Gb', 'PR_RATE_5Gb',
           'PR_RATE_20Gb', 'PR_RATE_40Gb', 'PR_RATE_60Gb', 'PR_RATE_80Gb',
           'PR_RATE_120Gb', 'LID_PERMISSIVE', 'LID_MULTICAST',
           'LID_RESERVED', 'GID_DEFAULT_PREFIX', 'ZERO_GID', 'ZERO_GUID',
           'conv_lid', 'conv_ep_addr', 'lid_lmc_range', 'const_str',
           'PKEY_MEMBERSHIP_BIT', 'PKEY_INVALID', 'NODE_CA', 'NODE_SWITCH',
           'NODE_ROUTER', 'MAX_PORTS', 'INVALID_PORT', 'MAX_PKEYS',
           'MAX_GUIDS', 'LID_COUNT_UNICAST', 'LID_COUNT_MULTICAST',
           'LNH_GRH', 'LNH_IBA', 'PORT_STATE_DOWN', 'PORT_STATE_INIT',
           'PORT_STATE_ARMED', 'PORT_STATE_ACTIVE', 'PHYS_PORT_STATE_SLEEP',
           'PHYS_PORT_STATE_POLLING', 'PHYS_PORT_STATE_DISABLED',
           'PHYS_PORT_STATE_CFG_TRAIN', 'PHYS_PORT_STATE_LINK_UP',
           'PHYS_PORT_STATE_LINK_ERR_RECOVERY', 'PHYS_PORT_STATE_PHY_TEST',
           'LINK_WIDTH_1x', 'LINK_WIDTH_4x', 'LINK_WIDTH_8x',
           'LINK_WIDTH_12x', 'LINK_SPEED_2Gb5', 'LINK_SPEED_5Gb0',
           'LINK_SPEED_10Gb0', 'LINK_SPEED_EXT_14Gb0',
           'LINK_SPEED_EXT_25Gb7', 'PR_RATE_10Gb0', 'PR_RATE_30Gb0',
           'PR_RATE_5Gb0', 'PR_RATE_20Gb0', 'PR_RATE_40Gb0',
           'PR_RATE_60Gb0', 'PR_RATE_80Gb0', 'PR_RATE_120Gb0',
           'PR_RATE_14Gb0', 'PR_RATE_56Gb0', 'PR_RATE_112Gb0',
           'PR_RATE_168Gb0', 'PR_RATE_25Gb0', 'PR_RATE_100Gb0',
           'PR_RATE_200Gb0', 'PR_RATE_300Gb0']

NODE_CA = 1
NODE_SWITCH = 2
NODE_ROUTER = 3

MAX_PORTS = 254
INVALID_PORT = 255
MAX_PKEYS = 65536
MAX_GUIDS = 256

PKEY_DEFAULT = 0xFFFF
PKEY_PARTIAL_DEFAULT = 0x7FFF
#: the full-member bit of a P_Key
PKEY_MEMBERSHIP_BIT = 0x8000
PKEY_INVALID = 0
# The document's multi-destination example spells it this way.
DEFAULT_PKEY = PKEY_DEFAULT
IB_DEFAULT_QP0_QKEY = 0
IB_DEFAULT_QP1_QKEY = 0x80010000

MTU_256 = 1
MTU_512 = 2
MTU_1024 = 3
MTU_2048 = 4
MTU_4096 = 5

# PathRecord rate codes (the same numbers as enum ibv_rate).  python-rdma
# spells them PR_RATE_10Gb0 ...; the shorter PR_RATE_10Gb ... are kept.
PR_RATE_2Gb5 = 2
PR_RATE_10Gb0 = PR_RATE_10Gb = 3
PR_RATE_30Gb0 = PR_RATE_30Gb = 4
PR_RATE_5Gb0 = PR_RATE_5Gb = 5
PR_RATE_20Gb0 = PR_RATE_20Gb = 6
PR_RATE_40Gb0 = PR_RATE_40Gb = 7
PR_RATE_60Gb0 = PR_RATE_60Gb = 8
PR_RATE_80Gb0 = PR_RATE_80Gb = 9
PR_RATE_120Gb0 = PR_RATE_120Gb = 10
PR_RATE_14Gb0 = 11
PR_RATE_56Gb0 = 12
PR_RATE_112Gb0 = 13
PR_RATE_168Gb0 = 14
PR_RATE_25Gb0 = 15
PR_RATE_100Gb0 = 16
PR_RATE_200Gb0 = 17
PR_RATE_300Gb0 = 18

LID_RESERVED = 0
LID_MULTICAST = 0xC000
LID_PERMISSIVE = 0xFFFF
LID_COUNT_UNICAST = 0xC000
LID_COUNT_MULTICAST = 0xFFFE - 0xC000 + 1
GID_DEFAULT_PREFIX = 0xFE80 << 48

# LRH link next header bits
LNH_GRH = 1
LNH_IBA = 2

# PortInfo port states and physical port states (sysfs state, phys_state)
PORT_STATE_DOWN = 1
PORT_STATE_INIT = 2
PORT_STATE_ARMED = 3
PORT_STATE_ACTIVE = 4
PHYS_PORT_STATE_SLEEP = 1
PHYS_PORT_STATE_POLLING = 2
PHYS_PORT_STATE_DISABLED = 3
PHYS_PORT_STATE_CFG_TRAIN = 4
PHYS_PORT_STATE_LINK_UP = 5
PHYS_PORT_STATE_LINK_ERR_RECOVERY = 6
PHYS_PORT_STATE_PHY_TEST = 7

# PortInfo link widths and speeds (bit masks)
LINK_WIDTH_1x = 0x1
LINK_WIDTH_4x = 0x2
LINK_WIDTH_8x = 0x4
LINK_WIDTH_12x = 0x8
LINK_SPEED_2Gb5 = 0x1
LINK_SPEED_5Gb0 = 0x2
LINK_SPEED_10Gb0 = 0x4
LINK_SPEED_EXT_14Gb0 = 0x1
LINK_SPEED_EXT_25Gb7 = 0x2


def conv_lid(s, multicast=False):
    """The LID written in s (decimal or 0x hex).  multicast False: it must
    be a unicast LID (1..0xBFFF); True: a multicast one (0xC000..0xFFFE);
    None: any 16-bit value.  ValueError otherwise."""
    lid = int(s, 0)
    if not 0 <= lid <= 0xFFFF:
        raise ValueError(f'{s!r} does not fit in a LID')
    if multicast is None:
        return lid
    if multicast:
        ok = LID_MULTICAST <= lid < LID_PERMISSIVE
    else:
        ok = LID_RESERVED < lid < LID_MULTICAST
    if not ok:
        kind = 'multicast' if multicast else 'unicast'
        raise ValueError(f'{s!r} is not a {kind} LID')
    return lid


def lid_lmc_range(lid, lmc):
    """The LIDs a port with base LID lid and LID mask count lmc answers
    to (a range)."""
    span = 1 << lmc
    first = lid & ~(span - 1)
    return range(first, first + span)


def const_str(prefix, value, with_int=False, me=None):
    """The name of the constant of module me (default: this one) that
    starts with prefix and equals value; "PREFIX?value" (with_int:
    "PREFIX??(value)") when none does; with_int appends "(value)"."""
    names = vars(sys.modules[__name__] if me is None else me)
    for k, v in names.items():
        if k.startswith(prefix) and isinstance(v, int) and v == value:
            return f'{k}({value})' if with_int else k
    return f'{prefix}??({value})' if with_int else f'{prefix}?{value}'


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
    _size = 0

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

    def pack_into(self, buf, offset=0):
        """Write the identifier's bytes into buf (a writable buffer) at
        offset."""
        view = memoryview(buf).cast('B')
        if not 0 <= offset <= len(view) - self._size:
            raise ValueError(f'{self._size} bytes do not fit at offset '
                             f'{offset} of a {len(view)}-byte buffer')
        view[offset:offset + self._size] = self

    @classmethod
    def _common(cls, s, raw):
        """The bytes of s when it is another form than text (None, the
        class itself, raw bytes, an int), else None."""
        if s is None:
            return bytes(cls._size)
        if isinstance(s, cls):
            return bytes(s)
        if raw:
            data = bytes(s)
            if len(data) != cls._size:
                raise ValueError(f'a raw {cls.__name__} is {cls._size} '
                                 f'bytes, not {len(data)}')
            return data
        if isinstance(s, int):
            if not 0 <= s < 1 << (8 * cls._size):
                raise ValueError(f'{s:#x} does not fit in a {cls.__name__}')
            return s.to_bytes(cls._size, 'big')
        return None


class GID(_Identifier):
    """A 16-byte GID in network order, shown in IPv6 notation.

    GID('fe80::1'), GID('fe80:0000:...') (sysfs format), GID(an int),
    GID(16 raw bytes, raw=True), GID(another GID), or
    GID(prefix=..., guid=a GUID) (prefix: an int, 8 bytes, a GUID or a GID
    whose upper half is taken).  Compares equal to the same 16 bytes.
    """
    _size = 16

    def __new__(cls, s=None, raw=False, prefix=None, guid=None):
        if s is None and (prefix is not None or guid is not None):
            return super().__new__(cls, _prefix_bytes(prefix) +
                                   bytes(GUID(guid)))
        data = cls._common(s, raw)
        if data is not None:
            return super().__new__(cls, data)
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

    def prefix(self):
        """The upper 64 bits (the subnet prefix), as a GUID (int() of it
        is the number)."""
        return GUID(bytes(self)[:8], raw=True)

    def guid(self):
        """The lower 64 bits, as a GUID."""
        return GUID(bytes(self)[8:], raw=True)

    def ipv4(self):
        """The IPv4 address of an IPv4-mapped GID (RoCE), else None."""
        mapped = ipaddress.IPv6Address(bytes(self)).ipv4_mapped
        return None if mapped is None else str(mapped)


def _prefix_bytes(prefix):
    if isinstance(prefix, GID):
        return bytes(prefix)[:8]
    if isinstance(prefix, int):
        return bytes(GUID(prefix))
    if isinstance(prefix, (bytes, bytearray)) and len(prefix) == 8:
        return bytes(prefix)
    raise TypeError('prefix must be an int, 8 bytes, a GUID or a GID')


class GUID(_Identifier):
    """An 8-byte EUI-64, shown as four groups of hex digits
    ('0002:c903:0000:1491', the sysfs format; groups may be shortened:
    '0:0:0:1').  GUID(an int), GUID(8 raw bytes, raw=True) and
    GUID(another GUID) work too."""
    _size = 8

    def __new__(cls, s=None, raw=False):
        data = cls._common(s, raw)
        if data is not None:
            return super().__new__(cls, data)
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


#: the all-zero GID and GUID
ZERO_GID = GID()
ZERO_GUID = GUID()


def conv_ep_addr(s):
    """An end port address from text: a GID ('fe80::1'), a port GUID
    ('0002:c903:0000:1491', which stands for the link-local GID
    fe80::2:c903:0:1491) or a unicast LID ('12', '0xc').  Returns a GID or
    an int; a GID or an int given is returned as it is.  ValueError when
    s is none of them."""
    if isinstance(s, (GID, int)):
        return s
    for conv in (GID, lambda t: GID(prefix=GID_DEFAULT_PREFIX,
                                    guid=GUID(t)), conv_lid):
        try:
            return conv(s)
        except (ValueError, TypeError):
            pass
    raise ValueError(f'{s!r} is not a valid end port address (GID, port '
                     'GUID or LID)')
