# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's behaviour that its own tests and rdma_bw rely on, without
a device: IBA.GID/GUID taking their own type, GID(prefix=, guid=), the
end port address forms, get_end_port() with GUID/GID objects, every
rdma.path.from_string() form and its ValueErrors, IBDRPath, one-way
paths, set_end_port(), rdma.tools, the MAD modules' clear errors and the
optional device attributes (rxe has no board_id).  The ports of
python-rdma's tests (test_rdma_port_*.py) run in the VM."""
import pickle

import pytest

import rdma
import rdma.path
import rdma.satransactor
import rdma.tools
import rdma.umad
import rdma.vmad
from rdma import IBA
from rdma.path import IBDRPath, IBPath, from_string
from test_rdma_host import ZERO, _sysfs, fake_sysfs  # noqa: F401


def test_identifiers_take_their_own_type():
    guid = IBA.GUID('0002:c903:0000:1491')
    assert IBA.GUID(guid) == guid and type(IBA.GUID(guid)) is IBA.GUID
    gid = IBA.GID('fe80::2:c903:0:1491')
    assert IBA.GID(gid) == gid and type(IBA.GID(gid)) is IBA.GID
    assert IBA.GID(prefix=IBA.GID_DEFAULT_PREFIX, guid=guid) == gid
    assert IBA.GID(prefix=gid, guid=IBA.GUID('0:0:0:1')) == \
        IBA.GID('fe80::1')
    assert gid.prefix() == IBA.GUID('fe80:0:0:0') and gid.guid() == guid
    assert IBA.ZERO_GID == IBA.GID('::') and int(IBA.ZERO_GUID) == 0
    with pytest.raises(TypeError):
        IBA.GID(prefix='fe80', guid=guid)
    with pytest.raises(TypeError):
        IBA.GUID(gid)               # a GID is not a GUID
    with pytest.raises(ValueError):
        IBA.GUID(1 << 64)


def test_pack_into():
    buf = bytearray(20)
    IBA.GUID('0:0:0:1').pack_into(buf, 2)
    assert buf[2:10] == b'\0' * 7 + b'\1'
    IBA.GID('fe80::1').pack_into(buf, 4)
    assert buf[4:6] == b'\xfe\x80' and buf[19] == 1
    with pytest.raises(ValueError):
        IBA.GID('fe80::1').pack_into(buf, 5)
    with pytest.raises(TypeError):
        IBA.GUID().pack_into(b'read only')


def test_end_port_addresses():
    assert IBA.conv_ep_addr('fe80::1') == IBA.GID('fe80::1')
    assert IBA.conv_ep_addr('0:0:0:1') == IBA.GID('fe80::1')
    assert IBA.conv_ep_addr('0xc') == 12 and IBA.conv_ep_addr(7) == 7
    for bad in ('xx', '0:0:0', 'fe80::/', '0', '0xc000', ''):
        with pytest.raises(ValueError):
            IBA.conv_ep_addr(bad)
    assert IBA.conv_lid('0xc001', multicast=True) == 0xc001
    assert IBA.conv_lid('0', multicast=None) == 0
    for bad, mc in (('0xffff', True), ('0', False), ('0x10000', None)):
        with pytest.raises(ValueError):
            IBA.conv_lid(bad, multicast=mc)
    assert list(IBA.lid_lmc_range(0x13, 2)) == [0x10, 0x11, 0x12, 0x13]
    assert IBA.const_str('PORT_STATE_', 4) == 'PORT_STATE_ACTIVE'
    assert IBA.const_str('PORT_STATE_', 9, True) == 'PORT_STATE_??(9)'
    assert IBA.PR_RATE_10Gb0 == IBA.PR_RATE_10Gb == 3
    assert IBA.PKEY_MEMBERSHIP_BIT == 0x8000 and IBA.NODE_CA == 1


@pytest.mark.parametrize('text,cls,kw', [
    ('fe80::1', IBPath, dict(DGID=IBA.GID('fe80::1'))),
    ('0:0:0:1', IBPath, dict(DGID=IBA.GID('fe80::1'))),
    ('0002:c903:0000:1491', IBPath, dict(DGID=IBA.GID('fe80::2:c903:0:1491'))),
    ('12', IBPath, dict(DLID=12)),
    ('0xff', IBPath, dict(DLID=0xff)),
    ('0,1', IBDRPath, dict(drPath=b'\0\1')),
    ('0,1,', IBDRPath, dict(drPath=b'\0\1')),
    ('0,', IBDRPath, dict(drPath=b'\0')),
])
def test_from_string_forms(text, cls, kw):
    want = cls(None, **kw)
    got = from_string(text)
    assert type(got) is cls and got.__dict__ == want.__dict__
    again = from_string(repr(want))
    assert type(again) is cls and again.__dict__ == want.__dict__


@pytest.mark.parametrize('bad', [
    'xx', '0:0:0', 'fe80::/', 'fe80::1x', 'Moo()', 'IBPath()',
    'IBPath(end_port=Moo)', 'IBPath(XX=1)', 'IBPath(DLID=1x)',
    'IBPath(DLID=1 , x)', 'IBPath(DLID=1 , SLID=)', '1,2', '0,256',
    '0,x', 'IBDRPath(drPath=1:)', 'fe80::1%nosuch0', 'IBPath(, DLID=1)'])
def test_from_string_bad(bad):
    with pytest.raises(ValueError):
        from_string(bad)


def test_from_string_type():
    with pytest.raises(TypeError):
        from_string(12)


def test_repr_round_trip_without_attributes():
    p = IBPath(None)
    assert repr(p) == 'IBPath(end_port=None)'
    assert from_string(repr(p)).__dict__ == p.__dict__


