# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs.cmid: the RDMA connection manager.

Host tests cover the attribute objects and bad input; the device tests (the
Soft-RoCE VM: rxe0 on 192.0.2.1, rxe1 on 192.0.2.2) run real connections,
both sides as two threads of one process or as two forked processes."""
import errno
import os
import select
import threading

import pytest

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr
from pyverbs.cmid import (AddrInfo, CMEvent, CMEventChannel, CMID, ConnParam,
                          JoinMCAttrEx, UDParam)
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.mr import MR
from pyverbs.qp import ECE, QPCap, QPInitAttr
from pyverbs.pyverbs_error import (PyverbsError, PyverbsRDMAError,
                                   PyverbsUserError)
from rdma_helpers import needs_rdmacm

pytestmark = needs_rdmacm

IP0, IP1 = '192.0.2.1', '192.0.2.2'
MSG = 64


# ------------------------------------------------------------------- host

def test_conn_param_defaults_and_format():
    p = ConnParam()
    assert (p.responder_resources, p.initiator_depth, p.flow_control,
            p.retry_count, p.rnr_retry_count, p.srq, p.qpn) == \
        (1, 1, 0, 5, 5, 0, 0)
    # the reference's output (Debian's python3-pyverbs 44)
    assert str(p) == ('Connection parameters: \nresponder resources: 1   \n'
                      'initiator depth: 1   \nflow control: 0   \n'
                      'retry count: 5   \nrnr retry count: 5   \n'
                      'srq : 0   \nqp number: 0   \n')
    p.qpn = 0xffffff
    assert p.qpn == 0xffffff
    with pytest.raises(OverflowError):
        p.qpn = 1 << 32
    with pytest.raises(AttributeError):
        p.retry_count = 1


def test_conn_param_private_data():
    assert ConnParam().private_data == b''
    p = ConnParam(data_len=4)
    assert p.private_data == b'\0' * 4
    p.set_private_data(b'abcdef')       # at most data_len bytes are taken
    assert p.private_data == b'abcd'
    p.set_private_data('xy')
    assert p.private_data == b'xy\0\0'
    with pytest.raises(TypeError):
        p.set_private_data(5)
    with pytest.raises(OverflowError):
        ConnParam(data_len=256)
    with pytest.raises(OverflowError):
        ConnParam(retry=-1)
    with pytest.raises(TypeError):
        ConnParam(qp_num='1')


def test_bad_arguments():
    with pytest.raises(TypeError):
        CMEvent(None)
    with pytest.raises(TypeError):
        UDParam(None)
    with pytest.raises(TypeError):
        JoinMCAttrEx(None)
    with pytest.raises(TypeError):
        CMID(creator=1)
    with pytest.raises(TypeError):
        AddrInfo(src=1.5)
    with pytest.raises(ValueError):
        AddrInfo(src='1.2\0')
    with pytest.raises(TypeError):
        AHAttr().init_from_ud_param(ConnParam())


def test_empty_cmid_is_closed():
    c = CMID()
    assert c.closed
    assert c.context is None and c.pd is None and c.event_channel is None
    for call in (c.listen, c.disconnect, c.get_request, c.get_send_comp,
                 lambda: c.reg_msgs(10), lambda: c.resolve_route(),
                 lambda: c.set_local_ece(ECE())):
        with pytest.raises(PyverbsUserError, match='closed'):
            call()
    c.close()


def test_set_option_only_ack_timeout():
    with pytest.raises(PyverbsUserError, match='RDMA_OPTION_ID_ACK_TIMEOUT'):
        CMID().set_option(ce.RDMA_OPTION_ID, 99, 1, 1)
    with pytest.raises(PyverbsUserError, match='RDMA_OPTION_ID_ACK_TIMEOUT'):
        CMID().set_option(7, ce.RDMA_OPTION_ID_ACK_TIMEOUT, 1, 1)
    with pytest.raises(OverflowError):
        CMID().set_option(ce.RDMA_OPTION_ID, ce.RDMA_OPTION_ID_ACK_TIMEOUT,
                          256, 1)
    with pytest.raises(PyverbsUserError, match='optlen'):
        CMID().set_option(ce.RDMA_OPTION_ID, ce.RDMA_OPTION_ID_ACK_TIMEOUT,
                          1, 4)


def test_join_multicast_needs_an_address():
    with pytest.raises(PyverbsUserError, match='must have AddrInfo'):
        CMID().join_multicast()


# ----------------------------------------------------------------- device

@pytest.fixture
def cm(dev_names, accept_local):
    """rdma_cm in the VM (conftest's accept_local)."""
    return dev_names


def _run_threads(*fns, timeout=60):
    errors, threads = [], []

    def wrap(fn):
        try:
            fn()
        except BaseException as ex:     # noqa: B902 -- reported below
            errors.append(ex)

    for fn in fns:
        t = threading.Thread(target=wrap, args=(fn,), daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), 'a CM thread hung'
    if errors:
        raise errors[0]


def _expect(channel, etype):
    """The channel's next event, of type etype (None: any)."""
    ev = CMEvent(channel)
    assert etype is None or ev.event_type == etype, ev.event_str()
    return ev


def _qp_attr(qpt=e.IBV_QPT_RC):
    return QPInitAttr(qp_type=qpt, cap=QPCap(max_send_wr=4, max_recv_wr=4))


def _sync_pair(server_ip, client_ip, port, addrinfo=AddrInfo):
    """Sync RC: server (get_request) and client (create_ep) as two threads;
    payloads checked both ways.  addrinfo(**kw) makes each side's
    AddrInfo (default: AddrInfo(**kw))."""
    ready = threading.Event()
    res = {}

    def server():
        ai = addrinfo(src=server_ip, src_service=port,
                      port_space=ce.RDMA_PS_TCP, flags=ce.RAI_PASSIVE)
        lid = CMID(creator=ai, qp_init_attr=_qp_attr())
        lid.listen()
        ready.set()
        child = lid.get_request()
        mr = child.reg_msgs(MR_LEN)
        child.post_recv(mr, MSG)
        child.accept()
        wc = child.get_recv_comp()
        assert wc.status == e.IBV_WC_SUCCESS and wc.byte_len == MSG
        res['server_got'] = mr.read(MSG, 0)
        mr.write(b's' * MSG, MSG)
        child.post_send(mr, length=MSG)
        assert child.get_send_comp().status == e.IBV_WC_SUCCESS
        res['server'] = (lid, child)

    def client():
        assert ready.wait(20)
        ai = addrinfo(src=client_ip, dst=server_ip, dst_service=port,
                      port_space=ce.RDMA_PS_TCP)
        cid = CMID(creator=ai, qp_init_attr=_qp_attr())
        assert isinstance(cid.context, Context) and isinstance(cid.pd, PD)
        assert cid.dev_name in ('rxe0', 'rxe1')
        assert cid.event_channel is None
        mr = cid.reg_msgs(MR_LEN)
        cid.post_recv(mr, MSG)
        cid.connect()
        mr.write(b'c' * MSG, MSG)
        cid.post_send(mr, length=MSG)
        assert cid.get_send_comp().status == e.IBV_WC_SUCCESS
        assert cid.get_recv_comp().status == e.IBV_WC_SUCCESS
        res['client_got'] = mr.read(MSG, 0)
        res['client'] = cid

    _run_threads(server, client)
    assert res['server_got'] == b'c' * MSG
    assert res['client_got'] == b's' * MSG
    return res


MR_LEN = 1024


def test_sync_rc_loopback_threads(cm):
    res = _sync_pair(IP0, IP0, '18515')
    lid, child = res['server']
    # a synchronous disconnect waits for the peer's: both at once
    _run_threads(res['client'].disconnect, child.disconnect)
    lid.close()                         # closes the accepted id first
    assert child.closed
    res['client'].close()


def test_sync_rc_across_devices(cm):
    res = _sync_pair(IP1, IP0, '18516')
    assert res['client'].dev_name == 'rxe0'
    assert res['server'][1].dev_name == 'rxe1'
    ctx = res['client'].context
    ctx.close()                         # the CMID's: closes its PD and MRs
    res['client'].close()
    res['server'][0].close()


class _Async:
    """An asynchronous RC (or UD) connection over an event channel."""
    def __init__(self, server_ip, client_ip, port, ps=ce.RDMA_PS_TCP):
        self.sip, self.cip, self.port, self.ps = server_ip, client_ip, port, ps
        self.qpt = e.IBV_QPT_RC if ps == ce.RDMA_PS_TCP else e.IBV_QPT_UD
        self.ready = threading.Event()

    def listen(self):
        self.sch = CMEventChannel()
        self.lid = CMID(creator=self.sch, port_space=self.ps)
        assert self.lid.event_channel is self.sch
        self.lid.bind_addr(AddrInfo(src=self.sip, src_service=self.port,
                                    port_space=self.ps, flags=ce.RAI_PASSIVE))
        self.lid.listen()
        self.ready.set()
        ev = _expect(self.sch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)
        self.child = CMID(creator=ev, listen_id=self.lid)
        with pytest.raises(PyverbsUserError, match='already taken'):
            CMID(creator=ev, listen_id=self.lid)
        ev.ack_cm_event()
        return self.child

    def connect(self, param=None, expect=ce.RDMA_CM_EVENT_ESTABLISHED):
        assert self.ready.wait(20)
        self.cch = CMEventChannel()
        cid = self.cid = CMID(creator=self.cch, port_space=self.ps)
        cid.resolve_addr(AddrInfo(src=self.cip, dst=self.sip,
                                  dst_service=self.port, port_space=self.ps))
        _expect(self.cch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).close()
        cid.resolve_route()
        _expect(self.cch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED).close()
        cid.create_qp(_qp_attr(self.qpt))
        cid.connect(param)
        if expect is None:
            return CMEvent(self.cch)
        return _expect(self.cch, expect)


def test_async_rc_threads(cm):
    a = _Async(IP1, IP0, '18517')
    got = {}

    def server():
        child = a.listen()
        child.create_qp(_qp_attr())
        mr = child.reg_msgs(MR_LEN)
        child.post_recv(mr)
        p = ConnParam(data_len=8)
        p.set_private_data(b'welcome!')
        child.accept(p)
        _expect(a.sch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
        child.get_recv_comp()
        got['s'] = mr.read(MSG, 0)
        mr.write(b'S' * MSG, MSG)
        child.post_send(mr, length=MSG)
        child.get_send_comp()
        _expect(a.sch, ce.RDMA_CM_EVENT_DISCONNECTED).close()

    def client():
        ev = a.connect()
        assert ev.private_data[:8] == b'welcome!'
        ev.close()
        cid = a.cid
        assert cid.qpn is not None
        attr, _ = cid.query_qp(e.IBV_QP_STATE)
        assert attr.qp_state == e.IBV_QPS_RTS
        mr = cid.reg_msgs(MR_LEN)
        cid.post_recv(mr)
        mr.write(b'C' * MSG, MSG)
        cid.post_send(mr, length=MSG)
        cid.get_send_comp()
        cid.get_recv_comp()
        got['c'] = mr.read(MSG, 0)
        cid.disconnect()

    _run_threads(server, client)
    assert got == {'s': b'C' * MSG, 'c': b'S' * MSG}
    # close order: the client's channel (closes its id), the server's
    # Context wrapper, then the listener, then its channel
    a.cch.close()
    assert a.cid.closed
    a.child.context.close()
    a.lid.close()
    assert a.child.closed
    a.sch.close()


def test_reject_private_data(cm):
    a = _Async(IP0, IP0, '18518')
    got = {}

    def server():
        a.listen().reject(b'go away')

    def client():
        ev = a.connect(expect=ce.RDMA_CM_EVENT_REJECTED)
        got['data'] = ev.private_data
        ev.ack_cm_event()
        assert ev.event_str() == ''
        with pytest.raises(PyverbsUserError):
            ev.ack_cm_event()

    _run_threads(server, client)
    assert got['data'][:7] == b'go away'
    a.sch.close()       # closes the listener and the rejected child
    a.cch.close()


def test_ud_over_cm(cm):
    a = _Async(IP0, IP0, '18519', ps=ce.RDMA_PS_UDP)
    got = {}

    def server():
        child = a.listen()
        child.create_qp(_qp_attr(e.IBV_QPT_UD))
        mr = child.reg_msgs(MR_LEN)
        child.post_recv(mr, MSG + 40)
        child.accept()
        wc = child.get_recv_comp()
        got['data'] = mr.read(MSG, 40)
        got['src_qp'] = wc.src_qp

    def client():
        ev = a.connect()
        ud = UDParam(ev)
        ev.close()
        assert ud.qkey != 0
        attr = AHAttr()
        attr.init_from_ud_param(ud)
        assert attr.is_global == ud.ah_attr.is_global
        ah = AH(a.cid.pd, attr=ud.ah_attr)
        mr = a.cid.reg_msgs(MR_LEN)
        mr.write(b'u' * MSG, MSG)
        a.cid.post_ud_send(mr, ah, rqpn=ud.qp_num, length=MSG)
        a.cid.get_send_comp()
        got['qpn'] = a.cid.qpn

    _run_threads(server, client)
    assert got['data'] == b'u' * MSG and got['src_qp'] == got['qpn']
    a.cch.close()
    a.sch.close()


def test_multicast_join_send_recv_leave(cm):
    mc = '239.1.1.3'
    ch = CMEventChannel()
    ids, mrs, uds = [], [], []
    for ip in (IP0, IP0):
        cid = CMID(creator=ch, port_space=ce.RDMA_PS_UDP)
        cid.bind_addr(AddrInfo(src=ip, port_space=ce.RDMA_PS_UDP,
                               flags=ce.RAI_PASSIVE))
        cid.resolve_addr(AddrInfo(src=ip, dst=mc))
        _expect(ch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).close()
        cid.create_qp(_qp_attr(e.IBV_QPT_UD))
        if not ids:
            cid.join_multicast(addr=AddrInfo(src=mc))
        else:
            cid.join_multicast(mc_attr=JoinMCAttrEx(
                AddrInfo(src=mc), comp_mask=ce.RDMA_CM_JOIN_MC_ATTR_ADDRESS |
                ce.RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
                join_flags=ce.RDMA_MC_JOIN_FLAG_FULLMEMBER))
        ev = _expect(ch, ce.RDMA_CM_EVENT_MULTICAST_JOIN)
        uds.append(UDParam(ev))
        ev.close()
        ids.append(cid)
        mrs.append(cid.reg_msgs(MR_LEN))
    recv, send = ids
    recv.post_recv(mrs[0], MSG + 40)
    mrs[1].write(b'm' * MSG, MSG)
    ah = AH(send.pd, attr=uds[1].ah_attr)
    send.post_ud_send(mrs[1], ah, rqpn=0xffffff, length=MSG)
    send.get_send_comp()
    recv.get_recv_comp()
    assert mrs[0].read(MSG, 40) == b'm' * MSG
    for cid in ids:
        cid.leave_multicast(AddrInfo(src=mc))
    with pytest.raises(PyverbsRDMAError):
        ids[0].leave_multicast(AddrInfo(src=mc))       # not a member now
    ch.close()
    assert all(cid.closed for cid in ids)


def test_ece(cm):
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    ece = ECE(vendor_id=0x15b3, options=1, comp_mask=0)
    try:
        cid.set_local_ece(ece)
    except PyverbsRDMAError as ex:
        # only for ids of ports that do ECE; rxe does not
        assert ex.error_code in (errno.EINVAL, errno.EOPNOTSUPP)
    try:
        r = cid.get_remote_ece()
        assert isinstance(r, ECE)
    except PyverbsRDMAError as ex:
        assert ex.error_code in (errno.EINVAL, errno.EOPNOTSUPP)
    with pytest.raises(TypeError):
        cid.set_local_ece(None)
    ch.close()


def test_unreachable_address_error(cm):
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    cid.resolve_addr(AddrInfo(src=IP0, dst='192.0.2.99', dst_service='1'),
                     timeout_ms=500)
    ch.set_nonblocking(False)
    r, _, _ = select.select([ch], [], [], 10)
    assert r, 'no event within 10 s for a 500 ms resolution'
    ev = CMEvent(ch)
    assert ev.event_type == ce.RDMA_CM_EVENT_ADDR_ERROR
    assert ev.status < 0
    ch.close()
    assert ev.closed and cid.closed


def test_accept_without_qp_or_param(cm):
    """librdmacm dereferences NULL where an id is not ready (the live fuzz
    found these): rdma_accept() takes the QP number from the parameters
    when the id has no QP, and rdma_accept()/rdma_connect() read the limits
    of the id's device, unknown until its address is resolved and the event
    read.  Such calls raise EINVAL: on a fresh id, on a bound one, on one
    whose ADDR_RESOLVED event is still unread, and once it is read (then
    the calls reach librdmacm, which refuses the state)."""
    ch = CMEventChannel()
    fresh = CMID(creator=ch)
    bound = CMID(creator=ch)
    bound.bind_addr(AddrInfo(src=IP0, flags=ce.RAI_PASSIVE))
    resolved = CMID(creator=ch)
    resolved.resolve_addr(AddrInfo(src=IP0, dst=IP0, dst_service='18601'))
    for read_event in (False, True):
        if read_event:
            _expect(ch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).close()
        for cid in (fresh, bound, resolved):
            for call in (cid.accept, cid.connect):
                for args in ((), (ConnParam(),)):
                    with pytest.raises(PyverbsRDMAError) as ex:
                        call(*args)
                    assert ex.value.error_code == errno.EINVAL, ex.value
    ch.close()
    assert fresh.closed and bound.closed and resolved.closed


def test_nonblocking_channel(cm):
    ch = CMEventChannel()
    assert not ch.nonblocking and ch.fileno() == ch.fd
    ch.nonblocking = True
    with pytest.raises(PyverbsRDMAError) as ex:
        CMEvent(ch)
    assert ex.value.error_code == errno.EAGAIN
    ch.close()
    with pytest.raises(PyverbsUserError):
        CMEvent(ch)
    with pytest.raises(PyverbsUserError):
        ch.fileno()


def test_busy_channel_refuses_close(cm):
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    t = threading.Thread(target=lambda: _expect(
        ch, ce.RDMA_CM_EVENT_ADDR_ERROR).close())
    t.start()
    import time
    time.sleep(0.2)
    with pytest.raises(PyverbsUserError, match='blocking call'):
        ch.close()
    cid.resolve_addr(AddrInfo(src=IP0, dst='192.0.2.99', dst_service='1'),
                     timeout_ms=300)
    t.join(10)
    assert not t.is_alive()
    ch.close()


def test_unacked_event_does_not_block_close(cm):
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    cid.resolve_addr(AddrInfo(src=IP0, dst=IP0, dst_service='1'))
    ev = CMEvent(ch)                    # not acked
    assert ev.event_type == ce.RDMA_CM_EVENT_ADDR_RESOLVED
    cid.close()                         # acks it first: no hang
    assert ev.closed
    ch.close()


def test_mr_of_cmid_and_pd_wrappers(cm):
    ai = AddrInfo(src=IP0, dst=IP0, dst_service='18520',
                  port_space=ce.RDMA_PS_TCP)
    # nobody listens: the synchronous create_ep still resolves
    cid = CMID(creator=ai, qp_init_attr=_qp_attr())
    mr = MR(cid, 4096, e.IBV_ACCESS_LOCAL_WRITE)
    rmr = cid.reg_read(100)
    assert rmr.rkey and mr.pd is cid.pd
    assert PD(cid).pd == cid.pd.pd
    with pytest.raises(PyverbsUserError):
        cid.post_recv(mr, 8192)          # beyond the MR
    with pytest.raises(TypeError):
        cid.post_send(None)
    cid.close()
    assert mr.closed and rmr.closed and cid.pd.closed
    with pytest.raises(PyverbsUserError, match='closed'):
        cid.connect()


def test_forked_processes(cm):
    """Server in a forked child, client in the parent; the child leaves
    through os._exit without closing anything."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            ai = AddrInfo(src=IP0, src_service='18521',
                          flags=ce.RAI_PASSIVE)
            lid = CMID(creator=ai, qp_init_attr=_qp_attr())
            lid.listen()
            os.write(w, b'r')
            child = lid.get_request()
            mr = child.reg_msgs(MR_LEN)
            child.post_recv(mr)
            child.accept()
            child.get_recv_comp()
            code = 0 if mr.read(MSG, 0) == b'f' * MSG else 2
        finally:
            os._exit(code)
    os.close(w)
    assert os.read(r, 1) == b'r'
    os.close(r)
    cid = CMID(creator=AddrInfo(src=IP0, dst=IP0, dst_service='18521'),
               qp_init_attr=_qp_attr())
    mr = cid.reg_msgs(MR_LEN)
    cid.connect()
    mr.write(b'f' * MSG, MSG)
    cid.post_send(mr, length=MSG)
    cid.get_send_comp()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    cid.close()


# -------------------------------------------- lifetimes and failing peers

def _loop_connection(port, ip=IP0):
    """An asynchronous RC connection driven from this one thread: returns
    (server channel, listener, accepted id, client channel, client id)."""
    cch, cid, sch, lid, ev = _request(port, ip)
    child = CMID(creator=ev, listen_id=lid)
    ev.close()
    child.create_qp(_qp_attr())
    child.accept()
    _expect(cch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
    _expect(sch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
    return sch, lid, child, cch, cid


def _request(port, ip=IP0):
    """A listener on ip and a client connecting to it (the client's channel,
    id; the server's channel, listener, CONNECT_REQUEST event)."""
    sch, cch = CMEventChannel(), CMEventChannel()
    lid = CMID(creator=sch)
    lid.bind_addr(AddrInfo(src=ip, src_service=port, flags=ce.RAI_PASSIVE))
    lid.listen()
    cid = CMID(creator=cch)
    cid.resolve_addr(AddrInfo(src=ip, dst=ip, dst_service=port))
    _expect(cch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).close()
    cid.resolve_route()
    _expect(cch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED).close()
    cid.create_qp(_qp_attr())
    cid.connect()
    return cch, cid, sch, lid, _expect(sch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)


def _server_parts(sch, lid, child):
    return {'channel': sch, 'listener': lid, 'accepted': child,
            'context': child.context, 'pd': child.pd,
            'mr': child.reg_msgs(MR_LEN)}


ORDERS = [('listener', 'accepted', 'channel', 'context'),
          ('accepted', 'listener', 'context', 'channel'),
          ('channel', 'listener', 'accepted', 'context'),
          ('context', 'accepted', 'listener', 'channel'),
          ('context', 'channel', 'accepted', 'listener'),
          ('mr', 'pd', 'accepted', 'channel', 'listener', 'context'),
          ('pd', 'context', 'mr', 'listener', 'channel', 'accepted')]


@pytest.mark.parametrize('order', ORDERS, ids='-'.join)
def test_close_in_any_order(cm, order):
    """The server side closed part by part in the given order while the
    client is still connected: each close closes what the object owns, a
    later close of an owned part is a no-op, and the client sees the
    connection go."""
    sch, lid, child, cch, cid = _loop_connection('18530')
    parts = _server_parts(sch, lid, child)
    for name in order:
        parts[name].close()
        assert parts[name].closed
    assert all(p.closed for p in parts.values())
    # the accepted id is gone from the kernel: the client is disconnected
    _expect(cch, ce.RDMA_CM_EVENT_DISCONNECTED).close()
    cch.close()
    assert cid.closed
    # nothing of the old listener is left: the port can be bound again
    sch, lid, child, cch, cid = _loop_connection('18530')
    for o in (cch, sch):
        o.close()


def test_client_closed_first(cm):
    sch, lid, child, cch, cid = _loop_connection('18531')
    ctx = cid.context
    cid.close()                     # the client's id and its QP go first
    assert cid.closed
    with pytest.raises(PyverbsUserError, match='closed'):
        cid.qpn
    _expect(sch, ce.RDMA_CM_EVENT_DISCONNECTED).close()
    lid.close()
    assert child.closed
    for o in (cch, sch, ctx):
        o.close()



@pytest.mark.parametrize('first', ['cq', 'context', 'cmid', 'gc'])
def test_qp_on_cqs_of_the_cmids_own_context(cm, first):
    """A QP made by create_qp() on CQs of the CMID's own Context (as
    rdma-core's CM tests build theirs): closing the CQ, or the Context that
    owns it, destroys the QP only (the CMID stays open, without a QP);
    closing the CMID closes everything; nothing is left behind."""
    import gc
    from pyverbs.cq import CQ
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    cid.resolve_addr(AddrInfo(src='192.0.2.1', dst='192.0.2.2',
                              port_space=ce.RDMA_PS_TCP))
    _expect(ch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).close()
    ctx = cid.context
    cq = CQ(ctx, 8)
    cid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                             cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    assert cid.qpn
    if first == 'cq':
        cq.close()
        assert not cid.closed
        assert cid.qpn is None      # the QP went with its CQ
        cq = CQ(ctx, 8)             # and the CMID can have another
        cid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                                 cap=QPCap(max_send_wr=4, max_recv_wr=4)))
        assert cid.qpn
        cid.close()
    elif first == 'context':
        ctx.close()
        assert cq.closed and not cid.closed and cid.qpn is None
        cid.close()
    elif first == 'cmid':
        cid.close()
    else:
        del ctx, cq, cid
        gc.collect()
        ch.close()
        return
    assert cq.closed and ctx.closed and cid.closed
    ch.close()


def test_collector_destroys_cmid_qp_inside_query(cm):
    """CMID.query_qp() makes its QPAttr and QPInitAttr before it takes the
    id's QP: a finalizer that the collector runs inside the call and that
    closes the QP's CQ (which destroys a QP on the user's CQs) leaves the
    call a PyverbsError ("no QP"), never a use of the destroyed QP."""
    import gc
    from pyverbs.cq import CQ
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    cid.resolve_addr(AddrInfo(src='192.0.2.1', dst='192.0.2.2',
                              port_space=ce.RDMA_PS_TCP))
    _expect(ch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).close()
    cq = CQ(cid.context, 8)
    cid.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                             cap=QPCap(max_send_wr=4, max_recv_wr=4)))

    class Cycle:
        def __del__(self):
            cq.close()

    old = gc.get_threshold()
    outcomes = set()
    try:
        for _ in range(30):
            if cq.closed:
                break
            gc.disable()
            c = Cycle()
            c.me = c
            del c
            gc.set_threshold(1, 1, 1)
            gc.enable()
            try:
                cid.query_qp(e.IBV_QP_STATE)
                outcomes.add('ok')
            except PyverbsError:
                outcomes.add('error')
    finally:
        gc.set_threshold(*old)
        gc.enable()
    gc.collect()
    assert cq.closed and cid.qpn is None
    assert outcomes <= {'ok', 'error'}
    with pytest.raises(PyverbsUserError, match='no QP'):
        cid.query_qp(e.IBV_QP_STATE)
    cid.close()
    ch.close()


