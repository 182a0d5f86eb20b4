# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The TCP exchange of addresses that rdma-core's ibv_*_pingpong tools
speak, shared by ``pyverbs rc-pingpong``/``ud-pingpong`` (cli/_pingpong.py)
and examples/srq_pingpong.py.

A side's address is a 52-byte record "LID:QPN:PSN:GID" (LID as 4 hex
digits, QPN and PSN as 6, the GID as 32 hex digits in wire order,
NUL-terminated).  The client connects (port 18515 by default), writes its
records, reads the server's and writes "done"; the server reads the
client's records, connects its QPs to them, answers with its own and waits
for the "done".  rc/ud exchange one record, srq one per QP slot (256).

Only the standard library: examples/srq_pingpong.py loads this file by
path when it runs under another pyverbs (upstream's), which has no
pyverbs.cli.
"""
import socket

DEFAULT_PORT = 18515
MSG_SIZE = 52            # len('0000:000000:000000:' + 32 hex digits) + NUL
DONE = b'done\0'


class Failure(Exception):
    """Lines for stderr; the command then exits with 1."""


class Dest:
    """One side's address: LID, QP number, first PSN and GID (16 bytes)."""

    def __init__(self, lid: int = 0, qpn: int = 0, psn: int = 0,
                 gid: bytes = bytes(16)) -> None:
        self.lid, self.qpn, self.psn, self.gid = lid, qpn, psn, bytes(gid)

    def wire(self) -> bytes:
        """The record the C tools write: the GID's bytes as hex, in order."""
        text = (f'{self.lid:04x}:{self.qpn:06x}:{self.psn:06x}:'
                f'{self.gid.hex()}').encode()
        return text[:MSG_SIZE - 1].ljust(MSG_SIZE, b'\0')

    @classmethod
    def parse(cls, msg: bytes) -> 'Dest':
        text = msg.split(b'\0', 1)[0].decode('ascii', 'replace')
        parts = text.split(':', 3)
        try:
            lid, qpn, psn = (int(p, 16) for p in parts[:3])
            gid = bytes.fromhex(parts[3][:32])
            if len(gid) != 16:
                raise ValueError
        except (ValueError, IndexError):
            raise Failure(f'Bad remote address {text!r}') from None
        return cls(lid, qpn, psn, gid)

    def line(self, what: str, gid_sep: str = ',') -> str:
        """The tools' "local address:"/"remote address:" line (ud's local
        line has a colon before the GID)."""
        gid = socket.inet_ntop(socket.AF_INET6, self.gid)
        return (f'  {what} LID 0x{self.lid:04x}, QPN 0x{self.qpn:06x}, '
                f'PSN 0x{self.psn:06x}{gid_sep} GID {gid}')


def open_socket(host: str | None, port: int,
                passive: bool) -> socket.socket | None:
    """A TCP socket connected to the first address of host:port that
    answers, or with passive bound to the first local address that is
    free; None if there is none."""
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_UNSPEC,
                                   socket.SOCK_STREAM, 0,
                                   socket.AI_PASSIVE if passive else 0)
    except socket.gaierror as ex:
        where = f'port {port}' if passive else f'{host}:{port}'
        raise Failure(f'{ex.strerror} for {where}') from None
    for family, stype, proto, _, addr in infos:
        try:
            s = socket.socket(family, stype, proto)
        except OSError:
            continue
        try:
            if passive:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(addr)
            else:
                s.connect(addr)
        except OSError:
            s.close()
            continue
        return s
    return None


def accept_one(port: int) -> socket.socket:
    """Listen on port and accept one client (the listening socket is
    closed then)."""
    lsock = open_socket(None, port, True)
    if lsock is None:
        raise Failure(f"Couldn't listen to port {port}")
    with lsock:
        lsock.listen(1)
        try:
            conn, _ = lsock.accept()
        except OSError:
            raise Failure('accept() failed') from None
    return conn


def connect_to(host: str, port: int) -> socket.socket:
    """The client's connection to the server at host:port."""
    sock = open_socket(host, port, False)
    if sock is None:
        raise Failure(f"Couldn't connect to {host}:{port}")
    return sock


def read(sock: socket.socket, n: int) -> bytes:
    """Up to n bytes: fewer only at end of stream."""
    buf = b''
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf
