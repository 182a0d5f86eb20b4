/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The plain-data objects returned by Context queries: DeviceAttr,
 * DeviceAttrEx and its capability groups (ODPCaps, TSOCaps, ...), PortAttr,
 * GIDEntry, AsyncEvent, and QueryDeviceExInput.  Each embeds the C struct it
 * describes; the integer attributes come from one field table per type.
 * Their __str__ formats live in pyverbs/device.py.
 *
 * The module also gets the name tables that pyverbs.device uses to decode
 * flag words (_DEVICE_CAP_NAMES, ...): (value, 'IBV_NAME') pairs taken from
 * verbs.h, in upstream pyverbs' printing order.
 */
#include "device_attr.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "state.h"

/* Allocate an instance of tp and copy len bytes of src into it at off. */
static PyObject *data_new(PyTypeObject *tp, size_t off, const void *src,
			  size_t len)
{
	PyObject *o = tp->tp_alloc(tp, 0);

	if (o && src)
		memcpy((char *)o + off, src, len);
	return o;
}

#define DATA_NEW(tp, st, member, src) \
	data_new(tp, offsetof(st, member), src, sizeof(((st *)0)->member))

/* Spec of a plain-data type with a field table (no PyObject members). */
#define DATA_SPEC(var, pyname, st, doc_) PV_DATA_SPEC(var, pyname, st, doc_)

/* ------------------------------------------------------------------ */
/* DeviceAttr                                                          */
/* ------------------------------------------------------------------ */

#define DA(m, n) PV_FIELD_RO(struct pv_device_attr, attr.m, n)
static const struct pv_field device_attr_fields[] = {
	DA(node_guid, "node_guid"),
	DA(sys_image_guid, "sys_image_guid"),
	DA(max_mr_size, "max_mr_size"),
	DA(page_size_cap, "page_size_cap"),
	DA(vendor_id, "vendor_id"),
	DA(vendor_part_id, "vendor_part_id"),
	DA(hw_ver, "hw_ver"),
	DA(max_qp, "max_qp"),
	DA(max_qp_wr, "max_qp_wr"),
	DA(device_cap_flags, "device_cap_flags"),
	DA(max_sge, "max_sge"),
	DA(max_sge_rd, "max_sge_rd"),
	DA(max_cq, "max_cq"),
	DA(max_cqe, "max_cqe"),
	DA(max_mr, "max_mr"),
	DA(max_pd, "max_pd"),
	DA(max_qp_rd_atom, "max_qp_rd_atom"),
	DA(max_ee_rd_atom, "max_ee_rd_atom"),
	DA(max_res_rd_atom, "max_res_rd_atom"),
	DA(max_qp_init_rd_atom, "max_qp_init_rd_atom"),
	DA(max_ee_init_rd_atom, "max_ee_init_rd_atom"),
	DA(atomic_cap, "atomic_caps"),
	DA(max_ee, "max_ee"),
	DA(max_rdd, "max_rdd"),
	DA(max_mw, "max_mw"),
	DA(max_raw_ipv6_qp, "max_raw_ipv6_qps"),
	DA(max_raw_ethy_qp, "max_raw_ethy_qp"),
	DA(max_mcast_grp, "max_mcast_grp"),
	DA(max_mcast_qp_attach, "max_mcast_qp_attach"),
	DA(max_total_mcast_qp_attach, "max_total_mcast_qp_attach"),
	DA(max_ah, "max_ah"),
	DA(max_fmr, "max_fmr"),
	DA(max_map_per_fmr, "max_map_per_fmr"),
	DA(max_srq, "max_srq"),
	DA(max_srq_wr, "max_srq_wr"),
	DA(max_srq_sge, "max_srq_sge"),
	DA(max_pkeys, "max_pkeys"),
	DA(local_ca_ack_delay, "local_ca_ack_delay"),
	DA(phys_port_cnt, "phys_port_cnt"),
	PV_FIELD_END
};

/* A NUL-padded char array as str; undecodable bytes are replaced. */
static PyObject *fixed_str(const char *s, size_t size)
{
	return PyUnicode_DecodeUTF8(s, strnlen(s, size), "replace");
}

