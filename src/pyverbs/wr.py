# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Work requests: scatter/gather elements, send and receive WRs.

SGE(addr, length, lkey); RecvWR(wr_id=0, num_sge=0, sg=None, next_wr=None);
SendWR(wr_id=0, opcode=IBV_WR_SEND, num_sge=0, imm_data=0, sg=None,
send_flags=IBV_SEND_SIGNALED, next_wr=None), as upstream: the SGEs of sg are
copied into the WR; a SendWR needs at least one SGE unless its opcode is
LOCAL_INV, BIND_MW or SEND_WITH_INV, a RecvWR may have none (upstream since
rdma-core 57: RecvWR() receives no data).

Beyond upstream:
  - num_sge defaults to len(sg), and sg may be a single SGE;
  - a SEND or SEND_WITH_IMM given no sg at all (SendWR(), as upstream's
    README posts it) is a zero-length send: num_sge 0, sg_list NULL;
  - SendWR takes keyword shortcuts for the address of the operation:
    SendWR(sg=..., ah=ah, remote_qpn=n, remote_qkey=k) is set_wr_ud(),
    SendWR(sg=..., remote_addr=a, rkey=r) is set_wr_rdma(),
    SendWR(sg=..., remote_addr=a, rkey=r, compare_add=c, swap=s) is
    set_wr_atomic();
  - next_wr returns the WR object itself (upstream returns a broken copy),
    and a cycle of WRs is refused;
  - sg_list reads back as a list of SGE copies (upstream 63's getter gives
    the address of the C array instead) and can be set from a list;
  - SGE.read() refuses ranges outside the SGE and unreadable addresses
    (PyverbsUserError) instead of crashing.
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsError, PyverbsUserError  # noqa: F401
from pyverbs._verbs import SGE, RecvWR, SendWR
from pyverbs._unimplemented import fill_missing
from pyverbs._formats import send_flags_to_str  # upstream's helper
# the defaults named in SendWR's signature (inspect.signature resolves them
# here)
from pyverbs.enums import IBV_WR_SEND, IBV_SEND_SIGNALED  # noqa: F401

__all__ = ['SGE', 'RecvWR', 'SendWR', 'send_flags_to_str']

fill_missing(globals(), __name__)
