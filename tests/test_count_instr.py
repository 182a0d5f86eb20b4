# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Host tests of bench/count_instr.py's arithmetic: reading callgrind's dump
files, instructions per operation, the verdict and the Markdown table.  The
measurement itself runs in the Soft-RoCE guest (see the script)."""
import importlib.util
import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, '..', 'bench', 'count_instr.py')


@pytest.fixture(scope='module')
def ci():
    spec = importlib.util.spec_from_file_location('count_instr', SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_dump(path, desc, total):
    with open(path, 'w') as f:
        f.write('version: 1\ncreator: callgrind-3.19.0\n'
                f'desc: Trigger: Client Request: {desc}\n'
                'events: Ir\n\nfn=(1) main\n0 5\n\n'
                f'totals: {total}\n')


def test_read_dumps_and_per_op(ci, tmp_path):
    write_dump(tmp_path / 'ours.7.1', 'ours|poll_empty|10', 5000)
    write_dump(tmp_path / 'ours.7.2', 'ours|poll_empty|20', 8000)
    write_dump(tmp_path / 'ours.7.3', 'not a row', 1)
    (tmp_path / 'ours.log').write_text('desc: Trigger: Client Request: '
                                       'ours|x|1\ntotals: 9\n')
    counts = ci.read_dumps(str(tmp_path))
    assert counts == {('ours', 'poll_empty', 10): 5000,
                      ('ours', 'poll_empty', 20): 8000}
    assert ci.per_op(counts, 'ours', 'poll_empty', 10) == 300
    assert ci.per_op(counts, 'ref', 'poll_empty', 10) is None


def test_verdict(ci):
    # overhead 100 against 300: met; against 299 or with more instructions
    # than the reference: not met
    assert ci.verdict('poll_1', 50, 150, 350) == ('yes', 3.0)
    assert ci.verdict('poll_1', 50, 150, 349)[0] == 'NO'
    assert ci.verdict('poll_1', 50, 150, 100)[0] == 'NO'
    assert ci.verdict('post_send_16_list', 50, 150, 100)[0] == 'n/a'
    assert ci.verdict('poll_1', None, 150, 100) == ('', None)


def test_table_subtracts_loop_and_substitutes(ci):
    n = ci.BENCHES['post_send_16'][1]
    counts = {('ours', 'loop', 400): 1000, ('ours', 'loop', 800): 3000,
              ('ref', 'loop', 400): 1000, ('ref', 'loop', 800): 2000,
              ('floor', 'post_send_16_list', n): 0,
              ('floor', 'post_send_16_list', 2 * n): 100 * n,
              ('ours', 'post_send_16_list', n): 0,
              ('ours', 'post_send_16_list', 2 * n): 200 * n,
              ('ref', 'post_send_16', n): 0,
              ('ref', 'post_send_16', 2 * n): 600 * n}
    loop, rows = ci.table(counts, ['post_send_16_list'], 1)
    assert loop == {'ours': 5.0, 'ref': 2.5, 'call0': None, 'call2': None}
    assert rows == [('post_send_16_list', 100, 195, 597.5)]
    md = ci.markdown(loop, rows)
    assert '(reference: chained) | 100 | 195 | 598 | 95 | 498 | 5.2x | n/a |' \
        in md


@pytest.mark.skipif(not shutil.which('gcc'), reason='needs gcc')
def test_floor_builds(ci, tmp_path):
    lib = ci.build_floor(str(tmp_path))
    syms = subprocess.run(['nm', '-D', '--defined-only', lib],
                          capture_output=True, text=True).stdout
    for fn in ('cg_zero', 'cg_dump', 'fl_poll', 'fl_post', 'fl_wr_build',
               'fl_qpex', 'fl_mr_read', 'fl_mr_write'):
        assert f' {fn}\n' in syms
