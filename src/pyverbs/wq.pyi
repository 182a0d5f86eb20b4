from pyverbs._verbs import RwqIndTable as RwqIndTable, RwqIndTableInitAttr as RwqIndTableInitAttr, RxHashConf as RxHashConf, WQ as WQ, WQAttr as WQAttr, WQInitAttr as WQInitAttr
