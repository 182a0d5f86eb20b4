from pyverbs._verbs import PD as PD, ParentDomain as ParentDomain, ParentDomainContext as ParentDomainContext, ParentDomainInitAttr as ParentDomainInitAttr
