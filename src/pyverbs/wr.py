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
from pyverbs._verbs import SGE, RecvWR, SendWR
from pyverbs._unimplemented import fill_missing
# the defaults named in SendWR's signature (inspect.signature resolves them
# here)
from pyverbs.enums import IBV_WR_SEND, IBV_SEND_SIGNALED  # noqa: F401

__all__ = ['SGE', 'RecvWR', 'SendWR', 'send_flags_to_str']

_FMT = '{:22}: {:<20}\n'

# enum ibv_send_flags, in upstream's printing order
_SEND_FLAGS = ((1 << 0, 'IBV_SEND_FENCE'),
               (1 << 1, 'IBV_SEND_SIGNALED'),
               (1 << 2, 'IBV_SEND_SOLICITED'),
               (1 << 3, 'IBV_SEND_INLINE'),
               (1 << 4, 'IBV_SEND_IP_CSUM'))


def send_flags_to_str(flags):
    """Names of the IBV_SEND_* flags set in flags, each followed by a
    space (upstream's format)."""
    return ''.join(name + ' ' for bit, name in _SEND_FLAGS if flags & bit)


def _sge_str(self):
    return (_FMT.format('Address', hex(self.addr)) +
            _FMT.format('Length', self.length) +
            _FMT.format('Key', hex(self.lkey)))


def _sge_repr(self):
    return (f'{type(self).__name__}(addr={self.addr:#x}, '
            f'length={self.length}, lkey={self.lkey:#x})')


def _recv_wr_str(self):
    return _FMT.format('WR ID', self.wr_id) + \
           _FMT.format('Num SGE', self.num_sge)


def _send_wr_str(self):
    # Upstream's format, including its misplaced parenthesis: the 'Imm Data'
    # line is formatted into the 'Send flags' value.
    return _FMT.format('WR ID', self.wr_id) + \
           _FMT.format('Num SGE', self.num_sge) + \
           _FMT.format('Opcode', self.opcode) + \
           _FMT.format('Send flags',
                       send_flags_to_str(self.send_flags) +
                       _FMT.format('Imm Data', self.imm_data))


SGE.__str__ = _sge_str
SGE.__repr__ = _sge_repr
RecvWR.__str__ = _recv_wr_str
SendWR.__str__ = _send_wr_str

fill_missing(globals(), __name__)