def test_mr_of_cmid_handle_argument_closes_its_pd(cm):
    """MR(cmid, ..., handle=h) registers on the id's PD, which no argument
    names: it is held in use all the same, so that h's __index__ closing it
    is refused instead of leaving the import a closed PD."""
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    cid.resolve_addr(AddrInfo(src='192.0.2.1', dst='192.0.2.2',
                              port_space=ce.RDMA_PS_TCP))
    _expect(ch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).close()
    pd = cid.pd
    refused = []

    class Handle:
        def __index__(self):
            try:
                pd.close()
            except PyverbsUserError as ex:
                refused.append(str(ex))
            return 0x7fffffff       # no such MR: the import fails

    with pytest.raises(PyverbsError):
        MR(cid, 0, 0, handle=Handle())
    assert refused and not pd.closed
    cid.close()
    ch.close()


_EXIT_OPEN = '''
import sys
sys.path.insert(0, sys.argv[1])
import test_cmid as t
conn = t._loop_connection(sys.argv[2])
parts = t._server_parts(*conn[:3])
conn[4].disconnect()
ev = t.CMEvent(conn[0])             # the server's DISCONNECTED, never acked
print('open', flush=True)
'''


def test_interpreter_exit_with_everything_open(cm):
    """Channels, listener, accepted and client ids, an unacked event and an
    MR left open at interpreter exit: a clean exit, nothing printed."""
    import subprocess
    import sys
    r = subprocess.run([sys.executable, '-c', _EXIT_OPEN,
                        os.path.dirname(os.path.abspath(__file__)), '18532'],
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, 'open\n', '')


