# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's rdma.ibverbs over pyverbs' objects.

Context, PD, CQ, CompChannel, QP, SRQ, MR and AH wrap the pyverbs object of
the same name (its .native) and speak python-rdma's dialect: keyword
structs with a MASK of the fields set (qp_attr, ah_attr, send_wr, sge ...),
WRs given one at a time or as a list, CQ.poll() returning a list, QP setup
from an rdma.path.IBPath (modify_to_init/rtr/rts), errors as rdma.SysError
with the errno and the failing C function.  Closing a Context or PD closes
what was made from it (pyverbs' own close cascade).
"""
import collections
import errno as _errno
import select
import struct
import weakref

import rdma
import rdma.path
from rdma import IBA
from rdma.tools import Struct as _Struct
import pyverbs.enums as _e
from pyverbs import addr as _addr
from pyverbs import cq as _cq
from pyverbs import device as _device
from pyverbs import mr as _mr
from pyverbs import pd as _pd
from pyverbs import qp as _qp
from pyverbs import srq as _srq
from pyverbs import wr as _wr
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError

# Every IBV_* constant of libibverbs, as plain ints.
for _name in dir(_e):
    if _name.startswith('IBV_'):
        globals()[_name] = int(getattr(_e, _name))
del _name

debug = False


# ---- errors ------------------------------------------------------------

class WRError(rdma.SysError):
    """Posting work requests failed: bad_index is the position of the WR
    that failed in the list given."""

    def __init__(self, errno, func, msg, bad_index):
        super().__init__(errno, func, msg)
        self.bad_index = bad_index


class WCError(rdma.RDMAError, _cq.WCError):
    """A work completion with an error status, as an exception.

    WCError(wc, cq=None, msg=..., obj=None, is_rq=None, qp=None): obj (or
    qp) is the QP or SRQ the WC belongs to, if known; otherwise the QP is
    looked up by wc.qp_num on cq's Context.  Also a pyverbs.cq.WCError.
    """
    is_rq = None
    qp = None
    srq = None

    def __init__(self, wc, cq=None, msg='Error work completion', obj=None,
                 is_rq=None, qp=None):
        if obj is None:
            obj = qp
        found = None
        if isinstance(obj, QP):
            found = obj
        elif isinstance(obj, SRQ):
            found = obj.pd.from_qp_num(wc.qp_num)
            self.srq = obj
        elif obj is not None:
            raise TypeError(f'obj must be a QP or an SRQ, not '
                            f'{type(obj).__name__}')
        elif cq is not None:
            found = cq.ctx.from_qp_num(wc.qp_num)
        info = [f'op={_const_str("IBV_WC_", wc.opcode)}',
                f'vend=0x{wc.vendor_err:x}']
        if cq is not None:
            info.append(str(cq))
        if found is not None:
            self.qp = found
            info.append(str(found))
            if self.srq is None:
                self.srq = found._srq
        if is_rq is not None:
            self.is_rq = is_rq
            info.append('RQ' if is_rq else 'SQ')
        if self.srq is not None:
            info.append(str(self.srq))
        text = (f'{msg} - {wc.status} {wc_status_str(wc.status)} '
                f'({" ".join(info)})')
        _cq.WCError.__init__(self, wc, cq, text)

    def __reduce__(self):
        return (_rebuild_exc, (type(self), self.wc, str(self)))


class AsyncError(rdma.RDMAError):
    """An asynchronous error event: event is (event_type, obj)."""

    def __init__(self, event, msg='Asynchronous error event'):
        super().__init__(f'{msg} - {_const_str("IBV_EVENT_", event[0])} '
                         f'for {event[1]!r}')
        self.event = event


def _rebuild_exc(cls, wc, text):
    err = cls.__new__(cls)
    Exception.__init__(err, text)
    err.wc, err.cq, err.status, err.qp_num = wc, None, wc.status, wc.qp_num
    err._msg, err._error_code, err.func = text, -1, None
    return err


def _const_str(prefix, value):
    """The name of value in the libibverbs enum whose members start with
    prefix (without it), e.g. _const_str('IBV_WC_', 1) is 'RDMA_WRITE'."""
    enum_cls = {'IBV_WC_': _e.ibv_wc_opcode, 'IBV_EVENT_': _e.ibv_event_type,
                'IBV_QPT_': _e.ibv_qp_type}[prefix]
    try:
        return enum_cls(value).name[len(prefix):]
    except ValueError:
        return str(value)


def wc_status_str(status):
    """The text of a WC status (ibv_wc_status_str)."""
    return _cq.cqe_status_to_str(status)


def _sys_error(err, func, msg):
    """The rdma.SysError for a PyverbsRDMAError err."""
    code = err.errno if err.errno and err.errno > 0 else _errno.EINVAL
    return rdma.SysError(code, err.func or func, msg)


# ---- keyword structs ---------------------------------------------------

class wc(_Struct):
    """A work completion (struct ibv_wc)."""
    _fields = (('wr_id', 0), ('status', 0), ('opcode', 0),
               ('vendor_err', 0), ('byte_len', 0), ('imm_data', 0),
               ('qp_num', 0), ('src_qp', 0), ('wc_flags', 0),
               ('pkey_index', 0), ('slid', 0), ('sl', 0),
               ('dlid_path_bits', 0))


class global_route(_Struct):
    """struct ibv_global_route; dgid is an rdma.IBA.GID."""
    _fields = (('dgid', IBA.GID), ('flow_label', 0), ('sgid_index', 0),
               ('hop_limit', 0), ('traffic_class', 0))


class ah_attr(_Struct):
    """struct ibv_ah_attr; grh is a global_route."""
    _fields = (('grh', global_route), ('dlid', 0), ('sl', 0),
               ('src_path_bits', 0), ('static_rate', 0), ('is_global', 0),
               ('port_num', 0))


class qp_cap(_Struct):
    """struct ibv_qp_cap."""
    _fields = (('max_send_wr', 0), ('max_recv_wr', 0), ('max_send_sge', 0),
               ('max_recv_sge', 0), ('max_inline_data', 0))


class qp_init_attr(_Struct):
    """struct ibv_qp_init_attr (for PD.qp_raw)."""
    _fields = (('send_cq', None), ('recv_cq', None), ('srq', None),
               ('cap', qp_cap), ('qp_type', 0), ('sq_sig_all', 0))


class qp_attr(_Struct):
    """struct ibv_qp_attr; MASK is the IBV_QP_* mask of the fields set,
    ready for QP.modify(attr, attr.MASK).  ah_attr may be an ah_attr or
    an rdma.path.IBPath."""
    _fields = (
        ('qp_state', 0, _e.IBV_QP_STATE),
        ('cur_qp_state', 0, _e.IBV_QP_CUR_STATE),
        ('path_mtu', 0, _e.IBV_QP_PATH_MTU),
        ('path_mig_state', 0, _e.IBV_QP_PATH_MIG_STATE),
        ('qkey', 0, _e.IBV_QP_QKEY),
        ('rq_psn', 0, _e.IBV_QP_RQ_PSN),
        ('sq_psn', 0, _e.IBV_QP_SQ_PSN),
        ('dest_qp_num', 0, _e.IBV_QP_DEST_QPN),
        ('qp_access_flags', 0, _e.IBV_QP_ACCESS_FLAGS),
        ('cap', qp_cap, _e.IBV_QP_CAP),
        ('ah_attr', ah_attr, _e.IBV_QP_AV),
        ('alt_ah_attr', ah_attr, _e.IBV_QP_ALT_PATH),
        ('pkey_index', 0, _e.IBV_QP_PKEY_INDEX),
        ('alt_pkey_index', 0, _e.IBV_QP_ALT_PATH),
        ('en_sqd_async_notify', 0, _e.IBV_QP_EN_SQD_ASYNC_NOTIFY),
        ('sq_draining', 0),
        ('max_rd_atomic', 0, _e.IBV_QP_MAX_QP_RD_ATOMIC),
        ('max_dest_rd_atomic', 0, _e.IBV_QP_MAX_DEST_RD_ATOMIC),
        ('min_rnr_timer', 0, _e.IBV_QP_MIN_RNR_TIMER),
        ('port_num', 0, _e.IBV_QP_PORT),
        ('timeout', 0, _e.IBV_QP_TIMEOUT),
        ('retry_cnt', 0, _e.IBV_QP_RETRY_CNT),
        ('rnr_retry', 0, _e.IBV_QP_RNR_RETRY),
        ('alt_port_num', 0, _e.IBV_QP_ALT_PATH),
        ('alt_timeout', 0, _e.IBV_QP_ALT_PATH))


class sge(_Struct):
    """struct ibv_sge."""
    _fields = (('addr', 0), ('length', 0), ('lkey', 0))


class send_wr(_Struct):
    """struct ibv_send_wr: sg_list is an sge or a list of them; remote_addr
    and rkey for RDMA, compare_add and swap for atomics, ah, remote_qpn and
    remote_qkey for UD."""
    _fields = (('wr_id', 0), ('sg_list', None), ('opcode', 0),
               ('send_flags', 0), ('imm_data', 0), ('remote_addr', 0),
               ('rkey', 0), ('compare_add', 0), ('swap', 0), ('ah', None),
               ('remote_qpn', 0), ('remote_qkey', 0))


class recv_wr(_Struct):
    """struct ibv_recv_wr: sg_list is an sge or a list of them."""
    _fields = (('wr_id', 0), ('sg_list', None))


srq_attr = collections.namedtuple('srq_attr', 'max_wr max_sge srq_limit')
async_event = collections.namedtuple('async_event', 'event_type obj')
_PORT_FIELDS = ('state max_mtu active_mtu gid_tbl_len port_cap_flags '
                'max_msg_sz bad_pkey_cntr qkey_viol_cntr pkey_tbl_len lid '
                'sm_lid lmc max_vl_num sm_sl subnet_timeout init_type_reply '
                'active_width active_speed phys_state link_layer')
port_attr = collections.namedtuple('port_attr', _PORT_FIELDS)
_DEVICE_FIELDS = (
    'fw_ver node_guid sys_image_guid max_mr_size page_size_cap vendor_id '
    'vendor_part_id hw_ver max_qp max_qp_wr device_cap_flags max_sge '
    'max_sge_rd max_cq max_cqe max_mr max_pd max_qp_rd_atom max_ee_rd_atom '
    'max_res_rd_atom max_qp_init_rd_atom max_ee_init_rd_atom atomic_cap '
    'max_ee max_rdd max_mw max_raw_ipv6_qp max_raw_ethy_qp max_mcast_grp '
    'max_mcast_qp_attach max_total_mcast_qp_attach max_ah max_fmr '
    'max_map_per_fmr max_srq max_srq_wr max_srq_sge max_pkeys '
    'local_ca_ack_delay phys_port_cnt')
device_attr = collections.namedtuple('device_attr', _DEVICE_FIELDS)

# The C names (struct ibv_qp_attr is ibv_qp_attr here too).
ibv_wc = wc
ibv_global_route = global_route
ibv_ah_attr = ah_attr
ibv_qp_cap = qp_cap
ibv_qp_init_attr = qp_init_attr
ibv_qp_attr = qp_attr
ibv_sge = sge
ibv_send_wr = send_wr
ibv_recv_wr = recv_wr
ibv_srq_attr = srq_attr
ibv_port_attr = port_attr
ibv_device_attr = device_attr
ibv_async_event = async_event


# ---- conversions to and from pyverbs -----------------------------------

def _pv_gid(gid):
    return _addr.GID(':'.join(bytes(gid)[i:i + 2].hex()
                              for i in range(0, 16, 2)))


def _pv_ah_attr(attr):
    """A pyverbs AHAttr from an ah_attr or an rdma.path.IBPath."""
    if isinstance(attr, ah_attr):
        kw = dict(dlid=attr.dlid, sl=attr.sl,
                  src_path_bits=attr.src_path_bits,
                  static_rate=attr.static_rate, is_global=attr.is_global,
                  port_num=attr.port_num)
        if attr.is_global:
            grh = attr.grh
            if not isinstance(grh, global_route):
                raise TypeError('attr.grh must be a global_route')
            if not isinstance(grh.dgid, IBA.GID):
                raise TypeError('attr.grh.dgid must be an IBA.GID')
            kw['gr'] = _addr.GlobalRoute(
                dgid=_pv_gid(grh.dgid), flow_label=grh.flow_label,
                sgid_index=grh.sgid_index, hop_limit=grh.hop_limit,
                traffic_class=grh.traffic_class)
        return _addr.AHAttr(**kw)
    if isinstance(attr, rdma.path.IBPath):
        if attr.end_port is None:
            raise ValueError('the path has no end_port (set path.end_port '
                             'after unpickling it)')
        kw = dict(dlid=attr.DLID, sl=attr.SL, src_path_bits=attr.SLID_bits,
                  static_rate=attr.rate, is_global=int(bool(attr.has_grh)),
                  port_num=attr.end_port.port_id)
        if attr.has_grh:
            if attr.DGID is None:
                raise ValueError('a path with has_grh needs a DGID')
            kw['gr'] = _addr.GlobalRoute(
                dgid=_pv_gid(IBA.GID(attr.DGID)), flow_label=attr.flow_label,
                sgid_index=attr.SGID_index, hop_limit=attr.hop_limit,
                traffic_class=attr.traffic_class)
        return _addr.AHAttr(**kw)
    raise TypeError('attr must be an rdma.ibverbs.ah_attr or '
                    'rdma.path.IBPath')


def _from_pv_ah_attr(a):
    return ah_attr(grh=global_route(dgid=IBA.GID(str(a.dgid)),
                                    flow_label=a.flow_label,
                                    sgid_index=a.sgid_index,
                                    hop_limit=a.hop_limit,
                                    traffic_class=a.traffic_class),
                   dlid=a.dlid, sl=a.sl, src_path_bits=a.src_path_bits,
                   static_rate=a.static_rate, is_global=a.is_global,
                   port_num=a.port_num)


_CAP_FIELDS = tuple(f[0] for f in qp_cap._fields)


def _pv_cap(c):
    return _qp.QPCap(**{k: getattr(c, k) for k in _CAP_FIELDS})


def _from_pv_cap(c):
    return qp_cap(**{k: getattr(c, k) for k in _CAP_FIELDS})


_WC_FIELDS = tuple(wc._finfo)


def _wc_from(w):
    out = object.__new__(wc)
    d = out.__dict__
    for k in _WC_FIELDS:
        d[k] = getattr(w, k)
    d['MASK'] = 0
    return out


def _wr_list(arg, wrtype):
    if isinstance(arg, wrtype):
        return [arg]
    if isinstance(arg, (list, tuple)) and arg:
        for w in arg:
            if not isinstance(w, wrtype):
                raise TypeError(f'Work request must be of type '
                                f'{wrtype.__name__}')
        return arg
    raise TypeError('Expecting a work request or a list/tuple of work '
                    'requests')


def _pv_sges(sg_list, max_sge):
    if sg_list is None:
        return []
    if isinstance(sg_list, sge):
        sg_list = (sg_list,)
    elif not isinstance(sg_list, (list, tuple)):
        raise TypeError('sg_list must be an sge or a list of them')
    if len(sg_list) > max_sge:
        raise ValueError('Too many scatter/gather entries in work request')
    out = []
    for s in sg_list:
        if not isinstance(s, sge):
            raise TypeError('sg_list entries must be of type sge')
        out.append(_wr.SGE(s.addr, s.length, s.lkey))
    return out


def _pv_recv_wrs(arg, max_sge):
    out = []
    for w in _wr_list(arg, recv_wr):
        sg = _pv_sges(w.sg_list, max_sge)
        out.append(_wr.RecvWR(wr_id=w.wr_id, num_sge=len(sg), sg=sg))
    return out


def _post(fn, wrs, func):
    try:
        fn(wrs if len(wrs) > 1 else wrs[0])
    except PyverbsRDMAError as err:
        code = err.errno if err.errno and err.errno > 0 else _errno.EINVAL
        idx = getattr(err, 'bad_wr_index', None)
        if idx is None and len(wrs) == 1:
            idx = 0
        raise WRError(code, err.func or func, 'Failed to post work request',
                      idx) from err


def _check(obj, what):
    if obj is None or obj.native.closed:
        raise rdma.RDMAError(f'the {what} is closed')


class _Wrapper:
    """Common part of the verbs objects: .native is the pyverbs object."""
    native = None
    _what = 'object'

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        """Free the verbs object (and, for Context and PD, what was made
        from it).  Closing twice does nothing."""
        if self.native is not None and not self.native.closed:
            try:
                self.native.close()
            except PyverbsRDMAError as err:
                raise _sys_error(err, f'ibv_destroy_{self._what}',
                                 f'Failed to destroy {self._what}') from err

    @property
    def closed(self):
        return self.native is None or self.native.closed


# ---- Context -----------------------------------------------------------

class Context(_Wrapper):
    """A verbs device context; rdma.get_verbs(end_port) makes one.  end_port
    is the EndPort it was opened for (None when opened for a device),
    node its RDMADevice."""
    _what = 'context'

    def __init__(self, parent):
        if isinstance(parent, str):
            parent = rdma.get_end_port(parent)
        if isinstance(parent, rdma.devices.RDMADevice):
            self.node, self.end_port = parent, None
        elif isinstance(parent, rdma.devices.EndPort):
            self.node, self.end_port = parent.parent, parent
        else:
            raise TypeError('parent must be an rdma.devices.EndPort or '
                            'RDMADevice')
        try:
            self.native = _device.Context(name=self.node.name)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_open_device',
                             f'Failed to open {self.node.name}') from err
        self._pds = weakref.WeakSet()
        self._objs = weakref.WeakValueDictionary()
        if self.end_port is not None:
            self.query_port()

    def _adopt(self, obj):
        self._objs[id(obj.native)] = obj
        return obj

    def query_device(self):
        """The device's attributes, a device_attr."""
        _check(self, 'context')
        try:
            a = self.native.query_device()
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_query_device',
                             'Failed to query device') from err
        vals = {k: getattr(a, k, 0) for k in device_attr._fields}
        vals['node_guid'] = IBA.GUID(struct.pack('=Q', a.node_guid), True)
        vals['sys_image_guid'] = IBA.GUID(
            struct.pack('=Q', a.sys_image_guid), True)
        return device_attr(**vals)

    def query_port(self, port_id=None):
        """The attributes of port port_id (default: this context's end
        port), a port_attr.  Records the port's subnet timeout."""
        _check(self, 'context')
        if port_id is None:
            if self.end_port is None:
                raise ValueError('this Context was opened for a device: '
                                 'give port_id')
            port_id = self.end_port.port_id
        try:
            a = self.native.query_port(port_id)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_query_port',
                             f'Failed to query port {port_id!r}') from err
        if port_id in self.node.end_ports:
            self.node.end_ports[port_id]._cache['subnet_timeout'] = \
                a.subnet_timeout
        return port_attr(**{k: getattr(a, k) for k in port_attr._fields})

    def from_qp_num(self, num):
        """The QP of this context numbered num, or None."""
        for pd in list(self._pds):
            qp = pd.from_qp_num(num)
            if qp is not None:
                return qp
        return None

    def pd(self):
        """A new PD."""
        ret = PD(self)
        self._pds.add(ret)
        return ret

    def cq(self, nelems=100, cc=None, vec=0):
        """A new CQ of at least nelems entries, reporting to CompChannel
        cc if given."""
        return CQ(self, nelems, cc, vec)

    def comp_channel(self):
        """A new CompChannel."""
        return CompChannel(self)

    def get_async_event(self):
        """Wait for the next asynchronous event; an async_event of
        (event_type, obj), obj being the QP, CQ or SRQ wrapper, the
        EndPort or the RDMADevice concerned (None if unknown)."""
        _check(self, 'context')
        try:
            ev = self.native.get_async_event()
        except PyverbsRDMAError as err:
            if err.errno == _errno.EAGAIN:
                return None
            raise _sys_error(err, 'ibv_get_async_event',
                             'Failed to get an asynchronous event') from err
        el = ev.element
        if isinstance(el, int) and not isinstance(el, bool):
            obj = self.node.end_ports[el] if el in self.node.end_ports \
                else None
        elif el is None:
            obj = self.node if ev.event_type == _e.IBV_EVENT_DEVICE_FATAL \
                else None
        else:
            obj = self._objs.get(id(el))
        return async_event(int(ev.event_type), obj)

    _FATAL = (_e.IBV_EVENT_DEVICE_FATAL, _e.IBV_EVENT_SRQ_ERR,
              _e.IBV_EVENT_CQ_ERR, _e.IBV_EVENT_QP_FATAL,
              _e.IBV_EVENT_QP_REQ_ERR, _e.IBV_EVENT_QP_ACCESS_ERR,
              _e.IBV_EVENT_PATH_MIG_ERR)

    def handle_async_event(self, event):
        """Act on an event of get_async_event(): raise AsyncError for the
        error events, refresh the end port's cached data for LID, P_Key,
        SM and GID table changes, ignore the rest."""
        ty = event[0]
        if ty in self._FATAL:
            raise AsyncError(event)
        port = event[1]
        if isinstance(port, rdma.devices.EndPort):
            if ty == _e.IBV_EVENT_LID_CHANGE:
                port.lid_change()
            elif ty == _e.IBV_EVENT_PKEY_CHANGE:
                port.pkey_change()
            elif ty == _e.IBV_EVENT_SM_CHANGE:
                self.query_port(port.port_id)
                port.sm_change()
            elif ty == _e.IBV_EVENT_GID_CHANGE:
                port.gid_change()

    def fileno(self):
        """The async event file descriptor."""
        _check(self, 'context')
        return self.native.fileno()

    def register_poll(self, poll):
        """Register the async event fd with select.poll object poll."""
        poll.register(self.fileno(), select.POLLIN)

    def check_poll(self, pevent):
        """True if pevent, an (fd, events) pair of poll.poll(), says that
        get_async_event() has an event."""
        return pevent[0] == self.fileno() and bool(pevent[1] & select.POLLIN)

    def __str__(self):
        return f'context:{self.node}'

    def __repr__(self):
        return f"Context('{self.node}')"


