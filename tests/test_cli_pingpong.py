# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""pyverbs rc-pingpong / ud-pingpong: their command lines, the address
records and result lines on any host (the exchange over a real TCP
socket); in the Soft-RoCE VM, real ping-pong between rxe0 and rxe1 against
ibverbs-utils' ibv_rc_pingpong / ibv_ud_pingpong in both roles, and
against themselves."""
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from example_run import env, need_tool, serve_pair, tcp_listening

from pyverbs.cli import _pingpong as pp

TOOLS = ('rc', 'ud')
TIMEOUT = 240            # a hang fails instead of blocking the run


def pyverbs(*args, timeout=120):
    return subprocess.run([sys.executable, '-m', 'pyverbs', *args],
                          capture_output=True, text=True, env=env(),
                          timeout=timeout)


# ---- host: the command line ----

@pytest.mark.parametrize('tool', TOOLS)
def test_help(tool):
    r = pyverbs(f'{tool}-pingpong', '--help')
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f'usage: pyverbs {tool}-pingpong')
    for opt in ('-p PORT', '--port', '-d DEV', '--ib-dev', '-i PORT',
                '--ib-port', '-s SIZE', '--size', '-r DEPTH', '--rx-depth',
                '-n ITERS', '--iters', '-l SL', '--sl', '-e', '--events',
                '-g INDEX', '--gid-idx', '-c', '--chk', 'host'):
        assert opt in r.stdout, opt
    rc_only = ('--mtu', '--odp', '--iodp', '--prefetch', '--ts', '--dm',
               '--new_send')
    for opt in rc_only:
        assert (opt in r.stdout) == (tool == 'rc'), opt


def test_listed_in_top_help():
    out = pyverbs('--help').stdout
    assert 'rc-pingpong' in out and 'ud-pingpong' in out


@pytest.mark.parametrize('tool', TOOLS)
@pytest.mark.parametrize('argv', [
    ('-p', '70000'), ('-p', '-1'), ('-p', 'x'), ('-i', '0'), ('-s', '0'),
    ('-s', '12abc'), ('-n', '0'), ('-r', '0'), ('-l', '16'), ('-g', '-2'),
    ('--bogus',), ('-d',), ('host1', 'host2'), ('-x',),
])
def test_bad_command_line_exits_2(tool, argv):
    r = pyverbs(f'{tool}-pingpong', *argv)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ''
    # (an unknown option is reported by the top-level parser)
    assert r.stderr.startswith('usage: pyverbs')
    assert 'error:' in r.stderr


@pytest.mark.parametrize('argv', [('-m', '3000'), ('-m', '0'),
                                  ('--mtu', 'big')])
def test_rc_bad_mtu(argv):
    r = pyverbs('rc-pingpong', *argv)
    assert r.returncode == 2
    assert 'argument -m/--mtu' in r.stderr


def test_ud_has_no_rc_options():
    for opt in ('-m', '-o', '-N', '-t'):
        r = pyverbs('ud-pingpong', opt, *(['1024'] if opt == '-m' else []))
        assert r.returncode == 2, opt


def test_c_numbers():
    """Numbers are read as C's strtol(.., 0) reads them, but whole."""
    import argparse
    assert [pp.c_number(t) for t in ('18515', '0x10', '010', '0', ' -3')] \
        == [18515, 16, 8, 0, -3]
    for bad in ('', '12abc', '0x', '08', '1.5'):
        with pytest.raises(argparse.ArgumentTypeError):
            pp.c_number(bad)
    conv = pp.ranged(1, 10)
    assert conv('0xa') == 10
    with pytest.raises(argparse.ArgumentTypeError):
        conv('11')


@pytest.mark.parametrize('args, why', [
    (('-o', '-j'), "DM memory region can't be on demand\n"),
    (('-P',), 'prefetch is valid only with on-demand memory region\n'),
])
def test_rc_option_conflicts_like_the_c_tool(args, why):
    r = pyverbs('rc-pingpong', *args)
    assert (r.returncode, r.stdout, r.stderr) == (1, '', why)


