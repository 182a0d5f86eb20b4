# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs.device: Context and its queries, the attribute objects, the
device list, async events, the translators and the printed formats.

The expected texts are upstream pyverbs' (rdma-core 44) as measured with
Debian's python3-pyverbs; test_matches_reference() compares everything with
it directly when it is installed in the VM.
"""
import errno
import os
import re
import select
import shutil
import subprocess
import sys
import threading
import time

import pytest

import pyverbs.device as d
import pyverbs.enums as e
from pyverbs import _verbs
from pyverbs.pd import PD
from rdma_helpers import needs_rdmacm
from pyverbs.pyverbs_error import (PyverbsError, PyverbsRDMAError,
                                   PyverbsUserError)

import ref_compare

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE_PYTHON = '/usr/bin/python3'


def lines_of(text):
    """(label, value) of each 'label : value' line of a printed object."""
    return [tuple(part.strip() for part in ln.split(':', 1))
            for ln in text.splitlines() if ':' in ln]


# ---------------------------------------------------------------- host --

class TestContextArguments:
    @pytest.mark.parametrize('kw', [{}, {'name': None}, {'attr': 1}])
    def test_name_required(self, kw):
        with pytest.raises(PyverbsUserError,
                           match='^Device name must be provided$'):
            d.Context(**kw)

    def test_keyword_only(self):
        with pytest.raises(TypeError):
            d.Context('rxe0')

    def test_unknown_keyword(self):
        with pytest.raises(TypeError, match='nme'):
            d.Context(nme='rxe0')

    @pytest.mark.parametrize('name', [3, 1.5, ['rxe0'], object()])
    def test_name_type(self, name):
        with pytest.raises(TypeError):
            d.Context(name=name)

    def test_name_embedded_nul(self):
        with pytest.raises(ValueError):
            d.Context(name='rxe0\0x')

    @pytest.mark.parametrize('name', ['no_such_dev', b'no_such_dev'])
    def test_no_such_device(self, name):
        with pytest.raises(PyverbsRDMAError,
                           match='^Failed to find device no_such_dev$'):
            d.Context(name=name)

    def test_no_such_device_with_attr(self):
        with pytest.raises(PyverbsRDMAError, match='Failed to find device'):
            d.Context(name='no_such_dev', attr=object())

    @pytest.mark.parametrize('fd', ['3', 1.0, 2 ** 40])
    def test_cmd_fd_type(self, fd):
        with pytest.raises((TypeError, OverflowError)):
            d.Context(cmd_fd=fd)

    def test_cmd_fd_bad(self):
        with pytest.raises(PyverbsRDMAError,
                           match='Failed to import device') as ex:
            d.Context(cmd_fd=-1)
        assert ex.value.error_code > 0

    def test_cmid_must_be_a_cmid(self):
        with pytest.raises(TypeError, match='cmid must be a CMID'):
            d.Context(cmid=object())
        from pyverbs.cmid import CMID
        if not getattr(_verbs, '_HAVE_RDMACM', 0):
            # no CMID in this build: the placeholder says why
            with pytest.raises(PyverbsUserError, match='needs librdmacm'):
                CMID()
            return
        with pytest.raises(PyverbsUserError, match='closed'):
            d.Context(cmid=CMID())      # an empty, never-opened CMID


class TestUnopenedContext:
    """A Context whose __init__ failed or never ran is closed: every
    method refuses it cleanly."""

    @pytest.fixture
    def bare(self):
        return d.Context.__new__(d.Context)

    @pytest.mark.parametrize('call', [
        lambda c: c.query_device(),
        lambda c: c.query_device_ex(),
        lambda c: c.query_port(1),
        lambda c: c.query_gid(1, 0),
        lambda c: c.query_gid_type(1, 0),
        lambda c: c.query_gid_ex(1, 0),
        lambda c: c.query_gid_table(4),
        lambda c: c.query_pkey(1, 0),
        lambda c: c.get_pkey_index(1, 0xffff),
        lambda c: c.query_port_speed(1),
        lambda c: c.query_rt_values_ex(),
        lambda c: c.get_async_event(),
        lambda c: c.fileno(),
        lambda c: c.cmd_fd,
        lambda c: c.num_comp_vectors,
    ])
    def test_methods_raise(self, bare, call):
        with pytest.raises(PyverbsUserError, match='closed'):
            call(bare)

    def test_properties(self, bare):
        assert bare.context == 0
        assert bare.name is None
        assert bare.closed
        assert 'closed' in repr(bare)

    def test_close_twice(self, bare):
        bare.close()
        bare.close()
        with bare:
            pass

    def test_failed_init_is_closed(self):
        c = d.Context.__new__(d.Context)
        with pytest.raises(PyverbsRDMAError):
            c.__init__(name='no_such_dev')
        assert c.closed
        with pytest.raises(PyverbsUserError):
            c.query_device()

    def test_pd_refuses_unopened(self, bare):
        with pytest.raises(PyverbsUserError):
            PD(bare)


class TestArgumentChecks:
    """Argument conversion happens before the open check, so it can be
    tested without a device."""

    @pytest.fixture
    def bare(self):
        return d.Context.__new__(d.Context)

    @pytest.mark.parametrize('call, exc', [
        (lambda c: c.query_port(), TypeError),
        (lambda c: c.query_port(-1), OverflowError),
        (lambda c: c.query_port(256), OverflowError),
        (lambda c: c.query_port('1'), TypeError),
        (lambda c: c.query_port(1.0), TypeError),
        (lambda c: c.query_gid(1), TypeError),
        (lambda c: c.query_gid(1, 2 ** 31), OverflowError),
        (lambda c: c.query_gid_ex(1, -1), OverflowError),
        (lambda c: c.query_gid_ex(1, 0, flags=None), TypeError),
        (lambda c: c.query_gid_table(-1), OverflowError),
        (lambda c: c.query_gid_table(None), TypeError),
        (lambda c: c.query_pkey(1, 'x'), TypeError),
        (lambda c: c.get_pkey_index(1, 0x10000), OverflowError),
        (lambda c: c.query_rt_values_ex(comp_mask=-1), OverflowError),
        (lambda c: c.query_device_ex(5), TypeError),
        (lambda c: c.query_device_ex(ex_input='x'), TypeError),
    ])
    def test_bad_arguments(self, bare, call, exc):
        with pytest.raises(exc):
            call(bare)

    def test_keyword_names(self, bare):
        # upstream's keyword names; the closed check comes after parsing
        for call in (lambda: bare.query_port(port_num=1),
                     lambda: bare.query_gid(port_num=1, index=0),
                     lambda: bare.query_gid_type(port_num=1, index=0),
                     lambda: bare.query_gid_ex(port_num=1, gid_index=0,
                                               flags=0),
                     lambda: bare.query_gid_table(max_entries=1, flags=0),
                     lambda: bare.query_pkey(port_num=1, index=0),
                     lambda: bare.get_pkey_index(port_num=1, pkey=1),
                     lambda: bare.query_rt_values_ex(comp_mask=1),
                     lambda: bare.query_device_ex(ex_input=None)):
            with pytest.raises(PyverbsUserError):
                call()


class TestDeviceClass:
    def test_properties_and_str(self):
        dev = d.Device(b'mlx5_0', 0x1122334455667788, 1, 0, 3)
        assert dev.name == b'mlx5_0'
        assert dev.guid == 0x1122334455667788
        assert (dev.node_type, dev.transport_type, dev.index) == (1, 0, 3)
        assert str(dev) == ('Device mlx5_0, node type CA, transport type '
                            'IB, guid 1122334455667788, index 3')
        assert isinstance(dev, d.PyverbsObject)

    def test_read_only(self):
        dev = d.Device(b'x', 1, 1, 0, 0)
        with pytest.raises(AttributeError):
            dev.name = b'y'

    def test_device_list_type(self):
        lst = d.get_device_list()
        assert isinstance(lst, list)
        assert all(isinstance(x, d.Device) for x in lst)

    @needs_rdmacm
    def test_rdma_device_list_type(self):
        assert all(isinstance(x, d.Device) for x in d.rdma_get_devices())


class TestTranslators:
    """Outputs pinned to upstream's (rdma-core 44)."""

    def test_simple_tables(self):
        assert d.translate_gid_type(0) == 'IB'
        assert d.translate_gid_type(1) == 'RoCEv1'
        assert d.translate_gid_type(2) == 'RoCEv2'
        assert d.translate_gid_type(3) == 'Unknown gid_type (3)'
        assert d.translate_transport_type(0) == 'IB'
        assert d.translate_transport_type(3) == 'USNIC UDP'
        assert d.translate_transport_type(-1) == 'Unknown'
        assert d.translate_node_type(1) == 'CA'
        assert d.translate_node_type(6) == 'USNIC UDP'
        assert d.translate_node_type(7) == 'Unknown'
        assert d.port_state_to_str(4) == 'Active (4)'
        assert d.port_state_to_str(0) == 'NOP (0)'
        assert d.port_state_to_str(6) == 'Invalid state (6)'
        assert d.translate_mtu(5) == '4096 (5)'
        assert d.translate_mtu(0) == 'Invalid MTU (0)'
        assert d.translate_link_layer(2) == 'Ethernet'
        assert d.translate_link_layer(1) == 'InfiniBand'
        assert d.translate_link_layer(0) == 'Unspecified'
        assert d.translate_link_layer(3) == 'Invalid link layer (3)'
        assert d.phys_state_to_str(5) == 'Link up (5)'
        assert d.phys_state_to_str(4) == 'Port configuration training (4)'
        assert d.phys_state_to_str(0) == 'Invalid physical state'
        assert d.width_to_str(2) == '4X (2)'
        assert d.width_to_str(16) == '2X (16)'
        assert d.width_to_str(3) == 'Invalid width'
        assert d.width_to_str(8) == '12X (8)'           # upstream 55+
        assert d.speed_to_str(8) == '10.0 Gbps (8)'
        assert d.speed_to_str(0) == '0.0 Gbps (0)'
        assert d.speed_to_str(4) == '5.0 Gbps (4)'
        assert d.speed_to_str(128) == '100.0 Gbps (128)'
        assert d.speed_to_str(512) == 'Invalid speed'
        # upstream 49+: (active_speed, active_speed_ex), the second used
        # when not 0; 44's one-argument form still works
        assert d.speed_to_str(256) == '200.0 Gbps (256)'
        assert d.speed_to_str(32, 0) == '25.0 Gbps (32)'
        assert d.speed_to_str(0, 256) == '200.0 Gbps (256)'
        assert d.speed_to_str(active_speed=1, active_speed_ex=0) == \
            '2.5 Gbps (1)'

    def test_port_attr_active_speed_ex(self):
        """PortAttr.active_speed_ex exists in every build (0 where the
        rdma-core it was built against is older than 49)."""
        assert isinstance(d.PortAttr.active_speed_ex, (property,
                                                       type(d.PortAttr.lid)))

    def test_event_types(self):
        assert d.translate_event_type(0) == 'IBV_EVENT_CQ_ERR'
        assert d.translate_event_type(10) == 'IBV_EVENT_PORT_ERR'
        assert d.translate_event_type(19) == 'IBV_EVENT_WQ_FATAL'
        # upstream's own spelling, dot included
        assert d.translate_event_type(16) == '.IBV_EVENT_QP_LAST_WQE_REACHED'
        # rdma-core 62's, named in every build
        assert d.translate_event_type(20) == 'IBV_EVENT_DEVICE_SPEED_CHANGE'
        assert d.translate_event_type(21) == 'Unknown event_type (21)'

    def test_str_from_flags(self):
        assert d.str_from_flags(0, {1: 'a'}) == '\n  '
        assert d.str_from_flags(5, {1: 'a', 4: 'c', 2: 'b'}) == \
            '\n  a\n  c\n  '

    def test_flag_words(self):
        assert d.translate_port_cap_flags(e.IBV_PORT_CM_SUP) == \
            '\n  IBV_PORT_CM_SUP\n  '
        assert d.translate_port_cap_flags2(0) == '\n  '
        assert d.translate_port_cap_flags2(1 << 10) == \
            '\n  IBV_PORT_LINK_SPEED_NDR_SUP\n  '
        caps = d.translate_device_caps(0xffffffffffff).split('\n  ')
        assert caps[0] == '' and caps[-1] == ''
        assert caps[1] == 'IBV_DEVICE_RESIZE_MAX_WR'
        assert caps[-2] == 'IBV_DEVICE_MANAGED_FLOW_STEERING'
        assert len(caps) == 26
        assert len(d.translate_port_cap_flags(0xffffffff).split('\n  ')) \
            == 26

    def test_name_tables_match_enums(self):
        for table in (_verbs._DEVICE_CAP_NAMES, _verbs._PORT_CAP_NAMES,
                      _verbs._PORT_CAP2_NAMES, _verbs._ODP_GENERAL_NAMES,
                      _verbs._ODP_TRANSPORT_NAMES,
                      _verbs._EVENT_TYPE_NAMES):
            for value, name in table:
                assert getattr(e, name) == value, name

    def test_guid(self):
        assert d.guid_format(0x0102030405060708) == '0807:0605:0403:0201'
        assert d.guid_format(0) == '0000:0000:0000:0000'
        assert d.guid_to_hex(0x0102030405060708) == '102030405060708'
        assert d.guid_to_hex(0) == '0'
        with pytest.raises(OverflowError):
            d.guid_format(-1)
        with pytest.raises(OverflowError):
            d.guid_format(2 ** 64)
        with pytest.raises(TypeError):
            d.guid_format('x')

    def test_gid_str(self):
        assert d.gid_str(0x80fe, 0x0100000000000000) == \
            'fe80:0000:0000:0000:0000:0000:0000:0001'


