# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Provider-specific (direct verbs) modules: mlx5, efa."""
