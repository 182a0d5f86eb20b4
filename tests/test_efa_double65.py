# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The efadv calls of rdma-core 65's pyverbs verified without EFA hardware:
the efa recording double (tests/fakes/efa_double.c and its part
efa_double_65.c, LD_PRELOAD) stands in for libefa over real rxe objects
and logs every call.

- tests/fakes/efa_scenario65.py (upstream 65's API only) prints and logs
  what tests/fakes/efa_scenario65.golden-<release> says for this build's
  rdma-core (a part whose call the build lacks prints the error naming the
  version and reaches no library);
- in the Debian sid guest (pyverbs-c built against rdma-core 65, Debian's
  python3-pyverbs 65 installed) the scenario run by the reference must
  print the same lines and hand the double the same calls;
- the misuse on which upstream calls through NULL (processing hints on a
  QP without EFADV_WR_EX_WITH_PROCESSING_HINTS, is_unsolicited on a CQ
  without EFADV_WC_EX_WITH_IS_UNSOLICITED), or builds outside a batch or a
  poll, raises with ours and never reaches the double.

Run in the sid guest as tests/test_mlx5_double65.py says.
"""
import os

import pytest

import doubles
from pyverbs import _verbs
from test_mlx5_double65 import golden_for, reference65

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, 'fakes', 'efa_scenario65.py')

pytestmark = [pytest.mark.device,
              pytest.mark.skipif(not getattr(_verbs, '_HAVE_EFA', 0),
                                 reason='built without libefa')]


@pytest.fixture(scope='module')
def double(tmp_path_factory):
    return doubles.build(tmp_path_factory, 'efa_double')


def run(double, dev, args, tmp_path, **kw):
    return doubles.run(double, 'PVFAKE_EFA_DEVICES', dev, args, tmp_path,
                       **kw)


def normalize(log):
    """The log without what legitimately differs between bindings:
    upstream asks for the efadv_qp once when the QP is made, pyverbs-c on
    each wr_set_processing_hints()."""
    return [ln for ln in log.splitlines()
            if not ln.startswith('efadv_qp_from_ibv_qp_ex ')]


def test_scenario_as_expected(double, dev_name, gid_index, tmp_path):
    r, log = run(double, dev_name, [SCENARIO, dev_name, str(gid_index)],
                 tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr + log
    assert 'FATAL' not in log
    out, _, calls = golden_for('efa_scenario65').partition('----\n')
    assert r.stdout == out
    assert normalize(log) == normalize(calls)


def test_scenario_same_as_the_reference(double, dev_name, gid_index,
                                        tmp_path):
    ref = reference65()
    if not ref:
        pytest.skip("Debian's python3-pyverbs 65 is not installed here "
                    '(the sid guest has it)')
    args = [SCENARIO, dev_name, str(gid_index)]
    ours, ours_log = run(double, dev_name, args, tmp_path)
    theirs, their_log = run(double, dev_name, args, tmp_path, python=ref,
                            pythonpath=os.devnull, name='ref.log')
    assert theirs.returncode == 0, theirs.stderr + their_log
    assert ours.returncode == 0, ours.stderr + ours_log
    assert ours.stdout == theirs.stdout
    assert normalize(ours_log) == normalize(their_log)


MISUSE = r'''
import sys
import pyverbs.enums as e
from pyverbs.cq import CqInitAttrEx, PollCqAttr
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.qp import QPCap, QPInitAttrEx
from pyverbs.providers.efa.efadv import (EfaContext, EfaCQ, EfaDVCQInitAttr,
                                         EfaQPInitAttr, SRDQPEx)


def case(label, fn):
    try:
        fn()
        print(label, 'NO EXCEPTION')
    except PyverbsRDMAError as ex:        # a build older than the call
        print(label, 'needs' if 'needs rdma-core' in str(ex) else
              'PyverbsRDMAError')
    except PyverbsUserError:
        print(label, 'refused')


ctx = EfaContext(name=sys.argv[1])
pd = PD(ctx)
cq = EfaCQ(ctx, CqInitAttrEx(), EfaDVCQInitAttr(1))       # SGID only
qp = SRDQPEx(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_DRIVER, scq=cq, rcq=cq,
                               pd=pd, cap=QPCap(max_send_wr=2, max_recv_wr=2),
                               comp_mask=e.IBV_QP_INIT_ATTR_PD |
                               e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
                               send_ops_flags=e.IBV_QP_EX_WITH_SEND),
             EfaQPInitAttr())                               # no wr_flags
case('hints outside a batch', lambda: qp.wr_set_processing_hints(1))
qp.wr_start()
case('hints without the flag', lambda: qp.wr_set_processing_hints(1))
qp.wr_abort()
case('unsolicited outside a poll', cq.is_unsolicited)
print('empty poll', cq.start_poll(PollCqAttr()))
case('unsolicited after an empty poll', cq.is_unsolicited)
qp.close()
case('hints on a closed QP', lambda: qp.wr_set_processing_hints(1))
ctx.close()
case('unsolicited on a closed CQ', cq.is_unsolicited)
print('done')
'''


def test_misuse_raises_and_never_reaches_libefa(double, dev_name, tmp_path):
    r, log = run(double, dev_name, ['-c', MISUSE, dev_name], tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr + log
    out = r.stdout.splitlines()
    assert 'NO EXCEPTION' not in r.stdout
    assert r.stdout.endswith('done\n')
    closed = ['hints on a closed QP refused', 'unsolicited on a closed CQ '
              'refused']
    if doubles.rdma_core_version() >= 64:
        assert out == [
            'hints outside a batch refused', 'hints without the flag refused',
            'unsolicited outside a poll refused', 'empty poll 2',
            'unsolicited after an empty poll refused'] + closed + ['done']
    else:   # built against 44: the calls raise the error naming 52 / 64
        assert out[:3] == ['hints outside a batch needs',
                           'hints without the flag needs',
                           'unsolicited outside a poll needs']
        assert out[-3:] == closed + ['done']
    assert 'wr_set_processing_hints' not in log
    assert 'wc_is_unsolicited' not in log
    assert 'FATAL' not in log