static PyObject *da_get_fw_version(PyObject *o, void *closure)
{
	const struct ibv_device_attr *a = &((struct pv_device_attr *)o)->attr;

	return fixed_str(a->fw_ver, sizeof(a->fw_ver));
}

static const PyGetSetDef device_attr_extra[] = {
	{ "fw_version", da_get_fw_version, NULL, "The firmware version string.",
	  NULL },
	{ NULL }
};

DATA_SPEC(device_attr, "pyverbs.device.DeviceAttr", struct pv_device_attr,
	  "DeviceAttr()\n--\n\n"
	  "The attributes of a device (struct ibv_device_attr), as returned "
	  "by Context.query_device().  Read-only.");

PyObject *pv_device_attr_new(const struct ibv_device_attr *attr)
{
	return DATA_NEW(pv.DeviceAttr, struct pv_device_attr, attr, attr);
}

/* ------------------------------------------------------------------ */
/* Capability groups of DeviceAttrEx                                   */
/* ------------------------------------------------------------------ */

struct pv_odp_caps {
	PyObject_HEAD
	struct ibv_odp_caps caps;
	uint32_t xrc_odp_caps;
};
static const struct pv_field odp_caps_fields[] = {
	PV_FIELD_RO(struct pv_odp_caps, caps.general_caps, "general_caps"),
	PV_FIELD_RO(struct pv_odp_caps, caps.per_transport_caps.rc_odp_caps,
		    "rc_odp_caps"),
	PV_FIELD_RO(struct pv_odp_caps, caps.per_transport_caps.uc_odp_caps,
		    "uc_odp_caps"),
	PV_FIELD_RO(struct pv_odp_caps, caps.per_transport_caps.ud_odp_caps,
		    "ud_odp_caps"),
	/* writable upstream */
	PV_FIELD(struct pv_odp_caps, xrc_odp_caps, "xrc_odp_caps"), PV_FIELD_END
};
DATA_SPEC(odp_caps, "pyverbs.device.ODPCaps", struct pv_odp_caps,
	  "ODPCaps()\n--\n\n"
	  "On-demand paging capabilities (struct ibv_odp_caps and "
	  "xrc_odp_caps).");

struct pv_tso_caps {
	PyObject_HEAD
	struct ibv_tso_caps caps;
};
static const struct pv_field tso_caps_fields[] = {
	PV_FIELD_RO(struct pv_tso_caps, caps.max_tso, "max_tso"),
	PV_FIELD_RO(struct pv_tso_caps, caps.supported_qpts, "supported_qpts"),
	PV_FIELD_END
};
DATA_SPEC(tso_caps, "pyverbs.device.TSOCaps", struct pv_tso_caps,
	  "TSOCaps()\n--\n\nTCP segmentation offload capabilities.");

struct pv_rss_caps {
	PyObject_HEAD
	struct ibv_rss_caps caps;
};
static const struct pv_field rss_caps_fields[] = {
	PV_FIELD_RO(struct pv_rss_caps, caps.supported_qpts, "supported_qpts"),
	PV_FIELD_RO(struct pv_rss_caps, caps.max_rwq_indirection_tables,
		    "max_rwq_indirection_tables"),
	PV_FIELD_RO(struct pv_rss_caps, caps.rx_hash_fields_mask,
		    "rx_hash_fields_mask"),
	PV_FIELD_RO(struct pv_rss_caps, caps.rx_hash_function,
		    "rx_hash_function"),
	PV_FIELD_RO(struct pv_rss_caps, caps.max_rwq_indirection_table_size,
		    "max_rwq_indirection_table_size"),
	PV_FIELD_END
};
DATA_SPEC(rss_caps, "pyverbs.device.RSSCaps", struct pv_rss_caps,
	  "RSSCaps()\n--\n\nReceive-side scaling capabilities.");

