# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The rdma package on a live device (rxe0/rxe1 in the VM): end ports from
sysfs against verbs, Context/PD/CQ/QP/MR/SRQ/AH/CompChannel and their
errors (rdma.SysError with errno and C function, WRError.bad_index), the
close cascade, local RoCE path resolution, SRQ and multicast attach.  The
document's examples, with traffic, are in test_rdma_examples.py."""
import mmap
import select
import threading

import pytest

import rdma
import rdma.ibverbs as ibv
import rdma.path
import rdma.vtools
from rdma import IBA
from rdma.path import IBPath

pytestmark = pytest.mark.device

QKEY = 0x1234
GRH = 40


@pytest.fixture
def ep(dev_name):
    rdma.get_devices(refresh=True)
    return rdma.get_end_port(dev_name)


@pytest.fixture
def ctx(ep):
    with rdma.get_verbs(ep) as c:
        yield c


def test_end_port(ep, dev_name):
    from pyverbs.device import Context
    assert rdma.get_end_port(f'{dev_name}/1') is ep
    assert rdma.get_end_port(str(ep.default_gid)) is ep
    assert ep.port_id == 1 and ep.parent.name == dev_name
    with Context(name=dev_name) as c:
        attr = c.query_port(1)
        idx = ep.gids.index(ep.default_gid)
        assert str(c.query_gid(1, idx)) == ':'.join(
            bytes(ep.default_gid)[i:i + 2].hex() for i in range(0, 16, 2))
        assert ep.pkeys[0] == c.query_pkey(1, 0)
        assert ep.lid == attr.lid and ep.state == attr.state
    if ep.is_roce:
        # python-rdma's default GID is index 0: on RoCE the link-local one
        assert ep.default_gid == ep.gids[0]
        assert ep.default_gid.prefix() == IBA.GUID('fe80:0:0:0')
        assert ep.ipv4_gid.ipv4() is not None
        # no SA on RoCE: the path to this port's own QP1 (test_roce_sa_path)
        assert ep.sa_path.DGID == ep.default_gid
    with pytest.raises(rdma.RDMAError):
        rdma.get_end_port(f'{dev_name}/9')


def test_context(ctx, ep):
    dev = ctx.query_device()
    assert dev.node_guid == ep.parent.node_guid
    assert dev.phys_port_cnt >= 1 and dev.max_qp > 0
    port = ctx.query_port()
    assert port.state == ibv.IBV_PORT_ACTIVE
    assert ep.subnet_timeout == port.subnet_timeout
    assert str(ctx) == f'context:{ep.parent}'
    with pytest.raises(rdma.SysError) as err:
        ctx.query_port(99)
    assert err.value.func == 'ibv_query_port' and err.value.errno > 0
    p = select.poll()
    ctx.register_poll(p)
    assert not ctx.check_poll((ctx.fileno() + 1000, select.POLLIN))
    assert not ctx.check_poll((ctx.fileno(), 0))


def test_device_context(ep):
    with rdma.get_verbs(ep.parent) as c:
        assert c.end_port is None
        with pytest.raises(ValueError, match='port_id'):
            c.query_port()
        assert c.query_port(1).state == ibv.IBV_PORT_ACTIVE


def test_close_cascade(ep):
    ctx = rdma.get_verbs(ep)
    pd = ctx.pd()
    cc = ctx.comp_channel()
    cq = ctx.cq(8, cc)
    qp = pd.qp(ibv.IBV_QPT_RC, 4, cq, 4, cq)
    mr = pd.mr(bytearray(64), ibv.IBV_ACCESS_LOCAL_WRITE)
    ro = pd.mr(b'read only', ibv.IBV_ACCESS_REMOTE_READ)
    srq = pd.srq()
    assert ctx.from_qp_num(qp.qp_num) is qp
    with ctx:
        pass
    for o in (pd, cc, cq, qp, mr, ro, srq):
        assert o.closed, o
    ctx.close()                                   # twice: nothing
    with pytest.raises(rdma.RDMAError, match='closed'):
        ctx.pd()
    with pytest.raises(rdma.RDMAError, match='closed'):
        qp.post_recv(ibv.recv_wr())
    with pytest.raises(rdma.RDMAError, match='closed'):
        mr.sge()


