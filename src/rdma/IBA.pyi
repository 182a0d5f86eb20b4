from typing_extensions import disjoint_base
from _typeshed import Incomplete

__all__ = ['GID', 'GUID', 'to_timer', 'PKEY_DEFAULT', 'PKEY_PARTIAL_DEFAULT', 'DEFAULT_PKEY', 'IB_DEFAULT_QP0_QKEY', 'IB_DEFAULT_QP1_QKEY', 'MTU_256', 'MTU_512', 'MTU_1024', 'MTU_2048', 'MTU_4096', 'PR_RATE_2Gb5', 'PR_RATE_10Gb', 'PR_RATE_30Gb', 'PR_RATE_5Gb', 'PR_RATE_20Gb', 'PR_RATE_40Gb', 'PR_RATE_60Gb', 'PR_RATE_80Gb', 'PR_RATE_120Gb', 'LID_PERMISSIVE', 'LID_MULTICAST', 'LID_RESERVED', 'GID_DEFAULT_PREFIX', 'ZERO_GID', 'ZERO_GUID', 'conv_lid', 'conv_ep_addr', 'lid_lmc_range', 'const_str', 'PKEY_MEMBERSHIP_BIT', 'PKEY_INVALID', 'NODE_CA', 'NODE_SWITCH', 'NODE_ROUTER', 'MAX_PORTS', 'INVALID_PORT', 'MAX_PKEYS', 'MAX_GUIDS', 'LID_COUNT_UNICAST', 'LID_COUNT_MULTICAST', 'LNH_GRH', 'LNH_IBA', 'PORT_STATE_DOWN', 'PORT_STATE_INIT', 'PORT_STATE_ARMED', 'PORT_STATE_ACTIVE', 'PHYS_PORT_STATE_SLEEP', 'PHYS_PORT_STATE_POLLING', 'PHYS_PORT_STATE_DISABLED', 'PHYS_PORT_STATE_CFG_TRAIN', 'PHYS_PORT_STATE_LINK_UP', 'PHYS_PORT_STATE_LINK_ERR_RECOVERY', 'PHYS_PORT_STATE_PHY_TEST', 'LINK_WIDTH_1x', 'LINK_WIDTH_4x', 'LINK_WIDTH_8x', 'LINK_WIDTH_12x', 'LINK_SPEED_2Gb5', 'LINK_SPEED_5Gb0', 'LINK_SPEED_10Gb0', 'LINK_SPEED_EXT_14Gb0', 'LINK_SPEED_EXT_25Gb7', 'PR_RATE_10Gb0', 'PR_RATE_30Gb0', 'PR_RATE_5Gb0', 'PR_RATE_20Gb0', 'PR_RATE_40Gb0', 'PR_RATE_60Gb0', 'PR_RATE_80Gb0', 'PR_RATE_120Gb0', 'PR_RATE_14Gb0', 'PR_RATE_56Gb0', 'PR_RATE_112Gb0', 'PR_RATE_168Gb0', 'PR_RATE_25Gb0', 'PR_RATE_100Gb0', 'PR_RATE_200Gb0', 'PR_RATE_300Gb0']

PKEY_DEFAULT: int
PKEY_PARTIAL_DEFAULT: int
DEFAULT_PKEY = PKEY_DEFAULT
IB_DEFAULT_QP0_QKEY: int
IB_DEFAULT_QP1_QKEY: int
MTU_256: int
MTU_512: int
MTU_1024: int
MTU_2048: int
MTU_4096: int
PR_RATE_2Gb5: int
PR_RATE_10Gb: int
PR_RATE_30Gb: int
PR_RATE_5Gb: int
PR_RATE_20Gb: int
PR_RATE_40Gb: int
PR_RATE_60Gb: int
PR_RATE_80Gb: int
PR_RATE_120Gb: int
LID_RESERVED: int
LID_MULTICAST: int
LID_PERMISSIVE: int
GID_DEFAULT_PREFIX: Incomplete
PKEY_MEMBERSHIP_BIT: int
PKEY_INVALID: int
NODE_CA: int
NODE_SWITCH: int
NODE_ROUTER: int
MAX_PORTS: int
INVALID_PORT: int
MAX_PKEYS: int
MAX_GUIDS: int
LID_COUNT_UNICAST: int
LID_COUNT_MULTICAST: int
LNH_GRH: int
LNH_IBA: int
PORT_STATE_DOWN: int
PORT_STATE_INIT: int
PORT_STATE_ARMED: int
PORT_STATE_ACTIVE: int
PHYS_PORT_STATE_SLEEP: int
PHYS_PORT_STATE_POLLING: int
PHYS_PORT_STATE_DISABLED: int
PHYS_PORT_STATE_CFG_TRAIN: int
PHYS_PORT_STATE_LINK_UP: int
PHYS_PORT_STATE_LINK_ERR_RECOVERY: int
PHYS_PORT_STATE_PHY_TEST: int
LINK_WIDTH_1x: int
LINK_WIDTH_4x: int
LINK_WIDTH_8x: int
LINK_WIDTH_12x: int
LINK_SPEED_2Gb5: int
LINK_SPEED_5Gb0: int
LINK_SPEED_10Gb0: int
LINK_SPEED_EXT_14Gb0: int
LINK_SPEED_EXT_25Gb7: int
PR_RATE_10Gb0: int
PR_RATE_30Gb0: int
PR_RATE_5Gb0: int
PR_RATE_20Gb0: int
PR_RATE_40Gb0: int
PR_RATE_60Gb0: int
PR_RATE_80Gb0: int
PR_RATE_120Gb0: int
PR_RATE_14Gb0: int
PR_RATE_56Gb0: int
PR_RATE_112Gb0: int
PR_RATE_168Gb0: int
PR_RATE_25Gb0: int
PR_RATE_100Gb0: int
PR_RATE_200Gb0: int
PR_RATE_300Gb0: int

def to_timer(seconds): ...
def conv_lid(s, multicast: bool | None = False) -> int: ...
def lid_lmc_range(lid, lmc) -> range: ...
def const_str(prefix, value, with_int: bool = False, me=None) -> str: ...
def conv_ep_addr(s): ...

@disjoint_base
class _Identifier(bytes):
    def __int__(self) -> int: ...
    __index__ = __int__
    def __reduce__(self): ...
    def __eq__(self, other): ...
    def __ne__(self, other): ...
    def __hash__(self): ...
    def pack_into(self, buf, offset: int = 0) -> None: ...

class GID(_Identifier):
    def __new__(cls, s=None, raw: bool = False, prefix=None, guid=None): ...
    def prefix(self): ...
    def guid(self): ...
    def ipv4(self): ...

class GUID(_Identifier):
    def __new__(cls, s=None, raw: bool = False): ...

ZERO_GID: GID
ZERO_GUID: GUID
