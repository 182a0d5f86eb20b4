# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's paths: IBPath describes the headers of packets between
two end ports (LIDs, GIDs, QPNs, PSNs, P_Key, Q_Key, MTU, timers).

A path is written from the sender's side: SGID/SLID/sqpn are the local
end, DGID/DLID/dqpn the remote one; reverse() turns it around.  QP setup
(rdma.ibverbs.QP.modify_to_init/rtr/rts) and AH creation take their values
from a path; fill_path() adds the QP's part and pickling carries it to the
peer (the end port stays behind: set path.end_port after unpickling).

python-rdma completes a path by asking the subnet administrator
(resolve_path(umad, path)).  pyverbs-c has no MAD support: on RoCE,
resolve_path(None, path) fills the path locally from the port (GIDs, MTU,
P_Key); on InfiniBand it raises, naming the SA query it cannot make.
"""
import random
import re

import rdma
from rdma import IBA

__all__ = ['Path', 'IBPath', 'IBDRPath', 'SAPathNotFoundError',
           'resolve_path',
           'get_mad_path', 'fill_path', 'from_spec_string', 'from_string',
           'LOCAL_ROCE_HOP_LIMIT']

#: hop_limit of a locally resolved RoCE path (the IP TTL of RoCE v2)
LOCAL_ROCE_HOP_LIMIT = 64


class SAPathNotFoundError(rdma.MADClassError):
    """python-rdma raises it when the SA has no path; kept for except
    clauses (this build never queries an SA)."""


class Path:
    """A path from end_port to somewhere; kwargs set attributes (known
    ones only: a misspelt name is a TypeError).  The *_cached* values
    (AHs made from the path, looked-up indexes) are dropped by
    drop_cache(), copies and pickling."""

    #: retry_cnt of an RC QP.  python-rdma's default is 0 (it was also
    #: the MAD retry count); with no MADs here, 7 keeps one lost packet
    #: from breaking an RC connection.
    retries = 7
    #: the rdma.devices.EndPort the path starts at
    end_port = None

    def __init__(self, end_port, **kwargs):
        if isinstance(end_port, str):
            end_port = rdma.get_end_port(end_port)
        self.end_port = end_port
        cls = type(self)
        for k, v in kwargs.items():
            if k.startswith('_') or not hasattr(cls, k):
                raise TypeError(f'{cls.__name__} has no attribute {k!r}')
            setattr(self, k, v)

    def copy(self, **kwargs):
        """A copy of this path (without its cached values), kwargs
        applied."""
        cls, _, state = self.__reduce__()
        state.update(kwargs)
        new = cls(self.end_port)
        new.__setstate__(state)
        return new

    def drop_cache(self):
        """Forget cached values (AHs, indexes)."""
        for k in [k for k in self.__dict__ if k.startswith('_cached')]:
            del self.__dict__[k]

    def _state(self):
        cls = type(self)
        return {k: v for k, v in sorted(self.__dict__.items())
                if k[0] != '_' and k != 'end_port' and
                getattr(cls, k, None) != v}

    def __reduce__(self):
        """Pickled without end_port and cached values; the one-way paths
        of an IBPath (forward/return) go with it, as their own state."""
        state = self._state()
        for k in ('_forward_path', '_return_path'):
            sub = self.__dict__.get(k)
            if sub is not None:
                state[k] = sub.__reduce__()
        return (type(self), (None,), state)

    def __setstate__(self, state):
        cls = type(self)
        for k, v in state.items():
            if k in ('_forward_path', '_return_path'):
                if isinstance(v, tuple):
                    sub = v[0](None)
                    sub.__setstate__(v[2])
                    v = sub
            elif k.startswith('_') or not hasattr(cls, k):
                raise TypeError(f'{cls.__name__} has no attribute {k!r}')
            setattr(self, k, v)

    def complete(self):
        """True if the path can be used: it has an end port."""
        return self.end_port is not None

    def __repr__(self):
        cls = type(self)
        keys = ''.join(
            f', {k}={getattr(cls, "_format_" + k, repr)(v)}'
            for k, v in self._state().items())
        ep = None if self.end_port is None else str(self.end_port)
        return f'{cls.__name__}(end_port={ep!r}{keys})'


class IBPath(Path):
    """A path through an InfiniBand or RoCE network (LRH, GRH, BTH and
    the QP parameters of the connection)."""

    DLID = 0
    SLID = 0
    SL = 0
    pkey = IBA.PKEY_DEFAULT
    has_grh = False
    dqpn = None
    sqpn = None
    qkey = None
    MTU = IBA.MTU_256
    rate = IBA.PR_RATE_2Gb5
    SGID = None
    DGID = None
    hop_limit = 0
    traffic_class = 0
    flow_label = 0
    umad_agent_id = None
    #: response time of a MAD responder (for mad_timeout)
    resp_time = 20
    min_rnr_timer = 0
    #: the remote end's ACK delay, for qp_timeout
    dack_resp_time = 20
    #: the local HCA's ACK delay (fill_path sets it)
    sack_resp_time = 20
    #: first PSN the remote end sends (our rq_psn)
    dqpsn = 0
    #: first PSN we send
    sqpsn = 0
    #: RDMA READ/atomic responder resources of the remote end
    drdatomic = 255
    #: RDMA READ/atomic requests we may have outstanding
    srdatomic = 255
    #: one-way paths (when the two directions differ): see forward_path
    _forward_path = None
    _return_path = None

    def complete(self):
        """True if the path has unicast LIDs, both GIDs when it has a
        GRH, a destination QP and an end port.  (A RoCE path, whose LIDs
        are 0, is never complete in this sense.)"""
        for lid in (self.DLID, self.SLID):
            if not IBA.LID_RESERVED < lid < IBA.LID_MULTICAST:
                return False
        if self.has_grh and (self.SGID is None or self.DGID is None):
            return False
        return self.dqpn is not None and super().complete()

    def reverse(self, for_reply=True):
        """Turn the path around in place (IBA 13.5.4): source and
        destination swap, LIDs, GIDs, QPNs, PSNs, ACK delays and atomic
        depths.  for_reply (a MAD reply) also sets hop_limit to 255 on a
        path with a GRH.  Returns self."""
        self.DLID, self.SLID = self.SLID, self.DLID
        self.dqpn, self.sqpn = self.sqpn, self.dqpn
        self.DGID, self.SGID = self.SGID, self.DGID
        if self.has_grh and for_reply:
            self.hop_limit = 0xff
        self.dack_resp_time, self.sack_resp_time = \
            self.sack_resp_time, self.dack_resp_time
        self.dqpsn, self.sqpsn = self.sqpsn, self.dqpsn
        self.drdatomic, self.srdatomic = self.srdatomic, self.drdatomic
        self._forward_path, self._return_path = \
            self._return_path, self._forward_path
        self.drop_cache()
        return self

    def copy_qp_params(self, rhs):
        """Take the QP part of path rhs: QPNs, Q_Key, PSNs, RNR timer, ACK
        delays and RDMA READ/atomic depths."""
        for k in ('dqpn', 'sqpn', 'qkey', 'min_rnr_timer', 'dack_resp_time',
                  'sack_resp_time', 'dqpsn', 'sqpsn', 'drdatomic',
                  'srdatomic'):
            setattr(self, k, getattr(rhs, k))

    def _one_way(self, which):
        sub = self.__dict__.get(which)
        if sub is None:
            return self
        sub.end_port = self.end_port
        sub.copy_qp_params(self)
        return sub

    @property
    def forward_path(self):
        """The path for packets we send: this path itself, unless a
        separate one-way path was set in _forward_path (its addressing
        with this path's end port and QP part)."""
        return self._one_way('_forward_path')

    @property
    def return_path(self):
        """The path packets come back by: like forward_path, with
        _return_path."""
        return self._one_way('_return_path')

    def set_end_port(self, node):
        """Set end_port to the port of node (an rdma.devices.RDMADevice)
        that has SGID in its GID table; RDMAError if none has."""
        if self.SGID is not None:
            for ep in node.end_ports:
                try:
                    ep.gids.index(self.SGID)
                except ValueError:
                    continue
                self.end_port = ep
                self.drop_cache()
                return
        raise rdma.RDMAError(f'RDMA end port {self.SGID!r} not found.')

    def _need_port(self):
        if self.end_port is None:
            raise rdma.RDMAError('the path has no end_port (set it after '
                                 'unpickling)')
        return self.end_port

    @property
    def SGID_index(self):
        """The index of SGID in the end port's GID table (looked up once);
        assigning an index sets SGID."""
        try:
            return self._cached_SGID_index
        except AttributeError:
            pass
        ep = self._need_port()
        if self.SGID is None:
            raise rdma.RDMAError('the path has no SGID')
        try:
            self._cached_SGID_index = ep.gids.index(self.SGID)
        except ValueError:
            raise rdma.RDMAError(f'GID {self.SGID} not available on '
                                 f'{ep}') from None
        return self._cached_SGID_index

    @SGID_index.setter
    def SGID_index(self, value):
        self.SGID = self._need_port().gids[value]
        self._cached_SGID_index = value

    @property
    def pkey_index(self):
        """The index of pkey in the end port's P_Key table; assigning an
        index sets pkey."""
        try:
            return self._cached_pkey_index
        except AttributeError:
            pass
        ep = self._need_port()
        # the P_Key itself, else its other membership (full/limited)
        for pk in (self.pkey, self.pkey ^ IBA.PKEY_MEMBERSHIP_BIT):
            if pk in ep.pkeys:
                self._cached_pkey_index = ep.pkeys.index(pk)
                return self._cached_pkey_index
        raise rdma.RDMAError(f'PKey 0x{self.pkey:x} not available on {ep}')

    @pkey_index.setter
    def pkey_index(self, value):
        self.pkey = self._need_port().pkeys[value]
        self._cached_pkey_index = value

    @property
    def SLID_bits(self):
        """The path bits of SLID; assigning sets SLID from the port LID."""
        return self.SLID & 0xFF

    @SLID_bits.setter
    def SLID_bits(self, value):
        self.SLID = value | self._need_port().lid

    @property
    def DLID_bits(self):
        """The path bits of DLID; assigning sets DLID from the port LID."""
        return self.DLID & 0xFF

    @DLID_bits.setter
    def DLID_bits(self, value):
        self.DLID = value | self._need_port().lid

    @property
    def packet_life_time(self):
        """One-way transit time, an IBA timer code (4.096 us * 2**value);
        the port's subnet timeout unless set."""
        try:
            return self.__dict__['packet_life_time']
        except KeyError:
            return self._need_port().subnet_timeout

    @packet_life_time.setter
    def packet_life_time(self, value):
        self.__dict__['packet_life_time'] = value

    @property
    def mad_timeout(self):
        """Seconds to wait for a MAD reply on this path."""
        return 4.096E-6 * (2 ** (self.packet_life_time + 1) +
                           2 ** self.resp_time)

    @property
    def qp_timeout(self):
        """Seconds an RC QP waits for an ACK: twice the packet life time
        plus the remote ACK delay (IBA.to_timer() gives the QP's
        timeout code)."""
        return 4.096E-6 * (2 ** (self.packet_life_time + 1) +
                           2 ** self.dack_resp_time)

    @staticmethod
    def _format_pkey(v):
        return f'0x{v:x}'

    _format_qkey = _format_pkey

    @staticmethod
    def _format_DLID(v):
        return f'0x{v:x}' if v >= IBA.LID_MULTICAST else str(v)

    _format_SLID = _format_DLID

    def __str__(self):
        if self.has_grh:
            res = (f'{self.SGID} {self.SLID!r} -> {self.DGID} {self.DLID} '
                   f'TC={self.traffic_class!r} FL={self.flow_label!r} '
                   f'HL={self.hop_limit!r}')
        else:
            res = f'{self.SLID!r} -> {self.DLID!r}'
        return (f'Path {res} SL={self.SL!r} PKey=0x{self.pkey:x} '
                f'DQPN={self.dqpn!r}')


def _dr_bytes(hops, text):
    """drPath bytes from a list of port numbers; ValueError unless they
    start at 0 and each fits in 0..254."""
    if not hops or hops[0] != 0 or not all(0 <= h < 255 for h in hops):
        raise ValueError(f'Invalid DR path specification {text!r}')
    return bytes(hops)


def _dr_parse(text, sep):
    """The drPath of '0,1,' (sep ',') or '0:1:' (sep ':'): port numbers,
    an optional trailing separator."""
    parts = text.split(sep)
    if len(parts) < 2:
        raise ValueError(f'Invalid DR path specification {text!r}')
    if parts[-1] == '':
        parts.pop()
    try:
        hops = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f'Invalid DR path specification {text!r}') \
            from None
    return _dr_bytes(hops, text)


