# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Re-entrancy: Python code run inside a call closes the objects in use.

Generated from the classes themselves.  Every class of the pyverbs package
that is implemented in C (found by walking the package with pkgutil: a
class whose own __dict__ holds builtin descriptors) and each of its own
members -- methods (method_descriptor), attributes (getset_descriptor,
set when they have a setter, read otherwise), __init__ and the other slot
wrappers -- is called with hostile arguments, in passes:

  target   an argument's __index__/__int__/__float__/__bool__/__str__/
           __fspath__/__eq__/__hash__ (a number-like object) or __iter__/
           __len__/__getitem__ (a sequence-like one) closes the object the
           member is called on, then returns a plausible value;
  parents  the same hooks close the target's parents (a QP's PD, CQ,
           Context), nearest first (live objects only: they have parents);
  thread   the hook starts another thread that closes the target and
           sleeps 10 ms (releasing the GIL) without waiting for that close;
           the thread is joined after the call (a close that does not
           return within 10 s is a failure);
  gc       gc.set_threshold(1, 1, 1) and a reference cycle whose __del__
           closes the target, made garbage just before the call (and again
           by each hook), so that the collector runs inside the call.

For an attribute/struct object (no close()), "closing the target" is
re-running its __init__() with no arguments, which resets it.

Each call must return, or raise PyverbsError (PyverbsUserError,
PyverbsRDMAError), TypeError, ValueError, OverflowError or
NotImplementedError: never SystemError, never another type, never a
crash.  Afterwards the target is cleanly closed or still usable: a close
refused inside the call leaves it open (str() of it works), close()
succeeds and a second close() does nothing; __buffer__ (Python 3.12 on)
may also raise BufferError, the buffer protocol's error.  (Buffer export
cannot be hooked from Python on CPython 3.11: bytes-like arguments get
the number/sequence shapes only.)

The calls run in a child process (this file run as a script), which prints
each unit (class, member, pass) before running it; a crash or a hang (a
unit over UNIT_TIMEOUT s) names the unit, and the parent resumes the child
after it, so one run lists every crash.  On the host the objects are made
without a device: attribute objects made with their defaults, handle
objects made bare (cls.__new__(cls), i.e. never opened) or, for the few
that need no device, opened.  In the Soft-RoCE VM (tests marked device)
every handle class that rxe can create is made live by a factory in
LIVE_FACTORIES, fresh for each (member, pass), on a fresh Context, one
child process per class; classes that rxe cannot create are listed in
NOT_LIVE with the reason.  test_coverage fails on a class or member that
nothing covers, naming it.

The device run shares one child process (a child start costs seconds in
the VM), resumed after each crash, within PYVERBS_REENT_BUDGET seconds
(default 180): units left when it is spent fail as "not run".  On code that
crashes often the restarts eat the budget; `report --device` runs each class
in a child of its own without a budget, for the complete list.
PYVERBS_REENT_LOG=FILE appends every child's output to FILE.

Run:
  PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider -m "not device" \\
      tests/test_reentrancy.py
  PYTHONPATH=src tools/rxe-vm run -- python3 -X faulthandler -m pytest -q \\
      -p no:cacheprovider -m device tests/test_reentrancy.py
  PYTHONPATH=src python3 tests/test_reentrancy.py report [--device]
      (every finding as a table, without pytest)