# ---- PD, AH, MR, SRQ ---------------------------------------------------

class PD(_Wrapper):
    """A protection domain; closing it closes its QPs, SRQs, MRs, AHs."""
    _what = 'pd'

    def __init__(self, ctx):
        if not isinstance(ctx, Context):
            raise TypeError('ctx must be an rdma.ibverbs.Context')
        _check(ctx, 'context')
        self.ctx = ctx
        try:
            self.native = _pd.PD(ctx.native)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_alloc_pd',
                             'Failed to allocate protection domain') from err
        self._qps = weakref.WeakSet()
        self._path_ah = f'_cached_pd{id(self):x}_ah'
        ctx._adopt(self)

    def from_qp_num(self, num):
        """This PD's QP numbered num, or None."""
        for qp in list(self._qps):
            if not qp.closed and qp.qp_num == num:
                return qp
        return None

    def qp_raw(self, init):
        """A new QP from a qp_init_attr."""
        ret = QP(self, init)
        self._qps.add(ret)
        return ret

    def qp(self, qp_type, max_send_wr, send_cq, max_recv_wr, recv_cq,
           srq=None, sq_sig_all=1, max_send_sge=1, max_recv_sge=1,
           max_inline_data=0):
        """A new QP, its creation attributes given as arguments."""
        cap = qp_cap(max_send_wr=max_send_wr, max_recv_wr=max_recv_wr,
                     max_send_sge=max_send_sge, max_recv_sge=max_recv_sge,
                     max_inline_data=max_inline_data)
        return self.qp_raw(qp_init_attr(send_cq=send_cq, recv_cq=recv_cq,
                                        srq=srq, cap=cap, qp_type=qp_type,
                                        sq_sig_all=sq_sig_all))

    def cq(self, nelems=100, cc=None, vec=0):
        """A new CQ of this PD's Context (the document's UD example makes
        its CQ this way)."""
        return self.ctx.cq(nelems, cc, vec)

    def srq(self, max_wr=100, max_sge=1):
        """A new SRQ."""
        return SRQ(self, max_wr, max_sge)

    def mr(self, buf, access=0):
        """A new MR over buf, any buffer-protocol object (writable if
        access asks for LOCAL_WRITE or REMOTE_WRITE)."""
        return MR(self, buf, access)

    def ah(self, attr):
        """An AH for an ah_attr or an rdma.path.IBPath.  A path's AH is
        cached in the path (path.drop_cache() forgets it)."""
        if isinstance(attr, rdma.path.IBPath):
            ret = attr.__dict__.get(self._path_ah)
            if ret is None or ret.closed:
                ret = AH(self, attr)
                setattr(attr, self._path_ah, ret)
            return ret
        return AH(self, attr)

    def __str__(self):
        return f'pd:{self.native.handle:X}:{self.ctx.node}'

    def __repr__(self):
        return f'PD({self.ctx!r},0x{self.native.handle:x})'


