# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The pyverbs command line: ``python -m pyverbs <command>`` or ``pyverbs
<command>``.

Each command lives in its own module of this package, which exposes
``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``;
adding a command is adding a module and its name to COMMANDS.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyverbs.device import Device

# Module names, in the order --help lists them.
COMMANDS: tuple[str, ...] = ('devices', 'devinfo', 'rc_pingpong',
                             'ud_pingpong', 'bench')


def device_list() -> list[Device] | None:
    """pyverbs' device list, or None after saying on stderr why it could
    not be read (the caller exits with its own tool's status)."""
    from pyverbs.device import get_device_list
    from pyverbs.pyverbs_error import PyverbsError
    try:
        return get_device_list()
    except PyverbsError as err:
        print(f'Failed to get IB devices list: {err}', file=sys.stderr)
        return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='pyverbs',
        description='RDMA device tools built on pyverbs.')
    sub = parser.add_subparsers(dest='command', metavar='COMMAND',
                                required=True)
    for name in COMMANDS:
        mod = importlib.import_module(f'{__name__}.{name}')
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(func=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse argv (default sys.argv[1:]) and run the command; returns the
    exit status (argparse exits with 2 itself on a bad command line)."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
        return status
    except BrokenPipeError:
        # The reader of a pipe left early (| head): no traceback, and
        # stdout pointed at /dev/null so that its flush at exit is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 1
