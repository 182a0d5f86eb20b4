# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The lifetime protocol: close cascades, order, GC cycles, exit."""
import gc
import os
import subprocess
import sys
import textwrap
import weakref

import pytest

from pyverbs.base import PyverbsCM, PyverbsObject
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsUserError

LOCAL_WRITE = 1


def test_handle_types_are_context_managers():
    for cls in (Context, PD, MR):
        assert issubclass(cls, PyverbsCM)
        assert issubclass(cls, PyverbsObject)
        assert hasattr(cls, '__enter__') and hasattr(cls, 'close')


def test_cascade_closes_children_first(dev_name):
    ctx = Context(name=dev_name)
    pds = [PD(ctx) for _ in range(3)]
    mrs = [MR(p, 4096, LOCAL_WRITE) for p in pds for _ in range(3)]
    ctx.close()
    assert all(o.closed for o in pds + mrs)
    # every method of a closed object raises, none crashes
    for m in mrs:
        for op in (lambda: m.lkey, lambda: m.read(1, 0),
                   lambda: m.write(b'x', 1)):
            with pytest.raises(PyverbsUserError):
                op()
        m.close()


def test_out_of_order_close(dev_name):
    ctx = Context(name=dev_name)
    pd = PD(ctx)
    mr = MR(pd, 4096, LOCAL_WRITE)
    mr.close()
    ctx.close()
    pd.close()
    assert pd.closed and mr.closed and ctx.closed


def test_parent_kept_alive_by_child(dev_name):
    ctx = Context(name=dev_name)
    ref = weakref.ref(ctx)
    pd = PD(ctx)
    del ctx
    gc.collect()
    assert ref() is not None                 # the PD holds its Context
    mr = MR(pd, 4096, LOCAL_WRITE)
    mr.write(b'ok', 2)
    del mr, pd
    gc.collect()
    assert ref() is None                     # and releases it when gone


def test_gc_cycle_through_user_attributes(dev_name):
    ctx = Context(name=dev_name)
    pd = PD(ctx)
    mr = MR(pd, 4096, LOCAL_WRITE)
    # A cycle the objects cannot see: parent -> child through __dict__.
    ctx.keep = [pd, mr]
    mr.back = ctx
    refs = [weakref.ref(o) for o in (ctx, pd, mr)]
    del ctx, pd, mr
    gc.collect()
    assert all(r() is None for r in refs)


def test_gc_cycle_with_memoryview(pd):
    mr = MR(pd, 4096, LOCAL_WRITE)
    view = memoryview(mr)
    mr.view = view                           # MR -> view -> MR
    ref = weakref.ref(mr)
    del mr, view
    gc.collect()
    assert ref() is None


def test_many_objects_released(dev_name):
    for _ in range(20):
        ctx = Context(name=dev_name)
        for _ in range(5):
            MR(PD(ctx), 4096, LOCAL_WRITE)
        # no explicit close: finalizers release everything
    gc.collect()


def _run(code):
    env = dict(os.environ)
    return subprocess.run([sys.executable, '-c', textwrap.dedent(code)],
                          capture_output=True, text=True, env=env,
                          timeout=120)


def test_interpreter_exit_with_live_objects(dev_name):
    r = _run(f'''
        from pyverbs.device import Context
        from pyverbs.pd import PD
        from pyverbs.mr import MR
        ctx = Context(name={dev_name!r})
        pd = PD(ctx)
        mr = MR(pd, 4096, 1)
        view = memoryview(mr)
        ctx.cycle = [ctx, pd, mr, view]
        import builtins
        builtins.keep = mr          # alive until the very end
        print('done')
    ''')
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == 'done'
    assert 'Exception ignored' not in r.stderr
    assert 'Traceback' not in r.stderr


def test_interpreter_exit_after_context_close(dev_name):
    r = _run(f'''
        from pyverbs.device import Context
        from pyverbs.pd import PD
        from pyverbs.mr import MR
        ctx = Context(name={dev_name!r})
        mrs = [MR(PD(ctx), 4096, 1) for _ in range(3)]
        ctx.close()
        print(all(m.closed for m in mrs))
    ''')
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == 'True'
    assert r.stderr == ''
