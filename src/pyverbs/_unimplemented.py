# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Placeholders for the parts of upstream pyverbs not built yet.

rdma-core's test suite imports many names at load time (provider modules,
SRQ, XRC, flow steering, ...).  Each module lists here what it does not
implement yet; fill_missing() adds a class of that name whose construction
raises PyverbsUserError naming the class, so that imports succeed and use
fails clearly.  README.md lists the same names.
"""
from pyverbs.pyverbs_error import PyverbsUserError

# module name -> names not implemented yet (kept in step with README.md)
MISSING = {}


def _placeholder(name, module):
    def __init__(self, *args, **kwargs):
        raise PyverbsUserError(
            f'{module}.{name} is not implemented in this version of pyverbs-c')
    return type(name, (), {'__init__': __init__, '__module__': module,
                           '__doc__': 'Not implemented in this version.'})


def fill_missing(namespace, module):
    """Define a placeholder for each missing name of module in namespace."""
    for name in MISSING.get(module, ()):
        if name not in namespace:
            namespace[name] = _placeholder(name, module)