class AH(_Wrapper):
    """An address handle for an ah_attr or an rdma.path.IBPath."""
    _what = 'ah'

    def __init__(self, pd, attr):
        if not isinstance(pd, PD):
            raise TypeError('pd must be an rdma.ibverbs.PD')
        _check(pd, 'pd')
        pv_attr = _pv_ah_attr(attr)
        self.pd = pd
        try:
            self.native = _addr.AH(pd.native, attr=pv_attr)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_create_ah',
                             'Failed to create address handle') from err

    def __str__(self):
        return f'ah:{id(self.native):X}'

    def __repr__(self):
        return f'AH(0x{id(self.native):x})'


_WRITE_ACCESS = _e.IBV_ACCESS_LOCAL_WRITE | _e.IBV_ACCESS_REMOTE_WRITE
_REMOTE_WRITE = _e.IBV_ACCESS_REMOTE_WRITE | _e.IBV_ACCESS_REMOTE_ATOMIC


class MR(_Wrapper):
    """A memory registration over a buffer-protocol object (bytes, a
    bytearray, an mmap, a numpy array ...), held until close().  A
    read-only buffer takes access without LOCAL_WRITE/REMOTE_WRITE (e.g.
    REMOTE_READ); REMOTE_WRITE and REMOTE_ATOMIC imply LOCAL_WRITE, which
    verbs require with them."""
    _what = 'mr'

    def __init__(self, pd, buf, access=0):
        if not isinstance(pd, PD):
            raise TypeError('pd must be an rdma.ibverbs.PD')
        _check(pd, 'pd')
        if isinstance(buf, str):
            raise TypeError('Expected buffer: a str has no memory to '
                            'register; use bytes (e.g. s.encode())')
        try:
            view = memoryview(buf)
        except TypeError:
            raise TypeError(f'Expected buffer, not {type(buf).__name__}') \
                from None
        readonly = view.readonly
        view.release()
        if access & _WRITE_ACCESS and readonly:
            raise TypeError('Expected mutable buffer: LOCAL_WRITE and '
                            'REMOTE_WRITE need a writable one')
        if access & _REMOTE_WRITE:
            # verbs refuse REMOTE_WRITE (or ATOMIC) without LOCAL_WRITE
            # (EINVAL); python-rdma's document registers that way
            access |= _e.IBV_ACCESS_LOCAL_WRITE
        self.pd = pd
        self._buf = buf
        try:
            # pyverbs' MR holds the buffer (read-only ones too, when the
            # access writes nothing) until it is closed
            self.native = _mr.MR(pd.native, 0, access, address=buf)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_reg_mr',
                             'Failed to register memory region') from err
        except (PyverbsUserError, BufferError) as err:
            raise ValueError(f'cannot register this buffer: {err}') from err

    ctx = property(lambda self: self.pd.ctx)
    addr = property(lambda self: self.native.buf)
    length = property(lambda self: self.native.length)
    lkey = property(lambda self: self.native.lkey)
    rkey = property(lambda self: self.native.rkey)

    def sge(self, length=-1, off=0):
        """An sge for length bytes (-1: to the end) from offset off."""
        _check(self, 'mr')
        if off < 0:
            raise ValueError(f'off {off!r} cannot be negative')
        total = self.native.length
        if length == -1:
            length = total - off
        if length < 0 or length + off > total:
            raise ValueError(f'Length is too long {length + off} > {total}')
        return sge(addr=self.native.buf + off, length=length,
                   lkey=self.native.lkey)

    def __str__(self):
        return f'mr:{self.native.handle:X}:{self.pd}'

    def __repr__(self):
        return (f'MR({self.pd!r},0x{self.native.handle:x},0x{self.addr:x},'
                f'{self.length},lkey=0x{self.lkey:x},rkey=0x{self.rkey:x})')