DEVICE_ATTR_LABELS = [
    'FW version', 'Node guid', 'Sys image GUID', 'Max MR size',
    'Page size cap', 'Vendor ID', 'Vendor part ID', 'HW version', 'Max QP',
    'Max QP WR', 'Device cap flags', 'Max SGE', 'Max SGE RD', 'MAX CQ',
    'Max CQE', 'Max MR', 'Max PD', 'Max QP RD atom', 'Max EE RD atom',
    'Max res RD atom', 'Max QP init RD atom', 'Max EE init RD atom',
    'Atomic caps', 'Max EE', 'Max RDD', 'Max MW', 'Max raw IPv6 QPs',
    'Max raw ethy QP', 'Max mcast group', 'Max mcast QP attach', 'Max AH',
    'Max FMR', 'Max map per FMR', 'Max SRQ', 'Max SRQ WR', 'Max SRQ SGE',
    'Max PKeys', 'local CA ack delay', 'Phys port count']
PORT_ATTR_LABELS = [
    'Port state', 'Max MTU', 'Active MTU', 'SM lid', 'Port lid', 'lmc',
    'Link layer', 'Max message size', 'Port cap flags', 'Port cap flags 2',
    'max VL num', 'Bad Pkey counter', 'Qkey violations counter',
    'GID table len', 'Pkey table len', 'SM sl', 'Subnet timeout',
    'Init type reply', 'Active width', 'Active speed', 'Phys state',
    'Flags']


