# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Mlx5QP, its init attributes and pyverbs.providers.mlx5.mlx5dv_mkey
(providers/mlx5/qp.c, qp_attr.c, mkey.c).

Host: the attribute objects are built, read and printed as Debian's
python3-pyverbs 44 does (same snippet run by both), the union of the DC
init attributes included, and bad input raises.  Device (rxe in the VM):
on a non-mlx5 device libmlx5 refuses Mlx5QP, Mlx5Mkey and the static
helpers with EOPNOTSUPP, and ours must fail where and how the reference
does (compared with it in the same guest); the builders refuse objects
that are not Mlx5QPs.  What the builders hand libmlx5 is checked by
test_mlx5_double.py under the recording double.
"""
import pytest

import ref_compare

from pyverbs import _verbs

pytestmark = pytest.mark.skipif(not getattr(_verbs, '_HAVE_MLX5', 0),
                                reason='pyverbs-c was built without libmlx5')

ATTRS = r'''
from pyverbs.providers.mlx5.mlx5dv import (Mlx5DCIStreamInitAttr,
    Mlx5DVDCInitAttr, Mlx5DVQPInitAttr)
from pyverbs.providers.mlx5.mlx5dv_mkey import (Mlx5MkeyConfAttr,
    Mlx5MrInterleaved, Mlx5SigCrc, Mlx5SigT10Dif, Mlx5SigBlockDomain,
    Mlx5SigBlockAttr, Mlx5SigErr, Mlx5MkeyErr)
import pyverbs.providers.mlx5.mlx5_enums as dve

s = Mlx5DCIStreamInitAttr(3, 4)
show('streams str', lambda: str(s))
show('streams fields', lambda: (s.log_num_concurent, s.log_num_errored))
show('streams default', lambda: str(Mlx5DCIStreamInitAttr()))
def setc():
    s.log_num_concurent = 9
    return s.log_num_concurent
show('streams set', setc)
show('streams 256', lambda: Mlx5DCIStreamInitAttr(256))
show('streams -1', lambda: Mlx5DCIStreamInitAttr(0, -1))
show('streams str arg', lambda: Mlx5DCIStreamInitAttr('x'))

d = Mlx5DVDCInitAttr(dct_access_key=0x1234)
show('dc key str', lambda: str(d))
show('dc key streams', lambda: d.dci_streams)
d2 = Mlx5DVDCInitAttr(dc_type=dve.MLX5DV_DCTYPE_DCT, dct_access_key=0x0403,
                      dci_streams=s)
show('dc both str', lambda: str(d2))
show('dc both', lambda: (d2.dc_type, d2.dct_access_key, d2.dci_streams))
show('dc default', lambda: str(Mlx5DVDCInitAttr()))
show('dc key max', lambda: Mlx5DVDCInitAttr(
    dct_access_key=2**64 - 1).dci_streams)
show('dc key 2**64', lambda: Mlx5DVDCInitAttr(dct_access_key=2**64))
show('dc type 2**32', lambda: Mlx5DVDCInitAttr(dc_type=2**32))
show('dc streams int', lambda: Mlx5DVDCInitAttr(dci_streams=5))
show('dc streams dict', lambda: Mlx5DVDCInitAttr(
    dci_streams={'log_num_concurent': 1, 'log_num_errored': 2}))
def set_streams(o, v):
    def f():
        o.dci_streams = v
        return (o.dci_streams, o.dct_access_key)
    return f
show('dc set streams', set_streams(Mlx5DVDCInitAttr(dct_access_key=2**40),
                                   {'log_num_concurent': 1,
                                    'log_num_errored': 2}))
show('dc set streams extra', set_streams(
    Mlx5DVDCInitAttr(), {'log_num_concurent': 1, 'log_num_errored': 2,
                         'other': 3}))
show('dc set streams missing', set_streams(Mlx5DVDCInitAttr(),
                                           {'log_num_concurent': 1}))
show('dc set streams int', set_streams(Mlx5DVDCInitAttr(), 7))
show('dc set streams obj', set_streams(Mlx5DVDCInitAttr(), s))
show('dc set streams big', set_streams(
    Mlx5DVDCInitAttr(), {'log_num_concurent': 256, 'log_num_errored': 2}))

for mask in (0, dve.MLX5DV_QP_INIT_ATTR_MASK_DC |
             dve.MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS, 7, 15):
    for dc in (None, d, d2):
        q = Mlx5DVQPInitAttr(comp_mask=mask, create_flags=8 | 64,
                             dc_init_attr=dc, send_ops_flags=5)
        show(f'qp {mask} str', lambda: str(q))
        show(f'qp {mask} fields', lambda: (
            q.comp_mask, q.create_flags, q.send_ops_flags, q.dc_type,
            q.dct_access_key, q.dci_streams))
q = Mlx5DVQPInitAttr()
show('qp default', lambda: str(q))
def setq():
    q.comp_mask = 2**40
    q.create_flags = 2**31
    q.send_ops_flags = 2**63
    q.dc_type = 1
    q.dct_access_key = 0x0102
    return str(q)
show('qp set', setq)
show('qp comp 2**64', lambda: Mlx5DVQPInitAttr(comp_mask=2**64))
show('qp flags 2**32', lambda: Mlx5DVQPInitAttr(create_flags=2**32))
show('qp ops 2**64', lambda: Mlx5DVQPInitAttr(send_ops_flags=2**64))
show('qp ops -1', lambda: Mlx5DVQPInitAttr(send_ops_flags=-1))
show('qp dc int', lambda: Mlx5DVQPInitAttr(dc_init_attr=5))
show('qp dc streams', lambda: Mlx5DVQPInitAttr(dc_init_attr=s))
show('qp too many', lambda: Mlx5DVQPInitAttr(1, 2, None, 3, 4))

show('crc', lambda: Mlx5SigCrc(1, 2**64 - 1) is not None)
show('crc type 2**32', lambda: Mlx5SigCrc(2**32))
show('crc seed 2**64', lambda: Mlx5SigCrc(1, 2**64))
show('dif', lambda: Mlx5SigT10Dif(1, 2, 3, 4, 5) is not None)
show('dif bg 2**16', lambda: Mlx5SigT10Dif(bg=2**16))
show('dif ref 2**32', lambda: Mlx5SigT10Dif(ref_tag=2**32))
show('dif flags 2**16', lambda: Mlx5SigT10Dif(flags=2**16))
show('dom', lambda: Mlx5SigBlockDomain(1, Mlx5SigT10Dif(), Mlx5SigCrc(), 2,
                                       3) is not None)
show('dom bad dif', lambda: Mlx5SigBlockDomain(dif=Mlx5SigCrc()))
show('dom bad crc', lambda: Mlx5SigBlockDomain(crc=Mlx5SigT10Dif()))
show('dom size 2**32', lambda: Mlx5SigBlockDomain(block_size=2**32))
show('attr', lambda: Mlx5SigBlockAttr(Mlx5SigBlockDomain(), None, 1, 2, 3,
                                      4) is not None)
show('attr bad mem', lambda: Mlx5SigBlockAttr(mem=Mlx5SigCrc()))
show('attr check 256', lambda: Mlx5SigBlockAttr(check_mask=256))
show('attr copy 256', lambda: Mlx5SigBlockAttr(copy_mask=256))
e = Mlx5SigErr(2**64 - 1, 5, 7)
show('sig err', lambda: (e.actual_value, e.expected_value, e.offset))
show('sig err default', lambda: (Mlx5SigErr().offset,
                                  Mlx5SigErr().actual_value))
show('sig err 2**64', lambda: Mlx5SigErr(offset=2**64))
def ro():
    e.offset = 1
show('sig err ro', ro)
k = Mlx5MkeyErr(Mlx5SigErr(1, 2, 3), 1)
show('mkey err', lambda: (k.err_type, k.sig_err.actual_value,
                          k.sig_err.expected_value, k.sig_err.offset))
show('mkey err default', lambda: (Mlx5MkeyErr().err_type,
                                  Mlx5MkeyErr().sig_err.offset))
show('mkey err type 2**32', lambda: Mlx5MkeyErr(err_type=2**32))
show('mkey err type -1', lambda: Mlx5MkeyErr(err_type=-1))
show('mkey err bad sig', lambda: Mlx5MkeyErr(5))
show('conf', lambda: Mlx5MkeyConfAttr(1, 2**64 - 1) is not None)
show('conf flags 2**32', lambda: Mlx5MkeyConfAttr(2**32))
show('conf comp 2**64', lambda: Mlx5MkeyConfAttr(1, 2**64))
show('il', lambda: Mlx5MrInterleaved(2**64 - 1, 2**32 - 1, 0, 1) is not None)
show('il kw', lambda: Mlx5MrInterleaved(addr=1, bytes_count=2, bytes_skip=3,
                                        lkey=4) is not None)
show('il addr 2**64', lambda: Mlx5MrInterleaved(2**64, 1, 1, 1))
show('il count 2**32', lambda: Mlx5MrInterleaved(1, 2**32, 1, 1))
show('il skip 2**32', lambda: Mlx5MrInterleaved(1, 1, 2**32, 1))
show('il lkey 2**32', lambda: Mlx5MrInterleaved(1, 1, 1, 2**32))
show('il missing', lambda: Mlx5MrInterleaved(1, 1, 1))
show('public names', lambda: sorted(
    n for o in (Mlx5MrInterleaved(1, 2, 3, 4), Mlx5MkeyConfAttr(),
                Mlx5SigCrc(), Mlx5SigT10Dif(), Mlx5SigBlockDomain(),
                Mlx5SigBlockAttr(), Mlx5SigErr(), Mlx5MkeyErr(),
                Mlx5DVQPInitAttr(), Mlx5DVDCInitAttr(),
                Mlx5DCIStreamInitAttr())
    for n in dir(o) if not n.startswith('_') and
    n not in ('set_log_level', 'logger')))
'''


def test_attrs_as_the_reference():
    ours, theirs = ref_compare.run_both(ATTRS)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert o == t


def test_to_str_functions():
    from pyverbs.providers.mlx5 import mlx5dv
    import pyverbs.providers.mlx5.mlx5_enums as dve
    assert mlx5dv.dc_type_to_str(dve.MLX5DV_DCTYPE_DCT) == 'DCT'
    assert mlx5dv.dc_type_to_str(7) == 'Unknown DC type (7)'
    assert mlx5dv.qp_comp_mask_to_str(0) == ' (0)'
    assert mlx5dv.send_ops_flags_to_str(3) == \
        'With MR interleaved, With MR list (3)'
    assert mlx5dv.qp_create_flags_to_str(8) == 'Disable scatter to CQE (8)'


def test_sig_attrs_hold_their_parts():
    """Upstream keeps C pointers into dif/crc/mem/wire; ours holds them."""
    import gc
    import weakref
    from pyverbs.providers.mlx5.mlx5dv_mkey import (
        Mlx5SigBlockAttr, Mlx5SigBlockDomain, Mlx5SigCrc)
    class Crc(Mlx5SigCrc):      # weakly referencable
        pass
    crc = Crc(1, 2)
    ref = weakref.ref(crc)
    attr = Mlx5SigBlockAttr(mem=Mlx5SigBlockDomain(crc=crc))
    del crc
    gc.collect()
    assert ref() is not None
    del attr
    gc.collect()
    assert ref() is None


def test_mlx5qp_bad_arguments():
    from pyverbs.providers.mlx5.mlx5dv import Mlx5QP, Mlx5DVQPInitAttr
    from pyverbs.qp import QPInitAttrEx, QPInitAttr
    with pytest.raises(TypeError):
        Mlx5QP(None, QPInitAttrEx(), None)
    with pytest.raises(TypeError):
        Mlx5QP(None, QPInitAttrEx())      # dv_init_attr is required
    with pytest.raises(TypeError):
        Mlx5QP(5, QPInitAttrEx(), Mlx5DVQPInitAttr())
    # a Context is checked first, so this needs no device
    q = Mlx5QP.__new__(Mlx5QP)
    with pytest.raises(TypeError):
        q.__init__(QPInitAttr(), QPInitAttrEx(), None)
    for meth, args in (('wr_mr_list', (None, 0, [])),
                       ('wr_set_dc_addr', (None, 1, 2)),
                       ('wr_memcpy', (1, 2, 3, 4, 5)),
                       ('cancel_posted_send_wrs', (1,))):
        with pytest.raises(Exception) as ei:
            getattr(q, meth)(*args)
        assert type(ei.value).__name__ in ('PyverbsUserError', 'TypeError')
    for static, args in (('query_lag_port', (None,)),
                         ('modify_lag_port', (None, 1)),
                         ('modify_udp_sport', (None, 1)),
                         ('modify_dci_stream_channel_id', (None, 1)),
                         ('modify_qp_sched_elem', (None,)),
                         ('map_ah_to_qp', (None, 1))):
        with pytest.raises(TypeError):
            getattr(Mlx5QP, static)(*args)


def test_mkey_bad_arguments():
    from pyverbs.providers.mlx5.mlx5dv_mkey import Mlx5Mkey
    with pytest.raises(TypeError):
        Mlx5Mkey(None, 1, 3)
    with pytest.raises(TypeError):
        Mlx5Mkey(5, 1, 3)
    k = Mlx5Mkey.__new__(Mlx5Mkey)
    with pytest.raises(Exception) as ei:
        k.mkey_check()
    assert type(ei.value).__name__ == 'PyverbsUserError'
    with pytest.raises(Exception):
        k.lkey
    k.close()


# ---------------------------------------------------------------- device

ON_RXE = r'''
import sys
import pyverbs.enums as e
import pyverbs.providers.mlx5.mlx5_enums as dve
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr, QPInitAttrEx, QPAttr
from pyverbs.providers.mlx5.mlx5dv import (Mlx5QP, Mlx5DVQPInitAttr,
                                           Mlx5DVDCInitAttr)
from pyverbs.providers.mlx5.mlx5dv_mkey import Mlx5Mkey


def show2(label, fn):
    try:
        r = fn()
        print(label, 'ok', r, flush=True)
    except Exception as ex:
        print(label, type(ex).__name__, str(ex).replace('\n', '|'),
              getattr(ex, 'error_code', None), flush=True)


ctx = Context(name=DEV)
pd = PD(ctx)
cq = CQ(ctx, 16)
comp = e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS


def ia(qpt=e.IBV_QPT_RC, mask=comp):
    return QPInitAttrEx(cap=QPCap(8, 8, 1, 1, 0), pd=pd, scq=cq, rcq=cq,
                        qp_type=qpt, comp_mask=mask,
                        send_ops_flags=e.IBV_QP_EX_WITH_SEND)


show2('rc mr_list', lambda: Mlx5QP(ctx, ia(), Mlx5DVQPInitAttr(
    comp_mask=dve.MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
    send_ops_flags=dve.MLX5DV_QP_EX_WITH_MR_LIST)))
show2('dci', lambda: Mlx5QP(ctx, ia(e.IBV_QPT_DRIVER), Mlx5DVQPInitAttr(
    comp_mask=dve.MLX5DV_QP_INIT_ATTR_MASK_DC,
    dc_init_attr=Mlx5DVDCInitAttr())))
show2('rc none', lambda: Mlx5QP(ctx, ia(mask=e.IBV_QP_INIT_ATTR_PD), None))
show2('mkey', lambda: Mlx5Mkey(pd, dve.MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT,
                               3))
qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                       cap=QPCap(8, 8, 1, 1)))
qpn = qp.qp_num
gid = ctx.query_gid(1, GID)
ah = AH(pd, attr=AHAttr(port_num=1, is_global=1,
                        gr=GlobalRoute(dgid=gid, sgid_index=GID)))
fix = lambda s: s.replace(str(qpn), 'QPN')
for name, fn in (('query_lag_port', lambda: Mlx5QP.query_lag_port(qp)),
                 ('modify_lag_port', lambda: Mlx5QP.modify_lag_port(qp, 1)),
                 ('modify_udp_sport',
                  lambda: Mlx5QP.modify_udp_sport(qp, 1234)),
                 ('modify_dci_stream_channel_id',
                  lambda: Mlx5QP.modify_dci_stream_channel_id(qp, 1)),
                 ('modify_qp_sched_elem',
                  lambda: Mlx5QP.modify_qp_sched_elem(qp)),
                 ('map_ah_to_qp', lambda: Mlx5QP.map_ah_to_qp(ah, qpn))):
    try:
        fn()
        print(name, 'ok', flush=True)
    except Exception as ex:
        print(name, type(ex).__name__, fix(str(ex)),
              getattr(ex, 'error_code', None), flush=True)
for o in (ah, qp, cq, pd, ctx):
    o.close()
print('done', flush=True)
'''


def test_on_rxe_as_the_reference(dev_name, gid_index):
    """Everything fails on rxe, where and how the reference fails."""
    ours, theirs = ref_compare.run_both(
        f'DEV = {dev_name!r}\nGID = {gid_index}\n' + ON_RXE)
    assert ours == theirs
    assert ours[-1] == 'done'
    assert ours[0].startswith('rc mr_list PyverbsRDMAError Failed to create '
                              'MLX5 QP.|QPInitAttrEx attributes:|')
    assert ours[0].endswith(' 95')


def test_builders_refuse_other_qps(ctx, pd):
    """A plain QPEx (libmlx5's mlx5dv_qp_ex_from_ibv_qp_ex would take any
    ibv_qp_ex and return garbage) is never accepted as an Mlx5QP."""
    import pyverbs.enums as e
    from pyverbs.cq import CQ
    from pyverbs.qp import QPCap, QPEx, QPInitAttrEx
    from pyverbs.providers.mlx5.mlx5dv import Mlx5QP
    cq = CQ(ctx, 8)
    qp = QPEx(ctx, QPInitAttrEx(
        cap=QPCap(4, 4, 1, 1), pd=pd, scq=cq, rcq=cq, qp_type=e.IBV_QPT_RC,
        comp_mask=e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
        send_ops_flags=e.IBV_QP_EX_WITH_SEND))
    qp.wr_start()
    try:
        for meth, args in (('wr_mr_list', (None, 0, [])),
                           ('wr_set_dc_addr', (None, 1, 2)),
                           ('wr_memcpy', (1, 2, 3, 4, 5)),
                           ('wr_set_mkey_access_flags', (1,)),
                           ('cancel_posted_send_wrs', (1,))):
            with pytest.raises(TypeError):
                getattr(Mlx5QP, meth)(qp, *args)
    finally:
        qp.wr_abort()
    # the static helpers take any QP: rxe refuses them (EOPNOTSUPP)
    with pytest.raises(Exception) as ei:
        Mlx5QP.modify_udp_sport(qp, 1)
    assert getattr(ei.value, 'error_code', None) == 95
    qp.close()
    with pytest.raises(Exception) as ei:
        Mlx5QP.modify_udp_sport(qp, 1)
    assert type(ei.value).__name__ == 'PyverbsUserError'
    cq.close()
