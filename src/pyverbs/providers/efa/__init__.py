# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""EFA direct verbs (efadv) modules."""
