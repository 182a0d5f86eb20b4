#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""rping over pyverbs.cmid: the rdma_cm ping of rdmacm-utils, same wire
protocol, so either side can be the C tool.

Per ping, the client fills a buffer with "rdma-ping-N: " and a run of
letters, then SENDs a 16-byte record (struct rping_rdma_info: address,
rkey, length, all big-endian) that advertises it; the server RDMA READs the
buffer and SENDs a go-ahead; the client advertises its sink buffer the same
way; the server RDMA WRITEs the data back into it and SENDs a go-ahead.
With -V the client compares the two buffers.  The server serves one client
until it disconnects.

The client uses the synchronous CM (CMID created from an AddrInfo:
rdma_create_ep, connect, get_send_comp/get_recv_comp).  The server uses the
asynchronous CM (CMEventChannel, bind_addr, listen, CMEvent, CMID from the
request event, create_qp on its own CQ, accept): it waits for a completion
or for the client's DISCONNECTED event, whichever comes first, by polling
the CQ and select()ing on the event channel's file descriptor.

Options as rdmacm-utils' rping (-s/-c, -a, -I, -p, -C, -S, -v, -V, -d),
except -q: quiet here (no summary line), where the C tool's -q creates the
QP itself; -P (persistent server) is not supported.  At the end each side
prints a summary line (latency and rate) unless -q.
"""
import getopt
import os
import select
import struct
import sys
import time

from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID, ConnParam
from pyverbs.cq import CQ
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QPCap, QPInitAttr
import pyverbs.cm_enums as ce
import pyverbs.enums as e

PROG = 'rping'
DEFAULT_PORT = 7174
DEFAULT_SIZE = 64
# rdmacm-utils 44 as Debian builds it accepts 23 ... 65535 bytes (its usage
# message says 65536) and 0 (forever) or more pings.
MIN_SIZE = 23
BUFSIZE = 64 * 1024
SQ_DEPTH = 16
INFO = struct.Struct('>QII')        # struct rping_rdma_info: buf, rkey, size
MSG_FMT = 'rdma-ping-%d: '

USAGE = '''\
{p} -s [-vVdq] [-S size] [-C count] [-a addr] [-p port]
{p} -c [-vVdq] [-S size] [-C count] [-I addr] -a addr [-p port]
\t-c\t\tclient side
\t-I\t\tSource address to bind to for client.
\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0
\t-v\t\tdisplay ping data to stdout
\t-V\t\tvalidate ping data
\t-d\t\tdebug printfs
\t-S size \tping data size
\t-C count\tping count times
\t-a addr\t\taddress
\t-p port\t\tport
\t-q\t\tquiet: no summary line (rping's -q, a self-created QP, is not
\t\t\tsupported)
'''


class Failure(Exception):
    """A message for stderr, then exit status 1."""


class Options:
    server = None
    addr = None
    src = None
    port = DEFAULT_PORT
    count = 0
    size = DEFAULT_SIZE
    verbose = False
    validate = False
    debug = False
    quiet = False


def c_atoi(text):
    """atoi(3): leading blanks, a sign, decimal digits; 0 if none."""
    t = text.lstrip(' \t\n\v\f\r')
    n = 0
    while n < len(t) and (t[n].isdigit() or (n == 0 and t[n] in '+-')):
        n += 1
    try:
        return int(t[:n])
    except ValueError:
        return 0


def parse_args(argv):
    """Options, or exit with rping's status (EINVAL) after a bad one."""
    o = Options()
    try:
        opts, _ = getopt.getopt(argv, 'a:I:p:C:S:scvVdq')
    except getopt.GetoptError:
        sys.stdout.write(USAGE.format(p=PROG))
        sys.exit(22)
    bad = False
    for opt, val in opts:
        if opt == '-a':
            o.addr = val
        elif opt == '-I':
            o.src = val
        elif opt == '-p':
            o.port = c_atoi(val) & 0xffff
        elif opt == '-s':
            o.server = True
        elif opt == '-c':
            o.server = False
        elif opt == '-S':
            o.size = c_atoi(val)
            if not MIN_SIZE <= o.size <= BUFSIZE - 1:
                sys.stderr.write('Invalid size %d (valid range is %d to %d)\n'
                                 % (o.size, MIN_SIZE, BUFSIZE))
                bad = True
        elif opt == '-C':
            o.count = c_atoi(val)
            if o.count < 0:
                sys.stderr.write('Invalid count %d\n' % o.count)
                bad = True
        elif opt == '-v':
            o.verbose = True
        elif opt == '-V':
            o.validate = True
        elif opt == '-d':
            o.debug = True
        elif opt == '-q':
            o.quiet = True
    if bad:
        sys.exit(22)
    if o.server is None or (not o.server and o.addr is None):
        sys.stdout.write(USAGE.format(p=PROG))
        sys.exit(22)
    return o


def ping_data(ping, size):
    """The client's buffer for ping number ping: "rdma-ping-N: ", then
    letters from 'A' + N % 58 on, cycling through 'A'..'z', NUL-ended."""
    head = (MSG_FMT % ping).encode()[:size - 1]
    c = 65 + ping % 58
    tail = bytearray()
    for _ in range(size - 1 - len(head)):
        tail.append(c)
        c = 65 if c == 122 else c + 1
    return head + bytes(tail) + b'\0'