def test_cq(ctx):
    cc = ctx.comp_channel()
    cq = ctx.cq(16, cc)
    assert cq.poll() == [] and cq.poll(0) == []
    cq.req_notify_cq()
    cq.req_notify(True)
    cq.resize(64)
    assert cc.check_poll((cc.fileno() + 1000, select.POLLIN)) is None
    assert cc.check_poll((cc.fileno(), 0)) is None
    with pytest.raises(rdma.SysError) as err:
        ctx.cq(1 << 30)
    assert err.value.func == 'ibv_create_cq' and err.value.errno > 0
    with pytest.raises(TypeError, match='CompChannel'):
        ctx.cq(4, 'channel')
    with pytest.raises(ValueError, match='not attached'):
        rdma.vtools.CQPoller(cq, ctx.comp_channel())
    poller = rdma.vtools.CQPoller(ctx.cq(4))
    assert list(poller.iterwc(timeout=0.05)) == [] and poller.timedout
    with pytest.raises(ValueError):
        list(poller.iterwc(count=-1))


def test_mr_buffers(ctx):
    pd = ctx.pd()
    data = b'0123456789'
    ro = pd.mr(data, ibv.IBV_ACCESS_REMOTE_READ)
    assert ro.length == 10 and ro.rkey and ro.lkey
    ba = bytearray(100)
    rw = pd.mr(ba, ibv.IBV_ACCESS_REMOTE_WRITE)   # LOCAL_WRITE added
    m = mmap.mmap(-1, 4096)
    mm = pd.mr(m, ibv.IBV_ACCESS_LOCAL_WRITE)
    assert mm.length == 4096
    ro_view = pd.mr(memoryview(data)[2:], 0)
    assert ro_view.length == 8
    s = rw.sge(length=50, off=10)
    assert (s.addr, s.length, s.lkey) == (rw.addr + 10, 50, rw.lkey)
    assert rw.sge().length == 100 and rw.sge(off=100).length == 0
    for length, off in ((101, 0), (1, 100), (-2, 0)):
        with pytest.raises(ValueError):
            rw.sge(length, off)
    with pytest.raises(ValueError, match='negative'):
        rw.sge(off=-1)
    with pytest.raises(TypeError, match='mutable'):
        pd.mr(b'abc', ibv.IBV_ACCESS_LOCAL_WRITE)
    with pytest.raises(TypeError, match='str'):
        pd.mr('Hello', ibv.IBV_ACCESS_REMOTE_READ)
    with pytest.raises(TypeError, match='buffer'):
        pd.mr(42, 0)
    ro.close()
    ro.close()
    assert ro.closed
    mm.close()
    m.close()


def _ud_pair(ctx, ep, depth=8):
    pd = ctx.pd()
    cq = ctx.cq(2 * depth)
    qp = pd.qp(ibv.IBV_QPT_UD, depth, cq, depth, cq)
    return pd, cq, qp


