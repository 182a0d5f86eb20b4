# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""EFA direct verbs (libefa): EfaContext, EfaAH, SRDQP, SRDQPEx, EfaCQ and
their attribute classes.

The classes are implemented in C (pyverbs._verbs, src/pyverbs/_native/
providers/efa/), their printing in pyverbs.providers.efa._formats.  In a
build without libefa the names are placeholders that say so (see
pyverbs._unimplemented).
"""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsRDMAError  # noqa: F401
from pyverbs import _verbs
from pyverbs.libibverbs_enums import ibv_qp_attr_mask  # noqa: F401
from pyverbs._unimplemented import fill_missing
# upstream's helpers (pyverbs.providers.efa._formats has the formats too)
from pyverbs.providers.efa._formats import (  # noqa: F401
    bitmask_to_str, dev_cap_to_str)

if getattr(_verbs, '_HAVE_EFA', 0):
    from pyverbs._verbs import (EfaAH, EfaContext, EfaCQ, EfaDVAHAttr,
                                EfaDVCQInitAttr, EfaDVDeviceAttr,
                                EfaQPInitAttr, SRDQP, SRDQPEx,
                                # rdma-core 50 .. 65
                                EfaDVMRAttr, EfaMR, EfaDVSQDepthAttr,
                                EfaDVRQDepthAttr, EfaCompCntrInitAttr,
                                EfaCompCntr)

fill_missing(globals(), __name__)