"""
import enum
import faulthandler
import gc
import importlib
import inspect
import os
import pkgutil
import re
import signal
import subprocess
import sys
import threading
import time
import types

if __name__ == '__main__':
    class _Stub:
        """pytest's decorators as no-ops: the child process (this file run
        as a script) does not import pytest, which costs seconds in the
        VM."""

        def __getattr__(self, name):
            return self

        def __call__(self, *args, **kwargs):
            if len(args) == 1 and callable(args[0]) and not kwargs:
                return args[0]
            return self
    pytest = _Stub()
else:
    import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
UNIT_TIMEOUT = 30          # seconds one (class, member, pass) may take
JOIN_TIMEOUT = 10          # seconds a closing thread may take after the call
MAX_RESUMES = 60           # crashes/hangs after which a child run gives up
PASSES = ('target', 'parents', 'thread', 'gc')

# ----------------------------------------------------------------- classes

DESCRIPTORS = (types.MethodDescriptorType, types.GetSetDescriptorType,
               types.WrapperDescriptorType, types.MemberDescriptorType,
               types.ClassMethodDescriptorType)


def is_native(cls):
    """A class implemented in C: builtin descriptors in its own __dict__,
    and none of what a class statement adds (__dict__, __weakref__,
    __slots__); enums (whose C base gives them __format__) are Python."""
    d = cls.__dict__
    if '__dict__' in d or '__weakref__' in d or '__slots__' in d:
        return False
    if issubclass(cls, (enum.Enum, BaseException)):
        return False
    if not (getattr(cls, '__module__', '') or '').startswith('pyverbs'):
        return False
    return any(isinstance(v, DESCRIPTORS) for v in d.values())


def _walk_modules():
    import pyverbs
    mods = [pyverbs]
    for mi in pkgutil.walk_packages(pyverbs.__path__, 'pyverbs.'):
        if mi.name.endswith('__main__') or '.cli' in mi.name:
            continue
        try:
            mods.append(importlib.import_module(mi.name))
        except ImportError:
            continue
    return mods


def native_classes():
    """Every native class reachable from the pyverbs package's modules, by
    qualified name (module.Name), sorted."""
    found = {}
    for mod in _walk_modules():
        for obj in list(vars(mod).values()):
            if isinstance(obj, type):
                for c in obj.__mro__:
                    if is_native(c):
                        found[f'{c.__module__}.{c.__qualname__}'] = c
    return dict(sorted(found.items()))


def is_handle(cls):
    from pyverbs.base import PyverbsCM
    return issubclass(cls, PyverbsCM)


def _settable(cls, name):
    """Has the getset a setter?  Tried on a bare instance: a read-only one
    raises AttributeError saying so before anything else."""
    try:
        obj = cls.__new__(cls)
    except Exception:                       # noqa: B902
        return True                         # cannot tell: try setting
    try:
        setattr(obj, name, object())
    except AttributeError as ex:
        return not re.search(r'not writable|readonly|read-only', str(ex))
    except Exception:                       # noqa: B902 -- TypeError, ...
        return True
    finally:
        if is_handle(cls):
            try:
                obj.close()
            except Exception:               # noqa: B902
                pass
    return True


# wrapper slots not worth a hostile call (no arguments reach C code of ours
# beyond what __repr__ and the others cover), and the ones that are plain
# object protocol
SKIP_SLOTS = {'__new__', '__del__', '__getattribute__', '__setattr__',
              '__delattr__', '__init_subclass__', '__subclasshook__',
              '__reduce__', '__reduce_ex__', '__sizeof__', '__format__',
              '__dir__', '__class_getitem__'}


def class_members(cls):
    """[(name, kind)] of cls's own members: kind is 'method', 'setter'
    (getset with a setter), 'getter', 'init' or 'slot'."""
    out = []
    for name, d in cls.__dict__.items():
        if isinstance(d, (types.MethodDescriptorType,
                          types.ClassMethodDescriptorType)):
            out.append((name, 'method'))
        elif isinstance(d, (types.GetSetDescriptorType,
                            types.MemberDescriptorType)):
            if name in ('__dict__', '__weakref__'):
                continue
            out.append((name, 'setter' if _settable(cls, name)
                        else 'getter'))
        elif isinstance(d, types.WrapperDescriptorType):
            if name == '__init__':
                out.append((name, 'init'))
            elif name not in SKIP_SLOTS:
                out.append((name, 'slot'))
    return sorted(out)


# ----------------------------------------------------------- what may fail

def allowed_errors():
    from pyverbs.pyverbs_error import PyverbsError
    return (PyverbsError, TypeError, ValueError, OverflowError,
            NotImplementedError)


# Other exception types some members raise by design (not re-entrancy):
# (class, member) -> (type, why)
OTHER_ERRORS = {
    ('SRDQPEx', '_get_comp_mask'):
        (KeyError, "upstream's private helper: a dict lookup by name"),
    ('Mlx5QP', 'wr_raw_wqe'):
        (AttributeError, 'reads wqe.address from any object (duck-typed)'),
}


# Calls that block by design on a live object (they wait for an event or a
# completion that never comes): exercised on the host (bare objects) only.
BLOCKING_LIVE = {
    ('Context', 'get_async_event'): 'waits for an async event',
    ('CompChannel', 'get_cq_event'): 'waits for a completion event',
    ('CMEventChannel', 'get_cm_event'): 'waits for a CM event',
    ('CMID', 'get_request'): 'waits for a connection request',
    ('CMID', 'get_send_comp'): 'waits for a send completion',
    ('CMID', 'get_recv_comp'): 'waits for a receive completion',
}

# ------------------------------------------------------- hostile arguments


class Trigger:
    """What a hostile hook does, once per call (thread) or each time."""

    def __init__(self, action, once=False, after=None):
        self.action = action
        self.once = once
        self.after = after
        self.fired = 0
        self.refused = 0          # closes refused with PyverbsUserError
        self.errors = []          # other exceptions of the action

    def __call__(self):
        self.fired += 1
        if not (self.once and self.fired > 1):
            from pyverbs.pyverbs_error import PyverbsUserError
            try:
                self.action()
            except PyverbsUserError:
                self.refused += 1
            except Exception as ex:             # noqa: B902
                self.errors.append(f'{type(ex).__name__}: {ex}')
        if self.after:
            self.after()


class HNum:
    """Number-like: every scalar conversion fires the trigger."""

    def __init__(self, trig, value=1):
        self._t = trig
        self._v = int(value)

    def __index__(self):
        self._t()
        return self._v

    def __int__(self):
        self._t()
        return self._v

    def __float__(self):
        self._t()
        return float(self._v)

    def __bool__(self):
        self._t()
        return bool(self._v)

    def __str__(self):
        self._t()
        return str(self._v)

    def __fspath__(self):
        self._t()
        return '/nonexistent/pyverbs-reentrancy'

    def __eq__(self, other):
        self._t()
        return False

    def __hash__(self):
        self._t()
        return self._v

    def __repr__(self):
        return f'HNum({self._v})'


class HSeq:
    """Sequence-like (not a list): __iter__, __len__ and __getitem__ fire
    the trigger; the items are the plausible ones."""

    def __init__(self, trig, items=None):
        self._t = trig
        self._items = list(items) if items is not None else [HNum(trig)]

    def __iter__(self):
        self._t()
        return iter(list(self._items))

    def __len__(self):
        self._t()
        return len(self._items)

    def __getitem__(self, i):
        self._t()
        return self._items[i]

    def __eq__(self, other):
        self._t()
        return False

    def __hash__(self):
        self._t()
        return 1

    def __repr__(self):
        return f'HSeq({self._items!r})'


class HList(list):
    """A list subclass (passes PyList_Check) whose protocol methods fire;
    C code reading it as a list reaches the hostile items instead."""

    def __init__(self, trig, items):
        super().__init__(items)
        self._t = trig

    def __iter__(self):
        self._t()
        return super().__iter__()

    def __len__(self):
        self._t()
        return super().__len__()

    def __getitem__(self, i):
        self._t()
        return super().__getitem__(i)

    def __repr__(self):
        return f'HList({list.__repr__(self)})'


def shapes(trig, valid):
    """Hostile stand-ins for one parameter whose plausible value is valid."""
    if isinstance(valid, (list, tuple)):
        return [HSeq(trig, valid), HList(trig, valid),
                HList(trig, [HNum(trig)])]
    if isinstance(valid, bool):
        return [HNum(trig, int(valid))]
    if isinstance(valid, int):
        return [HNum(trig, valid), HSeq(trig)]
    return [HNum(trig), HSeq(trig)]


class _Closer:
    """Garbage with a finalizer: a self-referencing cycle."""

    def __init__(self, action):
        self.action = action
        self.me = self

    def __del__(self):
        try:
            self.action()
        except Exception:                       # noqa: B902
            pass


def make_garbage(action, counter):
    def act():
        counter[0] += 1
        action()
    _Closer(act)          # unreachable at once: a cycle for the collector


# ------------------------------------------------------- plausible values

# by parameter name: a value that a call accepts (or close to it), so that
# the hostile argument in another position is reached
VALID_BY_NAME = {
    'port_num': 1, 'index': 0, 'gid_index': 0, 'flags': 0, 'pkey': 0xffff,
    'max_entries': 1, 'comp_mask': 0, 'num_entries': 1, 'num_events': 0,
    'solicited_only': False, 'cqe': 32, 'length': 8, 'offset': 0,
    'data': b'x' * 8, 'dm_offset': 0, 'attr_mask': 0, 'op': 0, 'lid': 0,
    'backlog': 1, 'timeout_ms': 1, 'size': 64, 'on': False,
    'qp_state': 0, 'invalidate_rkey': 0, 'rkey': 0, 'remote_addr': 0,
    'compare': 0, 'swap': 0, 'add': 0, 'remote_qpn': 1, 'remote_rkey': 0,
    'remote_srqn': 0, 'num_sge': 1, 'num_buf': 1, 'hdr_sz': 0, 'mss': 0,
    'advise': 0, 'access': 0, 'addr': 0, 'pi': 0, 'opcode': 0, 'opmod': 0,
    'qp_num': 0, 'fm_ce_se': 0, 'ds': 0, 'signature': 0, 'imm': 0,
    'lkey': 0, 'vector': 0, 'outlen': 8, 'in_': b'\0' * 16, 'level': 0,
    'optname': 0, 'optval': b'\0' * 4, 'optlen': 4, 'allow': False,
    'log_num_of_rules': 0, 'wr_id': 0, 'private_data_len': 0,
    'rqpn': 0, 'repeat_count': 1, 'access_flags': 0, 'stream_id': 0,
    'remote_dctn': 0, 'remote_dc_key': 0, 'dest_lkey': 0, 'dest_addr': 0,
    'src_lkey': 0, 'src_addr': 0, 'ptype': 0, 'atomic_wr': b'\0' * 8,
    'num_setters': 0, 'filepath': '/nonexistent/pyverbs-reentrancy',
    'private_data': b'x',
}


def _obj_values():
    """Object-valued plausible values, by parameter name (fresh each time:
    they are mutated by the calls)."""
    from pyverbs import _verbs as v
    vals = {
        'qp_attr': v.QPAttr(), 'wr': v.SendWR(), 'ece': v.ECE(),
        'gid': v.GID(), 'wq_attr': v.WQAttr(),
        'sg_list': [v.SGE(0, 8, 0)], 'sge_list': [v.SGE(0, 8, 0)],
        'sge': v.SGE(0, 8, 0), 'buf_list': [v.DataBuffer(0, 0)],
        'ex_input': None, 'bad_wr': None, 'param': None,
    }
    return vals


def plausible(cls, member, param, live=None):
    """A plausible value for param of cls.member."""
    name = param.name
    if live is not None and name in live.values:
        return live.values[name]
    if name in ('wr',) and member in ('post_recv',):
        from pyverbs import _verbs as v
        return v.RecvWR(num_sge=1, sg=[v.SGE(0, 8, 0)])
    if name == 'attr':
        from pyverbs import _verbs as v
        if cls.__name__ == 'CQEX':
            return v.PollCqAttr()
        if cls.__name__ == 'SRQ':
            return v.SrqAttr()
        return None
    objs = _obj_values()
    if name in objs:
        return objs[name]
    if name in VALID_BY_NAME:
        return VALID_BY_NAME[name]
    if param.default is not inspect.Parameter.empty:
        return param.default
    return 1


def _params(fn):
    try:
        ps = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    out = []
    for p in ps:
        if p.name == 'self':
            continue
        if p.kind == p.VAR_POSITIONAL:
            out += [inspect.Parameter(f'{p.name}{i}', p.POSITIONAL_ONLY)
                    for i in range(3)]
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            out.append(p)
        # keyword-only and **kwargs: filled by position never; left out
    return out


# ------------------------------------------------------------ live objects

class Live:
    """A target, its parents (nearest first), everything to close after
    (roots), and plausible values for parameters by name."""

    def __init__(self, obj, parents=(), roots=(), values=None, setup=None,
                 init_args=((), {})):
        self.obj = obj
        self.init_args = init_args      # what re-initialises an attribute
                                        # object (its "close")
        self.parents = list(parents)
        self.roots = list(roots)
        self.values = values or {}
        self.setup = setup      # member -> None: prepares a call (wr_start)
        self.was_open = is_handle(type(obj)) and not obj.closed

    def close_all(self):
        err = []
        for o in [self.obj] + self.parents + self.roots:
            close = getattr(o, 'close', None)
            if close is None:
                continue
            try:
                close()
            except Exception as ex:             # noqa: B902
                err.append(f'{type(o).__name__}.close: '
                           f'{type(ex).__name__}: {ex}')
        return err


# objects that a host test can open without a device: name -> factory
def _host_open():
    from pyverbs import _verbs as v
    return {
        'PyverbsCM': lambda: v.PyverbsCM(),
        'ECE': lambda: v.ECE(),
        'DataBuffer': lambda: v.DataBuffer(0, 8),
    }


# attribute objects whose constructor needs arguments
def _host_args():
    from pyverbs import _verbs as v
    sge = v.SGE(0, 8, 0)
    return {
        'SGE': lambda: ((0, 8, 0), {}),
        'RecvWR': lambda: ((), {'num_sge': 1, 'sg': [sge]}),
        'XRCDInitAttr': lambda: ((0, 0, 0), {}),
    }


# constructors that allocate what their argument says, or open devices:
# made bare on the host
NO_DEFAULT_CTOR = {'DmaBuf'}


def host_instance(cls):
    """An instance made without a device, and how it was made."""
    name = cls.__name__
    opened = _host_open()
    if name in opened:
        return Live(opened[name]()), 'opened'
    if is_handle(cls):
        return Live(cls.__new__(cls)), 'bare'
    withargs = _host_args()
    if name in withargs:
        args, kwargs = withargs[name]()
        return Live(cls(*args, **kwargs), init_args=(args, kwargs)), \
            'default'
    if name not in NO_DEFAULT_CTOR:
        try:
            return Live(cls()), 'default'
        except Exception:                       # noqa: B902
            pass
    return Live(cls.__new__(cls)), 'bare'


# ---- the device's live objects: one factory per class rxe can create;
# each makes its own Context, so that closing parents touches nothing else

CM_IP = '192.0.2.1'                         # rxe0's address in the VM
_cm_port = [18700]


def _dev():
    from pyverbs.device import get_device_list
    names = sorted(d.name.decode() for d in get_device_list())
    return os.environ.get('PYVERBS_TEST_DEV', names[0] if names else None)


def _ctx():
    from pyverbs.device import Context
    return Context(name=_dev())


def _pd_env():
    from pyverbs.pd import PD
    ctx = _ctx()
    return ctx, PD(ctx)


def f_context(member):
    ctx = _ctx()
    return Live(ctx, values={'port_num': 1})


def f_pd(member):
    ctx, pd = _pd_env()
    return Live(pd, [ctx])


def _access():
    import pyverbs.enums as e
    return (e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE |
            e.IBV_ACCESS_REMOTE_READ)


def _mr_values(mr, pd):
    return {'pd': pd, 'flags': 0, 'sge': mr.sge(8, 0) if not mr.closed
            else None}


def f_mr(member):
    from pyverbs.mr import MR
    ctx, pd = _pd_env()
    mr = MR(pd, 4096, _access())
    return Live(mr, [pd, ctx], values={'pd': pd})


def f_mr_user_buffer(member):
    from pyverbs.mr import MR
    ctx, pd = _pd_env()
    buf = bytearray(4096)
    mr = MR(pd, 0, _access(), address=buf)
    return Live(mr, [pd, ctx], values={'pd': pd, 'data': b'y' * 8})


def f_mrex(member):
    from pyverbs.mr import MREx
    ctx, pd = _pd_env()
    mr = MREx(pd, 4096, _access(), iova=0x10000)
    return Live(mr, [pd, ctx], values={'pd': pd})


def f_buf(member):
    from pyverbs.mr import Buf
    ctx, pd = _pd_env()
    return Live(Buf(pd, 8192), [pd, ctx])


def f_buf_mr(member):
    from pyverbs.mr import Buf, BufMR
    ctx, pd = _pd_env()
    buf = Buf(pd, 8192)
    mr = BufMR(pd, buf, 4096, _access(), offset=4096)
    return Live(mr, [buf, pd, ctx], values={'pd': pd})


def f_mw(member):
    import pyverbs.enums as e
    from pyverbs.mr import MW
    ctx, pd = _pd_env()
    return Live(MW(pd, e.IBV_MW_TYPE_2), [pd, ctx])


def f_comp_channel(member):
    from pyverbs.cq import CompChannel
    ctx = _ctx()
    return Live(CompChannel(ctx), [ctx])


def f_cq(member):
    from pyverbs.cq import CQ, CompChannel
    ctx = _ctx()
    ch = CompChannel(ctx)
    cq = CQ(ctx, 16, None, ch, 0)
    return Live(cq, [ch, ctx], values={'num_events': 0})


def f_cqex(member):
    import pyverbs.enums as e
    from pyverbs.cq import CQEX, CqInitAttrEx, CompChannel
    ctx = _ctx()
    ch = CompChannel(ctx)
    attr = CqInitAttrEx(cqe=16, channel=ch, wc_flags=(
        e.IBV_WC_EX_WITH_BYTE_LEN | e.IBV_WC_EX_WITH_QP_NUM |
        e.IBV_WC_EX_WITH_SRC_QP | e.IBV_WC_EX_WITH_IMM),
        comp_mask=e.IBV_CQ_INIT_ATTR_MASK_FLAGS)
    cq = CQEX(ctx, attr)
    return Live(cq, [ch, ctx])


def _qp_env(qpt, srq=False):
    from pyverbs.cq import CQ
    from pyverbs.qp import QP, QPCap, QPInitAttr
    from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
    ctx, pd = _pd_env()
    cq = CQ(ctx, 16, None, None, 0)
    s = SRQ(pd, SrqInitAttr(SrqAttr())) if srq else None
    qp = QP(pd, QPInitAttr(qp_type=qpt, scq=cq, rcq=cq, srq=s,
                           cap=QPCap(max_send_wr=4, max_recv_wr=4)))
    par = [pd, cq] + ([s] if s else []) + [ctx]
    return qp, par


def f_qp_rc(member):
    import pyverbs.enums as e
    qp, par = _qp_env(e.IBV_QPT_RC)
    return Live(qp, par)


def f_qp_ud(member):
    import pyverbs.enums as e
    qp, par = _qp_env(e.IBV_QPT_UD)
    return Live(qp, par)


def f_qp_srq(member):
    import pyverbs.enums as e
    qp, par = _qp_env(e.IBV_QPT_RC, srq=True)
    return Live(qp, par)


def _ah_for(pd, ctx):
    from pyverbs.addr import AH, AHAttr, GlobalRoute
    sys.path.insert(0, HERE)
    from rdma_helpers import find_gid_index
    idx = find_gid_index(ctx, 1)
    gid = ctx.query_gid(1, idx)
    return AH(pd, attr=AHAttr(port_num=1, is_global=1, gr=GlobalRoute(
        dgid=gid, sgid_index=idx, hop_limit=64)))


def f_qpex(member):
    import pyverbs.enums as e
    from pyverbs.cq import CQ
    from pyverbs.mr import MR
    from pyverbs.qp import QPCap, QPEx, QPInitAttrEx
    ctx, pd = _pd_env()
    cq = CQ(ctx, 16, None, None, 0)
    flags = (e.IBV_QP_EX_WITH_SEND | e.IBV_QP_EX_WITH_RDMA_WRITE |
             e.IBV_QP_EX_WITH_SEND_WITH_IMM |
             e.IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
             e.IBV_QP_EX_WITH_RDMA_READ |
             e.IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
             e.IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
             e.IBV_QP_EX_WITH_LOCAL_INV | e.IBV_QP_EX_WITH_BIND_MW |
             e.IBV_QP_EX_WITH_SEND_WITH_INV)
    mask = e.IBV_QP_INIT_ATTR_PD | e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS
    qp = QPEx(ctx, QPInitAttrEx(
        qp_type=e.IBV_QPT_UD if 'ud_addr' in member else e.IBV_QPT_RC,
        scq=cq, rcq=cq, pd=pd, comp_mask=mask, send_ops_flags=(
            e.IBV_QP_EX_WITH_SEND if 'ud_addr' in member else flags),
        cap=QPCap(max_send_wr=4, max_recv_wr=4, max_inline_data=16)))
    mr = MR(pd, 4096, _access())
    values = {'sge': mr.sge(8, 0) if hasattr(mr, 'sge') else None,
              'addr': mr.buf, 'length': 8}
    if 'ud_addr' in member:
        values['ah'] = _ah_for(pd, ctx)
    # builders run inside a batch, so that the hostile argument reaches
    # the ibv_wr_* call itself
    def setup(name):
        if name.startswith('wr_') and name not in ('wr_start',):
            try:
                qp.wr_start()
            except Exception:                   # noqa: B902
                pass
    return Live(qp, [mr, pd, cq, ctx], values=values, setup=setup)


def f_srq(member):
    from pyverbs.srq import SRQ, SrqAttr, SrqInitAttr
    ctx, pd = _pd_env()
    return Live(SRQ(pd, SrqInitAttr(SrqAttr(max_wr=4))), [pd, ctx])


def f_ah(member):
    ctx, pd = _pd_env()
    return Live(_ah_for(pd, ctx), [pd, ctx])


def f_dmabuf(member):
    from pyverbs.dmabuf import DmaBuf
    return Live(DmaBuf(4096))


def f_ece(member):
    from pyverbs.qp import ECE
    return Live(ECE())


def f_databuffer(member):
    from pyverbs.qp import DataBuffer
    return Live(DataBuffer(0, 8))


def _cm_dst():
    from pyverbs.cmid import AddrInfo
    _cm_port[0] += 1
    return AddrInfo(src=CM_IP, dst=CM_IP, dst_service=str(_cm_port[0]))


def f_addrinfo(member):
    return Live(_cm_dst())


def f_cm_event_channel(member):
    from pyverbs.cmid import CMEventChannel
    ch = CMEventChannel()
    return Live(ch)


def f_cmid(member):
    """An asynchronous id (on its own event channel), address resolved:
    no call waits for the network."""
    import pyverbs.cm_enums as ce
    from pyverbs.cmid import AddrInfo, CMEvent, CMEventChannel, CMID
    ch = CMEventChannel()
    cmid = CMID(creator=ch)
    dst = _cm_dst()
    values = {'lai': AddrInfo(src=CM_IP, flags=ce.RAI_PASSIVE), 'rai': dst,
              'addr': dst}
    if member not in ('bind_addr', 'resolve_addr'):
        cmid.resolve_addr(dst)
        CMEvent(ch).ack_cm_event()
    ch.set_nonblocking(True)
    return Live(cmid, [ch], roots=[dst], values=values)


def f_cm_event(member):
    from pyverbs.cmid import CMEvent, CMEventChannel, CMID
    ch = CMEventChannel()
    cmid = CMID(creator=ch)
    dst = _cm_dst()
    cmid.resolve_addr(dst)
    ev = CMEvent(ch)                       # ADDR_RESOLVED, left unacked
    return Live(ev, [ch], roots=[cmid, dst])


def f_efa_mr(member):
    """EfaMR is an MR (rxe registers it); its query() is libefa's
    EOPNOTSUPP there."""
    from pyverbs.providers.efa.efadv import EfaMR
    ctx, pd = _pd_env()
    return Live(EfaMR(pd, 4096, _access()), [pd, ctx], values={'pd': pd})


def f_event_fd(member):
    from pyverbs.providers.mlx5.mlx5dv_event import EventFD
    return Live(EventFD())


# class name -> [factories] (each run for every member and pass)
LIVE_FACTORIES = {
    # close/__enter__/__exit__ of the base, on live handles: a close from
    # the collector inside close() itself
    'PyverbsCM': [f_pd, f_cq],
    'Context': [f_context],
    'PD': [f_pd],
    'MR': [f_mr, f_mr_user_buffer],
    'MREx': [f_mrex],
    'Buf': [f_buf],
    'BufMR': [f_buf_mr],
    'MW': [f_mw],
    'CompChannel': [f_comp_channel],
    'CQ': [f_cq],
    'CQEX': [f_cqex],
    'QP': [f_qp_rc, f_qp_ud, f_qp_srq],
    'QPEx': [f_qpex],
    'SRQ': [f_srq],
    'AH': [f_ah],
    'ECE': [f_ece],
    'DataBuffer': [f_databuffer],
    'DmaBuf': [f_dmabuf],
    'AddrInfo': [f_addrinfo],
    'CMEventChannel': [f_cm_event_channel],
    'CMID': [f_cmid],
    'CMEvent': [f_cm_event],
    'EfaMR': [f_efa_mr],
    'EventFD': [f_event_fd],
}

# handle classes that cannot be live on Soft-RoCE (rxe), and why
MLX5 = 'mlx5 direct verbs: needs an mlx5 device'
EFA = 'EFA direct verbs: needs an EFA device'
NOT_LIVE = {
    'XRCD': 'rxe has no XRC (ibv_open_xrcd: EOPNOTSUPP)',
    'WQ': 'rxe has no work queues (ibv_create_wq: EOPNOTSUPP)',
    'RwqIndTable': 'needs WQs: rxe has none',
    'DM': 'rxe has no device memory (ibv_alloc_dm: EOPNOTSUPP)',
    'DMMR': 'an MR over device memory: rxe has none',
    'ParentDomain': 'rxe has no parent domains (EOPNOTSUPP)',
    'DmaBufMR': 'rxe cannot register dma-buf memory (EOPNOTSUPP)',
    'DMAHandle': 'rxe has no TLP processing hints (ibv_alloc_dmah: '
                 'EOPNOTSUPP)',
    'CompCntr': 'rxe has no completion counters (ibv_create_comp_cntr: '
                'EOPNOTSUPP)',
    'Flow': 'rxe has no flow steering (ibv_create_flow: EOPNOTSUPP)',
    'SRDQP': EFA, 'SRDQPEx': EFA, 'EfaAH': EFA, 'EfaCQ': EFA,
    'EfaContext': EFA, 'EfaCompCntr': EFA,
}
for _n in ('Mlx5Context', 'Mlx5CQ', 'Mlx5VAR', 'Mlx5PP', 'Mlx5UAR',
           'Mlx5CryptoLogin', 'Mlx5DEK', 'Mlx5Mkey', 'Mlx5QP', 'Mlx5DevxObj',
           'Mlx5UMEM', 'Mlx5DevxEq', 'Mlx5DevxMsiVector', 'Mlx5DmOpAddr',
           'WqeSeg', 'WqeCtrlSeg', 'WqeDataSeg', 'Wqe', 'Mlx5dvSchedNode',
           'Mlx5dvSchedLeaf', 'Mlx5FlowMatcher', 'Mlx5Flow', 'DrDomain',
           'DrTable', 'DrMatcher', 'DrRule', 'DrAction', 'DrActionDestAttr',
           'DrFlowSamplerAttr', 'DrActionQp', 'DrActionFlowCounter',
           'DrActionDrop', 'DrActionModify', 'DrActionTag',
           'DrActionDestTable', 'DrActionPopVLan', 'DrActionPushVLan',
           'DrActionDestArray', 'DrActionDefMiss', 'DrActionVPort',
           'DrActionIBPort', 'DrActionDestTir', 'DrActionPacketReformat',
           'DrActionFlowSample',
           # rdma-core 65's API
           'DrFlowMeterAttr', 'DrActionFlowMeter', 'Mlx5DevxCmdComp',
           'EventChannel', 'Mlx5DmaBufMR'):
    NOT_LIVE[_n] = MLX5
NOT_LIVE['Mlx5VfioContext'] = 'mlx5 over VFIO: needs an mlx5 PCI function'


# ------------------------------------------------------------------ plans

class Unit:
    __slots__ = ('key', 'cls', 'member', 'kind', 'pass_', 'variant')

    def __init__(self, key, cls, member, kind, pass_, variant=0):
        self.key, self.cls, self.member, self.kind = key, cls, member, kind
        self.pass_, self.variant = pass_, variant

    def __str__(self):
        v = f'#{self.variant}' if self.variant else ''
        return f'{self.cls.__name__}{v}.{self.member} {self.pass_}'


def takes_arguments(cls, member, kind):
    """Can a hostile argument reach this member?"""
    if kind == 'getter':
        return False
    if kind in ('method', 'slot'):
        params = _params(getattr(cls, member))
        return params is None or bool(params)
    return True                         # setter, __init__


def member_passes(cls, member, kind, mode):
    """The passes that mean something for a member: with no argument to
    hook, only the collector can run code inside the call (gc)."""
    if not takes_arguments(cls, member, kind):
        return ('gc',)
    return tuple(p for p in PASSES if mode == 'device' or p != 'parents')


def plan(classes, mode):
    """The units, in order: (class, member, pass[, factory variant]).
    mode 'host': every member of every class, passes target/thread/gc;
    mode 'device': every member of the classes with a live factory, all
    four passes (parents where the object has parents)."""
    units = []
    for key, cls in classes.items():
        name = cls.__name__
        if mode == 'device':
            variants = range(len(LIVE_FACTORIES.get(name, ())))
        else:
            variants = [0]
        for member, kind in class_members(cls):
            if mode == 'device' and (name, member) in BLOCKING_LIVE:
                continue
            for variant in variants:
                for p in member_passes(cls, member, kind, mode):
                    if variant and p != 'target':
                        continue        # other factories: target pass only
                    units.append(Unit(key, cls, member, kind, p, variant))
    return units


# ---------------------------------------------------------------- running

class Result:
    def __init__(self):
        self.calls = 0
        self.fired = 0
        self.refused = 0
        self.fails = []


def _is_open(obj):
    return is_handle(type(obj)) and not obj.closed


class _Never(Exception):
    """Matches nothing."""


def _other_error(unit):
    if unit.member == '__buffer__':
        # Python 3.12 on: bf_getbuffer as a method, whose flags argument
        # is a hook; an export refused (the object closed by the hook)
        # is the buffer protocol's BufferError, as memoryview(obj) gives
        return BufferError
    return OTHER_ERRORS.get((unit.cls.__name__, unit.member), (_Never,))[0]


def _make_action(live, pass_):
    """The closing action of a pass for this target."""
    obj = live.obj
    if pass_ == 'parents':
        def act():
            for p in live.parents:
                if hasattr(p, 'close'):
                    p.close()
        return act
    if is_handle(type(obj)):
        return obj.close
    cls = type(obj)
    args, kwargs = live.init_args

    def reinit():
        try:
            cls.__init__(obj, *args, **kwargs)
        except allowed_errors():
            pass
    return reinit


def invoke(obj, kind, name, args, bound=None):
    """Call member name of obj as its kind says (bound: the method, if
    already looked up)."""
    if kind == 'getter' or (kind == 'setter' and not args):
        getattr(obj, name)
    elif kind == 'setter':
        setattr(obj, name, args[0])
    elif kind == 'init':
        type(obj).__init__(obj, *args)
    else:
        (bound or getattr(obj, name))(*args)


def _call_once(res, unit, live, args, trig, pass_):
    """One call of unit's member on live.obj with args; checks the outcome."""
    allowed = allowed_errors()
    obj = live.obj
    kind, name = unit.kind, unit.member
    gc_count = [0]
    old = gc.get_threshold()
    if live.setup is not None:
        live.setup(name)
    if kind == 'getter' or (kind == 'setter' and not args):
        bound = None
    elif kind in ('method', 'slot'):
        try:
            bound = getattr(obj, name)
        except allowed:
            return
    else:
        bound = None
    desc = (f'{type(obj).__name__}.{name}'
            f'({", ".join(map(repr, args))})')
    print(f'CALL {desc}', flush=True)
    res.calls += 1
    if pass_ == 'gc':
        # everything older is frozen, so that each (full) collection
        # costs only what the call allocates
        gc.freeze()
        gc.set_threshold(1, 1, 1)
        make_garbage(trig.action, gc_count)
    try:
        invoke(obj, kind, name, args, bound)
    except allowed:
        pass
    except SystemError as ex:
        res.fails.append(f'{desc}: SystemError: {ex}')
    except _other_error(unit):
        pass
    except AttributeError as ex:
        if not (kind in ('getter', 'setter') and 'is not' in str(ex)):
            res.fails.append(f'{desc}: AttributeError: {ex}')
    except Exception as ex:                     # noqa: B902
        res.fails.append(f'{desc}: {type(ex).__name__}: {ex}')
    finally:
        if pass_ == 'gc':
            gc.set_threshold(*old)
    res.fired += trig.fired + gc_count[0]
    res.refused += trig.refused
    for err in trig.errors:
        res.fails.append(f'{desc}: the closing action raised {err}')
    trig.errors.clear()
    if (trig.refused and pass_ == 'target' and is_handle(type(obj))
            and obj.closed):
        res.fails.append(f'{desc}: close() inside the call was refused, '
                         'but the object is closed afterwards')