class TestAttributeObjects:
    def test_device_attr_default(self):
        a = d.DeviceAttr()
        assert a.fw_version == ''
        assert a.max_qp == 0 and a.atomic_caps == 0
        text = str(a)
        assert [lbl for lbl, _ in lines_of(text)] == DEVICE_ATTR_LABELS
        assert text.startswith('FW version            : ' + ' ' * 20 + '\n'
                               'Node guid             : 0000:0000:0000:0000'
                               ' \n')
        assert 'Device cap flags      : \n' + ' ' * 19 + '\n' in text
        assert text.endswith('Phys port count       : 0' + ' ' * 19 + '\n')

    def test_device_attr_read_only(self):
        a = d.DeviceAttr()
        for name in ('max_qp', 'fw_version', 'node_guid'):
            with pytest.raises(AttributeError):
                setattr(a, name, 1)

    def test_device_attr_no_args(self):
        with pytest.raises(TypeError):
            d.DeviceAttr(1)

    def test_device_attr_ex_default(self):
        x = d.DeviceAttrEx()
        assert isinstance(x.orig_attr, d.DeviceAttr)
        for name, tp in (('odp_caps', d.ODPCaps), ('tso_caps', d.TSOCaps),
                         ('rss_caps', d.RSSCaps),
                         ('packet_pacing_caps', d.PacketPacingCaps),
                         ('tm_caps', d.TMCaps),
                         ('cq_mod_caps', d.CQModerationCaps),
                         ('pci_atomic_caps', d.PCIAtomicCaps)):
            assert isinstance(getattr(x, name), tp)
        assert x.phys_port_cnt_ex == 0 and x.max_dm_size == 0
        x.comp_mask = 3     # writable upstream
        assert x.comp_mask == 3
        with pytest.raises(OverflowError):
            x.comp_mask = 2 ** 32
        with pytest.raises(AttributeError):
            x.max_dm_size = 1

    def test_odp_caps_str(self):
        caps = d.DeviceAttrEx().odp_caps
        assert str(caps) == ('ODP General caps: \n  \nRC ODP caps: \n  \n'
                             'UD ODP caps: \n  \nUC ODP caps: \n  \n'
                             'XRC ODP caps: \n  \n')
        caps.xrc_odp_caps = e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_READ
        assert str(caps).endswith('XRC ODP caps: \n  IBV_ODP_SUPPORT_SEND\n'
                                  '  IBV_ODP_SUPPORT_READ\n  \n')
        # the bits of rdma-core 58 (kernel 6.15's rxe has them), printed
        # in every build, after the others as upstream 65 does
        caps.xrc_odp_caps = (e.IBV_ODP_SUPPORT_ATOMIC_WRITE |
                             e.IBV_ODP_SUPPORT_FLUSH |
                             e.IBV_ODP_SUPPORT_SRQ_RECV)
        assert str(caps).endswith('XRC ODP caps: \n'
                                  '  IBV_ODP_SUPPORT_SRQ_RECV\n'
                                  '  IBV_ODP_SUPPORT_FLUSH\n'
                                  '  IBV_ODP_SUPPORT_ATOMIC_WRITE\n  \n')

    def test_port_attr_default(self):
        text = str(d.PortAttr())
        assert [lbl for lbl, _ in lines_of(text)] == PORT_ATTR_LABELS
        assert 'Port state              : NOP (0)             \n' in text
        assert 'Max MTU                 : Invalid MTU (0)     \n' in text
        assert 'Port cap flags 2        : \n' + ' ' * 19 + '\n' in text
        assert text.endswith('Flags                   : 0' + ' ' * 19 +
                             '\n')

    def test_gid_entry(self):
        g = d.GIDEntry()
        assert (g.gid_subnet_prefix, g.gid_interface_id, g.gid_index,
                g.port_num, g.gid_type, g.ndev_ifindex) == (0,) * 6
        g = d.GIDEntry(subnet_prefix=0x80fe, interface_id=0x0100000000000000,
                       gid_index=3, port_num=1, gid_type=2, ndev_ifindex=7)
        assert g.gid_str() == 'fe80:0000:0000:0000:0000:0000:0000:0001'
        assert str(g) == (
            'GID                     : '
            'fe80:0000:0000:0000:0000:0000:0000:0001\n'
            'GID Index               : 3                   \n'
            'Port number             : 1                   \n'
            'GID type                : RoCEv2              \n'
            'Ndev ifindex            : 7                   \n')
        with pytest.raises(AttributeError):
            g.gid_index = 1

    @pytest.mark.parametrize('kw, exc', [
        ({'subnet_prefix': -1}, OverflowError),
        ({'interface_id': 2 ** 64}, OverflowError),
        ({'gid_index': 2 ** 32}, OverflowError),
        ({'port_num': 1.0}, TypeError),
        ({'gid_type': None}, TypeError),
        ({'bogus': 1}, TypeError),
    ])
    def test_gid_entry_bad(self, kw, exc):
        with pytest.raises(exc):
            d.GIDEntry(**kw)

    def test_query_device_ex_input(self):
        q = d.QueryDeviceExInput(comp_mask=0)
        assert q.comp_mask == 0
        q.comp_mask = 1
        assert q.comp_mask == 1
        with pytest.raises(TypeError):
            d.QueryDeviceExInput()
        with pytest.raises(OverflowError):
            d.QueryDeviceExInput(-1)

    def test_async_event(self):
        ev = d.AsyncEvent()
        assert ev.event_type == 0
        assert str(ev) == 'Event Type              : IBV_EVENT_CQ_ERR    \n'
        assert ev.element is None and ev.port_num is None
        ev = d.AsyncEvent(event_type=e.IBV_EVENT_PORT_ACTIVE)
        assert str(ev) == ('Event Type              : '
                           'IBV_EVENT_PORT_ACTIVE\n')
        with pytest.raises(AttributeError):
            ev.event_type = 1
        with pytest.raises(OverflowError):
            d.AsyncEvent(-1)

    def test_async_event_ack_unreceived(self):
        # upstream would ack a zeroed event (a crash); we refuse
        with pytest.raises(PyverbsUserError):
            d.AsyncEvent().ack()

    def test_base_classes(self):
        for cls in (d.DeviceAttr, d.DeviceAttrEx, d.PortAttr, d.GIDEntry,
                    d.AsyncEvent, d.ODPCaps, d.QueryDeviceExInput):
            assert issubclass(cls, d.PyverbsObject)
        assert issubclass(d.Context, _verbs.PyverbsCM)


