# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Work requests: scatter/gather elements, send and receive WRs."""
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
