from pyverbs._verbs import CompCntr as CompCntr, CompCntrInitAttr as CompCntrInitAttr

__all__ = ['CompCntr', 'CompCntrInitAttr']