def _args_list(unit, live, trig):
    """The argument lists of a unit: for each parameter position one
    hostile value (each shape) with plausible values elsewhere, then every
    position hostile."""
    kind, name, cls = unit.kind, unit.member, unit.cls
    obj = live.obj
    if kind == 'getter':
        return [()]
    if kind == 'setter':
        try:
            cur = getattr(obj, name)
        except Exception:                       # noqa: B902
            cur = 1
        return [(s,) for s in shapes(trig, cur)]
    if kind == 'init':
        return [(HNum(trig),), (HSeq(trig),), (HNum(trig), HNum(trig)),
                (HNum(trig), HSeq(trig), HNum(trig))]
    params = _params(getattr(cls, name))
    if params is None:
        params = [inspect.Parameter('arg', inspect.Parameter.POSITIONAL_ONLY)]
    if not params:
        return [()]
    valid = [plausible(cls, name, p, live) for p in params]
    out = []
    for i in range(len(params)):
        for s in shapes(trig, valid[i]):
            out.append(tuple(valid[:i]) + (s,) + tuple(valid[i + 1:]))
    out.append(tuple(shapes(trig, v)[0] for v in valid))
    return out


def run_unit(unit, make_live):
    """Run one (class, member, pass): fresh target for each argument list
    (when the previous call closed it), then the after-checks."""
    res = Result()
    live = make_live()
    if unit.pass_ == 'parents' and not live.parents:
        live.close_all()
        return res
    try:
        trig = Trigger(_make_action(live, unit.pass_),
                       once=unit.pass_ == 'thread')
        arglists = _args_list(unit, live, trig)
        for i, args in enumerate(arglists):
            if i and (_needs_renew(live, unit.pass_)):
                res.fails += [f'{unit}: {e}' for e in _after(live, unit)]
                live.close_all()
                live = make_live()
                trig = Trigger(_make_action(live, unit.pass_),
                               once=unit.pass_ == 'thread')
                args = _args_list(unit, live, trig)[i]
            trig.fired = 0
            _call_once(res, unit, live, args, trig, unit.pass_)
        res.fails += [f'{unit}: {e}' for e in _after(live, unit)]
    finally:
        live.close_all()
    return res


