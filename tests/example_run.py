# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Running an example of examples/ beside the C tool it imitates: the
example runs under this interpreter with the pyverbs these tests import
first on its path (installed or built in place), so the same test proves
the example with ours and, run under /usr/bin/python3, with the reference."""
import importlib
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example(name):
    """The command line that runs examples/<name>."""
    return [sys.executable, os.path.join(ROOT, 'examples', name)]


def env():
    import pyverbs
    e = dict(os.environ)
    where = os.path.dirname(os.path.dirname(os.path.abspath(
        pyverbs.__file__)))
    e['PYTHONPATH'] = os.pathsep.join(
        [where] + [p for p in e.get('PYTHONPATH', '').split(os.pathsep)
                   if p])
    return e


def need_tool(path, package):
    if not os.access(path, os.X_OK):
        pytest.skip(f'{package} ({os.path.basename(path)}) is not installed')


def run(cmd, timeout=60):
    return subprocess.run(cmd, capture_output=True, text=True, env=env(),
                          timeout=timeout)


def load(name):
    """examples/<name>.py imported as a module (for its helpers)."""
    sys.path.insert(0, os.path.join(ROOT, 'examples'))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.pop(0)


def tcp_listening(port):
    """Is some socket listening on TCP port (from /proc/net/tcp{,6})?"""
    for name in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(name) as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == '0A' and \
                    int(fields[1].rsplit(':', 1)[1], 16) == port:
                return True
    return False


def serve_pair(server_cmd, client_cmd, listening, timeout):
    """Start server_cmd, wait until listening() is true, run client_cmd;
    both must exit with 0 within timeout seconds (the server is killed if
    anything goes wrong).  Returns their (stdout, stderr)s."""
    srv = subprocess.Popen(server_cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env=env())
    try:
        deadline = time.monotonic() + 60
        while not listening():
            assert srv.poll() is None, srv.communicate()
            assert time.monotonic() < deadline, 'the server never listened'
            time.sleep(0.1)
        cli = subprocess.run(client_cmd, capture_output=True, text=True,
                             env=env(), timeout=timeout)
        sout, serr = srv.communicate(timeout=timeout)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.communicate()
    assert cli.returncode == 0, (cli.stdout, cli.stderr, serr)
    assert srv.returncode == 0, (sout, serr, cli.stderr)
    return (sout, serr), (cli.stdout, cli.stderr)