class IBDRPath(IBPath):
    """A directed route path (an SMP through QP0 along drPath, the port
    numbers to leave by, starting with 0).  Building, printing and parsing
    one works; sending SMPs needs rdma.umad, which this build lacks.  By
    default it is the route to the local port (permissive LIDs, QP0)."""
    #: SMP drSLID and drDLID (permissive: no LID-routed part)
    drSLID = IBA.LID_PERMISSIVE
    drDLID = IBA.LID_PERMISSIVE

    @property
    def drPath(self):
        """The port numbers of the route, as bytes (b'\\0' is the local
        port).  A str (python-rdma's Python 2 spelling, "\\0\\1") is
        taken as bytes, one port per character."""
        return self.__dict__.get('drPath')

    @drPath.setter
    def drPath(self, value):
        if isinstance(value, str):
            try:
                value = value.encode('latin-1')
            except UnicodeEncodeError:
                raise ValueError(f'drPath {value!r}: each port number is '
                                 'one character below 256') from None
        elif isinstance(value, (bytearray, memoryview)):
            value = bytes(value)
        elif not isinstance(value, bytes):
            raise TypeError(f'drPath is bytes, not {type(value).__name__}')
        self.__dict__['drPath'] = value

    def __init__(self, end_port, **kwargs):
        self.DLID = IBA.LID_PERMISSIVE
        self.SLID = IBA.LID_PERMISSIVE
        self.drPath = b'\0'
        self.dqpn = 0
        self.sqpn = 0
        self.qkey = IBA.IB_DEFAULT_QP0_QKEY
        super().__init__(end_port, **kwargs)

    @property
    def SGID_index(self):
        """A DR path has no GIDs: AttributeError."""
        raise AttributeError('a directed route path has no SGID')

    @property
    def has_grh(self):
        """Always False: a DR path has no GRH."""
        return False

    def complete(self):
        return self.end_port is not None and bool(self.drPath)

    @staticmethod
    def _format_drPath(v):
        return ''.join(f'{h}:' for h in v)

    def __str__(self):
        hops = tuple(self.drPath)
        lid_start = self.drSLID != IBA.LID_PERMISSIVE
        lid_end = self.drDLID != IBA.LID_PERMISSIVE
        text = f'DR Path {hops!r}'
        if lid_start:
            text = f'DR Path {self.DLID} -> {hops!r}'
        if lid_end:
            text += f' -> {self.drDLID}'
        return text


