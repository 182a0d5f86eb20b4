from pyverbs.base import PyverbsRDMAErrno as PyverbsRDMAErrno
from pyverbs.pyverbs_error import PyverbsError as PyverbsError, PyverbsRDMAError as PyverbsRDMAError, PyverbsUserError as PyverbsUserError
from pyverbs._verbs import RwqIndTable as RwqIndTable, RwqIndTableInitAttr as RwqIndTableInitAttr, RxHashConf as RxHashConf, WQ as WQ, WQAttr as WQAttr, WQInitAttr as WQInitAttr
