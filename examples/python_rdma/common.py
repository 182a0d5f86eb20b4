# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Argument handling shared by the python-rdma examples."""
import argparse

import rdma


def end_ports(description):
    """The two end ports the example runs between (--a, --b)."""
    ap = argparse.ArgumentParser(description=description)
    names = [d.name for d in rdma.get_devices()]
    ap.add_argument('--a', default=names[0] if names else None,
                    help='device (or device/port) of side A')
    ap.add_argument('--b', default=names[1] if len(names) > 1 else
                    (names[0] if names else None),
                    help='device (or device/port) of side B')
    args = ap.parse_args()
    if args.a is None:
        raise SystemExit('no RDMA device')
    return rdma.get_end_port(args.a), rdma.get_end_port(args.b)
