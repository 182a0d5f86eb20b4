# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The efadv objects verified without EFA hardware: the recording double
(tests/fakes/efa_double.c, LD_PRELOAD) stands in for libefa over real rxe
objects (an SRD QP is an rxe UD QP underneath) and logs every call.

- tests/fakes/efa_scenario.py (upstream's API only: EfaContext and EfaAH
  queries, SRDQP, SRDQPEx through its SRD transitions, a send to itself
  through the ibv_wr_* API, EfaCQ polled with read_sgid) must print, with
  pyverbs-c, what it prints with the reference, and hand libefa the same
  calls (the double's log);
- the misuse on which upstream crashes (read_sgid on a CQ without
  EFADV_WC_EX_WITH_SGID: a call through NULL; outside a poll: a stale CQE)
  must raise with ours and reach the double not at all.

This shows that pyverbs-c hands libefa what upstream hands it, that the
core's creation hooks create, link and close the provider objects, and
that read_sgid is safe; only EFA hardware can show what the device does.
"""
import os

import pytest

import doubles
import ref_compare
from pyverbs import _verbs

HERE = os.path.dirname(os.path.abspath(__file__))
FAKES = os.path.join(HERE, 'fakes')

pytestmark = [pytest.mark.device,
              pytest.mark.skipif(not getattr(_verbs, '_HAVE_EFA', 0),
                                 reason='built without libefa')]


@pytest.fixture(scope='module')
def double(tmp_path_factory):
    return doubles.build(tmp_path_factory, 'efa_double')


def run_under_double(double, dev, args, tmp_path, **kw):
    return doubles.run(double, 'PVFAKE_EFA_DEVICES', dev, args, tmp_path, **kw)


def _scenario(double, dev, gid_index, tmp_path, **kw):
    r, log = run_under_double(double, dev, [
        os.path.join(FAKES, 'efa_scenario.py'), dev, str(gid_index)],
        tmp_path, **kw)
    assert r.returncode == 0, r.stdout + r.stderr + log
    return r.stdout, log


def test_scenario_as_the_reference(double, dev_name, gid_index, tmp_path):
    out, log = _scenario(double, dev_name, gid_index, tmp_path)
    # what the double did for ours, whatever the reference does
    # 0x40: EFADV_DEVICE_ATTR_CAPS_COMP_CNTR, named from rdma-core 65 on
    assert 'Device Capabilities : RDMA Read, CQ entries with source GID, ' \
           'Completion Counters (45)' in out
    assert 'ahn                 : 4660' in out
    assert 'srdqp to_init KeyError' in out      # upstream's: no DRIVER masks
    assert 'srdqp bad type PyverbsRDMAError' in out
    assert 'srdqpex bad driver type PyverbsRDMAError' in out
    assert 'completion 1 (0, 48, None)' in out   # GRH + 8; odd: no SGID
    assert "completion 2 (0, 8, 'fe80:0000:0000:0000:0000:0000:0000:0002')" \
        in out                                          # even: a GID
    assert out.endswith('done\n')
    lines = log.splitlines()
    # the SRD masks: INIT PKEY_INDEX|PORT|QKEY, RTR none, RTS SQ_PSN
    assert [ln.split(' -> ')[0] for ln in lines
            if ln.startswith('ibv_modify_qp qp#2')] == [
        'ibv_modify_qp qp#2 state=1 mask=0x71 qkey=0x11111111',
        'ibv_modify_qp qp#2 state=2 mask=0x1 qkey=0x0',
        'ibv_modify_qp qp#2 state=3 mask=0x10001 qkey=0x0']
    assert 'efadv_query_device inlen=32' in lines
    assert 'efadv_query_ah inlen=16' in lines
    assert not any(ln.startswith('FATAL') for ln in lines)

    ref = ref_compare.reference_path()
    if not (os.path.exists(ref_compare.REFERENCE_PYTHON) and
            os.path.isdir(os.path.join(ref, 'pyverbs'))):
        pytest.skip('the reference pyverbs is not unpacked')
    ref_out, ref_log = _scenario(double, dev_name, gid_index, tmp_path,
                                 python=ref_compare.REFERENCE_PYTHON,
                                 pythonpath=ref, name='ref.log')
    # the reference (44) prints the bit rdma-core 65 names as unknown
    assert out.replace('Completion Counters', '??(40)') == ref_out
    assert lines == ref_log.splitlines()


MISUSE = r'''
import sys
import pyverbs.enums as e
import pyverbs.providers.efa.efa_enums as ee
from pyverbs.cq import CqInitAttrEx, PollCqAttr
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.qp import QPAttr, QPCap, QPInitAttrEx
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.providers.efa.efadv import (EfaContext, EfaCQ, EfaDVCQInitAttr,
                                         EfaQPInitAttr, SRDQPEx)
dev, other = sys.argv[1], sys.argv[2]


def refused(label, fn, exc=PyverbsUserError):
    try:
        fn()
    except exc as ex:
        print(label, 'refused', type(ex).__name__)
    else:
        print(label, 'NOT REFUSED')


ctx = EfaContext(name=dev)
plain = EfaCQ(ctx, CqInitAttrEx(), None)
sgid = EfaCQ(ctx, CqInitAttrEx(), EfaDVCQInitAttr(ee.EFADV_WC_EX_WITH_SGID))
refused('outside a poll', sgid.read_sgid)
print('empty poll', sgid.start_poll(PollCqAttr()))
refused('after an empty poll', sgid.read_sgid)
refused('no sgid flag', plain.read_sgid)
print('empty poll', plain.start_poll(PollCqAttr()))
refused('no sgid flag, polling', plain.read_sgid)
pd = PD(ctx)
qp = SRDQPEx(ctx, QPInitAttrEx(qp_type=e.IBV_QPT_DRIVER, scq=sgid, rcq=sgid,
                               pd=pd, comp_mask=e.IBV_QP_INIT_ATTR_PD,
                               cap=QPCap(max_send_wr=2, max_recv_wr=2)),
             EfaQPInitAttr())
print('qp parents', qp.pd is pd, qp.scq is sgid)
refused('wr api without send ops flags', qp.wr_start)
qp.to_init(QPAttr(qkey=1, port_num=1))  # ours only
print('qp state', qp.qp_state)
ctx.close()                       # closes the QP, then the CQs and the PD
print('closed', qp.closed, sgid.closed, plain.closed, pd.closed)
refused('closed', sgid.read_sgid)
# another device goes to the real libefa: not EFA, so 95 (no adoption)
with Context(name=other) as c:
    refused('real libefa', lambda: EfaCQ(c, CqInitAttrEx(), None),
            PyverbsRDMAError)
print('done')
'''


def test_misuse_raises_and_never_reaches_libefa(double, dev_names, tmp_path):
    dev = dev_names[0]
    other = dev_names[-1]
    if other == dev:
        pytest.skip('needs a second device, left to the real libefa')
    r, log = run_under_double(double, dev, ['-c', MISUSE, dev, other],
                              tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr + log
    assert 'NOT REFUSED' not in r.stdout
    assert r.stdout.count('refused') == 7
    assert 'qp parents True True' in r.stdout
    assert 'qp state 2' not in r.stdout and 'qp state 1' in r.stdout
    assert 'closed True True True True' in r.stdout
    assert r.stdout.endswith('done\n')
    assert 'wc_read_sgid' not in log
    assert 'FATAL' not in log
    # the QP went first, then the CQs, each once
    order = [ln.split(' -> ')[0] for ln in log.splitlines()
             if ln.startswith('ibv_destroy_')]
    assert order == ['ibv_destroy_qp qp#1', 'ibv_destroy_cq cq#2',
                     'ibv_destroy_cq cq#1']