# -------------------------------------------------------------- device --

def test_device_list(dev_names):
    devs = d.get_device_list()
    assert sorted(x.name.decode() for x in devs) == dev_names
    assert len({x.index for x in devs}) == len(devs)
    for dev in devs:
        assert isinstance(dev.name, bytes)
        assert dev.node_type == e.IBV_NODE_CA
        assert dev.transport_type == e.IBV_TRANSPORT_IB
        assert isinstance(dev.guid, int) and dev.guid != 0
        assert re.fullmatch(r'Device \w+, node type CA, transport type IB, '
                            r'guid [0-9a-f]+, index \d+', str(dev))
        with d.Context(name=dev.name.decode()) as ctx:
            # the list's guid is host order, node_guid network order
            assert d.guid_format(ctx.query_device().node_guid).replace(
                ':', '') == '%016x' % dev.guid


@needs_rdmacm
def test_rdma_get_devices(dev_names):
    names = sorted(x.name.decode() for x in d.rdma_get_devices())
    assert names == dev_names


def test_open_every_device(dev_names):
    for name in dev_names:
        with d.Context(name=name) as ctx:
            assert ctx.name == name
            assert ctx.context != 0
            assert ctx.cmd_fd >= 0
            assert ctx.num_comp_vectors > 0
            assert ctx.fileno() >= 0 and ctx.fileno() != ctx.cmd_fd
            assert repr(ctx) == f'<Context {name}>'
        assert ctx.closed and ctx.context == 0
        assert ctx.name == name


