# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Enum classes and module globals built from the native enum tables.

pyverbs._verbs._enum_tables holds, per header group ('verbs', 'rdma_cm',
'mlx5dv', 'efadv'), every enum of the rdma-core headers as
(c_enum_name or None, ((member, value), ...)), values from the C compiler
(see src/pyverbs/_native/enums.c and tools/gen_enums.py).

populate() puts into a module namespace:
  - one class per named C enum, named after it (ibv_qp_type, ...), whose
    members are ints: IntFlag for bit-flag enums, IntEnum otherwise;
  - every member of a named enum as a module global, the enum member itself
    (e.IBV_QPT_RC is ibv_qp_type.IBV_QPT_RC, as in pyverbs of rdma-core 44);
  - every member of an anonymous enum, and the names upstream gives to some
    macros (RAI_PASSIVE, _IBV_DEVICE_RAW_SCATTER_FCS, ...), as plain ints.

The rule for IntFlag: every value is >= 0 and either the C name says the
enum is a set of bits (it ends in _flags, _mask, _caps, _bits, _fields or
_offloads, optionally followed by digits, e.g. ibv_port_cap_flags2), or it
has at least three members and their values are distinct single bits (e.g.
mlx5dv_obj_type, ibv_pci_atomic_op_size).  Everything else (types, states,
opcodes, sequences such as ibv_mtu, and any enum with a negative value) is an
IntEnum.  Both kinds are int subclasses, so either can be passed wherever an
int is taken.

Our IntFlag keeps C's meaning of ~: ~ibv_access_flags.IBV_ACCESS_LOCAL_WRITE
is -2 (all other bits set, as in C), not the complement within the bits the
enum happens to name, so `flags & ~X` clears only X.
"""
import enum
import re
from collections.abc import MutableMapping, Sequence
from typing import Any

from pyverbs import _verbs

_FLAG_NAME = re.compile(r'_(flags|mask|caps|bits|fields|offloads)\d*$')


def _c_invert(self: enum.IntFlag) -> int:
    return ~int(self)


def _is_flag_enum(cname: str, members: Sequence[tuple[str, int]]) -> bool:
    values = [v for _, v in members]
    if any(v < 0 for v in values):
        return False
    if _FLAG_NAME.search(cname):
        return True
    return (len(values) >= 3 and len(set(values)) == len(values) and
            all(v and not v & (v - 1) for v in values))


# group -> {c enum name: class}, built once per process
_classes: dict[str, dict[str, type[enum.Enum]]] = {}


def _build(group: str,
           module: str) -> dict[str, type[enum.Enum]]:
    classes: dict[str, type[enum.Enum]] = {}
    for cname, members in _verbs._enum_tables[group]:
        if cname is None:
            continue
        flag = _is_flag_enum(cname, members)
        # EnumMeta: the functional API, base(name, members, ...)
        base: enum.EnumMeta = enum.IntFlag if flag else enum.IntEnum
        cls = base(cname, list(members), module=module, qualname=cname)
        if flag:
            # set after creation: the enum machinery installs Flag's own
            # __invert__ on every new flag class
            setattr(cls, '__invert__', _c_invert)
        cls.__doc__ = f'enum {cname} of rdma-core ({base.__name__})'
        classes[cname] = cls
    return classes


def populate(namespace: MutableMapping[str, Any], group: str,
             module: str) -> dict[str, type[enum.Enum]]:
    """Fill namespace with the enum classes and globals of a header group.

    module is the name the classes report as their __module__ (the first
    module of the group to ask); every module asking for the same group
    gets the same class objects.
    """
    if group not in _classes:
        _classes[group] = _build(group, module)
    classes = _classes[group]
    for cname, members in _verbs._enum_tables[group]:
        if cname is None:
            for name, value in members:
                namespace[name] = value
            continue
        cls = classes[cname]
        namespace[cname] = cls
        for name, _ in members:
            namespace[name] = cls[name]
    return classes
