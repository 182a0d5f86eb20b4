# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""One mlx5 scenario written only against upstream pyverbs's API, run under
the recording double (tests/fakes/mlx5_double.c) by Debian's python3-pyverbs
and by pyverbs-c: both must hand libmlx5 the same calls.

    PVFAKE_MLX5_DEVICES=rxe0 PVFAKE_LOG=log LD_PRELOAD=libpvfake.so \\
        python3 mlx5_scenario.py rxe0 GID_INDEX

It covers: Mlx5Context; an RC Mlx5QP with mlx5 send ops and create flags;
Mlx5Mkey (max_entries read back); the man page's wr_mr_interleaved and
wr_mr_list, each in a batch; wr_mkey_configure with its setters; a DCI
Mlx5QP moved to RTS (DC transition masks); an AH and wr_set_dc_addr among
ibv_wr_* builders; closing everything.  Constant addresses and keys keep
the log the same from run to run.
"""
import sys

import pyverbs.enums as e
import pyverbs.providers.mlx5.mlx5_enums as dve
from pyverbs.addr import AH, AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.pd import PD
from pyverbs.providers.mlx5.mlx5dv import (Mlx5Context, Mlx5DVContextAttr,
                                           Mlx5DVDCInitAttr, Mlx5DVQPInitAttr,
                                           Mlx5QP)
from pyverbs.providers.mlx5.mlx5dv_mkey import (Mlx5Mkey, Mlx5MkeyConfAttr,
                                                Mlx5MrInterleaved)
from pyverbs.qp import QPAttr, QPCap, QPInitAttrEx
from pyverbs.wr import SGE

dev, gid_index = sys.argv[1], int(sys.argv[2])
ctx = Mlx5Context(Mlx5DVContextAttr(), name=dev)
pd = PD(ctx)
cq = CQ(ctx, 16)
comp = e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS

rc = Mlx5QP(ctx, QPInitAttrEx(
    cap=QPCap(max_send_wr=8, max_recv_wr=8, max_inline_data=64), pd=pd,
    scq=cq, rcq=cq, qp_type=e.IBV_QPT_RC, comp_mask=comp,
    send_ops_flags=e.IBV_QP_EX_WITH_SEND), Mlx5DVQPInitAttr(
    comp_mask=dve.MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS |
    dve.MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS,
    create_flags=dve.MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE,
    send_ops_flags=dve.MLX5DV_QP_EX_WITH_MR_INTERLEAVED |
    dve.MLX5DV_QP_EX_WITH_MR_LIST | dve.MLX5DV_QP_EX_WITH_MKEY_CONFIGURE))
mkey = Mlx5Mkey(pd, dve.MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT, 3)
print('max_entries', mkey.max_entries)

layout = [Mlx5MrInterleaved(addr=0x1000, bytes_count=8, bytes_skip=2,
                            lkey=0x77),
          Mlx5MrInterleaved(addr=0x1040, bytes_count=8, bytes_skip=2,
                            lkey=0x77)]
sges = [SGE(0x1000, 8, 0x77), SGE(0x1040, 8, 0x77)]

rc.wr_start()
rc.wr_flags = e.IBV_SEND_SIGNALED | e.IBV_SEND_INLINE
rc.wr_mr_interleaved(mkey, e.IBV_ACCESS_LOCAL_WRITE, repeat_count=3,
                     mr_interleaved_lst=layout)
rc.wr_abort()
rc.wr_start()
rc.wr_flags = e.IBV_SEND_SIGNALED
rc.wr_mr_list(mkey, e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_READ,
              sge_list=sges)
rc.wr_abort()
rc.wr_start()
rc.wr_flags = e.IBV_SEND_INLINE
rc.wr_mkey_configure(mkey, 2, Mlx5MkeyConfAttr())
rc.wr_set_mkey_access_flags(e.IBV_ACCESS_LOCAL_WRITE)
rc.wr_set_mkey_layout_list(sges)
rc.wr_abort()
rc.wr_start()
rc.wr_mkey_configure(mkey, 2, Mlx5MkeyConfAttr())
rc.wr_set_mkey_access_flags(e.IBV_ACCESS_REMOTE_WRITE)
rc.wr_set_mkey_layout_interleaved(5, layout)
rc.wr_abort()

dci = Mlx5QP(ctx, QPInitAttrEx(
    cap=QPCap(max_send_wr=8, max_recv_wr=0, max_recv_sge=0), pd=pd, scq=cq,
    rcq=cq, qp_type=e.IBV_QPT_DRIVER, comp_mask=comp, sq_sig_all=1,
    send_ops_flags=e.IBV_QP_EX_WITH_RDMA_WRITE | e.IBV_QP_EX_WITH_SEND),
    Mlx5DVQPInitAttr(comp_mask=dve.MLX5DV_QP_INIT_ATTR_MASK_DC,
                     dc_init_attr=Mlx5DVDCInitAttr()))
attr = QPAttr(port_num=1)
dci.to_init(attr)
dci.to_rtr(attr)
dci.to_rts(attr)

gid = ctx.query_gid(1, gid_index)
ah = AH(pd, attr=AHAttr(port_num=1, is_global=1, gr=GlobalRoute(
    dgid=gid, sgid_index=gid_index)))
dci.wr_start()
dci.wr_flags = e.IBV_SEND_SIGNALED
dci.wr_rdma_write(0x1234, 0x2000)
dci.wr_set_dc_addr(ah, 0xabcdef, 0x1122334455667788)
dci.wr_set_sge(SGE(0x1000, 8, 0x77))
dci.wr_abort()

for obj in (dci, ah, rc, mkey, cq, pd, ctx):
    obj.close()
print('done')
