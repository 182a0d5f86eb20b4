# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""``pyverbs rc-pingpong``: ping-pong over one RC QP, speaking the TCP
exchange and taking the options of ibverbs-utils' ibv_rc_pingpong, so
either side may be the C tool:

    pyverbs rc-pingpong -d rxe0 -g 1                 # server
    pyverbs rc-pingpong -d rxe1 -g 1 192.0.2.1       # client

-o asks for an on-demand-paging MR.  The C tool's -O (implicit ODP), -P
(prefetch), -t (completion timestamps) and -j (device memory) are taken:
on a device that lacks the feature they fail with the C tool's message,
and on one that has it they fail saying pyverbs' tool does not do it.
"""
import argparse
from typing import cast

import pyverbs.enums as e
from pyverbs.cli.exchange import Dest, Failure
from pyverbs.cli._pingpong import (SEND_WRID, PingPong,
                                   add_common_arguments, c_number, err, make,
                                   path_to, run_pingpong)
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.device import PortAttr
from pyverbs.qp import QP, QPAttr, QPEx, QPInitAttrEx
from pyverbs.wr import SendWR

NAME = 'rc-pingpong'
HELP = 'RC ping-pong, interoperating with ibv_rc_pingpong'

MTUS: dict[int, int] = {
    256: e.IBV_MTU_256, 512: e.IBV_MTU_512, 1024: e.IBV_MTU_1024,
    2048: e.IBV_MTU_2048, 4096: e.IBV_MTU_4096}
ODP_RC_CAPS = e.IBV_ODP_SUPPORT_SEND | e.IBV_ODP_SUPPORT_RECV
# Options accepted for the C tool's sake that this tool does not carry out.
NOT_DONE = (('iodp', '-O/--iodp (implicit on-demand paging)'),
            ('prefetch', '-P/--prefetch (advising an ODP MR)'),
            ('ts', '-t/--ts (completion timestamps)'),
            ('dm', '-j/--dm (device memory)'))


def mtu(text: str) -> int:
    val = c_number(text)
    if val not in MTUS:
        raise argparse.ArgumentTypeError(
            f'{val} is not one of {", ".join(map(str, MTUS))}')
    return MTUS[val]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common_arguments(parser, 4096)
    parser.add_argument('-m', '--mtu', type=mtu, default=e.IBV_MTU_1024,
                        metavar='MTU', help='path MTU (default 1024)')
    parser.add_argument('-N', '--new_send', '--new-send', dest='new_send',
                        action='store_true',
                        help='post sends with the new WR API (QPEx)')
    parser.add_argument('-o', '--odp', action='store_true',
                        help='use an on-demand-paging MR')
    parser.add_argument('-O', '--iodp', action='store_true',
                        help='implicit on-demand paging (not done here: '
                        'fails)')
    parser.add_argument('-P', '--prefetch', action='store_true',
                        help='prefetch the ODP MR (not done here: fails)')
    parser.add_argument('-t', '--ts', action='store_true',
                        help='completion timestamps (not done here: fails)')
    parser.add_argument('-j', '--dm', action='store_true',
                        help='device memory (not done here: fails)')


class RCPingPong(PingPong):
    qp_type = e.IBV_QPT_RC

    def check_device(self) -> None:
        a = self.args
        if not (a.odp or a.iodp or a.ts or a.dm):
            return
        try:
            attr = self.ctx.query_device_ex()
        except PyverbsError:
            raise Failure("Couldn't query device for its features") \
                from None
        odp = attr.odp_caps
        if a.odp or a.iodp:
            if not (odp.general_caps & e.IBV_ODP_SUPPORT) or \
                    (odp.rc_odp_caps & ODP_RC_CAPS) != ODP_RC_CAPS:
                raise Failure("The device isn't ODP capable or does not "
                              'support RC send and receive with ODP')
            if a.iodp and not (odp.general_caps &
                               e.IBV_ODP_SUPPORT_IMPLICIT):
                raise Failure("The device doesn't support implicit ODP")
        if a.ts and not attr.completion_timestamp_mask:
            raise Failure("The device isn't completion timestamp capable")
        if a.dm:
            if not attr.max_dm_size:
                raise Failure("Device doesn't support dm allocation")
            if attr.max_dm_size < self.size:
                raise Failure('Device memory is insufficient')
        for dest, what in NOT_DONE:
            if getattr(a, dest):
                raise Failure(f'{NAME}: {what} is not supported by pyverbs '
                              f"{NAME}; use ibv_rc_pingpong for it")

    def mr_access(self) -> int:
        access = e.IBV_ACCESS_LOCAL_WRITE
        if self.args.odp:
            access |= e.IBV_ACCESS_ON_DEMAND
        return access

    def create_qp(self) -> QP:
        if not self.args.new_send:
            return super().create_qp()
        return QPEx(self.ctx, QPInitAttrEx(
            qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
            cap=self.qp_cap(), pd=self.pd,
            send_ops_flags=e.IBV_QP_EX_WITH_SEND,
            comp_mask=(e.IBV_QP_INIT_ATTR_PD |
                       e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)))

    def init_extra(self, attr: QPAttr) -> int:
        attr.qp_access_flags = 0
        return e.IBV_QP_ACCESS_FLAGS

    def check_lid(self, port_attr: PortAttr) -> None:
        if port_attr.link_layer != e.IBV_LINK_LAYER_ETHERNET and \
                not port_attr.lid:
            raise Failure("Couldn't get local LID")

    def connect(self, rem: Dest, mine: Dest) -> None:
        a = self.args
        attr = QPAttr()
        attr.qp_state = e.IBV_QPS_RTR
        attr.path_mtu = a.mtu
        attr.dest_qp_num = rem.qpn
        attr.rq_psn = rem.psn
        attr.max_dest_rd_atomic = 1
        attr.min_rnr_timer = 12
        attr.ah_attr = path_to(rem, a, self.ib_port)
        make(lambda: self.qp.modify(
            attr, e.IBV_QP_STATE | e.IBV_QP_AV | e.IBV_QP_PATH_MTU |
            e.IBV_QP_DEST_QPN | e.IBV_QP_RQ_PSN |
            e.IBV_QP_MAX_DEST_RD_ATOMIC | e.IBV_QP_MIN_RNR_TIMER),
            'Failed to modify QP to RTR')
        attr.qp_state = e.IBV_QPS_RTS
        attr.timeout = 14
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.sq_psn = mine.psn
        attr.max_rd_atomic = 1
        make(lambda: self.qp.modify(
            attr, e.IBV_QP_STATE | e.IBV_QP_TIMEOUT | e.IBV_QP_RETRY_CNT |
            e.IBV_QP_RNR_RETRY | e.IBV_QP_SQ_PSN |
            e.IBV_QP_MAX_QP_RD_ATOMIC), 'Failed to modify QP to RTS')
        self.send_wr = SendWR(wr_id=SEND_WRID, opcode=e.IBV_WR_SEND,
                              num_sge=1, sg=[self.send_sge],
                              send_flags=self.send_flags)

    def post_send(self) -> None:
        if not self.args.new_send:
            super().post_send()
            return
        qp = cast(QPEx, self.qp)        # create_qp's, with new_send
        qp.wr_start()
        qp.wr_id = SEND_WRID
        qp.wr_flags = self.send_flags
        qp.wr_send()
        qp.wr_set_sge(self.send_sge)
        qp.wr_complete()


def run(args: argparse.Namespace) -> int:
    if args.odp and args.dm:
        err("DM memory region can't be on demand")
        return 1
    if args.prefetch and not (args.odp or args.iodp):
        err('prefetch is valid only with on-demand memory region')
        return 1
    return run_pingpong(args, RCPingPong)