def cstr(data):
    """The bytes before the first NUL, as text for printing."""
    return data.split(b'\0', 1)[0].decode('latin-1')


def summary(role, pings, size, seconds):
    if not pings or seconds <= 0:
        return '%s: %d pings of %d bytes' % (role, pings, size)
    return ('%s: %d pings of %d bytes in %.3f s: %.1f usec/ping, '
            '%.1f pings/sec' % (role, pings, size, seconds,
                                seconds * 1e6 / pings, pings / seconds))


def check_wc(wc, what):
    if wc is None:
        raise Failure('%s: no completion' % what)
    if wc.status != e.IBV_WC_SUCCESS:
        raise Failure('cq completion failed status %d' % wc.status)
    return wc


def debug(opts, fmt, *args):
    if opts.debug:
        print(fmt % args, flush=True)


# ---------------------------------------------------------------- client

def run_client(o):
    """The synchronous CM: rdma_create_ep makes the id, resolves the
    address and route and creates the QP (and its CQs); connect() returns
    once the connection is established."""
    ai = AddrInfo(src=o.src, dst=o.addr, dst_service=str(o.port),
                  port_space=ce.RDMA_PS_TCP)
    cap = QPCap(max_send_wr=SQ_DEPTH, max_recv_wr=2, max_send_sge=1,
                max_recv_sge=1)
    cmid = CMID(creator=ai, qp_init_attr=QPInitAttr(qp_type=e.IBV_QPT_RC,
                                                    cap=cap))
    try:
        recv_mr = cmid.reg_msgs(INFO.size)
        send_mr = cmid.reg_msgs(INFO.size)
        start_mr = cmid.reg_read(o.size)     # the server reads it
        rdma_mr = cmid.reg_write(o.size)     # the server writes into it
        cmid.post_recv(recv_mr)
        cmid.connect(ConnParam(resources=1, depth=1, retry=7, rnr_retry=7))
        debug(o, 'rdma_connect successful')

        def advertise(mr):
            send_mr.write(INFO.pack(mr.buf, mr.rkey, o.size), INFO.size)
            cmid.post_send(send_mr)
            check_wc(cmid.get_send_comp(), 'send')

        def go_ahead():
            wc = check_wc(cmid.get_recv_comp(), 'recv')
            if wc.byte_len != INFO.size:
                raise Failure('Received bogus data, size %d' % wc.byte_len)
            cmid.post_recv(recv_mr)

        ping = 0
        t0 = time.monotonic()
        while not o.count or ping < o.count:
            data = ping_data(ping, o.size)
            start_mr.write(data, o.size)
            rdma_mr.write(bytes(o.size), o.size)
            advertise(start_mr)
            go_ahead()                  # the server has read it
            advertise(rdma_mr)
            go_ahead()                  # the server has written it back
            back = rdma_mr.read(o.size, 0)
            if o.validate and back != data:
                raise Failure('data mismatch!')
            if o.verbose:
                print('ping data: %s' % cstr(back), flush=True)
            ping += 1
        seconds = time.monotonic() - t0
        cmid.disconnect()
    finally:
        cmid.close()
    if not o.quiet:
        print(summary('client', ping, o.size, seconds), flush=True)


# ---------------------------------------------------------------- server

def channel_fd(make_channel):
    """make_channel() and the file descriptor its events arrive on.
    pyverbs 44's CMEventChannel does not expose it: then it is the
    /dev/infiniband/rdma_cm descriptor that creating the channel opened."""
    def cm_fds():
        fds = set()
        for name in os.listdir('/proc/self/fd'):
            try:
                if os.readlink('/proc/self/fd/' + name) == \
                        '/dev/infiniband/rdma_cm':
                    fds.add(int(name))
            except OSError:
                pass
        return fds
    before = cm_fds()
    ch = make_channel()
    fd = getattr(ch, 'fd', None)
    if fd is None:
        new = cm_fds() - before
        if not new:
            ch.close()
            raise Failure('cannot find the event channel\'s descriptor')
        fd = max(new)
    return ch, fd


class Disconnected(Exception):
    pass