struct pv_packet_pacing_caps {
	PyObject_HEAD
	struct ibv_packet_pacing_caps caps;
};
static const struct pv_field packet_pacing_caps_fields[] = {
	PV_FIELD_RO(struct pv_packet_pacing_caps, caps.qp_rate_limit_min,
		    "qp_rate_limit_min"),
	PV_FIELD_RO(struct pv_packet_pacing_caps, caps.qp_rate_limit_max,
		    "qp_rate_limit_max"),
	PV_FIELD_RO(struct pv_packet_pacing_caps, caps.supported_qpts,
		    "supported_qpts"),
	PV_FIELD_END
};
DATA_SPEC(packet_pacing_caps, "pyverbs.device.PacketPacingCaps",
	  struct pv_packet_pacing_caps,
	  "PacketPacingCaps()\n--\n\nPacket pacing (rate limit) "
	  "capabilities.");

struct pv_tm_caps {
	PyObject_HEAD
	struct ibv_tm_caps caps;
};
static const struct pv_field tm_caps_fields[] = {
	PV_FIELD_RO(struct pv_tm_caps, caps.max_rndv_hdr_size,
		    "max_rndv_hdr_size"),
	PV_FIELD_RO(struct pv_tm_caps, caps.max_num_tags, "max_num_tags"),
	PV_FIELD_RO(struct pv_tm_caps, caps.flags, "flags"),
	PV_FIELD_RO(struct pv_tm_caps, caps.max_ops, "max_ops"),
	PV_FIELD_RO(struct pv_tm_caps, caps.max_sge, "max_sge"),
	PV_FIELD_END
};
DATA_SPEC(tm_caps, "pyverbs.device.TMCaps", struct pv_tm_caps,
	  "TMCaps()\n--\n\nTag matching capabilities.");

struct pv_cq_mod_caps {
	PyObject_HEAD
	struct ibv_cq_moderation_caps caps;
};
static const struct pv_field cq_mod_caps_fields[] = {
	PV_FIELD_RO(struct pv_cq_mod_caps, caps.max_cq_count, "max_cq_count"),
	PV_FIELD_RO(struct pv_cq_mod_caps, caps.max_cq_period, "max_cq_period"),
	PV_FIELD_END
};
DATA_SPEC(cq_mod_caps, "pyverbs.device.CQModerationCaps", struct pv_cq_mod_caps,
	  "CQModerationCaps()\n--\n\nCQ moderation capabilities.");

struct pv_pci_atomic_caps {
	PyObject_HEAD
	struct ibv_pci_atomic_caps caps;
};
static const struct pv_field pci_atomic_caps_fields[] = {
	PV_FIELD_RO(struct pv_pci_atomic_caps, caps.fetch_add, "fetch_add"),
	PV_FIELD_RO(struct pv_pci_atomic_caps, caps.swap, "swap"),
	PV_FIELD_RO(struct pv_pci_atomic_caps, caps.compare_swap,
		    "compare_swap"),
	PV_FIELD_END
};
DATA_SPEC(pci_atomic_caps, "pyverbs.device.PCIAtomicCaps",
	  struct pv_pci_atomic_caps,
	  "PCIAtomicCaps()\n--\n\nPCIe atomic operation sizes supported.");

/* ------------------------------------------------------------------ */
/* DeviceAttrEx                                                        */
/* ------------------------------------------------------------------ */

#define DAX(m, n) PV_FIELD_RO(struct pv_device_attr_ex, attr.m, n)
static const struct pv_field device_attr_ex_fields[] = {
	/* writable upstream */
	PV_FIELD(struct pv_device_attr_ex, attr.comp_mask, "comp_mask"),
	DAX(completion_timestamp_mask, "completion_timestamp_mask"),
	DAX(hca_core_clock, "hca_core_clock"),
	DAX(device_cap_flags_ex, "device_cap_flags_ex"),
	DAX(max_wq_type_rq, "max_wq_type_rq"),
	DAX(raw_packet_caps, "raw_packet_caps"),
	DAX(max_dm_size, "max_dm_size"),
	DAX(phys_port_cnt_ex, "phys_port_cnt_ex"),
	PV_FIELD_END
};

#define DAX_ATTR(o) (&((struct pv_device_attr_ex *)(o))->attr)

static PyObject *dax_get_orig_attr(PyObject *o, void *closure)
{
	return pv_device_attr_new(&DAX_ATTR(o)->orig_attr);
}

