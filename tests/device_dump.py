# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Print everything pyverbs.device reports about every device.

Runs unchanged on this pyverbs and on upstream's (Debian's python3-pyverbs),
so that test_device.py can run both in one Soft-RoCE VM and compare the
output line by line: same devices, same GUIDs, so the output must be
identical.  It uses only upstream's API (no Context.name or .context, which
crash upstream's v44).
"""
import sys

import pyverbs.device as d


def attrs(obj, names):
    return ' '.join(f'{n}={getattr(obj, n)}' for n in names)


def attempt(what, fn):
    try:
        res = fn()
    except Exception as ex:
        print(f'{what}: {type(ex).__name__}: {ex} '
              f'[{getattr(ex, "error_code", None)}]')
        return None
    print(f'{what}:')
    print(res)
    return res


DEVICE_ATTRS = ['fw_version', 'node_guid', 'sys_image_guid', 'max_mr_size',
                'page_size_cap', 'vendor_id', 'vendor_part_id', 'hw_ver',
                'max_qp', 'max_qp_wr', 'device_cap_flags', 'max_sge',
                'max_sge_rd', 'max_cq', 'max_cqe', 'max_mr', 'max_pd',
                'max_qp_rd_atom', 'max_ee_rd_atom', 'max_res_rd_atom',
                'max_qp_init_rd_atom', 'max_ee_init_rd_atom', 'atomic_caps',
                'max_ee', 'max_rdd', 'max_mw', 'max_raw_ipv6_qps',
                'max_raw_ethy_qp', 'max_mcast_grp', 'max_mcast_qp_attach',
                'max_ah', 'max_fmr', 'max_map_per_fmr', 'max_srq',
                'max_srq_wr', 'max_srq_sge', 'max_pkeys',
                'local_ca_ack_delay', 'phys_port_cnt']
DEVICE_ATTR_EX = ['comp_mask', 'completion_timestamp_mask', 'hca_core_clock',
                  'device_cap_flags_ex', 'max_wq_type_rq', 'raw_packet_caps',
                  'max_dm_size', 'phys_port_cnt_ex']
CAPS = {
    'odp_caps': ['general_caps', 'rc_odp_caps', 'uc_odp_caps', 'ud_odp_caps',
                 'xrc_odp_caps'],
    'tso_caps': ['max_tso', 'supported_qpts'],
    'rss_caps': ['supported_qpts', 'max_rwq_indirection_tables',
                 'rx_hash_fields_mask', 'rx_hash_function',
                 'max_rwq_indirection_table_size'],
    'packet_pacing_caps': ['qp_rate_limit_min', 'qp_rate_limit_max',
                           'supported_qpts'],
    'tm_caps': ['max_rndv_hdr_size', 'max_num_tags', 'flags', 'max_ops',
                'max_sge'],
    'cq_mod_caps': ['max_cq_count', 'max_cq_period'],
    'pci_atomic_caps': ['fetch_add', 'swap', 'compare_swap'],
}
PORT_ATTRS = ['state', 'max_mtu', 'active_mtu', 'gid_tbl_len',
              'port_cap_flags', 'max_msg_sz', 'bad_pkey_cntr',
              'qkey_viol_cntr', 'pkey_tbl_len', 'lid', 'sm_lid', 'lmc',
              'max_vl_num', 'sm_sl', 'subnet_timeout', 'init_type_reply',
              'active_width', 'active_speed', 'phys_state', 'link_layer',
              'flags', 'port_cap_flags2']
GID_ENTRY = ['gid_subnet_prefix', 'gid_interface_id', 'gid_index',
             'port_num', 'gid_type', 'ndev_ifindex']


def dump_context(name, with_gid):
    ctx = d.Context(name=name)
    print('num_comp_vectors', ctx.num_comp_vectors)
    attr = attempt('query_device', ctx.query_device)
    print(attrs(attr, DEVICE_ATTRS))
    ex = ctx.query_device_ex()
    print('query_device_ex', attrs(ex, DEVICE_ATTR_EX))
    print(ex.orig_attr)
    print(ex.odp_caps)
    for cap, names in CAPS.items():
        print(cap, attrs(getattr(ex, cap), names))
    port = attempt('query_port 1', lambda: ctx.query_port(1))
    print(attrs(port, PORT_ATTRS))
    for p in (0, 2, 7):
        attempt(f'query_port {p}', lambda: ctx.query_port(p))
    total = port.gid_tbl_len * attr.phys_port_cnt
    table = ctx.query_gid_table(total)
    print("query_gid_table", len(table))
    for ent in table:
        print(attrs(ent, GID_ENTRY), ent.gid_str())
    for n in (0, 1, len(table) - 1):
        attempt(f'query_gid_table {n}', lambda: ctx.query_gid_table(n))
    for idx in (0, 1, 2, 5, port.gid_tbl_len - 1, port.gid_tbl_len):
        attempt(f'query_gid_ex 1 {idx}', lambda: ctx.query_gid_ex(1, idx))
        attempt(f'query_gid_type 1 {idx}',
                lambda: ctx.query_gid_type(1, idx))
        if with_gid:
            attempt(f'query_gid 1 {idx}', lambda: ctx.query_gid(1, idx))
    attempt('query_gid_ex 2 0', lambda: ctx.query_gid_ex(2, 0))
    attempt('query_gid_type 2 0', lambda: ctx.query_gid_type(2, 0))
    if with_gid:
        attempt('query_gid 2 0', lambda: ctx.query_gid(2, 0))
    attempt('query_pkey 1 0', lambda: ctx.query_pkey(1, 0))
    attempt('query_pkey 1 1', lambda: ctx.query_pkey(1, 1))
    attempt('query_pkey 2 0', lambda: ctx.query_pkey(2, 0))
    attempt('query_rt_values_ex', ctx.query_rt_values_ex)
    ctx.close()


def main():
    with_gid = '--no-gid' not in sys.argv
    devs = d.get_device_list()
    for dev in devs:
        print(dev)
        print(dev.name, dev.guid, dev.node_type, dev.transport_type,
              dev.index)
    for dev in sorted(devs, key=lambda x: x.name):
        print(f'=== {dev.name.decode()}')
        dump_context(dev.name.decode(), with_gid)
    attempt('Context nope', lambda: d.Context(name='nope'))
    attempt('Context', lambda: d.Context())


if __name__ == '__main__':
    main()
