# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Rules of the sources that no compiler checks: one way to write a type
spec (field.h's PV_TYPE_SPEC family) and one place for the type pointers
(the core's in `pv` of state.h, each provider's in its own state struct,
pv_mlx5 of mlx5.h / pv_efa of efa.h).  Each check also runs on a planted
violation, so that it is seen to fail."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NATIVE = os.path.join(ROOT, 'src', 'pyverbs', '_native')
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