static PyObject *dax_get_odp_caps(PyObject *o, void *closure)
{
	struct pv_odp_caps *c;

	c = (struct pv_odp_caps *)DATA_NEW(pv.ODPCaps, struct pv_odp_caps, caps,
					   &DAX_ATTR(o)->odp_caps);
	if (c)
		c->xrc_odp_caps = DAX_ATTR(o)->xrc_odp_caps;
	return (PyObject *)c;
}

#define DAX_CAPS_GETTER(fn, tp, st, member)                             \
	static PyObject *fn(PyObject *o, void *closure)                 \
	{                                                               \
		return DATA_NEW(pv.tp, st, caps, &DAX_ATTR(o)->member); \
	}
DAX_CAPS_GETTER(dax_get_tso_caps, TSOCaps, struct pv_tso_caps, tso_caps)
DAX_CAPS_GETTER(dax_get_rss_caps, RSSCaps, struct pv_rss_caps, rss_caps)
DAX_CAPS_GETTER(dax_get_pp_caps, PacketPacingCaps, struct pv_packet_pacing_caps,
		packet_pacing_caps)
DAX_CAPS_GETTER(dax_get_tm_caps, TMCaps, struct pv_tm_caps, tm_caps)
DAX_CAPS_GETTER(dax_get_cq_mod_caps, CQModerationCaps, struct pv_cq_mod_caps,
		cq_mod_caps)
DAX_CAPS_GETTER(dax_get_pci_atomic_caps, PCIAtomicCaps,
		struct pv_pci_atomic_caps, pci_atomic_caps)

static const PyGetSetDef device_attr_ex_extra[] = {
	{ "orig_attr", dax_get_orig_attr, NULL,
	  "The legacy attributes, as a DeviceAttr (a copy).", NULL },
	{ "odp_caps", dax_get_odp_caps, NULL, "ODPCaps (a copy).", NULL },
	{ "tso_caps", dax_get_tso_caps, NULL, "TSOCaps (a copy).", NULL },
	{ "rss_caps", dax_get_rss_caps, NULL, "RSSCaps (a copy).", NULL },
	{ "packet_pacing_caps", dax_get_pp_caps, NULL,
	  "PacketPacingCaps (a copy).", NULL },
	{ "tm_caps", dax_get_tm_caps, NULL, "TMCaps (a copy).", NULL },
	{ "cq_mod_caps", dax_get_cq_mod_caps, NULL,
	  "CQModerationCaps (a copy).", NULL },
	{ "pci_atomic_caps", dax_get_pci_atomic_caps, NULL,
	  "PCIAtomicCaps (a copy).", NULL },
	{ NULL }
};

DATA_SPEC(device_attr_ex, "pyverbs.device.DeviceAttrEx",
	  struct pv_device_attr_ex,
	  "DeviceAttrEx()\n--\n\n"
	  "The extended attributes of a device (struct ibv_device_attr_ex), "
	  "as returned by Context.query_device_ex().");

PyObject *pv_device_attr_ex_new(const struct ibv_device_attr_ex *attr)
{
	return DATA_NEW(pv.DeviceAttrEx, struct pv_device_attr_ex, attr, attr);
}

/* ------------------------------------------------------------------ */
/* QueryDeviceExInput                                                  */
/* ------------------------------------------------------------------ */

static const struct pv_field qdx_input_fields[] = {
	PV_FIELD(struct pv_query_device_ex_input, input.comp_mask, "comp_mask"),
	PV_FIELD_END
};

static int qdx_input_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", NULL };
	struct pv_query_device_ex_input *self = (void *)o;

	return PyArg_ParseTupleAndKeywords(args, kw, "O&:QueryDeviceExInput",
					   kwlist, pv_conv_u32,
					   &self->input.comp_mask) ?
		       0 :
		       -1;
}

PV_DATA_SPEC(qdx_input, "pyverbs.device.QueryDeviceExInput",
	     struct pv_query_device_ex_input,
	     "QueryDeviceExInput(comp_mask)\n--\n\n"
	     "Input of Context.query_device_ex() "
	     "(struct ibv_query_device_ex_input).",
	     { Py_tp_init, qdx_input_init }, );

/* ------------------------------------------------------------------ */
/* PortAttr                                                            */
/* ------------------------------------------------------------------ */