class SRQ(_Wrapper):
    """A shared receive queue."""
    _what = 'srq'

    def __init__(self, pd, max_wr, max_sge):
        if not isinstance(pd, PD):
            raise TypeError('pd must be an rdma.ibverbs.PD')
        _check(pd, 'pd')
        self.pd = pd
        self._max_sge = max_sge
        init = _srq.SrqInitAttr(_srq.SrqAttr(max_wr=max_wr, max_sge=max_sge))
        try:
            self.native = _srq.SRQ(pd.native, init)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_create_srq',
                             'Failed to create SRQ') from err
        pd.ctx._adopt(self)

    ctx = property(lambda self: self.pd.ctx)

    def modify(self, srq_limit=None, max_wr=None):
        """Change srq_limit and/or max_wr (None: leave as is)."""
        _check(self, 'srq')
        attr = _srq.SrqAttr()
        mask = 0
        if max_wr is not None:
            attr.max_wr = max_wr
            mask |= _e.IBV_SRQ_MAX_WR
        if srq_limit is not None:
            attr.srq_limit = srq_limit
            mask |= _e.IBV_SRQ_LIMIT
        try:
            self.native.modify(attr, mask)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_modify_srq',
                             'Failed to modify a SRQ') from err

    def query(self):
        """An srq_attr."""
        _check(self, 'srq')
        try:
            a = self.native.query()
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_query_srq',
                             'Failed to query a SRQ') from err
        self._max_sge = a.max_sge
        return srq_attr(a.max_wr, a.max_sge, a.srq_limit)

    def post_recv(self, arg):
        """Post a recv_wr or a list of them."""
        _check(self, 'srq')
        _post(self.native.post_recv, _pv_recv_wrs(arg, self._max_sge),
              'ibv_post_srq_recv')

    def __str__(self):
        return f'srq:{id(self.native):X}:{self.pd}'

    def __repr__(self):
        return f'SRQ({self.pd!r},0x{id(self.native):x})'


