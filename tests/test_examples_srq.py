# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""examples/srq_pingpong.py against rdma-core's ibv_srq_pingpong: the same
options and messages (host), and real ping-pong in the VM between rxe0 and
rxe1 in both roles against the C tool, and against itself, with the
default 16 QPs and with 4."""
import os
import re
import shutil

import pytest

import example_run


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLE = os.path.join(ROOT, 'examples', 'srq_pingpong.py')
C_TOOL = shutil.which('ibv_srq_pingpong') or '/usr/bin/ibv_srq_pingpong'
OURS = example_run.example('srq_pingpong.py')
TIMEOUT = 240            # a hang fails instead of blocking the run


def need_c_tool():
    example_run.need_tool(C_TOOL, 'ibverbs-utils')


# ------------------------------------------------------------------ host

@pytest.mark.parametrize('args', [
    ['-q', '600'],                  # more QPs than receives
    ['-q', '300', '-r', '500'],     # more QPs than records
    ['-x'],                         # unknown option: usage
    ['-h'],
    ['-p', '70000'],
    ['-s', '0'],
    ['-i', '0'],
    ['host1', 'host2'],
    ['-q', '0x300', '-r', '01000'],  # strtoul's bases
])
def test_refusals_print_like_the_c_tool(args):
    need_c_tool()
    ref = example_run.run([C_TOOL] + args)
    ours = example_run.run(OURS + args)
    assert ref.returncode == ours.returncode == 1
    assert ours.stdout.replace(EXAMPLE, 'PROG') == \
        ref.stdout.replace(C_TOOL, 'PROG')
    assert ours.stderr.replace(EXAMPLE, 'PROG') == \
        ref.stderr.replace(C_TOOL, 'PROG')


def test_wire_record_format():
    pp = example_run.load('srq_pingpong')
    gid = bytes.fromhex('00000000000000000000ffffc0000201')
    d = pp.Dest(lid=0x12, qpn=0x11, psn=0xabcdef, gid=gid)
    w = d.wire()
    assert len(w) == 52
    assert w == (b'0012:000011:abcdef:00000000000000000000ffffc0000201\0')
    back = pp.Dest.parse(w)
    assert (back.lid, back.qpn, back.psn, back.gid) == (0x12, 0x11,
                                                        0xabcdef, gid)
    assert d.line('local address: ') == (
        '  local address:  LID 0x0012, QPN 0x000011, PSN 0xabcdef, '
        'GID ::ffff:192.0.2.1')
    assert pp.Dest().wire() == b'0000:000000:000000:' + b'0' * 32 + b'\0'
    assert (pp.c_strtol('0x1f'), pp.c_strtol('010'), pp.c_strtol(' -3'),
            pp.c_strtol('12abc'), pp.c_strtol('abc')) == (31, 8, -3, 12, 0)
    assert pp.c_uint('-1') == 2**32 - 1
    with pytest.raises(pp.Failure):
        pp.Dest.parse(b'zz:1:2:3\0')


# ---------------------------------------------------------------- device

_PORT = [18600]


def _pair(server, client, dev_names, gids, nqp, iters, extra=()):
    """Run server (on the first device) and client (on the last, connecting
    to the first's address); return their outputs."""
    _PORT[0] += 1
    port = str(_PORT[0])
    common = ['-p', port, '-n', str(iters), '-s', '1024'] + list(extra)
    if nqp is not None:
        common += ['-q', str(nqp)]
    (sout, _), (cout, _) = example_run.serve_pair(
        server + ['-d', dev_names[0], '-g', str(gids[0])] + common,
        client + ['-d', dev_names[-1], '-g', str(gids[-1])] + common +
        ['192.0.2.1'], lambda: example_run.tcp_listening(int(port)),
        TIMEOUT)
    return sout, cout


ADDR = re.compile(r'^  (local|remote) address: {1,2}LID 0x([0-9a-f]{4}), '
                  r'QPN 0x([0-9a-f]{6}), PSN 0x([0-9a-f]{6}), GID (\S+)$')


def _parse(out, nqp, iters, size=1024):
    lines = out.splitlines()
    addrs = {'local': [], 'remote': []}
    for line in lines[:-2]:
        m = ADDR.match(line)
        assert m, line
        addrs[m.group(1)].append((m.group(3), m.group(4), m.group(5)))
    assert len(addrs['local']) == len(addrs['remote']) == nqp
    nbytes = size * iters * 2
    assert re.fullmatch(rf'{nbytes} bytes in \d+\.\d\d seconds = '
                        r'\d+\.\d\d Mbit/sec', lines[-2]), lines[-2]
    assert re.fullmatch(rf'{iters} iters in \d+\.\d\d seconds = '
                        r'\d+\.\d\d usec/iter', lines[-1]), lines[-1]
    return addrs


@pytest.mark.parametrize('nqp', [None, 4], ids=['default-16-qps', '4-qps'])
@pytest.mark.parametrize('roles', ['c-server', 'c-client', 'ours-both'])
def test_pingpong(dev_names, gids, roles, nqp):
    need_c_tool()
    if len(dev_names) < 2:
        pytest.fail('the VM has rxe0 and rxe1; this needs both')
    c = [C_TOOL]
    server, client = {'c-server': (c, OURS), 'c-client': (OURS, c),
                      'ours-both': (OURS, OURS)}[roles]
    iters = 200
    sout, cout = _pair(server, client, dev_names, gids, nqp, iters)
    n = nqp or 16
    s, c_ = _parse(sout, n, iters), _parse(cout, n, iters)
    # each side saw exactly what the other announced
    assert s['remote'] == c_['local']
    assert c_['remote'] == s['local']
    assert all(g.startswith('::ffff:192.0.2.') for _, _, g in s['local'])


def test_pingpong_events_and_check(dev_names, gids):
    """-e (sleep on CQ events) and -c (the buffer check) against the C
    tool."""
    need_c_tool()
    sout, cout = _pair(OURS, [C_TOOL], dev_names, gids, 2, 50,
                       extra=['-e', '-c'])
    _parse(sout, 2, 50)
    _parse(cout, 2, 50)
    assert 'invalid data' not in sout


def _srq_odp_caps(dev_name):
    """(ODP general caps, RC ODP caps) of the device, as the tools read
    them."""
    from pyverbs.device import Context
    with Context(name=dev_name) as ctx:
        odp = ctx.query_device_ex().odp_caps
        return odp.general_caps, odp.rc_odp_caps


def test_odp_like_the_c_tool(dev_names, gids):
    """-o (the buffer registered with IBV_ACCESS_ON_DEMAND): where the
    device has no RC send/receive/SRQ-receive ODP (Soft-RoCE before
    kernel 6.14), both tools refuse it with the same message; where it has
    (kernel 7.2's rxe), ours ping-pongs with it against the C tool in both
    roles, the data checked (-c)."""
    import pyverbs.enums as e
    need_c_tool()
    pp = example_run.load('srq_pingpong')
    general, rc = _srq_odp_caps(dev_names[0])
    if not (general & e.IBV_ODP_SUPPORT) or \
            (rc & pp.ODP_CAPS) != pp.ODP_CAPS:
        ref = example_run.run([C_TOOL, '-d', dev_names[0], '-o', '-g', '1'])
        ours = example_run.run(OURS + ['-d', dev_names[0], '-o', '-g', '1'])
        assert ref.returncode == 1, ref
        assert 'isn\'t ODP capable' in ref.stderr
        assert (ours.returncode, ours.stderr) == (ref.returncode, ref.stderr)
        return
    c = [C_TOOL]
    for server, client in ((OURS, c), (c, OURS)):
        sout, cout = _pair(server, client, dev_names, gids, 4, 50,
                           extra=['-o', '-c'])
        s, c_ = _parse(sout, 4, 50), _parse(cout, 4, 50)
        assert s['remote'] == c_['local'] and c_['remote'] == s['local']
        assert 'invalid data' not in sout + cout