#define PA(m) PV_FIELD_RO(struct pv_port_attr, attr.m, #m)
static const struct pv_field port_attr_fields[] = {
	PA(state),	     PA(max_mtu),
	PA(active_mtu),	     PA(gid_tbl_len),
	PA(port_cap_flags),  PA(max_msg_sz),
	PA(bad_pkey_cntr),   PA(qkey_viol_cntr),
	PA(pkey_tbl_len),    PA(lid),
	PA(sm_lid),	     PA(lmc),
	PA(max_vl_num),	     PA(sm_sl),
	PA(subnet_timeout),  PA(init_type_reply),
	PA(active_width),    PA(active_speed),
	PA(phys_state),	     PA(link_layer),
	PA(flags),	     PA(port_cap_flags2),
#if HAVE_IBV_PORT_ATTR_ACTIVE_SPEED_EX
	PA(active_speed_ex),
#endif
	PV_FIELD_END
};

DATA_SPEC(port_attr, "pyverbs.device.PortAttr", struct pv_port_attr,
	  "PortAttr()\n--\n\n"
	  "The attributes of a port (struct ibv_port_attr), as returned by "
	  "Context.query_port().  Read-only.");

PyObject *pv_port_attr_new(const struct ibv_port_attr *attr)
{
	return DATA_NEW(pv.PortAttr, struct pv_port_attr, attr, attr);
}

/* ------------------------------------------------------------------ */
/* GIDEntry                                                            */
/* ------------------------------------------------------------------ */

#define GE(m, n) PV_FIELD_RO(struct pv_gid_entry, entry.m, n)
static const struct pv_field gid_entry_fields[] = {
	/* raw (network order) halves of the GID, as upstream */
	GE(gid.global.subnet_prefix, "gid_subnet_prefix"),
	GE(gid.global.interface_id, "gid_interface_id"),
	GE(gid_index, "gid_index"),
	GE(port_num, "port_num"),
	GE(gid_type, "gid_type"),
	GE(ndev_ifindex, "ndev_ifindex"),
	PV_FIELD_END
};

static int gid_entry_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = {
		"subnet_prefix", "interface_id", "gid_index", "port_num",
		"gid_type",	 "ndev_ifindex", NULL
	};
	struct ibv_gid_entry *e = &((struct pv_gid_entry *)o)->entry;
	uint64_t sp = 0, ii = 0;
	struct ibv_gid_entry n = {};

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&O&O&O&O&:GIDEntry",
					 kwlist, pv_conv_u64, &sp, pv_conv_u64,
					 &ii, pv_conv_u32, &n.gid_index,
					 pv_conv_u32, &n.port_num, pv_conv_u32,
					 &n.gid_type, pv_conv_u32,
					 &n.ndev_ifindex))
		return -1;
	n.gid.global.subnet_prefix = sp;
	n.gid.global.interface_id = ii;
	*e = n;
	return 0;
}

PV_DATA_SPEC(gid_entry, "pyverbs.device.GIDEntry", struct pv_gid_entry,
	     "GIDEntry(subnet_prefix=0, interface_id=0, gid_index=0, "
	     "port_num=0, gid_type=0, ndev_ifindex=0)\n--\n\n"
	     "An entry of a GID table (struct ibv_gid_entry).  "
	     "subnet_prefix and interface_id are the raw (network "
	     "order) halves of the GID.",
	     { Py_tp_init, gid_entry_init }, );

PyObject *pv_gid_entry_new(const struct ibv_gid_entry *entry)
{
	return DATA_NEW(pv.GIDEntry, struct pv_gid_entry, entry, entry);
}

/* ------------------------------------------------------------------ */
/* AsyncEvent                                                          */
/* ------------------------------------------------------------------ */

static const struct pv_field async_event_fields[] = {
	PV_FIELD_RO(struct pv_async_event, event.event_type, "event_type"),
	PV_FIELD_END
};

static int async_event_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "event_type", NULL };
	struct pv_async_event *self = (struct pv_async_event *)o;
	unsigned int type = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&:AsyncEvent", kwlist,
					 pv_conv_u32, &type))
		return -1;
	memset(&self->event, 0, sizeof(self->event));
	self->event.event_type = type;
	self->from_ctx = 0;
	Py_CLEAR(self->element);
	return 0;
}

