# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Mlx5QP's builders beyond the golden scenario, under the recording double
(tests/fakes/mlx5_double.c; see test_mlx5_double.py), pyverbs-c only:
what each builder hands libmlx5 (exact values, inside the batch), the DC
transition masks of a DCT, the batch's hold on its mkeys and AHs (a closed
one aborts the batch and never reaches libmlx5), cross-Context objects,
raw WQEs at unreadable addresses, and closing the PD under a QP and an
mkey.
"""
import os

import pytest

from test_mlx5_double import double, run_under_double  # noqa: F401

SCENARIO = r'''
import ctypes
import struct
import sys
import pyverbs.enums as e
import pyverbs.providers.mlx5.mlx5_enums as dve
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.pd import PD
from pyverbs.providers.mlx5 import mlx5dv
from pyverbs.providers.mlx5.mlx5dv import (Mlx5Context, Mlx5DVContextAttr,
                                           Mlx5DVDCInitAttr,
                                           Mlx5DVQPInitAttr, Mlx5QP,
                                           Mlx5DCIStreamInitAttr)
from pyverbs.providers.mlx5.mlx5dv_mkey import (
    Mlx5Mkey, Mlx5MkeyConfAttr, Mlx5SigBlockAttr, Mlx5SigBlockDomain,
    Mlx5SigCrc, Mlx5SigT10Dif)
from pyverbs.providers.mlx5.mlx5dv_crypto import Mlx5CryptoAttr
from pyverbs.providers.mlx5.mlx5dv_sched import (
    Mlx5dvSchedAttr, Mlx5dvSchedLeaf, Mlx5dvSchedNode)
from pyverbs.qp import QPAttr, QPCap, QPInitAttrEx
from pyverbs.wr import SGE

dev, gid_index = sys.argv[1], int(sys.argv[2])


def open_ctx():
    return Mlx5Context(Mlx5DVContextAttr(), name=dev)


def case(name, fn):
    try:
        r = fn()
        print(name, 'ok', r, flush=True)
    except Exception as ex:
        print(name, type(ex).__name__, flush=True)


ctx = open_ctx()
ctx2 = open_ctx()
pd, pd2 = PD(ctx), PD(ctx2)
cq = CQ(ctx, 16)
comp = e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
ops = (dve.MLX5DV_QP_EX_WITH_MKEY_CONFIGURE | dve.MLX5DV_QP_EX_WITH_RAW_WQE |
       dve.MLX5DV_QP_EX_WITH_MEMCPY)
rc = Mlx5QP(ctx, QPInitAttrEx(
    cap=QPCap(max_send_wr=8, max_recv_wr=8, max_inline_data=512), pd=pd,
    scq=cq, rcq=cq, qp_type=e.IBV_QPT_RC, comp_mask=comp,
    send_ops_flags=e.IBV_QP_EX_WITH_SEND), Mlx5DVQPInitAttr(
    comp_mask=dve.MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
    send_ops_flags=ops))
mkey = Mlx5Mkey(pd, dve.MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 5)
other = Mlx5Mkey(pd2, dve.MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 4)
print('max_entries', mkey.max_entries, flush=True)

# a signature block: the domains and signatures are copied for the call
sig = Mlx5SigBlockAttr(mem=Mlx5SigBlockDomain(
    sig_type=1, dif=Mlx5SigT10Dif(bg_type=1, app_tag=2)),
    wire=None, flags=1, check_mask=0xc0, copy_mask=0x30)
rc.wr_start()
rc.wr_flags = e.IBV_SEND_INLINE
rc.wr_mkey_configure(mkey, 3, Mlx5MkeyConfAttr(conf_flags=1, comp_mask=0))
rc.wr_set_mkey_access_flags(e.IBV_ACCESS_LOCAL_WRITE)
rc.wr_set_mkey_sig_block(sig)
rc.wr_set_mkey_crypto(Mlx5CryptoAttr(encrypt_on_tx=True, data_unit_size=1))
case('crypto', lambda: rc.wr_set_mkey_crypto(None))
rc.wr_memcpy(0x11, 0x2000, 0x22, 0x3000, 4096)
wqe = ctypes.create_string_buffer(64)
struct.pack_into('>II', wqe, 0, 0x01020304, (0x1234 << 8) | 3)


class Wqe:
    address = ctypes.addressof(wqe)


class BadWqe:
    address = 16


rc.wr_raw_wqe(Wqe())
rc.wr_raw_wqe(mlx5dv.Wqe([mlx5dv.WqeCtrlSeg(opcode=0xa, qp_num=0x12, ds=2),
                          mlx5dv.WqeDataSeg(8, 0x77, 0x1000)]))
case('raw_bad_address', lambda: rc.wr_raw_wqe(BadWqe()))
case('mkey_of_other_ctx', lambda: rc.wr_mkey_configure(
    other, 1, Mlx5MkeyConfAttr()))
case('num_setters_256', lambda: rc.wr_mkey_configure(
    mkey, 256, Mlx5MkeyConfAttr()))
rc.wr_abort()
case('cancel', lambda: rc.cancel_posted_send_wrs(7))

# scheduling elements: libmlx5 (the real one) refuses the rxe QP, after
# ours checked the leaves
leaf = Mlx5dvSchedLeaf(ctx, Mlx5dvSchedAttr(Mlx5dvSchedNode(
    ctx, Mlx5dvSchedAttr())))
leaf2 = Mlx5dvSchedLeaf(ctx2, Mlx5dvSchedAttr(Mlx5dvSchedNode(
    ctx2, Mlx5dvSchedAttr())))
case('sched_elem', lambda: Mlx5QP.modify_qp_sched_elem(rc, leaf, None))
case('sched_elem_other_ctx',
     lambda: Mlx5QP.modify_qp_sched_elem(rc, None, leaf2))
case('sched_elem_not_leaf', lambda: Mlx5QP.modify_qp_sched_elem(rc, 5))

# an mkey closed inside its batch: the batch is aborted, no setter runs
rc.wr_start()
rc.wr_mkey_configure(mkey, 2, Mlx5MkeyConfAttr())
case('close_pinned_mkey', mkey.close)
case('setter_after_close', lambda: rc.wr_set_mkey_access_flags(1))
case('in_batch_after', lambda: rc.wr_abort())

dci = Mlx5QP(ctx, QPInitAttrEx(
    cap=QPCap(max_send_wr=8, max_recv_wr=0, max_recv_sge=0), pd=pd, scq=cq,
    rcq=cq, qp_type=e.IBV_QPT_DRIVER, comp_mask=comp,
    send_ops_flags=e.IBV_QP_EX_WITH_RDMA_WRITE), Mlx5DVQPInitAttr(
    comp_mask=dve.MLX5DV_QP_INIT_ATTR_MASK_DC |
    dve.MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS,
    dc_init_attr=Mlx5DVDCInitAttr(dci_streams=Mlx5DCIStreamInitAttr(2, 1))))
gid = ctx.query_gid(1, gid_index)
ahattr = AHAttr(port_num=1, is_global=1, gr=GlobalRoute(
    dgid=gid, sgid_index=gid_index))
ah, ah2 = AH(pd, attr=ahattr), AH(pd2, attr=ahattr)
dci.wr_start()
dci.wr_rdma_write(0x1234, 0x2000)
dci.wr_set_dc_addr_stream(ah, 0x42, 0x99, 3)
case('ah_of_other_ctx', lambda: dci.wr_set_dc_addr(ah2, 1, 2))
case('mkey_on_dci', lambda: dci.wr_mr_list(other, 1, []))
ah.close()
case('complete_with_closed_ah', dci.wr_complete)
dci.close()

dct = Mlx5QP(ctx, QPInitAttrEx(
    cap=QPCap(max_send_wr=1, max_recv_wr=8), pd=pd, scq=cq, rcq=cq,
    qp_type=e.IBV_QPT_DRIVER, comp_mask=e.IBV_QP_INIT_ATTR_PD),
    Mlx5DVQPInitAttr(comp_mask=dve.MLX5DV_QP_INIT_ATTR_MASK_DC,
                     dc_init_attr=Mlx5DVDCInitAttr(
                         dc_type=dve.MLX5DV_DCTYPE_DCT,
                         dct_access_key=0xabc)))
attr = QPAttr(port_num=1)
dct.to_init(attr)
dct.to_rtr(attr)
case('dct_to_rts', lambda: dct.to_rts(attr))
case('dct_builder', lambda: dct.wr_start())

mkey2 = Mlx5Mkey(pd, dve.MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 1)
pd.close()          # closes its QPs and mkeys first
case('qp_after_pd_close', lambda: rc.qp_num)
case('mkey_after_pd_close', lambda: mkey2.lkey)
for o in (ah2, other, pd2, ctx2, cq, ctx):
    o.close()
print('done', flush=True)
'''

EXPECTED_OUT = '''max_entries 8
crypto TypeError
raw_bad_address PyverbsUserError
mkey_of_other_ctx PyverbsUserError
num_setters_256 OverflowError
cancel ok 0
sched_elem PyverbsRDMAError
sched_elem_other_ctx PyverbsUserError
sched_elem_not_leaf TypeError
close_pinned_mkey ok None
setter_after_close PyverbsUserError
in_batch_after PyverbsUserError
ah_of_other_ctx PyverbsUserError
mkey_on_dci PyverbsUserError
complete_with_closed_ah PyverbsUserError
dct_to_rts KeyError
dct_builder PyverbsUserError
qp_after_pd_close PyverbsUserError
mkey_after_pd_close PyverbsUserError
done
'''

# the double's log of SCENARIO ({zeros}: the raw WQE's zero bytes)
EXPECTED_LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            'fakes', 'mlx5qp_builders.expected')


def test_builders_and_batches(double, dev_name, gid_index,  # noqa: F811
                              tmp_path):
    from pyverbs import _verbs
    if not getattr(_verbs, '_HAVE_MLX5', 0):
        pytest.skip('pyverbs-c was built without libmlx5')
    r, log = run_under_double(double, dev_name, [
        '-c', SCENARIO, dev_name, str(gid_index)], tmp_path)
    assert r.returncode == 0, r.stderr + log
    assert r.stdout == EXPECTED_OUT, r.stdout
    lines = [line for line in log.splitlines()
             if not line.startswith(('mlx5dv_qp_ex_from_ibv_qp_ex ',
                                     'mlx5dv_sched_',
                                     'mlx5dv_is_supported ',
                                     'mlx5dv_open_device '))]
    with open(EXPECTED_LOG) as f:
        want = f.read().replace('{zeros}', '00' * 8).splitlines()
    assert lines == want, log

