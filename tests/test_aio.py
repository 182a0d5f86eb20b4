# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs.aio: awaited completions, device events and CM events.

Host tests check the arguments; device tests (the Soft-RoCE VM) move real
RC traffic with awaited completions, cancel waits, await a port event and
drive an rdma_cm connection rxe0 -> rxe1 from one event loop."""
import asyncio
import errno
import os
import subprocess
import time

import pytest

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs import aio
from pyverbs.cmid import AddrInfo, CMEventChannel, CMID, ConnParam
from pyverbs.cq import CQ, CompChannel
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

from rdma_helpers import HAVE_RDMACM, needs_rdmacm, pair, recv_wr, send_wr
from test_cmid import cm  # noqa: F401 -- the fixture

IP0, IP1 = '192.0.2.1', '192.0.2.2'


def run(coro, timeout=120):
    return asyncio.run(asyncio.wait_for(coro, timeout))


# ------------------------------------------------------------------- host

def test_argument_checks():
    async def bad(coro, exc, match=None):
        with pytest.raises(exc, match=match):
            await coro

    async def main():
        await bad(aio.poll(None), TypeError, 'cq must be a CQ')
        await bad(aio.poll(object()), TypeError, 'cq must be a CQ')
        await bad(aio.get_async_event(None), TypeError,
                  'ctx must be a Context')
        if HAVE_RDMACM:
            await bad(aio.get_cm_event('x'), TypeError,
                      'channel must be a CMEventChannel')
        else:
            with pytest.raises(PyverbsUserError, match='needs librdmacm'):
                aio.get_cm_event('x')
        it = aio.completions(5)
        await bad(it.__anext__(), TypeError, 'cq must be a CQ')
    asyncio.run(main())


def test_nothing_registered_after_argument_errors():
    assert not aio._waiting


# ----------------------------------------------------------------- device

def test_argument_checks_on_a_cq(ctx):
    async def main():
        with CQ(ctx, 4) as cq:
            with pytest.raises(PyverbsUserError, match='no completion'):
                await aio.poll(cq)
        with pytest.raises(PyverbsUserError, match='closed'):
            await aio.poll(cq)
        with CompChannel(ctx) as ch, CQ(ctx, 4, None, ch, 0) as cq:
            with pytest.raises(ValueError):
                await aio.poll(cq, 0)
            with pytest.raises(TypeError):
                await aio.poll(cq, 1.5)
            with pytest.raises(TypeError):
                await aio.poll(cq, True)
            # one waiter per descriptor and loop
            t = asyncio.ensure_future(aio.poll(cq))
            await asyncio.sleep(0.05)
            assert not t.done()
            with pytest.raises(PyverbsUserError, match='already awaited'):
                await aio.poll(cq)
            t.cancel()
            with pytest.raises(asyncio.CancelledError):
                await t
            assert not aio._waiting
            assert cq.num_events == 0
            # what aio relies on: with the fd non-blocking and nothing
            # pending, get_cq_event raises EAGAIN at once and counts none
            cq.req_notify()
            assert not os.get_blocking(ch.fileno())
            with pytest.raises(PyverbsRDMAError) as ex:
                ch.get_cq_event(cq)
            assert ex.value.error_code == errno.EAGAIN
            assert cq.num_events == 0
        # so does get_async_event once aio made the async fd non-blocking
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(aio.get_async_event(ctx), 0.1)
        assert not os.get_blocking(ctx.fileno())
        with pytest.raises(PyverbsRDMAError) as ex:
            ctx.get_async_event()
        assert ex.value.error_code == errno.EAGAIN
        # a cancelled CM wait leaves no reader and the channel open
        if not HAVE_RDMACM:
            return
        with CMEventChannel() as ch:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(aio.get_cm_event(ch), 0.1)
            assert ch.nonblocking and not aio._waiting
    run(main())


def test_awaited_send_recv(ctx):
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, with_channel=True)

    async def main():
        for i in range(20):
            b.qp.post_recv(recv_wr(b, wr_id=i))
            a.qp.post_send(send_wr(a, b'aio %02d' % i, wr_id=100 + i))
            (wc,) = await aio.poll(b.cq)
            assert (wc.status, wc.wr_id, wc.byte_len) == \
                (e.IBV_WC_SUCCESS, i, 6)
            assert b.mr.read(6, 0) == b'aio %02d' % i
            (wc,) = await aio.poll(a.cq)
            assert (wc.status, wc.wr_id) == (e.IBV_WC_SUCCESS, 100 + i)
        assert a.cq.num_events == b.cq.num_events == 0
    with a, b:
        run(main())


def test_many_messages_from_a_slow_peer_cost_little_cpu(ctx):
    """10,000 sends in bursts with pauses: the receiver, its reposting and
    the sender all wait through aio in one thread; the process's CPU time
    stays well under the wall time (a busy loop would use all of it)."""
    depth, burst, total, pause = 512, 250, 10000, 0.25
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, with_channel=True,
                depth=depth, cq_depth=2 * depth, sq_sig_all=0)
    # built once: posting copies them
    rwr = recv_wr(b, wr_id=1)
    burst_wrs = [send_wr(a, wr_id=i, length=64,
                         send_flags=0 if i < burst - 1
                         else e.IBV_SEND_SIGNALED) for i in range(burst)]

    async def receiver(state):
        b.qp.post_recv([recv_wr(b, wr_id=1) for i in range(depth)])
        got = 0
        async for wc in aio.completions(b.cq, 64):
            assert wc.status == e.IBV_WC_SUCCESS, wc
            got += 1
            b.qp.post_recv(rwr)
            state['received'] = got
            state['event'].set()
            if got == total:
                return got

    async def sender(state):
        sent = 0
        while sent < total:
            # never more in flight than the receiver has buffers for
            while sent - state['received'] > depth - burst:
                state['event'].clear()
                await state['event'].wait()
            a.qp.post_send(burst_wrs)
            (wc,) = await aio.poll(a.cq)
            assert wc.status == e.IBV_WC_SUCCESS and wc.wr_id == burst - 1
            sent += burst
            await asyncio.sleep(pause)      # the slow peer
        return sent

    async def main():
        state = {'received': 0, 'event': asyncio.Event()}
        return await asyncio.gather(receiver(state), sender(state))

    with a, b:
        wall0, cpu0 = time.monotonic(), time.process_time()
        assert run(main(), 600) == [total, total]
        wall, cpu = time.monotonic() - wall0, time.process_time() - cpu0
        assert a.cq.num_events == b.cq.num_events == 0
    print(f'{total} messages: wall {wall:.2f} s, cpu {cpu:.2f} s')
    assert wall >= (total // burst - 1) * pause
    assert cpu < 0.5 * wall, (cpu, wall)


def test_cancelled_wait_leaves_the_cq_usable(ctx):
    a, b = pair(ctx, e.IBV_QPT_RC, msg_size=64, with_channel=True)

    async def main():
        # a wait cancelled with nothing to take
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(aio.poll(b.cq), 0.2)
        assert not aio._waiting
        # the CQ is still armed: the completion raises an event that
        # stays on the channel until the next wait takes and acks it
        b.qp.post_recv(recv_wr(b, wr_id=1))
        a.qp.post_send(send_wr(a, b'one'))
        (wc,) = await aio.poll(a.cq)
        await asyncio.sleep(0.2)
        (wc,) = await aio.poll(b.cq)
        assert wc.wr_id == 1 and wc.status == e.IBV_WC_SUCCESS
        assert b.cq.num_events == 0
        # a task cancelled while it waits, then traffic: delivered
        t = asyncio.ensure_future(aio.poll(b.cq))
        await asyncio.sleep(0.1)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        b.qp.post_recv(recv_wr(b, wr_id=2))
        a.qp.post_send(send_wr(a, b'two'))
        await aio.poll(a.cq)
        (wc,) = await aio.poll(b.cq)
        assert wc.wr_id == 2 and b.mr.read(3, 0) == b'two'
        # a wait cancelled while an event is pending on the channel
        b.cq.req_notify()
        b.qp.post_recv(recv_wr(b, wr_id=3))
        a.qp.post_send(send_wr(a, b'three'))
        await aio.poll(a.cq)
        await asyncio.sleep(0.2)
        t = asyncio.ensure_future(aio.poll(b.cq))
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        assert b.cq.num_events == 0
    with a, b:
        run(main())
        # every event taken was acked: nothing left to ack
        with pytest.raises(PyverbsUserError, match='only 0 events'):
            b.cq.ack_events(1)
        assert a.cq.num_events == b.cq.num_events == 0


def test_async_device_event_port_down_up(dev_names):
    """Taking rxe1's netdev down raises IBV_EVENT_PORT_ERR on rxe1, up
    again IBV_EVENT_PORT_ACTIVE (rxe reports the link state)."""
    if 'rxe1' not in dev_names:
        pytest.skip('needs rxe1 on veth1 (the Soft-RoCE VM)')
    def link(state):
        subprocess.run(['ip', 'link', 'set', 'veth1', state], check=True)

    async def main(ctx):
        link('down')
        try:
            # (GID changes may come first)
            while True:
                ev = await asyncio.wait_for(aio.get_async_event(ctx), 20)
                if ev.event_type == e.IBV_EVENT_PORT_ERR:
                    break
        finally:
            link('up')
        while True:
            ev = await asyncio.wait_for(aio.get_async_event(ctx), 20)
            if ev.event_type == e.IBV_EVENT_PORT_ACTIVE:
                break
        assert not aio._waiting

    with Context(name='rxe1') as ctx:
        try:
            asyncio.run(main(ctx))
        finally:
            for _ in range(200):
                if ctx.query_port(1).state == e.IBV_PORT_ACTIVE:
                    break
                time.sleep(0.05)


async def _expect(ch, etype):
    ev = await asyncio.wait_for(aio.get_cm_event(ch), 20)
    assert ev.event_type == etype, ev.event_str()
    return ev


def _run_cm(server, client, objs):
    """Run server(sch, listening, objs) and client(cch, listening, objs)
    in one loop; return their results.  Closes everything in objs and
    both channels afterwards."""
    sch, cch = CMEventChannel(), CMEventChannel()

    async def main():
        listening = asyncio.Event()
        objs['replied'] = asyncio.Event()
        return await asyncio.gather(server(sch, listening, objs),
                                    client(cch, listening, objs))
    try:
        res = run(main())
        assert sch.nonblocking and cch.nonblocking
        assert not aio._waiting
        return res
    finally:
        for k in ('c', 's', 'cid', 'child', 'lid'):
            if k in objs:
                objs[k].close()
        cch.close()
        sch.close()


def _qp_attr():
    return QPInitAttr(qp_type=e.IBV_QPT_RC,
                      cap=QPCap(max_send_wr=4, max_recv_wr=4))


@needs_rdmacm
def test_cm_connect_accept_in_one_loop(cm):
    """Server on rxe1 (192.0.2.2), client on rxe0, as two coroutines of
    one loop: every CM event awaited, then one message each way (through
    the CMID's own CQs: a CQ made on cid.context and given to create_qp
    forms a close cycle CMID -> Context -> CQ -> CMID in this build)."""
    port = '18541'

    async def server(sch, listening, sides):
        lid = CMID(creator=sch, port_space=ce.RDMA_PS_TCP)
        sides['lid'] = lid
        lid.bind_addr(AddrInfo(src=IP1, src_service=port,
                               port_space=ce.RDMA_PS_TCP,
                               flags=ce.RAI_PASSIVE))
        lid.listen()
        listening.set()
        ev = await _expect(sch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)
        child = sides['child'] = CMID(creator=ev, listen_id=lid)
        ev.ack_cm_event()
        assert child.dev_name == 'rxe1'
        child.create_qp(_qp_attr())
        mr = child.reg_msgs(64)
        child.post_recv(mr)
        child.accept(ConnParam())
        (await _expect(sch, ce.RDMA_CM_EVENT_ESTABLISHED)).close()
        wc = child.get_recv_comp()
        assert wc.status == e.IBV_WC_SUCCESS and wc.byte_len == 64
        got = mr.read(64, 0)
        mr.write(b'S' * 64, 64)
        child.post_send(mr, length=64)
        assert child.get_send_comp().status == e.IBV_WC_SUCCESS
        sides['replied'].set()
        (await _expect(sch, ce.RDMA_CM_EVENT_DISCONNECTED)).close()
        child.disconnect()              # answers the client's request
        return got

    async def client(cch, listening, sides):
        await asyncio.wait_for(listening.wait(), 20)
        cid = CMID(creator=cch, port_space=ce.RDMA_PS_TCP)
        sides['cid'] = cid
        cid.resolve_addr(AddrInfo(src=IP0, dst=IP1, dst_service=port,
                                  port_space=ce.RDMA_PS_TCP))
        (await _expect(cch, ce.RDMA_CM_EVENT_ADDR_RESOLVED)).close()
        cid.resolve_route()
        (await _expect(cch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED)).close()
        assert cid.dev_name == 'rxe0'
        cid.create_qp(_qp_attr())
        mr = cid.reg_msgs(64)
        cid.post_recv(mr)
        cid.connect(ConnParam())
        (await _expect(cch, ce.RDMA_CM_EVENT_ESTABLISHED)).close()
        mr.write(b'C' * 64, 64)
        cid.post_send(mr, length=64)
        assert cid.get_send_comp().status == e.IBV_WC_SUCCESS
        # the server replies once the loop runs it
        await asyncio.wait_for(sides['replied'].wait(), 20)
        assert cid.get_recv_comp().status == e.IBV_WC_SUCCESS
        got = mr.read(64, 0)
        cid.disconnect()
        (await _expect(cch, ce.RDMA_CM_EVENT_DISCONNECTED)).close()
        return got

    sides = {}
    assert _run_cm(server, client, sides) == [b'C' * 64, b'S' * 64]


class _ExtQP:
    """An RC QP on a Context of our own (not the CMID's), with a CQ on a
    CompChannel: the CM only carries its number and its attributes."""
    def __init__(self, dev_name):
        self.ctx = Context(name=dev_name)
        self.pd = PD(self.ctx)
        self.ch = CompChannel(self.ctx)
        self.cq = CQ(self.ctx, 16, None, self.ch, 0)
        self.mr = MR(self.pd, 64, e.IBV_ACCESS_LOCAL_WRITE)
        self.qp = QP(self.pd, QPInitAttr(
            qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
            cap=QPCap(max_send_wr=4, max_recv_wr=4)))
        self.sge = SGE(self.mr.buf, 64, self.mr.lkey)

    def move(self, cid, *states):
        for st in states:
            attr, mask = cid.init_qp_attr(st)
            self.qp.modify(attr, mask)

    def post_recv(self):
        self.qp.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[self.sge]))

    def post_send(self, data):
        self.mr.write(data, len(data))
        self.qp.post_send(SendWR(wr_id=2, num_sge=1, sg=[self.sge],
                                 send_flags=e.IBV_SEND_SIGNALED))

    def close(self):
        for o in (self.qp, self.mr, self.cq, self.ch, self.pd, self.ctx):
            o.close()


@needs_rdmacm
def test_rc_across_devices_with_awaited_completions(cm):
    """rxe0 -> rxe1 (the CM resolves the path between the two devices):
    QPs of our own on CQs with channels, connected through awaited CM
    events, one message each way through awaited completions."""
    port = '18542'

    async def one(side, status=e.IBV_WC_SUCCESS):
        (wc,) = await asyncio.wait_for(aio.poll(side.cq, 1), 20)
        assert wc.status == status, wc
        return wc

    async def server(sch, listening, objs):
        lid = objs['lid'] = CMID(creator=sch, port_space=ce.RDMA_PS_TCP)
        lid.bind_addr(AddrInfo(src=IP1, src_service=port,
                               port_space=ce.RDMA_PS_TCP,
                               flags=ce.RAI_PASSIVE))
        lid.listen()
        listening.set()
        ev = await _expect(sch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)
        child = objs['child'] = CMID(creator=ev, listen_id=lid)
        ev.ack_cm_event()
        s = objs['s'] = _ExtQP(child.dev_name)
        assert s.ctx.name == 'rxe1'
        s.move(child, e.IBV_QPS_INIT)
        s.post_recv()
        s.move(child, e.IBV_QPS_RTR, e.IBV_QPS_RTS)
        child.accept(ConnParam(qp_num=s.qp.qp_num))
        (await _expect(sch, ce.RDMA_CM_EVENT_ESTABLISHED)).close()
        wc = await one(s)
        assert wc.opcode == e.IBV_WC_RECV and wc.byte_len == 64
        got = s.mr.read(64, 0)
        s.post_send(b'S' * 64)
        await one(s)
        (await _expect(sch, ce.RDMA_CM_EVENT_DISCONNECTED)).close()
        child.disconnect()
        return got

    async def client(cch, listening, objs):
        await asyncio.wait_for(listening.wait(), 20)
        cid = objs['cid'] = CMID(creator=cch, port_space=ce.RDMA_PS_TCP)
        cid.resolve_addr(AddrInfo(src=IP0, dst=IP1, dst_service=port,
                                  port_space=ce.RDMA_PS_TCP))
        (await _expect(cch, ce.RDMA_CM_EVENT_ADDR_RESOLVED)).close()
        cid.resolve_route()
        (await _expect(cch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED)).close()
        c = objs['c'] = _ExtQP(cid.dev_name)
        assert c.ctx.name == 'rxe0'
        c.move(cid, e.IBV_QPS_INIT)
        c.post_recv()
        cid.connect(ConnParam(qp_num=c.qp.qp_num))
        (await _expect(cch, ce.RDMA_CM_EVENT_CONNECT_RESPONSE)).close()
        c.move(cid, e.IBV_QPS_RTR, e.IBV_QPS_RTS)
        cid.establish()
        c.post_send(b'C' * 64)
        wcs = [await one(c), await one(c)]
        assert sorted(w.opcode for w in wcs) == \
            sorted([e.IBV_WC_SEND, e.IBV_WC_RECV])
        got = c.mr.read(64, 0)
        cid.disconnect()
        (await _expect(cch, ce.RDMA_CM_EVENT_DISCONNECTED)).close()
        return got

    objs = {}
    assert _run_cm(server, client, objs) == [b'C' * 64, b'S' * 64]
    for k in ('c', 's'):
        assert objs[k].cq.num_events == 0
