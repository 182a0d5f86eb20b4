#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Generate src/pyverbs/_native/enums_gen.h from the rdma-core headers.

The generated file is an X-macro table of enum and enumerator *names*; the C
compiler supplies every value when enums.c includes it, so no number is ever
parsed here.  Each header's own `enum` blocks are taken in file order (enums
of the headers it includes are not), followed by a fixed list of names that
upstream pyverbs exposes for preprocessor macros (RAI_PASSIVE, the
underscore-prefixed re-exports such as _IBV_DEVICE_RAW_SCATTER_FCS, ...).

The exception is a header that a build may lack (OPTIONAL_GROUPS: rdma_cma.h,
librdmacm being optional): its rows also record each value, as the C
compiler computes it from the header (a small probe program is compiled and
run), so that a build without the header still defines these constants; a
build with it checks at compile time that the header agrees.

The committed output comes from rdma-core 44 (Debian 12), the floor: it is
the table.  Building against newer headers still compiles (rdma-core does not
remove enumerators).  Enumerators newer than 44 are exposed only where
upstream pyverbs (65) exposes them, from a table kept here (NEWER) with their
fixed ABI values: the rows say PV_NEWER(name, C name, value, release), every
build defines the name with that value, and a build whose header has the C
name (meson.build probes each one listed in enums_newer.txt, which this tool
writes too) checks at compile time that the header agrees.

Usage:
  tools/gen_enums.py [-o FILE] [--include-dir DIR]   write the table (and
                                                      enums_newer.txt beside it)
  tools/gen_enums.py --check [--include-dir DIR]     exit 1 if the committed
                                                      files differ
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, 'src', 'pyverbs', '_native', 'enums_gen.h')
# beside the table: the C names meson.build probes (NEWER)
NEWER_LIST = 'enums_newer.txt'

# (group, header): a group is one Python enum module family.
GROUPS = (
    ('VERBS', 'infiniband/verbs.h'),
    ('VERBS', 'infiniband/tm_types.h'),
    ('RDMA_CM', 'rdma/rdma_cma.h'),
    ('MLX5DV', 'infiniband/mlx5dv.h'),
    ('EFADV', 'infiniband/efadv.h'),
)

# Groups whose header a build may not have: their rows carry their value
# (PV_FIXED), with the pkg-config package that provides the header.
OPTIONAL_GROUPS = {'RDMA_CM': 'librdmacm'}

# Enums upstream pyverbs exposes that libibverbs keeps out of its installed
# headers; enums.c defines them.  (group, enum name, members)
LOCAL_ENUMS = (
    ('VERBS', 'ibv_gid_type_sysfs',
     ('IBV_GID_TYPE_SYSFS_IB_ROCE_V1', 'IBV_GID_TYPE_SYSFS_ROCE_V2')),
)

