# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""python-rdma's verbs API on pyverbs-c.

A Python 3 home for scripts written against python-rdma's `rdma` and
`rdma.ibverbs` (python-rdma is Python 2 only): the same names, keyword
structs and helpers, implemented as thin Python over pyverbs' objects.

    import rdma
    import rdma.ibverbs as ibv

    end_port = rdma.get_end_port()
    with rdma.get_verbs(end_port) as ctx:
        pd = ctx.pd()

What needs InfiniBand management datagrams (umad, subnet administrator
queries, SMPs) is not part of this build: get_umad(), get_gmp_mad(), SA
path queries and the classes of rdma.umad, rdma.vmad and
rdma.satransactor (which import, so that python-rdma scripts load) raise
RDMAError saying so.  On RoCE, rdma.path.resolve_path(None, path) fills a
path locally from the GIDs instead of asking an SA.
"""
import os

__all__ = ['RDMAError', 'SysError', 'MADError', 'MADTimeoutError',
           'MADClassError', 'get_end_port', 'get_device', 'get_devices',
           'get_verbs', 'get_umad', 'get_gmp_mad', 'IBA', 'devices', 'path',
           'ibverbs', 'vtools', 'tools']


class RDMAError(Exception):
    """Base class of the errors this package raises."""


class SysError(RDMAError, OSError):
    """A verbs (or other system) call failed: errno is the positive errno
    value, func the name of the C function that failed."""

    def __init__(self, errno, func, msg=None):
        if msg is not None:
            text = f'{msg} - {func} ({os.strerror(errno)})'
        else:
            text = f'{func} ({os.strerror(errno)})'
        OSError.__init__(self, errno, text)
        self.func = func

    def __reduce__(self):
        return (_rebuild_syserror, (type(self), self.errno, self.func,
                                    self.strerror))


def _rebuild_syserror(cls, errno, func, text):
    err = cls.__new__(cls)
    OSError.__init__(err, errno, text)
    err.func = func
    return err


class MADError(RDMAError):
    """python-rdma's MAD errors.  MADs are not part of this build, so
    nothing raises it; it exists for except clauses of ported scripts."""


class MADTimeoutError(MADError):
    """See MADError."""


class MADClassError(MADError):
    """See MADError."""


def _no_mads(what):
    return RDMAError(
        f'{what} needs InfiniBand management datagrams (rdma.umad), which '
        'pyverbs-c does not implement; on RoCE use '
        'rdma.path.resolve_path(None, path) to resolve a path locally')


def get_devices(refresh=False):
    """Every RDMA device of the system, as a list-like of
    rdma.devices.RDMADevice indexed by name (devices['rxe0']) or iterated
    in name order.  Cached; refresh=True reads sysfs again."""
    from rdma import devices
    return devices.get_devices(refresh)


def _devices():
    devs = get_devices()
    if len(devs) == 0:
        raise RDMAError('No RDMA devices found.')
    return devs


def _as_guid(name):
    """The GUID name is or writes, else None (TypeError for a type that
    names nothing)."""
    if isinstance(name, IBA.GUID):
        return name
    if isinstance(name, IBA.GID):
        return None
    if not isinstance(name, str):
        raise TypeError(f'name must be a str, an IBA.GUID or an IBA.GID, '
                        f'not {type(name).__name__}')
    try:
        return IBA.GUID(name)
    except ValueError:
        return None


def get_device(name=None):
    """The RDMADevice called name, or whose node GUID is name (a str or
    an IBA.GUID); the first device if name is None.  RDMAError if there
    is none."""
    from rdma import devices
    devs = _devices()
    if name is None:
        return devs.first()
    guid = _as_guid(name)
    if guid is not None:
        return devices.find_node_guid(devs, guid)
    if not isinstance(name, str):
        raise TypeError('a device is named by a str or an IBA.GUID')
    try:
        return devs[name]
    except KeyError:
        raise RDMAError(f'RDMA device {name!r} not found.') from None


def get_end_port(name=None):
    """An rdma.devices.EndPort: the first port of the first device if name
    is None, else the port name describes: 'rxe0' (its first port),
    'rxe0/1', a port GID ('fe80::...', '::ffff:192.0.2.1', or an IBA.GID)
    or a port GUID ('0002:c903:0000:1491', or an IBA.GUID).  RDMAError if
    no port matches."""
    from rdma import devices
    devs = _devices()
    if name is None:
        return devs.first().end_ports.first()
    if isinstance(name, IBA.GID):
        return devices.find_port_gid(devs, name)[0]
    guid = _as_guid(name)
    if guid is not None:
        return devices.find_port_guid(devs, guid)
    if ':' in name:
        try:
            gid = IBA.GID(name)
        except ValueError:
            pass
        else:
            return devices.find_port_gid(devs, gid)[0]
    return devices.find_port_name(devs, name)


def get_verbs(port, **kwargs):
    """An rdma.ibverbs.Context on port (an EndPort, or an RDMADevice)."""
    from rdma import ibverbs
    return ibverbs.Context(port, **kwargs)


def get_umad(port, **kwargs):
    """python-rdma's MAD interface: not in this build (raises RDMAError)."""
    raise _no_mads('rdma.get_umad()')


def get_gmp_mad(port, path=None, verbs=None, **kwargs):
    """python-rdma's GMP (SA, PMA ...) MAD interface: not in this build
    (raises RDMAError)."""
    raise _no_mads('rdma.get_gmp_mad()')


from rdma import IBA, devices, path, ibverbs, tools, vtools  # noqa: E402
