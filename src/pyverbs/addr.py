# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Addressing: GIDs, GRHs, global routes, address handle attributes, AHs.

GID(val=None) holds 16 raw bytes and reads/prints as upstream's
'xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx:xxxx'; GIDs compare by value.  Where a
GID is accepted (GID(), GlobalRoute(dgid=), the dgid/sgid attributes), a GID,
such a string or 16 raw bytes will do; the dgid/sgid attributes read back as
strings, as upstream's do.

AH(pd, attr=AHAttr) or AH(pd, wc=WC, grh=<address or GRH>, port_num=N); the
AH is closed when its PD is.  Beyond upstream, attr may also come second
positionally, AH(pd, ah_attr), as upstream's README writes it.
"""
from pyverbs._verbs import GID, GRH, GlobalRoute, AHAttr, AH
from pyverbs._unimplemented import fill_missing

__all__ = ['GID', 'GRH', 'GlobalRoute', 'AHAttr', 'AH']

_FMT = '{:22}: {:<20}\n'
_AH_FMT = '  {:22}: {:<20}\n'


def _grh_str(self):
    return (_FMT.format('DGID', self.dgid) +
            _FMT.format('SGID', self.sgid) +
            _FMT.format('version tclass flow', self.version_tclass_flow) +
            _FMT.format('paylen', self.paylen) +
            _FMT.format('next header', self.next_hdr) +
            _FMT.format('hop limit', self.hop_limit))


def _gr_str(self):
    return (_FMT.format('DGID', self.dgid) +
            _FMT.format('flow label', self.flow_label) +
            _FMT.format('sgid index', self.sgid_index) +
            _FMT.format('hop limit', self.hop_limit) +
            _FMT.format('traffic class', self.traffic_class))


def _ah_attr_str(self):
    out = (_AH_FMT.format('port num', self.port_num) +
           _AH_FMT.format('sl', self.sl) +
           _AH_FMT.format('source path bits', self.src_path_bits) +
           _AH_FMT.format('dlid', self.dlid) +
           _AH_FMT.format('static rate', self.static_rate) +
           _AH_FMT.format('is global', self.is_global))
    if self.is_global:
        out += (_AH_FMT.format('dgid', self.dgid) +
                _AH_FMT.format('flow label', self.flow_label) +
                _AH_FMT.format('sgid index', self.sgid_index) +
                _AH_FMT.format('hop limit', self.hop_limit) +
                _AH_FMT.format('traffic_class', self.traffic_class))
    return out


GRH.__str__ = _grh_str
GlobalRoute.__str__ = _gr_str
AHAttr.__str__ = _ah_attr_str

fill_missing(globals(), __name__)
