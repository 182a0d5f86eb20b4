# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""tools/layering (the static stage of tools/run-tests) on object files
compiled here: a lower file and an upper one that calls it pass; a planted
upward call (the lower file calling the upper one) makes a cycle, which
fails the check and is named with the symbols of its edges."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERING = os.path.join(ROOT, 'tools', 'layering')

LOWER = 'int lower(int x)\n{\n\treturn x + 1;\n}\n'
# the planted upward call: lower() reaches upper()
LOWER_UP = ('int upper(int x);\n\nint lower(int x)\n{\n'
            '\treturn x ? upper(x - 1) : 0;\n}\n')
UPPER = 'int lower(int x);\n\nint upper(int x)\n{\n\treturn lower(x) * 2;\n}\n'


def _objects(tmp_path, sources):
    """Compile {name.c: text} with cc -c into tmp_path (meson's object
    names, name.c.o) and return the directory."""
    cc = os.environ.get('CC', 'cc')
    if not shutil.which(cc) or not shutil.which('nm'):
        pytest.skip(f'needs a C compiler ({cc}) and nm')
    for name, text in sources.items():
        src = tmp_path / name
        src.write_text(text)
        obj = tmp_path / (name + '.o')
        subprocess.run([cc, '-c', str(src), '-o', str(obj)], check=True)
    return tmp_path


def _layering(path):
    return subprocess.run([sys.executable, LAYERING, str(path)],
                          capture_output=True, text=True, timeout=60)


def test_acyclic_pair_passes(tmp_path):
    r = _layering(_objects(tmp_path, {'lower.c': LOWER, 'upper.c': UPPER}))
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'no cycle' in r.stdout


def test_upward_call_fails_naming_the_cycle(tmp_path):
    r = _layering(_objects(tmp_path, {'lower.c': LOWER_UP, 'upper.c': UPPER}))
    assert r.returncode == 1, r.stdout + r.stderr
    assert 'a cycle of 2 files' in r.stdout
    assert 'lower.c -> upper.c: upper' in r.stdout
    assert 'upper.c -> lower.c: lower' in r.stdout


def test_no_object_files(tmp_path):
    r = _layering(tmp_path)
    assert r.returncode == 2
    assert 'no object files' in r.stderr