def test_qp_errors(ctx, ep):
    pd, cq, qp = _ud_pair(ctx, ep)
    buf = bytearray(64)
    mr = pd.mr(buf, ibv.IBV_ACCESS_LOCAL_WRITE)
    # RESET: posting a receive fails on the first WR
    with pytest.raises(ibv.WRError) as err:
        qp.post_recv([ibv.recv_wr(wr_id=1, sg_list=mr.sge())])
    assert err.value.bad_index == 0 and err.value.func == 'ibv_post_recv'
    assert err.value.errno > 0
    with pytest.raises(TypeError):
        qp.post_recv([])
    with pytest.raises(TypeError):
        qp.post_send(ibv.recv_wr())
    with pytest.raises(ValueError, match='Too many'):
        qp.post_recv(ibv.recv_wr(sg_list=[mr.sge(8), mr.sge(8, 8)]))
    with pytest.raises(TypeError, match='qp_attr'):
        qp.modify(ibv.ah_attr(), 0)
    with pytest.raises(TypeError, match='mask'):
        qp.modify(ibv.qp_attr(), None)
    with pytest.raises(ValueError, match='qkey'):
        qp.modify_to_init(IBPath(ep))
    with pytest.raises(rdma.SysError) as serr:
        qp.modify(ibv.qp_attr(qp_state=ibv.IBV_QPS_RTS), ibv.IBV_QP_STATE)
    assert serr.value.func == 'ibv_modify_qp'
    assert qp.state == ibv.IBV_QPS_RESET
    qp.establish(IBPath(ep, qkey=QKEY, sqpn=qp.qp_num))
    attr, init = qp.query(ibv.IBV_QP_STATE | ibv.IBV_QP_QKEY |
                          ibv.IBV_QP_PORT | ibv.IBV_QP_CAP)
    assert attr.qp_state == ibv.IBV_QPS_RTS and attr.qkey == QKEY
    assert attr.port_num == 1 and init.qp_type == ibv.IBV_QPT_UD
    assert init.send_cq is cq and init.cap.max_send_wr >= 8
    with pytest.raises(TypeError, match='AH'):
        qp.post_send(ibv.send_wr(opcode=ibv.IBV_WR_SEND, sg_list=mr.sge()))
    with pytest.raises(TypeError, match='send_cq'):
        pd.qp(ibv.IBV_QPT_UD, 1, None, 1, cq)
    with pytest.raises(TypeError, match='srq'):
        pd.qp(ibv.IBV_QPT_UD, 1, cq, 1, cq, srq=object())
    assert 'qp_type=UD' in repr(qp) and pd.from_qp_num(qp.qp_num) is qp


def test_local_resolution(ctx, ep, dev_names):
    peer = rdma.get_end_port(dev_names[-1])
    path = IBPath(ep, DGID=peer.default_gid, qkey=QKEY)
    assert rdma.path.resolve_path(None, path, reversible=True) is path
    assert path.has_grh and path.SGID == ep.default_gid
    assert path.hop_limit == rdma.path.LOCAL_ROCE_HOP_LIMIT
    assert path.MTU == ctx.query_port().active_mtu
    assert path.SGID_index == ep.gids.index(ep.default_gid)
    p2 = rdma.path.resolve_path(None, IBPath(ep, DGID=peer.default_gid),
                                properties={'SL': 3, 'MTU': IBA.MTU_256,
                                            'hopLimit': 5})
    assert (p2.SL, p2.MTU, p2.hop_limit) == (3, IBA.MTU_256, 5)
    with pytest.raises(rdma.RDMAError, match='PKey'):
        rdma.path.resolve_path(None, IBPath(ep, DGID=peer.default_gid),
                               properties={'PKey': 0x1234})
    with pytest.raises(rdma.RDMAError, match='not available'):
        rdma.path.resolve_path(None, IBPath(ep, DGID=peer.default_gid,
                                            SGID='::ffff:10.9.9.9'))
    # the AH of a path is cached per PD and made again after drop_cache
    pd = ctx.pd()
    ah = pd.ah(path)
    assert pd.ah(path) is ah and ctx.pd().ah(path) is not ah
    path.drop_cache()
    assert pd.ah(path) is not ah
    attr = ibv.ah_attr(is_global=1, port_num=1, grh=ibv.global_route(
        dgid=peer.default_gid, sgid_index=path.SGID_index, hop_limit=64))
    assert isinstance(pd.ah(attr), ibv.AH)


def test_roce_sa_path(ctx, ep):
    """RoCE has no subnet administrator: sa_path is the path to this
    port's own GSI QP (QP1) by its GID 0, resolved locally, so that
    python-rdma's pd.ah(end_port.sa_path) makes an AH."""
    sa = ep.sa_path
    assert ep.sa_path is sa
    assert (sa.DGID, sa.SGID, sa.dqpn, sa.sqpn, sa.qkey, sa.has_grh) == \
        (ep.default_gid, ep.default_gid, 1, 1, IBA.IB_DEFAULT_QP1_QKEY, True)
    assert sa.SGID_index == 0
    assert isinstance(ctx.pd().ah(sa), ibv.AH)
    ep.sm_change()
    assert ep.sa_path is not sa


