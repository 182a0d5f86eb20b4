from typing_extensions import disjoint_base
from _typeshed import Incomplete

__all__ = ['GID', 'GUID', 'to_timer', 'PKEY_DEFAULT', 'PKEY_PARTIAL_DEFAULT', 'DEFAULT_PKEY', 'IB_DEFAULT_QP0_QKEY', 'IB_DEFAULT_QP1_QKEY', 'MTU_256', 'MTU_512', 'MTU_1024', 'MTU_2048', 'MTU_4096', 'PR_RATE_2Gb5', 'PR_RATE_10Gb', 'PR_RATE_30Gb', 'PR_RATE_5Gb', 'PR_RATE_20Gb', 'PR_RATE_40Gb', 'PR_RATE_60Gb', 'PR_RATE_80Gb', 'PR_RATE_120Gb', 'LID_PERMISSIVE', 'LID_MULTICAST', 'LID_RESERVED', 'GID_DEFAULT_PREFIX']

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

def to_timer(seconds): ...

@disjoint_base
class _Identifier(bytes):
    def __int__(self) -> int: ...
    __index__ = __int__
    def __reduce__(self): ...
    def __eq__(self, other): ...
    def __ne__(self, other): ...
    def __hash__(self): ...

class GID(_Identifier):
    def __new__(cls, s=None, raw: bool = False): ...
    @property
    def prefix(self): ...
    def guid(self): ...
    def ipv4(self): ...

class GUID(_Identifier):
    def __new__(cls, s=None, raw: bool = False): ...
