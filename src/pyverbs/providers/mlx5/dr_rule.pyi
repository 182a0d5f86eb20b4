from pyverbs._verbs import DrRule as DrRule
