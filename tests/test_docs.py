# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The Sphinx site under docs/: it builds without a warning, and every code
example on it runs.

Host: sphinx-build -W --keep-going (the API reference imports this pyverbs
and renders every public module's docstrings); every ``.. code-block::``
names a language this file knows, and every Python block compiles.

Device (the Soft-RoCE VM, rxe0 192.0.2.1 / rxe1 192.0.2.2): each page's
``.. code-block:: python`` blocks run in order in one fresh interpreter, as
one script, so a page cannot show code that no longer works; the console
blocks' ``$ python -m pyverbs ...`` lines run (in one interpreter, through
runpy) and must exit 0 and print something.  The other
console lines (apt-get, pip, rdma link) change the machine and are not
run; ``text`` blocks are output shown for reading.
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from example_run import env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, 'docs')
LANGUAGES = ('python', 'console', 'text')
DIRECTIVE = re.compile(r'^(\s*)\.\. code-block::\s*(\S+)\s*$')
PYVERBS_CMD = re.compile(r'^\$ python3? -m pyverbs(\s.*)?$')


def pages():
    """The .rst files of the site, relative to docs/, sorted."""
    found = []
    for top, dirs, files in os.walk(DOCS):
        dirs[:] = [d for d in dirs if not d.startswith(('_', '.'))]
        found += [os.path.relpath(os.path.join(top, f), DOCS)
                  for f in files if f.endswith('.rst')]
    return sorted(found)


def code_blocks(page):
    """[(language, first line number, dedented text)] of a page's
    code-block directives, in order (directive options are skipped)."""
    with open(os.path.join(DOCS, page)) as f:
        lines = f.read().split('\n')
    blocks, i = [], 0
    while i < len(lines):
        m = DIRECTIVE.match(lines[i])
        i += 1
        if not m:
            continue
        indent = len(m.group(1))
        while i < len(lines) and \
                re.match(r'^\s+:[\w-]+:', lines[i]) and \
                len(lines[i]) - len(lines[i].lstrip()) > indent:
            i += 1
        body = []
        start = None
        while i < len(lines):
            line = lines[i]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            if start is None and line.strip():
                start = i + 1
            body.append(line)
            i += 1
        text = textwrap.dedent('\n'.join(body)).strip('\n') + '\n'
        blocks.append((m.group(2), start, text))
    return blocks


def blocks_of(language):
    """{page: [(line, text)]} for the pages with blocks of language."""
    out = {}
    for page in pages():
        got = [(ln, t) for lang, ln, t in code_blocks(page)
               if lang == language]
        if got:
            out[page] = got
    return out


PYTHON_PAGES = sorted(blocks_of('python'))


# ---------------------------------------------------------------- host

def test_site_builds_without_warnings(tmp_path):
    if importlib.util.find_spec('sphinx') is None:
        pytest.skip('Sphinx is not installed (pip install .[docs])')
    r = subprocess.run([sys.executable, '-m', 'sphinx', '-W', '--keep-going',
                        '-b', 'html', '-q', DOCS, str(tmp_path / 'html')],
                       capture_output=True, text=True, env=env(),
                       timeout=600)
    assert r.returncode == 0, r.stderr + r.stdout
    assert r.stderr.strip() == '', r.stderr
    # the API reference did render the C classes' docstrings
    with open(tmp_path / 'html' / 'api' / 'verbs.html') as f:
        html = f.read()
    for anchor in ('pyverbs.device.Context.query_port', 'pyverbs.qp.QP',
                   'pyverbs.mr.MR.write', 'pyverbs.cq.CQ.poll'):
        assert f'id="{anchor}"' in html, anchor


def test_every_page_is_in_the_tree():
    """Each page is in a toctree: the guide's in index.rst, the API
    reference's in api/index.rst."""
    def entries(toc):
        with open(os.path.join(DOCS, toc)) as f:
            return set(re.findall(r'^   ([\w/]+)$', f.read(), re.M))
    listed = entries('index.rst') | {
        'api/' + e for e in entries(os.path.join('api', 'index.rst'))}
    for page in pages():
        name = page[:-len('.rst')]
        if name != 'index':
            assert name in listed, page


def test_api_reference_covers_every_public_module():
    """Each public module of the package has an automodule directive (the
    command line's modules and the package roots excepted)."""
    import pkgutil
    import pyverbs
    documented = set()
    for page in pages():
        with open(os.path.join(DOCS, page)) as f:
            documented |= set(re.findall(r'^\.\. automodule:: (\S+)$',
                                         f.read(), re.M))
    public = {m.name for m in pkgutil.walk_packages(pyverbs.__path__,
                                                    'pyverbs.')
              if not any(part.startswith('_') for part in m.name.split('.'))
              and not m.ispkg and not m.name.startswith('pyverbs.cli.')}
    assert public - documented == set()
    assert documented - public == set()


