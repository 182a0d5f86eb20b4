# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The mlx5 calls upstream pyverbs added from rdma-core 45 to 65, in one
scenario written only against upstream 65's API, run under the recording
double (tests/fakes/mlx5_double.c with mlx5_double_65.c) by pyverbs-c and,
in the Debian sid guest, by Debian's python3-pyverbs 65: both must hand
libmlx5 the same calls and print the same lines.

    PVFAKE_MLX5_DEVICES=rxe0 PVFAKE_MLX5_DR=1 PVFAKE_LOG=log \\
        LD_PRELOAD=libmlx5_double.so python3 mlx5_scenario65.py rxe0

Each part prints what it got, or the exception's class and errno when the
build's rdma-core lacks the call (pyverbs-c built against 44 raises
PyverbsRDMAError EOPNOTSUPP naming the version).  It covers the DevX
asynchronous commands and event channels, the DR flow meter, the context's
new capabilities (DC read atomics, out-of-order receive WRs, data direct,
fds), the modify-header flow action and the DevX flow actions, the matcher
on an IB port, the dma-buf MR, the UAR's dma-buf and the export/import of
DevX objects, UMEMs and VARs.  What upstream 65 gets
wrong is left out of the printout (EventHeader.data runs 8 bytes past the
event, get_async_cmd_comp's output past what was read: only the bytes the
double wrote are printed).
"""
import sys

from pyverbs.device import FdArr
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.pd import PD
from pyverbs.providers.mlx5.dr_action import (DrActionFlowMeter,
                                              DrFlowMeterAttr)
from pyverbs.providers.mlx5.dr_domain import DrDomain
from pyverbs.providers.mlx5.dr_matcher import DrMatcher
from pyverbs.providers.mlx5.dr_rule import DrRule
from pyverbs.providers.mlx5.dr_table import DrTable
from pyverbs.providers.mlx5.mlx5dv import (Mlx5Context, Mlx5DevxCmdComp,
                                           Mlx5DevxObj, Mlx5DVContextAttr,
                                           Mlx5UAR, Mlx5UMEM, Mlx5VAR)
from pyverbs.providers.mlx5.mlx5dv_dmabuf import Mlx5DmaBufMR
from pyverbs.providers.mlx5.mlx5dv_event import EventChannel, EventFD
from pyverbs.providers.mlx5.mlx5dv_flow import (Mlx5Flow, Mlx5FlowActionAttr,
                                                Mlx5FlowMatcher,
                                                Mlx5FlowMatcherAttr,
                                                Mlx5FlowMatchParameters,
                                                Mlx5ModifyFlowAction)

try:
    from pyverbs.providers.mlx5.mlx5_enums import \
        mlx5dv_devx_create_event_channel_flags
    OMIT_EV_DATA = mlx5dv_devx_create_event_channel_flags.\
        MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA
except ImportError:     # a pyverbs-c without 65's enum classes
    OMIT_EV_DATA = 1
dev = sys.argv[1]


def part(label, fn):
    try:
        print(label, fn(), flush=True)
    except PyverbsError as ex:
        print(label, type(ex).__name__, getattr(ex, 'error_code', ''),
              flush=True)


ctx = Mlx5Context(Mlx5DVContextAttr(), name=dev)
obj = Mlx5DevxObj(ctx, bytes(range(16)), 32)

# asynchronous DevX commands
cc = Mlx5DevxCmdComp(ctx)
print('cc fd open', cc.fd >= 0)
obj.query_async(bytes(range(0x40, 0x50)), 24, 7, cc)
obj.query_async(b'\x11' * 8, 8, 8, cmd_comp=cc)
wr_id, out = cc.get_async_cmd_comp()
print('async', wr_id, out[:24].hex())
wr_id, out = cc.get_async_cmd_comp(cmd_resp_len=64)
print('async', wr_id, out[:8].hex())

# DevX events: by cookie, with and without event data, and by eventfd
ec = EventChannel(ctx)
ec.subscribe([1, 0x13], cookie=100, obj=obj)
ec.subscribe([5], cookie=2**63)            # unaffiliated
for _ in range(2):
    ev = ec.get_event()
    print('event', ev.cookie, ev.data[:64].hex())
quiet = EventChannel(ctx, flags=OMIT_EV_DATA)
efd = EventFD()
quiet.subscribe([0x13], obj=obj, fd=efd)
quiet.subscribe(4, fd=efd)
print('eventfd', quiet.get_event(fd=efd))
quiet.subscribe([7], cookie=3, obj=obj)
ev = quiet.get_event()
print('omitted data', ev.cookie)        # upstream's data: 8 stray bytes

# the DR flow meter on a rule
dom = DrDomain(ctx, 0)
tbl = DrTable(dom, 0)
nxt = DrTable(dom, 0)
attr = DrFlowMeterAttr(nxt, 1, 2, bytes(range(32)))
meter = DrActionFlowMeter(attr)
meter.modify(DrFlowMeterAttr(nxt, 0, 2, b'\x01' * 32), 1)
mask = Mlx5FlowMatchParameters(64, b'\xff' * 8)
matcher = DrMatcher(tbl, 0, 1, mask)
rule = DrRule(matcher, Mlx5FlowMatchParameters(64, b'\x01' * 8), [meter])

# the context's new capabilities and attributes
dv = ctx.query_mlx5_device()
part('dc rd atom', lambda: (dv.max_dc_rd_atom, dv.max_dc_init_rd_atom))
part('ooo caps', lambda: sorted(dv.ooo_recv_wrs_caps.items()))
part('data direct', ctx.get_data_direct_sysfs_path)
part('data direct short', lambda: ctx.get_data_direct_sysfs_path(5))


def fd_ctx():
    with Mlx5Context(Mlx5DVContextAttr(comp_mask=1, fds=FdArr([0], 1)),
                     name=dev) as c:
        return 'opened'


part('context with fds', fd_ctx)

# flow steering: a modify-header action, DevX destinations and counters,
# a matcher on an IB port
mod = Mlx5ModifyFlowAction(ctx, 0, [b'\x01' * 8, b'\x02' * 8])
fmask = Mlx5FlowMatchParameters(64, b'\xff' * 8)
fm = Mlx5FlowMatcher(ctx, Mlx5FlowMatcherAttr(fmask, priority=1))
acts = [Mlx5FlowActionAttr(3, flow_action=mod),
        Mlx5FlowActionAttr(5, obj=obj),
        Mlx5FlowActionAttr(6, obj=obj)]
flow = Mlx5Flow(fm, Mlx5FlowMatchParameters(64, b'\x01' * 8), acts, 3)
part('counter with offset', lambda: Mlx5Flow(
    fm, Mlx5FlowMatchParameters(64, b'\x02' * 8),
    [Mlx5FlowActionAttr(8, obj=obj, offset=5)], 1).close())
part('matcher on a port', lambda: Mlx5FlowMatcher(ctx, Mlx5FlowMatcherAttr(
    fmask, comp_mask=3, ft_type=0, ib_port=1)).close())

# a dma-buf MR with mlx5 access flags, a UAR's dma-buf
pd = PD(ctx)
part('dmabuf mr', lambda: Mlx5DmaBufMR(pd, 0, 4096, iova=0x2000, fd=0,
                                       access=1, mlx5_access=1).close())
uar = Mlx5UAR(ctx)
part('uar dmabuf', lambda: uar.export_dmabuf_fd() >= 0)

# export and import
umem = Mlx5UMEM(ctx, 4096)
var = Mlx5VAR(ctx)


def round_trip(o, imp, unimp):
    data = o.export()
    new = imp(ctx, data)
    out = (len(data) == type(o).get_export_size(), new is not o)
    getattr(new, unimp)()
    return out


part('export obj', lambda: round_trip(obj, Mlx5DevxObj.import_obj,
                                      'unimport_obj'))
part('export umem', lambda: round_trip(umem, Mlx5UMEM.import_umem,
                                       'unimport_umem'))
part('export var', lambda: round_trip(var, Mlx5VAR.import_var,
                                      'unimport_var'))

# closing, explicitly and in order (upstream's flow actions have no
# close(): the last reference goes, the attributes' first)
flow.close()
fm.close()
del acts, mod
for o in (var, umem, uar, pd, rule, matcher, meter, attr, nxt, tbl, dom,
          quiet, ec, cc, obj):
    o.close()
ctx.close()
print('done')
