# cq.poll(n): n.__index__ closes the CQ after poll() checked it open
from pyverbs.device import Context
from pyverbs.cq import CQ
ctx = Context(name='rxe0'); cq = CQ(ctx, 4)
class N:
    def __index__(self): cq.close(); return 1
print(cq.poll(N()))
