# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Protection domains and parent domains."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsError, PyverbsRDMAError, PyverbsUserError)
from pyverbs._verbs import (PD, ParentDomain, ParentDomainContext,
                            ParentDomainInitAttr)
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)
