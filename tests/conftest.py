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


@pytest.fixture
def gid_index(ctx, port):
    from rdma_helpers import find_gid_index
    idx = find_gid_index(ctx, port)
    if idx is None:
        pytest.fail(f'{ctx.name} port {port} has no usable GID')
    return idx


@pytest.fixture(scope='module')
def gids(dev_names):
    """The GID index (rdma_helpers.find_gid_index) of port 1 of the first
    and of the last device."""
    from pyverbs.device import Context
    from rdma_helpers import find_gid_index
    if len(dev_names) < 2:
        pytest.fail('the VM has rxe0 and rxe1; this needs both')
    out = []
    for name in (dev_names[0], dev_names[-1]):
        with Context(name=name) as ctx:
            out.append(find_gid_index(ctx))
    return out


@pytest.fixture
def cq(ctx):
    """A CQ of 64 entries on ctx."""
    from pyverbs.cq import CQ
    with CQ(ctx, 64) as c:
        yield c


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