class Server:
    def __init__(self, o):
        self.o = o
        self.ch, self.fd = channel_fd(CMEventChannel)
        self.wcs = []
        self.cq = None
        self.child = None

    def wait_event(self, expect):
        """Wait for the next CM event and ack it, but return a CONNECT_REQUEST
        that was expected unacked (the child id adopts it first).  Raises
        Disconnected on DISCONNECTED, Failure on any other event than
        expect."""
        ev = CMEvent(self.ch)
        kind, name = ev.event_type, ev.event_str()
        debug(self.o, 'cma_event type %s', name)
        if kind == expect == ce.RDMA_CM_EVENT_CONNECT_REQUEST:
            return ev
        ev.ack_cm_event()
        if kind == ce.RDMA_CM_EVENT_DISCONNECTED:
            sys.stderr.write('server DISCONNECT EVENT...\n')
            raise Disconnected()
        if kind != expect:
            raise Failure('cma event %s, error' % name)
        return None

    def wait_wc(self, opcode):
        """The next work completion of opcode, polling the CQ; a CM event
        in between (the client's disconnect) ends the wait.  The send and
        the receive queue complete in no order between them (the client's
        next message may complete before the ACK of ours): a completion of
        another opcode waits in self.wcs for its turn."""
        spins = 0
        while True:
            for i, wc in enumerate(self.wcs):
                if wc.status == e.IBV_WC_WR_FLUSH_ERR:
                    raise Disconnected()
                check_wc(wc, 'completion')
                if wc.opcode == opcode:
                    return self.wcs.pop(i)
            if len(self.wcs) > SQ_DEPTH + 2:
                raise Failure('unexpected completion opcode %d'
                              % self.wcs[0].opcode)
            n, wcs = self.cq.poll(4)
            if n:
                self.wcs.extend(wcs)
                continue
            # Spin a while (the answer is usually on its way), then nap.
            spins += 1
            if select.select([self.fd], [], [],
                             0 if spins < 2000 else 0.001)[0]:
                self.wait_event(None)

    def run(self):
        o = self.o
        listen_id = CMID(creator=self.ch, port_space=ce.RDMA_PS_TCP)
        try:
            ai = AddrInfo(src=o.addr or '0.0.0.0', src_service=str(o.port),
                          port_space=ce.RDMA_PS_TCP, flags=ce.RAI_PASSIVE)
            listen_id.bind_addr(ai)
            listen_id.listen(3)
            ev = self.wait_event(ce.RDMA_CM_EVENT_CONNECT_REQUEST)
            try:
                self.child = CMID(creator=ev, listen_id=listen_id)
            finally:
                ev.ack_cm_event()
            try:
                return self.serve()
            finally:
                self.child.close()      # the QP first, then its CQ
                if self.cq is not None:
                    self.cq.close()
        finally:
            listen_id.close()
            self.ch.close()

    def serve(self):
        o, child = self.o, self.child
        if child.pd is None:
            raise Failure('the listening id has no device: give -a the '
                          'address of an RDMA device')
        self.cq = CQ(child.context, SQ_DEPTH * 2, None, None, 0)
        cap = QPCap(max_send_wr=SQ_DEPTH, max_recv_wr=2, max_send_sge=1,
                    max_recv_sge=1)
        child.create_qp(QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq,
                                   rcq=self.cq, cap=cap))
        recv_mr = child.reg_msgs(INFO.size)
        send_mr = child.reg_msgs(INFO.size)
        rdma_mr = child.reg_msgs(o.size)
        child.post_recv(recv_mr)
        child.accept()
        pings = 0
        t0 = None
        try:
            self.wait_event(ce.RDMA_CM_EVENT_ESTABLISHED)
            signaled = e.IBV_SEND_SIGNALED

            def advert():
                wc = self.wait_wc(e.IBV_WC_RECV)
                if wc.byte_len != INFO.size:
                    raise Failure('Received bogus data, size %d'
                                  % wc.byte_len)
                addr, rkey, size = INFO.unpack(recv_mr.read(INFO.size, 0))
                child.post_recv(recv_mr)
                debug(o, 'Received rkey %x addr %x len %d from peer',
                      rkey, addr, size)
                return addr, rkey, size

            def go_ahead():
                child.post_send(send_mr)
                self.wait_wc(e.IBV_WC_SEND)

            while True:
                addr, rkey, size = advert()
                if t0 is None:
                    t0 = time.monotonic()
                if size > o.size:
                    raise Failure('the client\'s buffer (%d bytes) is larger '
                                  'than ours (-S %d)' % (size, o.size))
                child.post_read(rdma_mr, size, addr, rkey, flags=signaled)
                self.wait_wc(e.IBV_WC_RDMA_READ)
                data = rdma_mr.read(size, 0)
                if o.verbose:
                    print('server ping data: %s' % cstr(data), flush=True)
                if o.validate and data != ping_data(pings, size):
                    raise Failure('data mismatch!')
                go_ahead()
                addr, rkey, _ = advert()
                length = len(cstr(data)) + 1
                child.post_write(rdma_mr, length, addr, rkey, flags=signaled)
                self.wait_wc(e.IBV_WC_RDMA_WRITE)
                # served: the client may disconnect as soon as the go-ahead
                # arrives, before its ACK completes our send (then flushed)
                pings += 1
                t1 = time.monotonic()
                go_ahead()
        except Disconnected:
            pass
        try:
            child.disconnect()      # the client may have done it already
        except PyverbsError:
            pass
        if not o.quiet:
            print(summary('server', pings, o.size,
                          t1 - t0 if pings else 0), flush=True)


def main(argv):
    o = parse_args(argv)
    try:
        if o.server:
            Server(o).run()
        else:
            run_client(o)
    except Failure as ex:
        sys.stderr.write('%s\n' % ex)
        return 1
    except PyverbsError as ex:
        sys.stderr.write('%s %s failed: %s\n'
                         % (PROG, 'server' if o.server else 'client', ex))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
