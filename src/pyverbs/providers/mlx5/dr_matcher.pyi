from pyverbs._verbs import DrMatcher as DrMatcher