# Names upstream pyverbs (v44) exposes for macros rather than enumerators:
# (group, python name, C expression).  They become plain ints.
MACROS = (
    ('VERBS', 'IBV_QPF_GRH_REQUIRED', 'IBV_QPF_GRH_REQUIRED'),
    ('VERBS', '_IBV_DEVICE_RAW_SCATTER_FCS', 'IBV_DEVICE_RAW_SCATTER_FCS'),
    ('VERBS', '_IBV_DEVICE_PCI_WRITE_END_PADDING',
     'IBV_DEVICE_PCI_WRITE_END_PADDING'),
    ('VERBS', '_IBV_ALLOCATOR_USE_DEFAULT',
     '(uintptr_t)IBV_ALLOCATOR_USE_DEFAULT'),
    ('VERBS', '_IBV_ADVISE_MR_ADVICE_PREFETCH',
     'IBV_ADVISE_MR_ADVICE_PREFETCH'),
    ('VERBS', '_IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE',
     'IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE'),
    ('VERBS', '_IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT',
     'IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT'),
    ('VERBS', '_IBV_ADVISE_MR_FLAG_FLUSH', 'IBV_ADVISE_MR_FLAG_FLUSH'),
    ('RDMA_CM', 'RAI_PASSIVE', 'RAI_PASSIVE'),
    ('RDMA_CM', 'RAI_NUMERICHOST', 'RAI_NUMERICHOST'),
    ('RDMA_CM', 'RAI_NOROUTE', 'RAI_NOROUTE'),
    ('RDMA_CM', 'RAI_FAMILY', 'RAI_FAMILY'),
    ('MLX5DV', '_MLX5DV_RES_TYPE_QP', 'MLX5DV_RES_TYPE_QP'),
    ('MLX5DV', '_MLX5DV_RES_TYPE_RWQ', 'MLX5DV_RES_TYPE_RWQ'),
    ('MLX5DV', '_MLX5DV_RES_TYPE_DBR', 'MLX5DV_RES_TYPE_DBR'),
    ('MLX5DV', '_MLX5DV_RES_TYPE_SRQ', 'MLX5DV_RES_TYPE_SRQ'),
    ('MLX5DV', '_MLX5DV_PP_ALLOC_FLAGS_DEDICATED_INDEX',
     'MLX5DV_PP_ALLOC_FLAGS_DEDICATED_INDEX'),
    ('MLX5DV', '_MLX5DV_UAR_ALLOC_TYPE_BF', 'MLX5DV_UAR_ALLOC_TYPE_BF'),
    ('MLX5DV', '_MLX5DV_UAR_ALLOC_TYPE_NC', 'MLX5DV_UAR_ALLOC_TYPE_NC'),
) + tuple(
    ('MLX5DV', f'MLX5DV_{n}_', f'MLX5DV_{n}') for n in (
        'QUERY_PORT_VPORT', 'QUERY_PORT_VPORT_VHCA_ID',
        'QUERY_PORT_VPORT_STEERING_ICM_RX',
        'QUERY_PORT_VPORT_STEERING_ICM_TX', 'QUERY_PORT_VPORT_REG_C0',
        'QUERY_PORT_ESW_OWNER_VHCA_ID',
        'FLOW_TABLE_TYPE_NIC_RX', 'FLOW_TABLE_TYPE_NIC_TX',
        'FLOW_TABLE_TYPE_FDB', 'FLOW_TABLE_TYPE_RDMA_RX',
        'FLOW_TABLE_TYPE_RDMA_TX',
        'FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2',
        'FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL',
        'FLOW_ACTION_PACKET_REFORMAT_TYPE_L3_TUNNEL_TO_L2',
        'FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L3_TUNNEL'))