def test_srq_traffic(ctx, ep, dev_names):
    peer = rdma.get_end_port(dev_names[-1])
    pd = ctx.pd()
    srq = pd.srq(max_wr=16, max_sge=1)
    srq.modify(srq_limit=2)
    attr = srq.query()
    assert attr.srq_limit == 2 and attr.max_wr >= 16
    with pytest.raises(rdma.SysError) as err:
        srq.modify(max_wr=1 << 30)
    assert err.value.func == 'ibv_modify_srq'
    cq = ctx.cq(16)
    qp = pd.qp(ibv.IBV_QPT_UD, 4, cq, 4, cq, srq=srq)
    qp.establish(IBPath(ep, qkey=QKEY, sqpn=qp.qp_num))
    pool = rdma.vtools.BufferPool(pd, count=8, size=GRH + 64)
    pool.post_recvs(srq, 2)     # one datagram takes it below the limit
    with rdma.get_verbs(peer) as ctx2:
        pd2 = ctx2.pd()
        cq2 = ctx2.cq(8)
        qp2 = pd2.qp(ibv.IBV_QPT_UD, 4, cq2, 4, cq2)
        path = rdma.path.resolve_path(None, IBPath(
            peer, DGID=ep.default_gid, qkey=QKEY, dqpn=qp.qp_num))
        path.sqpn = qp2.qp_num
        qp2.establish(path)
        msg = pd2.mr(b'via srq', 0)     # registered while the send runs
        qp2.post_send(ibv.send_wr(opcode=ibv.IBV_WR_SEND,
                                  send_flags=ibv.IBV_SEND_SIGNALED,
                                  ah=pd2.ah(path), remote_qpn=path.dqpn,
                                  remote_qkey=path.qkey,
                                  sg_list=msg.sge()))
        wcs = list(rdma.vtools.CQPoller(cq).iterwc(count=1, timeout=10))
        assert len(wcs) == 1 and wcs[0].status == ibv.IBV_WC_SUCCESS
        assert pool.copy_from(wcs[0].wr_id, GRH, 7) == b'via srq'
        sent = list(rdma.vtools.CQPoller(cq2).iterwc(count=1, timeout=10))
        assert [w.status for w in sent] == [ibv.IBV_WC_SUCCESS]
    # the SRQ went below its limit: an async event names the SRQ wrapper
    poll = select.poll()
    ctx.register_poll(poll)
    events = [ev for ev in poll.poll(10000) if ctx.check_poll(ev)]
    assert events, 'no SRQ limit event'
    ev = ctx.get_async_event()
    assert ev == (ibv.IBV_EVENT_SRQ_LIMIT_REACHED, srq)
    ctx.handle_async_event(ev)          # not an error: nothing raised
    pool.finish_wcs(srq, wcs)
    assert len(pool) == 6
    err_wc = ibv.wc(status=ibv.IBV_WC_LOC_LEN_ERR, qp_num=qp.qp_num)
    with pytest.raises(ibv.WCError) as werr:
        pool.finish_wcs(srq, [err_wc])
    assert werr.value.wc is err_wc
    e2 = ibv.WCError(err_wc, obj=srq)
    assert e2.srq is srq and e2.qp is qp
    assert ibv.WCError(err_wc, cq).qp is qp


