# pd.advise_mr(..., sg_list): iterating sg_list closes the PD after
# advise_mr() checked it open
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.mr import MR
ctx = Context(name='rxe0'); pd = PD(ctx); mr = MR(pd, 4096, 1)
sge = mr.sge()
class L:
    def __len__(self): return 1
    def __iter__(self): pd.close(); yield sge
    def __getitem__(self, i): pd.close(); return sge
print(pd.advise_mr(0, 0, L()))
