# AH(pd, wc=, grh=, port_num=n): n.__index__ closes the PD after AH()
# checked it open; ibv_create_ah_from_wc then uses the freed PD
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.cq import WC
from pyverbs.addr import AH, GRH
ctx = Context(name='rxe0'); pd = PD(ctx)
class N:
    def __index__(self): pd.close(); return 1
print(AH(pd, wc=WC(), grh=GRH(), port_num=N()))
