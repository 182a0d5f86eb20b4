# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""XRC domains: XRCD(context, XRCDInitAttr(comp_mask, oflags, fd))."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsError, PyverbsRDMAError  # noqa: F401
from pyverbs._verbs import XRCD, XRCDInitAttr
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)    # upstream's names: none left
