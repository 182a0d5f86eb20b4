# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""examples/rping.py against rdmacm-utils' rping: the same option checks and
ping data (host), and real pings in the VM from rxe0 (192.0.2.1) to rxe1
(192.0.2.2), with -V on both sides, in both roles against the C tool and
against itself.

The example runs under the interpreter and with the pyverbs this test
imports (so the same file proves the example with Debian's python3-pyverbs
and with ours).  While pyverbs.cmid is a placeholder (pyverbs-c without the
connection manager) the device tests skip, saying so."""
import json
import os
import re
import shutil
import subprocess

import pytest

import example_run

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
C_TOOL = shutil.which('rping') or '/usr/bin/rping'
OURS = example_run.example('rping.py')
TIMEOUT = 120           # a hang fails instead of blocking the run
SERVER_ADDR, CLIENT_ADDR = '192.0.2.2', '192.0.2.1'


def need_c_tool():
    example_run.need_tool(C_TOOL, 'rdmacm-utils')


# ------------------------------------------------------------------ host

@pytest.mark.parametrize('args', [
    ['-s', '-S', '10'],
    ['-s', '-S', '65536'],
    ['-c', '-a', '192.0.2.2', '-C', '-1'],
])
def test_refusals_like_the_c_tool(args):
    need_c_tool()
    ref = example_run.run([C_TOOL] + args)
    ours = example_run.run(OURS + args)
    assert ref.returncode == ours.returncode == 22
    assert ours.stderr == ref.stderr


@pytest.mark.parametrize('args', [[], ['-x'], ['-a', '192.0.2.2']])
def test_usage_like_the_c_tool(args):
    """No role (or an unknown option): the usage text on stdout, EINVAL;
    ours names the same options (-q differs: see the example)."""
    need_c_tool()
    ref = example_run.run([C_TOOL] + args)
    ours = example_run.run(OURS + args)
    assert ref.returncode == ours.returncode == 22
    opts = re.compile(r'^\t(-\w)', re.M)
    assert set(opts.findall(ref.stdout)) - {'-P'} == \
        set(opts.findall(ours.stdout))
    assert ours.stdout.splitlines()[0] == \
        ref.stdout.splitlines()[0].replace('-vVd]', '-vVdq]')


def test_ping_data():
    """The client's buffer, as the C tool fills it (its -v output)."""
    rping = example_run.load('rping')
    d0 = rping.ping_data(0, 64)
    assert len(d0) == 64 and d0[-1:] == b'\0'
    assert rping.cstr(d0) == ('rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ'
                              '[\\]^_`abcdefghijklmnopqr')
    assert rping.cstr(rping.ping_data(9, 64)).endswith('uvwxyzA')
    assert rping.cstr(rping.ping_data(58, 30)) == \
        'rdma-ping-58: ABCDEFGHIJKLMNO'
    assert rping.INFO.size == 16
    assert rping.INFO.pack(0x1122334455667788, 0xaabbccdd, 64) == \
        bytes.fromhex('1122334455667788aabbccdd00000040')
    assert rping.c_atoi(' 12x') == 12 and rping.c_atoi('x') == 0


# ---------------------------------------------------------------- device

def _need_cm():
    import pyverbs.cmid as cmid
    try:
        from pyverbs._unimplemented import is_placeholder
    except ImportError:         # not pyverbs-c: upstream's pyverbs
        return
    if is_placeholder(cmid.CMID):
        pytest.skip('pyverbs.cmid is a placeholder in this pyverbs: no '
                    'rdma_cm to ping with')


def _listening(port):
    """Does an rdma_cm id listen on port (rdma resource show cm_id)?"""
    out = subprocess.run(['rdma', '-j', 'resource', 'show', 'cm_id'],
                         capture_output=True, text=True).stdout
    try:
        ids = json.loads(out or '[]')
    except ValueError:
        return False
    return any(i.get('state') == 'LISTEN' and
               i.get('src-addr', '').endswith(':%d' % port) for i in ids)