static PyObject *async_event_ack(PyObject *o, PyObject *unused)
{
	struct pv_async_event *self = (struct pv_async_event *)o;

	/*
	 * Context.get_async_event() acks every event when it receives it
	 * (ibv_destroy_qp/cq/srq block until their events are acked, so an
	 * event Python forgot would hang a later close()).  Acking one
	 * never received would corrupt libibverbs' counters.
	 */
	if (!self->from_ctx)
		return pv_raise_user("This AsyncEvent was not received by "
				     "Context.get_async_event(): nothing to "
				     "ack");
	Py_RETURN_NONE;
}

int pv_async_event_is_port(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return 1;
	default:
		return 0;
	}
}

static PyObject *async_event_get_port_num(PyObject *o, void *closure)
{
	struct pv_async_event *self = (struct pv_async_event *)o;

	if (!self->from_ctx || !pv_async_event_is_port(self->event.event_type))
		Py_RETURN_NONE;
	return PyLong_FromLong(self->event.element.port_num);
}

static PyMethodDef async_event_methods[] = {
	{ "ack", async_event_ack, METH_NOARGS,
	  "ack($self, /)\n--\n\n"
	  "Acknowledge the event (ibv_ack_async_event).  Events from "
	  "Context.get_async_event() are acked on receipt, so this does "
	  "nothing for them." },
	{ NULL }
};

static const struct pv_oslot async_event_oslots[] = {
	PV_OSLOT_RO(struct pv_async_event, element, "element",
		    "What the event is about: the QP, CQ, SRQ or WQ object "
		    "(None if it is not a live pyverbs object of this "
		    "Context), the port number for port events, else None."),
	PV_OSLOT_END
};

static const PyGetSetDef async_event_extra[] = {
	{ "port_num", async_event_get_port_num, NULL,
	  "The port number of a port event, else None.", NULL },
	{ NULL }
};

PV_OSLOTS_GC(async_event, async_event_oslots)

PV_GC_TYPE_SPEC(async_event, "pyverbs.device.AsyncEvent", struct pv_async_event,
		"AsyncEvent(event_type=0)\n--\n\n"
		"An asynchronous event of a device (struct "
		"ibv_async_event), as returned by "
		"Context.get_async_event().",
		{ Py_tp_init, async_event_init },
		{ Py_tp_methods, async_event_methods },
		PV_OSLOTS_GC_SLOTS(async_event), { Py_tp_getset, NULL }, );

PyObject *pv_async_event_new(const struct ibv_async_event *ev,
			     PyObject *element)
{
	struct pv_async_event *o;

	o = (struct pv_async_event *)pv.AsyncEvent->tp_alloc(pv.AsyncEvent, 0);
	if (!o) {
		Py_XDECREF(element);
		return NULL;
	}
	o->event = *ev;
	o->element = element;
	o->from_ctx = 1;
	return (PyObject *)o;
}

/* ------------------------------------------------------------------ */
/* Flag name tables                                                    */
/* ------------------------------------------------------------------ */

struct name_entry {
	unsigned long long value;
	const char *name;
};
#define NAME(x) { (unsigned long long)(x), #x }
#define NAMES_END { 0, NULL }

