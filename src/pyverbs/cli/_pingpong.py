# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""What ``pyverbs rc-pingpong`` and ``pyverbs ud-pingpong`` share: their
common options, the TCP exchange of addresses that ibverbs-utils'
ibv_*_pingpong speak, the ping-pong loop and the printed results.

The exchange (exchange.py, shared with examples/srq_pingpong.py): one
record each way.  Every failure prints the C tools' message on stderr and
makes the command exit with 1, as they do.

A transport (rc_pingpong, ud_pingpong) subclasses PingPong: it says how its
QP is created, brought to INIT and connected, and how its sends are built.
"""
import argparse
import os
import random
import re
import sys
import time
from collections.abc import Callable
from typing import TypeVar

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.base import PyverbsCM
from pyverbs.cli import device_list
from pyverbs.cli.exchange import (DEFAULT_PORT, DONE, MSG_SIZE, Dest,
                                  Failure, accept_one, connect_to, read)
from pyverbs.cq import CQ, CompChannel, cqe_status_to_str
from pyverbs.device import Context, PortAttr
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

_T = TypeVar('_T')

RECV_WRID = 1
SEND_WRID = 2
FILL = 0x7b              # what the C tools put in a fresh buffer


# ---- the command line ----

_NUMBER = re.compile(r'\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)\s*')


def c_number(text: str) -> int:
    """A number written as C's strtol(.., 0) reads it (0x hex, 0 octal),
    but the whole text must be one."""
    m = _NUMBER.fullmatch(text)
    if not m:
        raise argparse.ArgumentTypeError(f'invalid number: {text!r}')
    digits = m.group(2)
    if digits[:2] in ('0x', '0X'):
        val = int(digits, 16)
    elif digits[0] == '0' and len(digits) > 1:
        val = int(digits, 8)
    else:
        val = int(digits)
    return -val if m.group(1) == '-' else val


def ranged(lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: a c_number in [lo, hi]."""
    def convert(text: str) -> int:
        val = c_number(text)
        if val < lo or (hi is not None and val > hi):
            bound = f'between {lo} and {hi}' if hi is not None else \
                f'at least {lo}'
            raise argparse.ArgumentTypeError(f'{val} is not {bound}')
        return val
    convert.__name__ = 'number'
    return convert


def add_common_arguments(parser: argparse.ArgumentParser,
                         size_default: int) -> None:
    """The options both tools take, as the C tools spell them."""
    parser.add_argument('host', nargs='?',
                        help='connect to the server at HOST (without it: '
                        'start a server and wait for a connection)')
    parser.add_argument('-p', '--port', type=ranged(0, 65535),
                        default=DEFAULT_PORT, metavar='PORT',
                        help='listen on/connect to TCP port PORT '
                        f'(default {DEFAULT_PORT})')
    parser.add_argument('-d', '--ib-dev', metavar='DEV',
                        help='use RDMA device DEV (default: the first found)')
    parser.add_argument('-i', '--ib-port', type=ranged(1, 255), default=1,
                        metavar='PORT',
                        help='use port PORT of the device (default 1)')
    parser.add_argument('-s', '--size', type=ranged(1, 2**31 - 1 - 40),
                        default=size_default, metavar='SIZE',
                        help='size of the message to exchange '
                        f'(default {size_default})')
    parser.add_argument('-r', '--rx-depth', type=ranged(1, 2**31 - 2),
                        default=500, metavar='DEPTH',
                        help='number of receives to post at a time '
                        '(default 500)')
    parser.add_argument('-n', '--iters', type=ranged(1, 2**31 - 1),
                        default=1000, metavar='ITERS',
                        help='number of exchanges (default 1000)')
    parser.add_argument('-l', '--sl', type=ranged(0, 15), default=0,
                        metavar='SL', help='service level (default 0)')
    parser.add_argument('-e', '--events', action='store_true',
                        help='sleep on CQ events (default: poll)')
    parser.add_argument('-g', '--gid-idx', type=ranged(-1, 255), default=-1,
                        metavar='INDEX',
                        help='local port GID index (needed on RoCE; '
                        'default: none)')
    parser.add_argument('-c', '--chk', action='store_true',
                        help='validate the received buffer (the server '
                        'checks what the client wrote)')


# ---- the wire (exchange.py) ----

