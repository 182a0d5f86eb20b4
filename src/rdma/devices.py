# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""RDMA devices and their end ports, read from sysfs (/sys/class/infiniband).

RDMADevice and EndPort are plain descriptions (name, GUIDs, GIDs, P_Keys,
LID, state); opening one for verbs is rdma.get_verbs(end_port).  Values are
read on first use and cached; the *_change() methods drop what an async
event says has changed.
"""
import os

import rdma
from rdma import IBA

__all__ = ['SYS_INFINIBAND', 'RDMADevice', 'EndPort', 'DeviceList',
           'GIDList', 'get_devices', 'find_port_gid', 'find_port_guid',
           'find_port_name', 'find_node_guid']

SYS_INFINIBAND = '/sys/class/infiniband/'
ROCE_V2 = 'RoCE v2'


def _read(path):
    with open(path) as f:
        return f.read().strip()


def _int_desc(text):
    """'4: ACTIVE' -> 4"""
    head, sep, _ = text.partition(':')
    if not sep:
        raise ValueError(f'{text!r} is not "<number>: <name>"')
    return int(head)


class DeviceList:
    """An ordered, name-indexed list of demand-created values: iterating
    gives the values in key order, [key] one value, keys() the keys."""

    def __init__(self, keys, make):
        self._keys = tuple(keys)
        self._make = make
        self._data = {}

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        for k in self._keys:
            yield self[k]

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys

    def _has(self, key):
        return key in self._keys

    def __getitem__(self, key):
        if not self._has(key):
            raise KeyError(key)
        try:
            return self._data[key]
        except KeyError:
            value = self._data[key] = self._make(key)
            return value

    def first(self):
        if not self._keys:
            raise rdma.RDMAError('the list is empty')
        return self[self._keys[0]]

    def index(self, value):
        for k in self._keys:
            if self[k] == value:
                return k
        raise ValueError(f'{value!r} is not in the list')

    def __repr__(self):
        return '{' + ', '.join(f'{k!r}: {self[k]!r}' for k in self._keys) + '}'


class GIDList(DeviceList):
    """The GID table of a port (sysfs gids/N, with gid_attrs/types/N).

    The kernel shows an unused entry as the zero GID (::), which names no
    port: iterating, len(), keys() and index() cover the entries in use
    (read once, on first need); gids[n] reads any entry of the table.
    index(gid) prefers a RoCE v2 entry when the same GID is listed for
    RoCE v1 and v2 (hardware that offers both)."""

    def __init__(self, port_dir):
        self._dir = port_dir
        self._table = frozenset(int(n) for n in os.listdir(port_dir + 'gids'))
        self._make = lambda i: IBA.GID(_read(f'{port_dir}gids/{i}'))
        self._data = {}
        self._used = None

    @property
    def _keys(self):
        if self._used is None:
            self._used = tuple(k for k in sorted(self._table)
                               if int(self[k]))
        return self._used

    def _has(self, key):
        return key in self._table

    def table_len(self):
        """The number of entries of the table, used or not."""
        return len(self._table)

    def gid_type(self, idx):
        """'RoCE v2', 'IB/RoCE v1', ... for a used entry; None when the
        kernel gives no type (InfiniBand, unused entries)."""
        try:
            return _read(f'{self._dir}gid_attrs/types/{idx}')
        except OSError:
            return None

    def index(self, value):
        value = IBA.GID(value)
        found = None
        for k in self._keys:
            if self[k] == value:
                if self.gid_type(k) == ROCE_V2:
                    return k
                if found is None:
                    found = k
        if found is None:
            raise ValueError(f'{value} is not in the GID table')
        return found

    def used(self):
        """(index, GID) of the entries in use."""
        return [(k, self[k]) for k in self._keys]


class _SysFS:
    """Values read from the files of directory _dir, cached."""
    _dir = ''

    def _sysfs(self, name, conv=str, optional=False):
        """The value of file name; optional: None when the driver does
        not have the file."""
        try:
            return self._cache[name]
        except KeyError:
            pass
        try:
            value = conv(_read(self._dir + name))
        except FileNotFoundError:
            if not optional:
                raise rdma.RDMAError(f'{self._dir}{name} does not '
                                     'exist') from None
            value = None
        except (OSError, ValueError) as err:
            raise rdma.RDMAError(f'cannot read {self._dir}{name}: {err}') \
                from err
        self._cache[name] = value
        return value


def _optional(name, doc):
    return property(lambda self: self._sysfs(name, optional=True), doc=doc)


class EndPort(_SysFS):
    """One port of an RDMADevice: port_id, gids, pkeys, lid, state ..."""

    def __init__(self, parent, port_id):
        self.parent = parent
        self.port_id = port_id
        self._dir = f'{parent._dir}ports/{port_id}/'
        self._cache = {}
        self.gids = GIDList(self._dir)
        self._pkeys = None

    @property
    def pkeys(self):
        """The P_Key table (a list; unused entries are 0)."""
        if self._pkeys is None:
            names = sorted(int(n) for n in os.listdir(self._dir + 'pkeys'))
            self._pkeys = [int(_read(f'{self._dir}pkeys/{i}'), 16)
                           for i in names]
        return self._pkeys

    lid = property(lambda self: self._sysfs('lid', lambda s: int(s, 16)))
    lmc = property(lambda self: self._sysfs('lid_mask_count', int))
    sm_lid = property(lambda self: self._sysfs('sm_lid',
                                               lambda s: int(s, 16)))
    sm_sl = property(lambda self: self._sysfs('sm_sl', int))
    state = property(lambda self: self._sysfs('state', _int_desc),
                     doc='IBA port state: 4 is ACTIVE')
    phys_state = property(lambda self: self._sysfs('phys_state', _int_desc))
    rate = property(lambda self: self._sysfs('rate', str),
                    doc="e.g. '10 Gb/sec (1X FDR10)'")
    cap_mask = property(lambda self: self._sysfs('cap_mask',
                                                 lambda s: int(s, 16)))
    link_layer = property(lambda self: self._sysfs('link_layer', str),
                          doc="'InfiniBand' or 'Ethernet'")

    @property
    def is_roce(self):
        return self.link_layer == 'Ethernet'

    @property
    def port_guid(self):
        return self.gids[0].guid()

    @property
    def default_gid(self):
        """GID index 0, as python-rdma: on InfiniBand the port GID, on
        RoCE the IPv6 link-local one (made from the MAC address)."""
        return self.gids[0]

    @property
    def ipv4_gid(self):
        """The first IPv4-mapped RoCE v2 GID of a RoCE port (what rdma_cm
        and most RoCE tools address it by), else None."""
        for i, g in self.gids.used():
            if g.ipv4() is not None and self.gids.gid_type(i) == ROCE_V2:
                return g
        return None

    @property
    def subnet_timeout(self):
        """The port's subnet timeout (an IBA timer code).  Only verbs know
        it: Context.query_port() records it; 18 until then."""
        return self._cache.get('subnet_timeout', 18)

    def pkey_index(self, pkey):
        """The index of P_Key pkey in the table (ValueError if absent)."""
        return self.pkeys.index(pkey)

    @property
    def sa_path(self):
        """The path to the subnet administrator: QP1 of the SM's LID on
        InfiniBand (sending on it needs rdma.umad, which this build lacks).
        A RoCE port has no subnet administrator: its sa_path addresses QP1
        (the GSI QP, where an SA would listen) of this port itself, by its
        default GID, resolved locally (rdma.path.resolve_path), so that
        what python-rdma's users build on it (an AH: pd.ah(sa_path)) works;
        no SA answers there."""
        try:
            return self._cache['sa_path']
        except KeyError:
            pass
        for pk in (IBA.PKEY_DEFAULT, IBA.PKEY_PARTIAL_DEFAULT):
            if pk in self.pkeys:
                break
        else:
            raise rdma.RDMAError('Could not find the SA default PKey')
        if self.is_roce:
            path = rdma.path.resolve_path(None, rdma.path.IBPath(
                self, DGID=self.default_gid, SGID=self.default_gid,
                dqpn=1, sqpn=1,
                qkey=IBA.IB_DEFAULT_QP1_QKEY, pkey=pk))
        else:
            path = rdma.path.IBPath(self, DLID=self.sm_lid, SLID=self.lid,
                                    SL=self.sm_sl, dqpn=1, sqpn=1,
                                    qkey=IBA.IB_DEFAULT_QP1_QKEY, pkey=pk,
                                    packet_life_time=self.subnet_timeout)
        self._cache['sa_path'] = path
        return path

    def _drop(self, *names):
        for n in names:
            self._cache.pop(n, None)

    def lid_change(self):
        """The LID changed (IBV_EVENT_LID_CHANGE)."""
        self._drop('lid', 'lid_mask_count')
        self.sm_change()

    def sm_change(self):
        """The SM changed (IBV_EVENT_SM_CHANGE)."""
        self._drop('sm_lid', 'sm_sl', 'sa_path')

    def pkey_change(self):
        """The P_Key table changed (IBV_EVENT_PKEY_CHANGE)."""
        self._pkeys = None
        self.sm_change()

    def gid_change(self):
        """The GID table changed (IBV_EVENT_GID_CHANGE: on RoCE, an IP
        address came or went): read it again on next use."""
        self.gids = GIDList(self._dir)

    def __str__(self):
        return f'{self.parent}/{self.port_id}'

    def __repr__(self):
        return f'<rdma.devices.EndPort {self}>'


class RDMADevice(_SysFS):
    """An RDMA device (sysfs /sys/class/infiniband/<name>)."""

    def __init__(self, name):
        self.name = name
        self._dir = f'{SYS_INFINIBAND}{name}/'
        self._cache = {}
        try:
            ports = sorted(int(p) for p in os.listdir(self._dir + 'ports'))
        except OSError as err:
            raise rdma.RDMAError(f'RDMA device {name!r}: cannot list its '
                                 f'ports ({err})') from err
        self.end_ports = DeviceList(ports, lambda i: EndPort(self, i))
        self.phys_port_cnt = len(ports)

    node_type = property(lambda self: self._sysfs('node_type', _int_desc))
    node_guid = property(lambda self: self._sysfs('node_guid', IBA.GUID))
    sys_image_guid = property(lambda self: self._sysfs('sys_image_guid',
                                                       IBA.GUID))
    node_desc = property(lambda self: self._sysfs('node_desc'))
    # Drivers export these when they have them (rxe has no board_id,
    # hw_rev or hca_type): None when absent.
    fw_ver = _optional('fw_ver', 'firmware version (None if none)')
    board_id = _optional('board_id', 'board ID (None if the driver has '
                         'none)')
    hw_ver = _optional('hw_rev', 'hardware revision (None if the driver '
                       'has none)')
    hca_type = _optional('hca_type', 'HCA type (None if the driver has '
                         'none)')

    def __str__(self):
        return self.name

    def __repr__(self):
        return f'<rdma.devices.RDMADevice {self.name}>'


_cached = None


def get_devices(refresh=False):
    """See rdma.get_devices()."""
    global _cached
    if _cached is not None and not refresh:
        return _cached
    try:
        names = sorted(os.listdir(SYS_INFINIBAND))
    except OSError:
        names = []
    _cached = DeviceList(names, RDMADevice)
    return _cached


def find_port_gid(devices, gid):
    """(EndPort, GID index) of the port that has gid (RDMAError if none
    has; the zero GID names no port)."""
    gid = IBA.GID(gid)
    if not int(gid):
        raise rdma.RDMAError(f'RDMA end port {gid} not found.')
    for dev in devices:
        for ep in dev.end_ports:
            try:
                return ep, ep.gids.index(gid)
            except ValueError:
                continue
    raise rdma.RDMAError(f'RDMA end port {gid} not found.')


def find_port_guid(devices, guid):
    """The EndPort whose port GUID is guid."""
    for dev in devices:
        for ep in dev.end_ports:
            if ep.port_guid == guid:
                return ep
    raise rdma.RDMAError(f'RDMA end port {guid} not found.')


def find_node_guid(devices, guid):
    """The RDMADevice whose node GUID is guid."""
    for dev in devices:
        if dev.node_guid == guid:
            return dev
    raise rdma.RDMAError(f'RDMA device {guid} not found.')


def find_port_name(devices, name):
    """The EndPort 'dev' (its first port) or 'dev/port' names."""
    parts = name.split('/')
    if len(parts) > 2:
        raise rdma.RDMAError(f'Invalid end port specification {name!r}')
    try:
        dev = devices[parts[0]]
    except KeyError:
        raise rdma.RDMAError(f'RDMA device {parts[0]!r} not found.') \
            from None
    if len(parts) == 1:
        return dev.end_ports.first()
    try:
        idx = int(parts[1])
    except ValueError:
        raise rdma.RDMAError(f'Invalid end port specification {name!r}') \
            from None
    try:
        return dev.end_ports[idx]
    except KeyError:
        raise rdma.RDMAError(f'RDMA device {parts[0]!r} port {idx} '
                             'not found.') from None