def test_open_by_bytes_name(dev_name):
    with d.Context(name=dev_name.encode()) as ctx:
        assert ctx.name == dev_name


def verify_device_attr(attr):
    # what rdma-core's tests/test_device.py checks
    page = os.sysconf('SC_PAGESIZE')
    assert attr.node_guid != 0 and attr.sys_image_guid != 0
    assert attr.max_mr_size > page
    assert attr.page_size_cap >= page
    assert attr.vendor_id != 0
    assert attr.max_qp > 0 and attr.max_qp_wr > 0
    assert attr.max_sge > 0 and attr.max_sge_rd >= 0
    assert attr.max_cq > 0 and attr.max_cqe > 0
    assert attr.max_mr > 0 and attr.max_pd > 0
    assert attr.max_pkeys > 0
    assert attr.phys_port_cnt == 1


def test_query_device(dev_names):
    for name in dev_names:
        with d.Context(name=name) as ctx:
            attr = ctx.query_device()
            verify_device_attr(attr)
            assert isinstance(attr.fw_version, str)
            text = str(attr)
            assert [lbl for lbl, _ in lines_of(text)] == DEVICE_ATTR_LABELS
            assert f'Node guid             : ' \
                   f'{d.guid_format(attr.node_guid)} \n' in text
            # flags decoded one per line, as upstream
            flags = d.translate_device_caps(attr.device_cap_flags)
            assert 'IBV_DEVICE_' in flags
            assert f'Device cap flags      : {flags}' in text


