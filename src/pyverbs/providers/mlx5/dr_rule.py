# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 direct rules: rules (DrRule).

Not implemented yet: the names of upstream's module are placeholders that
raise PyverbsUserError when used (see pyverbs._unimplemented)."""
from pyverbs._unimplemented import fill_missing

fill_missing(globals(), __name__)
