from _typeshed import Incomplete
from pyverbs.addr import AH as AH
from pyverbs.cli._pingpong import Failure as Failure, PingPong as PingPong, SEND_WRID as SEND_WRID, add_common_arguments as add_common_arguments, make as make, path_to as path_to, run_pingpong as run_pingpong
from pyverbs.pyverbs_error import PyverbsError as PyverbsError
from pyverbs.qp import QPAttr as QPAttr
from pyverbs.wr import SendWR as SendWR

NAME: str
HELP: str
GRH_SIZE: int
QKEY: int

def add_arguments(parser) -> None: ...

class UDPingPong(PingPong):
    head = GRH_SIZE
    qp_type: Incomplete
    gid_error: str
    def check_device(self) -> None: ...
    def init_extra(self, attr): ...
    ah: Incomplete
    send_wr: Incomplete
    def connect(self, rem, mine): ...

def run(args): ...