# ---- CQ, CompChannel ---------------------------------------------------

class CompChannel(_Wrapper):
    """A completion channel; register_poll()/check_poll() fit it into a
    select.poll loop."""
    _what = 'comp_channel'

    def __init__(self, ctx):
        if not isinstance(ctx, Context):
            raise TypeError('ctx must be an rdma.ibverbs.Context')
        _check(ctx, 'context')
        self.ctx = ctx
        self._cqs = weakref.WeakSet()
        try:
            self.native = _cq.CompChannel(ctx.native)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_create_comp_channel',
                             'Failed to create completion channel') from err

    def fileno(self):
        _check(self, 'completion channel')
        return self.native.fileno()

    def register_poll(self, poll):
        """Register this channel's fd with select.poll object poll."""
        poll.register(self.fileno(), select.POLLIN)

    def check_poll(self, pevent):
        """For an (fd, events) pair of poll.poll(): the CQ that got a
        completion event, or None if pevent is not about this channel.
        The event is consumed (and acknowledged); re-arm the CQ with
        req_notify() before waiting again."""
        if pevent[0] != self.fileno() or not pevent[1] & select.POLLIN:
            return None
        cqs = [c for c in self._cqs if not c.closed]
        if not cqs:
            raise rdma.RDMAError('an event came to a channel without CQs')
        before = {c: c.native.num_events for c in cqs}
        try:
            self.native.get_cq_event(cqs[0].native)
            got = cqs[0]
        except PyverbsRDMAError as err:
            got = next((c for c in cqs
                        if c.native.num_events != before[c]), None)
            if got is None:
                raise _sys_error(err, 'ibv_get_cq_event',
                                 'ibv_get_cq_event failed') from err
        got.native.ack_events(1)
        return got

    def __str__(self):
        return f'comp_channel:{self.fileno()}:{self.ctx.node}'

    def __repr__(self):
        return f'CompChannel({self.ctx!r},{self.fileno()})'


