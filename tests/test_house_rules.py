# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Rules of the sources that no compiler checks: one way to write a type
spec (field.h's PV_TYPE_SPEC family) and one place for the type pointers
(the core's in `pv` of state.h, each provider's in its own state struct,
pv_mlx5 of mlx5.h / pv_efa of efa.h); and one table of the printed formats
the Python layer gives the C types (pyverbs._formats and one module per
provider), installed where the native module is first imported: no module
assigns a dunder to a class itself, and whatever module a program imports
first, the types are formatted.  Each source check also runs on a planted
violation, so that it is seen to fail."""
import ast
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, 'src', 'pyverbs')
NATIVE = os.path.join(PKG, '_native')
# the headers whose structs hold the type pointers, and field.h, whose
# macros are the only place a PyType_Spec / PyType_Slot array is written
STATE_HEADERS = {'state.h', 'providers/mlx5/mlx5.h', 'providers/efa/efa.h'}
SPEC_HEADER = 'field.h'


def _sources():
    for root, _, files in os.walk(NATIVE):
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                path = os.path.join(root, f)
                with open(path) as fh:
                    yield os.path.relpath(path, NATIVE), fh.read()


def _code(text):
    """text without its comments and string literals."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    return re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', text)


# a spec or a slot array written out: "PyType_Spec x = {", "PyType_Slot
# x[] = {"
SPEC_RE = re.compile(r'\bPyType_(?:Spec|Slot)\s+\w+(?:##\w+)?\s*'
                     r'(?:\[\s*\])?\s*=\s*\{')
# a type pointer variable: "PyTypeObject *x;", "..., *y = NULL;" (not a
# parameter, a function, a pointer to a pointer or a struct member line of
# the state headers)
TYPE_PTR_RE = re.compile(r'^[ \t]*(?:static\s+|extern\s+)?PyTypeObject\s*'
                         r'\*\s*\w+\s*(?:[,;=])', re.M)


def _hand_written_specs(name, text):
    if name == SPEC_HEADER:
        return []
    return [f'{name}: {m.group(0)}' for m in SPEC_RE.finditer(_code(text))]


def _type_pointers(name, text):
    """File-scope or static type pointers outside the state headers (a
    local variable of a function, which starts with a tab and is not
    static, is not one)."""
    if name in STATE_HEADERS:
        return []
    out = []
    for m in TYPE_PTR_RE.finditer(_code(text)):
        line = m.group(0)
        if line.startswith('\t') and 'static' not in line:
            continue            # a function's local variable
        out.append(f'{name}: {line.strip()}')
    return out


def test_every_type_spec_is_written_with_the_macros():
    found = [v for name, text in _sources()
             for v in _hand_written_specs(name, text)]
    assert not found, found


def test_every_type_pointer_is_in_a_state_struct():
    found = [v for name, text in _sources()
             for v in _type_pointers(name, text)]
    assert not found, found


def test_the_checks_fail_on_a_planted_violation():
    spec = ('static PyType_Slot x_slots[] = { { 0, NULL } };\n'
            'static PyType_Spec x_spec = {\n\t.name = "x",\n};\n')
    assert len(_hand_written_specs('x.c', spec)) == 2
    assert not _hand_written_specs('x.c', 'PV_TYPE_SPEC(x, "x", st, "d", );')
    assert _type_pointers('x.c', 'static PyTypeObject *a, *b;\n')
    assert _type_pointers('x.c', 'PyTypeObject *pv_x_Y;\n')
    assert _type_pointers('x.c', 'int f(void)\n{\n\tstatic PyTypeObject '
                                 '*tp;\n}\n')
    # a local variable, a parameter, a function, a member of a state struct
    assert not _type_pointers('x.c', 'int f(void)\n{\n\tPyTypeObject '
                                     '*tp = Py_TYPE(o);\n}\n')
    assert not _type_pointers('x.c', 'int f(PyTypeObject *tp);\n'
                                     'PyTypeObject *g(void);\n')
    assert not _type_pointers('providers/mlx5/mlx5.h',
                              '\tPyTypeObject *Context;\n')


# ---- the printed formats: one table per package ----

# what a function's metadata assignments may set (qp.py names its
# QP.establish; _unimplemented.py names its placeholders)
FUNCTION_METADATA = {'__name__', '__qualname__', '__module__', '__doc__'}


def _dunder_assignments(name, text):
    """The statements of text that set a dunder on an object (X.__str__ =
    ...), but a function's metadata."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and \
                        re.fullmatch(r'__\w+__', t.attr) and \
                        t.attr not in FUNCTION_METADATA:
                    out.append(f'{name}:{node.lineno}: {ast.unparse(t)}')
    return out


def test_no_module_assigns_a_dunder_to_a_class():
    found = []
    for root, _, files in os.walk(PKG):
        for f in sorted(files):
            if f.endswith('.py'):
                path = os.path.join(root, f)
                with open(path) as fh:
                    found += _dunder_assignments(
                        os.path.relpath(path, PKG), fh.read())
    assert not found, found
    assert _dunder_assignments('x.py', 'CQ.__str__ = _cq_str\n')
    assert _dunder_assignments('x.py', 'ns["A"].__repr__ = f\n')
    assert not _dunder_assignments('x.py', 'f.__name__ = "g"\n')


# Each probe imports one module first, in a fresh interpreter, then checks
# that every type of the three tables has its table's attributes.
CHECK_TABLES = """
import sys
import {first}
from pyverbs import _formats
from pyverbs.providers.efa import _formats as efa
from pyverbs.providers.mlx5 import _formats as mlx5
tables = (_formats.FORMATS, mlx5.FORMATS, efa.FORMATS)
missing = [f'{{cls.__name__}}.{{name}}' for table in tables
           for cls, attrs in table.items() for name, value in attrs.items()
           if cls.__dict__.get(name) is not value]
assert not missing, missing
print(sum(len(attrs) for table in tables for attrs in table.values()))
"""


@pytest.mark.parametrize('first', [
    'pyverbs.device', 'pyverbs.cq', 'pyverbs.wr', 'pyverbs._verbs', 'rdma',
    'pyverbs.providers.mlx5.mlx5dv', 'pyverbs.providers.mlx5.mlx5dv_sched',
    'pyverbs.providers.efa.efadv'])
def test_formats_installed_whatever_module_comes_first(first):
    r = subprocess.run([sys.executable, '-c', CHECK_TABLES.format(first=first)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(PKG)))
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) >= 30, r.stdout      # the core's table at least


def test_the_formats_of_a_type_imported_alone():
    """A WC printed by a program that imports nothing but pyverbs.wr: the
    table's format, not object's."""
    code = ('from pyverbs.wr import SGE\n'
            'from pyverbs._verbs import WC\n'
            'print(str(WC(wr_id=3, status=5)), repr(SGE(16, 8, 1)))\n')
    r = subprocess.run([sys.executable, '-c', code], cwd=ROOT,
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=os.path.dirname(PKG)))
    assert r.returncode == 0, r.stderr
    assert 'WR ID                 : 3' in r.stdout, r.stdout
    assert 'status                : WR flush error' in r.stdout, r.stdout
    assert 'SGE(addr=0x10, length=8, lkey=0x1)' in r.stdout, r.stdout
