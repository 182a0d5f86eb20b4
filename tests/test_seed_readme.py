# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Every code example of upstream pyverbs's README, run as written.

The README (a seed the project was founded on; its unchanged copy is
tests/data/upstream-pyverbs-README.md) is read and its ```python blocks are
extracted when the tests run; nothing of it is copied into this file.  A block ends at the next fence; a ```python line always opens a
new block (the SRQ example's fence is never closed), and a '## ' heading
names the blocks after it wherever it is.  Some blocks show the printed
output after the code: a block's code is its longest run of leading lines
that compiles, less the comments and blank lines it ends with.

What the README leaves to the reader is filled in, and only that (FILL_IN):
  - the device names ('mlx5_0', 'ibp0s8f0', 'rocep0s8f0', 'rocep8s0f0')
    become the test device (rxe0 in the VM);
  - the GID index hard-coded "for RoCE v2" (3) becomes the device's RoCE v2
    GID index (conftest's gid_index); the one it says always exists (0)
    stays;
  - the CMID example's address becomes the device's (192.0.2.1 in the VM),
    and its passive and active sides, one after the other in the README,
    run as two processes (the passive one blocks in get_request() until the
    active one connects);
  - the UD QP example's "in real life, use real values" (remote QPN and
    QKey) become those of a UD QP the test opens to receive the send, so
    the example's post is real traffic;
  - the XRCD file (/tmp/xrcd) lives in the test's temporary directory.
The examples using random run under a fixed seed.

On Soft-RoCE everything runs but what rxe lacks: mlx5 (PyverbsUserError
'This is not an MLX5 device', or errno EOPNOTSUPP for the objects asked of a
plain Context), XRC, extended CQs with CVLAN, flow steering, parent domains
and importing a context (PyverbsRDMAError, errno EOPNOTSUPP).  The DM examples check max_dm_size first: on rxe it is 0 and
they do nothing, which test_dm_examples_guarded checks beside what DM()
itself says there.
"""
import errno
import os
import random
import re
import subprocess
import sys
import time

import pytest

import pyverbs.enums as e
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError

from example_run import env
from rdma_helpers import needs_rdmacm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE_DATA = os.path.join(ROOT, 'tests', 'data')
DEVICE_NAMES = ('mlx5_0', 'ibp0s8f0', 'rocep0s8f0', 'rocep8s0f0')
README_ADDR = '11.137.14.124'
README_GID_INDEX = re.compile(r'\b(gid_index = 3|index=3)\b')
NOT_MLX5 = (PyverbsUserError, None, 'This is not an MLX5 device')
UNSUPPORTED = (PyverbsRDMAError, errno.EOPNOTSUPP, None)

# Every example, by the heading above it, and what it does on rxe: None
# (runs through), or (exception type, errno or None, message regex or None).
EXPECTED = {
    'Open an IB device': None,
    'Query a device': None,
    'Query GID': None,
    'Query port': None,
    'Extended query device': None,
    'PD': None,
    'MR': None,
    'Memory window': None,
    'Device memory': None,
    'DM MR': None,
    'CQ': None,
    'CQ (2)': UNSUPPORTED,  # CQEX with IBV_WC_EX_WITH_CVLAN
    'Addressing related objects': None,
    'QP': None,
    'Extended QP': None,
    'XRCD': UNSUPPORTED,
    'SRQ': UNSUPPORTED,  # its XRCD first
    'Open an mlx5 provider': NOT_MLX5,
    'Query an mlx5 provider': NOT_MLX5,
    'Create an mlx5 QP': NOT_MLX5,
    'Create an mlx5 CQ': NOT_MLX5,
    'CMID': None,
    'ParentDomain': UNSUPPORTED,  # rxe has no parent domains
    'MLX5 VAR': UNSUPPORTED,
    'MLX5 PP': NOT_MLX5,
    'MLX5 UAR': UNSUPPORTED,
    'Import device, PD and MR': UNSUPPORTED,  # rxe can't import a context
    'Flow and FlowAttr': UNSUPPORTED,
    'Ethernet spec': None,
    'MLX5 DevX Objects': NOT_MLX5,
}


def readme_path():
    """The seed README: $PYVERBS_SEED_README, else the copy kept in
    tests/data (tests/data/SOURCES.md says where it comes from)."""
    return os.environ.get('PYVERBS_SEED_README') or os.path.join(
        HERE_DATA, 'upstream-pyverbs-README.md')


# a line of printed output: 'Name of a field      : value'
TABLE_LINE = re.compile(r'^\s*[A-Za-z][^#=(]*?\S\s{2,}:(\s|$)')


def leading_code(lines):
    """The longest run of leading lines that compiles (the rest is the
    printed output the README shows after the code).  Some output compiles
    too ('Handle      : 0' is an annotation): it starts at its first
    'field   : value' line, or at the bare title line above it."""
    for i, line in enumerate(lines):
        if TABLE_LINE.match(line):
            if i and re.fullmatch(r'\w+', lines[i - 1]):
                i -= 1
            lines = lines[:i]
            break
    for n in range(len(lines), 0, -1):
        text = '\n'.join(lines[:n]).strip('\n') + '\n'
        if not text.strip():
            continue
        try:
            compile(text, '<readme>', 'exec')
        except SyntaxError:
            continue
        # comments and blank lines at the end are prose the block swallowed
        kept = text.splitlines()
        while kept and (not kept[-1].strip() or
                        kept[-1].lstrip().startswith('#')):
            kept.pop()
        return '\n'.join(kept) + '\n'
    return ''


def extract(text):
    """[(heading, code)] for every ```python block, in order; a heading met
    twice gets ' (2)', ' (3)', ..."""
    out, seen = [], {}
    heading = title = block = None
    for line in text.splitlines() + ['```']:
        if block is not None and line.startswith('```'):
            out.append((title, leading_code(block)))
            block = None
            if line.strip() != '```python':
                continue
        if line.strip() == '```python':
            block, title = [], heading
            continue
        # a heading, even inside a block (one whose fence is never closed
        # swallows the next heading): no example has a '## ' comment
        m = re.match(r'#{2,}\s+(.*\S)', line)
        if m:
            heading = m.group(1)
        if block is not None:
            block.append(line)
    named = []
    for title, code in out:
        seen[title] = seen.get(title, 0) + 1
        if seen[title] > 1:
            title = f'{title} ({seen[title]})'
        named.append((title, code))
    return named


def examples():
    path = readme_path()
    if path is None:
        return []
    with open(path, encoding='utf-8') as f:
        return extract(f.read())


EXAMPLES = dict(examples())
NO_README = 'the seed README (tests/data) is missing'


def fill_in(code, dev_name, gid_index, tmp_path, addr='192.0.2.1'):
    """The example with what the README leaves to the reader filled in."""
    for name in DEVICE_NAMES:
        code = code.replace(f"'{name}'", repr(dev_name))
    code = README_GID_INDEX.sub(
        lambda m: m.group(0).replace('3', str(gid_index)), code)
    code = code.replace(repr(README_ADDR), repr(addr))
    return code.replace("'/tmp/xrcd'", repr(str(tmp_path / 'xrcd')))


def check_raises(expected, fn):
    exc_type, err, msg = expected
    with pytest.raises(exc_type) as ex:
        fn()
    if err is not None:
        assert ex.value.error_code == err, str(ex.value)
    if msg is not None:
        assert re.search(msg, str(ex.value)), str(ex.value)


# ------------------------------------------------------------------ host

@pytest.mark.skipif(not EXAMPLES, reason=NO_README)
def test_every_example_has_an_expectation():
    # a README that gains, loses or renames an example shows up here
    assert sorted(EXAMPLES) == sorted(EXPECTED)
    for title, code in EXAMPLES.items():
        assert code.strip(), f'{title}: no code extracted'


@pytest.mark.skipif(not EXAMPLES, reason=NO_README)
def test_extraction_drops_printed_output():
    assert EXAMPLES['Query a device'].rstrip().endswith('print(attr)')
    assert EXAMPLES['CQ'].rstrip().endswith('print(cq)')
    assert EXAMPLES['CQ (2)'].rstrip().endswith('print(cq_ex)')
    assert EXAMPLES['Query an mlx5 provider'].rstrip().endswith(
        'print(mlx5_attrs)')
    # the SRQ block's fence is never closed: its code stops at its end
    assert EXAMPLES['SRQ'].rstrip().endswith('srq = SRQ(ctx, srq_attr)')
    assert 'Mlx5Context' in EXAMPLES['Open an mlx5 provider']


def test_extract_and_fill_in(tmp_path):
    text = ('## A\n```python\nx = 1\nprint(x)\nT\nfield  : 1\n```\n'
            '## A\n```python\ny = "mlx5_0"\n```python\n'
            "z = 'mlx5_0'\ngid_index = 3\n```\n")
    got = extract(text)
    assert got == [('A', 'x = 1\nprint(x)\n'), ('A (2)', 'y = "mlx5_0"\n'),
                   ('A (3)', "z = 'mlx5_0'\ngid_index = 3\n")]
    filled = fill_in(got[-1][1], 'rxe0', 7, tmp_path)
    assert filled == "z = 'rxe0'\ngid_index = 7\n"


# ------------------------------------------------------------------ device

def run_example(code):
    ns = {'__name__': '__readme__'}
    random.seed(20260)
    exec(compile(code, '<README example>', 'exec'), ns)
    return ns


SIMPLE = sorted(t for t in EXPECTED if t not in ('CMID', 'QP'))


@pytest.mark.skipif(not EXAMPLES, reason=NO_README)
@pytest.mark.parametrize('title', SIMPLE)
def test_readme_example(title, dev_name, gid_index, tmp_path):
    code = fill_in(EXAMPLES[title], dev_name, gid_index, tmp_path)
    if EXPECTED[title] is None:
        run_example(code)
    else:
        check_raises(EXPECTED[title], lambda: run_example(code))


@pytest.mark.skipif(not EXAMPLES, reason=NO_README)
def test_dm_examples_guarded(ctx):
    # the DM examples only allocate when the device has device memory; rxe
    # has none, and DM() itself says so cleanly
    from pyverbs.device import DM, AllocDmAttr
    assert ctx.query_device_ex().max_dm_size == 0
    check_raises((PyverbsUserError, None, "doesn't support dm"),
                 lambda: DM(ctx, AllocDmAttr(4)))


def test_import_refused_by_libibverbs_itself(ctx):
    # the import example's EOPNOTSUPP is the provider's answer, not ours:
    # libibverbs called directly says the same
    import ctypes
    lib = ctypes.CDLL('libibverbs.so.1', use_errno=True)
    lib.ibv_import_device.restype = ctypes.c_void_p
    lib.ibv_import_device.argtypes = [ctypes.c_int]
    lib.ibv_close_device.argtypes = [ctypes.c_void_p]
    fd = os.dup(ctx.cmd_fd)
    got = lib.ibv_import_device(fd)
    err = ctypes.get_errno()
    if got:
        lib.ibv_close_device(got)  # the context owns fd then
        pytest.fail('ibv_import_device() worked: the README example should')
    os.close(fd)
    assert err == errno.EOPNOTSUPP


@pytest.mark.skipif(not EXAMPLES, reason=NO_README)
def test_readme_ud_qp_example_traffic(dev_name, gid_index, tmp_path):
    # The example posts a zero-length UD send through AH(pd, ah_attr) to the
    # port's own GID; its remote QPN and QKey ("use real values") are those
    # of a UD QP opened here, which must receive it.
    from pyverbs.device import Context
    from pyverbs.pd import PD
    from pyverbs.cq import CQ
    from pyverbs.mr import MR
    from pyverbs.qp import QPCap, QPInitAttr, QPAttr, QP
    from pyverbs.wr import RecvWR, SGE
    code = EXAMPLES['QP']
    assert 'wr.set_wr_ud(ah, 0x1101, 0)' in code
    with Context(name=dev_name) as rctx, PD(rctx) as rpd:
        rcq = CQ(rctx, 10)
        rqp = QP(rpd, QPInitAttr(qp_type=e.IBV_QPT_UD, scq=rcq, rcq=rcq,
                                 cap=QPCap(1, 4, 1, 1)), QPAttr())
        mr = MR(rpd, 64, e.IBV_ACCESS_LOCAL_WRITE)
        rqp.post_recv(RecvWR(wr_id=5, num_sge=1,
                             sg=[SGE(mr.buf, 64, mr.lkey)]))
        qkey = rqp.query(e.IBV_QP_QKEY)[0].qkey
        code = code.replace('0x1101, 0', f'{rqp.qp_num:#x}, {qkey:#x}')
        ns = run_example(fill_in(code, dev_name, gid_index, tmp_path))
        assert ns['wr'].num_sge == 0 and ns['wr'].sg_list == []
        send = poll(ns['cq'])
        assert (send.status, send.opcode) == (e.IBV_WC_SUCCESS,
                                              e.IBV_WC_SEND)
        recv = poll(rcq)
        assert recv.status == e.IBV_WC_SUCCESS, recv
        assert (recv.wr_id, recv.opcode) == (5, e.IBV_WC_RECV)
        assert recv.byte_len == 40  # the GRH and no data
        assert recv.src_qp == ns['udqp'].qp_num
        ns['ctx'].close()


def poll(cq, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        n, wcs = cq.poll()
        if n:
            return wcs[0]
        time.sleep(0.001)
    pytest.fail('no completion within %ss' % timeout)


@pytest.mark.skipif(not EXAMPLES, reason=NO_README)
@needs_rdmacm
def test_readme_cmid_example(dev_name, gid_index, tmp_path, ctx):
    import ipaddress
    gid = ctx.query_gid(1, gid_index)
    addr = str(ipaddress.IPv6Address(gid.gid).ipv4_mapped)
    code = fill_in(EXAMPLES['CMID'], dev_name, gid_index, tmp_path, addr)
    head, sep, rest = code.partition('# Passive side')
    passive, sep2, active = rest.partition('# Active side')
    assert sep and sep2, 'the CMID example no longer has its two sides'
    (tmp_path / 'passive.py').write_text(head + passive)
    (tmp_path / 'active.py').write_text(head + active)
    srv = subprocess.Popen([sys.executable, str(tmp_path / 'passive.py')],
                           env=env(), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    try:
        # the passive side may not listen yet: the active one is refused
        # then, and tried again
        for attempt in range(20):
            cli = subprocess.run([sys.executable,
                                  str(tmp_path / 'active.py')], env=env(),
                                 capture_output=True, text=True, timeout=60)
            if cli.returncode == 0 or srv.poll() is not None:
                break
            time.sleep(0.5)
        assert cli.returncode == 0, cli.stdout + cli.stderr
        out, _ = srv.communicate(timeout=60)
        assert srv.returncode == 0, out
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