def _needs_renew(live, pass_):
    """Did the last call close the target (or, in the parents pass, a
    parent) that was open?  Then the next call gets a fresh one."""
    objs = [live.obj] + (live.parents if pass_ == 'parents' else [])
    return live.was_open and any(
        is_handle(type(o)) and o.closed for o in objs)


def _after(live, unit):
    """The target is cleanly closed or still usable; close() succeeds and
    a second close() does nothing."""
    obj = live.obj
    out = []
    allowed = allowed_errors()
    if not is_handle(type(obj)):
        for f in (repr, str):
            try:
                f(obj)
            except allowed:
                pass
            except Exception as ex:             # noqa: B902
                out.append(f'afterwards {f.__name__}() raised '
                           f'{type(ex).__name__}: {ex}')
        return out
    if not obj.closed:
        try:
            str(obj)
        except allowed as ex:
            from pyverbs.pyverbs_error import PyverbsUserError
            if isinstance(ex, PyverbsUserError) and 'closed' in str(ex):
                out.append(f'open afterwards but str() says: {ex}')
        except Exception as ex:                 # noqa: B902
            out.append(f'afterwards str() raised {type(ex).__name__}: {ex}')
    for n in (1, 2):
        try:
            obj.close()
        except Exception as ex:                 # noqa: B902
            out.append(f'afterwards close() #{n} raised '
                       f'{type(ex).__name__}: {ex}')
    if not obj.closed:
        out.append('afterwards close() left it open')
    return out


