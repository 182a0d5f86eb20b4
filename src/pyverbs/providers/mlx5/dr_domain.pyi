from pyverbs._verbs import DrDomain as DrDomain
