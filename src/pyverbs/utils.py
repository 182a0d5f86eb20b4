# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Small formatting helpers shared by pyverbs modules (and rdma-core's
tests): GIDs, QP types/states, MTUs, access flags, rereg errors.

Same outputs as upstream pyverbs; one deliberate difference:
qp_state_to_str() of an unknown state gives 'Unknown (<state>)' where
upstream printed the function object instead of the state.
"""
import struct

from pyverbs.pyverbs_error import PyverbsUserError as PyverbsUserError
from pyverbs.libibverbs_enums import (
    ibv_rereg_mr_err_code as ibv_rereg_mr_err_code)
import pyverbs.enums as e


def be64toh(num: int) -> int:
    """The 64-bit value num with its bytes read in big-endian order
    (a byte swap on little-endian hosts), as C's be64toh()."""
    value: int = struct.unpack('=Q', struct.pack('>Q', num))[0]
    return value


def gid_str(subnet_prefix: int, interface_id: int) -> str:
    """'xxxx:xxxx:...:xxxx' for a GID given as the two big-endian 64-bit
    halves of union ibv_gid (global.subnet_prefix, global.interface_id)."""
    digits = f'{be64toh(subnet_prefix):016x}{be64toh(interface_id):016x}'
    return ':'.join(digits[i:i + 4] for i in range(0, 32, 4))


def gid_str_to_array(val: str) -> list[str]:
    """Split 'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx' into its 16 bytes as
    two-digit hex strings (['fe', '80', ...]); PyverbsUserError if val does
    not have eight groups of four digits, ValueError if they are not hex."""
    groups = val.split(':')
    if len(groups) != 8 or any(len(g) != 4 for g in groups):
        raise PyverbsUserError(f'Invalid GID value ({groups})')
    int(''.join(groups), 16)        # the digits must be hex
    return [g[i:i + 2] for g in groups for i in (0, 2)]


_QP_TYPES: dict[int, str] = {
    e.IBV_QPT_RC: 'RC', e.IBV_QPT_UC: 'UC', e.IBV_QPT_UD: 'UD',
    e.IBV_QPT_RAW_PACKET: 'Raw Packet',
    e.IBV_QPT_XRC_SEND: 'XRCD_SEND', e.IBV_QPT_XRC_RECV: 'XRCD_RECV',
    e.IBV_QPT_DRIVER: 'Driver QP'}


def qp_type_to_str(qp_type: int) -> str:
    return _QP_TYPES.get(qp_type, f'Unknown ({qp_type})')


_QP_STATES: dict[int, str] = {
    e.IBV_QPS_RESET: 'Reset', e.IBV_QPS_INIT: 'Init',
    e.IBV_QPS_RTR: 'RTR', e.IBV_QPS_RTS: 'RTS',
    e.IBV_QPS_SQD: 'SQD', e.IBV_QPS_SQE: 'SQE',
    e.IBV_QPS_ERR: 'Error', e.IBV_QPS_UNKNOWN: 'Unknown'}


def qp_state_to_str(qp_state: int) -> str:
    return _QP_STATES.get(qp_state, f'Unknown ({qp_state})')


_MTUS: dict[int, int] = {
    e.IBV_MTU_256: 256, e.IBV_MTU_512: 512, e.IBV_MTU_1024: 1024,
    e.IBV_MTU_2048: 2048, e.IBV_MTU_4096: 4096}


def mtu_to_str(mtu: int) -> int:
    """The MTU in bytes (an int, despite the name); 0 if unknown."""
    return _MTUS.get(mtu, 0)


_ACCESS_FLAGS = ((e.IBV_ACCESS_LOCAL_WRITE, 'Local write'),
                 (e.IBV_ACCESS_REMOTE_WRITE, 'Remote write'),
                 (e.IBV_ACCESS_REMOTE_READ, 'Remote read'),
                 (e.IBV_ACCESS_REMOTE_ATOMIC, 'Remote atomic'),
                 (e.IBV_ACCESS_MW_BIND, 'MW bind'),
                 (e.IBV_ACCESS_ZERO_BASED, 'Zero based'),
                 (e.IBV_ACCESS_ON_DEMAND, 'On demand'))


def access_flags_to_str(flags: int) -> str:
    """The names of the access flags set, each followed by a space."""
    return ''.join(f'{name} ' for bit, name in _ACCESS_FLAGS if flags & bit)


_MIG_STATES: dict[int, str] = {
    e.IBV_MIG_MIGRATED: 'Migrated', e.IBV_MIG_REARM: 'Re-arm',
    e.IBV_MIG_ARMED: 'Armed'}


def mig_state_to_str(mig: int) -> str:
    return _MIG_STATES.get(mig, f'Unknown ({mig})')


_REREG_ERRORS: dict[int, str] = {
    v: v.name for v in ibv_rereg_mr_err_code}


def rereg_error_to_str(error: int) -> str:
    """The IBV_REREG_MR_ERR_* name of an ibv_rereg_mr() return value."""
    return _REREG_ERRORS.get(error, f'Unknown error ({error})')