# ------------------------------------------------------------- child side

def child_main(argv):
    """python3 test_reentrancy.py child MODE START CLASSKEY..."""
    mode, start = argv[0], int(argv[1])
    keys = argv[2:]
    if keys == ['ALL']:
        classes = native_classes()
    else:                   # only the modules named: a walk costs seconds
        classes = {}        # in the VM
        for k in keys:
            mod, _, name = k.rpartition('.')
            classes[k] = getattr(importlib.import_module(mod), name)
    units = plan(classes, mode)
    print(f'PLAN {len(units)}', flush=True)
    deadline = float(os.environ.get('PYVERBS_REENT_DEADLINE', '0'))
    for k, unit in enumerate(units):
        if k < start:
            continue
        if deadline and time.time() > deadline:
            print(f'OUT {k}', flush=True)
            break
        print(f'UNIT {k} {unit}', flush=True)
        t0 = time.monotonic()
        faulthandler.dump_traceback_later(UNIT_TIMEOUT, exit=True)
        try:
            res = run_one(unit, mode)
        except Exception as ex:                 # noqa: B902
            res = Result()
            res.fails.append(f'{unit}: the harness failed: '
                             f'{type(ex).__name__}: {ex}')
        finally:
            faulthandler.cancel_dump_traceback_later()
        for f in res.fails:
            print(f'FAIL {k} {f}'.replace('\n', ' '), flush=True)
        print(f'DONE {k} {unit.pass_} {res.calls} {res.fired} '
              f'{res.refused} {time.monotonic() - t0:.3f}', flush=True)
    print('END', flush=True)
    return 0