def client_exchange(host: str, port: int, mine: Dest) -> Dest:
    """Send our record to the server at host:port, read its one, say
    "done"; the server's Dest."""
    with connect_to(host, port) as sock:
        try:
            sock.sendall(mine.wire())
        except OSError:
            raise Failure("Couldn't send local address") from None
        try:
            msg = read(sock, MSG_SIZE)
            if len(msg) != MSG_SIZE:
                raise OSError(0, 'connection closed')
            sock.sendall(DONE)
        except OSError as ex:
            raise Failure(f'client read/write: {ex.strerror}',
                          "Couldn't read/write remote address") from None
    return Dest.parse(msg)


def server_exchange(port: int, mine: Dest,
                    connect: Callable[[Dest], object]) -> Dest:
    """Accept one client on port, read its record, connect(its Dest),
    answer with ours and wait for "done"; the client's Dest."""
    with accept_one(port) as conn:
        try:
            msg = read(conn, MSG_SIZE)
        except OSError as ex:
            msg, why = b'', ex.strerror
        else:
            why = 'connection closed'
        if len(msg) != MSG_SIZE:
            raise Failure(f'server read: {why}',
                          f"{len(msg)}/{MSG_SIZE}: Couldn't read remote "
                          'address')
        rem = Dest.parse(msg)
        try:
            connect(rem)
        except Failure as ex:
            raise Failure(*ex.args, "Couldn't connect to remote QP") \
                from None
        try:
            conn.sendall(mine.wire())
            done = read(conn, len(DONE))
        except OSError:
            done = b''
        if done != DONE:
            raise Failure("Couldn't send/recv local address")
    return rem


# ---- the verbs side ----

def make(fn: Callable[[], _T], message: str) -> _T:
    """fn(), with a pyverbs error turned into Failure(message)."""
    try:
        return fn()
    except PyverbsError:
        raise Failure(message) from None


def path_to(rem: Dest, args: argparse.Namespace, ib_port: int) -> AHAttr:
    """The AHAttr towards rem: with a GRH when its GID has an interface ID
    (always on RoCE), sent from our -g GID."""
    is_global = any(rem.gid[8:])
    gr = None
    if is_global:
        gr = GlobalRoute(dgid=GID(rem.gid), sgid_index=args.gid_idx & 0xff,
                         hop_limit=1)
    return AHAttr(dlid=rem.lid & 0xffff, sl=args.sl, src_path_bits=0,
                  port_num=ib_port, is_global=int(is_global), gr=gr)