# PathRecord component names (python-rdma's properties=) -> IBPath names
_PR_NAMES = {'PKey': 'pkey', 'SL': 'SL', 'MTU': 'MTU', 'rate': 'rate',
             'TClass': 'traffic_class', 'flowLabel': 'flow_label',
             'hopLimit': 'hop_limit', 'packetLifeTime': 'packet_life_time',
             'SGID': 'SGID', 'DGID': 'DGID'}


def _port_mtu(ep):
    """The active MTU of end port ep (a verbs query)."""
    from pyverbs.device import Context
    with Context(name=ep.parent.name) as ctx:
        attr = ctx.query_port(ep.port_id)
    ep._cache['subnet_timeout'] = attr.subnet_timeout
    return int(attr.active_mtu)


def _local_sgid(ep, dgid):
    """A RoCE v2 GID of ep of the same kind as dgid (IPv4-mapped or not)."""
    want_v4 = dgid.ipv4() is not None
    used = ep.gids.used()
    typed = [(i, g) for i, g in used if ep.gids.gid_type(i) == 'RoCE v2']
    for _, g in typed or used:
        if (g.ipv4() is not None) == want_v4:
            return g
    raise rdma.RDMAError(f'{ep} has no {"IPv4" if want_v4 else "IPv6"} '
                         f'GID to reach {dgid} from')


