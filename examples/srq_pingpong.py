#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Ping-pong over many RC QPs that share one SRQ, in pyverbs.

Speaks the wire protocol of rdma-core's ibv_srq_pingpong, so either side
may be the C tool:

    python3 examples/srq_pingpong.py -d rxe0 -g 1            # server
    python3 examples/srq_pingpong.py -d rxe1 -g 1 192.0.2.1  # client

The exchange (src/pyverbs/cli/exchange.py, shared with `pyverbs
rc-pingpong`): the client connects over TCP (port 18515 by default) and
sends 256 fixed-size records "LID:QPN:PSN:GID" (hex fields, the GID as 32
hex digits, NUL-padded to 52 bytes), one per QP slot (unused slots are
zeros); the server reads them, moves its QPs to RTR/RTS, answers with its
own 256 records and waits for the client's "done".  Then each side's QPs
exchange -n messages of -s bytes in all, every receive coming through the
one SRQ (refilled as a list of WRs in one post); the completion's QP number
tells which QP it arrived on.  Options and printed lines are those of the C
tool (see -h), which v44 also gives -o (on-demand paging) and -c (check
that the server's buffer still has zero at each page start).  One
difference: an unknown -m MTU prints the usage instead of failing later.
"""
import getopt
import os
import random
import re
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ, CompChannel, cqe_status_to_str
from pyverbs.device import Context, get_device_list
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

try:
    from pyverbs.cli import exchange
except ImportError:
    # another pyverbs (upstream's has no pyverbs.cli): this checkout's
    # exchange.py, which needs only the standard library
    import importlib.util
    _spec = importlib.util.spec_from_file_location(
        'exchange', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                 '..', 'src', 'pyverbs', 'cli', 'exchange.py'))
    if _spec is None or _spec.loader is None:
        raise
    exchange = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(exchange)
Failure, Dest = exchange.Failure, exchange.Dest
MSG_SIZE, DONE = exchange.MSG_SIZE, exchange.DONE

RECV_WRID = 1
SEND_WRID = 2
MAX_QP = 256            # records exchanged, whatever -q says
MTUS = {256: e.IBV_MTU_256, 512: e.IBV_MTU_512, 1024: e.IBV_MTU_1024,
        2048: e.IBV_MTU_2048, 4096: e.IBV_MTU_4096}

RTR_MASK = (e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
            e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
            e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER)
RTS_MASK = (e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
            e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN |
            e.IBV_QP_MAX_QP_RD_ATOMIC)
INIT_MASK = (e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX | e.IBV_QP_PORT |
             e.IBV_QP_ACCESS_FLAGS)
ODP_CAPS = (e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV |
            e.IBV_ODP_SUPPORT_SRQ_RECV)


def err(*lines):
    for line in lines:
        print(line, file=sys.stderr)


def c_strtol(text):
    """strtol(text, NULL, 0): leading blanks, a sign, 0x for hex, 0 for
    octal; the longest valid prefix, 0 if none."""
    m = re.match(r'\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)', text)
    if not m:
        return 0
    digits = m.group(2)
    if digits[:2] in ('0x', '0X'):
        val = int(digits, 16)
    elif digits.startswith('0'):
        val = int(digits, 8)
    else:
        val = int(digits)
    return -val if m.group(1) == '-' else val


def c_uint(text):
    """An unsigned int option (strtoul, then stored in 32 bits)."""
    return c_strtol(text) & 0xffffffff


def c_int(text):
    v = c_strtol(text) & 0xffffffff
    return v - (1 << 32) if v >= 1 << 31 else v


def recv_records(sock, who):
    """MAX_QP records from sock (a short read or EOF fails)."""
    dests = []
    for i in range(MAX_QP):
        buf = b''
        while len(buf) < MSG_SIZE:
            try:
                chunk = sock.recv(MSG_SIZE - len(buf))
            except OSError as ex:
                chunk, why = None, ex.strerror
            else:
                why = 'connection closed'
            if not chunk:
                raise Failure(f'{who} read: {why}',
                              f"{len(buf)}/{MSG_SIZE}: Couldn't read remote "
                              f'address [{i}]')
            buf += chunk
        dests.append(Dest.parse(buf))
    return dests


def send_records(sock, dests):
    try:
        sock.sendall(b''.join(d.wire() for d in dests))
    except OSError:
        raise Failure("Couldn't send local address") from None


def client_exchange(servername, port, my_dests):
    with exchange.connect_to(servername, port) as sock:
        send_records(sock, my_dests)
        rem = recv_records(sock, 'client')
        try:
            sock.sendall(DONE)
        except OSError as ex:
            raise Failure(f'client write: {ex.strerror}') from None
    return rem


def server_exchange(pp, port, my_dests):
    """Accept one client, read its records, connect our QPs to them, send
    ours and wait for "done"."""
    with exchange.accept_one(port) as conn:
        rem = recv_records(conn, 'server')
        try:
            pp.connect(my_dests, rem)
        except Failure as ex:
            raise Failure(*ex.args, "Couldn't connect to remote QP") from None
        send_records(conn, my_dests)
        buf = b''
        while len(buf) < len(DONE):
            chunk = conn.recv(MSG_SIZE)
            if not chunk:
                break
            buf += chunk
        if len(buf) != len(DONE):
            raise Failure('client write: no "done" from the client')
    return rem


class PingPong:
    """The verbs objects of one side: Context, PD, MR, CQ (with a
    CompChannel for -e), one SRQ and num_qp RC QPs receiving through it."""

    def __init__(self, dev_name, opts):
        self.opts = opts
        self.size = opts.size
        self.num_qp = opts.num_qp
        self.rx_depth = opts.rx_depth
        self.ib_port = opts.ib_port
        try:
            self.ctx = Context(name=dev_name)
        except PyverbsError:
            raise Failure(f"Couldn't get context for {dev_name}") from None
        self.channel = None
        if opts.use_event:
            self.channel = self._make(lambda: CompChannel(self.ctx),
                                      "Couldn't create completion channel")
        self.pd = self._make(lambda: PD(self.ctx), "Couldn't allocate PD")
        access = e.IBV_ACCESS_LOCAL_WRITE
        if opts.use_odp:
            try:
                odp = self.ctx.query_device_ex().odp_caps
            except PyverbsError:
                raise Failure("Couldn't query device for its features") \
                    from None
            if not (odp.general_caps & e.IBV_ODP_SUPPORT) or \
                    (odp.rc_odp_caps & ODP_CAPS) != ODP_CAPS:
                raise Failure("The device isn't ODP capable or does not "
                              'support RC send, receive and srq with ODP')
            access |= e.IBV_ACCESS_ON_DEMAND
        # zero-filled, page aligned, as the C tool's buffer
        self.mr = self._make(lambda: MR(self.pd, self.size, access),
                             "Couldn't register MR")
        self.cq = self._make(
            lambda: CQ(self.ctx, self.rx_depth + self.num_qp, None,
                       self.channel, 0), "Couldn't create CQ")
        self.srq = self._make(
            lambda: SRQ(self.pd, SrqInitAttr(SrqAttr(max_wr=self.rx_depth,
                                                     max_sge=1))),
            "Couldn't create SRQ")
        self.send_flags = e.IBV_SEND_SIGNALED
        self.qps = []
        for i in range(self.num_qp):
            init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                              srq=self.srq, sq_sig_all=0,
                              cap=QPCap(max_send_wr=1, max_recv_wr=0,
                                        max_send_sge=1, max_recv_sge=0))
            self.qps.append(self._make(lambda: QP(self.pd, init),
                                       f"Couldn't create QP[{i}]"))
            cap = self.qps[-1].query(e.IBV_QP_CAP)[1]
            if cap.max_inline_data >= self.size:
                self.send_flags |= e.IBV_SEND_INLINE
        self.qp_index = {qp.qp_num: i for i, qp in enumerate(self.qps)}
        for i, qp in enumerate(self.qps):
            attr = QPAttr()
            attr.qp_state = e.IBV_QPS_INIT
            attr.pkey_index = 0
            attr.port_num = self.ib_port
            attr.qp_access_flags = 0
            self._make(lambda: qp.modify(attr, INIT_MASK),
                       f'Failed to modify QP[{i}] to INIT')
        sge = SGE(self.mr.buf, self.size, self.mr.lkey)
        # one RecvWR per receive that a single post may carry
        self.recv_wrs = [RecvWR(wr_id=RECV_WRID, num_sge=1, sg=[sge])
                         for _ in range(self.rx_depth)]
        self.send_wr = SendWR(wr_id=SEND_WRID, opcode=e.IBV_WR_SEND,
                              num_sge=1, sg=[sge],
                              send_flags=self.send_flags)
        self.pending = [0] * self.num_qp

    @staticmethod
    def _make(fn, message):
        try:
            return fn()
        except PyverbsError:
            raise Failure(message) from None

    def post_recv(self, n):
        """Post n receives to the SRQ in one call; how many went in."""
        if n <= 0:
            return 0
        try:
            self.srq.post_recv(self.recv_wrs[:n])
        except PyverbsRDMAError as ex:
            idx = getattr(ex, 'bad_wr_index', None)
            return idx if isinstance(idx, int) else 0
        return n

    def post_send(self, i):
        self.qps[i].post_send(self.send_wr)

    def local_dests(self, gidx):
        port = self.ctx.query_port(self.ib_port)
        dests = [Dest() for _ in range(MAX_QP)]
        for i, qp in enumerate(self.qps):
            d = dests[i]
            d.qpn = qp.qp_num
            d.psn = random.getrandbits(24)
            d.lid = port.lid
            if port.link_layer != e.IBV_LINK_LAYER_ETHERNET and not d.lid:
                raise Failure("Couldn't get local LID")
            if gidx >= 0:
                try:
                    d.gid = bytes(self.ctx.query_gid(self.ib_port,
                                                     gidx).raw)
                except PyverbsError:
                    raise Failure('Could not get local gid for gid index '
                                  f'{gidx}') from None
            print(d.line('local address: '))
        return dests

    def connect(self, my_dests, rem):
        o = self.opts
        is_global = any(rem[0].gid[8:])       # the interface ID
        for i, qp in enumerate(self.qps):
            attr = QPAttr()
            attr.qp_state = e.IBV_QPS_RTR
            attr.path_mtu = o.mtu
            attr.dest_qp_num = rem[i].qpn
            attr.rq_psn = rem[i].psn
            attr.max_dest_rd_atomic = 1
            attr.min_rnr_timer = 12
            gr = None
            if is_global:
                gr = GlobalRoute(dgid=GID(rem[0].gid),
                                 sgid_index=o.gidx & 0xff, hop_limit=1)
            attr.ah_attr = AHAttr(dlid=rem[i].lid & 0xffff, sl=o.sl & 0xff,
                                  src_path_bits=0, port_num=self.ib_port,
                                  is_global=int(is_global), gr=gr)
            self._make(lambda: qp.modify(attr, RTR_MASK),
                       f'Failed to modify QP[{i}] to RTR')
            attr.qp_state = e.IBV_QPS_RTS
            attr.timeout = 14
            attr.retry_cnt = 7
            attr.rnr_retry = 7
            attr.sq_psn = my_dests[i].psn
            attr.max_rd_atomic = 1
            self._make(lambda: qp.modify(attr, RTS_MASK),
                       f'Failed to modify QP[{i}] to RTS')

    def run(self, iters, client):
        """The completion loop; returns the number of CQ events taken."""
        routs = self.rx_depth
        rcnt = scnt = 0
        events = 0
        num_wc = self.num_qp + self.rx_depth
        if client:
            for i in range(self.num_qp):
                self._make(lambda: self.post_send(i), "Couldn't post send")
                self.pending[i] = SEND_WRID | RECV_WRID
        else:
            self.pending = [RECV_WRID] * self.num_qp
        while rcnt < iters or scnt < iters:
            if self.channel is not None:
                try:
                    self.channel.get_cq_event(self.cq)
                except PyverbsError:
                    raise Failure('Failed to get cq_event') from None
                events += 1
                self._make(self.cq.req_notify,
                           "Couldn't request CQ notification")
            while True:
                ne, wcs = self.cq.poll(num_wc)
                if ne or self.channel is not None:
                    break
            for wc in wcs[:ne]:
                if wc.status != e.IBV_WC_SUCCESS:
                    raise Failure(f'Failed status '
                                  f'{cqe_status_to_str(wc.status)} '
                                  f'({wc.status}) for wr_id {wc.wr_id}')
                i = self.qp_index.get(wc.qp_num)
                if i is None:
                    raise Failure(f"Couldn't find QPN {wc.qp_num:06x}")
                if wc.wr_id == SEND_WRID:
                    scnt += 1
                elif wc.wr_id == RECV_WRID:
                    routs -= 1
                    if routs <= self.num_qp:
                        routs += self.post_recv(self.rx_depth - routs)
                        if routs < self.rx_depth:
                            raise Failure("Couldn't post receive "
                                          f'({routs})')
                    rcnt += 1
                else:
                    raise Failure('Completion for unknown wr_id '
                                  f'{wc.wr_id}')
                self.pending[i] &= ~wc.wr_id
                if scnt < iters and not self.pending[i]:
                    self._make(lambda: self.post_send(i),
                               "Couldn't post send")
                    self.pending[i] = RECV_WRID | SEND_WRID
        return events

    def close(self):
        steps = [(qp, f"Couldn't destroy QP[{i}]")
                 for i, qp in enumerate(self.qps)]
        steps += [(self.srq, "Couldn't destroy SRQ"),
                  (self.cq, "Couldn't destroy CQ"),
                  (self.mr, "Couldn't deregister MR"),
                  (self.pd, "Couldn't deallocate PD")]
        if self.channel is not None:
            steps.append((self.channel,
                          "Couldn't destroy completion channel"))
        steps.append((self.ctx, "Couldn't release context"))
        for obj, message in steps:
            self._make(obj.close, message)


USAGE = """Usage:
  {0}            start a server and wait for connection
  {0} <host>     connect to server at <host>

Options:
  -p, --port=<port>      listen on/connect to port <port> (default 18515)
  -d, --ib-dev=<dev>     use IB device <dev> (default first device found)
  -i, --ib-port=<port>   use port <port> of IB device (default 1)
  -s, --size=<size>      size of message to exchange (default 4096)
  -m, --mtu=<size>       path MTU (default 1024)
  -q, --num-qp=<num>     number of QPs to use (default 16)
  -r, --rx-depth=<dep>   number of receives to post at a time (default 500)
  -n, --iters=<iters>    number of exchanges per QP(default 1000)
  -l, --sl=<sl>          service level value
  -e, --events           sleep on CQ events (default poll)
  -g, --gid-idx=<gid index> local port gid index
  -o, --odp\t\t    use on demand paging
  -c, --chk              validate received buffer"""

LONG_OPTS = ['port=', 'ib-dev=', 'ib-port=', 'size=', 'mtu=', 'num-qp=',
             'rx-depth=', 'iters=', 'sl=', 'events', 'odp', 'gid-idx=',
             'chk']


class Options:
    port = 18515
    ib_dev = None
    ib_port = 1
    size = 4096
    mtu = e.IBV_MTU_1024
    num_qp = 16
    rx_depth = 500
    iters = 1000
    sl = 0
    use_event = 0
    use_odp = False
    gidx = -1
    validate = False
    servername = None


def parse_args(prog, argv):
    """Options, or None after printing the usage (exit status 1)."""
    o = Options()
    usage = USAGE.format(prog)
    try:
        opts, rest = getopt.gnu_getopt(argv, 'p:d:i:s:m:q:r:n:l:eog:c',
                                       LONG_OPTS)
    except getopt.GetoptError as ex:
        if ex.opt and len(ex.opt) == 1 and 'requires' not in ex.msg:
            err(f"{prog}: invalid option -- '{ex.opt}'")
        else:
            err(f'{prog}: {ex.msg}')
        print(usage)
        return None
    for opt, val in opts:
        name = opt.lstrip('-')
        if name in ('p', 'port'):
            o.port = c_uint(val)
            if o.port > 65535:
                print(usage)
                return None
        elif name in ('d', 'ib-dev'):
            o.ib_dev = val
        elif name in ('i', 'ib-port'):
            o.ib_port = c_int(val)
            if o.ib_port < 1:
                print(usage)
                return None
        elif name in ('s', 'size'):
            o.size = c_uint(val)
            if o.size < 1:
                print(usage)
                return None
        elif name in ('m', 'mtu'):
            o.mtu = MTUS.get(c_strtol(val))
            if o.mtu is None:
                print(usage)
                return None
        elif name in ('q', 'num-qp'):
            o.num_qp = c_uint(val)
        elif name in ('r', 'rx-depth'):
            o.rx_depth = c_uint(val)
        elif name in ('n', 'iters'):
            o.iters = c_uint(val)
        elif name in ('l', 'sl'):
            o.sl = c_int(val)
        elif name in ('e', 'events'):
            o.use_event += 1
        elif name in ('o', 'odp'):
            o.use_odp = True
        elif name in ('g', 'gid-idx'):
            o.gidx = c_int(val)
        elif name in ('c', 'chk'):
            o.validate = True
    if len(rest) == 1:
        o.servername = rest[0]
    elif rest:
        print(usage)
        return None
    return o


def main(argv=None):
    argv = sys.argv if argv is None else argv
    prog = argv[0]
    o = parse_args(prog, argv[1:])
    if o is None:
        return 1
    if o.num_qp > o.rx_depth:
        err(f'rx_depth {o.rx_depth} is too small for {o.num_qp} QPs -- '
            'must have at least one receive per QP.')
        return 1
    if o.num_qp > MAX_QP - 1:
        err(f'num_qp {o.num_qp} must be less than {MAX_QP - 1}')
        return 1
    devices = [d.name.decode() for d in get_device_list()]
    if not devices:
        err('No IB devices found')
        return 1
    dev = o.ib_dev or devices[0]
    if dev not in devices:
        err(f'IB device {dev} not found')
        return 1
    pp = None
    try:
        pp = PingPong(dev, o)
        routs = pp.post_recv(pp.rx_depth)
        if routs < pp.rx_depth:
            raise Failure(f"Couldn't post receive ({routs})")
        if pp.channel is not None:
            pp._make(pp.cq.req_notify, "Couldn't request CQ notification")
        try:
            pp.ctx.query_port(o.ib_port)
        except PyverbsError:
            raise Failure("Couldn't get port info") from None
        my_dests = pp.local_dests(o.gidx)
        if o.servername:
            rem = client_exchange(o.servername, o.port, my_dests)
        else:
            rem = server_exchange(pp, o.port, my_dests)
        for d in rem[:pp.num_qp]:
            print(d.line('remote address:'))
        if o.servername:
            pp.connect(my_dests, rem)
            if o.validate:      # the page starts the server checks
                for off in range(0, pp.size, os.sysconf('SC_PAGESIZE')):
                    pp.mr.write(b'\0', 1, off)
        start = time.time()
        events = pp.run(o.iters, bool(o.servername))
        usec = (time.time() - start) * 1e6
        nbytes = pp.size * o.iters * 2
        print(f'{nbytes} bytes in {usec / 1e6:.2f} seconds = '
              f'{nbytes * 8 / usec if usec else 0:.2f} Mbit/sec')
        print(f'{o.iters} iters in {usec / 1e6:.2f} seconds = '
              f'{usec / o.iters if o.iters else 0:.2f} usec/iter')
        if o.validate and not o.servername:
            page = os.sysconf('SC_PAGESIZE')
            for off in range(0, pp.size, page):
                if pp.mr.read(1, off) != b'\0':
                    print(f'invalid data in page {off // page}')
        if events:
            pp.cq.ack_events(events)
        pp.close()
    except Failure as ex:
        err(*ex.args)
        return 1
    finally:
        if pp is not None:
            pp.ctx.close()
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
