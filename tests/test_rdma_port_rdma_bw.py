# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's rdma_bw tool (tests/rdma_bw.py, ported to Python 3) run
the way its users ran it: a server on the last device (rxe1 in the VM), a
client on the first (rxe0) connecting to it over TCP; the two exchange
pickled paths, the client RDMA-WRITEs its buffer into the server's and
prints the rate.  The packets that rxe0 sent and rxe1 received (the
ports' hw_counters) show that the data crossed between the two devices."""
import os
import re
import subprocess
import sys
import time

import pytest

import example_run
from test_cli_bench import _free_port

HERE = os.path.dirname(os.path.abspath(__file__))
RDMA_BW = os.path.join(HERE, 'rdma_bw.py')
SIZE, ITERS = 65536, 200


def _counter(dev, name):
    path = f'/sys/class/infiniband/{dev}/ports/1/hw_counters/{name}'
    try:
        with open(path) as f:
            return int(f.read())
    except OSError:
        return None


@pytest.mark.device
def test_rdma_bw_rxe0_to_rxe1(dev_names):
    if len(dev_names) < 2:
        pytest.fail('the VM has rxe0 and rxe1; this needs both')
    src, dst = dev_names[0], dev_names[-1]
    sent0 = _counter(src, 'sent_pkts')
    rcvd0 = _counter(dst, 'rcvd_pkts')
    port = _free_port()
    cmd = [sys.executable, '-u', RDMA_BW, '-p', str(port)]
    server = subprocess.Popen(cmd + ['-d', dst], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              env=example_run.env())
    try:
        _wait_listening(port, server)
        client = subprocess.run(
            cmd + ['-d', src, '-s', str(SIZE), '-n', str(ITERS),
                   '127.0.0.1'], capture_output=True, text=True,
            env=example_run.env(), timeout=300)
        out, _ = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    print(client.stdout, out)
    assert client.returncode == 0, client.stdout + client.stderr
    assert server.returncode == 0, out
    rate = re.search(r'^(\d+\.\d) MB/sec$', client.stdout, re.M)
    assert rate and float(rate.group(1)) > 0, client.stdout
    line = f'{ITERS} iterations of {SIZE} is {ITERS * SIZE} bytes'
    assert line in client.stdout and line in out
    assert 'path to peer IBPath(' in client.stdout
    sent1 = _counter(src, 'sent_pkts')
    rcvd1 = _counter(dst, 'rcvd_pkts')
    if sent0 is not None and rcvd0 is not None:
        # at least one packet per 4 KiB (rxe's largest MTU) of the data
        least = ITERS * SIZE // 4096
        assert sent1 - sent0 >= least and rcvd1 - rcvd0 >= least, \
            (sent0, sent1, rcvd0, rcvd1)


def _wait_listening(port, server, timeout=60):
    """Wait until the server listens on port: /proc/net/tcp*, since a
    test connection would be the server's one accept()."""
    want = f':{port:04X} '
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.poll() is not None:
            return
        for table in ('/proc/net/tcp', '/proc/net/tcp6'):
            try:
                with open(table) as f:
                    rows = f.read().splitlines()[1:]
            except OSError:
                continue
            # state 0A is LISTEN
            if any(want in r.split()[1] + ' ' and r.split()[3] == '0A'
                   for r in rows):
                return
        time.sleep(0.1)
    pytest.fail('the rdma_bw server did not listen')
