# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""``pyverbs bench``: on any host, its command line, the table layout
(against rows that perftest 4.5 printed), the statistics, the progress
bar and the plot; in the Soft-RoCE VM, every test in both modes run to
completion between rxe0 and rxe1 and on one device looped back."""
import io
import json
import re
import subprocess
import sys

import pytest

from example_run import env
from pyverbs.cli import _bench_report as report
from pyverbs.cli import bench, main

PNG_MAGIC = b'\x89PNG\r\n\x1a\n'
BW_ROW_RE = re.compile(r'^ (\d+) +(\d+) +(\d+\.\d\d) +(\d+\.\d\d) *\t\t   '
                       r'(\d+\.\d{6})$')
LAT_ROW_RE = re.compile(r'^ (\d+) +(\d+) +' + r'\s+'.join(
    [r'(\d+\.\d\d)'] * 7) + r'\s*$')


def pyverbs(*args, timeout=120, mplconfig=None):
    """Run the CLI; stdout and stderr decoded as they are (no newline
    translation, so a carriage return stays one)."""
    e = env()
    if mplconfig:               # matplotlib's cache: somewhere writable
        e['MPLCONFIGDIR'] = str(mplconfig)
    r = subprocess.run([sys.executable, '-m', 'pyverbs', *args],
                       capture_output=True, env=e, timeout=timeout)
    r.stdout, r.stderr = r.stdout.decode(), r.stderr.decode()
    return r


def have_matplotlib():
    try:
        import matplotlib       # noqa: F401
    except ImportError:
        return False
    return True


needs_matplotlib = pytest.mark.skipif(
    not have_matplotlib(), reason='matplotlib is not installed '
    '(pip install pyverbs-c[plot])')


# ---- host: the command line ----

def test_help():
    r = pyverbs('bench', '--help')
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith('usage: pyverbs bench')
    for opt in ('--bw', '--lat', '-d DEV', '--peer PEER', '-s SIZE', '-a',
                '--all', '-n N', '--iters', '--tx-depth', '--cq-mod',
                '--progress', '--no-progress', '--plot FILE.png',
                '--json FILE', 'write, read and/or send', 'MB is 2^20',
                '--server', '--connect HOST', '-p PORT', '--qp-timeout'):
        assert opt in r.stdout, opt


def test_listed_in_top_help():
    r = pyverbs('--help')
    assert r.returncode == 0
    assert 'bench' in r.stdout


@pytest.mark.parametrize('argv', [
    (), ('copy',), ('write', 'copy'), ('write', '-s', '0'),
    ('write', '-s', str((1 << 23) + 1)), ('write', '-s', 'big'),
    ('write', '-n', '0'), ('write', '-n', str(10 ** 7 + 1)),
    ('write', '-a', '-s', '64'),
    ('write', '-m', '1000'), ('write', '-i', '0'), ('write', '-t', '0'),
    ('write', '--max-size', '1'), ('write', '--plot'),
])
def test_bad_command_line_exits_2(argv):
    r = pyverbs('bench', *argv)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout == ''
    assert r.stderr.startswith('usage: pyverbs bench')
    assert 'error:' in r.stderr


@pytest.mark.parametrize('argv, msg', [
    (('-t', '16', '-Q', '32'), '--cq-mod must not be larger than '
     '--tx-depth'),
    (('-r', '8', '-Q', '16'), '--cq-mod must not be larger than '
     '--rx-depth'),
    (('--stall', '0'), '--stall must be positive'),
])
def test_inconsistent_options(argv, msg):
    r = pyverbs('bench', 'write', *argv)
    assert r.returncode == 1
    assert r.stdout == ''
    assert r.stderr == f'pyverbs bench: {msg}\n'


def test_plan_sizes_and_defaults():
    from pyverbs.cli import build_parser
    parse = build_parser().parse_args
    todo = bench.plan(parse(['bench', 'write', 'send', '--bw', '--lat']))
    assert todo == [('write', 'bw', [65536], 5000),
                    ('write', 'lat', [2], 1000),
                    ('send', 'bw', [65536], 5000),
                    ('send', 'lat', [2], 1000)]
    todo = bench.plan(parse(['bench', 'read', 'read', '-a', '-n', '7']))
    assert todo == [('read', 'bw', [1 << k for k in range(1, 17)], 7)]
    todo = bench.plan(parse(['bench', 'read', '-a', '--max-size', '100']))
    assert todo == [('read', 'bw', [2, 4, 8, 16, 32, 64], 5000)]


def test_no_matplotlib_fails_at_once(monkeypatch, tmp_path, capsys):
    """--plot without matplotlib: a clear message naming the extra,
    before any device is looked at and with no file written."""
    monkeypatch.setitem(sys.modules, 'matplotlib', None)
    out = tmp_path / 'p.png'
    assert main(['bench', 'write', '--plot', str(out)]) == 1
    cap = capsys.readouterr()
    assert cap.out == ''
    assert cap.err == ('pyverbs bench: --plot needs matplotlib, which is '
                       'not installed: pip install pyverbs-c[plot]\n')
    assert not out.exists()
    with pytest.raises(ImportError, match=r'pyverbs-c\[plot\]'):
        report.plot(str(out), [])


# ---- host: the table, as perftest lays it out ----

# rows that perftest 4.5's ib_write_bw and ib_write_lat printed on rxe
PERFTEST_BW_ROW = (' 4096       2000             25.60              5.06   '
                   '\t\t   0.001297')
PERFTEST_LAT_ROW = (' 2       1000          21.10          14218.08      '
                    '2753.57  \t       2326.06     \t2153.82\t\t8160.48 '
                    '\t\t14218.08')


def test_bw_row_layout_is_perftests():
    r = {'test': 'write', 'mode': 'bw', 'size': 4096, 'iters': 2000,
         'bw_peak': 25.6, 'bw_avg': 5.06, 'msg_rate': 0.001297}
    assert report.format_row(r) == PERFTEST_BW_ROW
    assert BW_ROW_RE.match(PERFTEST_BW_ROW)


def test_lat_row_layout_is_perftests():
    r = {'test': 'write', 'mode': 'lat', 'size': 2, 'iters': 1000,
         't_min': 21.10, 't_max': 14218.08, 't_typical': 2753.57,
         't_avg': 2326.06, 't_stdev': 2153.82, 'p99': 8160.48,
         'p999': 14218.08}
    assert report.format_row(r) == PERFTEST_LAT_ROW
    assert LAT_ROW_RE.match(PERFTEST_LAT_ROW)


def test_table_frame():
    rows = [report.lat_result('send', s, [1000, 2000, 3000])
            for s in (2, 4)]
    lines = report.format_table(rows)
    assert lines[0] == lines[-1] == '-' * 87
    assert lines[1] == (
        ' #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]'
        '    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   '
        '99.9% percentile[usec] ')
    assert [LAT_ROW_RE.match(x).group(1) for x in lines[2:4]] == ['2', '4']
    bw = report.table_header('bw')[1]
    assert bw == (' #bytes     #iterations    BW peak[MB/sec]    '
                  'BW average[MB/sec]   MsgRate[Mpps]')


def test_banner():
    info = {'device': 'rxe0', 'peer': 'rxe1', 'tx_depth': 128, 'cq_mod': 32,
            'mtu': 1024, 'link': 'Ethernet', 'gid_index': 1, 'rd_atomic': 16,
            'ends': [{'lid': 0, 'qpn': 0x11, 'psn': 0x3b11a6,
                      'rkey': 0x29a, 'vaddr': 0x559690f0f000,
                      'gid': '0000:0000:0000:0000:0000:ffff:c000:0201'},
                     {'lid': 0, 'qpn': 0x12, 'psn': 1, 'rkey': 2,
                      'vaddr': 3, 'gid': None}]}
    lines = report.banner('write', 'bw', info)
    assert lines[1] == ' ' * 20 + 'RDMA_Write BW Test'
    assert ' Device          : rxe0\t\tPeer device    : rxe1' in lines
    assert ' CQ Moderation   : 32' in lines
    assert (' local address: LID 0000 QPN 0x0011 PSN 0x3b11a6 RKey '
            '0x00029a VAddr 0x00559690f0f000') in lines
    assert (' GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:00:02:01'
            in lines)
    lat = report.banner('read', 'lat', info)
    assert lat[1].strip() == 'RDMA_Read Latency Test'
    assert ' TX depth        : 1' in lat
    assert ' Outstand reads  : 16' in lat
    assert not any('CQ Moderation' in x for x in lat)


# ---- host: the numbers behind the columns ----

def test_bw_result_steady_and_burst():
    steady = [(10.0 + k * 0.001, k * 10) for k in range(101)]
    r = report.bw_result('write', 1 << 20, 1000, 10.0, steady, 10)
    assert r['bw_avg'] == pytest.approx(10000)         # 10000 x 1 MiB /s
    assert r['bw_peak'] == pytest.approx(10000)
    assert r['msg_rate'] == pytest.approx(0.01)
    # same total, but half of it in the first tenth of the time
    burst = [(0.0, 0), (0.1, 500), (1.0, 1000)]
    r = report.bw_result('read', 1 << 20, 1000, 0.0, burst, 100)
    assert r['bw_avg'] == pytest.approx(1000)
    assert r['bw_peak'] == pytest.approx(5000)
    # a window larger than the run: the whole run
    r = report.bw_result('send', 2, 3, 0.0, [(0.0, 0), (1.0, 3)], 128)
    assert r['bw_peak'] == pytest.approx(r['bw_avg'])


def test_lat_result_statistics():
    ns = [1000 * x for x in range(1, 1001)]          # 1..1000 usec
    r = report.lat_result('write', 8, list(reversed(ns)))
    assert r['iters'] == 1000
    assert (r['t_min'], r['t_max']) == (1.0, 1000.0)
    assert r['t_typical'] == 501.0
    assert r['t_avg'] == pytest.approx(500.5)
    assert r['t_stdev'] == pytest.approx(288.675, rel=1e-4)
    assert (r['p99'], r['p999']) == (990.0, 999.0)
    one = report.lat_result('read', 2, [1500])
    assert one['t_min'] == one['p999'] == one['t_stdev'] + 1.5 == 1.5


# ---- host: progress bar, JSON, plot ----

class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_only_on_a_terminal_or_forced():
    quiet = io.StringIO()
    p = report.Progress(100, stream=quiet)
    p.update(50)
    p.clear()
    assert quiet.getvalue() == ''
    tty = _Tty()
    p = report.Progress(100, stream=tty, delay=0.0)
    p.begin('write bw 64 B')
    p.update(50)
    assert tty.getvalue() == ('\r[' + '#' * 15 + '.' * 15 + ']  50.0% '
                              'write bw 64 B\x1b[K')
    p.update(60)                          # within 0.1 s: not redrawn
    assert tty.getvalue().count('\r') == 1
    p.clear()
    assert tty.getvalue().endswith('\r\x1b[K')
    forced = io.StringIO()
    p = report.Progress(10, stream=forced, enabled=True)
    p.finish_run(5)
    p.update(5)
    assert '100.0%' in forced.getvalue()


SAMPLE = [
    {'test': 'write', 'mode': 'bw', 'size': s, 'iters': 100,
     'bw_peak': s / 10, 'bw_avg': s / 20, 'msg_rate': 0.01}
    for s in (2, 64, 4096, 65536)] + [
    {'test': 'send', 'mode': 'lat', 'size': s, 'iters': 100, 't_min': 5,
     't_max': 90, 't_typical': 10 + s / 1000, 't_avg': 12, 't_stdev': 3,
     'p99': 40, 'p999': 80} for s in (2, 64, 4096)]


@needs_matplotlib
def test_plot_writes_png(tmp_path):
    out = tmp_path / 'bench.png'
    report.plot(str(out), SAMPLE, 'test')
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert len(data) > 10000
    only_bw = tmp_path / 'bw.png'
    report.plot(str(only_bw), SAMPLE[:4])
    assert only_bw.read_bytes().startswith(PNG_MAGIC)
    with pytest.raises(ValueError):
        report.plot(str(tmp_path / 'none.png'), [])


def test_size_labels():
    assert [report._size_label(x) for x in (2, 512, 1024, 4096, 65536,
                                            1 << 23, 1536)] == \
        ['2', '512', '1K', '4K', '64K', '8M', '1536']


def test_json(tmp_path):
    out = tmp_path / 'r.json'
    report.write_json(str(out), {'device': 'rxe0'}, SAMPLE)
    data = json.loads(out.read_text())
    assert data == {'meta': {'device': 'rxe0'}, 'results': SAMPLE}


# ---- device (Soft-RoCE VM) ----

def _tables(stdout):
    """{(title, mode): [row match, ...]} from bench's stdout."""
    lines = stdout.splitlines()
    found, title = {}, None
    for i, line in enumerate(lines):
        if line.startswith(' ' * 20) and line.strip().endswith('Test'):
            title = line.strip()
        if line in (report.BW_HEADER, report.LAT_HEADER):
            mode = 'bw' if line == report.BW_HEADER else 'lat'
            assert lines[i - 1] == report.SEPARATOR
            rows = []
            for row in lines[i + 1:]:
                if row == report.SEPARATOR:
                    break
                m = (BW_ROW_RE if mode == 'bw' else LAT_ROW_RE).match(row)
                assert m, repr(row)
                rows.append(m)
            found[title, mode] = rows
    return found