def resolve_path(mad, path, reversible=False, properties=None):
    """Complete path for use with a QP or AH and return it.

    python-rdma sends a PathRecord query to the subnet administrator
    through mad (an rdma.umad.UMAD).  pyverbs-c has no umad, so mad must
    be None and the path is resolved locally, which needs a RoCE port:
    DGID is required; SGID defaults to the port's RoCE v2 GID of the same
    family; the GRH is on, hop_limit 64 unless set, MTU the port's active
    MTU, DLID/SLID the port's (0 on RoCE), static rate unlimited.
    properties set PathRecord components (PKey, SL, MTU, TClass,
    flowLabel, hopLimit, rate, packetLifeTime); reversible is accepted
    (local paths are always reversible).  On an InfiniBand port this
    raises rdma.RDMAError: there the values come from the SA."""
    if mad is not None:
        raise rdma._no_mads('rdma.path.resolve_path() with a umad')
    if not isinstance(path, IBPath):
        raise TypeError('path must be an rdma.path.IBPath')
    ep = path._need_port()
    if not ep.is_roce:
        raise rdma.RDMAError(
            f'{ep} is an InfiniBand port: its paths come from the subnet '
            'administrator (an SA PathRecord query through rdma.umad), which '
            'pyverbs-c does not implement; this build resolves RoCE paths '
            'locally only.  Fill DLID, SL, MTU ... in the IBPath yourself')
    props = dict(properties or {})
    for k in props:
        if k not in _PR_NAMES:
            raise ValueError(f'unknown PathRecord component {k!r} (known: '
                             f'{", ".join(sorted(_PR_NAMES))})')
    if 'DGID' in props:
        path.DGID = props.pop('DGID')
    if path.DGID is None:
        raise ValueError('resolving a RoCE path needs its DGID')
    path.drop_cache()
    path.DGID = IBA.GID(path.DGID)
    if 'SGID' in props:
        path.SGID = props.pop('SGID')
    path.SGID = _local_sgid(ep, path.DGID) if path.SGID is None \
        else IBA.GID(path.SGID)
    path.SGID_index     # raises if the SGID is not the port's
    path.has_grh = True
    path.DLID = 0
    path.SLID = ep.lid
    if not path.hop_limit:
        path.hop_limit = LOCAL_ROCE_HOP_LIMIT
    path.MTU = _port_mtu(ep)
    path.rate = 0
    for k, v in props.items():
        setattr(path, _PR_NAMES[k], v)
    path.pkey_index     # raises if the P_Key is not the port's
    return path


