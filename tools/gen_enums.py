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
remove enumerators); enumerators newer than 44 are not exposed.

Usage:
  tools/gen_enums.py [-o FILE] [--include-dir DIR]   write the table
  tools/gen_enums.py --check [--include-dir DIR]     exit 1 if the committed
                                                      table differs
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


def generate(include_dir):
    out = [
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
        ' */',
    ]
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
    values = {}
    for group in OPTIONAL_GROUPS:
        exprs = [m for g, _, enums, _ in sections if g == group
                 for _, members in enums for m in members]
        exprs += [e for g, _, _, macros in sections if g == group
                  for _, e in macros]
        values[group] = probe_values(
            include_dir, [h for g, h in GROUPS if g == group], exprs)
    for group, title, enums, macros in sections:
        fixed = values.get(group)
        out.append('')
        out.append(f'/* {title} */')
        for name, members in enums:
            out.append(f'PV_ENUM({group}, {name})' if name else
                       f'PV_ANON({group})')
            if fixed:
                out.extend(_fixed(m, m, fixed) for m in members)
            else:
                out.extend(f'\tPV_VAL({m})' for m in members)
        if macros:
            out.append(f'PV_ANON({group})')
            if fixed:
                out.extend(_fixed(n, e, fixed) for n, e in macros)
            else:
                out.extend(f'\tPV_MACRO({n}, {e})' for n, e in macros)
    return '\n'.join(out) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('-o', '--output', default=OUTPUT)
    ap.add_argument('--include-dir', default=None)
    ap.add_argument('--check', action='store_true',
                    help='compare with the committed table; exit 1 if it '
                         'differs')
    args = ap.parse_args()
    text = generate(args.include_dir or default_include_dir())
    if args.check:
        with open(args.output) as f:
            old = f.read()
        with tempfile.NamedTemporaryFile('w', suffix='.h') as tmp:
            tmp.write(text)
            tmp.flush()
            if old == text:
                return 0
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True),
                args.output, tmp.name))
        print(f'{args.output} is out of date (headers of rdma-core '
              f'{source_version()}); run tools/gen_enums.py',
              file=sys.stderr)
        return 1
    with open(args.output, 'w') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