def test_code_blocks_are_known_languages_and_compile():
    seen = 0
    for page in pages():
        for lang, line, text in code_blocks(page):
            assert lang in LANGUAGES, f'{page}:{line}: {lang}'
            assert text.strip(), f'{page}:{line}: empty block'
            if lang == 'python':
                compile(text, f'{page}:{line}', 'exec')
                seen += 1
    # the guide's pages all carry runnable examples
    assert {'install.rst', 'tutorial.rst', 'cm.rst', 'asyncio.rst',
            'providers.rst'} <= set(PYTHON_PAGES)
    assert seen >= 20


def test_no_untyped_literal_blocks():
    """Examples are code-block directives only (a bare '::' block would
    escape the runner below)."""
    for page in pages():
        with open(os.path.join(DOCS, page)) as f:
            for n, line in enumerate(f, 1):
                s = line.rstrip()
                if s.endswith('::') and not s.lstrip().startswith('..'):
                    pytest.fail(f'{page}:{n}: literal block; use '
                                '.. code-block:: LANGUAGE')


def test_extraction():
    blocks = code_blocks('tutorial.rst')
    lang, line, text = blocks[0]
    assert lang == 'python' and line > 1
    assert not text.startswith(' ') and 'get_device_list' in text


# -------------------------------------------------------------- device

# Runs a page's blocks, in order, in one namespace; a traceback names the
# page and the line of the block in the .rst.
RUNNER = '''
import json, sys
ns = {"__name__": "__main__"}
for name, line, text in json.load(open(sys.argv[1])):
    code = compile("\\n" * (line - 1) + text, name, "exec")
    exec(code, ns)
    print(f"--- {name}:{line} ok", flush=True)
'''


def need_vm_devices(dev_names):
    """The examples name the VM's devices (and rdma_cm its addresses)."""
    if not {'rxe0', 'rxe1'} <= set(dev_names):
        msg = f'the examples use the test VM\'s rxe0 and rxe1: {dev_names}'
        if os.environ.get('PYVERBS_IN_VM'):
            pytest.fail(msg)
        pytest.skip(msg)


@pytest.mark.device
@pytest.mark.parametrize('page', PYTHON_PAGES)
def test_page_examples_run(page, dev_names, tmp_path):
    need_vm_devices(dev_names)
    blocks = [(os.path.join('docs', page), line, text)
              for line, text in blocks_of('python')[page]]
    script = tmp_path / 'blocks.json'
    script.write_text(json.dumps(blocks))
    r = subprocess.run([sys.executable, '-c', RUNNER, str(script)],
                       capture_output=True, text=True, env=env(),
                       cwd=tmp_path, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-6000:]
    assert r.stdout.count(' ok\n') == len(blocks), r.stdout


def cli_commands():
    cmds = []
    for page, blocks in sorted(blocks_of('console').items()):
        for line, text in blocks:
            for n, cmd in enumerate(text.splitlines()):
                if PYVERBS_CMD.match(cmd):
                    cmds.append((f'{page}:{line + n}', cmd[2:].split()))
    return cmds


def test_cli_commands_found():
    names = [args[3] for _, args in cli_commands() if len(args) > 3]
    assert {'devices', 'devinfo'} <= set(names)


# Runs each command as `python -m pyverbs ARGS` would (runpy, so the
# package's __main__ runs), all in one interpreter: starting Python is
# what costs most in the emulated guest.  Prints one JSON line per command:
# [where, exit status, stdout].
CLI_RUNNER = '''
import contextlib, io, json, runpy, sys
for where, args in json.load(open(sys.argv[1])):
    out, status = io.StringIO(), 0
    sys.argv = ["pyverbs"] + args
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_module("pyverbs", run_name="__main__", alter_sys=True)
    except SystemExit as ex:
        status = ex.code if isinstance(ex.code, int) else (ex.code is not None)
    print(json.dumps([where, status, out.getvalue()]), flush=True)
'''


@pytest.mark.device
def test_cli_commands_run(dev_names, tmp_path):
    need_vm_devices(dev_names)
    cmds = [(where, argv[3:]) for where, argv in cli_commands()]
    todo = tmp_path / 'cli.json'
    todo.write_text(json.dumps(cmds))
    r = subprocess.run([sys.executable, '-c', CLI_RUNNER, str(todo)],
                       capture_output=True, text=True, env=env(),
                       timeout=300)
    assert r.returncode == 0, r.stderr
    results = [json.loads(line) for line in r.stdout.splitlines()]
    assert [w for w, _, _ in results] == [w for w, _ in cmds], r.stderr
    for where, status, out in results:
        assert status == 0, f'{where}: exit {status}\n{r.stderr}'
        assert out.strip(), f'{where}: printed nothing'