def test_query_device_ex(dev_names):
    for name in dev_names:
        with d.Context(name=name) as ctx:
            plain = ctx.query_device()
            ex = ctx.query_device_ex()
            verify_device_attr(ex.orig_attr)
            assert str(ex.orig_attr) == str(plain)
            assert ex.phys_port_cnt_ex == plain.phys_port_cnt
            assert ex.device_cap_flags_ex & 0xffffffff == \
                plain.device_cap_flags
            ex2 = ctx.query_device_ex(d.QueryDeviceExInput(0))
            assert str(ex2.orig_attr) == str(plain)
            assert str(ex.odp_caps).startswith('ODP General caps: ')


def test_query_port(dev_names, port):
    for name in dev_names:
        with d.Context(name=name) as ctx:
            attr = ctx.query_port(port)
            assert attr.state == e.IBV_PORT_ACTIVE
            assert attr.link_layer == e.IBV_LINK_LAYER_ETHERNET
            assert attr.gid_tbl_len > 0 and attr.pkey_tbl_len > 0
            assert attr.max_msg_sz > 0x1000
            for fn, val in ((d.phys_state_to_str, attr.phys_state),
                            (d.translate_mtu, attr.max_mtu),
                            (d.translate_mtu, attr.active_mtu),
                            (d.width_to_str, attr.active_width),
                            (d.speed_to_str, attr.active_speed),
                            (d.translate_link_layer, attr.link_layer)):
                assert 'Invalid' not in fn(val)
            text = str(attr)
            assert [lbl for lbl, _ in lines_of(text)] == PORT_ATTR_LABELS
            assert 'Port state              : Active (4)          \n' in text
            assert 'Link layer              : Ethernet            \n' in text
            assert 'Port cap flags          : \n  IBV_PORT_CM_SUP\n' in text


@pytest.mark.parametrize('bad', [0, 2, 9, 255])
def test_query_port_bad(ctx, bad):
    with pytest.raises(PyverbsRDMAError) as ex:
        ctx.query_port(bad)
    # asserted by rdma-core's tests
    assert 'Failed to query port' in ex.value.args[0]
    assert 'Invalid argument' in ex.value.args[0]
    assert ex.value.error_code == errno.EINVAL


def test_gid_table(dev_names, port):
    for name in dev_names:
        with d.Context(name=name) as ctx:
            pattr = ctx.query_port(port)
            table = ctx.query_gid_table(pattr.gid_tbl_len)
            assert table, 'rxe has RoCE GIDs'
            for ent in table:
                assert isinstance(ent, d.GIDEntry)
                assert ent.port_num == port
                assert ent.gid_type == e.IBV_GID_TYPE_ROCE_V2
                assert ent.ndev_ifindex > 0
                same = ctx.query_gid_ex(port, ent.gid_index)
                assert str(same) == str(ent)
                assert str(ctx.query_gid(port, ent.gid_index)) == \
                    ent.gid_str()
                assert ctx.query_gid_type(port, ent.gid_index) == \
                    e.IBV_GID_TYPE_SYSFS_ROCE_V2
            texts = [ent.gid_str() for ent in table]
            # the VM gives every rxe netdev an IPv4 address
            assert any(t.startswith('0000:0000:0000:0000:0000:ffff:')
                       for t in texts)
            assert any(t.startswith('fe80:') for t in texts)


def test_gid_table_too_small(ctx, port):
    n = len(ctx.query_gid_table(ctx.query_port(port).gid_tbl_len))
    for small in (0, n - 1):
        with pytest.raises(PyverbsRDMAError) as ex:
            ctx.query_gid_table(small)
        # upstream passes the negative errno on; rdma-core tests rely on it
        assert ex.value.error_code == -errno.EINVAL
        assert 'Failed to query gid tables of the device' in str(ex.value)


def test_gid_empty_entry(ctx, port):
    used = {ent.gid_index for ent in
            ctx.query_gid_table(ctx.query_port(port).gid_tbl_len)}
    empty = min(set(range(ctx.query_port(port).gid_tbl_len)) - used)
    with pytest.raises(PyverbsRDMAError) as ex:
        ctx.query_gid_ex(port_num=port, gid_index=empty)
    assert ex.value.error_code == errno.ENODATA
    assert f'Failed to query gid table of port {port} in index {empty}' \
        in str(ex.value)
    assert str(ctx.query_gid(port, empty)) == ':'.join(['0000'] * 8)
    assert ctx.query_gid_type(port, empty) == \
        e.IBV_GID_TYPE_SYSFS_IB_ROCE_V1


def test_gid_bad_port_or_index(ctx, port):
    tbl = ctx.query_port(port).gid_tbl_len
    with pytest.raises(PyverbsRDMAError, match='Failed to query gid'):
        ctx.query_gid(2, 0)
    for call in (lambda: ctx.query_gid_ex(2, 0),
                 lambda: ctx.query_gid_ex(port, tbl),
                 lambda: ctx.query_gid_type(2, 0),
                 lambda: ctx.query_gid_type(port, tbl)):
        with pytest.raises(PyverbsRDMAError) as ex:
            call()
        assert ex.value.error_code == errno.EINVAL