def get_mad_path(mad, ep_addr, **kwargs):
    """python-rdma's SA query for a MAD path: not in this build."""
    raise rdma._no_mads('rdma.path.get_mad_path()')


def fill_path(qp, path, max_rd_atomic=255):
    """Add the QP's part to path: sqpn, the local ACK delay, the
    RDMA READ/atomic depths the HCA allows (at most max_rd_atomic: 0 if
    the connection needs none) and random start PSNs where they are 0."""
    if max_rd_atomic < 0:
        raise ValueError('max_rd_atomic cannot be negative')
    path.sqpn = qp.qp_num
    dev = qp.ctx.query_device()
    path.sack_resp_time = dev.local_ca_ack_delay
    path.srdatomic = min(path.srdatomic, dev.max_qp_init_rd_atom,
                         max_rd_atomic)
    path.drdatomic = min(path.drdatomic, dev.max_qp_rd_atom, max_rd_atomic)
    if path.sqpsn == 0:
        path.sqpsn = random.getrandbits(24)
    if path.dqpsn == 0:
        path.dqpsn = random.getrandbits(24)
    return path


_CLASSES = {'Path': Path, 'IBPath': IBPath, 'IBDRPath': IBDRPath}


def _spec_value(cls, k, v):
    """The value of attribute k of a path spec, from its text v."""
    if v.startswith('GID(') and v.endswith(')'):
        v = v[4:-1].strip('\'"')
    if k == 'end_port':
        v = v.strip('\'"')
        if v == 'None':
            return None
        try:
            return rdma.get_end_port(v)
        except rdma.RDMAError as err:
            raise ValueError(f'Could not find {v!r}: {err}') from None
    if k.startswith('_') or not hasattr(cls, k):
        raise ValueError(f'Path attribute {k!r} is not known')
    if 'GID' in k and k != 'SGID_index':
        return IBA.GID(v)
    if k == 'drPath':
        return _dr_parse(v, ':')
    try:
        return int(v, 0)
    except ValueError:
        raise ValueError(f'{k!r}={v!r} is not a valid integer') from None


