# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The printed formats of the EFA C types (EfaDVDeviceAttr, EfaDVAHAttr;
EfaDVMRAttr prints itself, in C) and the helpers they use, which
pyverbs.providers.efa.efadv re-exports.
The module ends with FORMATS, the EFA table {native type: {attribute:
value}}, which pyverbs/__init__.py installs with pyverbs._formats.install()
in a build with libefa (without it the table is empty)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import pyverbs.providers.efa.efa_enums as _efa_e
from pyverbs import _verbs as _v
from pyverbs.pyverbs_error import PyverbsRDMAError

if TYPE_CHECKING:
    from pyverbs._verbs import EfaDVAHAttr, EfaDVDeviceAttr


def bitmask_to_str(bits: int, values: Mapping[int, str]) -> str:
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


def dev_cap_to_str(flags: int) -> str:
    """The EFADV_DEVICE_ATTR_CAPS_* bits of flags, named."""
    return bitmask_to_str(flags, _DEV_CAPS)


def _rows(rows: tuple[tuple[str, object], ...]) -> str:
    return ''.join(f'{name:20}: {value!s:<20}\n' for name, value in rows)


def _device_attr_str(self: EfaDVDeviceAttr) -> str:
    return _rows((('comp_mask', self.comp_mask),
                  ('Max SQ WR', self.max_sq_wr),
                  ('Max RQ WR', self.max_rq_wr),
                  ('Max SQ SQE', self.max_sq_sge),
                  ('Max RQ SQE', self.max_rq_sge),
                  ('Inline buffer size', self.inline_buf_size)) +
                 _inline_ex_row(self) +
                 (('Device Capabilities', dev_cap_to_str(self.device_caps)),
                  ('Max RDMA Size', self.max_rdma_size)))


def _inline_ex_row(self: EfaDVDeviceAttr) -> tuple[tuple[str, object], ...]:
    """rdma-core 63's row, where the build has the field."""
    try:
        return (('Inline buffer size ex', self.inline_buf_size_ex),)
    except PyverbsRDMAError:
        return ()


def _ah_attr_str(self: EfaDVAHAttr) -> str:
    return _rows((('comp_mask', self.comp_mask), ('ahn', self.ahn)))


# ---- the table ----

FORMATS: dict[type, dict[str, object]] = {}
if getattr(_v, '_HAVE_EFA', 0):
    FORMATS = {
        _v.EfaDVDeviceAttr: {'__str__': _device_attr_str},
        _v.EfaDVAHAttr: {'__str__': _ah_attr_str},
    }
