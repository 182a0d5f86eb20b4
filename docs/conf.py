# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Sphinx configuration of the pyverbs-c documentation.

Build:  python3 -m sphinx -W --keep-going -b html docs docs/_build/html

The API reference imports pyverbs: the checkout's (src/, after
tools/build-inplace) when it holds a built extension, else the installed
package.  Only extensions that ship with Sphinx are used.
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), 'src')
if glob.glob(os.path.join(SRC, 'pyverbs', '_verbs*.so')):
    sys.path.insert(0, SRC)

project = 'pyverbs-c'
copyright = 'the pyverbs-c authors'
author = 'the pyverbs-c authors'
try:
    from importlib.metadata import version as _version
    release = _version('pyverbs-c')
except Exception:                       # a checkout that is not installed
    release = '0.1.0'

extensions = ['sphinx.ext.autodoc']
exclude_patterns = ['_build']
html_theme = 'alabaster'
html_static_path = []

# Every cross-reference of the guide must resolve (with -W, a dangling one
# fails the build); the enum classes' bases are the standard library's.
nitpicky = True
nitpick_ignore = [('py:class', 'enum.IntEnum'), ('py:class', 'enum.IntFlag')]

autodoc_member_order = 'bysource'
autodoc_default_options = {'members': True, 'show-inheritance': False}
# The .pyi stubs and the annotations describe types; the signatures shown
# come from the objects themselves (text signatures of the C methods),
# without the annotations.
autodoc_typehints = 'none'

# The docstrings are plain text, not reST.  Upstream pyverbs' names end in
# an underscore (MAP_FIXED_, in_, MLX5DV_FLOW_TABLE_TYPE_NIC_RX_), which
# reST would read as a link reference: escape that underscore.
_TRAILING_UNDERSCORE = re.compile(r'(?<=\w)_(?=[\s.,;:)/]|$)')


def _plain_docstring(app, what, name, obj, options, lines):
    literal = None          # indentation of the '::' line being inside
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if literal is not None and line.strip() and indent <= literal:
            literal = None
        if literal is None and '`' not in line:
            lines[i] = _TRAILING_UNDERSCORE.sub(r'\\_', line)
        if literal is None and line.rstrip().endswith('::'):
            literal = indent


def setup(app):
    app.connect('autodoc-process-docstring', _plain_docstring)
