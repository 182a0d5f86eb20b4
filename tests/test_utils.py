# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs.utils: the outputs are upstream pyverbs 44's (checked against
Debian's python3-pyverbs)."""
import struct

import pytest

import pyverbs.enums as e
import pyverbs.utils as u
from pyverbs.pyverbs_error import PyverbsUserError


def test_be64toh():
    assert u.be64toh(0x0102030405060708) == 0x0807060504030201
    assert u.be64toh(u.be64toh(0x1122334455667788)) == 0x1122334455667788
    assert u.be64toh(0) == 0
    for bad in (-1, 2 ** 64):
        with pytest.raises(struct.error):
            u.be64toh(bad)


def test_gid_str():
    # the two halves of union ibv_gid as read from memory (big-endian)
    assert (u.gid_str(0x80fe, 0x1234567890abcdef) ==
            'fe80:0000:0000:0000:efcd:ab90:7856:3412')
    assert u.gid_str(0, 0) == ':'.join(['0000'] * 8)


def test_gid_str_to_array():
    assert u.gid_str_to_array('fe80:0000:0000:0000:0202:c9ff:fe00:0001') == [
        'fe', '80', '00', '00', '00', '00', '00', '00', '02', '02', 'c9',
        'ff', 'fe', '00', '00', '01']


@pytest.mark.parametrize('bad, message', [
    ('fe80::1', "Invalid GID value (['fe80', '', '1'])"),
    ('fe80:0:0:0:0:0:0:1',
     "Invalid GID value (['fe80', '0', '0', '0', '0', '0', '0', '1'])"),
    ('', "Invalid GID value ([''])"),
])
def test_gid_str_to_array_bad_shape(bad, message):
    with pytest.raises(PyverbsUserError) as ex:
        u.gid_str_to_array(bad)
    assert str(ex.value) == message


def test_gid_str_to_array_bad_digits():
    with pytest.raises(ValueError):
        u.gid_str_to_array('zz80:0000:0000:0000:0202:c9ff:fe00:0001')


def test_qp_type_to_str():
    assert [u.qp_type_to_str(x) for x in (2, 3, 4, 8, 9, 10, 255, 7)] == [
        'RC', 'UC', 'UD', 'Raw Packet', 'XRCD_SEND', 'XRCD_RECV',
        'Driver QP', 'Unknown (7)']
    assert u.qp_type_to_str(e.IBV_QPT_RC) == 'RC'


def test_qp_state_to_str():
    assert [u.qp_state_to_str(x) for x in range(8)] == [
        'Reset', 'Init', 'RTR', 'RTS', 'SQD', 'SQE', 'Error', 'Unknown']
    assert u.qp_state_to_str(42) == 'Unknown (42)'


def test_mtu_to_str():
    assert [u.mtu_to_str(x) for x in range(7)] == [
        0, 256, 512, 1024, 2048, 4096, 0]


def test_access_flags_to_str():
    assert u.access_flags_to_str(0x7f) == (
        'Local write Remote write Remote read Remote atomic MW bind '
        'Zero based On demand ')
    assert u.access_flags_to_str(0) == ''
    assert u.access_flags_to_str(0x100005) == 'Local write Remote read '


def test_mig_state_to_str():
    assert [u.mig_state_to_str(x) for x in range(4)] == [
        'Migrated', 'Re-arm', 'Armed', 'Unknown (3)']


def test_rereg_error_to_str():
    assert [u.rereg_error_to_str(x) for x in (-1, -2, -3, -4, -5, 0, 3)] == [
        'IBV_REREG_MR_ERR_INPUT', 'IBV_REREG_MR_ERR_DONT_FORK_NEW',
        'IBV_REREG_MR_ERR_DO_FORK_OLD', 'IBV_REREG_MR_ERR_CMD',
        'IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW', 'Unknown error (0)',
        'Unknown error (3)']