def run_one(unit, mode):
    cls = unit.cls
    if mode == 'device':
        factory = LIVE_FACTORIES[cls.__name__][unit.variant]

        def make():
            return factory(unit.member)
    else:
        def make():
            return host_instance(cls)[0]
    if unit.pass_ == 'thread':
        return _run_thread_unit(unit, make)
    return run_unit(unit, make)


def _run_thread_unit(unit, make):
    """As run_unit, with a trigger that starts another thread closing the
    target (once per call) and sleeps 10 ms without waiting for it."""
    make_thread_live = make
    res = Result()
    live = make_thread_live()
    try:
        for i in range(len(_args_list(unit, live, Trigger(lambda: None)))):
            if i and _needs_renew(live, 'thread'):
                res.fails += [f'{unit}: {e}' for e in _after(live, unit)]
                live.close_all()
                live = make_thread_live()
            closing = _make_action(live, 'target')
            trig = Trigger(closing, once=True)
            args = _args_list(unit, live, trig)[i]
            state = {'started': False}
            threads = []

            def fire(closing=closing, state=state, threads=threads):
                if state['started']:
                    return
                state['started'] = True
                errs = []

                def closer():
                    try:
                        closing()
                    except Exception as ex:     # noqa: B902
                        errs.append(ex)
                t = threading.Thread(target=closer, daemon=True)
                threads.append((t, errs))
                t.start()
                time.sleep(0.01)
            trig.action = fire
            _call_threaded(res, unit, live, args, trig, threads)
        res.fails += [f'{unit}: {e}' for e in _after(live, unit)]
    finally:
        live.close_all()
    return res