def test_dr_path():
    p = IBDRPath(None, drPath=b'\0\1\3')
    assert (p.DLID, p.SLID, p.dqpn, p.qkey) == (0xffff, 0xffff, 0, 0)
    assert not p.has_grh and str(p) == 'DR Path (0, 1, 3)'
    assert 'drPath=0:1:3:' in repr(p)
    with pytest.raises(AttributeError):
        p.SGID_index
    assert pickle.loads(pickle.dumps(p)).__dict__ == \
        {k: v for k, v in p.__dict__.items() if k != 'end_port'} | \
        {'end_port': None}
    p.drDLID = 7
    assert str(p) == 'DR Path (0, 1, 3) -> 7'
    # python-rdma's Python 2 str literal is taken as bytes
    assert IBDRPath(None, drPath='\0\1').__dict__ == \
        from_string('0,1').__dict__
    with pytest.raises(TypeError):
        IBDRPath(None, drPath=[0, 1])
    with pytest.raises(ValueError):
        IBDRPath(None, drPath='\u0100')


def test_one_way_paths():
    p = IBPath(None, DGID=IBA.GID('fe80::1'), dqpn=5, sqpn=6, qkey=9)
    assert p.forward_path is p and p.return_path is p
    p._forward_path = IBPath(None, DLID=3)
    p._return_path = IBPath(None, DLID=4)
    fwd = p.forward_path
    assert fwd.DLID == 3 and (fwd.dqpn, fwd.sqpn, fwd.qkey) == (5, 6, 9)
    back = pickle.loads(pickle.dumps(p))
    assert back.forward_path.DLID == 3 and back.return_path.DLID == 4
    back.reverse()
    assert back.forward_path.DLID == 4 and back.forward_path.dqpn == 6
    c = p.copy()
    assert c.forward_path.DLID == 3 and c._forward_path is not \
        p._forward_path


def test_complete():
    p = IBPath(None, DLID=2, SLID=3, dqpn=1)
    assert not p.complete()                 # no end port
    p.end_port = object()
    assert p.complete()
    p.has_grh = True
    assert not p.complete()                 # no GIDs
    assert not IBPath(p.end_port, DLID=0, SLID=3, dqpn=1).complete()


def test_set_end_port(fake_sysfs):
    dev = rdma.get_device('roce0')
    p = IBPath(None, SGID=IBA.GID('::ffff:192.0.2.1'))
    p.set_end_port(dev)
    assert p.end_port is dev.end_ports[1]
    with pytest.raises(rdma.RDMAError, match='not found'):
        IBPath(None, SGID=IBA.GID('fe80::99')).set_end_port(dev)
    with pytest.raises(rdma.RDMAError, match='not found'):
        IBPath(None).set_end_port(dev)


def test_from_string_picks_the_port_of_a_local_gid(fake_sysfs):
    roce = rdma.get_end_port('roce0')
    ib = rdma.get_end_port('ib0')
    assert from_string('::ffff:192.0.2.1').end_port is roce
    assert from_string(str(ib.default_gid)).end_port is None  # link-local
    assert from_string('fe80::7%ib0').end_port is ib
    assert from_string('::ffff:192.0.2.1', require_ep=ib).end_port is ib
    # only the ports of require_dev are searched
    assert from_string('::ffff:192.0.2.1',
                       require_dev=ib.parent).end_port is None
    with pytest.raises(ValueError, match='requires device'):
        from_string('::ffff:192.0.2.1%roce0', require_dev=ib.parent)
    p = from_string(repr(IBPath(roce, DLID=3)))
    assert p.end_port is roce and p.DLID == 3


def test_pkey_index_other_membership(fake_sysfs):
    ib = rdma.get_end_port('ib0')          # P_Keys 0x7fff, 0xffff, 0
    assert IBPath(ib, pkey=0x7fff).pkey_index == 0
    assert IBPath(ib, pkey=0xffff).pkey_index == 1
    roce = rdma.get_end_port('roce0')      # 0xffff only: limited matches
    assert IBPath(roce, pkey=0x7fff).pkey_index == 0
    with pytest.raises(rdma.RDMAError, match='PKey 0x1234'):
        IBPath(roce, pkey=0x1234).pkey_index


def test_optional_device_files(fake_sysfs):
    dev = rdma.get_device('roce0')
    assert dev.board_id is None and dev.hw_ver is None
    assert dev.hca_type is None and dev.fw_ver == '1.0'
    with pytest.raises(rdma.RDMAError, match='does not exist'):
        dev.sys_image_guid


def test_tools():
    t = rdma.tools.clock_monotonic()
    assert isinstance(t, float) and rdma.tools.clock_monotonic() >= t
    S = rdma.tools.struct('S', [('a', 0, 1), ('b', list, 2), ('c', 5)])
    s = S(a=3)
    assert s.MASK == 1 and s.b == [] and s.c == 5
    s.b = [1]
    assert s.MASK == 3 and str(s) == 'a=3*,b=[1]*,c=5'
    with pytest.raises(TypeError, match='unexpected keyword'):
        S(d=1)
    with pytest.raises(AttributeError):
        s.d = 1
    with pytest.raises(ValueError):
        rdma.tools.struct('T', [('a',)])


def test_mad_modules_raise():
    for make in (lambda: rdma.vmad.VMAD(None, None),
                 lambda: rdma.satransactor.SATransactor(None),
                 lambda: rdma.umad.UMAD(None),
                 lambda: rdma.get_gmp_mad(None)):
        with pytest.raises(rdma.RDMAError, match='management datagrams'):
            make()
    assert issubclass(rdma.path.SAPathNotFoundError, rdma.MADClassError)
