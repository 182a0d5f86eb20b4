from pyverbs.pyverbs_error import PyverbsError as PyverbsError
from pyverbs._verbs import EthSpec as EthSpec, Ipv4ExtSpec as Ipv4ExtSpec, Ipv6Spec as Ipv6Spec, Spec as Spec, TcpUdpSpec as TcpUdpSpec

__all__ = ['Spec', 'EthSpec', 'Ipv4ExtSpec', 'Ipv6Spec', 'TcpUdpSpec', 'U32_MASK']

U32_MASK: int