def _call_threaded(res, unit, live, args, trig, threads):
    allowed = allowed_errors()
    obj = live.obj
    kind, name = unit.kind, unit.member
    if live.setup is not None:
        live.setup(name)
    desc = (f'{type(obj).__name__}.{name}'
            f'({", ".join(map(repr, args))})')
    print(f'CALL {desc}', flush=True)
    res.calls += 1
    try:
        invoke(obj, kind, name, args)
    except allowed:
        pass
    except _other_error(unit):
        pass
    except AttributeError as ex:
        if not (kind in ('getter', 'setter') and 'is not' in str(ex)):
            res.fails.append(f'{desc}: AttributeError: {ex}')
    except Exception as ex:                     # noqa: B902
        res.fails.append(f'{desc}: {type(ex).__name__}: {ex}')
    for t, errs in threads:
        t.join(JOIN_TIMEOUT)
        if t.is_alive():
            res.fails.append(f'{desc}: the closing thread still runs '
                             f'{JOIN_TIMEOUT} s after the call returned')
        for ex in errs:
            if not isinstance(ex, allowed):
                res.fails.append(f'{desc}: close() in a thread raised '
                                 f'{type(ex).__name__}: {ex}')
    res.fired += trig.fired
    for err in trig.errors:
        res.fails.append(f'{desc}: the hook raised {err}')


# ------------------------------------------------------------ parent side

class Report:
    """What the child runs of one group of classes found."""

    def __init__(self):
        self.planned = 0
        self.done = set()
        self.calls = {p: 0 for p in PASSES}
        self.fired = {p: 0 for p in PASSES}
        self.refused = {p: 0 for p in PASSES}
        self.fails = []           # (unit text, message)
        self.crashes = []         # (unit text, what, last call, stderr tail)
        self.units = {}
        self.times = {}           # unit text -> seconds
        self.children = 0         # child processes run
        self.wall = 0.0


def _signame(rc):
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return f'signal {-rc}'


def run_children(keys, mode, timeout=None, env=None, budget=None):
    """Run the child over classes keys (['ALL'] for all), resuming after
    each crash or hang, until budget seconds have passed (a child start
    costs seconds in the VM, and the current code crashes often);
    returns a Report."""
    rep = Report()
    start = 0
    environ = dict(os.environ, **(env or {}))
    if budget:
        environ['PYVERBS_REENT_DEADLINE'] = str(time.time() + budget)
    # the child imports the pyverbs this process imported (the installed
    # package in CI, a development tree on PYTHONPATH), from any cwd
    import pyverbs
    top = os.path.dirname(os.path.dirname(os.path.abspath(
        pyverbs.__file__)))
    environ['PYTHONPATH'] = os.pathsep.join(
        [top] + [p for p in environ.get('PYTHONPATH', '').split(os.pathsep)
                 if p])
    for _ in range(MAX_RESUMES):
        cmd = [sys.executable, '-X', 'faulthandler', os.path.abspath(
            __file__), 'child', mode, str(start)] + list(keys)
        t0 = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True,
                           env=environ, timeout=timeout, cwd=HERE)
        rep.children += 1
        rep.wall += time.monotonic() - t0
        log = os.environ.get('PYVERBS_REENT_LOG')
        if log:                 # every child's output, to read afterwards
            with open(log, 'a') as f:
                f.write(f'### {cmd[3:6]} rc {p.returncode} '
                        f'{time.monotonic() - t0:.1f} s\n{p.stdout}'
                        f'{p.stderr}')
        last_unit = None
        last_call = None
        ended = False
        for line in p.stdout.splitlines():
            tag, _, rest = line.partition(' ')
            if tag == 'PLAN':
                rep.planned = int(rest)
            elif tag == 'UNIT':
                k, _, text = rest.partition(' ')
                last_unit = (int(k), text)
                rep.units[int(k)] = text
                last_call = None
            elif tag == 'CALL':
                last_call = rest
            elif tag == 'FAIL':
                k, _, msg = rest.partition(' ')
                rep.fails.append((rep.units.get(int(k), k), msg))
            elif tag == 'DONE':
                f = rest.split()
                k, pass_ = int(f[0]), f[1]
                rep.done.add(k)
                rep.calls[pass_] += int(f[2])
                rep.fired[pass_] += int(f[3])
                rep.refused[pass_] += int(f[4])
                rep.times[rep.units.get(k, k)] = float(f[5])
                last_unit = None
            elif tag == 'OUT':
                rep.crashes.append((f'(units {rest}..{rep.planned - 1})',
                                    f'not run: the {budget} s budget is '
                                    'spent', None, ''))
            elif tag == 'END':
                ended = True
        if ended and p.returncode == 0:
            break
        if last_unit is None:
            rep.crashes.append(('(no unit)', f'exit {p.returncode}', None,
                                p.stderr[-2000:]))
            break
        if p.returncode < 0:
            what = _signame(p.returncode)
        elif 'Timeout (' in p.stderr:
            what = f'hang (over {UNIT_TIMEOUT} s)'
        else:
            what = f'exit {p.returncode}'
        rep.crashes.append((last_unit[1], what, last_call,
                            _stack_summary(p.stderr)))
        start = last_unit[0] + 1
        if rep.planned and start >= rep.planned:
            break

    return rep


