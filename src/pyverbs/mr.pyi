from pyverbs._verbs import DMMR as DMMR, DmaBufMR as DmaBufMR, MR as MR, MW as MW, MWBind as MWBind, MWBindInfo as MWBindInfo, QP as QP

HUGE_PAGE_SIZE: int

def mwtype2str(mw_type: int) -> str: ...
