# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs.cmid's address lookups as upstream 65 has them: AddrInfo()
built empty and filled by get_addrinfo() (the way rdma-core 65's CM tests
build theirs), the refusal of an empty one wherever upstream would read
it (upstream segfaults), and CMID.resolve_addrinfo()/query_addrinfo()
(rdma_resolve_addrinfo, librdmacm 60: a build against an older one
raises; the kernel must be able to queue the result event).

Host tests need no RDMA; the device tests run in the Soft-RoCE VM (rxe0
on 192.0.2.1, rxe1 on 192.0.2.2)."""
import errno
import os
import socket
import threading

import pytest

import pyverbs.cm_enums as ce
import pyverbs.enums as e
from pyverbs.cmid import (AddrInfo, CMEvent, CMEventChannel, CMID,
                          JoinMCAttrEx)
from pyverbs.pyverbs_error import (PyverbsError, PyverbsRDMAError,
                                   PyverbsUserError)
from rdma_helpers import needs_rdmacm
from test_cmid import (MR_LEN, MSG, _expect, _qp_attr, _run_threads,
                       _sync_pair)

pytestmark = needs_rdmacm

IP0, IP1 = '192.0.2.1', '192.0.2.2'
# librdmacm 60's names, by value (a build against 44 may lack the names)
ADDRINFO_RESOLVED = getattr(ce, 'RDMA_CM_EVENT_ADDRINFO_RESOLVED', 16)
RAI_SA = getattr(ce, 'RAI_SA', 0x10)
RAI_DNS = getattr(ce, 'RAI_DNS', 0x20)
AF_IB = 27


def _built_with_resolve_addrinfo():
    """Whether this build has rdma_resolve_addrinfo (librdmacm >= 60):
    on a closed CMID it says 'closed', else it names the version."""
    with pytest.raises(PyverbsError) as ex:
        CMID().resolve_addrinfo()
    return 'needs rdma-core 60' not in str(ex.value)


# ------------------------------------------------------------------- host

def test_empty_addrinfo():
    ai = AddrInfo()
    assert not ai.closed and ai.empty
    assert (ai.src_addr, ai.dst_addr, ai.port_space, ai.flags) == \
        (None, None, 0, 0)
    # upstream 65 fills it only when an address or a service is given
    # (tested for truth): hints alone, '' and 0 leave it empty
    assert AddrInfo(port_space=ce.RDMA_PS_UDP, flags=ce.RAI_PASSIVE).empty
    assert AddrInfo(src='', dst=b'', src_service=0, dst_service=None).empty
    ai.close()
    ai.close()
    with pytest.raises(PyverbsUserError, match='closed'):
        ai.get_addrinfo(src=IP0)
    with pytest.raises(PyverbsUserError, match='closed'):
        ai.empty
    with pytest.raises(PyverbsUserError, match='already initialised'):
        ai.__init__()


def test_get_addrinfo_bad_arguments():
    ai = AddrInfo()
    for kw, exc in ((dict(src=1.5), TypeError), (dict(dst=[IP0]), TypeError),
                    (dict(src_service=True), TypeError),
                    (dict(dst='1.2\0'), ValueError),
                    (dict(dst_service=b'1\0'), ValueError),
                    (dict(port_space=1 << 31), OverflowError),
                    (dict(flags=-(1 << 31) - 1), OverflowError),
                    (dict(flags='1'), TypeError), (dict(node=IP0), TypeError)):
        with pytest.raises(exc):
            ai.get_addrinfo(**kw)
        with pytest.raises(exc):
            AddrInfo(**kw)
        assert ai.empty                 # nothing looked up
    with pytest.raises(TypeError):
        ai.get_addrinfo(IP0, IP0, '1', '2', 0, 0, 7)


def test_a_service_whose_bool_raises_or_closes():
    """An int subclass's __bool__ runs Python code: its error comes out,
    and closing the AddrInfo from there is refused (it is in use);
    nothing is looked up."""
    ai = AddrInfo()

    class Raises(int):
        def __bool__(self):
            raise ZeroDivisionError

    class Closes(int):
        def __bool__(self):
            ai.close()
            return True
    with pytest.raises(ZeroDivisionError):
        ai.get_addrinfo(src_service=Raises(7471))
    with pytest.raises(PyverbsUserError, match='inside a call'):
        ai.get_addrinfo(src_service=Closes(7471))
    assert not ai.closed and ai.empty
    with pytest.raises(ZeroDivisionError):
        AddrInfo(dst_service=Raises(1))


def test_empty_addrinfo_refused():
    """Upstream 65 dereferences an empty AddrInfo in all of these."""
    empty = AddrInfo()
    for call in (lambda: CMID(creator=empty),
                 lambda: CMID().bind_addr(empty),
                 lambda: CMID().resolve_addr(empty),
                 lambda: CMID().leave_multicast(empty),
                 lambda: JoinMCAttrEx(empty),
                 lambda: JoinMCAttrEx(addr=empty, comp_mask=1)):
        with pytest.raises(PyverbsUserError, match='is empty: fill it'):
            call()
    assert empty.empty and not empty.closed


@pytest.mark.skipif(os.path.exists('/dev/infiniband/rdma_cm'),
                    reason='this machine has rdma_cm: the lookups work')
def test_lookups_without_rdma_cm():
    """Without rdma_cm librdmacm refuses every lookup: the error names
    the call, and an empty AddrInfo stays empty (44's forms raise as
    they did)."""
    ai = AddrInfo()
    with pytest.raises(PyverbsRDMAError) as ex:
        ai.get_addrinfo(src=IP0, flags=ce.RAI_PASSIVE)
    assert ex.value.error_code == errno.ENODEV
    assert ex.value.func == 'rdma_getaddrinfo'
    assert 'Failed to get Address Info' in str(ex.value)
    assert ai.empty
    with pytest.raises(PyverbsRDMAError) as ex:
        AddrInfo(src=IP0, dst=IP1, dst_service='7471')
    assert ex.value.error_code == errno.ENODEV


def test_resolve_and_query_addrinfo_arguments():
    cid = CMID()                        # an empty shell: closed
    for kw, exc in ((dict(node=1.5), TypeError),
                    (dict(service='7\0'), ValueError),
                    (dict(port_space=1 << 40), OverflowError),
                    (dict(src=IP0), TypeError)):
        with pytest.raises(exc):
            cid.resolve_addrinfo(**kw)
    if _built_with_resolve_addrinfo():
        for call in (cid.resolve_addrinfo, cid.query_addrinfo):
            with pytest.raises(PyverbsUserError, match='closed'):
                call()
    else:
        for call, fn in ((cid.resolve_addrinfo, 'rdma_resolve_addrinfo'),
                         (cid.query_addrinfo, 'rdma_query_addrinfo')):
            with pytest.raises(PyverbsRDMAError,
                               match=f'{fn} needs rdma-core 60') as ex:
                call()
            assert ex.value.error_code == errno.EOPNOTSUPP


# ----------------------------------------------------------------- device

@pytest.fixture
def cm(dev_names, accept_local):
    return dev_names


def test_get_addrinfo_numeric(cm):
    ai = AddrInfo()
    ai.get_addrinfo(src=IP0, src_service='18610', flags=ce.RAI_PASSIVE)
    assert not ai.empty
    assert (ai.src_addr, ai.dst_addr) == (f'{IP0}:18610', None)
    assert ai.flags & ce.RAI_PASSIVE and ai.port_space == ce.RDMA_PS_TCP
    # a second call replaces the first result (the leak test counts it)
    ai.get_addrinfo(src=IP0, dst=IP1, dst_service=18611,
                    port_space=ce.RDMA_PS_UDP)
    assert (ai.src_addr, ai.dst_addr) == (f'{IP0}:0', f'{IP1}:18611')
    assert ai.port_space == ce.RDMA_PS_UDP
    # 44's form gives the same result
    old = AddrInfo(src=IP0, dst=IP1, dst_service='18611',
                   port_space=ce.RDMA_PS_UDP)
    assert (old.src_addr, old.dst_addr, old.port_space, old.flags) == \
        (ai.src_addr, ai.dst_addr, ai.port_space, ai.flags)
    # RDMA_PS_IB: the names are numbers of the AF_IB family
    ai.get_addrinfo(src=IP0, flags=ce.RAI_PASSIVE,
                    port_space=ce.RDMA_PS_IB)
    assert ai.src_addr == f'<family {AF_IB}>'
    assert ai.port_space == ce.RDMA_PS_IB


@pytest.mark.parametrize('kw, code, text', [
    (dict(dst='abc', flags=ce.RAI_NUMERICHOST), socket.EAI_NONAME,
     'Name or service not known'),
    (dict(dst=IP0, dst_service='no-such-service'), socket.EAI_SERVICE,
     'Servname not supported'),
    (dict(src='abc', flags=ce.RAI_PASSIVE | ce.RAI_NUMERICHOST),
     socket.EAI_NONAME, 'Name or service not known'),
    (dict(src='abc', dst=IP0, flags=ce.RAI_NUMERICHOST), socket.EAI_NONAME,
     'Name or service not known'),
], ids=['numeric-dst', 'service', 'passive-src', 'active-src'])
def test_get_addrinfo_errors(cm, kw, code, text):
    """Each failure names getaddrinfo's reason; the previous result
    stays."""
    ai = AddrInfo(src=IP0, flags=ce.RAI_PASSIVE)
    with pytest.raises(PyverbsRDMAError) as ex:
        ai.get_addrinfo(**kw)
    assert ex.value.error_code == code and ex.value.func == 'rdma_getaddrinfo'
    assert f'Failed to get Address Info: {text}' in str(ex.value)
    assert ai.src_addr == f'{IP0}:0'


def test_empty_addrinfo_refused_by_open_ids(cm):
    empty = AddrInfo()
    with CMEventChannel() as ch:
        cid = CMID(creator=ch, port_space=ce.RDMA_PS_UDP)
        for call in (lambda: cid.bind_addr(empty),
                     lambda: cid.resolve_addr(empty),
                     lambda: cid.join_multicast(addr=empty),
                     lambda: cid.leave_multicast(empty)):
            with pytest.raises(PyverbsUserError, match='is empty'):
                call()
        # filled, the same object works
        empty.get_addrinfo(src=IP0, flags=ce.RAI_PASSIVE,
                           port_space=ce.RDMA_PS_UDP)
        cid.bind_addr(empty)
        assert cid.dev_name == 'rxe0'


def _async_rc(port, server_ai, client_ai):
    """An asynchronous RC connection on IP0 as two threads, with the
    AddrInfo server_ai(lid, channel) and client_ai(cid, channel) make;
    a message each way."""
    ready, got = threading.Event(), {}

    def server():
        with CMEventChannel() as ch:
            lid = CMID(creator=ch)
            lid.bind_addr(server_ai(lid, ch))
            lid.listen()
            ready.set()
            ev = _expect(ch, ce.RDMA_CM_EVENT_CONNECT_REQUEST)
            child = CMID(creator=ev, listen_id=lid)
            ev.close()
            child.create_qp(_qp_attr())
            mr = child.reg_msgs(MR_LEN)
            child.post_recv(mr)
            child.accept()
            _expect(ch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
            assert child.get_recv_comp().status == e.IBV_WC_SUCCESS
            got['server'] = mr.read(MSG, 0)
            mr.write(b'S' * MSG, MSG)
            child.post_send(mr, length=MSG)
            child.get_send_comp()
            _expect(ch, ce.RDMA_CM_EVENT_DISCONNECTED).close()

    def client():
        assert ready.wait(20)
        with CMEventChannel() as ch:
            cid = CMID(creator=ch)
            cid.resolve_addr(client_ai(cid, ch))
            _expect(ch, ce.RDMA_CM_EVENT_ADDR_RESOLVED).close()
            cid.resolve_route()
            _expect(ch, ce.RDMA_CM_EVENT_ROUTE_RESOLVED).close()
            cid.create_qp(_qp_attr())
            cid.connect()
            _expect(ch, ce.RDMA_CM_EVENT_ESTABLISHED).close()
            mr = cid.reg_msgs(MR_LEN)
            cid.post_recv(mr)
            mr.write(b'C' * MSG, MSG)
            cid.post_send(mr, length=MSG)
            cid.get_send_comp()
            assert cid.get_recv_comp().status == e.IBV_WC_SUCCESS
            got['client'] = mr.read(MSG, 0)
            cid.disconnect()

    _run_threads(server, client)
    assert got == {'server': b'C' * MSG, 'client': b'S' * MSG}


def _filled_later(**kw):
    """AddrInfo() filled by get_addrinfo(**kw), after a first, different
    lookup that the second replaces."""
    ai = AddrInfo()
    ai.get_addrinfo(src=IP1, dst=IP1, dst_service='1')
    ai.get_addrinfo(**kw)
    return ai


def test_async_connection_with_addrinfo_filled_later(cm):
    """rdma-core 65's asynchronous flow (tests/rdmacm_utils.py): each side
    builds AddrInfo() empty, then get_addrinfo()."""
    port = '18612'
    _async_rc(port,
              lambda lid, ch: _filled_later(src=IP0, src_service=port,
                                            flags=ce.RAI_PASSIVE,
                                            port_space=ce.RDMA_PS_TCP),
              lambda cid, ch: _filled_later(src=IP0, dst=IP0,
                                            dst_service=port,
                                            port_space=ce.RDMA_PS_TCP))


def test_sync_connection_with_addrinfo_filled_later(cm):
    """CMID(creator=AddrInfo) (rdma_create_ep) from AddrInfos built empty
    and filled."""
    res = _sync_pair(IP0, IP0, '18613', addrinfo=_filled_later)
    lid, child = res['server']
    _run_threads(res['client'].disconnect, child.disconnect)
    lid.close()
    res['client'].close()


def test_resolve_addrinfo_needs_librdmacm_60(cm):
    """A build against rdma-core < 60: the methods exist on a live id and
    raise EOPNOTSUPP naming the version (65's CM test skips on that)."""
    if _built_with_resolve_addrinfo():
        pytest.skip('this build has rdma_resolve_addrinfo (rdma-core >= 60)')
    with CMEventChannel() as ch:
        cid = CMID(creator=ch)
        with pytest.raises(PyverbsRDMAError,
                           match='rdma_resolve_addrinfo needs rdma-core 60'
                           ) as ex:
            cid.resolve_addrinfo(node=IP0, service='18614',
                                 flags=ce.RAI_PASSIVE)
        assert ex.value.error_code == errno.EOPNOTSUPP
        with pytest.raises(PyverbsRDMAError,
                           match='rdma_query_addrinfo needs rdma-core 60'):
            cid.query_addrinfo()


def _resolve(cid, ch, **kw):
    """resolve_addrinfo and its event; the queried AddrInfo."""
    cid.resolve_addrinfo(**kw)
    _expect(ch, ADDRINFO_RESOLVED).close()
    ai = cid.query_addrinfo()
    with pytest.raises(PyverbsRDMAError) as ex:   # handed over once
        cid.query_addrinfo()
    assert ex.value.error_code == errno.ENOENT
    return ai


def test_resolve_addrinfo(cm):
    """rdma_resolve_addrinfo/query_addrinfo (librdmacm 60) with rdma-core
    65's flow: each side resolves, waits for ADDRINFO_RESOLVED, queries
    the AddrInfo and connects with it.  The kernel queues the result event
    through rdma_ucm's event write; a kernel without it (Debian 12's 6.1)
    gives EOPNOTSUPP, checked, and the connection is skipped."""
    if not _built_with_resolve_addrinfo():
        pytest.skip('built against rdma-core < 60: no rdma_resolve_addrinfo')
    ch = CMEventChannel()
    cid = CMID(creator=ch)
    with pytest.raises(PyverbsRDMAError) as ex:       # nothing resolved
        cid.query_addrinfo()
    assert ex.value.error_code == errno.ENOENT
    assert ex.value.func == 'rdma_query_addrinfo'
    # refused before any lookup: the lookup's own error, SA/DNS misuse
    for kw, code in ((dict(node='abc', flags=ce.RAI_NUMERICHOST),
                      socket.EAI_NONAME),
                     (dict(service='1', flags=RAI_SA | RAI_DNS),
                      errno.EOPNOTSUPP),
                     (dict(node=IP0, service='1', flags=RAI_SA),
                      errno.EOPNOTSUPP),
                     (dict(flags=RAI_SA), errno.EINVAL)):
        with pytest.raises(PyverbsRDMAError) as ex:
            cid.resolve_addrinfo(**kw)
        assert ex.value.error_code == code, (kw, ex.value)
        assert ex.value.func == 'rdma_resolve_addrinfo'
    try:
        cid.resolve_addrinfo(node=IP0, service='18615',
                             flags=ce.RAI_PASSIVE)
    except PyverbsRDMAError as ex:
        assert ex.error_code == errno.EOPNOTSUPP, ex
        assert 'RDMA_USER_CM_CMD_WRITE_CM_EVENT' in str(ex)
        ch.close()
        pytest.skip(f'this kernel ({os.uname().release}) cannot queue the '
                    'result event of rdma_resolve_addrinfo: its error '
                    'checked, the connection not run')
    ch.close()
    _resolved_connection()


def _resolved_connection():
    """The connection of rdma-core 65's test_rdmacm_async_resolve_addrinfo:
    each side's AddrInfo is the one its id resolved and queried."""
    port = '18616'
    kept = []

    def server_ai(lid, ch):
        ai = _resolve(lid, ch, node=IP0, service=port,
                      port_space=ce.RDMA_PS_TCP, flags=ce.RAI_PASSIVE)
        assert ai.src_addr == f'{IP0}:{port}'
        return ai

    def client_ai(cid, ch):
        ai = _resolve(cid, ch, node=IP0, service=port,
                      port_space=ce.RDMA_PS_TCP)
        assert ai.dst_addr == f'{IP0}:{port}'
        kept.append(ai)
        return ai

    _async_rc(port, server_ai, client_ai)
    # the queried list is the AddrInfo's: a refill frees it, then close
    kept[0].get_addrinfo(src=IP1, flags=ce.RAI_PASSIVE)
    assert kept[0].src_addr == f'{IP1}:0'
    kept[0].close()