def _stack_summary(stderr):
    """The first lines of faulthandler's report."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        if 'Fatal Python error' in ln or 'Timeout (' in ln:
            return ' | '.join(x.strip() for x in lines[i:i + 6])
    return ' | '.join(lines[-4:])


def format_report(rep, title):
    out = [f'== {title}: {rep.planned} units planned, {len(rep.done)} '
           f'done; calls per pass ' + ', '.join(
               f'{p} {rep.calls[p]} (hooks fired {rep.fired[p]}, closes '
               f'refused {rep.refused[p]})' for p in PASSES)]
    slow = sorted(rep.times.items(), key=lambda x: -x[1])[:3]
    out.append(f'   {rep.children} child runs, {rep.wall:.1f} s; slowest '
               'units: ' + ', '.join(f'{u} {t:.2f} s' for u, t in slow))
    for unit, what, call, stack in rep.crashes:
        out.append(f'CRASH {unit}: {what}; last call: {call}; {stack}')
    for unit, msg in rep.fails:
        out.append(f'WRONG {unit}: {msg}')
    return '\n'.join(out)


# ------------------------------------------------------------------ tests

_CLASSES = None


def classes():
    global _CLASSES
    if _CLASSES is None:
        _CLASSES = native_classes()
    return _CLASSES


def coverage_gaps(found):
    """What nothing covers: for each class, a host instance (made or bare)
    and a plan unit for each member in every host pass; a handle class
    without a live factory and not in NOT_LIVE; a factory or NOT_LIVE
    entry naming no class (stale)."""
    gaps = []
    units = plan(found, 'host')
    covered = {}
    for u in units:
        covered.setdefault((u.key, u.member), set()).add(u.pass_)
    for key, cls in found.items():
        members = class_members(cls)
        if not members:
            gaps.append(f'{key}: no members found')
        for m, kind in members:
            got = covered.get((key, m), set())
            want = ({'target', 'thread', 'gc'}
                    if takes_arguments(cls, m, kind) else {'gc'})
            if got != want:
                gaps.append(f'{key}.{m}: host passes {sorted(got)}')
        try:
            host_instance(cls)
        except Exception as ex:                 # noqa: B902
            gaps.append(f'{key}: no host instance ({ex})')
        if is_handle(cls):
            name = cls.__name__
            if name not in LIVE_FACTORIES and name not in NOT_LIVE:
                gaps.append(f'{key}: a handle class with no live factory '
                            'and no entry in NOT_LIVE')
    names = {c.__name__ for c in found.values()}
    for name in list(LIVE_FACTORIES) + list(NOT_LIVE):
        if name not in names:
            gaps.append(f'{name}: named in LIVE_FACTORIES/NOT_LIVE but no '
                        'such native class')
    return gaps


def counts(found):
    kinds = {}
    for cls in found.values():
        for _, kind in class_members(cls):
            kinds[kind] = kinds.get(kind, 0) + 1
    handles = sum(1 for c in found.values() if is_handle(c))
    return (f'{len(found)} native classes ({handles} handle classes), '
            f'{sum(kinds.values())} members: ' +
            ', '.join(f'{n} {k}' for k, n in sorted(kinds.items())))


def test_enumeration_finds_the_core():
    found = classes()
    names = {c.__name__ for c in found.values()}
    for n in ('Context', 'PD', 'MR', 'CQ', 'QP', 'QPEx', 'SendWR', 'SGE',
              'QPAttr', 'AHAttr', 'GID', 'PyverbsCM'):
        assert n in names, n
    assert 'ibv_mtu' not in names          # an enum: Python
    assert 'CQPoller' not in names and 'WCError' not in names
    members = dict(class_members(found['pyverbs.cq.CQ']))
    assert members['poll'] == 'method' and members['__init__'] == 'init'
    assert members['cqe'] == 'getter'
    qpattr = dict(class_members(found['pyverbs.qp.QPAttr']))
    assert qpattr['qp_state'] == 'setter'


def test_coverage(capsys):
    found = classes()
    gaps = coverage_gaps(found)
    with capsys.disabled():
        print(f'\nreentrancy: {counts(found)}; '
              f'{len(plan(found, "host"))} host units; live factories for '
              f'{len(LIVE_FACTORIES)} classes, {len(NOT_LIVE)} not live '
              'on rxe')
    assert not gaps, '\n'.join(gaps)


def test_coverage_catches_new_class_and_member(monkeypatch):
    """A method added to a class, or a new handle class, without coverage
    fails test_coverage, naming it."""
    from pyverbs import _verbs as v
    found = dict(classes())
    fake = type('FakeHandle', (v.PyverbsCM,), {
        '__module__': 'pyverbs.fake',
        'new_method': v.CQ.__dict__['poll']})
    assert is_native(fake)
    monkeypatch.setitem(found, 'pyverbs.fake.FakeHandle', fake)
    gaps = coverage_gaps(found)
    assert any('FakeHandle' in g and 'NOT_LIVE' in g for g in gaps), gaps
    # a member the host plan leaves out is a gap too
    real_plan = plan

    def partial_plan(cls_map, mode):
        return [u for u in real_plan(cls_map, mode)
                if u.member != 'new_method']
    monkeypatch.setattr(sys.modules[__name__], 'plan', partial_plan)
    gaps = coverage_gaps(found)
    assert any('FakeHandle.new_method' in g for g in gaps), gaps


def test_hooks_reach_c():
    """The hostile shapes are what C conversions call back into: an index,
    a sequence, a list subclass."""
    fired = []
    trig = Trigger(lambda: fired.append(1))
    assert [1, 2, 3][HNum(trig)] == 2
    assert list(HSeq(trig, [7])) == [7]
    assert len(HList(trig, [1])) == 1
    assert len(fired) >= 3


_HOST = {}


def host_report():
    if 'rep' not in _HOST:
        _HOST['rep'] = run_children(['ALL'], 'host', timeout=600)
    return _HOST['rep']


def test_host(capsys):
    """Every member of every native class, made without a device, in the
    target, thread and gc passes: no crash, no wrong exception."""
    rep = host_report()
    with capsys.disabled():
        print('\n' + format_report(rep, 'host'))
    assert rep.planned == len(plan(classes(), 'host'))
    missing = set(range(rep.planned)) - rep.done
    crashed = {u for u, *_ in rep.crashes}
    assert not rep.crashes and not rep.fails, format_report(rep, 'host')
    assert not missing, f'{len(missing)} units not run ({crashed})'


CM_CLASSES = ('CMID', 'CMEvent', 'CMEventChannel', 'AddrInfo')


def _device_classes():
    """The classes with a live factory that this build and machine can
    make: the rdma_cm ones need librdmacm, DmaBuf a DRM device (vgem),
    MREx, Buf and BufMR an rdma-core with their calls (59, 64)."""
    from pyverbs import _verbs
    found = classes()
    out = []
    for k, c in found.items():
        if c.__name__ not in LIVE_FACTORIES:
            continue
        if (c.__name__ in CM_CLASSES and
                not getattr(_verbs, '_HAVE_RDMACM', 0)):
            continue
        if c.__name__ == 'DmaBuf' and not os.path.exists('/dev/dri'):
            continue
        # what the build's rdma-core lacks cannot be live
        if c.__name__ == 'MREx' and not _verbs._HAVE_REG_MR_EX:
            continue
        if c.__name__ in ('Buf', 'BufMR') and not _verbs._HAVE_BUF:
            continue
        out.append(k)
    return out


_DEVICE = {}


def device_report(dev_name):
    """One child over every class with a live factory (a child start costs
    seconds in the VM), resumed after each crash; per-class tests below
    read their units from it."""
    if 'rep' not in _DEVICE:
        _DEVICE['rep'] = run_children(
            _device_classes(), 'device', timeout=600, budget=float(
                os.environ.get('PYVERBS_REENT_BUDGET', '180')),
            env={'PYVERBS_TEST_DEV': dev_name})
    return _DEVICE['rep']


def _of_class(text, name):
    return text.split('.', 1)[0].split('#', 1)[0] == name


@pytest.mark.device
@pytest.mark.parametrize('key', _device_classes() if __name__ != '__main__'
                         else [],
                         ids=lambda k: k.rsplit('.', 1)[-1])
def test_live(key, dev_name, capsys):
    """Every member of a live object of this class on rxe, in all four
    passes (all classes in one child process, resumed after a crash)."""
    name = key.rsplit('.', 1)[-1]
    rep = device_report(dev_name)
    crashes = [c for c in rep.crashes if _of_class(c[0], name)]
    fails = [f for f in rep.fails if _of_class(f[0], name)]
    units = [k for k, t in rep.units.items() if _of_class(t, name)]
    if not _DEVICE.get('printed'):      # once: the whole summary
        _DEVICE['printed'] = True
        with capsys.disabled():
            print('\n' + format_report(rep, 'device (all classes)'))
    out = [f'CRASH {u}: {w}; last call: {c}; {st}'
           for u, w, c, st in crashes]
    out += [f'WRONG {u}: {m}' for u, m in fails]
    assert not out, '\n'.join(out)
    assert units, f'no unit of {name} ran'
    assert set(units) <= rep.done


def report_main(argv):
    """python3 test_reentrancy.py report [--device]: every finding."""
    found = native_classes()
    print(counts(found))
    if '--device' in argv:
        only = [a for a in argv if not a.startswith('-')]
        for key in [k for k in _device_classes()
                    if not only or k.rsplit('.', 1)[-1] in only]:
            print(format_report(run_children([key], 'device'), key),
                  flush=True)
    else:
        print(format_report(run_children(['ALL'], 'host'), 'host'))
    return 0


if __name__ == '__main__':
    if sys.argv[1:2] == ['child']:
        sys.exit(child_main(sys.argv[2:]))
    if sys.argv[1:2] == ['report']:
        sys.exit(report_main(sys.argv[2:]))
    print(__doc__)
