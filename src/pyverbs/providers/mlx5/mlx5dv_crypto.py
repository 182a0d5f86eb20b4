# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 crypto: login sessions (Mlx5CryptoLoginAttr, Mlx5CryptoExtLoginAttr,
Mlx5CryptoLogin), data encryption keys (Mlx5DEKInitAttr, Mlx5DEK,
Mlx5DEKAttr) and the crypto attributes of an mkey (Mlx5CryptoAttr).

Fixed-size byte fields are checked: a credential is exactly 48 bytes;
opaque, key, initial_tweak and keytag at most 8, 128, 16 and 8 bytes (the
rest zeroed).  Upstream copies the full size from shorter bytes."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import PyverbsRDMAError  # noqa: F401
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5CryptoLoginAttr, Mlx5CryptoExtLoginAttr,
                                Mlx5CryptoLogin, Mlx5DEKInitAttr,
                                Mlx5DEKAttr, Mlx5DEK, Mlx5CryptoAttr)

fill_missing(globals(), __name__)
