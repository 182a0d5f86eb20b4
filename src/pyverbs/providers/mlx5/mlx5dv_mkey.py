# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""mlx5 indirect/signature memory keys: Mlx5Mkey (an indirect mkey, closed
with its PD), the layouts and configuration of Mlx5QP's mkey builders
(Mlx5MrInterleaved, Mlx5MkeyConfAttr), the signature attributes
(Mlx5SigCrc, Mlx5SigT10Dif, Mlx5SigBlockDomain, Mlx5SigBlockAttr) and the
results of Mlx5Mkey.mkey_check() (Mlx5MkeyErr, Mlx5SigErr).

A build without libmlx5 has placeholders for these names (see
pyverbs._unimplemented)."""
from pyverbs.base import PyverbsRDMAErrno  # noqa: F401
from pyverbs.pyverbs_error import (  # noqa: F401
    PyverbsRDMAError, PyverbsUserError)
from pyverbs import _verbs
from pyverbs._unimplemented import fill_missing

if getattr(_verbs, '_HAVE_MLX5', 0):
    from pyverbs._verbs import (Mlx5Mkey, Mlx5MkeyConfAttr, Mlx5MkeyErr,
                                Mlx5MrInterleaved, Mlx5SigBlockAttr,
                                Mlx5SigBlockDomain, Mlx5SigCrc, Mlx5SigErr,
                                Mlx5SigT10Dif)

fill_missing(globals(), __name__)
