# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The DevX, WQE/CQE and scheduling objects of pyverbs.providers.mlx5
(mlx5dv: Mlx5DevxObj, Mlx5UMEM, Mlx5DevxEq, Mlx5DevxMsiVector,
Mlx5DmOpAddr, WqeSeg, WqeCtrlSeg, WqeDataSeg, Wqe, Mlx5Cqe64; mlx5dv_sched).

- host: the byte views (segments, WQEs, CQEs) and the sched attributes
  against Debian's python3-pyverbs 44 (same values, printouts and
  exception types), the big-endian layout in memory, the raw-address policy
  and the argument checks;
- VM, rxe: every creator fails as the reference's does (message and errno);
- VM, rxe under the recording double of libmlx5 (tests/fakes/mlx5_double.c),
  where the creators succeed: what reaches libmlx5, a rejected firmware
  status destroying what was created, and the close order.
"""
import os
import struct

import pytest

import ref_compare

pytest.importorskip('pyverbs.providers.mlx5.mlx5dv')
from pyverbs import _verbs  # noqa: E402

if not getattr(_verbs, '_HAVE_MLX5', 0):
    pytest.skip('pyverbs-c was built without libmlx5',
                allow_module_level=True)

import pyverbs.mem_alloc as mem  # noqa: E402
from pyverbs.providers.mlx5.mlx5dv import (  # noqa: E402
    Mlx5Cqe64, Mlx5DevxEq, Mlx5DevxMsiVector, Mlx5DevxObj, Mlx5DmOpAddr,
    Mlx5UMEM, Wqe, WqeCtrlSeg, WqeDataSeg, WqeSeg)
from pyverbs.providers.mlx5.mlx5dv_sched import (  # noqa: E402
    Mlx5dvSchedAttr, Mlx5dvSchedLeaf, Mlx5dvSchedNode)
from pyverbs.pyverbs_error import PyverbsUserError  # noqa: E402

def _same(code):
    ours, theirs = ref_compare.run_both(code)
    assert ours == theirs
    assert ours, 'the snippet printed nothing'
    return ours


# ------------------------------------------------------------------ host

SEGMENTS = r'''
import pyverbs.mem_alloc as mem
from pyverbs.providers.mlx5.mlx5dv import (WqeSeg, WqeCtrlSeg, WqeDataSeg,
                                           Wqe)
c = WqeCtrlSeg(pi=0x1234, opcode=8, opmod=2, qp_num=0x123456, fm_ce_se=8,
               ds=3, signature=5, imm=0x11223344)
show('ctrl str', lambda: str(c))
for a in ('opmod_idx_opcode', 'qpn_ds', 'signature', 'fm_ce_se', 'imm'):
    show('ctrl ' + a, lambda: getattr(c, a))
show('ctrl bytes', lambda: mem.read(c.addr, 16).hex())
show('sizes', lambda: (WqeSeg.sizeof(), WqeCtrlSeg.sizeof(),
                       WqeDataSeg.sizeof(), c.sizeof()))
c.set_ctrl_seg(1, 2, 3, 4, 5, 6, 7, 8)
show('ctrl set', lambda: mem.read(c.addr, 16).hex())
c.imm = 0xa0b0c0d0
c.qpn_ds = 0x01020304
c.fm_ce_se = 0xff
show('ctrl setters', lambda: mem.read(c.addr, 16).hex())
show('ctrl default', lambda: str(WqeCtrlSeg()))
d = WqeDataSeg(16, 0x77, 0x1000)
show('data str', lambda: str(d))
show('data', lambda: (d.byte_count, d.lkey, d.addr))
d.set_data_seg(0xffffffff, 0xfffffffe, 2**64 - 1)
show('data max', lambda: (d.byte_count, d.lkey, d.addr, str(d)))
d.addr = 0x0102030405060708
show('data addr', lambda: (d.addr, str(d)))
w = Wqe([c, d, b'\x01\x02\x03\x04', bytearray(b'\x05')])
show('wqe str', lambda: str(w))
show('wqe bytes', lambda: mem.read(w.address, 37).hex())
show('wqe empty', lambda: str(Wqe([])))
w2 = Wqe([WqeSeg(), d])
show('wqe base seg', lambda: mem.read(w2.address, 16).hex())
for name, fn in [
        ('pi', lambda: WqeCtrlSeg(pi=2**16)),
        ('opcode', lambda: WqeCtrlSeg(opcode=256)),
        ('opmod', lambda: WqeCtrlSeg(opmod=-1)),
        ('qp_num', lambda: WqeCtrlSeg(qp_num=2**32)),
        ('fm_ce_se', lambda: WqeCtrlSeg(fm_ce_se=300)),
        ('imm', lambda: WqeCtrlSeg(imm=2**32)),
        ('str', lambda: WqeCtrlSeg(opcode='x')),
        ('none', lambda: WqeCtrlSeg(ds=None)),
        ('kw', lambda: WqeCtrlSeg(nope=1)),
        ('set few', lambda: c.set_ctrl_seg(1, 2)),
        ('length', lambda: WqeDataSeg(length=2**32)),
        ('lkey', lambda: WqeDataSeg(lkey=-1)),
        ('addr', lambda: WqeDataSeg(addr=2**64)),
        ('set data few', lambda: d.set_data_seg(1)),
        ('sig setter', lambda: setattr(c, 'signature', 256)),
        ('fm setter', lambda: setattr(c, 'fm_ce_se', -1)),
        ('wqe int seg', lambda: Wqe([5])),
        ('wqe none', lambda: Wqe(None)),
        ('wqe addr', lambda: Wqe([], addr=-1))]:
    show('bad ' + name, fn)
'''


def test_segments_same_as_reference():
    out = _same(SEGMENTS)
    assert any(line.startswith('bad pi OverflowError') for line in out)
    # upstream takes floats and truncates them; ours refuses them
    for kw in ({'pi': 1.5}, {'imm': 2.0}):
        with pytest.raises(TypeError):
            WqeCtrlSeg(**kw)
    with pytest.raises(TypeError):
        WqeDataSeg(length=1.5)
    # upstream prints the TypeError of bytes('x') as unraisable and goes on
    # with the segment left out
    with pytest.raises(TypeError):
        Wqe([WqeCtrlSeg(), 'x'])

    class Liar:
        def __len__(self):
            return 8

        def __bytes__(self):
            return b'ab'
    with pytest.raises(ValueError):          # upstream reads past b'ab'
        Wqe([Liar()])


CQE = r'''
import pyverbs.mem_alloc as mem
from pyverbs.providers.mlx5.mlx5dv import Mlx5Cqe64
buf = mem.posix_memalign(64, 64)
q = Mlx5Cqe64(buf)
show('empty', lambda: (q.is_empty(), q.dump(), str(q)))
mem.write(buf, bytes(range(0xc0, 0x100)), 64)
show('dump', q.dump)
show('is_empty', q.is_empty)
show('str', lambda: str(q))
for a in ('owner', 'se', 'format', 'opcode', 'imm_inval_pkey', 'wqe_id',
          'byte_cnt', 'timestamp', 'wqe_counter', 'signature', 'op_own'):
    show(a, lambda: getattr(q, a))
q.owner = 0
show('owner 0', lambda: (q.owner, q.op_own, mem.read(buf, 64).hex()))
q.owner = 1
show('owner 1', lambda: (q.owner, q.op_own))
show('owner 256', lambda: setattr(q, 'owner', 256))
show('owner -1', lambda: setattr(q, 'owner', -1))
show('owner str', lambda: setattr(q, 'owner', 'x'))
show('se ro', lambda: setattr(q, 'se', 1))
show('addr str', lambda: Mlx5Cqe64('x'))
show('addr none', lambda: Mlx5Cqe64(None))
show('addr neg', lambda: Mlx5Cqe64(-1))
show('no addr', lambda: Mlx5Cqe64())
mem.free(buf)
'''


def test_cqe64_same_as_reference():
    _same(CQE)


SCHED = r'''
from pyverbs.providers.mlx5.mlx5dv_sched import Mlx5dvSchedAttr
a = Mlx5dvSchedAttr(bw_share=3, max_avg_bw=2**32 - 1, flags=1,
                    comp_mask=2**64 - 1)
show('str', lambda: str(a))
show('props', lambda: (a.bw_share, a.max_avg_bw, a.flags, a.comp_mask))
show('default', lambda: str(Mlx5dvSchedAttr()))
show('none parent', lambda: str(Mlx5dvSchedAttr(None, 1, 2, 3, 4)))
show('ro', lambda: setattr(a, 'bw_share', 1))
for name, kw in [('parent', {'parent_sched_node': 5}),
                 ('bw big', {'bw_share': 2**32}),
                 ('bw neg', {'max_avg_bw': -1}),
                 ('flags str', {'flags': 'x'}),
                 ('mask big', {'comp_mask': 2**64}),
                 ('kw', {'nope': 1})]:
    show('bad ' + name, lambda: Mlx5dvSchedAttr(**kw))
'''


def test_sched_attr_same_as_reference():
    _same(SCHED)
    # upstream takes a float and truncates it; ours refuses it
    with pytest.raises(TypeError):
        Mlx5dvSchedAttr(bw_share=1.5)


def test_segment_fields_are_big_endian():
    c = WqeCtrlSeg(pi=0x1234, opcode=0x0a, opmod=0x0b, qp_num=0xabcdef,
                   fm_ce_se=0x08, ds=2, signature=0x5a, imm=0x11223344)
    raw = mem.read(c.addr, 16)
    # opmod_idx_opcode = opmod << 24 | pi << 8 | opcode, stored big-endian
    assert raw[0:4] == bytes([0x0b, 0x12, 0x34, 0x0a])
    assert raw[4:8] == bytes([0xab, 0xcd, 0xef, 0x02])
    assert raw[8] == 0x5a and raw[11] == 0x08
    # mlx5dv_set_ctrl_seg stores imm as given (the caller swaps it for
    # the opcodes that need it); the property reads it big-endian
    assert raw[12:16] == struct.pack('=I', 0x11223344)
    assert c.opmod_idx_opcode == 0x0b12340a
    assert c.imm == struct.unpack('>I', raw[12:16])[0]
    c.imm = 0x11223344
    assert mem.read(c.addr, 16)[12:16] == bytes.fromhex('11223344')
    d = WqeDataSeg(0x100, 0x77, 0x1122334455667788)
    w = Wqe([c, d])
    raw = mem.read(w.address, 32)
    assert raw[16:20] == struct.pack('>I', 0x100)
    assert raw[20:24] == struct.pack('>I', 0x77)
    assert raw[24:32] == struct.pack('>Q', 0x1122334455667788)
    assert 'byte_count          : %d' % struct.unpack(
        '=I', struct.pack('>I', 0x100))[0] in str(d)


def test_setters_never_truncate():
    # upstream truncates these silently (htobe32 of an unsigned long)
    c, d = WqeCtrlSeg(), WqeDataSeg()
    for obj, name, big in ((c, 'opmod_idx_opcode', 2**32), (c, 'qpn_ds', 2**32),
                           (c, 'imm', 2**40), (d, 'byte_count', 2**32),
                           (d, 'lkey', 2**33), (d, 'addr', 2**64)):
        with pytest.raises(OverflowError):
            setattr(obj, name, big)
        with pytest.raises(TypeError):
            setattr(obj, name, None)
        with pytest.raises(AttributeError):
            delattr(obj, name)
    assert mem.read(c.addr, 16) == bytes(16)


def test_wqe_at_a_raw_address():
    c, d = WqeCtrlSeg(opcode=8, qp_num=5, ds=2), WqeDataSeg(8, 0x77, 0x1000)
    buf = mem.posix_memalign(64, 64)
    try:
        w = Wqe([c, d, b'\xee' * 4], addr=buf)
        assert w.address == buf
        assert mem.read(buf, 36) == mem.read(Wqe([c, d, b'\xee' * 4]).address,
                                             36)
        w.close()
        assert mem.read(buf, 4) == mem.read(c.addr, 4)   # not freed by us
        with pytest.raises(PyverbsUserError):
            w.address
        c._copy_to_buffer(buf + 32)
        assert mem.read(buf + 32, 16) == mem.read(c.addr, 16)
    finally:
        mem.free(buf)


def test_raw_addresses_that_cannot_be_reached_raise():
    bad = mem.mmap(length=4096)
    mem.munmap(bad, 4096)                    # a hole: nothing mapped there
    for fn in (lambda: Wqe([WqeCtrlSeg()], addr=bad),
               lambda: Wqe([b'x' * 8], addr=8),
               lambda: WqeCtrlSeg()._copy_to_buffer(bad),
               lambda: Mlx5Cqe64(bad).opcode,
               lambda: Mlx5Cqe64(0).dump(),
               lambda: Mlx5Cqe64(bad).is_empty(),
               lambda: str(Mlx5Cqe64(bad)),
               lambda: setattr(Mlx5Cqe64(bad), 'owner', 1)):
        with pytest.raises(PyverbsUserError):
            fn()
    ro = mem.mmap(length=4096, prot=mem.PROT_READ_)
    try:
        with pytest.raises(PyverbsUserError):
            setattr(Mlx5Cqe64(ro), 'owner', 1)
        assert Mlx5Cqe64(ro).is_empty()
    finally:
        mem.munmap(ro, 4096)


def test_closed_segments():
    c, d = WqeCtrlSeg(imm=1), WqeDataSeg(1)
    with c:
        pass
    assert c.closed
    for fn in (lambda: c.imm, lambda: c.addr, lambda: str(c),
               lambda: c.set_ctrl_seg(0, 0, 0, 0, 0, 0, 0, 0),
               lambda: setattr(c, 'imm', 1), lambda: Wqe([d, c]),
               lambda: c._copy_to_buffer(0)):
        with pytest.raises(PyverbsUserError):
            fn()
    c.close()
    assert d.byte_count == 1
    # a segment made without __init__ is a zeroed one
    raw = WqeCtrlSeg.__new__(WqeCtrlSeg)
    assert raw.imm == 0 and str(raw)
    # subclasses keep their segment size
    class Ctrl(WqeCtrlSeg):
        pass
    ctrl = Ctrl(imm=2)
    w = Wqe([ctrl])
    assert mem.read(w.address, 16) == mem.read(ctrl.addr, 16) != bytes(16)


def test_wqe_segments_list_is_kept_for_str():
    segs = [WqeDataSeg(1, 2, 3)]
    w = Wqe(segs)
    assert str(w) == (f"Segment type {WqeDataSeg!r} #0:\n" + str(segs[0]))
    w.close()
    w.close()
    with pytest.raises(PyverbsUserError):
        str(w)


def test_creators_check_their_arguments():
    attr = Mlx5dvSchedAttr()
    for fn, exc in ((lambda: Mlx5DevxObj(None, b'', 16), TypeError),
                    (lambda: Mlx5DevxEq(object(), b'', 16), TypeError),
                    (lambda: Mlx5UMEM(None, 4096), TypeError),
                    (lambda: Mlx5DevxMsiVector(None), TypeError),
                    (lambda: Mlx5DmOpAddr(None), TypeError),
                    (lambda: Mlx5DmOpAddr(5, op=1), TypeError),
                    (lambda: Mlx5dvSchedNode(None, attr), TypeError),
                    (lambda: Mlx5dvSchedLeaf(None, attr), TypeError),
                    (lambda: Mlx5dvSchedAttr(parent_sched_node=attr),
                     TypeError)):
        with pytest.raises(exc):
            fn()
    # objects never created are closed and safe to use
    for cls in (Mlx5DevxObj, Mlx5DevxEq, Mlx5UMEM, Mlx5DevxMsiVector,
                Mlx5DmOpAddr, Mlx5dvSchedNode, Mlx5dvSchedLeaf):
        o = cls.__new__(cls)
        assert o.closed
        o.close()
        for name in ('out_view', 'obj', 'vaddr', 'umem_id', 'umem_addr',
                     'vector', 'fd', 'addr', 'sched_attr', 'bw_share'):
            if hasattr(cls, name):
                with pytest.raises(PyverbsUserError):
                    getattr(o, name)
        if cls in (Mlx5UMEM, Mlx5dvSchedNode, Mlx5dvSchedLeaf):
            with pytest.raises(PyverbsUserError):
                str(o)


def test_module_layout():
    import pyverbs.providers.mlx5.mlx5dv as dv
    import pyverbs.providers.mlx5.mlx5dv_sched as sched
    from pyverbs.base import PyverbsCM, PyverbsObject
    for cls in (Mlx5DevxObj, Mlx5UMEM, Mlx5DevxEq, Mlx5DevxMsiVector,
                Mlx5DmOpAddr, WqeSeg, Wqe):
        assert issubclass(cls, PyverbsCM)
        assert cls.__module__ == dv.__name__
    assert issubclass(WqeCtrlSeg, WqeSeg) and issubclass(WqeDataSeg, WqeSeg)
    assert issubclass(Mlx5Cqe64, PyverbsObject)
    assert not issubclass(Mlx5Cqe64, PyverbsCM)
    for cls in (Mlx5dvSchedAttr, Mlx5dvSchedNode, Mlx5dvSchedLeaf):
        assert cls.__module__ == sched.__name__
        assert getattr(sched, cls.__name__) is cls


# -------------------------------------------------------------- VM: rxe

ON_RXE = r'''
import sys
from pyverbs.device import Context
from pyverbs.providers.mlx5.mlx5dv import (Mlx5DevxObj, Mlx5UMEM,
                                           Mlx5DevxEq, Mlx5DevxMsiVector)
from pyverbs.providers.mlx5.mlx5dv_sched import (
    Mlx5dvSchedAttr, Mlx5dvSchedNode, Mlx5dvSchedLeaf)
import pyverbs.mem_alloc as mem
ctx = Context(name=DEV)
buf = mem.posix_memalign(4096, 4096)


def exact(label, fn):
    try:
        fn()
        print(label, 'ok', flush=True)
    except Exception as ex:
        print(label, type(ex).__name__, str(ex),
              getattr(ex, 'error_code', None), flush=True)


exact('devx obj', lambda: Mlx5DevxObj(ctx, bytes(16), 16))
exact('devx obj in_ int', lambda: Mlx5DevxObj(ctx, 16, 16))
exact('umem', lambda: Mlx5UMEM(ctx, 4096))
exact('umem ex', lambda: Mlx5UMEM(ctx, 4096, pgsz_bitmap=4096))
exact('umem mask', lambda: Mlx5UMEM(ctx, 4096, comp_mask=1))
exact('umem addr', lambda: Mlx5UMEM(ctx, 4096, addr=buf, access=1))
exact('eq', lambda: Mlx5DevxEq(ctx, bytes(64), 64))
exact('msi', lambda: Mlx5DevxMsiVector(ctx))
exact('node', lambda: Mlx5dvSchedNode(ctx, Mlx5dvSchedAttr()))
exact('leaf', lambda: Mlx5dvSchedLeaf(ctx, Mlx5dvSchedAttr(bw_share=1)))
ctx.close()
mem.free(buf)
print('done')
'''


def test_creators_fail_on_rxe_as_the_reference(dev_name):
    out = _same(ON_RXE.replace('DEV', repr(dev_name)))
    assert out[-1] == 'done'
    for line in out[:-1]:
        assert line.endswith(' 95'), line      # EOPNOTSUPP from libmlx5


def test_closed_context_is_refused(ctx):
    ctx.close()
    for fn in (lambda: Mlx5DevxObj(ctx, b'', 16),
               lambda: Mlx5DevxEq(ctx, b'', 16),
               lambda: Mlx5UMEM(ctx, 64),
               lambda: Mlx5DevxMsiVector(ctx),
               lambda: Mlx5dvSchedNode(ctx, Mlx5dvSchedAttr())):
        with pytest.raises(PyverbsUserError):
            fn()


# ------------------------------------------- VM: under the libmlx5 double

from test_mlx5_double import double, run_under_double  # noqa: E402,F401


SCENARIO = r'''
import sys
from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsRDMAError, PyverbsUserError
from pyverbs.providers.mlx5.mlx5dv import (Mlx5DevxObj, Mlx5UMEM,
                                           Mlx5DevxEq, Mlx5DevxMsiVector)
from pyverbs.providers.mlx5.mlx5dv_sched import (
    Mlx5dvSchedAttr, Mlx5dvSchedNode, Mlx5dvSchedLeaf)
import pyverbs.mem_alloc as mem

ctx = Context(name=sys.argv[1])
obj = Mlx5DevxObj(ctx, bytes(range(16)), 16)
print('out_view', bytes(obj.out_view).hex())
print('query', obj.query(b'\x01\x02', 4).hex())
print('modify', obj.modify(bytearray(b'\x03'), 2).hex())
print('obj', obj.obj != 0)
Mlx5DevxObj(ctx, bytes(8), 12)   # status 0: created, then collected
eq = Mlx5DevxEq(ctx, bytes(4), 8)
print('eq', hex(eq.vaddr), bytes(eq.out_view).hex())
um = Mlx5UMEM(ctx, 8192, alignment=4096)
print('umem', hex(um.umem_id), um.umem_addr % 4096, str(um).split()[:3])
buf = mem.posix_memalign(4096, 4096)
um2 = Mlx5UMEM(ctx, 4096, addr=buf, access=7, pgsz_bitmap=4096,
               comp_mask=0, dmabuf_fd=3)
print('umem2', um2.umem_addr == buf)
try:
    Mlx5UMEM(ctx, 64, alignment=3)
except ValueError:
    print('alignment refused')
msi = Mlx5DevxMsiVector(ctx)
print('msi', msi.vector, msi.fd)
root = Mlx5dvSchedNode(ctx, Mlx5dvSchedAttr())
node = Mlx5dvSchedNode(ctx, Mlx5dvSchedAttr(root, bw_share=2, flags=1))
leaf = Mlx5dvSchedLeaf(ctx, Mlx5dvSchedAttr(node, max_avg_bw=7, flags=2))
new = Mlx5dvSchedAttr(node, bw_share=9, flags=1)
leaf.modify(new)
print('leaf', leaf.sched_attr is new, leaf.bw_share, leaf.max_avg_bw,
      leaf.flags, leaf.comp_mask)
print(str(leaf).splitlines()[0])
root.modify(sched_attr=Mlx5dvSchedAttr(max_avg_bw=5))
node.close()                    # closes the leaf first
print('leaf closed', leaf.closed)
try:
    Mlx5dvSchedLeaf(ctx, Mlx5dvSchedAttr(node))
except PyverbsUserError:
    print('closed parent refused')
other = Context(name=sys.argv[1])
try:
    Mlx5dvSchedLeaf(other, Mlx5dvSchedAttr(root))
except PyverbsUserError:
    print('parent of another context refused')
other.close()
ctx.close()                     # closes everything left, newest first
print('closed', obj.closed, eq.closed, um.closed, um2.closed, msi.closed,
      root.closed)
mem.free(buf)
print('done')
'''


def test_objects_under_the_double(double, dev_name, tmp_path, monkeypatch):
    monkeypatch.setenv('PVFAKE_DEVX_STATUS', '0:0')
    r, log = run_under_double(double, dev_name, ['-c', SCENARIO, dev_name],
                              tmp_path)
    assert r.returncode == 0, r.stderr + log
    out = r.stdout.splitlines()
    assert out[0] == 'out_view 00000000000000008081828384858687'
    assert out[1:3] == ['query 01020000', 'modify 0300']
    assert 'FATAL' not in log
    calls = [line.split(' -> ')[0] for line in log.splitlines()
             if not line.startswith('mlx5dv_is_supported')]
    assert calls[:4] == [
        'mlx5dv_devx_obj_create dev=%s inlen=16 '
        'in=000102030405060708090a0b0c0d0e0f outlen=16' % dev_name,
        'mlx5dv_devx_obj_query devx#1 inlen=2 in=0102 outlen=4',
        'mlx5dv_devx_obj_modify devx#1 inlen=1 in=03 outlen=2',
        'mlx5dv_devx_obj_create dev=%s inlen=8 in=0000000000000000 '
        'outlen=12' % dev_name]
    assert r.stdout.count('\n') > 10 and out[-1] == 'done', r.stdout
    text = '\n'.join(out)
    assert 'eq 0xe0000 0000000000000000' in out
    assert "umem 0x501 0 ['umem', 'id', ':']" in text
    assert 'umem2 True' in text and 'alignment refused' in text
    assert 'leaf True 9 0 1 0' in text
    assert out[out.index('leaf True 9 0 1 0') + 1] == 'Mlx5dvSchedLeaf:'
    assert 'leaf closed True' in text
    assert 'closed parent refused' in text
    assert 'parent of another context refused' in text
    assert 'closed True True True True True True' in text
    assert 'mlx5dv_devx_umem_reg_ex size=4096 access=0x7 pgsz_bitmap=0x1000 '\
        'comp_mask=0x0 dmabuf_fd=3' in log
    assert 'mlx5dv_devx_umem_reg size=8192 access=0x0 align64=1' in log
    tail = [c for c in calls if 'destroy' in c or 'dereg' in c or
            'free' in c]
    # the object nobody kept went at once; node closed its leaf first; the
    # Context closed the rest newest first
    assert tail == ['mlx5dv_devx_obj_destroy devx#2',
                    'mlx5dv_sched_leaf_destroy leaf#1',
                    'mlx5dv_sched_node_destroy node#2',
                    'mlx5dv_sched_node_destroy node#1',
                    'mlx5dv_devx_free_msi_vector msi#1',
                    'mlx5dv_devx_umem_dereg umem#2',
                    'mlx5dv_devx_umem_dereg umem#1',
                    'mlx5dv_devx_destroy_eq eq#1',
                    'mlx5dv_devx_obj_destroy devx#1'], log
    assert 'mlx5dv_sched_leaf_modify leaf#1 parent=node#2 flags=0x1 '\
        'bw_share=9 max_avg_bw=0 comp_mask=0x0' in log
    assert 'mlx5dv_sched_leaf_create dev=%s parent=node#2 flags=0x2 '\
        'bw_share=0 max_avg_bw=7 comp_mask=0x0' % dev_name in log


REJECTED = r'''
import sys
from pyverbs.device import Context
from pyverbs.pyverbs_error import PyverbsRDMAError
from pyverbs.providers.mlx5.mlx5dv import Mlx5DevxObj, Mlx5DevxEq
ctx = Context(name=sys.argv[1])
for cls in (Mlx5DevxObj, Mlx5DevxEq):
    try:
        cls(ctx, bytes(16), 16)
        print(cls.__name__, 'created')
    except PyverbsRDMAError as ex:
        print(cls.__name__, ex, ex.error_code)
ctx.close()
print('done')
'''


def _rejected(double, dev_name, tmp_path, **kw):
    return run_under_double(double, dev_name, ['-c', REJECTED, dev_name],
                            tmp_path, **kw)


def test_rejected_status_destroys_what_was_created(double, dev_name,
                                                   tmp_path, monkeypatch):
    monkeypatch.setenv('PVFAKE_DEVX_STATUS', '5:a0b1c2d3')
    r, log = _rejected(double, dev_name, tmp_path)
    assert r.returncode == 0, r.stderr + log
    assert r.stdout.splitlines() == [
        'Mlx5DevxObj Failed to create DevX object with status(0x5) and '
        'syndrome (0xa0b1c2d3) -1',
        'Mlx5DevxEq Failed to create async EQ object with status(0x5) and '
        'syndrome (0xa0b1c2d3) -1', 'done']
    calls = [line.split(' -> ')[0] for line in log.splitlines()
             if 'devx' in line]
    assert calls == [
        'mlx5dv_devx_obj_create dev=%s inlen=16 in=%s outlen=16' % (
            dev_name, '00' * 16),
        'mlx5dv_devx_obj_destroy devx#1',
        'mlx5dv_devx_create_eq dev=%s inlen=16 in=%s outlen=16' % (
            dev_name, '00' * 16),
        'mlx5dv_devx_destroy_eq eq#1'], log


def test_rejected_status_message_is_the_references(double, dev_name,
                                                   tmp_path, monkeypatch):
    monkeypatch.setenv('PVFAKE_DEVX_STATUS', '5:a0b1c2d3')
    ref = ref_compare.reference_path()
    if not (os.path.exists(ref_compare.REFERENCE_PYTHON) and
            os.path.isdir(os.path.join(ref, 'pyverbs'))):
        pytest.skip('the reference pyverbs is not unpacked')
    ours, _ = _rejected(double, dev_name, tmp_path, name='ours')
    theirs, _ = _rejected(double, dev_name, tmp_path,
                            python=ref_compare.REFERENCE_PYTHON,
                            pythonpath=ref, name='theirs')
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout


DM_OPS = r'''
import sys
from pyverbs.device import Context, DM, AllocDmAttr
from pyverbs.pyverbs_error import PyverbsUserError
from pyverbs.providers.mlx5.mlx5dv import Mlx5DmOpAddr


def refused(label, fn):
    try:
        fn()
        print(label, 'NOT REFUSED')
    except PyverbsUserError:
        print(label, 'refused')


ctx = Context(name=sys.argv[1])
dm = DM(ctx, AllocDmAttr(100))
dm.copy_to_dm(0, bytes(range(100)), 100)
a = Mlx5DmOpAddr(dm, op=1)
print('offset', a.addr % 4096)
# one load or store of 1, 2, 4 or 8 bytes (upstream since rdma-core 52)
print('read', a.read(8).hex(), a.read(4).hex(), a.read(2).hex(),
      a.read(1).hex())
a.write(b'\xaa\xbb')
a.write(bytearray(b'\xcc'))
a.write(b'\x11\x22\x33\x44')
a.write(b'\x55' * 8)
a.write(b'\x66' * 4)
print('written', a.read(8).hex())
for n in (0, 3, 5, 16, 100):
    refused(f'read {n}', lambda: a.read(n))
    refused(f'write {n}', lambda: a.write(bytes(n)))
b = Mlx5DmOpAddr(dm)
b.unmap(100)
print('unmapped', b.closed)
refused('read after unmap', lambda: b.read(1))
small = DM(ctx, AllocDmAttr(4))
c = Mlx5DmOpAddr(small, 2)
print('small', c.read(4).hex())
refused('read past the DM', lambda: c.read(8))
refused('write past the DM', lambda: c.write(bytes(8)))
small.close()
print('closed with its DM', c.closed)
refused('addr after close', lambda: c.addr)
ctx.close()
print('closed', a.closed, dm.closed)
print('done')
'''


@pytest.mark.parametrize('offset', [0, 3996])
def test_dm_op_addr_under_the_double(double, dev_name, tmp_path, monkeypatch,
                                     offset):
    monkeypatch.setenv('PVFAKE_DM', str(offset))
    r, log = run_under_double(double, dev_name, ['-c', DM_OPS, dev_name],
                              tmp_path)
    assert r.returncode == 0, r.stderr + log
    out = r.stdout.splitlines()
    assert out == [
        f'offset {offset}', 'read 0001020304050607 00010203 0001 00',
        'written 6666666655555555'] + [
        f'{op} {n} refused' for n in (0, 3, 5, 16, 100)
        for op in ('read', 'write')] + [
        'unmapped True', 'read after unmap refused', 'small 00000000',
        'read past the DM refused', 'write past the DM refused',
        'closed with its DM True', 'addr after close refused',
        'closed True True', 'done'], r.stdout + log
    assert 'FATAL' not in log
    assert [line.split(' -> ')[0] for line in log.splitlines()
            if 'dm' in line] == [
        f'ibv_alloc_dm dev={dev_name} length=100',
        'mlx5dv_dm_map_op_addr dm#1 op=1',
        'mlx5dv_dm_map_op_addr dm#1 op=0',
        f'ibv_alloc_dm dev={dev_name} length=4',
        'mlx5dv_dm_map_op_addr dm#2 op=2',
        'ibv_free_dm dm#2', 'ibv_free_dm dm#1'], log
