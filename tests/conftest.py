# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Shared fixtures.

Tests that need a live RDMA device use one of the device fixtures below (or
the `device` marker); they are marked `device` automatically.  On a machine
without RDMA devices they skip, saying so; inside the Soft-RoCE VM
(PYVERBS_IN_VM=1, set by tools/rxe-vm) a missing device is a failure, so the
guest run cannot silently test nothing.
"""
import os

import pytest

DEVICE_FIXTURES = {'dev_name', 'dev_names', 'ctx', 'ctx2', 'pd', 'port',
                   'gid_index', 'rxe'}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if DEVICE_FIXTURES & set(getattr(item, 'fixturenames', ())):
            item.add_marker(pytest.mark.device)


def _devices():
    from pyverbs.device import get_device_list
    names = [d.name.decode() for d in get_device_list()]
    if not names:
        if os.environ.get('PYVERBS_IN_VM'):
            pytest.fail('no RDMA device inside the Soft-RoCE VM')
        pytest.skip('no RDMA device on this machine; device tests run in '
                    'the Soft-RoCE VM (tools/run-tests)')
    return sorted(names)


@pytest.fixture(scope='session')
def dev_names():
    """Names of every RDMA device (rxe0, rxe1 in the VM)."""
    return _devices()


@pytest.fixture(scope='session')
def dev_name(dev_names):
    return os.environ.get('PYVERBS_TEST_DEV', dev_names[0])


@pytest.fixture
def ctx(dev_name):
    from pyverbs.device import Context
    with Context(name=dev_name) as c:
        yield c


@pytest.fixture
def ctx2(dev_names):
    """A Context on a second device (the peer in the VM), else the first."""
    from pyverbs.device import Context
    with Context(name=dev_names[-1]) as c:
        yield c


@pytest.fixture
def pd(ctx):
    from pyverbs.pd import PD
    with PD(ctx) as p:
        yield p


@pytest.fixture(scope='session')
def port():
    return 1


def find_roce_v2_gid(ctx, port=1):
    """Index of an IPv4-mapped RoCEv2 GID of the port (the VM gives each
    rxe netdev an IPv4 address), else of any non-zero GID, else None."""
    import pyverbs.enums as e
    ROCE_V2_SYSFS = getattr(e, 'IBV_GID_TYPE_SYSFS_ROCE_V2', 1)
    attr = ctx.query_port(port)
    fallback = None
    for idx in range(attr.gid_tbl_len):
        try:
            gid = ctx.query_gid(port, idx)
        except Exception:
            continue
        text = str(gid)
        if text.replace('0', '').replace(':', '') == '':
            continue
        if fallback is None:
            fallback = idx
        if text.startswith('0000:0000:0000:0000:0000:ffff'):
            try:
                gtype = ctx.query_gid_type(port, idx)
            except Exception:
                gtype = None
            if gtype in (None, ROCE_V2_SYSFS):
                return idx
    return fallback


@pytest.fixture
def gid_index(ctx, port):
    idx = find_roce_v2_gid(ctx, port)
    if idx is None:
        pytest.fail(f'{ctx.name} port {port} has no usable GID')
    return idx


@pytest.fixture
def accept_local():
    """rdma_cm between 192.0.2.1 and 192.0.2.2 (or one of them and itself)
    in the VM: packets cross the veth pair only with accept_local (else
    ADDR_ERROR -110)."""
    for conf in ('all', 'veth0', 'veth1'):
        path = f'/proc/sys/net/ipv4/conf/{conf}/accept_local'
        if os.path.exists(path):
            try:
                with open(path, 'w') as f:
                    f.write('1')
            except OSError:
                pass
