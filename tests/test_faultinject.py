# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Fault injection: tests/fakes/faultinject.c, preloaded, makes the Nth
call of any ibv_*/rdma_* function pyverbs imports fail the way that
function reports failure; tests/fakes/fault_scenario.py reruns a scenario
over every core object for every N of every function it calls.  Each
failure must come out as a PyverbsError naming the function, with nothing
left open or leaked (fds, device resources, heap blocks) and without a
crash.

Host tests check the shim itself (that it wraps every function the
extension imports, the environment configuration, that calls from outside
pyverbs are never failed); the sweeps need the device (the Soft-RoCE VM).
"""
import ctypes
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

import pyverbs

HERE = os.path.dirname(os.path.abspath(__file__))
FAKES = os.path.join(HERE, 'fakes')
SRC = os.path.dirname(os.path.dirname(os.path.abspath(pyverbs.__file__)))


def preload(shim):
    """LD_PRELOAD with the shim after what is preloaded already
    (tools/sanitize's runtimes must stay first)."""
    return ' '.join(filter(None, (os.environ.get('LD_PRELOAD'), shim)))


@pytest.fixture(scope='module')
def shim(tmp_path_factory):
    cc = shutil.which('cc') or shutil.which('gcc')
    if not cc:
        pytest.skip('a C compiler is needed to build the fault shim')
    out = str(tmp_path_factory.mktemp('fi') / 'libfaultinject.so')
    subprocess.run([cc, '-shared', '-fPIC', '-O1', '-Wall', '-Werror',
                    '-o', out, os.path.join(FAKES, 'faultinject.c'),
                    '-libverbs', '-lrdmacm', '-ldl', '-lpthread'],
                   check=True)
    return out


def wrapped(shim):
    lib = ctypes.CDLL(shim)
    lib.fi_function.argtypes = [ctypes.c_int,
                                ctypes.POINTER(ctypes.c_char_p)]
    lib.fi_function.restype = ctypes.c_char_p
    out, i, kind = {}, 0, ctypes.c_char_p()
    while (name := lib.fi_function(i, ctypes.byref(kind))):
        out[name.decode()] = kind.value.decode()
        i += 1
    return out


def run_py(shim, code, env=None, timeout=120):
    full = dict(os.environ, LD_PRELOAD=preload(shim), PYTHONPATH=SRC,
                **(env or {}))
    return subprocess.run([sys.executable, '-c', code], env=full,
                          capture_output=True, text=True, timeout=timeout)


def test_shim_wraps_every_imported_function(shim):
    """Every ibv_*/rdma_* symbol the extension takes from the libraries is
    one the shim wraps (a new call in the C needs a line in the shim)."""
    nm = shutil.which('nm')
    if not nm:
        pytest.skip('nm (binutils) is needed to list the imported symbols')
    so = glob.glob(os.path.join(SRC, 'pyverbs', '_verbs*.so'))
    assert so, 'the extension is not built'
    out = subprocess.run([nm, '-D', '--undefined-only', so[0]],
                         capture_output=True, text=True, check=True).stdout
    imported = {line.split()[-1].split('@')[0] for line in out.splitlines()
                if line.split()[-1].startswith(('ibv_', 'rdma_'))}
    kinds = wrapped(shim)
    assert imported, out
    assert not imported - set(kinds), imported - set(kinds)
    assert set(kinds.values()) <= {'PTR', 'RC', 'M1', 'REREG', 'PASS'}


GET_LIST_TWICE = '''
from pyverbs.device import get_device_list
from pyverbs.pyverbs_error import PyverbsRDMAError
try:
    get_device_list()
    print('no error')
except PyverbsRDMAError as ex:
    print(ex.func, type(ex).__name__)
print(type(get_device_list()).__name__)
'''


def test_env_configured_fault(shim):
    """FAULT_FUNC/FAULT_NTH/FAULT_ERRNO: the first get_device_list() fails
    as a PyverbsRDMAError naming ibv_get_device_list, the second works."""
    r = run_py(shim, GET_LIST_TWICE, {'FAULT_FUNC': 'ibv_get_device_list',
                                      'FAULT_NTH': '1',
                                      'FAULT_ERRNO': 'EAGAIN'})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split('\n')[:2] == [
        'ibv_get_device_list PyverbsRDMAError', 'list']
    # nothing armed: both work
    r = run_py(shim, GET_LIST_TWICE)
    assert r.stdout.split('\n')[:2] == ['no error', 'list'], r.stderr


COUNTING = '''
import ctypes, sys
from pyverbs.device import get_device_list
fi = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else %r)
fi.fi_calls.argtypes = [ctypes.c_char_p]
fi.fi_calls.restype = ctypes.c_long
fi.fi_fired.restype = ctypes.c_char_p
fi.fi_arm(b'*', 2, 12)
# the shim's own wrappers, called from ctypes (not pyverbs): not counted
fi.ibv_get_device_list.restype = ctypes.c_void_p
fi.ibv_free_device_list.argtypes = [ctypes.c_void_p]
n = ctypes.c_int()
for _ in range(3):
    lst = fi.ibv_get_device_list(ctypes.byref(n))
    if lst:                     # NULL (ENOSYS) on a kernel without RDMA
        fi.ibv_free_device_list(lst)
print(fi.fi_calls(b'ibv_get_device_list'), fi.fi_fired())
get_device_list()               # the first counted call of all: works
print(fi.fi_calls(b'ibv_get_device_list'), fi.fi_fired())
try:
    get_device_list()           # the 2nd counted call of a failing one
    print('ok')
except Exception as ex:
    print(type(ex).__name__, ex.func)
print(fi.fi_calls(None) >= 2, fi.fi_fired())
'''


def test_counting_only_calls_from_pyverbs(shim):
    """Counting is per call site: libibverbs called through ctypes (or by
    librdmacm) is not pyverbs and is neither counted nor failed; a global
    count ('*') skips functions that cannot fail."""
    r = run_py(shim, COUNTING % shim)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        '0 None', '1 None', 'PyverbsRDMAError ibv_get_device_list',
        "True b'ibv_get_device_list'"], r.stdout


