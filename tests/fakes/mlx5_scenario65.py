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
PyverbsRDMAError EOPNOTSUPP naming the version).  What upstream 65 gets
wrong is left out of the printout (EventHeader.data runs 8 bytes past the
event, get_async_cmd_comp's output past what was read: only the bytes the
double wrote are printed).
"""
import sys

from pyverbs.pyverbs_error import PyverbsError
from pyverbs.providers.mlx5.dr_action import (DrActionFlowMeter,
                                              DrFlowMeterAttr)
from pyverbs.providers.mlx5.dr_domain import DrDomain
from pyverbs.providers.mlx5.dr_matcher import DrMatcher
from pyverbs.providers.mlx5.dr_rule import DrRule
from pyverbs.providers.mlx5.dr_table import DrTable
from pyverbs.providers.mlx5.mlx5dv import (Mlx5Context, Mlx5DevxCmdComp,
                                           Mlx5DevxObj, Mlx5DVContextAttr)
from pyverbs.providers.mlx5.mlx5dv_event import EventChannel, EventFD
from pyverbs.providers.mlx5.mlx5dv_flow import Mlx5FlowMatchParameters

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

# closing, explicitly and in order
for o in (rule, matcher, meter, attr, nxt, tbl, dom, quiet, ec, cc, obj):
    o.close()
ctx.close()
print('done')
