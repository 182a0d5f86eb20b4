from _typeshed import Incomplete
from pyverbs.pyverbs_error import PyverbsUserError as PyverbsUserError

MISSING: Incomplete
OPTIONAL_API: Incomplete
OPTIONAL_LIBS: Incomplete
LIB_PACKAGES: Incomplete
REEXPORTS: Incomplete

class _PlaceholderType(type):
    def __getattr__(cls, name): ...

def fill_missing(namespace, module) -> None: ...
def is_placeholder(obj): ...
def placeholders(): ...