static const struct name_entry device_cap_names[] = {
	NAME(IBV_DEVICE_RESIZE_MAX_WR),
	NAME(IBV_DEVICE_BAD_PKEY_CNTR),
	NAME(IBV_DEVICE_BAD_QKEY_CNTR),
	NAME(IBV_DEVICE_RAW_MULTI),
	NAME(IBV_DEVICE_AUTO_PATH_MIG),
	NAME(IBV_DEVICE_CHANGE_PHY_PORT),
	NAME(IBV_DEVICE_UD_AV_PORT_ENFORCE),
	NAME(IBV_DEVICE_CURR_QP_STATE_MOD),
	NAME(IBV_DEVICE_SHUTDOWN_PORT),
	NAME(IBV_DEVICE_INIT_TYPE),
	NAME(IBV_DEVICE_PORT_ACTIVE_EVENT),
	NAME(IBV_DEVICE_SYS_IMAGE_GUID),
	NAME(IBV_DEVICE_RC_RNR_NAK_GEN),
	NAME(IBV_DEVICE_SRQ_RESIZE),
	NAME(IBV_DEVICE_N_NOTIFY_CQ),
	NAME(IBV_DEVICE_MEM_WINDOW),
	NAME(IBV_DEVICE_UD_IP_CSUM),
	NAME(IBV_DEVICE_XRC),
	NAME(IBV_DEVICE_MEM_MGT_EXTENSIONS),
	NAME(IBV_DEVICE_MEM_WINDOW_TYPE_2A),
	NAME(IBV_DEVICE_MEM_WINDOW_TYPE_2B),
	NAME(IBV_DEVICE_RC_IP_CSUM),
	NAME(IBV_DEVICE_RAW_IP_CSUM),
	NAME(IBV_DEVICE_MANAGED_FLOW_STEERING),
	NAMES_END
};

static const struct name_entry port_cap_names[] = {
	NAME(IBV_PORT_SM),
	NAME(IBV_PORT_NOTICE_SUP),
	NAME(IBV_PORT_TRAP_SUP),
	NAME(IBV_PORT_OPT_IPD_SUP),
	NAME(IBV_PORT_AUTO_MIGR_SUP),
	NAME(IBV_PORT_SL_MAP_SUP),
	NAME(IBV_PORT_MKEY_NVRAM),
	NAME(IBV_PORT_PKEY_NVRAM),
	NAME(IBV_PORT_LED_INFO_SUP),
	NAME(IBV_PORT_SYS_IMAGE_GUID_SUP),
	NAME(IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP),
	NAME(IBV_PORT_EXTENDED_SPEEDS_SUP),
	NAME(IBV_PORT_CAP_MASK2_SUP),
	NAME(IBV_PORT_CM_SUP),
	NAME(IBV_PORT_SNMP_TUNNEL_SUP),
	NAME(IBV_PORT_REINIT_SUP),
	NAME(IBV_PORT_DEVICE_MGMT_SUP),
	NAME(IBV_PORT_VENDOR_CLASS_SUP),
	NAME(IBV_PORT_DR_NOTICE_SUP),
	NAME(IBV_PORT_CAP_MASK_NOTICE_SUP),
	NAME(IBV_PORT_BOOT_MGMT_SUP),
	NAME(IBV_PORT_LINK_LATENCY_SUP),
	NAME(IBV_PORT_CLIENT_REG_SUP),
	NAME(IBV_PORT_IP_BASED_GIDS),
	NAMES_END
};

static const struct name_entry port_cap2_names[] = {
	NAME(IBV_PORT_SET_NODE_DESC_SUP),
	NAME(IBV_PORT_INFO_EXT_SUP),
	NAME(IBV_PORT_VIRT_SUP),
	NAME(IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP),
	NAME(IBV_PORT_LINK_WIDTH_2X_SUP),
	NAME(IBV_PORT_LINK_SPEED_HDR_SUP),
	NAME(IBV_PORT_LINK_SPEED_NDR_SUP),
	NAMES_END
};

static const struct name_entry odp_general_names[] = {
	NAME(IBV_ODP_SUPPORT), NAME(IBV_ODP_SUPPORT_IMPLICIT), NAMES_END
};

static const struct name_entry odp_transport_names[] = {
	NAME(IBV_ODP_SUPPORT_SEND),
	NAME(IBV_ODP_SUPPORT_RECV),
	NAME(IBV_ODP_SUPPORT_WRITE),
	NAME(IBV_ODP_SUPPORT_READ),
	NAME(IBV_ODP_SUPPORT_ATOMIC),
	NAME(IBV_ODP_SUPPORT_SRQ_RECV),
	NAMES_END
};

