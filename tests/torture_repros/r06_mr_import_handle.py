# MR(pd, handle=h): h.__index__ closes the PD after MR() checked it open
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.mr import MR
ctx = Context(name='rxe0'); pd = PD(ctx)
class H:
    def __index__(self): pd.close(); return 1
print(MR(pd, handle=H()))