class CQ(_Wrapper):
    """A completion queue."""
    _what = 'cq'
    comp_events = 0

    def __init__(self, ctx, nelems=100, chan=None, vec=0):
        if not isinstance(ctx, Context):
            raise TypeError('ctx must be an rdma.ibverbs.Context')
        if chan is not None and not isinstance(chan, CompChannel):
            raise TypeError('the completion channel must be a CompChannel '
                            'or None')
        _check(ctx, 'context')
        self.ctx = ctx
        self.comp_chan = chan
        try:
            self.native = _cq.CQ(ctx.native, nelems, None,
                                 None if chan is None else chan.native, vec)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_create_cq',
                             'Failed to create completion queue') from err
        if chan is not None:
            chan._cqs.add(self)
        ctx._adopt(self)

    def req_notify(self, solicited_only=False):
        """Arm the CQ: the next completion sends an event to its
        channel."""
        _check(self, 'cq')
        try:
            self.native.req_notify(bool(solicited_only))
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_req_notify_cq',
                             'Failed to request notification') from err

    req_notify_cq = req_notify

    def resize(self, cqes):
        """Resize the CQ to at least cqes entries."""
        _check(self, 'cq')
        try:
            self.native.resize(cqes)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_resize_cq',
                             'Failed to resize the CQ') from err

    def poll(self, limit=-1):
        """Poll the CQ: a list of at most limit (-1: all available) wc."""
        _check(self, 'cq')
        out = []
        cq = self.native
        while limit != 0:
            want = 16 if limit < 0 else min(limit, 16)
            try:
                n, wcs = cq.poll(want)
            except PyverbsRDMAError as err:
                raise _sys_error(err, 'ibv_poll_cq',
                                 'Failed to poll the CQ') from err
            out.extend(_wc_from(w) for w in wcs)
            if limit > 0:
                limit -= n
            if n < want:
                break
        return out

    def __str__(self):
        return f'cq:{self.native.handle:X}:{self.ctx.node}'

    def __repr__(self):
        return f'CQ({self.ctx!r},0x{self.native.handle:x})'


# ---- QP ----------------------------------------------------------------

_SCALARS = ('qp_state', 'cur_qp_state', 'path_mtu', 'path_mig_state',
            'qkey', 'rq_psn', 'sq_psn', 'dest_qp_num', 'qp_access_flags',
            'pkey_index', 'en_sqd_async_notify', 'max_rd_atomic',
            'max_dest_rd_atomic', 'min_rnr_timer', 'port_num', 'timeout',
            'retry_cnt', 'rnr_retry')
_RDMA_OPS = (_e.IBV_WR_RDMA_WRITE, _e.IBV_WR_RDMA_WRITE_WITH_IMM,
             _e.IBV_WR_RDMA_READ)
_ATOMIC_OPS = (_e.IBV_WR_ATOMIC_FETCH_AND_ADD, _e.IBV_WR_ATOMIC_CMP_AND_SWP)