def test_unknown_device():
    for tool in TOOLS:
        r = pyverbs(f'{tool}-pingpong', '-d', 'no_such_dev0')
        assert r.returncode == 1
        assert r.stdout == ''
        assert r.stderr in ('IB device no_such_dev0 not found\n',
                            'No IB devices found\n')


# ---- host: the wire and the printed lines ----

GID = bytes.fromhex('00000000000000000000ffffc0000201')


def test_record_format():
    d = pp.Dest(lid=0x12, qpn=0x11, psn=0xabcdef, gid=GID)
    w = d.wire()
    assert len(w) == pp.MSG_SIZE == 52
    assert w == b'0012:000011:abcdef:00000000000000000000ffffc0000201\0'
    back = pp.Dest.parse(w)
    assert (back.lid, back.qpn, back.psn, back.gid) == (0x12, 0x11,
                                                        0xabcdef, GID)
    assert pp.Dest().wire() == b'0000:000000:000000:' + b'0' * 32 + b'\0'
    for bad in (b'zz:1:2:3\0', b'1:2:3\0', b'1:2:3:0011\0',
                b'1:2:3:' + b'g' * 32 + b'\0'):
        with pytest.raises(pp.Failure):
            pp.Dest.parse(bad)


def test_address_lines():
    d = pp.Dest(lid=0, qpn=0x1a, psn=0x123456, gid=GID)
    assert d.line('local address: ') == (
        '  local address:  LID 0x0000, QPN 0x00001a, PSN 0x123456, '
        'GID ::ffff:192.0.2.1')
    # ibv_ud_pingpong's local line has a colon before the GID
    assert d.line('local address: ', ':') == (
        '  local address:  LID 0x0000, QPN 0x00001a, PSN 0x123456: '
        'GID ::ffff:192.0.2.1')
    assert pp.Dest(gid=bytes.fromhex('fe80' + '0' * 12 + '0211223344556677')
                   ).line('remote address:').endswith(
        'GID fe80::211:2233:4455:6677')


def test_result_lines():
    assert pp.result_lines(4096, 1000, 0.5) == [
        '8192000 bytes in 0.50 seconds = 131.07 Mbit/sec',
        '1000 iters in 0.50 seconds = 500.00 usec/iter']
    assert pp.result_lines(1, 1, 0)[0] == \
        '2 bytes in 0.00 seconds = inf Mbit/sec'


def _free_port():
    with socket.socket() as s:
        s.bind(('', 0))
        return s.getsockname()[1]


def _server(port, mine, seen, out):
    try:
        out.append(pp.server_exchange(port, mine, seen.append))
    except pp.Failure as ex:
        out.append(ex)


def test_exchange_over_tcp():
    """The two ends of our exchange: each learns the other's record, the
    server connects (its callback) before it answers."""
    port = _free_port()
    srv_dest = pp.Dest(0, 0x111, 0x222, GID)
    cli_dest = pp.Dest(7, 0x333, 0x444, bytes(16))
    seen, out = [], []
    t = threading.Thread(target=_server, args=(port, srv_dest, seen, out))
    t.start()
    deadline = time.monotonic() + 10
    while True:
        try:
            got = pp.client_exchange('127.0.0.1', port, cli_dest)
            break
        except pp.Failure:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    t.join(10)
    assert (got.lid, got.qpn, got.psn, got.gid) == (0, 0x111, 0x222, GID)
    assert len(out) == 1 and isinstance(out[0], pp.Dest)
    assert out[0].wire() == cli_dest.wire()
    assert [d.wire() for d in seen] == [cli_dest.wire()]


