# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The command line (python -m pyverbs): argument handling on any host;
in the Soft-RoCE VM, its output line by line against ibverbs-utils'
ibv_devices and ibv_devinfo run on the same devices."""
import os
import subprocess
import sys

import pytest

from example_run import env, need_tool

COMMANDS = ('devices', 'devinfo')


def pyverbs(*args):
    return subprocess.run([sys.executable, '-m', 'pyverbs', *args],
                          capture_output=True, text=True, env=env(),
                          timeout=120)


def tool(*cmd):
    need_tool(cmd[0], 'ibverbs-utils')
    return subprocess.run(list(cmd), capture_output=True, text=True,
                          timeout=120)


# ---- host: the command line itself ----

def test_top_help_lists_commands():
    r = pyverbs('--help')
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith('usage: pyverbs')
    for name in COMMANDS:
        assert name in r.stdout


@pytest.mark.parametrize('name', COMMANDS)
def test_command_help(name):
    r = pyverbs(name, '--help')
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f'usage: pyverbs {name}')


def test_devinfo_help_options():
    out = pyverbs('devinfo', '--help').stdout
    for opt in ('-d DEV', '--ib-dev', '-i PORT', '--ib-port', '-v',
                '--verbose', '-l', '--list'):
        assert opt in out


@pytest.mark.parametrize('argv', [
    (), ('nosuchcommand',), ('devices', '-x'), ('devices', 'extra'),
    ('devinfo', '--bogus'), ('devinfo', '-i'), ('devinfo', '-i', 'one'),
    ('devinfo', '-i', '0'), ('devinfo', '-i', '-1'), ('devinfo', '-i', '256'),
    ('devinfo', '-d'),
])
def test_bad_command_line_exits_2_with_usage(argv):
    r = pyverbs(*argv)
    assert r.returncode == 2
    assert r.stdout == ''
    assert r.stderr.startswith('usage: pyverbs')
    assert 'error:' in r.stderr


def test_unknown_device_named():
    r = pyverbs('devinfo', '-d', 'no_such_dev0')
    assert r.returncode == 255
    assert r.stdout == ''
    assert r.stderr == "IB device 'no_such_dev0' wasn't found\n"


def test_reader_gone_is_quiet():
    """Output into a pipe nobody reads any more: exit status 1, no
    traceback."""
    rfd, wfd = os.pipe()
    os.close(rfd)
    try:
        r = subprocess.run([sys.executable, '-m', 'pyverbs', 'devices'],
                           stdout=wfd, stderr=subprocess.PIPE, text=True,
                           env=env(), timeout=120)
    finally:
        os.close(wfd)
    assert r.returncode == 1
    assert r.stderr == ''


def test_main_returns_status():
    from pyverbs.cli import main
    assert main(['devinfo', '-d', 'no_such_dev0']) == 255
    with pytest.raises(SystemExit) as e:
        main(['devinfo', '-i', 'x'])
    assert e.value.code == 2


def test_no_device_output():
    """Without devices: devices prints its header only; devinfo says so on
    stderr and fails, as ibv_devinfo does."""
    from pyverbs.device import get_device_list
    if get_device_list():
        pytest.skip('this machine has RDMA devices')
    r = pyverbs('devices')
    assert r.returncode == 0, r.stderr
    assert r.stdout == ('    device          \t   node GUID\n'
                        '    ------          \t----------------\n')
    r = pyverbs('devinfo')
    assert (r.returncode, r.stdout) == (255, '')
    assert r.stderr == 'No IB devices found\n'
    r = pyverbs('devinfo', '-l')
    assert (r.returncode, r.stdout) == (0, '0 HCAs found:\n\n')


def test_console_script_declared():
    """pyproject's [project.scripts] names the same entry point that
    python -m uses (pip install . creates the pyverbs script from it)."""
    import tomllib
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, 'pyproject.toml'), 'rb') as f:
        scripts = tomllib.load(f)['project']['scripts']
    assert scripts['pyverbs'] == 'pyverbs.cli:main'
    import pyverbs.cli
    assert callable(pyverbs.cli.main)


# ---- device: ours against the C tools ----

def normalize(text):
    """The counters a port keeps may move between the two runs (another
    test's traffic, a bad P_Key or Q_Key seen meanwhile): their values are
    blanked; everything else must match exactly."""
    out = []
    for line in text.splitlines():
        key = line.strip().split(':', 1)[0]
        if key in ('bad_pkey_cntr', 'qkey_viol_cntr'):
            line = line.split(':', 1)[0] + ':<counter>'
        out.append(line)
    return out


@pytest.mark.device
@pytest.mark.parametrize('ours, theirs', [
    (('devices',), ('/usr/bin/ibv_devices',)),
    (('devinfo',), ('/usr/bin/ibv_devinfo',)),
    (('devinfo', '-v'), ('/usr/bin/ibv_devinfo', '-v')),
    (('devinfo', '-l'), ('/usr/bin/ibv_devinfo', '-l')),
    (('devinfo', '-d', 'rxe1', '-i', '1'),
     ('/usr/bin/ibv_devinfo', '-d', 'rxe1', '-i', '1')),
    (('devinfo', '-v', '-d', 'rxe0', '-i', '1'),
     ('/usr/bin/ibv_devinfo', '-v', '-d', 'rxe0', '-i', '1')),
], ids=lambda argv: ' '.join(argv))
def test_same_output_as_c_tool(dev_names, ours, theirs):
    if '-d' in ours and ours[ours.index('-d') + 1] not in dev_names:
        pytest.skip(f'needs {ours[ours.index("-d") + 1]} (the VM has it)')
    ref = tool(*theirs)
    got = pyverbs(*ours)
    assert got.returncode == ref.returncode, got.stderr
    assert got.stderr == ref.stderr
    assert normalize(got.stdout) == normalize(ref.stdout)
    assert got.stdout.strip()


@pytest.mark.device
def test_port_beyond_count(dev_name):
    ref = tool('/usr/bin/ibv_devinfo', '-d', dev_name, '-i', '9')
    got = pyverbs('devinfo', '-d', dev_name, '-i', '9')
    assert (got.returncode, got.stdout, got.stderr) == \
        (ref.returncode, ref.stdout, ref.stderr)
    assert got.returncode == 4


@pytest.mark.skipif(bool(os.environ.get('PYVERBS_SANITIZED')),
                    reason='installs its own unsanitized build: a packaging '
                    'check, not one for a tools/sanitize run')
def test_pip_install_provides_script(tmp_path):
    """pip install . (into a fresh virtual environment that sees this
    interpreter's packages, for meson-python) puts a working pyverbs
    script on its bin/."""
    pytest.importorskip('mesonpy', reason='meson-python builds the wheel '
                        '(pip install .[test])')
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    venv = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', '--system-site-packages',
                    str(venv)], check=True, timeout=120)
    r = subprocess.run([str(venv / 'bin' / 'pip'), 'install', '-q',
                        '--no-build-isolation', '--no-deps', root],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    clean = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    r = subprocess.run([str(venv / 'bin' / 'pyverbs'), 'devinfo', '--help'],
                       capture_output=True, text=True, env=clean,
                       cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith('usage: pyverbs devinfo')
    r = subprocess.run([str(venv / 'bin' / 'python'), '-c',
                        'import pyverbs.cli; print(pyverbs.cli.__file__)'],
                       capture_output=True, text=True, env=clean,
                       cwd=tmp_path, timeout=60)
    assert r.stdout.startswith(str(venv)), (r.stdout, r.stderr)
