# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""EFA direct verbs: EfaContext, SRDQP(Ex), EfaCQ, EfaAH, ...

Not implemented yet: the names of upstream's module are placeholders that
raise PyverbsUserError when used (see pyverbs._unimplemented)."""
import pyverbs.providers.efa.efa_enums as _efa_e
from pyverbs._unimplemented import fill_missing



def bitmask_to_str(bits, values):
    """'Name, Name, ??(<unknown bits, hex>) (<bits, hex>)' for the bits of
    bits named in values ({bit: name}); 'None (0)' for no bit."""
    names, left = [], bits
    for bit, name in values.items():
        if bits & bit:
            names.append(name)
            left &= ~bit
    if left:
        names.append(f'??({left:x})')
    return f"{', '.join(names) or 'None'} ({bits:x})"


_DEV_CAPS = {
    _efa_e.EFADV_DEVICE_ATTR_CAPS_RDMA_READ: 'RDMA Read',
    _efa_e.EFADV_DEVICE_ATTR_CAPS_RNR_RETRY: 'RNR Retry',
    _efa_e.EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID: 'CQ entries with source GID',
}


def dev_cap_to_str(flags):
    """The EFADV_DEVICE_ATTR_CAPS_* bits of flags, named."""
    return bitmask_to_str(flags, _DEV_CAPS)


fill_missing(globals(), __name__)
