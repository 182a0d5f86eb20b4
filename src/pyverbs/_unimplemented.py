# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Upstream's names, filled in where a build lacks what defines them.

Every module of upstream pyverbs 44 is implemented.  This module is the
safety net that keeps that so whatever the build machine had:

  - MISSING lists, per core module, upstream's public names (rdma-core 44)
    and OPTIONAL_API those of the modules over an optional library (the
    providers, rdma_cm).  Each module calls
    fill_missing(globals(), __name__) at its end, which defines every listed
    name the module did not define itself as a placeholder: a class whose
    construction (and any call of an attribute read from it) raises
    PyverbsUserError, or such a function.  A full build fills none
    (tests/test_imports.py checks it).
  - A build without librdmacm, libmlx5 or libefa (meson finds them
    optional) defines no class over that library: each becomes a
    placeholder whose error names the missing library and the packages
    that bring it (OPTIONAL_LIBS), so imports (rdma-core's tests import
    every module) still succeed (tests/test_build_options.py).
  - Names upstream re-exports from another module (pyverbs.qp.qp_type_to_str
    is pyverbs.utils.qp_type_to_str) are filled with the real object
    (REEXPORTS).

placeholders() reports what was filled in, per module, among the modules
imported so far.
"""
import importlib
from collections.abc import Callable, MutableMapping
from typing import Any, NoReturn

from pyverbs.pyverbs_error import PyverbsUserError

# module name -> the public names of upstream's module (rdma-core 44): a
# name a module defines itself is never replaced, so what is filled is
# exactly what is missing (placeholders() tells; in a full build, nothing).
MISSING: dict[str, tuple[str, ...]] = {
    'pyverbs.device': (
        'AsyncEvent', 'CQModerationCaps', 'Context', 'Device', 'DeviceAttr',
        'DeviceAttrEx', 'GIDEntry', 'ODPCaps', 'PCIAtomicCaps',
        'PacketPacingCaps', 'PortAttr',
        'QueryDeviceExInput', 'RSSCaps', 'TMCaps', 'TSOCaps',
        'get_device_list', 'guid_format', 'guid_to_hex', 'phys_state_to_str',
        'port_state_to_str', 'rdma_get_devices', 'speed_to_str',
        'str_from_flags', 'translate_device_caps', 'translate_event_type',
        'translate_gid_type', 'translate_link_layer', 'translate_mtu',
        'translate_node_type', 'translate_port_cap_flags',
        'translate_port_cap_flags2', 'translate_transport_type',
        'width_to_str'),
    'pyverbs.pd': ('PD',),
    'pyverbs.mr': ('DmaBufMR', 'MR', 'MW', 'MWBind', 'MWBindInfo',
                   'mwtype2str'),
    'pyverbs.cq': ('CQ', 'CQEX', 'CompChannel', 'CqInitAttrEx', 'PollCqAttr',
                   'WC', 'WcTmInfo', 'cqe_flags_to_str', 'cqe_opcode_to_str',
                   'cqe_status_to_str', 'create_wc_flags_to_str',
                   'flags_to_str'),
    'pyverbs.qp': ('DataBuffer', 'ECE', 'QP', 'QPAttr', 'QPCap', 'QPEx',
                   'QPInitAttr', 'QPInitAttrEx'),
    'pyverbs.addr': ('AH', 'AHAttr', 'GID', 'GRH', 'GlobalRoute'),
    'pyverbs.wr': ('RecvWR', 'SGE', 'SendWR', 'send_flags_to_str'),
    'pyverbs.xrcd': ('XRCD', 'XRCDInitAttr'),
    'pyverbs.dmabuf': ('DmaBuf',),
    'pyverbs.mem_alloc': ('free', 'malloc', 'mmap', 'munmap',
                          'posix_memalign', 'read', 'read32', 'read64',
                          'write', 'writebe32', 'writebe64'),
    'pyverbs.dma_util': ('mmio_write32_as_be', 'mmio_write64_as_be',
                         'udma_from_dev_barrier', 'udma_to_dev_barrier'),
}

# The public names of the modules over an optional library, whole
# (upstream's, rdma-core 44; pyverbs.aio's own): a module defines what it
# implements and fill_missing() makes placeholders of the rest; a build that
# did not find the library defines none of them, and each placeholder names
# the missing library.
OPTIONAL_API: dict[str, tuple[str, ...]] = {
    'pyverbs.cmid': (
        'AddrInfo', 'CMEvent', 'CMEventChannel', 'CMID', 'ConnParam',
        'JoinMCAttrEx', 'UDParam'),
    'pyverbs.aio': ('get_cm_event',),
    'pyverbs.providers.efa.efadv': (
        'EfaAH', 'EfaCQ', 'EfaContext', 'EfaDVAHAttr', 'EfaDVCQInitAttr',
        'EfaDVDeviceAttr', 'EfaQPInitAttr', 'SRDQP', 'SRDQPEx',
        # rdma-core 50 .. 65
        'EfaDVMRAttr', 'EfaMR', 'EfaDVSQDepthAttr', 'EfaDVRQDepthAttr',
        'EfaCompCntrInitAttr', 'EfaCompCntr'),
    'pyverbs.providers.mlx5.mlx5dv': (
        'Mlx5CQ', 'Mlx5Context', 'Mlx5Cqe64', 'Mlx5DCIStreamInitAttr',
        'Mlx5DVCQInitAttr', 'Mlx5DVContext', 'Mlx5DVContextAttr',
        'Mlx5DVDCInitAttr', 'Mlx5DVPortAttr', 'Mlx5DVQPInitAttr',
        'Mlx5DevxEq', 'Mlx5DevxMsiVector', 'Mlx5DevxObj', 'Mlx5DmOpAddr',
        'Mlx5PP', 'Mlx5QP', 'Mlx5UAR', 'Mlx5UMEM', 'Mlx5VAR', 'Mlx5VfioAttr',
        'Wqe', 'WqeCtrlSeg', 'WqeDataSeg', 'WqeSeg',
        'bitmask_to_str', 'context_comp_mask_to_str', 'context_flags_to_str',
        'cqe_comp_to_str', 'dc_type_to_str', 'qp_comp_mask_to_str',
        'qp_create_flags_to_str', 'qpts_to_str', 'send_ops_flags_to_str',
        'swp_to_str', 'tunnel_offloads_to_str',
        # rdma-core 60
        'Mlx5DevxCmdComp'),
    'pyverbs.providers.mlx5.mlx5dv_event': (
        'EventChannel', 'EventFD', 'EventHeader'),
    'pyverbs.providers.mlx5.mlx5dv_dmabuf': ('Mlx5DmaBufMR',),
    'pyverbs.providers.mlx5.mlx5dv_objects': (
        'Mlx5DvCQ', 'Mlx5DvObj', 'Mlx5DvPD', 'Mlx5DvQP', 'Mlx5DvSRQ'),
    'pyverbs.providers.mlx5.mlx5dv_mkey': (
        'Mlx5Mkey', 'Mlx5MkeyConfAttr', 'Mlx5MkeyErr', 'Mlx5MrInterleaved',
        'Mlx5SigBlockAttr', 'Mlx5SigBlockDomain', 'Mlx5SigCrc', 'Mlx5SigErr',
        'Mlx5SigT10Dif'),
    'pyverbs.providers.mlx5.mlx5dv_flow': (
        'Mlx5Flow', 'Mlx5FlowActionAttr', 'Mlx5FlowMatchParameters',
        'Mlx5FlowMatcher', 'Mlx5FlowMatcherAttr',
        'Mlx5PacketReformatFlowAction',
        # rdma-core 60
        'Mlx5ModifyFlowAction'),
    'pyverbs.providers.mlx5.mlx5dv_sched': (
        'Mlx5dvSchedAttr', 'Mlx5dvSchedLeaf', 'Mlx5dvSchedNode'),
    'pyverbs.providers.mlx5.mlx5dv_crypto': (
        'Mlx5CryptoAttr', 'Mlx5CryptoExtLoginAttr', 'Mlx5CryptoLogin',
        'Mlx5CryptoLoginAttr', 'Mlx5DEK', 'Mlx5DEKAttr', 'Mlx5DEKInitAttr'),
    'pyverbs.providers.mlx5.mlx5_vfio': ('Mlx5VfioAttr', 'Mlx5VfioContext'),
    'pyverbs.providers.mlx5.dr_domain': ('DrDomain',),
    'pyverbs.providers.mlx5.dr_table': ('DrTable',),
    'pyverbs.providers.mlx5.dr_matcher': ('DrMatcher',),
    'pyverbs.providers.mlx5.dr_rule': ('DrRule',),
    'pyverbs.providers.mlx5.dr_action': (
        'DrAction', 'DrActionDefMiss', 'DrActionDestArray',
        'DrActionDestAttr', 'DrActionDestTable', 'DrActionDestTir',
        'DrActionDrop', 'DrActionFlowCounter', 'DrActionFlowSample',
        'DrActionIBPort', 'DrActionModify', 'DrActionPacketReformat',
        'DrActionPopVLan', 'DrActionPushVLan', 'DrActionQp', 'DrActionTag',
        'DrActionVPort', 'DrFlowSamplerAttr',
        # rdma-core 48
        'DrActionFlowMeter', 'DrFlowMeterAttr'),
}
# prefix of a qualified name -> (the _verbs flag of a build with the
# library, the library)
OPTIONAL_LIBS: dict[str, tuple[str, str]] = {
    'pyverbs.cmid.': ('_HAVE_RDMACM', 'librdmacm'),
    'pyverbs.aio.get_cm_event': ('_HAVE_RDMACM', 'librdmacm'),
    'pyverbs.device.rdma_get_devices': ('_HAVE_RDMACM', 'librdmacm'),
    'pyverbs.providers.mlx5.': ('_HAVE_MLX5', 'libmlx5'),
    'pyverbs.providers.efa.': ('_HAVE_EFA', 'libefa'),
}
# library -> (what brings its development files: Debian/Ubuntu, Fedora/RHEL;
# what brings it at run time: Debian/Ubuntu)
LIB_PACKAGES: dict[str, tuple[str, str, str]] = {
    'librdmacm': ('librdmacm-dev', 'librdmacm-devel', 'librdmacm1'),
    'libmlx5': ('libibverbs-dev', 'rdma-core-devel', 'ibverbs-providers'),
    'libefa': ('libibverbs-dev', 'rdma-core-devel', 'ibverbs-providers'),
}

# module name -> {name: module it comes from}: upstream's re-exports.
REEXPORTS: dict[str, dict[str, str]] = {
    'pyverbs.device': {'gid_str': 'pyverbs.utils'},
    'pyverbs.addr': {'gid_str': 'pyverbs.utils',
                     'gid_str_to_array': 'pyverbs.utils'},
    'pyverbs.mr': {'rereg_error_to_str': 'pyverbs.utils'},
    'pyverbs.qp': {n: 'pyverbs.utils' for n in (
        'access_flags_to_str', 'gid_str', 'mig_state_to_str', 'mtu_to_str',
        'qp_state_to_str', 'qp_type_to_str')},
    'pyverbs.wr': {'inc_rkey': 'pyverbs.base'},
    'pyverbs.providers.mlx5.mlx5dv': {'posix_memalign': 'pyverbs.mem_alloc'},
    'pyverbs.providers.mlx5.dr_action': {'be64toh': 'pyverbs.utils'},
    'pyverbs.providers.mlx5.dr_table': {
        'DrMatcher': 'pyverbs.providers.mlx5.dr_matcher'},
}

# module name -> names fill_missing() defined
_filled: dict[str, tuple[str, ...]] = {}


def _missing_library(what: str) -> str | None:
    """The optional library that what (a qualified name) needs and this
    build lacks, or None."""
    from pyverbs import _verbs
    for prefix, (flag, lib) in OPTIONAL_LIBS.items():
        if what.startswith(prefix) and not getattr(_verbs, flag, 0):
            return lib
    return None


def _not_implemented(what: str) -> NoReturn:
    lib = _missing_library(what)
    if lib:
        dev, devel, run = LIB_PACKAGES[lib]
        raise PyverbsUserError(
            f'{what} needs {lib}: this pyverbs-c was built without it '
            f'(install {dev} on Debian/Ubuntu or {devel} on Fedora/RHEL, '
            f'then reinstall pyverbs-c; {run} is what it needs at run '
            f'time)')
    raise PyverbsUserError(
        f'{what} is not implemented in this version of pyverbs-c')


def _placeholder_func(name: str, module: str,
                      qualname: str | None = None) -> Callable[..., NoReturn]:
    qualname = qualname or name
    what = f'{module}.{qualname}'

    def placeholder(*args: object, **kwargs: object) -> NoReturn:
        _not_implemented(what)
    placeholder.__name__ = name
    placeholder.__qualname__ = qualname
    placeholder.__module__ = module
    placeholder.__doc__ = f'{what}: not implemented in this version.'
    return placeholder


class _PlaceholderType(type):
    """Metaclass of placeholder classes: any public attribute read from the
    class (a static method upstream, say) is a placeholder function."""

    def __getattr__(cls, name: str) -> Callable[..., NoReturn]:
        if name.startswith('_'):
            raise AttributeError(name)
        return _placeholder_func(name, cls.__module__,
                                 f'{cls.__qualname__}.{name}')


def _placeholder_class(name: str, module: str) -> _PlaceholderType:
    what = f'{module}.{name}'

    def __init__(self: object, *args: object, **kwargs: object) -> None:
        _not_implemented(what)
    return _PlaceholderType(name, (), {
        '__init__': __init__, '__module__': module, '__qualname__': name,
        '__doc__': f'{what}: not implemented in this version.'})


def _placeholder(name: str,
                 module: str) -> _PlaceholderType | Callable[..., NoReturn]:
    if name[:1].isupper():
        return _placeholder_class(name, module)
    return _placeholder_func(name, module)


def fill_missing(namespace: MutableMapping[str, Any], module: str) -> None:
    """Define a placeholder for each missing name of module in namespace,
    and upstream's re-exports that the module does not define itself."""
    for name, source in REEXPORTS.get(module, {}).items():
        if name not in namespace:
            namespace[name] = getattr(importlib.import_module(source), name)
    filled = []
    names = MISSING.get(module, ()) + OPTIONAL_API.get(module, ())
    for name in names:
        if name not in namespace:
            namespace[name] = _placeholder(name, module)
            filled.append(name)
    _filled[module] = tuple(filled)


def is_placeholder(obj: object) -> bool:
    """True for the classes and functions fill_missing() made."""
    if isinstance(obj, _PlaceholderType):
        return True
    return getattr(obj, '__code__', None) is _PLACEHOLDER_CODE


_PLACEHOLDER_CODE = _placeholder_func('x', 'x').__code__


def placeholders() -> dict[str, tuple[str, ...]]:
    """{module: names} filled with placeholders, for the modules imported
    so far."""
    return dict(_filled)

