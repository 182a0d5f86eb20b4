# PD(ctx, handle=h): h.__index__ closes the Context after PD() checked it
# open; ibv_import_pd then uses the freed context
from pyverbs.device import Context
from pyverbs.pd import PD
ctx = Context(name='rxe0'); pd0 = PD(ctx)
class H:
    def __index__(self): ctx.close(); return 1
print(PD(ctx, handle=H()))
