# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The mlx5 QP builders verified without mlx5 hardware: the recording double
(tests/fakes/mlx5_double.c, LD_PRELOAD) stands in for libmlx5 over real rxe
objects and logs every call it receives.

- tests/fakes/mlx5_scenario.py (upstream's API only) must produce, with
  pyverbs-c, the log that Debian's python3-pyverbs 44 produces
  (tests/fakes/mlx5_scenario.golden, recorded from it; re-checked against
  the reference whenever it is unpacked here);
- the misuse cases on which upstream crashes (MLX5.md 4.5: a builder libmlx5
  did not install, a QP without the send-ops API, a closed mkey, a builder
  outside wr_start, list items of the wrong type, counts out of range) must
  raise with ours, and reach the double not at all (it aborts on anything
  it did not make).

This shows that pyverbs-c hands libmlx5 what upstream hands it and never
crashes; only mlx5 hardware can show what the device does with it.
"""
import os

import pytest

import doubles
import ref_compare

HERE = os.path.dirname(os.path.abspath(__file__))
FAKES = os.path.join(HERE, 'fakes')
GOLDEN = os.path.join(FAKES, 'mlx5_scenario.golden')


@pytest.fixture(scope='module')
def double(tmp_path_factory):
    return doubles.build(tmp_path_factory, 'mlx5_double')


def normalize(log):
    """The log without what legitimately differs between bindings: upstream
    asks for the mlx5dv_qp_ex on every builder call, pyverbs-c once."""
    return [line for line in log.splitlines()
            if not line.startswith('mlx5dv_qp_ex_from_ibv_qp_ex ')]


def run_under_double(double, dev, args, tmp_path, **kw):
    return doubles.run(double, 'PVFAKE_MLX5_DEVICES', dev, args, tmp_path, **kw)


def _need_ours():
    """The ours-side runs need pyverbs-c's Mlx5Context and Mlx5QP (issue 9);
    while they are placeholders only the reference side can run."""
    from pyverbs._unimplemented import _PlaceholderType
    from pyverbs.providers.mlx5 import mlx5dv
    for name in ('Mlx5Context', 'Mlx5QP'):
        if isinstance(getattr(mlx5dv, name), _PlaceholderType):
            pytest.skip(f'pyverbs-c\'s {name} is still a placeholder')


def _scenario(double, dev, gid_index, tmp_path, **kw):
    r, log = run_under_double(double, dev, [
        os.path.join(FAKES, 'mlx5_scenario.py'), dev, str(gid_index)],
        tmp_path, **kw)
    assert r.returncode == 0, r.stderr + log
    assert r.stdout == 'max_entries 4\ndone\n'
    return normalize(log)


def test_scenario_same_calls_as_the_reference(double, dev_name, gid_index,
                                              tmp_path):
    _need_ours()
    ours = _scenario(double, dev_name, gid_index, tmp_path)
    with open(GOLDEN) as f:
        golden = f.read().splitlines()
    assert ours == golden


def test_golden_log_is_the_references(double, dev_name, gid_index,
                                      tmp_path):
    ref = ref_compare.reference_path()
    if not (os.path.exists(ref_compare.REFERENCE_PYTHON) and
            os.path.isdir(os.path.join(ref, 'pyverbs'))):
        pytest.skip('the reference pyverbs is not unpacked '
                    '(tools/fetch-reference)')
    theirs = _scenario(double, dev_name, gid_index, tmp_path,
                       python=ref_compare.REFERENCE_PYTHON, pythonpath=ref)
    with open(GOLDEN) as f:
        assert theirs == f.read().splitlines()


MISUSE = r'''
import sys
import pyverbs.enums as e
import pyverbs.providers.mlx5.mlx5_enums as dve
from pyverbs.cq import CQ
from pyverbs.pd import PD
from pyverbs.providers.mlx5.mlx5dv import (Mlx5Context, Mlx5DVContextAttr,
                                           Mlx5DVQPInitAttr, Mlx5QP)
from pyverbs.providers.mlx5.mlx5dv_mkey import Mlx5Mkey, Mlx5MrInterleaved
from pyverbs.qp import QPCap, QPInitAttrEx
from pyverbs.wr import SGE

ctx = Mlx5Context(Mlx5DVContextAttr(), name=sys.argv[1])
pd, cq = PD(ctx), CQ(ctx, 16)
comp = e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS


def qp(mlx5_ops, comp_mask=comp):
    return Mlx5QP(ctx, QPInitAttrEx(
        cap=QPCap(max_send_wr=8, max_recv_wr=8), pd=pd, scq=cq, rcq=cq,
        qp_type=e.IBV_QPT_RC, comp_mask=comp_mask,
        send_ops_flags=e.IBV_QP_EX_WITH_SEND), Mlx5DVQPInitAttr(
        comp_mask=dve.MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
        send_ops_flags=mlx5_ops))


def case(name, fn):
    try:
        fn()
        print(name, 'NO EXCEPTION', flush=True)
    except Exception as ex:
        print(name, type(ex).__name__, flush=True)


lst = dve.MLX5DV_QP_EX_WITH_MR_LIST
inter = dve.MLX5DV_QP_EX_WITH_MR_INTERLEAVED
rc = qp(lst | inter)
plain = qp(lst, comp_mask=e.IBV_QP_INIT_ATTR_PD)     # no send-ops API
mkey = Mlx5Mkey(pd, dve.MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 4)
dead = Mlx5Mkey(pd, dve.MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 4)
dead.close()
sges = [SGE(0x1000, 8, 0x77)]
layout = [Mlx5MrInterleaved(0x1000, 8, 2, 0x77)]
access = e.IBV_ACCESS_LOCAL_WRITE


def in_batch(q, fn):
    def run():
        q.wr_start()
        try:
            fn()
        finally:
            q.wr_abort()
    return run


case('outside_wr_start', lambda: rc.wr_mr_list(mkey, access, sges))
case('not_installed_dc_addr', in_batch(
    rc, lambda: rc.wr_set_dc_addr(None, 1, 2)))
case('not_installed_memcpy', in_batch(
    rc, lambda: rc.wr_memcpy(1, 0x1000, 2, 0x2000, 8)))
case('not_installed_mkey_configure', in_batch(
    rc, lambda: rc.wr_set_mkey_access_flags(access)))
case('no_qp_ex', lambda: plain.wr_mr_list(mkey, access, sges))
case('closed_mkey', in_batch(rc, lambda: rc.wr_mr_list(dead, access, sges)))
case('none_mkey', in_batch(rc, lambda: rc.wr_mr_list(None, access, sges)))
case('sge_in_layout', in_batch(
    rc, lambda: rc.wr_mr_interleaved(mkey, access, 1, sges)))
case('layout_in_sges', in_batch(
    rc, lambda: rc.wr_mr_list(mkey, access, layout)))
case('not_a_list', in_batch(rc, lambda: rc.wr_mr_list(mkey, access, 5)))
case('too_many_sges', in_batch(
    rc, lambda: rc.wr_mr_list(mkey, access, sges * 65536)))
case('repeat_out_of_range', in_batch(
    rc, lambda: rc.wr_mr_interleaved(mkey, access, 2**32, layout)))
case('access_out_of_range', in_batch(
    rc, lambda: rc.wr_mr_list(mkey, 2**32, sges)))
rc.close()
case('closed_qp', lambda: rc.wr_mr_list(mkey, access, sges))
for o in (plain, mkey, cq, pd, ctx):
    o.close()
print('done', flush=True)
'''

MISUSE_CASES = ['outside_wr_start', 'not_installed_dc_addr',
                'not_installed_memcpy', 'not_installed_mkey_configure',
                'no_qp_ex', 'closed_mkey', 'none_mkey', 'sge_in_layout',
                'layout_in_sges', 'not_a_list', 'too_many_sges',
                'repeat_out_of_range', 'access_out_of_range', 'closed_qp']


def test_misuse_raises_and_never_reaches_libmlx5(double, dev_name,
                                                 tmp_path):
    _need_ours()
    r, log = run_under_double(double, dev_name, ['-c', MISUSE, dev_name],
                              tmp_path)
    assert r.returncode == 0, r.stderr + log
    out = dict(line.split(' ', 1) for line in r.stdout.splitlines()
               if ' ' in line)
    assert set(out) == set(MISUSE_CASES), r.stdout
    assert 'NO EXCEPTION' not in out.values(), r.stdout
    builders = [line for line in log.splitlines()
                if line.startswith(('wr_mr', 'wr_set_dc', 'wr_memcpy',
                                    'wr_set_mkey', 'wr_mkey', 'FATAL'))]
    assert builders == [], log
