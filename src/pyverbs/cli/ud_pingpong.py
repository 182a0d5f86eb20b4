# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""``pyverbs ud-pingpong``: ping-pong over one UD QP, speaking the TCP
exchange and taking the options of ibverbs-utils' ibv_ud_pingpong, so
either side may be the C tool:

    pyverbs ud-pingpong -d rxe0 -g 1                 # server
    pyverbs ud-pingpong -d rxe1 -g 1 192.0.2.1       # client

Each receive buffer starts with 40 bytes for the GRH that a UD receive
delivers first; sends go through an address handle made from the peer's
LID and GID, with Q_Key 0x11111111 on both sides.  A message must fit the
port's active MTU.
"""
import argparse

import pyverbs.enums as e
from pyverbs.addr import AH
from pyverbs.cli.exchange import Dest, Failure
from pyverbs.cli._pingpong import (SEND_WRID, PingPong,
                                   add_common_arguments, make, path_to,
                                   run_pingpong)
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QPAttr
from pyverbs.wr import SendWR

NAME = 'ud-pingpong'
HELP = 'UD ping-pong, interoperating with ibv_ud_pingpong'

GRH_SIZE = 40
QKEY = 0x11111111


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common_arguments(parser, 2048)


class UDPingPong(PingPong):
    head = GRH_SIZE
    qp_type = e.IBV_QPT_UD
    gid_error = 'Could not get local gid for gid index {}'

    def check_device(self) -> None:
        try:
            port_attr = self.ctx.query_port(self.ib_port)
        except PyverbsError:
            raise Failure('Unable to query port info for port '
                          f'{self.ib_port}') from None
        mtu = 1 << (port_attr.active_mtu + 7)
        if self.size > mtu:
            raise Failure(f'Requested size larger than port MTU ({mtu})')

    def init_extra(self, attr: QPAttr) -> int:
        attr.qkey = QKEY
        return e.IBV_QP_QKEY

    def connect(self, rem: Dest, mine: Dest) -> None:
        attr = QPAttr()
        attr.qp_state = e.IBV_QPS_RTR
        make(lambda: self.qp.modify(attr, e.IBV_QP_STATE),
             'Failed to modify QP to RTR')
        attr.qp_state = e.IBV_QPS_RTS
        attr.sq_psn = mine.psn
        make(lambda: self.qp.modify(attr, e.IBV_QP_STATE | e.IBV_QP_SQ_PSN),
             'Failed to modify QP to RTS')
        self.ah = make(lambda: AH(self.pd, attr=path_to(rem, self.args,
                                                        self.ib_port)),
                       'Failed to create AH')
        self.send_wr = SendWR(wr_id=SEND_WRID, opcode=e.IBV_WR_SEND,
                              num_sge=1, sg=[self.send_sge],
                              send_flags=self.send_flags, ah=self.ah,
                              remote_qpn=rem.qpn, remote_qkey=QKEY)


def run(args: argparse.Namespace) -> int:
    return run_pingpong(args, UDPingPong, local_sep=':')
