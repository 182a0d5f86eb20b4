from pyverbs._verbs import DrMatcher as DrMatcher
from pyverbs._verbs import DrTable as DrTable