def test_buffer_pool_errors(ctx):
    pd = ctx.pd()
    with pytest.raises(ValueError):
        rdma.vtools.BufferPool(pd, 0, 64)
    pool = rdma.vtools.BufferPool(pd, count=2, size=16)
    a, b = pool.pop(), pool.pop()
    with pytest.raises(IndexError):
        pool.pop()
    pool.copy_to(b'x' * 40, a)                  # what does not fit is cut
    assert pool.copy_from(a) == b'x' * 16
    pool.copy_to(b'abc', b, offset=4, length=2)
    assert pool.copy_from(b, 4, 3) == b'ab\0'
    with pytest.raises(TypeError):
        pool.copy_to('text', a)
    with pytest.raises(IndexError):
        pool.copy_from(9)       # neither an index nor index | RECV_FLAG
    with pytest.raises(ValueError):
        pool.copy_from(a, offset=17)
    with pytest.raises(ValueError):
        pool.make_sge(a, 17)
    assert pool.make_sge(b, 16).length == 16
    wr = pool.make_send_wr(a, 8)
    assert wr.wr_id == a and wr.opcode == ibv.IBV_WR_SEND and wr.ah is None
    assert (pool.RECV_FLAG, pool.BUF_ID_MASK) == (4, 3)
    assert bytes(pool._mem[a * 16:a * 16 + 16]) == b'x' * 16
    pool.push(a)
    with pytest.raises(IndexError, match='not taken'):
        pool.push(a)
    pool.close()
    with pytest.raises(rdma.RDMAError, match='closed'):
        len(pool)


def test_multicast(ctx, ep):
    pd, cq, qp = _ud_pair(ctx, ep)
    qp.establish(IBPath(ep, qkey=QKEY, sqpn=qp.qp_num))
    group = IBPath(ep, DGID=IBA.GID('ff0e::1234'), DLID=0xC001)
    try:
        qp.attach_mcast(group)
    except rdma.SysError as err:
        pytest.skip(f'{ep} refuses multicast: {err}')
    qp.detach_mcast(group)
    with pytest.raises(rdma.SysError) as err:
        qp.detach_mcast(group)
    assert err.value.func == 'ibv_detach_mcast'
    qp.attach_mcast(group)
    qp.close()          # pyverbs' QP detaches first (the kernel would
                        # refuse to destroy it attached)
    with pytest.raises(TypeError, match='GID'):
        pd.qp(ibv.IBV_QPT_UD, 1, cq, 1, cq).attach_mcast(IBPath(ep))


def _ud_loop(ctx, ep, cc=None, depth=8):
    """A UD QP in RTS that sends to itself; its CQ reports to cc."""
    pd = ctx.pd()
    cq = ctx.cq(2 * depth, cc)
    qp = pd.qp(ibv.IBV_QPT_UD, depth, cq, depth, cq)
    path = rdma.path.resolve_path(None, IBPath(ep, DGID=ep.default_gid,
                                               qkey=QKEY))
    path.sqpn = path.dqpn = qp.qp_num
    qp.establish(path)
    return pd, cq, qp, path


def test_buffer_pool_wr_ids(ctx, ep):
    """Receives carry index | RECV_FLAG; finish_wcs takes one wc; _mem
    holds the buffers at index * size (python-rdma's callers find a
    datagram's GRH there)."""
    pd, cq, qp, path = _ud_loop(ctx, ep)
    pool = rdma.vtools.BufferPool(pd, count=6, size=GRH + 32)
    assert pool.RECV_FLAG == 8 and pool.BUF_ID_MASK == 7
    pool.post_recvs(qp, 2)
    assert len(pool) == 4
    idx = pool.pop()
    pool.copy_to(b'datagram', idx)
    qp.post_send(pool.make_send_wr(idx, 8, path))
    poller = rdma.vtools.CQPoller(cq)
    wcs = list(poller.iterwc(count=2, timeout=10))
    assert len(wcs) == 2 and not poller.timedout
    recv = next(w for w in wcs if w.opcode & ibv.IBV_WC_RECV)
    send = next(w for w in wcs if w is not recv)
    assert recv.wr_id & pool.RECV_FLAG and send.wr_id == idx
    off = (recv.wr_id & pool.BUF_ID_MASK) * pool.size
    assert bytes(pool._mem[off + GRH:off + GRH + 8]) == b'datagram'
    got = ibv.WCPath(ep, recv, pool._mem, off)
    assert got.SGID == path.SGID and got.DGID == path.DGID
    for w in wcs:
        pool.finish_wcs(qp, w)          # one wc at a time
    # the send buffer came back; the receive was posted again
    assert len(pool) == 4
    err = ibv.wc(wr_id=pool.pop() | pool.RECV_FLAG,
                 status=ibv.IBV_WC_LOC_LEN_ERR, qp_num=qp.qp_num)
    with pytest.raises(ibv.WCError) as werr:
        pool.finish_wcs(qp, err)
    assert werr.value.is_rq is True and werr.value.qp is qp
    assert len(pool) == 3               # back, and posted again


