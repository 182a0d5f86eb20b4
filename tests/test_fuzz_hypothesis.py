# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Property-based fuzzing: no crash on any input, found by search.

tests/test_fuzz.py calls everything with a fixed list of bad values, one
value at a time.  Here hypothesis draws whole argument lists and keyword
sets: mixed types, integers at and around every C boundary, strings, bytes,
nested lists, other pyverbs objects (of the wrong kind, unopened or
closed), for every native class's constructor, every settable attribute
and every method, and (in the VM) every method of live objects.  The only
property: the call returns or raises an ordinary exception (never a crash,
never SystemError).  When hypothesis finds a failure it shrinks it and
prints the call to reproduce.

The time is bounded: PYVERBS_FUZZ_EXAMPLES examples per class (default
15 on the host) and PYVERBS_FUZZ_LIVE_EXAMPLES per live object in the VM
(default 15), no deadline per example.  The live part found librdmacm's
NULL dereferences in rdma_accept()/rdma_connect() on ids not ready for
them (now EINVAL, tests/test_cmid.py).  To hunt a crash: PYVERBS_FUZZ_TRACE=1
prints each call before making it (run pytest with -s, so that the lines
reach the terminal before the process dies), PYTHONMALLOC=debug catches
heap damage nearer its cause, PYVERBS_FUZZ_LIVE=0 leaves the live part out.
"""
import inspect
import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import test_fuzz as base

EXAMPLES = int(os.environ.get('PYVERBS_FUZZ_EXAMPLES', '15'))
# PYVERBS_FUZZ_TRACE=1: print each call to stderr before making it (the
# last line before a crash names it)
TRACE = bool(os.environ.get('PYVERBS_FUZZ_TRACE'))
LIVE_EXAMPLES = int(os.environ.get('PYVERBS_FUZZ_LIVE_EXAMPLES', '15'))

FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))

# the edges of the C types the extension converts to
EDGES = [0, 1, -1, 2**7, 2**8, 2**15, 2**16, 2**31, 2**32, 2**63, 2**64]
edge_ints = st.sampled_from(EDGES).flatmap(
    lambda v: st.sampled_from([v - 1, v, v + 1, -v]))
scalars = st.one_of(
    st.none(), st.booleans(), edge_ints, st.integers(),
    st.floats(allow_nan=True), st.text(max_size=40),
    st.binary(max_size=64), st.just(object()))


def _unopened(cls):
    try:
        return cls.__new__(cls)
    except Exception:
        return None


# pyverbs objects of every native class, never initialised: the "object of
# the wrong kind" and "closed object" cases
OBJECTS = [o for o in (_unopened(c) for c in base._native_types())
           if o is not None]
objects = st.sampled_from(OBJECTS) if OBJECTS else st.none()
values = st.recursive(st.one_of(scalars, objects),
                      lambda inner: st.lists(inner, max_size=4) |
                      st.tuples(inner, inner), max_leaves=6)


def safe(cls):
    """Constructors that allocate what their argument says (DmaBuf) are
    left to test_fuzz, which keeps to sizes that cannot be valid."""
    return cls.__name__ not in base.ALLOCATES


def call_with(fn, data):
    """Draw positional values and keywords (from the signature's names and
    one unknown name) for fn and call it."""
    args = data.draw(st.lists(values, max_size=5), label='args')
    names = [p.name for p in base._params(fn)] + ['no_such_keyword']
    kwargs = data.draw(st.dictionaries(st.sampled_from(names), values,
                                       max_size=3), label='kwargs')
    if TRACE:
        print(f'call {fn!r} {args!r} {kwargs!r}', file=sys.stderr,
              flush=True)
    return base._call(fn, *args, **kwargs)


def members(cls):
    """(name, kind) of what a fuzz may touch: 'attr' for data
    descriptors, 'method' for the rest; blocking calls and close left out."""
    out = []
    for name in dir(cls):
        if name.startswith('__') and name not in ('__init__', '__str__',
                                                  '__enter__', '__exit__'):
            continue
        if name in base.BLOCKING or name == 'close':
            continue
        attr = inspect.getattr_static(cls, name, None)
        out.append((name, 'attr' if inspect.isdatadescriptor(attr)
                    else 'method'))
    return out


def poke(obj, data, skip=()):
    """One draw: a member of obj (other than those in skip), and a set,
    get or call of it."""
    choices = [m for m in members(type(obj)) if m[0] not in skip]
    if not choices:
        return
    name, kind = data.draw(st.sampled_from(choices), label='member')
    if kind == 'attr':
        if data.draw(st.booleans(), label='set'):
            value = data.draw(values, label='value')
            if TRACE:
                print(f'set {type(obj).__name__}.{name} = {value!r}',
                      file=sys.stderr, flush=True)
            base._call(setattr, obj, name, value)
        else:
            if TRACE:
                print(f'get {type(obj).__name__}.{name}', file=sys.stderr,
                      flush=True)
            base._call(getattr, obj, name)
        return
    if TRACE:
        print(f'method {type(obj).__name__}.{name}', file=sys.stderr,
              flush=True)
    bound = base._call(getattr, obj, name)
    if callable(bound):
        call_with(bound, data)


@pytest.mark.parametrize('cls', [c for c in base._native_types() if safe(c)],
                         ids=lambda t: t.__name__)
@FUZZ
@given(data=st.data())
def test_native_type_fuzz(cls, data):
    obj = call_with(cls, data)
    # the object just made (when the draw made one), else a default one,
    # else one never initialised
    for target in (obj, base._call(cls), _unopened(cls)):
        if target is not None:
            for _ in range(data.draw(st.integers(1, 4), label='pokes')):
                poke(target, data)
            base._call(str, target)
            break


@pytest.mark.device
@pytest.mark.skipif(os.environ.get('PYVERBS_FUZZ_LIVE') == '0',
                    reason='PYVERBS_FUZZ_LIVE=0 in the environment')
def test_live_objects_fuzz(ctx):
    """Live objects of a real context (test_fuzz's set), each poked with
    drawn calls; afterwards the context still works and closes cleanly."""
    objs = base._live_objects(ctx)

    @settings(max_examples=LIVE_EXAMPLES * len(objs), deadline=None,
              database=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data):
        obj = data.draw(st.sampled_from(objs), label='object')
        # the Context's own __exit__ would close everything at once: its
        # children's pokes are what is being searched
        poke(obj, data, skip=('__exit__',) if obj is ctx else ())

    try:
        run()
        # still usable after all that
        ctx.query_device()
    finally:
        for obj in objs:
            if type(obj).__name__ in base.OWN_ROOT and hasattr(obj, 'close'):
                base._call(obj.close)