_PORT = [7300]
PING = re.compile(r'^(server )?ping data: (rdma-ping-(\d+): .*)$')
SUMMARY = re.compile(r'^(client|server): (\d+) pings of (\d+) bytes in '
                     r'\d+\.\d{3} s: \d+\.\d usec/ping, \d+\.\d pings/sec$')


def _next_port():
    _PORT[0] += 1
    return _PORT[0]


def _serve(port, server_cmd, client_cmd):
    """Start server_cmd, wait until it listens on port, run client_cmd;
    both must succeed.  Returns their (stdout, stderr)s."""
    return example_run.serve_pair(server_cmd, client_cmd,
                                  lambda: _listening(port), TIMEOUT)


def _pair(server, client, count, size):
    """Run server on 192.0.2.2 (rxe1), then client from 192.0.2.1 (rxe0),
    with -V and -v."""
    port = _next_port()
    common = ['-p', str(port), '-S', str(size), '-V', '-v']
    return _serve(port, server + ['-s', '-a', SERVER_ADDR] + common,
                  client + ['-c', '-I', CLIENT_ADDR, '-a', SERVER_ADDR,
                            '-C', str(count)] + common)


def _pings(out, count, size, role, ours):
    """The ping data lines of one side: count of them, ping 0, 1, ...,
    each the C tool's pattern; then our summary line."""
    lines = out.splitlines()
    if ours:
        m = SUMMARY.match(lines.pop())
        assert m, out
        assert m.group(1) == role and int(m.group(3)) == size
        assert int(m.group(2)) == count
    rping = example_run.load('rping')
    assert len(lines) == count, out
    for i, line in enumerate(lines):
        m = PING.match(line)
        assert m and bool(m.group(1)) == (role == 'server'), line
        assert int(m.group(3)) == i
        assert m.group(2) == rping.cstr(rping.ping_data(i, size))


@pytest.mark.parametrize('size', [64, 4000])
@pytest.mark.parametrize('roles', ['c-server', 'c-client', 'ours-both'])
def test_rping(dev_names, roles, size):
    need_c_tool()
    _need_cm()
    if len(dev_names) < 2:
        pytest.fail('the VM has rxe0 and rxe1; this needs both')
    c = [C_TOOL]
    server, client = {'c-server': (c, OURS), 'c-client': (OURS, c),
                      'ours-both': (OURS, OURS)}[roles]
    count = 10
    (sout, serr), (cout, cerr) = _pair(server, client, count, size)
    _pings(sout, count, size, 'server', server is not c)
    _pings(cout, count, size, 'client', client is not c)
    assert 'server DISCONNECT EVENT...' in serr
    assert 'mismatch' not in serr + cerr


def test_rping_server_validates(dev_names):
    """Our server's -V checks what it read against the rping pattern; a
    client whose size differs from the server's is served too (the server
    reads what the client advertises)."""
    need_c_tool()
    _need_cm()
    port = _next_port()
    p = str(port)
    (sout, _), _ = _serve(
        port, OURS + ['-s', '-a', SERVER_ADDR, '-p', p, '-V', '-S', '100'],
        [C_TOOL, '-c', '-I', CLIENT_ADDR, '-a', SERVER_ADDR, '-p', p,
         '-C', '3', '-S', '50', '-V'])
    assert SUMMARY.match(sout.strip()).group(2) == '3', sout


def test_rping_refused_connection(dev_names):
    """No server: our client fails cleanly (no hang, exit status 1)."""
    _need_cm()
    r = example_run.run(OURS + ['-c', '-I', CLIENT_ADDR, '-a', SERVER_ADDR,
                                '-p', '7299', '-C', '1'], timeout=TIMEOUT)
    assert r.returncode == 1, r
    assert 'rping client failed' in r.stderr, r