class QP(_Wrapper):
    """A queue pair; PD.qp() or PD.qp_raw() make one."""
    _what = 'qp'

    def __init__(self, pd, init):
        if not isinstance(pd, PD):
            raise TypeError('pd must be an rdma.ibverbs.PD')
        if not isinstance(init, qp_init_attr):
            raise TypeError('init must be a qp_init_attr')
        if not isinstance(init.send_cq, CQ):
            raise TypeError('send_cq must be a cq')
        if not isinstance(init.recv_cq, CQ):
            raise TypeError('recv_cq must be a cq')
        if not isinstance(init.cap, qp_cap):
            raise TypeError('cap must be a qp_cap')
        if init.srq is not None and not isinstance(init.srq, SRQ):
            raise TypeError('srq must be a SRQ')
        _check(pd, 'pd')
        cap = _pv_cap(init.cap)
        pv_init = _qp.QPInitAttr(
            qp_type=init.qp_type, scq=init.send_cq.native,
            rcq=init.recv_cq.native,
            srq=None if init.srq is None else init.srq.native,
            cap=cap, sq_sig_all=init.sq_sig_all)
        self.pd = pd
        self._scq, self._rcq, self._srq = \
            init.send_cq, init.recv_cq, init.srq
        try:
            self.native = _qp.QP(pd.native, pv_init)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_create_qp',
                             'Failed to create queue pair') from err
        self._qp_type = init.qp_type
        self._cap = _from_pv_cap(pv_init.cap)
        self.qp_num = self.native.qp_num
        pd.ctx._adopt(self)

    ctx = property(lambda self: self.pd.ctx)
    qp_type = property(lambda self: self._qp_type)
    max_send_wr = property(lambda self: self._cap.max_send_wr)
    max_send_sge = property(lambda self: self._cap.max_send_sge)
    max_recv_wr = property(lambda self: self._cap.max_recv_wr)
    max_recv_sge = property(lambda self: self._cap.max_recv_sge)

    @property
    def state(self):
        """The QP state (IBV_QPS_*), as the kernel reports it."""
        return self.query(_e.IBV_QP_STATE)[0].qp_state

    def modify(self, attr, mask):
        """ibv_modify_qp with the fields of qp_attr attr that mask names;
        attr.ah_attr (and alt_ah_attr) may be an ah_attr or an IBPath."""
        if not isinstance(mask, int):
            raise TypeError('mask must be an int')
        if not isinstance(attr, qp_attr):
            raise TypeError('attr must be a qp_attr')
        _check(self, 'qp')
        if debug:
            print(f'modify qp, attr = {attr} mask = 0x{mask:x}')
        pv = _qp.QPAttr()
        for k in _SCALARS:
            setattr(pv, k, getattr(attr, k))
        if mask & _e.IBV_QP_AV:
            pv.ah_attr = _pv_ah_attr(attr.ah_attr)
        if mask & _e.IBV_QP_ALT_PATH:
            pv.alt_ah_attr = _pv_ah_attr(attr.alt_ah_attr)
            pv.alt_pkey_index = attr.alt_pkey_index
            pv.alt_port_num = attr.alt_port_num
            pv.alt_timeout = attr.alt_timeout
        if mask & _e.IBV_QP_CAP:
            pv.cap = _pv_cap(attr.cap)
        try:
            self.native.modify(pv, mask)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_modify_qp',
                             'Failed to modify qp') from err
        if mask & _e.IBV_QP_CAP:
            self._cap = attr.cap

    def query(self, mask):
        """ibv_query_qp: (qp_attr, qp_init_attr)."""
        _check(self, 'qp')
        try:
            a, i = self.native.query(mask)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_query_qp',
                             'Failed to query queue pair') from err
        attr = qp_attr(**{k: getattr(a, k) for k in _SCALARS},
                       sq_draining=a.sq_draining,
                       cap=_from_pv_cap(a.cap),
                       ah_attr=_from_pv_ah_attr(a.ah_attr),
                       alt_ah_attr=_from_pv_ah_attr(a.alt_ah_attr),
                       alt_pkey_index=a.alt_pkey_index,
                       alt_port_num=a.alt_port_num,
                       alt_timeout=a.alt_timeout)
        init = qp_init_attr(send_cq=self._scq, recv_cq=self._rcq,
                            srq=self._srq, cap=_from_pv_cap(i.cap),
                            qp_type=i.qp_type, sq_sig_all=i.sq_sig_all)
        return attr, init

    def post_send(self, arg):
        """Post a send_wr or a list of them (one ibv_post_send)."""
        _check(self, 'qp')
        ud = self._qp_type == _e.IBV_QPT_UD
        out = []
        for w in _wr_list(arg, send_wr):
            sg = _pv_sges(w.sg_list, self._cap.max_send_sge)
            kw = {}
            op = w.opcode
            if op in _RDMA_OPS:
                kw = dict(remote_addr=w.remote_addr, rkey=w.rkey)
            elif op in _ATOMIC_OPS:
                kw = dict(remote_addr=w.remote_addr, rkey=w.rkey,
                          compare_add=w.compare_add, swap=w.swap)
            elif ud:
                if not isinstance(w.ah, AH):
                    raise TypeError('AH must be a AH')
                kw = dict(ah=w.ah.native, remote_qpn=w.remote_qpn,
                          remote_qkey=w.remote_qkey)
            out.append(_wr.SendWR(wr_id=w.wr_id, opcode=op, num_sge=len(sg),
                                  imm_data=w.imm_data, sg=sg,
                                  send_flags=w.send_flags, **kw))
        _post(self.native.post_send, out, 'ibv_post_send')

    def post_recv(self, arg):
        """Post a recv_wr or a list of them (one ibv_post_recv)."""
        _check(self, 'qp')
        _post(self.native.post_recv,
              _pv_recv_wrs(arg, self._cap.max_recv_sge), 'ibv_post_recv')

    def _mcast(self, path, attach):
        _check(self, 'qp')
        gid = path.DGID
        if not isinstance(gid, bytes) or len(gid) != 16:
            raise TypeError('path.DGID must be a 16-byte GID')
        call = self.native.attach_mcast if attach else \
            self.native.detach_mcast
        try:
            call(bytes(gid), path.DLID)
        except PyverbsRDMAError as err:
            raise _sys_error(err, 'ibv_attach_mcast' if attach else
                             'ibv_detach_mcast', f'Failed to '
                             f'{"attach" if attach else "detach"} '
                             f'{path!r}') from err

    def attach_mcast(self, path):
        """Receive the multicast group path.DGID / path.DLID on this
        (UD) QP."""
        self._mcast(path, True)

    def detach_mcast(self, path):
        """Stop receiving the multicast group of path."""
        self._mcast(path, False)

    def modify_to_init(self, path, qp_access_flags=0):
        """RESET -> INIT from the path: port, P_Key index and Q_Key (UD)
        or access flags."""
        if path.end_port is None:
            raise ValueError('the path has no end_port')
        if self._qp_type == _e.IBV_QPT_UD:
            if path.qkey is None:
                raise ValueError('a UD QP needs path.qkey')
            attr = qp_attr(qp_state=_e.IBV_QPS_INIT,
                           pkey_index=path.pkey_index,
                           port_num=path.end_port.port_id, qkey=path.qkey)
        else:
            attr = qp_attr(qp_state=_e.IBV_QPS_INIT,
                           pkey_index=path.pkey_index,
                           port_num=path.end_port.port_id,
                           qp_access_flags=qp_access_flags)
        self.modify(attr, attr.MASK)

    def modify_to_rtr(self, path):
        """INIT -> RTR: for RC/UC the MTU, the remote QP and PSN, the
        address (the path as ah_attr) and, for RC, the responder
        resources."""
        if self._qp_type == _e.IBV_QPT_UD:
            attr = qp_attr(qp_state=_e.IBV_QPS_RTR)
        elif self._qp_type == _e.IBV_QPT_UC:
            attr = qp_attr(qp_state=_e.IBV_QPS_RTR, path_mtu=path.MTU,
                           dest_qp_num=path.dqpn, rq_psn=path.dqpsn,
                           ah_attr=path)
        else:
            attr = qp_attr(qp_state=_e.IBV_QPS_RTR, path_mtu=path.MTU,
                           dest_qp_num=path.dqpn, rq_psn=path.dqpsn,
                           max_dest_rd_atomic=path.drdatomic,
                           min_rnr_timer=path.min_rnr_timer, ah_attr=path)
        self.modify(attr, attr.MASK)

    def modify_to_rts(self, path):
        """RTR -> RTS: the send PSN and, for RC, timeout, retries and
        initiator depth."""
        if self._qp_type in (_e.IBV_QPT_UD, _e.IBV_QPT_UC):
            attr = qp_attr(qp_state=_e.IBV_QPS_RTS, sq_psn=path.sqpsn)
        else:
            attr = qp_attr(qp_state=_e.IBV_QPS_RTS,
                           timeout=IBA.to_timer(path.qp_timeout),
                           retry_cnt=path.retries, rnr_retry=7,
                           sq_psn=path.sqpsn, max_rd_atomic=path.srdatomic)
        self.modify(attr, attr.MASK)

    def establish(self, path, qp_access_flags=0):
        """modify_to_init, modify_to_rtr and modify_to_rts in a row."""
        self.modify_to_init(path, qp_access_flags)
        self.modify_to_rtr(path)
        self.modify_to_rts(path)

    def __str__(self):
        return f'qp:{self.qp_num}:{self.pd}'

    def __repr__(self):
        return (f'QP({self.pd!r},{self.qp_num},'
                f'qp_type={_const_str("IBV_QPT_", self._qp_type)})')