static const struct name_entry event_type_names[] = {
	NAME(IBV_EVENT_CQ_ERR),
	NAME(IBV_EVENT_QP_FATAL),
	NAME(IBV_EVENT_QP_REQ_ERR),
	NAME(IBV_EVENT_QP_ACCESS_ERR),
	NAME(IBV_EVENT_COMM_EST),
	NAME(IBV_EVENT_SQ_DRAINED),
	NAME(IBV_EVENT_PATH_MIG),
	NAME(IBV_EVENT_PATH_MIG_ERR),
	NAME(IBV_EVENT_DEVICE_FATAL),
	NAME(IBV_EVENT_PORT_ACTIVE),
	NAME(IBV_EVENT_PORT_ERR),
	NAME(IBV_EVENT_LID_CHANGE),
	NAME(IBV_EVENT_PKEY_CHANGE),
	NAME(IBV_EVENT_SM_CHANGE),
	NAME(IBV_EVENT_SRQ_ERR),
	NAME(IBV_EVENT_SRQ_LIMIT_REACHED),
	NAME(IBV_EVENT_QP_LAST_WQE_REACHED),
	NAME(IBV_EVENT_CLIENT_REREGISTER),
	NAME(IBV_EVENT_GID_CHANGE),
	NAME(IBV_EVENT_WQ_FATAL),
	NAMES_END
};

static int add_names(PyObject *m, const char *attr,
		     const struct name_entry *names)
{
	PyObject *t = PyList_New(0);
	int rc = -1;

	if (!t)
		return -1;
	for (; names->name; names++) {
		PyObject *p = Py_BuildValue("(Ks)", names->value, names->name);

		if (!p || PyList_Append(t, p)) {
			Py_XDECREF(p);
			goto out;
		}
		Py_DECREF(p);
	}
	Py_SETREF(t, PyList_AsTuple(t));
	if (t)
		rc = PyModule_AddObjectRef(m, attr, t);
out:
	Py_XDECREF(t);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Registration                                                        */
/* ------------------------------------------------------------------ */

int pv_device_attr_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &device_attr_spec, &pv.PyverbsObject, &pv.DeviceAttr,
		  device_attr_fields, NULL, device_attr_extra },
		{ &odp_caps_spec, &pv.PyverbsObject, &pv.ODPCaps,
		  odp_caps_fields },
		{ &tso_caps_spec, &pv.PyverbsObject, &pv.TSOCaps,
		  tso_caps_fields },
		{ &rss_caps_spec, &pv.PyverbsObject, &pv.RSSCaps,
		  rss_caps_fields },
		{ &packet_pacing_caps_spec, &pv.PyverbsObject,
		  &pv.PacketPacingCaps, packet_pacing_caps_fields },
		{ &tm_caps_spec, &pv.PyverbsObject, &pv.TMCaps,
		  tm_caps_fields },
		{ &cq_mod_caps_spec, &pv.PyverbsObject, &pv.CQModerationCaps,
		  cq_mod_caps_fields },
		{ &pci_atomic_caps_spec, &pv.PyverbsObject, &pv.PCIAtomicCaps,
		  pci_atomic_caps_fields },
		{ &device_attr_ex_spec, &pv.PyverbsObject, &pv.DeviceAttrEx,
		  device_attr_ex_fields, NULL, device_attr_ex_extra },
		{ &qdx_input_spec, &pv.PyverbsObject, &pv.QueryDeviceExInput,
		  qdx_input_fields },
		{ &port_attr_spec, &pv.PyverbsObject, &pv.PortAttr,
		  port_attr_fields },
		{ &gid_entry_spec, &pv.PyverbsObject, &pv.GIDEntry,
		  gid_entry_fields },
		{ &async_event_spec, &pv.PyverbsObject, &pv.AsyncEvent,
		  async_event_fields, async_event_oslots, async_event_extra },
		{ NULL }
	};

	if (pv_add_types(m, types))
		return -1;
	if (add_names(m, "_DEVICE_CAP_NAMES", device_cap_names) ||
	    add_names(m, "_PORT_CAP_NAMES", port_cap_names) ||
	    add_names(m, "_PORT_CAP2_NAMES", port_cap2_names) ||
	    add_names(m, "_ODP_GENERAL_NAMES", odp_general_names) ||
	    add_names(m, "_ODP_TRANSPORT_NAMES", odp_transport_names) ||
	    add_names(m, "_EVENT_TYPE_NAMES", event_type_names))
		return -1;
	return 0;
}