class PingPong:
    """One side: Context, an optional CompChannel (-e), PD, MR, one CQ and
    one QP.  The buffer holds `head` bytes before the message (ud's room
    for the GRH that each receive starts with)."""

    head = 0
    qp_type: int | None = None      # each transport's own
    gid_error = "can't read sgid of index {}"

    args: argparse.Namespace
    size: int
    rx_depth: int
    ib_port: int
    send_flags: int
    channel: CompChannel | None
    ah: AH | None
    ctx: Context
    pd: PD
    mr: MR
    cq: CQ
    qp: QP
    recv_wrs: list[RecvWR]
    send_sge: SGE
    send_wr: SendWR                 # made by connect()

    def __init__(self, dev_name: str, args: argparse.Namespace) -> None:
        self.args = args
        self.size = args.size
        self.rx_depth = args.rx_depth
        self.ib_port = args.ib_port
        self.send_flags = e.IBV_SEND_SIGNALED
        self.channel = self.ah = None
        self.qp = None  # type: ignore[assignment]  # None until created
        try:
            self.ctx = Context(name=dev_name)
        except PyverbsError:
            raise Failure(f"Couldn't get context for {dev_name}") from None
        self.check_device()
        if args.events:
            self.channel = make(lambda: CompChannel(self.ctx),
                                "Couldn't create completion channel")
        self.pd = make(lambda: PD(self.ctx), "Couldn't allocate PD")
        length = self.size + self.head
        self.mr = make(lambda: MR(self.pd, length, self.mr_access()),
                       "Couldn't register MR")
        self.mr.write(bytes([FILL]) * length, length, 0)
        self.cq = make(lambda: CQ(self.ctx, self.rx_depth + 1, None,
                                  self.channel, 0), "Couldn't create CQ")
        self.qp = make(self.create_qp, "Couldn't create QP")
        cap = self.qp.query(e.IBV_QP_CAP)[1].cap
        if cap.max_inline_data >= self.size:
            self.send_flags |= e.IBV_SEND_INLINE
        make(self.to_init, 'Failed to modify QP to INIT')
        # one RecvWR per receive a single post may carry (a WR may not
        # stand twice in one list)
        sge = SGE(self.mr.buf, length, self.mr.lkey)
        self.recv_wrs = [RecvWR(wr_id=RECV_WRID, num_sge=1, sg=[sge])
                         for _ in range(self.rx_depth)]
        self.send_sge = SGE(self.mr.buf + self.head, self.size,
                            self.mr.lkey)

    # what a transport provides
    def check_device(self) -> None:
        """Refuse a device that cannot do what the options ask."""

    def mr_access(self) -> int:
        return e.IBV_ACCESS_LOCAL_WRITE

    def qp_cap(self) -> QPCap:
        return QPCap(max_send_wr=1, max_recv_wr=self.rx_depth,
                     max_send_sge=1, max_recv_sge=1)

    def create_qp(self) -> QP:
        # qp_type is None only on this base class, which no command runs
        qp_type: int = self.qp_type     # type: ignore[assignment]
        return QP(self.pd, QPInitAttr(qp_type=qp_type, scq=self.cq,
                                      rcq=self.cq, cap=self.qp_cap(),
                                      sq_sig_all=0))

    def to_init(self) -> None:
        """RESET to INIT: the attributes both take, plus init_extra's."""
        attr = QPAttr()
        attr.qp_state = e.IBV_QPS_INIT
        attr.pkey_index = 0
        attr.port_num = self.ib_port
        self.qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_PKEY_INDEX |
                       e.IBV_QP_PORT | self.init_extra(attr))

    def init_extra(self, attr: QPAttr) -> int:
        """Set the transport's own INIT attributes; their mask."""
        raise NotImplementedError

    def connect(self, rem: Dest, mine: Dest) -> None:
        """Bring the QP to RTS towards rem (Failure if it cannot) and build
        self.send_wr."""
        raise NotImplementedError

    def post_send(self) -> None:
        self.qp.post_send(self.send_wr)

    def check_lid(self, port_attr: PortAttr) -> None:
        """A LID of 0 is fine on Ethernet (RoCE); rc refuses it elsewhere."""

    # the common part
    def post_recv(self, n: int) -> int:
        """Post n receives in one call; how many went in."""
        if n <= 0:
            return 0
        try:
            self.qp.post_recv(self.recv_wrs[:n])
        except PyverbsError as ex:
            idx = getattr(ex, 'bad_wr_index', None)
            return idx if isinstance(idx, int) else 0
        return n

    def local_dest(self) -> Dest:
        try:
            port_attr = self.ctx.query_port(self.ib_port)
        except PyverbsError:
            raise Failure("Couldn't get port info") from None
        self.check_lid(port_attr)
        gid = bytes(16)
        gidx = self.args.gid_idx
        if gidx >= 0:
            try:
                gid = bytes(self.ctx.query_gid(self.ib_port, gidx).raw)
            except PyverbsError:
                raise Failure(self.gid_error.format(gidx)) from None
        return Dest(port_attr.lid, self.qp.qp_num, random.getrandbits(24),
                    gid)

    def loop(self, iters: int, client: bool) -> int:
        """Ping-pong until iters sends and receives completed; returns the
        number of CQ events taken."""
        routs = self.rx_depth
        rcnt = scnt = events = 0
        pending = RECV_WRID
        if client:
            make(self.post_send, "Couldn't post send")
            pending |= SEND_WRID
        while rcnt < iters or scnt < iters:
            channel = self.channel
            if channel is not None:
                make(lambda: channel.get_cq_event(self.cq),
                     'Failed to get cq_event')
                events += 1
                make(self.cq.req_notify, "Couldn't request CQ notification")
            while True:
                try:
                    ne, wcs = self.cq.poll(2)
                except PyverbsError as ex:
                    raise Failure(f'poll CQ failed {ex}') from None
                if ne or self.channel is not None:
                    break
            for wc in wcs[:ne]:
                if wc.status != e.IBV_WC_SUCCESS:
                    raise Failure(f'Failed status '
                                  f'{cqe_status_to_str(wc.status)} '
                                  f'({wc.status}) for wr_id {wc.wr_id}')
                if wc.wr_id == SEND_WRID:
                    scnt += 1
                elif wc.wr_id == RECV_WRID:
                    routs -= 1
                    if routs <= 1:
                        routs += self.post_recv(self.rx_depth - routs)
                        if routs < self.rx_depth:
                            raise Failure("Couldn't post receive "
                                          f'({routs})')
                    rcnt += 1
                else:
                    raise Failure('Completion for unknown wr_id '
                                  f'{wc.wr_id}')
                pending &= ~wc.wr_id
                if scnt < iters and not pending:
                    make(self.post_send, "Couldn't post send")
                    pending = RECV_WRID | SEND_WRID
        return events

    def mark_pages(self) -> None:
        """-c on the client: a 0 at the start of each page it sends."""
        for off in range(0, self.size, os.sysconf('SC_PAGESIZE')):
            self.mr.write(b'\0', 1, self.head + off)

    def bad_pages(self) -> list[int]:
        """-c on the server: the pages whose first byte is not 0."""
        page = os.sysconf('SC_PAGESIZE')
        return [off // page for off in range(0, self.size, page)
                if self.mr.read(1, self.head + off) != b'\0']

    def close(self) -> None:
        """Destroy in the C tools' order, each failure with their words."""
        steps: list[tuple[PyverbsCM | None, str]] = [
            (self.qp, "Couldn't destroy QP"),
            (self.cq, "Couldn't destroy CQ"),
            (self.mr, "Couldn't deregister MR"),
            (self.ah, "Couldn't destroy AH"),
            (self.pd, "Couldn't deallocate PD"),
            (self.channel, "Couldn't destroy completion channel"),
            (self.ctx, "Couldn't release context")]
        for obj, message in steps:
            if obj is not None:
                make(obj.close, message)


