#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""The document's first example: a verbs instance and a protection domain
for the default end port (or --a)."""
import rdma
import rdma.ibverbs as ibv

from common import end_ports


def main():
    end_port, _ = end_ports(__doc__)
    with rdma.get_verbs(end_port) as ctx:
        pd = ctx.pd()
        print(f'ok: {ctx} {pd} port {end_port.port_id} '
              f'GID {end_port.default_gid} state {ctx.query_port().state}')
        assert isinstance(pd, ibv.PD) and not pd.closed
    # closing the context closed its PD
    assert pd.closed
    print('ok: closing the Context closed the PD')


if __name__ == '__main__':
    main()
