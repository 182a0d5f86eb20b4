# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""``pyverbs devices``: the RDMA devices and their node GUIDs, laid out as
ibverbs-utils' ibv_devices prints them."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from pyverbs.cli import device_list

if TYPE_CHECKING:
    from pyverbs.device import Device

NAME = 'devices'
HELP = 'list the RDMA devices and their node GUIDs (as ibv_devices)'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def format_devices(devices: list[Device]) -> list[str]:
    """The lines printed for devices (a list of pyverbs Device)."""
    lines = ['    %-16s\t   node GUID' % 'device',
             '    %-16s\t----------------' % '------']
    for dev in devices:
        lines.append('    %-16s\t%016x' % (dev.name.decode(), dev.guid))
    return lines


def run(args: argparse.Namespace) -> int:
    devices = device_list()
    if devices is None:
        return 1
    print('\n'.join(format_devices(devices)))
    return 0
