# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The mlx5 calls of rdma-core 65's pyverbs verified without mlx5 hardware:
the recording double (tests/fakes/mlx5_double.c and its part
mlx5_double_65.c, LD_PRELOAD) stands in for libmlx5 over real rxe objects
and logs every call.

- tests/fakes/mlx5_scenario65.py (upstream 65's API only) prints and logs
  what tests/fakes/mlx5_scenario65.golden* say for this build's rdma-core
  (the parts whose C call the build lacks print the error naming the
  version and reach no library);
- in the Debian sid guest (tools/rxe-vm --flavour sid), where pyverbs-c is
  built against rdma-core 65 and Debian's python3-pyverbs 65 is installed,
  the same scenario run by the reference must print the same lines and
  hand the double the same calls;
- the misuse on which upstream crashes or misbehaves (objects of another
  Context, closed objects, None) raises with ours and never reaches the
  double (it aborts on anything it did not make).

Run in the sid guest:
    tools/rxe-vm run --flavour sid -- sh -c 'tools/build-inplace &&
        PYTHONPATH=$PWD/src python3 -m pytest -q -m device
        tests/test_mlx5_double65.py'
"""
import os
import subprocess

import pytest

import doubles
from pyverbs import _verbs

HERE = os.path.dirname(os.path.abspath(__file__))
FAKES = os.path.join(HERE, 'fakes')
SCENARIO = os.path.join(FAKES, 'mlx5_scenario65.py')
REFERENCE_PYTHON = '/usr/bin/python3'

pytestmark = [pytest.mark.device,
              pytest.mark.skipif(not getattr(_verbs, '_HAVE_MLX5', 0),
                                 reason='built without libmlx5')]


@pytest.fixture(scope='module')
def double(tmp_path_factory):
    return doubles.build(tmp_path_factory, 'mlx5_double')


def run(double, dev, args, tmp_path, **kw):
    env = {'PVFAKE_MLX5_DR': '1'}
    env.update(kw.pop('env', {}))
    return doubles.run(double, 'PVFAKE_MLX5_DEVICES', dev, args, tmp_path,
                       env=env, **kw)


def golden_for(name):
    """The expected output and log of scenario name for this build: the
    golden file NAME.golden-RELEASE (its stdout, '----', its log) of the
    rdma-core release the build and the double are made against (what the
    build lacks prints an error instead of reaching the double).  65's was
    recorded in the sid guest, where it equals the reference's."""
    ver = doubles.rdma_core_version()
    path = os.path.join(FAKES, f'{name}.golden-{ver}')
    if not os.path.exists(path):
        pytest.skip(f'no golden log of {name} for rdma-core {ver}')
    with open(path) as f:
        return f.read()


def test_scenario_as_expected(double, dev_name, tmp_path):
    r, log = run(double, dev_name, [SCENARIO, dev_name], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr + log
    assert 'FATAL' not in log
    out, _, calls = golden_for('mlx5_scenario65').partition('----\n')
    assert r.stdout == out
    assert log == calls


def reference65():
    """Debian's python3-pyverbs 65, where it is installed (the sid guest),
    else None."""
    if not os.path.exists(REFERENCE_PYTHON):
        return None
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    r = subprocess.run(
        [REFERENCE_PYTHON, '-c',
         'import pyverbs, pyverbs.providers.mlx5.mlx5dv_event as m; '
         'print(pyverbs.__file__)'], env=env, cwd='/', capture_output=True,
        text=True, timeout=60)
    if r.returncode or not r.stdout.startswith('/usr/lib/python3'):
        return None
    return REFERENCE_PYTHON


def test_scenario_same_as_the_reference(double, dev_name, tmp_path):
    ref = reference65()
    if not ref:
        pytest.skip("Debian's python3-pyverbs 65 is not installed here "
                    '(the sid guest has it)')
    ours, ours_log = run(double, dev_name, [SCENARIO, dev_name], tmp_path)
    theirs, their_log = run(double, dev_name, [SCENARIO, dev_name],
                            tmp_path, python=ref, pythonpath=os.devnull,
                            name='ref.log')
    assert theirs.returncode == 0, theirs.stderr + their_log
    assert ours.returncode == 0, ours.stderr + ours_log
    assert ours.stdout == theirs.stdout
    # upstream's flow actions are never destroyed (FlowAction has neither
    # close() nor a finalizer: a leak); ours go with their last reference
    assert 'ibv_destroy_flow_action fa#1' in ours_log
    assert [ln for ln in ours_log.splitlines()
            if not ln.startswith('ibv_destroy_flow_action ')] == \
        their_log.splitlines()


MISUSE = r'''
import gc, sys
from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsUserError
from pyverbs.providers.mlx5.mlx5dv import (Mlx5Context, Mlx5DevxCmdComp,
                                           Mlx5DevxObj, Mlx5DVContextAttr)
from pyverbs.providers.mlx5.mlx5dv_event import EventChannel, EventFD


def case(name, fn, exc=Exception):
    try:
        fn()
        print(name, 'NO EXCEPTION', flush=True)
    except exc as ex:
        print(name, type(ex).__name__, flush=True)


dev = sys.argv[1]
ctx = Mlx5Context(Mlx5DVContextAttr(), name=dev)
other = Context(name=dev)               # a plain Context of the same device
obj = Mlx5DevxObj(ctx, b'\x01' * 16, 16)
alien = Mlx5DevxObj(other, b'\x02' * 16, 16)
cc = Mlx5DevxCmdComp(ctx)
cc2 = Mlx5DevxCmdComp(other)
case('cmd_comp None', lambda: obj.query_async(b'', 8, 1, None))
case('cmd_comp of another context', lambda: obj.query_async(b'', 8, 1, cc2))
ec = EventChannel(ctx)
case('obj of another context', lambda: ec.subscribe([1], 5, obj=alien))
efd = EventFD()
efd.close()
case('closed eventfd', lambda: ec.subscribe([1], obj=obj, fd=efd))
case('closed eventfd get', lambda: ec.get_event(fd=efd))
cc2.close()
case('closed cmd_comp', lambda: alien.query_async(b'', 8, 1, cc2))
# the channel and the cmd comp hold their Context: dropping every other
# reference closes nothing
del ctx
gc.collect()
print('still open', not ec.closed, not cc.closed, not obj.closed)
obj.query_async(b'\x03' * 4, 4, 9, cc)
print('async', cc.get_async_cmd_comp()[0])
other.close()
print('alien closed', alien.closed, cc2.closed)
ec.close()
case('closed channel', lambda: ec.get_event())
print('done')
'''


def test_misuse_raises_and_never_reaches_libmlx5(double, dev_name,
                                                 tmp_path):
    r, log = run(double, dev_name, ['-c', MISUSE, dev_name], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr + log
    assert 'NO EXCEPTION' not in r.stdout
    lines = r.stdout.splitlines()
    assert lines[:6] == [
        'cmd_comp None TypeError',
        'cmd_comp of another context PyverbsUserError',
        'obj of another context PyverbsUserError',
        'closed eventfd PyverbsUserError',
        'closed eventfd get PyverbsUserError',
        'closed cmd_comp PyverbsUserError']
    assert 'still open True True True' in lines
    assert 'async 9' in lines
    assert 'alien closed True True' in lines
    assert r.stdout.endswith('done\n')
    assert 'FATAL' not in log
    # only the one good query reached the double
    assert [ln for ln in log.splitlines() if 'query_async' in ln] == [
        'mlx5dv_devx_obj_query_async devx#1 inlen=4 in=03030303 outlen=4 '
        'wr_id=9 cc#1']
    assert 'mlx5dv_devx_subscribe' not in log
    assert 'closed channel PyverbsUserError' in lines
    # closing the plain Context destroyed its DevX object
    assert 'mlx5dv_devx_obj_destroy devx#2' in log