@pytest.mark.device
def test_every_test_both_modes(dev_names, tmp_path):
    """Every test in both modes, with --json and (where matplotlib is
    installed) --plot; without matplotlib the run goes without --plot,
    and the test, its tables and JSON checked, skips saying so."""
    png, js = tmp_path / 'b.png', tmp_path / 'b.json'
    plot = ['--plot', str(png)] if have_matplotlib() else []
    r = pyverbs('bench', 'write', 'read', 'send', '--bw', '--lat', '-a',
                '--max-size', '16', '-n', '40', '-d', dev_names[0],
                '--peer', dev_names[-1], *plot, '--json',
                str(js), timeout=600, mplconfig=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert '\r' not in r.stderr          # not a terminal: no bar
    tables = _tables(r.stdout)
    assert set(tables) == set((report.TITLES[k], k[1])
                              for k in report.TITLES)
    for (title, mode), rows in tables.items():
        assert [int(m.group(1)) for m in rows] == [2, 4, 8, 16], title
        for m in rows:
            assert int(m.group(2)) == 40
            nums = [float(x) for x in m.groups()[2:]]
            # MB/sec of 2-byte messages may round to 0.00: not the rate
            assert (nums[-1] if mode == 'bw' else min(nums)) > 0, \
                (title, m.group(0))
    data = json.loads(js.read_text())
    assert data['meta']['device'] == dev_names[0]
    assert len(data['results']) == 24
    for x in data['results']:
        if x['mode'] == 'bw':
            assert 0 < x['bw_avg'] <= x['bw_peak'] * 1.000001
            assert x['msg_rate'] > 0
        else:
            assert 0 < x['t_min'] <= x['t_typical'] <= x['p99'] <= \
                x['t_max']
    if not plot:
        pytest.skip('--plot not run: matplotlib is not installed for '
                    f'{sys.executable} (pip install pyverbs-c[plot]); the '
                    'tables and the JSON were checked')
    assert png.read_bytes().startswith(PNG_MAGIC)


@pytest.mark.device
def test_loopback_with_progress(dev_name):
    """One device at both ends, the bar forced on: it goes to stderr and
    the table on stdout stays clean."""
    r = pyverbs('bench', 'write', '-s', '4096', '-n', '300', '-d', dev_name,
                '--peer', dev_name, '--progress', timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert '\r' not in r.stdout and '\x1b' not in r.stdout
    assert f' Device          : {dev_name}\t\tPeer device    : {dev_name}' \
        in r.stdout
    rows = _tables(r.stdout)[('RDMA_Write BW Test', 'bw')]
    assert len(rows) == 1 and rows[0].group(1) == '4096'
    assert r.stderr.startswith('\r[') and '% write bw 4096 B' in r.stderr
    assert r.stderr.endswith('\r\x1b[K')


@pytest.mark.device
def test_unknown_device(dev_names):
    r = pyverbs('bench', 'write', '-d', 'no_such_dev0')
    assert r.returncode == 1
    assert r.stdout == ''
    assert r.stderr == "IB device 'no_such_dev0' wasn't found\n"


# ---- host: the server/client exchange ----

def _channels():
    import socket
    from pyverbs.cli import _bench_tcp as tcp
    x, y = socket.socketpair()
    return tcp.Channel(x), tcp.Channel(y)


def test_channel_messages_and_errors():
    from pyverbs.cli._bench_engine import BenchError
    a, b = _channels()
    try:
        a.send('run', test='write', size=2)
        assert b.recv('run', 'bye') == {'kind': 'run', 'test': 'write',
                                        'size': 2}
        a.send('ready')
        with pytest.raises(BenchError, match="expected ok from the peer, "
                           "got 'ready'"):
            b.recv('ok')
        a.send('error', message='no progress for 30 s')
        with pytest.raises(BenchError, match='the peer failed: no progress'):
            b.recv('ok')
        a.sock.sendall(b'GET / HTTP/1.0\n')
        with pytest.raises(BenchError, match='does not speak'):
            b.recv('hello')
        a.close()
        with pytest.raises(BenchError, match='closed the connection'):
            b.recv('hello')
    finally:
        b.close()


@pytest.mark.parametrize('hello, msg', [
    ({'version': 99}, 'another version'),
    ({'version': 1, 'plan': [['write', 'bw', [2], 1]]}, 'bad hello'),
    ({'version': 1, 'settings': {'max_size': 2, 'tx_depth': 1,
                                 'rx_depth': 1, 'cq_mod': 1, 'mtu': None,
                                 'stall': 1.0, 'qp_timeout': 14},
      'plan': [['read', 'bw', [2], 1], ['send', 'lat', [2], 1]]},
     'the client asked for read, send; this server runs write'),
])
def test_server_refuses_bad_hello(hello, msg):
    """Refused before any device is opened."""
    from pyverbs.cli import _bench_tcp as tcp
    from pyverbs.cli._bench_engine import BenchError, Config
    a, b = _channels()
    try:
        a.send('hello', **hello)
        with pytest.raises(BenchError, match=msg):
            tcp.serve(b, Config(ib_dev='none', peer_dev='none'), ['write'],
                      print)
    finally:
        a.close()
        b.close()


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@pytest.mark.device
def test_client_without_server(dev_name):
    """Nobody listening: a clear error, exit status 1."""
    port = _free_port()
    r = pyverbs('bench', 'write', '-d', dev_name, '--connect', '127.0.0.1',
                '-p', str(port))
    assert r.returncode == 1
    assert r.stderr.startswith("pyverbs bench: couldn't connect to "
                               f'127.0.0.1:{port}: ')


@pytest.mark.device
def test_server_and_client(dev_names, tmp_path):
    """Two processes, as perftest: the server on the last device, the
    client on the first; both print the same rows."""
    import time
    port = str(_free_port())
    e = env()
    server = subprocess.Popen(
        [sys.executable, '-m', 'pyverbs', 'bench', 'write', 'read', 'send',
         '--server', '-d', dev_names[-1], '-p', port],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
    try:
        deadline = time.monotonic() + 120
        while True:             # until the server listens
            r = pyverbs('bench', 'write', 'read', 'send', '--bw', '--lat',
                        '-s', '64', '-n', '30', '-d', dev_names[0],
                        '--connect', '127.0.0.1', '-p', port, timeout=600)
            if "couldn't connect" not in r.stderr or \
                    time.monotonic() > deadline:
                break
            time.sleep(1)
        out, err = server.communicate(timeout=120)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert r.returncode == 0, r.stdout + r.stderr
    assert server.returncode == 0, (out + err).decode()
    ours = _tables(r.stdout)
    theirs = _tables(out.decode())
    assert set(ours) == set(theirs) == set(
        (report.TITLES[k], k[1]) for k in report.TITLES)
    for key, rows in ours.items():
        assert [m.group(0) for m in rows] == \
            [m.group(0) for m in theirs[key]], key
        assert [int(m.group(1)) for m in rows] == [64]
    assert f' Device          : {dev_names[0]}\t\tPeer device    : ' \
        f'{dev_names[-1]}' in r.stdout