def from_spec_string(s):
    """The path of a repr() string, e.g. "IBPath(end_port='rxe0/1',
    DGID=GID('::ffff:192.0.2.2'), qkey=0x11)": at least one attribute;
    integers, GIDs, a DR route and the end port are parsed (nothing is
    evaluated), so untrusted text is safe.  ValueError if it cannot be
    parsed, names an unknown attribute or an end port that is not here."""
    m = re.match(r'^\s*(\w+)\(\s*(.*?)\s*\)\s*$', s)
    if m is None or m.group(1) not in _CLASSES:
        raise ValueError(f'Invalid path specification {s!r}')
    cls = _CLASSES[m.group(1)]
    kwargs = {}
    for item in m.group(2).split(','):
        k, sep, v = (t.strip() for t in item.partition('='))
        if not sep or not k or not v:
            raise ValueError(f'Invalid path specification {s!r}')
        kwargs[k] = _spec_value(cls, k, v)
    ep = kwargs.pop('end_port', None)
    try:
        return cls(ep, **kwargs)
    except TypeError as err:
        raise ValueError(f'Invalid path specification {s!r}: {err}') \
            from None


def _port_of_gid(gid, require_dev):
    """The end port a destination GID outside the link-local prefix says
    to use: the port that has the GID itself, else the first whose subnet
    prefix it shares (python-rdma's rule; the zero prefix of IPv4-mapped
    RoCE GIDs is no subnet and matches only the GID itself).  None if no
    port matches, or the GID is link-local (it names no subnet)."""
    prefix = int(gid) >> 64
    if prefix == IBA.GID_DEFAULT_PREFIX:
        return None
    ports = [ep for dev in rdma.get_devices()
             if require_dev is None or dev is require_dev
             for ep in dev.end_ports]
    for ep in ports:
        if any(g == gid for g in ep.gids):
            return ep
    for ep in ports if prefix else ():
        if any(int(g) >> 64 == prefix for g in ep.gids):
            return ep
    return None


def from_string(s, default_end_port=None, require_dev=None,
                require_ep=None):
    """A path from text:

    - a GID ('fe80::1', '::ffff:192.0.2.2'): DGID; a GID that a local port
      has, or whose (non-link-local) subnet prefix one has, picks that end
      port;
    - a scoped GID ('fe80::1%rxe0/1'): DGID, and that end port;
    - a port GUID ('0002:c903:0000:1491'): DGID fe80:: + GUID;
    - a LID ('12', '0xc'): DLID;
    - a DR route ('0,1,'): an IBDRPath;
    - a repr() of a path (from_spec_string).

    end_port is default_end_port (require_ep if given) when the text does
    not pick one.  ValueError if the text cannot be parsed, or names
    another port than require_dev/require_ep."""
    if not isinstance(s, str):
        raise TypeError(f'a path is parsed from a str, not '
                        f'{type(s).__name__}')
    if require_ep is not None:
        default_end_port = require_ep

    def check(ep):
        if require_dev is not None and ep.parent is not require_dev:
            raise ValueError(f'Path requires device {require_dev}, got {ep}')
        if require_ep is not None and ep is not require_ep:
            raise ValueError(f'Path requires end port {require_ep}, '
                             f'got {ep}')
        return ep

    if '(' in s:
        ret = from_spec_string(s)
        if ret.end_port is None:
            ret.end_port = default_end_port
        else:
            check(ret.end_port)
        return ret
    if ',' in s:
        return IBDRPath(default_end_port, drPath=_dr_parse(s, ','))
    text, sep, scope = s.partition('%')
    if sep:
        try:
            ep = rdma.get_end_port(scope)
        except rdma.RDMAError as err:
            raise ValueError(f'Could not find {scope!r}: {err}') from None
        return IBPath(check(ep), DGID=IBA.GID(text))
    addr = IBA.conv_ep_addr(s)
    if isinstance(addr, IBA.GID):
        ep = None if require_ep is not None else \
            _port_of_gid(addr, require_dev)
        return IBPath(default_end_port if ep is None else check(ep),
                      DGID=addr)
    return IBPath(default_end_port, DLID=addr)