def test_roce_gid(ctx, port, gid_index):
    gid = ctx.query_gid(port_num=port, index=gid_index)
    ent = ctx.query_gid_ex(port, gid_index)
    assert str(gid) == ent.gid_str()
    assert str(gid) != ':'.join(['0000'] * 8)


def test_pkey(ctx, port):
    assert ctx.query_pkey(port_num=port, index=0) == 0xffff
    assert ctx.get_pkey_index(port, 0xffff) == 0
    n = ctx.query_port(port).pkey_tbl_len
    with pytest.raises(PyverbsRDMAError,
                       match=f'Failed to query pkey {n} of port {port}'):
        ctx.query_pkey(port, n)
    with pytest.raises(PyverbsRDMAError, match='Failed to query pkey'):
        ctx.query_pkey(2, 0)
    with pytest.raises(PyverbsRDMAError, match='Failed to get index'):
        ctx.get_pkey_index(port, 0x1234)


def test_query_rt_values(ctx):
    try:
        sec, nsec = ctx.query_rt_values_ex()
    except PyverbsRDMAError as ex:
        assert ex.error_code == errno.EOPNOTSUPP   # rxe has no clock
        assert 'Failed to query real time values' in str(ex)
    else:
        assert sec >= 0 and 0 <= nsec < 10 ** 9


def test_import_device(ctx):
    fd = os.dup(ctx.cmd_fd)
    try:
        imported = d.Context(cmd_fd=fd)
    except PyverbsRDMAError as ex:
        os.close(fd)
        # rxe has no import_context
        assert ex.error_code in (errno.EOPNOTSUPP, errno.EPROTONOSUPPORT)
        assert 'Failed to import device' in str(ex)
    else:
        with imported:
            assert imported.name == ctx.name
            assert str(imported.query_device()) == str(ctx.query_device())


def test_provider_attr_path(dev_name):
    c = d.Context(name=dev_name, attr=object())
    # found but not opened: the provider subclass opens it
    assert c.closed and c.context == 0 and c.name == dev_name
    with pytest.raises(PyverbsUserError):
        c.query_device()
    with pytest.raises(PyverbsUserError):
        PD(c)
    c.close()
    del c


def test_closed_context_raises(dev_name):
    ctx = d.Context(name=dev_name)
    ctx.close()
    for call in (ctx.query_device, ctx.query_device_ex,
                 lambda: ctx.query_port(1), lambda: ctx.query_gid(1, 0),
                 lambda: ctx.query_gid_table(8), lambda: ctx.query_pkey(1, 0),
                 ctx.get_async_event, ctx.fileno, lambda: ctx.cmd_fd):
        with pytest.raises(PyverbsUserError, match='closed'):
            call()
    ctx.close()


def test_close_cascades_to_pds(dev_name):
    ctx = d.Context(name=dev_name)
    pds = [PD(ctx) for _ in range(4)]
    with PD(ctx) as early:
        pass
    ctx.close()
    assert early.closed
    for pd in pds:
        assert pd.closed and pd.pd == 0
        with pytest.raises(PyverbsUserError):
            pd.handle
        pd.close()
    with pytest.raises(PyverbsUserError):
        PD(ctx)


def test_context_gc_with_children(dev_name):
    import gc
    ctx = d.Context(name=dev_name)
    pd = PD(ctx)
    ctx.loop = pd       # a cycle through the instance dict
    pd.loop = ctx
    del ctx, pd
    gc.collect()
    with d.Context(name=dev_name) as again:
        PD(again).close()


# ---- async events: take a netdev down and up (root in the VM) ----

def netdev_of(ctx, port):
    ent = ctx.query_gid_table(ctx.query_port(port).gid_tbl_len)[0]
    return ent.ndev_ifindex


def wait_readable(fd, seconds):
    return bool(select.select([fd], [], [], seconds)[0])


def wait_port(ctx, port, state, seconds=20):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if ctx.query_port(port).state == state:
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def link_control(ctx, port):
    if os.geteuid() != 0 or not shutil.which('ip'):
        pytest.skip('needs root and ip(8) to toggle the netdev')
    ifindex = netdev_of(ctx, port)
    ifname = socket_if_indextoname(ifindex)
    ngids = len(ctx.query_gid_table(ctx.query_port(port).gid_tbl_len))

    def set_link(up):
        subprocess.run(['ip', 'link', 'set', ifname,
                        'up' if up else 'down'], check=True)
    yield set_link
    set_link(True)
    assert wait_port(ctx, port, e.IBV_PORT_ACTIVE)
    end = time.monotonic() + 20
    while time.monotonic() < end:
        if len(ctx.query_gid_table(
                ctx.query_port(port).gid_tbl_len)) >= ngids:
            break
        time.sleep(0.1)


def socket_if_indextoname(ifindex):
    import socket
    return socket.if_indextoname(ifindex)


def next_event(ctx, seconds=20):
    assert wait_readable(ctx.fileno(), seconds), 'no async event came'
    return ctx.get_async_event()