# ---- paths from completions --------------------------------------------

def WCPath(end_port, wc, buf=None, off=0, **kwargs):
    """The rdma.path.IBPath a UD datagram came by, from its wc and the
    receive buffer buf (its first 40 bytes at off hold the GRH).  Call
    .reverse() on it for the path to answer on.  kwargs set further path
    attributes (pkey=, qkey= ...).  On RoCE v2 over IPv4 the 40 bytes hold
    an IPv4 header in their last 20; the GIDs are then the IPv4-mapped
    ones, as the kernel's."""
    path = rdma.path.IBPath(end_port, sqpn=wc.src_qp, dqpn=wc.qp_num,
                            SLID=wc.slid, SL=wc.sl, **kwargs)
    path.DLID = wc.dlid_path_bits | (end_port.lid if end_port else 0)
    if wc.wc_flags & _e.IBV_WC_GRH and buf is not None:
        view = memoryview(buf).cast('B')
        if off < 0 or len(view) - off < 40:
            raise TypeError('buf must be at least 40 bytes long')
        grh = bytes(view[off:off + 40])
        view.release()
        path.has_grh = True
        if grh[20] >> 4 == 4 and grh[0] >> 4 != 6:
            ip = grh[20:]
            path.SGID = IBA.GID(b'\0' * 10 + b'\xff\xff' + ip[12:16], True)
            path.DGID = IBA.GID(b'\0' * 10 + b'\xff\xff' + ip[16:20], True)
            path.hop_limit = ip[8]
            path.traffic_class = ip[1]
            path.flow_label = 0
        else:
            flow = struct.unpack_from('>I', grh)[0]
            path.SGID = IBA.GID(grh[8:24], True)
            path.DGID = IBA.GID(grh[24:40], True)
            path.hop_limit = grh[7]
            path.traffic_class = (flow >> 20) & 0xFF
            path.flow_label = flow & 0xFFFFF
    return path


__all__ = sorted(
    [n for n in globals() if n.startswith('IBV_')] +
    ['debug', 'WRError', 'WCError', 'AsyncError', 'wc_status_str',
     'Context', 'PD', 'AH', 'MR', 'SRQ', 'CompChannel', 'CQ', 'QP',
     'WCPath', 'wc', 'global_route', 'ah_attr', 'qp_cap', 'qp_init_attr',
     'qp_attr', 'sge', 'send_wr', 'recv_wr', 'srq_attr', 'async_event',
     'port_attr', 'device_attr', 'ibv_wc', 'ibv_global_route',
     'ibv_ah_attr', 'ibv_qp_cap', 'ibv_qp_init_attr', 'ibv_qp_attr',
     'ibv_sge', 'ibv_send_wr', 'ibv_recv_wr', 'ibv_srq_attr',
     'ibv_port_attr', 'ibv_device_attr', 'ibv_async_event'])