def test_cqpoller_wakeat_moved_forward(ctx, ep):
    """rdma_bw moves wakeat forward after each completion: iterwc must
    read it again, or a transfer longer than the first timeout stops."""
    cc = ctx.comp_channel()
    pd, cq, qp, path = _ud_loop(ctx, ep, cc)
    msg = pd.mr(b'tick', 0)
    ah = pd.ah(path)

    def send():
        qp.post_send(ibv.send_wr(opcode=ibv.IBV_WR_SEND, sg_list=msg.sge(),
                                 send_flags=ibv.IBV_SEND_SIGNALED, ah=ah,
                                 remote_qpn=qp.qp_num, remote_qkey=QKEY))

    poller = rdma.vtools.CQPoller(cq)
    timer = threading.Timer(0.6, send)
    timer.start()
    got = []
    try:
        send()
        for wc in poller.iterwc(timeout=0.3):
            got.append(wc)
            poller.wakeat = rdma.tools.clock_monotonic() + 5
            if len(got) == 2:
                break
    finally:
        timer.cancel()
        timer.join()
    assert len(got) == 2 and not poller.timedout
    assert all(w.status == ibv.IBV_WC_SUCCESS for w in got)
    # left alone, the deadline stops the iteration
    t0 = rdma.tools.clock_monotonic()
    assert list(poller.iterwc(timeout=0.3)) == [] and poller.timedout
    assert 0.25 <= rdma.tools.clock_monotonic() - t0 < 5


def test_cqpoller_services_async_events(ctx, ep):
    """While it sleeps on the channel, CQPoller hands async events to
    Context.handle_async_event: an SRQ limit event is no error (nothing
    raised), the iteration just times out."""
    cc = ctx.comp_channel()
    pd = ctx.pd()
    cq = ctx.cq(8, cc)
    srq = pd.srq(max_wr=8)
    qp = pd.qp(ibv.IBV_QPT_UD, 4, cq, 4, cq, srq=srq)
    qp.establish(IBPath(ep, qkey=QKEY, sqpn=qp.qp_num))
    pool = rdma.vtools.BufferPool(pd, count=4, size=GRH + 16)
    pool.post_recvs(srq, 2)
    srq.modify(srq_limit=2)
    peer_path = rdma.path.resolve_path(None, IBPath(
        ep, DGID=ep.default_gid, qkey=QKEY, dqpn=qp.qp_num))
    peer = pd.qp(ibv.IBV_QPT_UD, 4, cq, 4, cq)
    peer_path.sqpn = peer.qp_num
    peer.establish(peer_path)
    msg = pd.mr(b'go', 0)
    peer.post_send(ibv.send_wr(opcode=ibv.IBV_WR_SEND, sg_list=msg.sge(),
                               send_flags=ibv.IBV_SEND_SIGNALED,
                               ah=pd.ah(peer_path), remote_qpn=qp.qp_num,
                               remote_qkey=QKEY))
    poller = rdma.vtools.CQPoller(cq)
    wcs = list(poller.iterwc(count=2, timeout=10))
    assert len(wcs) == 2
    # the limit event came (or comes) while the poller sleeps: handled
    assert list(poller.iterwc(timeout=0.5)) == [] and poller.timedout
    p = select.poll()
    ctx.register_poll(p)
    assert not [ev for ev in p.poll(0) if ctx.check_poll(ev)], \
        'the poller left the async event unserviced'