def test_async_port_events(ctx, port, link_control):
    link_control(False)
    ev = next_event(ctx)
    assert ev.event_type == e.IBV_EVENT_PORT_ERR
    assert ev.port_num == port and ev.element == port
    assert str(ev) == 'Event Type              : IBV_EVENT_PORT_ERR  \n'
    ev.ack()
    ev.ack()            # acked on receipt: harmless
    link_control(True)
    ev = next_event(ctx)
    while ev.event_type != e.IBV_EVENT_PORT_ACTIVE:
        # GID changes may come first
        ev = next_event(ctx)
    assert ev.port_num == port


def test_async_event_blocks_close(ctx, port, link_control):
    got = []

    def waiter():
        try:
            got.append(ctx.get_async_event())
        except PyverbsError as ex:
            got.append(ex)
    t = threading.Thread(target=waiter)
    t.start()
    # let the thread block in ibv_get_async_event (GIL released)
    time.sleep(0.5)
    if t.is_alive():
        with pytest.raises(PyverbsUserError, match='cannot be closed'):
            ctx.close()
        # other queries still work while it waits
        assert ctx.query_port(port).state == e.IBV_PORT_ACTIVE
    link_control(False)
    t.join(30)
    assert not t.is_alive()
    assert isinstance(got[0], d.AsyncEvent)
    assert got[0].event_type == e.IBV_EVENT_PORT_ERR
    link_control(True)
    while wait_readable(ctx.fileno(), 2):
        ctx.get_async_event()


def test_async_cq_error_names_the_cq(ctx):
    """Overflowing a CQ makes rxe report IBV_EVENT_CQ_ERR: the event's
    element is the CQ object itself, and (events being acked on receipt)
    closing the CQ afterwards does not block."""
    from rdma_helpers import pair, send_wr
    a, b = pair(ctx, e.IBV_QPT_UD, msg_size=64, depth=32, cq_depth=1)
    try:
        for i in range(a.cq.cqe + 8):
            try:
                a.qp.post_send(send_wr(a, b'overflow', wr_id=i))
            except PyverbsRDMAError:
                break       # the QP went to error
        seen = []
        while wait_readable(ctx.fileno(), 10):
            ev = ctx.get_async_event()
            seen.append(ev)
            if ev.event_type == e.IBV_EVENT_CQ_ERR:
                break
        cq_events = [ev for ev in seen
                     if ev.event_type == e.IBV_EVENT_CQ_ERR]
        assert cq_events, [str(ev) for ev in seen]
        assert cq_events[0].element is a.cq
        assert cq_events[0].port_num is None
        for ev in seen:
            if ev.event_type != e.IBV_EVENT_CQ_ERR:
                assert ev.element in (a.qp, b.qp, None)
    finally:
        a.close()
        b.close()
    assert a.cq.closed


# ---- everything against upstream's output, in this very VM ----

def reference_available():
    if not os.path.exists(REFERENCE_PYTHON):
        return False
    env = ref_compare.child_env(reference=True)
    r = subprocess.run([REFERENCE_PYTHON, '-c', 'import pyverbs.device'],
                       env=env, capture_output=True, cwd='/')
    return r.returncode == 0


def test_matches_reference(dev_names):
    """tests/device_dump.py prints every attribute, printed object and
    error message of every device; upstream's pyverbs must print the same
    text, byte for byte (same VM, same GUIDs)."""
    if not reference_available():
        pytest.skip("Debian's python3-pyverbs is not installed")
    script = os.path.join(HERE, 'device_dump.py')
    env = ref_compare.child_env(reference=True)
    ref = subprocess.run([REFERENCE_PYTHON, script], env=env, cwd='/',
                         capture_output=True, text=True)
    ours = subprocess.run([sys.executable, script], capture_output=True,
                          text=True)
    assert ref.returncode == 0, ref.stderr
    assert ours.returncode == 0, ours.stderr
    assert '=== ' + dev_names[0] in ours.stdout
    assert ours.stdout.splitlines() == ref.stdout.splitlines()


def test_query_port_speed(ctx, port):
    """Context.query_port_speed (rdma-core 62): a build that has
    ibv_query_port_speed calls it (rxe has no such op: libibverbs answers
    EOPNOTSUPP); an older build says which rdma-core brings it."""
    from test_link import _imports
    built = 'ibv_query_port_speed' in _imports()
    try:
        speed = ctx.query_port_speed(port)
    except PyverbsRDMAError as ex:
        assert ex.error_code == errno.EOPNOTSUPP
        if built:
            assert ex.func == 'ibv_query_port_speed'
            assert f'Failed to query port speed for port {port}' in str(ex)
        else:
            assert 'ibv_query_port_speed needs rdma-core 62 or later' \
                in str(ex)
    else:
        assert built and isinstance(speed, int) and speed > 0
    for bad, exc in ((-1, OverflowError), (2**32, OverflowError),
                     ('1', TypeError), (None, TypeError)):
        with pytest.raises(exc):
            ctx.query_port_speed(bad)
    with pytest.raises(TypeError):
        ctx.query_port_speed()