def test_exchange_with_raw_c_style_peer():
    """A peer that writes exactly what the C client writes (52 bytes, then
    "done\\0") is understood; one that hangs up early is reported as the
    C server reports it."""
    port = _free_port()
    seen, out = [], []
    t = threading.Thread(target=_server,
                         args=(port, pp.Dest(1, 2, 3, GID), seen, out))
    t.start()
    deadline = time.monotonic() + 10
    while True:
        try:
            s = socket.create_connection(('127.0.0.1', port))
            break
        except OSError:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    with s:
        s.sendall(b'0005:00abcd:000123:' + b'fe80' + b'0' * 28 + b'\0')
        reply = b''
        while len(reply) < 52:
            reply += s.recv(52 - len(reply))
        s.sendall(b'done\0')
    t.join(10)
    assert reply == pp.Dest(1, 2, 3, GID).wire()
    assert (out[0].lid, out[0].qpn, out[0].psn) == (5, 0xabcd, 0x123)

    port = _free_port()
    out = []
    t = threading.Thread(target=_server,
                         args=(port, pp.Dest(), [], out))
    t.start()
    while True:
        try:
            s = socket.create_connection(('127.0.0.1', port))
            break
        except OSError:
            time.sleep(0.05)
    with s:
        s.sendall(b'0005:00')
    t.join(10)
    assert isinstance(out[0], pp.Failure)
    assert out[0].args[-1] == "7/52: Couldn't read remote address"


def test_client_without_server():
    port = _free_port()
    with pytest.raises(pp.Failure) as ex:
        pp.client_exchange('127.0.0.1', port, pp.Dest())
    assert ex.value.args == (f"Couldn't connect to 127.0.0.1:{port}",)
    with pytest.raises(pp.Failure) as ex:
        pp.client_exchange('no-such-host.invalid', port, pp.Dest())
    assert ex.value.args[0].endswith(f' for no-such-host.invalid:{port}')


# ---- device: against the C tools and ourselves ----

ADDR = re.compile(r'^  (local|remote) address: {1,2}LID 0x([0-9a-f]{4}), '
                  r'QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6})[,:] GID (\S+)$')


def _c_tool(tool):
    path = shutil.which(f'ibv_{tool}_pingpong') or \
        f'/usr/bin/ibv_{tool}_pingpong'
    need_tool(path, 'ibverbs-utils')
    return [path]


def _ours(tool):
    return [sys.executable, '-m', 'pyverbs', f'{tool}-pingpong']


_PORT = [18700]


def _pair(server, client, dev_names, gids, args):
    """Run server on rxe0 and client on rxe1 (connecting to rxe0's
    address); both must exit with 0; their outputs."""
    _PORT[0] += 1
    port = str(_PORT[0])
    common = ['-p', port] + list(args)
    (sout, serr), (cout, cerr) = serve_pair(
        server + ['-d', dev_names[0], '-g', str(gids[0])] + common,
        client + ['-d', dev_names[-1], '-g', str(gids[-1])] + common +
        ['192.0.2.1'], lambda: tcp_listening(int(port)), TIMEOUT)
    assert serr == '' and cerr == '', (serr, cerr)
    return sout, cout


def _parse(out, size, iters, tool):
    """The local and remote records of one side's output, after checking
    its lines are exactly the C tool's."""
    lines = out.splitlines()
    assert len(lines) == 4, lines
    local, remote = ADDR.match(lines[0]), ADDR.match(lines[1])
    assert local and local.group(1) == 'local', lines[0]
    assert remote and remote.group(1) == 'remote', lines[1]
    # ud's local line puts a colon before the GID, like ibv_ud_pingpong
    assert (': GID' in lines[0]) == (tool == 'ud'), lines[0]
    nbytes = size * iters * 2
    assert re.fullmatch(rf'{nbytes} bytes in \d+\.\d\d seconds = '
                        r'(\d+\.\d\d|inf) Mbit/sec', lines[2]), lines[2]
    assert re.fullmatch(rf'{iters} iters in \d+\.\d\d seconds = '
                        r'\d+\.\d\d usec/iter', lines[3]), lines[3]
    return local.groups()[1:], remote.groups()[1:]


ROLES = ['ours-server', 'ours-client', 'ours-both']


def _roles(tool, roles):
    c, ours = _c_tool(tool), _ours(tool)
    return {'ours-server': (ours, c), 'ours-client': (c, ours),
            'ours-both': (ours, ours)}[roles]


