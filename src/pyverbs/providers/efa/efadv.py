# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""EFA direct verbs (libefa): EfaContext, EfaAH, SRDQP, SRDQPEx, EfaCQ and
their attribute classes.

The classes are implemented in C (pyverbs._verbs, src/pyverbs/_native/
providers/efa/); this module adds their printing.  In a build without libefa
the names are placeholders that say so (see pyverbs._unimplemented).
"""
import pyverbs.providers.efa.efa_enums as _efa_e
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing
from pyverbs.pyverbs_error import PyverbsRDMAError

if getattr(_verbs, '_HAVE_EFA', 0):
    from pyverbs._verbs import (EfaAH, EfaContext, EfaCQ, EfaDVAHAttr,
                                EfaDVCQInitAttr, EfaDVDeviceAttr,
                                EfaQPInitAttr, SRDQP, SRDQPEx,
                                # rdma-core 50 .. 65
                                EfaDVMRAttr, EfaMR, EfaDVSQDepthAttr,
                                EfaDVRQDepthAttr, EfaCompCntrInitAttr)


def bitmask_to_str(bits, values):
    """'Name, Name, ??(<unknown bits, hex>) (<bits, hex>)' for the bits of
    bits named in values ({bit: name}, taken in bit order); 'None (<bits>)'
    when no name applies."""
    names, left = [], bits
    for bit, name in sorted(values.items()):
        if left & bit:
            names.append(name)
            left -= bit
    if left:
        names.append(f'??({left:x})')
    return f"{', '.join(names) or 'None'} ({bits:x})"


_DEV_CAPS = {
    _efa_e.EFADV_DEVICE_ATTR_CAPS_RDMA_READ: 'RDMA Read',
    _efa_e.EFADV_DEVICE_ATTR_CAPS_RNR_RETRY: 'RNR Retry',
    _efa_e.EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID: 'CQ entries with source GID',
    # rdma-core 46 .. 65 (fixed values, whatever the build's headers)
    getattr(_efa_e, 'EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE', 1 << 3):
        'RDMA Write',
    getattr(_efa_e, 'EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV', 1 << 4):
        'Unsolicited RDMA Write receive',
    getattr(_efa_e, 'EFADV_DEVICE_ATTR_CAPS_CQ_WITH_EXT_MEM_DMABUF', 1 << 5):
        'CQ with external memory',
    getattr(_efa_e, 'EFADV_DEVICE_ATTR_CAPS_COMP_CNTR', 1 << 6):
        'Completion Counters',
}


def dev_cap_to_str(flags):
    """The EFADV_DEVICE_ATTR_CAPS_* bits of flags, named."""
    return bitmask_to_str(flags, _DEV_CAPS)


def _rows(rows):
    return ''.join(f'{name:20}: {value!s:<20}\n' for name, value in rows)


def _device_attr_str(self):
    return _rows((('comp_mask', self.comp_mask),
                  ('Max SQ WR', self.max_sq_wr),
                  ('Max RQ WR', self.max_rq_wr),
                  ('Max SQ SQE', self.max_sq_sge),
                  ('Max RQ SQE', self.max_rq_sge),
                  ('Inline buffer size', self.inline_buf_size)) +
                 _inline_ex_row(self) +
                 (('Device Capabilities', dev_cap_to_str(self.device_caps)),
                  ('Max RDMA Size', self.max_rdma_size)))


def _inline_ex_row(self):
    """rdma-core 63's row, where the build has the field."""
    try:
        return (('Inline buffer size ex', self.inline_buf_size_ex),)
    except PyverbsRDMAError:
        return ()


def _ah_attr_str(self):
    return _rows((('comp_mask', self.comp_mask), ('ahn', self.ahn)))


if getattr(_verbs, '_HAVE_EFA', 0):
    EfaDVDeviceAttr.__str__ = _device_attr_str
    EfaDVAHAttr.__str__ = _ah_attr_str

fill_missing(globals(), __name__)
