from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsRDMAError as PyverbsRDMAError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import AH as AH, AHAttr as AHAttr, GID as GID, GRH as GRH, GlobalRoute as GlobalRoute

__all__ = ['GID', 'GRH', 'GlobalRoute', 'AHAttr', 'AH']