def result_lines(size: int, iters: int, seconds: float) -> list[str]:
    """The two lines the C tools print after the run."""
    usec = seconds * 1e6
    nbytes = size * iters * 2
    rate = nbytes * 8 / usec if usec else float('inf')
    return [f'{nbytes} bytes in {usec / 1e6:.2f} seconds = {rate:.2f} '
            'Mbit/sec',
            f'{iters} iters in {usec / 1e6:.2f} seconds = '
            f'{usec / iters:.2f} usec/iter']


def err(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def run_pingpong(args: argparse.Namespace, cls: type[PingPong],
                 local_sep: str = ',') -> int:
    """The whole run of one side with transport cls; the exit status."""
    devices = device_list()
    if devices is None:
        return 1
    names = [d.name.decode() for d in devices]
    if not names:
        err('No IB devices found')
        return 1
    dev = args.ib_dev or names[0]
    if dev not in names:
        err(f'IB device {dev} not found')
        return 1
    pp = None
    try:
        pp = cls(dev, args)
        routs = pp.post_recv(pp.rx_depth)
        if routs < pp.rx_depth:
            raise Failure(f"Couldn't post receive ({routs})")
        if pp.channel is not None:
            make(pp.cq.req_notify, "Couldn't request CQ notification")
        mine = pp.local_dest()
        print(mine.line('local address: ', local_sep), flush=True)
        if args.host:
            rem = client_exchange(args.host, args.port, mine)
        else:
            rem = server_exchange(args.port, mine,
                                  lambda r: pp.connect(r, mine))
        print(rem.line('remote address:'), flush=True)
        if args.host:
            pp.connect(rem, mine)
            if args.chk:
                pp.mark_pages()
        start = time.monotonic()
        events = pp.loop(args.iters, bool(args.host))
        lines = result_lines(pp.size, args.iters, time.monotonic() - start)
        if args.chk and not args.host:
            lines += [f'invalid data in page {i}' for i in pp.bad_pages()]
        print('\n'.join(lines), flush=True)
        if events:
            pp.cq.ack_events(events)
        pp.close()
    except Failure as ex:
        sys.stdout.flush()
        err(*ex.args)
        return 1
    except PyverbsError as ex:      # a step the C tools do not check
        sys.stdout.flush()
        err(str(ex))
        return 1
    finally:
        if pp is not None:
            pp.ctx.close()
    return 0
