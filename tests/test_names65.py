# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Every public name of upstream pyverbs 65 is in this build.

tests/compat/names-pyverbs-65.json lists them (modules, names, the public
members of upstream's classes), made from Debian's python3-pyverbs 65 by
tools/pyverbs-names (its docstring has the command).  A build against
rdma-core 65 must have each as the real thing; a build against an older
rdma-core too (the names import everywhere: what needs a newer library
raises the error naming its version when called, not when imported).
The "names" step of tools/sid-tests runs the same check against the
reference installed in the sid guest.
"""
import importlib.machinery
import importlib.util
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LISTING = os.path.join(ROOT, 'tests', 'compat', 'names-pyverbs-65.json')


def _tool():
    path = os.path.join(ROOT, 'tools', 'pyverbs-names')
    loader = importlib.machinery.SourceFileLoader('pyverbs_names', path)
    spec = importlib.util.spec_from_loader('pyverbs_names', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


@pytest.fixture(scope='module')
def tool():
    return _tool()


def _load_listing():
    with open(LISTING, encoding='utf-8') as f:
        return json.load(f)


@pytest.fixture(scope='module')
def listing():
    return _load_listing()


def test_listing_is_upstream_65(listing, tool):
    """The listing is 65's: its new modules and names are there."""
    assert tool.ABOUT in listing
    assert 'CompCntr' in listing['pyverbs.comp_cntr']
    assert 'MREx' in listing['pyverbs.mr']
    assert 'IBV_ACCESS_FLUSH_GLOBAL' in \
        listing['pyverbs.libibverbs_enums']['ibv_access_flags']
    # int's and Exception's members are the interpreter's, not listed
    assert 'bit_length' not in \
        listing['pyverbs.libibverbs_enums']['ibv_access_flags']
    nnames = sum(len(v) for k, v in listing.items() if k != tool.ABOUT)
    assert len(listing) - 1 >= 44 and nnames >= 600


def test_every_name_of_upstream_65(listing, tool):
    """Every module, name and class member of the listing, real (no
    placeholder), in this build whatever rdma-core it was built against;
    but the names over an optional library this build was made without
    (librdmacm, libmlx5, libefa), which are placeholders naming it by
    design (tools/pyverbs-names, in the sid stage, takes none out)."""
    from pyverbs import _verbs
    from pyverbs._unimplemented import _missing_library
    lacks = [x for x in tool.missing(listing)
             if not _missing_library(x.split(':')[0])]
    against = '65' if _verbs._HAVE_COMP_CNTR else 'an rdma-core before 65'
    assert lacks == [], (f'a build against {against} lacks '
                         f'{len(lacks)} names of upstream 65')


def test_check_reports_what_lacks(tool):
    """The check itself: a missing module, name or member, and a
    placeholder, each reported."""
    fake = {
        tool.ABOUT: 'test',
        'pyverbs.pd': {'PD': ['close', 'no_such_member'], 'NoSuchName': None},
        'pyverbs.no_such_module': {'X': None},
        'pyverbs.device': {'Context': ['close']},
    }
    import pyverbs.device
    from pyverbs._unimplemented import _placeholder
    saved = pyverbs.device.__dict__.get('Placeholder65')
    pyverbs.device.Placeholder65 = _placeholder('Placeholder65',
                                                'pyverbs.device')
    fake['pyverbs.device']['Placeholder65'] = None
    try:
        lacks = tool.missing(fake)
    finally:
        del pyverbs.device.Placeholder65
        assert saved is None
    assert 'pyverbs.pd.PD.no_such_member' in lacks
    assert 'pyverbs.pd.NoSuchName' in lacks
    assert 'pyverbs.device.Placeholder65: a placeholder' in lacks
    assert any(x.startswith('pyverbs.no_such_module: does not import')
               for x in lacks)
    assert len(lacks) == 4


# ---- the names upstream's modules carry from elsewhere: the same objects

_EXCEPTIONS = ('PyverbsError', 'PyverbsRDMAError', 'PyverbsUserError')


def _carried(listing):
    for mod, names in sorted(listing.items()):
        for name in names:
            if name in _EXCEPTIONS + ('PyverbsRDMAErrno',):
                yield mod, name


@pytest.mark.parametrize('mod,name', list(_carried(_load_listing())))
def test_exception_names_are_pyverbs_error(mod, name):
    """from pyverbs.pd import PyverbsRDMAError & co: the classes of
    pyverbs.pyverbs_error (PyverbsRDMAErrno: pyverbs.base's function)."""
    import importlib
    import pyverbs.base
    import pyverbs.pyverbs_error
    source = pyverbs.base if name == 'PyverbsRDMAErrno' else \
        pyverbs.pyverbs_error
    assert getattr(importlib.import_module(mod), name) is \
        getattr(source, name)


@pytest.mark.parametrize('mod,name,source', [
    ('pyverbs.device', 'DMAHandle', 'pyverbs.mr'),
    ('pyverbs.device', 'DMMR', 'pyverbs.mr'),
    ('pyverbs.utils', 'ibv_rereg_mr_err_code', 'pyverbs.libibverbs_enums'),
    ('pyverbs.providers.efa.efadv', 'ibv_qp_attr_mask',
     'pyverbs.libibverbs_enums'),
    ('pyverbs.providers.mlx5.dr_action', 'mlx5dv_dr_action_dest_type',
     'pyverbs.providers.mlx5.mlx5_enums'),
])
def test_reexports_are_the_same_object(mod, name, source):
    import importlib
    assert getattr(importlib.import_module(mod), name) is \
        getattr(importlib.import_module(source), name)


def test_rereg_error_to_str_names():
    from pyverbs.utils import ibv_rereg_mr_err_code, rereg_error_to_str
    for v in ibv_rereg_mr_err_code:
        assert rereg_error_to_str(int(v)) == v.name
    assert rereg_error_to_str(-77) == 'Unknown error (-77)'


def test_mlx5dv_flow_be64toh():
    """mlx5dv_flow.be64toh: bytes in host order to an int, as upstream;
    too long and non-bytes input refused (upstream truncates / raises
    struct.error)."""
    import struct
    from pyverbs.providers.mlx5.mlx5dv_flow import ACTION_SIZE, be64toh
    assert ACTION_SIZE == 8
    word = bytes([1, 2, 3, 4, 5, 6, 7, 8])
    assert be64toh(word) == struct.unpack('=Q', word)[0]
    assert be64toh(bytearray(word)) == be64toh(memoryview(word))
    assert be64toh(b'\x01') == struct.unpack('=Q', b'\x01' + bytes(7))[0]
    assert be64toh(b'') == 0
    with pytest.raises(ValueError, match='at most 8 bytes'):
        be64toh(word + b'\x09')
    with pytest.raises(TypeError):
        be64toh(5)