# ----------------------------------------------------------------- device

def run_scenario(shim, scenario, dev_name, gid_index, tmp_path, only=(),
                 timeout=540, **env):
    """fault_scenario.py's JSON lines for scenario (only: its FUNCs), the
    shim preloaded, env added to the environment; its output kept in
    tmp_path."""
    env = dict(os.environ, LD_PRELOAD=preload(shim), PYTHONPATH=SRC, **env)
    r = subprocess.run([sys.executable,
                        os.path.join(FAKES, 'fault_scenario.py'), shim,
                        scenario, dev_name, str(gid_index), *only], env=env,
                       capture_output=True, text=True, timeout=timeout)
    (tmp_path / f'{scenario}.out').write_text(r.stdout + r.stderr)
    assert r.returncode == 0, (r.stdout + r.stderr)[-3000:]
    return [json.loads(x) for x in r.stdout.splitlines() if x]


def sweep(shim, scenario, dev_name, gid_index, tmp_path):
    lines = run_scenario(shim, scenario, dev_name, gid_index, tmp_path)
    summary = lines[-1]['summary']
    bad = [x for x in lines if x.get('bad')]
    assert not bad, json.dumps(bad[:10], indent=1)
    return lines[0]['baseline'], summary


@pytest.mark.device
def test_sweep_sees_a_leak(shim, dev_name, gid_index, tmp_path):
    """The heap check of the sweeps can fail: a run that keeps 64 bytes
    each time its fault fires (FAULT_SCENARIO_LEAK) is reported."""
    if not sys.getallocatedblocks():
        # PYTHONMALLOC=malloc (the sanitizers' runs): Python counts no
        # blocks, and the sweeps' heap check sees nothing to compare
        pytest.skip('the interpreter counts no allocated blocks '
                    '(PYTHONMALLOC=malloc): no heap check to prove')
    lines = run_scenario(shim, 'verbs', dev_name, gid_index, tmp_path,
                         only=('ibv_open_device',), timeout=300,
                         FAULT_SCENARIO_LEAK='ibv_open_device')
    cases = [x for x in lines if x.get('case') == 'ibv_open_device']
    assert cases and all(any('the heap grew' in b for b in x['bad'])
                         for x in cases), cases
    assert lines[-1]['summary']['blocks_growth'], lines[-1]


def newer_calls():
    """The calls newer than rdma-core 44 that the build makes and the
    verbs scenario reaches (on rxe: DMAHandle and the counters refused by
    libibverbs, after the call)."""
    from pyverbs import _verbs
    out = ()
    if _verbs._HAVE_REG_MR_EX:
        out += ('ibv_reg_mr_ex', 'ibv_alloc_dmah')
    if _verbs._HAVE_BUF:
        out += ('ibv_alloc_buf', 'ibv_reg_buf_mr')
    if _verbs._HAVE_BUF_DMABUF_FD:
        out += ('ibv_export_buf_dmabuf_fd',)
    if _verbs._HAVE_COMP_CNTR:
        out += ('_ibv_query_comp_cntr_caps', 'ibv_create_comp_cntr')
    return out


@pytest.mark.device
def test_sweep_verbs(shim, dev_name, gid_index, tmp_path):
    base, summary = sweep(shim, 'verbs', dev_name, gid_index, tmp_path)
    for f in ('ibv_open_device', 'ibv_alloc_pd', 'ibv_reg_mr_iova2',
              'ibv_create_cq', 'ibv_create_comp_channel', 'ibv_create_srq',
              'ibv_create_qp', 'ibv_qp_to_qp_ex', 'ibv_modify_qp',
              'ibv_create_ah', 'ibv_create_ah_from_wc', 'ibv_get_cq_event',
              'ibv_destroy_qp', 'ibv_close_device') + newer_calls():
        assert f in summary['functions'], f
    assert summary['cases'] >= sum(
        c for f, c in base.items() if f in summary['functions'])


@pytest.mark.device
def test_sweep_cm(shim, dev_name, gid_index, tmp_path, accept_local):
    base, summary = sweep(shim, 'cm', dev_name, gid_index, tmp_path)
    for f in ('rdma_create_event_channel', 'rdma_create_id',
              'rdma_bind_addr', 'rdma_listen', 'rdma_resolve_addr',
              'rdma_resolve_route', 'rdma_create_qp', 'rdma_connect',
              'rdma_accept', 'rdma_reject', 'rdma_disconnect',
              'rdma_get_cm_event', 'rdma_ack_cm_event', 'rdma_getaddrinfo',
              'rdma_create_ep', 'rdma_destroy_id'):
        assert f in summary['functions'], f