@pytest.mark.device
@pytest.mark.parametrize('roles', ROLES)
@pytest.mark.parametrize('tool', TOOLS)
def test_pingpong(dev_names, gids, tool, roles):
    """-c: the client marks each page, the server checks them; both sides
    print the C tool's lines and saw what the other announced."""
    server, client = _roles(tool, roles)
    size, iters = 1024, 50
    sout, cout = _pair(server, client, dev_names, gids,
                       ['-n', str(iters), '-s', str(size), '-c'])
    s_local, s_remote = _parse(sout, size, iters, tool)
    c_local, c_remote = _parse(cout, size, iters, tool)
    assert s_remote == c_local and c_remote == s_local
    assert s_local[3].startswith('::ffff:192.0.2.')


@pytest.mark.device
@pytest.mark.parametrize('tool', TOOLS)
def test_pingpong_events(dev_names, gids, tool):
    """-e (sleep on CQ events) on our side, against the C tool polling;
    several pages, so that -c checks more than one."""
    server, client = _roles(tool, 'ours-server')
    size = 8192 if tool == 'rc' else 1024
    sout, cout = _pair(server, client, dev_names, gids,
                       ['-n', '30', '-s', str(size), '-e', '-c'] +
                       (['-m', '1024'] if tool == 'rc' else []))
    _parse(sout, size, 30, tool)
    _parse(cout, size, 30, tool)


@pytest.mark.device
@pytest.mark.parametrize('tool', TOOLS)
def test_check_finds_unmarked_pages(dev_names, gids, tool):
    """-c is a real check: against a C client that does not mark its
    pages (no -c), our server reports each page, as the C server would."""
    server, client = _roles(tool, 'ours-server')
    page = os.sysconf('SC_PAGESIZE')
    size = 2 * page if tool == 'rc' else 1024   # ud: within the MTU
    _PORT[0] += 1
    port = str(_PORT[0])
    common = ['-p', port, '-n', '5', '-s', str(size)]
    (sout, serr), _ = serve_pair(
        server + ['-d', dev_names[0], '-g', str(gids[0]), '-c'] + common,
        client + ['-d', dev_names[-1], '-g', str(gids[-1])] + common +
        ['192.0.2.1'], lambda: tcp_listening(int(port)), TIMEOUT)
    pages = -(-size // page)
    assert sout.splitlines()[4:] == [f'invalid data in page {i}'
                                     for i in range(pages)], sout


@pytest.mark.device
def test_rc_new_send_api(dev_names, gids):
    """-N posts through QPEx (ibv_wr_*), the C client too."""
    server, client = _roles('rc', 'ours-server')
    sout, cout = _pair(server, client + ['-N'], dev_names, gids,
                       ['-n', '30', '-s', '512', '-N'])
    _parse(sout, 512, 30, 'rc')


@pytest.mark.device
@pytest.mark.parametrize('opt', ['-o', '-t', '-j', '-O'])
def test_rc_missing_features_fail_like_the_c_tool(dev_name, opt):
    """rxe has no ODP, completion timestamps or device memory: ours fails
    as ibv_rc_pingpong does.  As clients of a port where nobody listens,
    so that neither can hang if a device did have the feature."""
    argv = ['-d', dev_name, opt, '-p', '18799', '192.0.2.1']
    ref = subprocess.run(_c_tool('rc') + argv, capture_output=True,
                         text=True, timeout=60)
    ours = pyverbs('rc-pingpong', *argv, timeout=60)
    assert ref.returncode == 1, ref
    assert (ours.returncode, ours.stderr) == (1, ref.stderr)


@pytest.mark.device
def test_ud_size_over_mtu(dev_name):
    """A UD message must fit the port's MTU: the C tool's refusal."""
    c = _c_tool('ud')
    ref = subprocess.run(c + ['-d', dev_name, '-s', '8192', '-p', '18798'],
                         capture_output=True, text=True, timeout=60)
    ours = pyverbs('ud-pingpong', '-d', dev_name, '-s', '8192', '-p',
                   '18798', timeout=60)
    assert ref.returncode == 1
    assert ref.stderr.startswith('Requested size larger than port MTU')
    assert (ours.returncode, ours.stdout, ours.stderr) == \
        (1, '', ref.stderr)
