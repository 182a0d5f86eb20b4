# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Type information: py.typed, the .pyi stubs next to the modules that take
their names from the C module (pyverbs._verbs), the annotations of the
modules written in Python (no .pyi: their .py is what mypy reads), and the
text signatures of the C callables.

  - mypy.stubtest compares every stub, and every annotated module, with
    the imported package (names, signatures, defaults, class layout);
    tests/stubtest-allowlist.txt lists what it cannot judge, with the
    reason for each entry.
  - A module without a .pyi binds in its source every public name it has
    at run time, and its source passes mypy --strict (bodies included).
  - mypy type-checks examples/ against the stubs.
  - The stubs and annotations carry types, not only names: typed programs
    over the core API and over the modules typed inline pass mypy --strict
    --disallow-any-expr, misuses of them are reported, and the attribute
    types of _verbs.pyi match the values the attributes hold (objects
    built without a device, and, in the VM, the objects of a live
    device).
  - Every public callable of pyverbs._verbs has a __text_signature__ that
    inspect.signature() can read (help() and IDEs show it, and stubgen
    builds the stubs from it), except those in NO_SIGNATURE, which say why.
  - meson's install (what pip and a wheel use) ships py.typed, the
    stubs and the modules.

stubtest and mypy need mypy (pip install .[test]); without it those tests
skip, saying so.
"""
import importlib
import inspect
import os
import pkgutil
import shutil
import subprocess
import sys

import pytest

import pyverbs
import rdma
from pyverbs import _verbs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.dirname(os.path.dirname(os.path.abspath(pyverbs.__file__)))
PKG = os.path.dirname(os.path.abspath(pyverbs.__file__))
# The packages typed: pyverbs, and rdma (python-rdma's verbs API).
PACKAGES = (pyverbs, rdma)
ALLOWLIST = os.path.join(HERE, 'stubtest-allowlist.txt')

# Callables of pyverbs._verbs exempt from the text-signature rule, with why:
# none at present (__enter__, __exit__ and GID.__reduce__, which are
# checked too, have theirs).
NO_SIGNATURE = set()
# Attributes a build has only where the rdma-core it was built against has
# them (meson.build probes each; the stubs describe a build against rdma-core
# 44, the floor): stubtest may find them at run time without a stub; each
# entry goes to stubtest's allowlist where its test is true.
PROBED = (
    # a build against rdma-core < 49 has it as pyverbs.device's read-only
    # property (0), which the stub's plain attribute does not describe; a
    # newer build has the C field
    ('pyverbs._verbs.PortAttr.active_speed_ex',
     lambda: isinstance(vars(_verbs.PortAttr).get('active_speed_ex'),
                        property)),
    # and what the stubs declare that only a newer Python has as an
    # attribute: the buffer protocol's slots of MR (Python >= 3.12)
    ('pyverbs._verbs.MR.__buffer__',
     lambda: not hasattr(_verbs.MR, '__buffer__')),
    ('pyverbs._verbs.MR.__release_buffer__',
     lambda: not hasattr(_verbs.MR, '__release_buffer__')),
)
DUNDERS = {'__enter__', '__exit__', '__reduce__'}


STUBTEST = '''
import importlib, pkgutil, sys
import pyverbs, rdma
for pkg in (pyverbs, rdma):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):
        if not info.name.endswith('.__main__'):     # that one runs the CLI
            importlib.import_module(info.name)
from mypy.stubtest import main
sys.argv[0] = 'stubtest'
sys.exit(main())
'''


def _public_modules():
    mods = []
    for pkg in PACKAGES:
        mods.append(pkg.__name__)
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):
            if not info.name.rsplit('.', 1)[-1].startswith('_') or \
                    info.name.endswith('._verbs'):
                mods.append(info.name)
    return mods


def _mypy():
    try:
        import mypy     # noqa: F401
    except ImportError:
        pytest.skip('mypy is not installed (pip install .[test])')


def _run(*args):
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run([sys.executable, '-m', *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def _inline_modules():
    """{module: its .py} for every module of the packages that has no .pyi
    beside it: typed inline, mypy reads its source."""
    mods = {}
    for pkg in PACKAGES:
        infos = [(pkg.__name__, True)] + [
            (i.name, i.ispkg) for i in
            pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.')]
        for name, ispkg in infos:
            base = os.path.join(SRC, *name.split('.'))
            if ispkg:
                base = os.path.join(base, '__init__')
            if not os.path.isfile(base + '.pyi'):
                mods[name] = base + '.py'
    return mods


def _bound_names(body):
    """The names the statements bind at module level (what mypy sees),
    into the blocks of if/try/with/for but not into functions or
    classes."""
    import ast
    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split('.')[0]
                         for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign,
                               ast.For, ast.With)):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [i.optional_vars for i in node.items if i.optional_vars] \
                if isinstance(node, ast.With) else [node.target]
            for t in targets:
                names.update(n.id for n in ast.walk(t)
                             if isinstance(n, ast.Name))
        for block in ('body', 'orelse', 'finalbody'):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                     ast.ClassDef)):
                names |= _bound_names(getattr(node, block, []))
        for handler in getattr(node, 'handlers', []):
            names |= _bound_names(handler.body)
    return names


def test_py_typed_and_the_types_of_every_module():
    """Each package has py.typed; each module has a .pyi, or else binds in
    its source every public name it has at run time (a module whose names
    come from the C module at import time, or from fill_missing(), needs a
    .pyi: mypy would not see them), since mypy reads that source."""
    import ast
    for pkg in PACKAGES:
        assert os.path.isfile(os.path.join(os.path.dirname(pkg.__file__),
                                           'py.typed')), pkg.__name__
    unseen = []
    for name, path in _inline_modules().items():
        if name.endswith('.__main__'):      # importing it runs the CLI
            continue
        mod = importlib.import_module(name)
        with open(path) as f:
            bound = _bound_names(ast.parse(f.read()).body)
        unseen += [f'{name}.{k}' for k, v in vars(mod).items()
                   if not k.startswith('_') and k not in bound and
                   not inspect.ismodule(v)]
    assert not unseen, f'set at import time, not in the source: {unseen}'


def test_mypy_strict_inline_modules():
    """The modules typed inline (their source, bodies included) under mypy
    --strict: every function annotated, no Any returned where a type is
    declared, no error; the stubs they import are checked with them."""
    _mypy()
    mods = _inline_modules()
    assert 'pyverbs.vtools' in mods and 'pyverbs.cli.bench' in mods, mods
    r = _run('mypy', '--no-incremental', '--strict', *sorted(mods.values()))
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-2000:]


def test_stubtest(tmp_path):
    _mypy()
    from pyverbs._unimplemented import placeholders
    for mod in _public_modules():
        importlib.import_module(mod)
    filled = {m: n for m, n in placeholders().items() if n}
    if filled:
        pytest.skip('this build fills placeholders (a provider library was '
                    f'missing: {sorted(filled)}); the stubs describe a full '
                    'build')
    # Importing pyverbs.cq, .qp, .mr, .device and .spec adds Python methods
    # and constants to C classes (WC.raise_for_status, QP.establish, ...),
    # which the stubs declare on the classes.  stubtest imports modules one
    # at a time, so what it saw would depend on its order: it judges the
    # package as a program sees it once every module is imported.
    probed = tmp_path / 'probed-allowlist.txt'
    probed.write_text(''.join(f'{name}\n' for name, found in PROBED
                              if found()))
    r = subprocess.run(
        [sys.executable, '-c', STUBTEST, 'pyverbs', 'rdma', '--allowlist',
         ALLOWLIST, '--allowlist', str(probed)],
        cwd=ROOT, env=dict(os.environ, PYTHONPATH=SRC), capture_output=True,
        text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-2000:]


def test_mypy_examples():
    """The examples against the stubs, function bodies included
    (--check-untyped-defs: the examples carry no annotations, and mypy
    would skip their bodies otherwise).  Three error codes are about the
    examples' own variables (a None default later given a str, an Optional
    attribute used unchecked), not about pyverbs's API, and are left out;
    wrong arguments, keywords or attributes of pyverbs are still errors."""
    _mypy()
    r = _run('mypy', '--no-incremental', '--check-untyped-defs',
             '--disable-error-code', 'union-attr',
             '--disable-error-code', 'assignment',
             '--disable-error-code', 'operator', 'examples')
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-2000:]


def test_mypy_catches_a_misuse(tmp_path):
    """The stubs are what mypy reads: a wrong keyword and a missing
    argument of C classes are reported (mypy ignoring the package, e.g. for
    want of py.typed, would pass anything)."""
    _mypy()
    bad = tmp_path / 'bad.py'
    bad.write_text('from pyverbs.pd import PD\n'
                   'from pyverbs.device import Context\n'
                   'from pyverbs.wr import SGE\n'
                   'Context(nam="mlx5_0")\n'
                   'SGE(0, 16)\n'
                   'x: str = PD.__name__\n')
    r = _run('mypy', '--no-incremental', str(bad))
    assert r.returncode == 1, r.stdout
    assert 'Unexpected keyword argument "nam" for "Context"' in r.stdout
    assert 'Missing positional argument "lkey" in call to "SGE"' in \
        r.stdout, r.stdout


# A program over the core data path, written with annotations the way a
# typed user program would be.  mypy --strict --disallow-any-expr accepts it
# only if every value it touches has a real type in the stubs (an attribute
# or a return typed Any fails it): the stubs carry types, not only names.
TYPED_PROGRAM = '''\
"""Core data path, fully typed: checked with mypy --strict."""
from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ, WC
from pyverbs.device import Context, DeviceAttr, PortAttr
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import RecvWR, SendWR, SGE
import pyverbs.enums as e


def run(name: str, gid_index: int) -> list[WC]:
    with Context(name=name) as ctx:
        attr: DeviceAttr = ctx.query_device()
        port: PortAttr = ctx.query_port(1)
        gid: GID = ctx.query_gid(1, gid_index)
        mtu: int = port.active_mtu + attr.max_qp_wr
        pd = PD(ctx)
        mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
        mr.write(b'hello', 5)
        mr.write('hello', 5, offset=8)
        data: bytes = mr.read(5, 0)
        sge = SGE(mr.buf, 5, mr.lkey)
        cq = CQ(ctx, 16)
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                               cap=QPCap(max_send_wr=4)))
        qa = QPAttr(port_num=1)
        gr = GlobalRoute(dgid=gid, sgid_index=gid_index)
        qa.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
        qa.dest_qp_num = qp.qp_num
        qp.to_init(qa)
        qp.post_recv(RecvWR(wr_id=1, num_sge=1, sg=[sge]))
        qp.post_send(SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[sge]))
        hops: int | None = qa.ah_attr.hop_limit
        ah: AH = AH(pd, qa.ah_attr)
        n, wcs = cq.poll(num_entries=4)
        for wc in wcs:
            status: int = wc.status + wc.byte_len + wc.wr_id + n
            wc.raise_for_status()
        return wcs + [WC(wr_id=len(data) + mtu + (hops or 0))]
'''

# Misuses a stub typed with Any would let through, one per line, each with
# the mypy message it must draw.
MISUSES = [
    ("MR(pd, 'x', 1)",
     'Argument 2 to "MR" has incompatible type "str"; expected "int"'),
    ("CQ(ctx, 4).poll()[1][0].status + 'a'",
     'Unsupported operand types for + ("int" and "str")'),
    ('s: str = MR(pd, 64).lkey',
     'Incompatible types in assignment (expression has type "int", '
     'variable has type "str")'),
    ('PD(MR(pd, 64))',
     'Argument 1 to "PD" has incompatible type "MR"; expected "Context"'),
    ('QP(pd, QPInitAttr(scq=pd))',
     'Argument "scq" to "QPInitAttr" has incompatible type "PD"'),
    ('SendWR(sg=[MR(pd, 64)])',
     'List item 0 has incompatible type "MR"; expected "SGE"'),
    ('b: bytes = ctx.query_gid(1, 0).gid',
     'Incompatible types in assignment (expression has type "str", '
     'variable has type "bytes")'),
    # the modules typed inline
    ("BufferPool(pd, 'x', 64)",
     'Argument 2 to "BufferPool" has incompatible type "str"; '
     'expected "int"'),
    ("BufferPool(pd, 1, 64).make_send_wr(0, 4, rkey='k')",
     'Argument "rkey" to "make_send_wr" of "BufferPool" has incompatible '
     'type "str"; expected "int | None"'),
    ('Path(sgid=1)',
     'Argument "sgid" to "Path" has incompatible type "int"; '
     'expected "str | None"'),
    ('establish(pd, Path())',
     'Argument 1 to "establish" has incompatible type "PD"; expected "QP"'),
]

# The same over the modules typed inline (vtools, path, aio, utils, fork,
# base, pyverbs_error, cli): their annotations, not a stub, give the types.
INLINE_TYPED_PROGRAM = '''\
"""The modules typed inline, fully typed: checked with mypy --strict."""
import asyncio

from pyverbs.aio import completions, get_async_event, poll
from pyverbs.base import PyverbsRDMAErrno, inc_rkey
from pyverbs.cli import main
from pyverbs.cq import CQ, WC, CompChannel
from pyverbs.device import AsyncEvent, Context
from pyverbs.fork import fork_init, is_fork_initialized
from pyverbs.path import DEFAULT_QKEY, Path, establish
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.qp import QP, QPCap, QPInitAttr
from pyverbs.utils import gid_str, mtu_to_str, qp_type_to_str
from pyverbs.vtools import BufferPool
from pyverbs.wr import SendWR
import pyverbs.enums as e


async def first_wcs(cq: CQ, ctx: Context) -> list[WC]:
    wcs = await poll(cq, 4)
    async for wc in completions(cq, num_entries=2):
        wcs.append(wc)
        break
    event: AsyncEvent = await get_async_event(ctx)
    return wcs if event else []


def run(name: str) -> int:
    fork_init()
    forked: int = is_fork_initialized()
    with Context(name=name) as ctx:
        pd = PD(ctx)
        cq = CQ(ctx, 16, None, CompChannel(ctx), 0)
        qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                               cap=QPCap(max_send_wr=4)))
        local = Path.from_qp(qp, gid_index=1)
        path: Path = local.connect(local.reverse())
        same: QP = establish(qp, path)
        sgid: str | None = path.sgid
        with BufferPool(pd, 8, 4096) as pool:
            pool.post_recvs(same, 4)
            idx: int = pool.pop()
            pool.copy_to(b'ping', idx)
            wr: SendWR = pool.make_send_wr(idx, 4, imm_data=DEFAULT_QKEY)
            qp.post_send(wr)
            wcs = asyncio.run(first_wcs(cq, ctx))
            pool.finish_wcs(qp, wcs)
            data: bytes = pool.copy_from(wcs[0].wr_id, length=4)
            view: memoryview = pool.view(idx)
        try:
            raise PyverbsRDMAErrno('failed')
        except PyverbsRDMAError as ex:
            code: int = ex.error_code
            func: str | None = ex.func
        text: str = gid_str(0, 1) + qp_type_to_str(qp.qp_type) + (sgid or '')
        return (inc_rkey(7) + len(text) + mtu_to_str(path.mtu) + forked +
                code + len(data) + len(view) + main(['devices']))
'''


@pytest.mark.parametrize('program', [TYPED_PROGRAM, INLINE_TYPED_PROGRAM],
                         ids=['stubs', 'inline'])
def test_mypy_strict_typed_program(tmp_path, program):
    _mypy()
    good = tmp_path / 'typed_program.py'
    good.write_text(program)
    r = _run('mypy', '--no-incremental', '--strict', '--disallow-any-expr',
             str(good))
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict_rejects_misuses(tmp_path):
    _mypy()
    bad = tmp_path / 'misuses.py'
    head = ['from pyverbs.cq import CQ', 'from pyverbs.device import Context',
            'from pyverbs.mr import MR', 'from pyverbs.pd import PD',
            'from pyverbs.qp import QP, QPInitAttr',
            'from pyverbs.wr import SendWR',
            'from pyverbs.path import Path, establish',
            'from pyverbs.vtools import BufferPool',
            "ctx = Context(name='x')", 'pd = PD(ctx)']
    bad.write_text('\n'.join(head + [m for m, _ in MISUSES]) + '\n')
    r = _run('mypy', '--no-incremental', '--strict', str(bad))
    assert r.returncode == 1, r.stdout + r.stderr
    for line, (code, msg) in enumerate(MISUSES, len(head) + 1):
        assert f'misuses.py:{line}: error: {msg}' in r.stdout, \
            (code, r.stdout)


# Objects built without a device, beyond each class's defaults: the
# attributes that hold something else once set (a GRH's fields, a WR's SGE
# list, a set rx_hash_key, ...).
EXTRA_OBJECTS = [
    'AHAttr(is_global=1, gr=GlobalRoute(dgid=GID_STR, sgid_index=1))',
    'SendWR(num_sge=1, sg=[SGE(0x1000, 8, 7)], next_wr=SendWR())',
    'RecvWR(num_sge=1, sg=[SGE(0x1000, 8, 7)], '
    'next_wr=RecvWR(num_sge=1, sg=[SGE(0x2000, 8, 7)]))',
    'OpsWr(sg_list=[SGE(0x1000, 8, 7)], next_wr=OpsWr())',
    'RxHashConf(rx_hash_key=b"ab", rx_hash_key_len=2)',
    'QPInitAttr(cap=QPCap(max_send_wr=3), qp_context="ctx")',
    'GID(GID_STR)', 'FdArr([3, 4], 2)', 'XRCDInitAttr(1, 0, -1)',
]


def _type_ok(value, t):
    """isinstance() for an evaluated stub annotation (unions, list/dict/
    tuple of a type, None, object)."""
    import types
    import typing
    if t is object:
        return True
    if t is None or t is type(None):
        return value is None
    origin = typing.get_origin(t)
    if origin in (types.UnionType, typing.Union):
        return any(_type_ok(value, a) for a in typing.get_args(t))
    if origin is not None:
        args = typing.get_args(t)
        if not isinstance(value, origin):
            return False
        if origin is list:
            return all(_type_ok(x, args[0]) for x in value)
        if origin is dict:
            return all(_type_ok(k, args[0]) and _type_ok(x, args[1])
                       for k, x in value.items())
        if origin is tuple:
            return len(value) == len(args) and \
                all(_type_ok(x, a) for x, a in zip(value, args))
        return True
    if t is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, t)


def _check_stub_types(objects):
    """Each annotated attribute and property getter of _verbs.pyi that the
    objects (and their base classes) declare, read and checked against its
    annotation.  Returns (how many were checked, the mismatches)."""
    import ast
    import logging
    tree = ast.parse(open(os.path.join(PKG, '_verbs.pyi')).read())
    ns = dict(vars(_verbs), logging=logging)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    checked, wrong = 0, []
    for obj in objects:
        for klass in type(obj).__mro__:
            node = classes.get(klass.__name__)
            for item in node.body if node else ():
                if isinstance(item, ast.AnnAssign):
                    name, ann = item.target.id, item.annotation
                elif isinstance(item, ast.FunctionDef) and \
                        'property' in [ast.unparse(d)
                                       for d in item.decorator_list]:
                    name, ann = item.name, item.returns
                else:
                    continue
                try:
                    value = getattr(obj, name)
                except Exception:   # unset, or the object is closed
                    continue
                checked += 1
                if not _type_ok(value, eval(ast.unparse(ann), ns)):
                    wrong.append(f'{type(obj).__name__}.{name}: '
                                 f'{ast.unparse(ann)}, but {value!r}')
    return checked, wrong


def test_stub_types_match_runtime_values():
    """The attribute types of _verbs.pyi against what the attributes hold:
    every class that can be built without a device (its defaults, and the
    EXTRA_OBJECTS) (str | None where None comes back, list[SGE] where the
    items are SGEs, ...)."""
    for mod in _public_modules():
        importlib.import_module(mod)
    objects = []
    for name in dir(_verbs):
        cls = getattr(_verbs, name)
        if isinstance(cls, type) and not issubclass(cls, BaseException):
            try:
                objects.append(cls())
            except Exception:       # needs a device or arguments
                pass
    ns = dict(vars(_verbs),
              GID_STR='fe80:0000:0000:0000:0000:0000:0000:0001')
    objects += [eval(e, ns) for e in EXTRA_OBJECTS]
    checked, wrong = _check_stub_types(objects)
    assert checked > 400, checked
    assert not wrong, '\n'.join(wrong)


def test_stub_types_match_device_objects(ctx, pd, port, gid_index):
    """The same check over the objects of a live device: the Context and
    what it reports, a PD, MRs, CQs, a completion channel, an RC QP and
    what it reports, an SRQ, an AH, an SGE."""
    import pyverbs.enums as e
    from pyverbs.addr import AH, AHAttr, GlobalRoute
    from pyverbs.cq import CQ, CompChannel
    from pyverbs.mr import MR
    from pyverbs.qp import QP, QPCap, QPInitAttr
    from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
    with CompChannel(ctx) as cc, CQ(ctx, 8, 'cq-ctx', cc) as cq, \
            CQ(ctx, 8) as cq2, \
            MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE) as mr, \
            MR(pd, 64, e.IBV_ACCESS_LOCAL_WRITE, bytearray(64)) as mr2, \
            SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4))) as srq, \
            QP(pd, QPInitAttr(e.IBV_QPT_RC, 'qp-ctx', cq, cq2,
                              cap=QPCap(4, 4))) as qp:
        gid = ctx.query_gid(port, gid_index)
        gr = GlobalRoute(dgid=gid, sgid_index=gid_index)
        ah_attr = AHAttr(port_num=port, is_global=1, gr=gr)
        with AH(pd, ah_attr) as ah:
            objects = [ctx, ctx.query_device(), ctx.query_port(port), gid,
                       ctx.query_gid_ex(port, gid_index),
                       ctx.query_device_ex(), pd, mr, mr2,
                       mr.sge(), cq, cq2, cc, srq, srq.query(), qp,
                       *qp.query(e.IBV_QP_STATE | e.IBV_QP_CAP), ah,
                       ah_attr]
            checked, wrong = _check_stub_types(objects)
    assert checked > 150, checked
    assert not wrong, '\n'.join(wrong)


def test_stub_types_match_cm_objects(dev_name):
    """The check over rdma_cm's objects in the VM (rxe0 192.0.2.1, rxe1
    192.0.2.2): an AddrInfo, an event channel, an asynchronous CMID and
    its ADDR_RESOLVED event, a synchronous CMID with its QP."""
    import pyverbs.cm_enums as ce
    from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID
    from pyverbs.qp import QPCap, QPInitAttr
    ai = AddrInfo(src='192.0.2.1', dst='192.0.2.2', dst_service='7471',
                  port_space=ce.RDMA_PS_TCP)
    with CMEventChannel() as ch, CMID(creator=ch) as acid, \
            CMID(creator=ai, qp_init_attr=QPInitAttr(cap=QPCap(4, 4))) \
            as scid:
        acid.resolve_addr(ai)
        ev = CMEvent(ch)
        assert ev.event_type == ce.RDMA_CM_EVENT_ADDR_RESOLVED
        checked, wrong = _check_stub_types([ai, ch, acid, ev, scid])
        ev.ack_cm_event()
    assert checked > 20, checked
    assert not wrong, '\n'.join(wrong)


def _c_callables():
    for name in dir(_verbs):
        if name.startswith('_'):
            continue
        obj = getattr(_verbs, name)
        if isinstance(obj, type):
            if issubclass(obj, BaseException):
                continue
            yield name, obj
            for attr, d in vars(obj).items():
                kind = type(d).__name__
                if kind in ('method_descriptor', 'classmethod_descriptor',
                            'builtin_function_or_method',
                            'staticmethod') and \
                        (not attr.startswith('_') or attr in DUNDERS):
                    yield f'{name}.{attr}', getattr(obj, attr)
        elif callable(obj):
            yield name, obj
    # the functions a public module takes from _verbs's tables
    # (pyverbs.mem_alloc, pyverbs.dma_util): C functions bound to nothing
    for mod in _public_modules():
        for name, obj in vars(importlib.import_module(mod)).items():
            if type(obj).__name__ == 'builtin_function_or_method' and \
                    not name.startswith('_') and obj.__self__ is None:
                yield f'{mod}.{name}', obj


def test_text_signatures():
    missing, unreadable = [], []
    for name, obj in _c_callables():
        if name.rsplit('.', 1)[-1] in NO_SIGNATURE or \
                inspect.isfunction(obj):
            # a Python function (a staticmethod of a class) has its own
            continue
        if obj.__text_signature__ is None:
            missing.append(name)
            continue
        try:
            sig = inspect.signature(obj)
        except (ValueError, TypeError):
            unreadable.append(f'{name}{obj.__text_signature__}')
            continue
        # "$module" is dropped only for a function bound to its module; one
        # bound to nothing would show a "module" argument it does not take
        if not isinstance(obj, type) and getattr(obj, '__self__', 1) is None:
            assert 'module' not in sig.parameters, (name, str(sig))
    assert not missing, f'no text signature: {missing}'
    assert not unreadable, 'inspect cannot read: ' + '\n'.join(unreadable)


@pytest.mark.skipif(bool(os.environ.get('PYVERBS_SANITIZED')),
                    reason='installs its own unsanitized build: a packaging '
                    'check, not one for a tools/sanitize run')
def test_install_ships_stubs(tmp_path):
    """meson's install of the packages (what `pip install .` and a wheel
    run) carries, for pyverbs and rdma, py.typed and every .py and .pyi:
    installed into a scratch DESTDIR from the development build, nothing
    recompiled."""
    build = os.path.join(ROOT, 'build')
    meson = shutil.which('meson')
    if meson is None or not os.path.isfile(os.path.join(build,
                                                        'build.ninja')):
        pytest.skip('needs meson and the build/ of tools/build-inplace')
    r = subprocess.run([meson, 'install', '-C', build, '--destdir',
                        str(tmp_path), '--no-rebuild', '--quiet'],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    found = [os.path.join(dp, f) for dp, _, fs in os.walk(tmp_path)
             for f in fs if f == 'py.typed']
    assert len(found) == len(PACKAGES), found
    for pkg in PACKAGES:
        src = os.path.dirname(os.path.abspath(pkg.__file__))
        installed = [os.path.dirname(f) for f in found
                     if os.path.basename(os.path.dirname(f)) ==
                     pkg.__name__]
        assert len(installed) == 1, (pkg.__name__, found)
        want = sorted(os.path.relpath(os.path.join(dp, f), src)
                      for dp, _, fs in os.walk(src) for f in fs
                      if f.endswith(('.pyi', '.py')) and
                      '__pycache__' not in dp and '_native' not in dp)
        got = sorted(os.path.relpath(os.path.join(dp, f), installed[0])
                     for dp, _, fs in os.walk(installed[0]) for f in fs
                     if f.endswith(('.pyi', '.py')))
        assert want and got == want, pkg.__name__
