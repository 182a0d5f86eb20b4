# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's small helpers: clock_monotonic(), the clock that
rdma.vtools.CQPoller's deadlines (wakeat) are given in, and struct(), a
class maker for mutable records that track which fields were set.

python-rdma's SysFSDevice (opening the /dev node of a umad or issm device)
serves only its MAD layer, which pyverbs-c does not have.
"""
import time
from typing import Any, NamedTuple

__all__ = ['clock_monotonic', 'struct', 'finfo', 'Struct']


def clock_monotonic() -> float:
    """Seconds on CLOCK_MONOTONIC, as a float (the clock time.monotonic()
    reads on Linux)."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


class finfo(NamedTuple):
    """A field of a struct(): its default (a value, or a callable making
    one) and its MASK bit."""
    type: Any
    mask: int


class Struct:
    """A mutable record built from keywords (the base of struct()'s
    classes and of rdma.ibverbs' keyword structs).  A subclass lists its
    fields in _fields as (name, default) or (name, default, mask bit); a
    callable default is called for each instance.  MASK has the bit of
    each field given to the constructor or assigned since; an unknown
    field name is a TypeError (keyword) or AttributeError (assignment)."""
    _fields: 'tuple[tuple[Any, ...], ...]' = ()
    _finfo: 'dict[str, finfo]' = {}
    MASK: int

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        info = {}
        for f in cls._fields:
            if not 2 <= len(f) <= 3:
                raise ValueError(f'a field is (name, default[, mask]), '
                                 f'not {f!r}')
            info[f[0]] = finfo(f[1], f[2] if len(f) == 3 else 0)
        cls._finfo = info

    def __init__(self, **kwargs: Any) -> None:
        info = self._finfo
        for k in kwargs:
            if k not in info:
                raise TypeError(f"{type(self).__name__}() got an unexpected "
                                f"keyword argument '{k}'")
        mask = 0
        d = self.__dict__
        for k, (default, bit) in info.items():
            if k in kwargs:
                d[k] = kwargs[k]
                mask |= bit
            else:
                d[k] = default() if callable(default) else default
        d['MASK'] = mask

    def __setattr__(self, k: str, v: Any) -> None:
        if k == 'MASK':
            self.__dict__[k] = v
            return
        f = self._finfo.get(k)
        if f is None:
            raise AttributeError(f"'{type(self).__name__}' object has no "
                                 f"attribute '{k}'")
        self.__dict__[k] = v
        self.__dict__['MASK'] |= f.mask

    def __str__(self) -> str:
        return ','.join(f'{k}={getattr(self, k)}' +
                        ('*' if self.MASK & f.mask else '')
                        for k, f in self._finfo.items())

    def __repr__(self) -> str:
        args = ', '.join(f'{k}={getattr(self, k)!r}' for k in self._finfo)
        return f'{type(self).__name__}({args})'

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable


def struct(name: str, fields: 'list[tuple[Any, ...]]') -> 'type[Struct]':
    """A Struct subclass called name with fields ((name, default) or
    (name, default, mask bit) tuples): a mutable record whose MASK tracks
    the fields set; str() lists the fields, a '*' after those in MASK."""
    return type(name, (Struct,), {'_fields': tuple(fields)})