def test_peer_vanishes_mid_connection(cm):
    """The server is a forked process that leaves through os._exit while
    connected: the client gets DISCONNECTED, and once it disconnects in
    turn its posted receive flushes; nothing hangs."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(r)
            ch = CMEventChannel()
            lid = CMID(creator=ch)
            lid.bind_addr(AddrInfo(src=IP1, src_service='18533',
                                   flags=ce.RAI_PASSIVE))
            lid.listen()
            os.write(w, b'r')
            ev = _expect(ch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)
            child = CMID(creator=ev, listen_id=lid)
            ev.close()
            child.create_qp(_qp_attr())
            child.accept()
            _expect(ch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
            code = 0
        finally:
            os._exit(code)              # everything still open
    os.close(w)
    assert os.read(r, 1) == b'r'
    os.close(r)
    a = _Async(IP1, IP0, '18533')
    a.ready.set()
    a.connect().close()
    mr = a.cid.reg_msgs(MR_LEN)
    a.cid.post_recv(mr)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    a.cch.set_nonblocking(False)
    ready, _, _ = select.select([a.cch], [], [], 30)
    assert ready, 'no CM event within 30 s of the peer exiting'
    ev = CMEvent(a.cch)
    assert ev.event_type in (ce.RDMA_CM_EVENT_DISCONNECTED,
                             ce.RDMA_CM_EVENT_TIMEWAIT_EXIT), ev.event_str()
    ev.close()
    a.cid.disconnect()                  # what a program does on the event:
    wc = a.cid.get_recv_comp()          # its QP in ERR, the receive flushed
    assert wc.status == e.IBV_WC_WR_FLUSH_ERR
    a.cch.close()


def test_server_that_never_accepts(cm):
    """The listener sees the request and goes away without answering: the
    client gets REJECTED (or UNREACHABLE), not a hang."""
    a = _Async(IP1, IP0, '18534')
    a.sch = CMEventChannel()
    a.lid = CMID(creator=a.sch)
    a.lid.bind_addr(AddrInfo(src=IP1, src_service='18534',
                             flags=ce.RAI_PASSIVE))
    a.lid.listen()
    a.ready.set()
    got = {}

    def client():
        ev = a.connect(expect=None)
        got['event'] = ev.event_type
        ev.close()

    t = threading.Thread(target=client, daemon=True)
    t.start()
    _expect(a.sch, ce.RDMA_CM_EVENT_CONNECT_REQUEST).close()   # unanswered
    a.sch.close()
    t.join(60)
    assert not t.is_alive(), 'the client hung'
    assert got['event'] in (ce.RDMA_CM_EVENT_REJECTED,
                            ce.RDMA_CM_EVENT_UNREACHABLE)
    a.cch.close()


def test_request_taken_after_its_ack(cm):
    """The id of a CONNECT_REQUEST may be taken once its event is acked."""
    cch, cid, sch, lid, ev = _request('18536')
    ev.close()
    child = CMID(creator=ev, listen_id=lid)
    with pytest.raises(PyverbsUserError, match='already taken'):
        CMID(creator=ev, listen_id=lid)
    child.create_qp(_qp_attr())
    child.accept()
    _expect(cch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
    _expect(sch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
    for o in (cid, cch, child, lid, sch):
        o.close()


def test_request_never_taken_is_destroyed(cm):
    """A request acked without a CMID and dropped: its id is destroyed at
    once (the client is rejected while the server's channel stays open),
    and librdmacm gives back what it holds for it (the kernel's PD count
    is back where it was).  Taking it after its channel closed is refused."""
    before = _pd_counts()
    cch, cid, sch, lid, ev = _request('18537')
    ev.close()
    del ev
    got = _expect(cch, None)
    assert got.event_type in (ce.RDMA_CM_EVENT_REJECTED,
                              ce.RDMA_CM_EVENT_UNREACHABLE), got.event_str()
    got.close()
    cch2, cid2, sch2, lid2, ev2 = _request('18538')
    ev2.close()
    sch2.close()
    with pytest.raises(PyverbsUserError, match='gone|closed'):
        CMID(creator=ev2, listen_id=lid2)
    for o in (cid, cch, lid, sch, cid2, cch2):
        o.close()
    assert _pd_counts() == before


def _pd_counts():
    import re
    import rdma_helpers
    out = rdma_helpers.device_resources()
    if out is None:
        pytest.skip('no `rdma resource show` to count PDs with')
    return re.findall(r'\bpd (\d+)', out)


def test_sync_connect_without_listener_raises(cm):
    cid = CMID(creator=AddrInfo(src=IP0, dst=IP1, dst_service='18535'),
               qp_init_attr=_qp_attr())
    with pytest.raises(PyverbsRDMAError) as ex:
        cid.connect()
    assert 'connect' in str(ex.value).lower()
    cid.close()
