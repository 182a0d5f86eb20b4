# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Flow steering specifications (EthSpec, Ipv4ExtSpec, Ipv6Spec, TcpUdpSpec).

Not implemented yet: the names of upstream's module are placeholders that
raise PyverbsUserError when used (see pyverbs._unimplemented)."""
from pyverbs._unimplemented import fill_missing

U32_MASK = 0xffffffff

fill_missing(globals(), __name__)