# Names newer than rdma-core 44 that upstream pyverbs 65 exposes.  Their
# values are ABI (fixed once released), so every build has them, whatever
# its headers: (group, C enum, name, C name, value, first rdma-core release
# whose header has it).  The C enum is one of the header's, which gains the
# member; a new one, emitted after the group's other enums; or None for a
# plain int (anonymous).  The row is PV_NEWER(name, C name, value): the
# table holds the value, and meson probes each C name (HAVE_<C name> in
# pv_config.h, from the list in NEWER_LIST) so that a build whose header has
# it checks at compile time that the header agrees.
NEWER = tuple((g, e, n, n, v, r) for g, e, n, v, r in (
    ('VERBS', 'ibv_event_type', 'IBV_EVENT_DEVICE_SPEED_CHANGE', 20, 62),
    ('VERBS', 'ibv_access_flags', 'IBV_ACCESS_FLUSH_GLOBAL', 1 << 8, 45),
    ('VERBS', 'ibv_access_flags', 'IBV_ACCESS_FLUSH_PERSISTENT', 1 << 9, 45),
    ('VERBS', 'ibv_wr_opcode', 'IBV_WR_FLUSH', 14, 45),
    ('VERBS', 'ibv_wc_opcode', 'IBV_WC_FLUSH', 8, 45),
    ('VERBS', 'ibv_odp_transport_cap_bits', 'IBV_ODP_SUPPORT_FLUSH', 1 << 6,
     58),
    ('VERBS', 'ibv_odp_transport_cap_bits', 'IBV_ODP_SUPPORT_ATOMIC_WRITE',
     1 << 7, 58),
    ('VERBS', 'ibv_qp_create_send_ops_flags', 'IBV_QP_EX_WITH_FLUSH',
     1 << 11, 45),
    ('VERBS', 'ibv_parent_domain_init_attr_mask',
     'IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC', 1 << 2, 64),
    ('VERBS', 'ibv_query_qp_data_in_order_flags',
     'IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS', 1, 46),
    ('VERBS', 'ibv_query_qp_data_in_order_caps',
     'IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG', 1, 46),
    ('VERBS', 'ibv_query_qp_data_in_order_caps',
     'IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES', 2, 46),
    ('VERBS', 'ibv_placement_type', 'IBV_FLUSH_GLOBAL', 1, 45),
    ('VERBS', 'ibv_placement_type', 'IBV_FLUSH_PERSISTENT', 2, 45),
    ('VERBS', 'ibv_selectivity_level', 'IBV_FLUSH_RANGE', 0, 45),
    ('VERBS', 'ibv_selectivity_level', 'IBV_FLUSH_MR', 1, 45),
    ('VERBS', 'ibv_tph_mem_type', 'IBV_TPH_MEM_TYPE_VM', 0, 59),
    ('VERBS', 'ibv_tph_mem_type', 'IBV_TPH_MEM_TYPE_PM', 1, 59),
    *(('VERBS', 'ibv_dmah_init_attr_mask', f'IBV_DMAH_INIT_ATTR_MASK_{n}',
       1 << i, 59) for i, n in enumerate(('CPU_ID', 'PH', 'TPH_MEM_TYPE'))),
    *(('VERBS', 'ibv_mr_init_attr_mask', f'IBV_REG_MR_MASK_{n}', 1 << i,
       64 if n == 'BUF' else 59)
      for i, n in enumerate(('IOVA', 'ADDR', 'FD', 'FD_OFFSET', 'DMAH',
                             'BUF'))),
    *(('VERBS', 'ibv_qp_attach_comp_cntr_op',
       f'IBV_QP_ATTACH_COMP_CNTR_OP_{n}', 1 << i, 65)
      for i, n in enumerate(('SEND', 'RECV', 'RDMA_READ', 'REMOTE_RDMA_READ',
                             'RDMA_WRITE', 'REMOTE_RDMA_WRITE'))),
    ('RDMA_CM', 'rdma_cm_event_type', 'RDMA_CM_EVENT_ADDRINFO_RESOLVED', 16,
     60),
    ('RDMA_CM', 'rdma_cm_event_type', 'RDMA_CM_EVENT_ADDRINFO_ERROR', 17, 60),
    ('RDMA_CM', None, 'RAI_SA', 0x10, 60),
    ('RDMA_CM', None, 'RAI_DNS', 0x20, 60),
    ('MLX5DV', 'mlx5dv_context_comp_mask', 'MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM',
     1 << 14, 47),
    ('MLX5DV', 'mlx5dv_context_comp_mask', 'MLX5DV_CONTEXT_MASK_OOO_RECV_WRS',
     1 << 16, 55),
    ('MLX5DV', 'mlx5dv_context_flags', 'MLX5DV_CONTEXT_FLAGS_BLUEFLAME',
     1 << 8, 58),
    ('MLX5DV', 'mlx5dv_qp_create_flags', 'MLX5DV_QP_CREATE_OOO_DP', 1 << 7,
     55),
    ('MLX5DV', 'mlx5dv_flow_action_type',
     'MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET', 8, 60),
    ('MLX5DV', 'mlx5dv_flow_matcher_attr_mask',
     'MLX5DV_FLOW_MATCHER_MASK_IB_PORT', 1 << 1, 57),
    ('MLX5DV', 'mlx5dv_context_attr_comp_mask',
     'MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY', 1, 57),
    # a macro of mlx5_api.h (44 has it) that upstream gives an enum class
    ('MLX5DV', 'mlx5dv_devx_create_event_channel_flags',
     'MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA', 1, 44),
    *(('EFADV', None, f'EFADV_DEVICE_ATTR_CAPS_{n}', 1 << i, r)
      for i, n, r in ((3, 'RDMA_WRITE', 46), (4, 'UNSOLICITED_WRITE_RECV', 52),
                      (5, 'CQ_WITH_EXT_MEM_DMABUF', 59), (6, 'COMP_CNTR', 65))),
    ('EFADV', None, 'EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV', 1, 52),
    ('EFADV', None, 'EFADV_QP_FLAGS_INLINE_WRITE', 2, 63),
    ('EFADV', None, 'EFADV_WR_EX_WITH_PROCESSING_HINTS', 1, 64),
    ('EFADV', None, 'EFADV_WR_PROCESSING_HINT_BURST_PPS_SENSITIVE', 1, 64),
    ('EFADV', None, 'EFADV_WC_EX_WITH_IS_UNSOLICITED', 2, 52),
    ('EFADV', None, 'EFADV_MEMORY_LOCATION_VA', 0, 65),
    ('EFADV', None, 'EFADV_MEMORY_LOCATION_DMABUF', 1, 65),
    ('EFADV', None, 'EFADV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM', 1, 65),
    ('EFADV', None, 'EFADV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM', 2, 65),
    ('EFADV', None, 'EFADV_MR_ATTR_VALIDITY_RECV_IC_ID', 1, 50),
    ('EFADV', None, 'EFADV_MR_ATTR_VALIDITY_RDMA_READ_IC_ID', 2, 50),
    ('EFADV', None, 'EFADV_MR_ATTR_VALIDITY_RDMA_RECV_IC_ID', 4, 50),
    ('EFADV', None, 'EFADV_SQ_DEPTH_ATTR_INLINE_WRITE', 1, 63),
)) + (
    # macros upstream re-exports under another name
    ('VERBS', None, '_IBV_DEVICE_CC_DMA_BOUNCE', 'IBV_DEVICE_CC_DMA_BOUNCE',
     1 << 41, 64),
    *(('MLX5DV', None, f'MLX5DV_{n}_', f'MLX5DV_{n}', v, r)
      for n, v, r in (('FLOW_TABLE_TYPE_RDMA_TRANSPORT_RX', 5, 57),
                      ('FLOW_TABLE_TYPE_RDMA_TRANSPORT_TX', 6, 57),
                      ('REG_DMABUF_ACCESS_DATA_DIRECT', 1, 54),
                      ('VAR_ALLOC_FLAG_TLP', 1, 63))),
)

_COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
_PREPROC = re.compile(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', re.M)
_ENUM = re.compile(r'\benum\s+(?:([A-Za-z_]\w*)\s*)?\{([^{}]*)\}')
_IDENT = re.compile(r'\s*([A-Za-z_]\w*)\s*(?:=|$)', re.S)


def _split_top(body):
    """Split an enum body at the commas outside parentheses."""
    parts, depth, cur = [], 0, []
    for ch in body:
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(''.join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append(''.join(cur))
    return [p for p in parts if p.strip()]


def parse_enums(text):
    """[(enum name or None, [enumerator, ...]), ...] in source order."""
    text = _PREPROC.sub('', _COMMENT.sub(' ', text))
    enums = []
    for m in _ENUM.finditer(text):
        names = []
        for item in _split_top(m.group(2)):
            im = _IDENT.match(item)
            if not im:
                raise ValueError(f'cannot parse enumerator {item.strip()!r}')
            names.append(im.group(1))
        if names:
            enums.append((m.group(1), names))
    return enums


def _pkg_version(pkg):
    try:
        out = subprocess.run(['pkg-config', '--modversion', pkg],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


def default_include_dir():
    try:
        out = subprocess.run(['pkg-config', '--variable=includedir',
                              'libibverbs'], capture_output=True, text=True,
                             check=True)
        if out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return '/usr/include'


def source_version():
    """The rdma-core release of the installed headers, e.g. '44.0'."""
    v = _pkg_version('libibverbs').split('.')
    return '.'.join(v[2:]) if len(v) >= 3 else 'unknown'


def probe_values(include_dir, headers, exprs):
    """{expr: int}: the value of each C expression as the compiler computes
    it with headers included (a program is compiled and run)."""
    cc = os.environ.get('CC', 'cc')
    lines = ['#include <stdio.h>', '#include <stdint.h>',
             *(f'#include <{h}>' for h in headers),
             'int main(void)', '{']
    for e in exprs:
        # the sign without comparing an unsigned value with < 0
        lines.append(f'\tif (!(({e}) > 0 || ({e}) == 0))')
        lines.append(f'\t\tprintf("%lld\\n", (long long)({e}));')
        lines.append('\telse')
        lines.append(f'\t\tprintf("%llu\\n", (unsigned long long)({e}));')
    lines += ['\treturn 0;', '}', '']
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'probe.c')
        exe = os.path.join(tmp, 'probe')
        with open(src, 'w') as f:
            f.write('\n'.join(lines))
        subprocess.run([cc, '-I', include_dir, '-o', exe, src], check=True)
        out = subprocess.run([exe], capture_output=True, text=True,
                             check=True).stdout.split()
    return dict(zip(exprs, (int(v) for v in out)))


def _fixed(name, expr, values):
    v = values[expr]
    return f'\tPV_FIXED({name}, {expr}, {v if v < 256 else hex(v)})'


def _newer(name, cname, value, release):
    v = value if value < 256 else hex(value)
    return f'\tPV_NEWER({name}, {cname}, {v}, {release})'


def _apply_newer(group, sections):
    """Take the NEWER rows of group into sections (from the headers): drop
    the header's own rows of those names (a header newer than 44 has them),
    append new members to the header's enums; return the enums that are
    new (name or None, [row, ...]) in table order."""
    rows = [r for r in NEWER if r[0] == group]
    cnames = {r[3] for r in rows}
    named = {}
    for i, (g, title, enums, macros) in enumerate(sections):
        if g != group:
            continue
        enums = [(n, [m for m in ms if m not in cnames]) for n, ms in enums]
        enums = [(n, ms) for n, ms in enums if ms or n in
                 {r[1] for r in rows}]
        sections[i] = (g, title, enums, macros)
        for n, ms in enums:
            if n:
                named.setdefault(n, ms)
    extra, new = {}, {}
    for _, enum, name, cname, value, release in rows:
        row = (name, cname, value, release)
        if enum in named:
            extra.setdefault(enum, []).append(row)
        else:
            new.setdefault(enum, []).append(row)
    return extra, sorted(new.items(), key=lambda kv: kv[0] is None)


def _header_comment():
    return [
        '/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */',
        '/*',
        ' * Generated by tools/gen_enums.py from the headers of rdma-core '
        + source_version() + ':',
        *(f' *   {h}' for _, h in GROUPS),
        ' * Do not edit; regenerate with the tool.',
        ' *',
        ' * X-macro table; the includer defines:',
        ' *   PV_ENUM(group, name)  start of `enum name`',
        ' *   PV_ANON(group)        start of an anonymous enum (or of the',
        ' *                         macro names below)',
        ' *   PV_VAL(name)          an enumerator; its value comes from the'
        ' compiler',
        ' *   PV_MACRO(name, expr)  a name upstream pyverbs gives a macro',
        ' *   PV_FIXED(name, expr, value)  either of the two in a header the',
        ' *                         build may lack (' +
        ', '.join(f'{g}: {p}' for g, p in OPTIONAL_GROUPS.items()) + '),',
        ' *                         with its value there',
        ' *   PV_NEWER(name, cname, value, release)  a name newer than',
        ' *                         rdma-core 44 with its fixed value and the',
        ' *                         first release whose header has cname',
        ' *                         (HAVE_<cname> says whether this one has)',
        ' */',
    ]


def _sections(include_dir):
    sections = []
    for group in dict.fromkeys(g for g, _ in GROUPS):
        for header in (h for g, h in GROUPS if g == group):
            with open(os.path.join(include_dir, header)) as f:
                sections.append((group, header, parse_enums(f.read()), ()))
        local = [(n, m) for g, n, m in LOCAL_ENUMS if g == group]
        if local:
            sections.append((group, 'defined in enums.c', local, ()))
        macros = [(n, e) for g, n, e in MACROS if g == group]
        if macros:
            sections.append((group, 'macros', [], macros))
    return sections


def generate(include_dir):
    out = _header_comment()
    sections = _sections(include_dir)
    newer = {g: _apply_newer(g, sections) for g in dict.fromkeys(
        g for g, _ in GROUPS)}
    values = {}
    for group in OPTIONAL_GROUPS:
        exprs = [m for g, _, enums, _ in sections if g == group
                 for _, members in enums for m in members]
        exprs += [e for g, _, _, macros in sections if g == group
                  for _, e in macros]
        values[group] = probe_values(
            include_dir, [h for g, h in GROUPS if g == group], exprs)
    for i, (group, title, enums, macros) in enumerate(sections):
        fixed = values.get(group)
        extra = newer[group][0]
        out.append('')
        out.append(f'/* {title} */')
        for name, members in enums:
            out.append(f'PV_ENUM({group}, {name})' if name else
                       f'PV_ANON({group})')
            if fixed:
                out.extend(_fixed(m, m, fixed) for m in members)
            else:
                out.extend(f'\tPV_VAL({m})' for m in members)
            if name:
                out.extend(_newer(*r) for r in extra.pop(name, ()))
        if macros:
            out.append(f'PV_ANON({group})')
            if fixed:
                out.extend(_fixed(n, e, fixed) for n, e in macros)
            else:
                out.extend(f'\tPV_MACRO({n}, {e})' for n, e in macros)
        last = i + 1 == len(sections) or sections[i + 1][0] != group
        if last and newer[group][1]:
            out.append('')
            out.append(f'/* {group}: newer than rdma-core 44 */')
            for name, rows in newer[group][1]:
                out.append(f'PV_ENUM({group}, {name})' if name else
                           f'PV_ANON({group})')
                out.extend(_newer(*r) for r in rows)
    return '\n'.join(out) + '\n'


def generate_newer_list():
    """enums_newer.txt: the header and C name of each NEWER row, for
    meson.build's probes."""
    headers = {}
    for g, h in GROUPS:
        headers.setdefault(g, h)
    out = ['# Generated by tools/gen_enums.py; do not edit.',
           '# The C names of enums_gen.h newer than rdma-core 44: meson.build',
           '# defines HAVE_<name> for each, whether <header> declares it.',
           '# header name']
    out.extend(f'{headers[g]} {c}' for g, _, _, c, _, _ in NEWER)
    return '\n'.join(out) + '\n'


def _differs(path, text):
    """Print a diff and return True when the file at path is not text."""
    try:
        with open(path) as f:
            old = f.read()
    except FileNotFoundError:
        old = ''
    if old == text:
        return False
    sys.stdout.writelines(difflib.unified_diff(
        old.splitlines(True), text.splitlines(True), path, path + ' (new)'))
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('-o', '--output', default=OUTPUT)
    ap.add_argument('--include-dir', default=None)
    ap.add_argument('--check', action='store_true',
                    help='compare with the committed files; exit 1 if they '
                         'differ')
    args = ap.parse_args()
    files = ((args.output, generate(args.include_dir or
                                    default_include_dir())),
             (os.path.join(os.path.dirname(args.output) or '.', NEWER_LIST),
              generate_newer_list()))
    if args.check:
        stale = [p for p, text in files if _differs(p, text)]
        for p in stale:
            print(f'{p} is out of date (headers of rdma-core '
                  f'{source_version()}); run tools/gen_enums.py',
                  file=sys.stderr)
        return 1 if stale else 0
    for path, text in files:
        with open(path, 'w') as f:
            f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
