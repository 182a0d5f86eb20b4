/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Mlx5Context: a Context opened with mlx5dv_open_device() (DevX and the
 * other mlx5 context attributes), its queries (mlx5dv_query_device,
 * mlx5dv_query_port), the context-wide mlx5 calls (reserved QPNs, crypto
 * login, DevX general commands, clock conversion, EQN) and their attribute
 * objects: Mlx5DVContextAttr, Mlx5DVContext, Mlx5DVPortAttr.
 *
 * The static methods take any open Context: libmlx5 checks the device
 * itself (mlx5_get_dv_ops / is_mlx5_dev) and answers EOPNOTSUPP for a
 * foreign one, so nothing here passes a non-mlx5 object to code that
 * would dereference it.  Printing (__str__) is in mlx5dv.py.
 */
#include "mlx5.h"
#include "context.h"
#include "errors.h"
#include "fd_arr.h"
#include "field.h"
#include "object.h"
#include "state.h"

#include <errno.h>

/* What query_mlx5_device(comp_mask=-1) asks for: upstream v44's list. */
#define MCTX_DEFAULT_COMP_MASK                                          \
	(MLX5DV_CONTEXT_MASK_CQE_COMPRESION | MLX5DV_CONTEXT_MASK_SWP | \
	 MLX5DV_CONTEXT_MASK_STRIDING_RQ |                              \
	 MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |                          \
	 MLX5DV_CONTEXT_MASK_DYN_BFREGS |                               \
	 MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE |                        \
	 MLX5DV_CONTEXT_MASK_DC_ODP_CAPS |                              \
	 MLX5DV_CONTEXT_MASK_FLOW_ACTION_FLAGS |                        \
	 MLX5DV_CONTEXT_MASK_DCI_STREAMS |                              \
	 MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH |                         \
	 MLX5DV_CONTEXT_MASK_CRYPTO_OFFLOAD | MCTX_NEWER_MASK)
/*
 * What 65 adds to it, and the comp_mask bits whose fields this build's
 * struct mlx5dv_context has: a bit past them would have a newer libmlx5
 * write past the end of the struct, so query_mlx5_device() leaves them out.
 */
#if HAVE_MLX5DV_CONTEXT_MASK_OOO_RECV_WRS
#define MCTX_NEWER_MASK \
	(MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM | MLX5DV_CONTEXT_MASK_OOO_RECV_WRS)
#define MCTX_KNOWN_MASK ((1ULL << 17) - 1)
#elif HAVE_MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM
#define MCTX_NEWER_MASK MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM
#define MCTX_KNOWN_MASK ((1ULL << 15) - 1)
#else
#define MCTX_NEWER_MASK 0
#define MCTX_KNOWN_MASK ((1ULL << 14) - 1)
#endif

/* Is v the int -1 (not a bool)? */
int pv_mlx5_is_minus_one(PyObject *v)
{
	int overflow;
	long long x;

	if (!PyLong_Check(v) || PyBool_Check(v))
		return 0;
	x = PyLong_AsLongLongAndOverflow(v, &overflow);
	if (x == -1 && PyErr_Occurred()) {
		PyErr_Clear();
		return 0;
	}
	return !overflow && x == -1;
}

int pv_mlx5_is_context(PyObject *obj)
{
	return pv_type_ok(obj, pv_mlx5.Context);
}

/* ---- Mlx5DVContextAttr ---- */

/* fds: the FdArr (rdma-core 57), held, passed as attr.fds at the open */
struct mlx5_ctx_attr {
	PyObject_HEAD
	struct mlx5dv_context_attr attr;
	PyObject *fds;
};

static const struct pv_field mca_fields[] = {
	PV_FIELD(struct mlx5_ctx_attr, attr.flags, "flags"),
	PV_FIELD(struct mlx5_ctx_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD_END
};

/* hidden, as upstream's (a C member there) */
static const struct pv_oslot mca_oslots[] = {
	{ PV_OSLOT_AT(struct mlx5_ctx_attr, fds, "fds"),
	  .flags = PV_OSLOT_HIDDEN },
	PV_OSLOT_END
};

PV_OSLOTS_GC(mca, mca_oslots)

static int mca_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "flags", "comp_mask", "fds", NULL };
	struct mlx5_ctx_attr *self = (struct mlx5_ctx_attr *)obj;
	PyObject *vals[2] = { NULL, NULL }, *fds = Py_None;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOO:Mlx5DVContextAttr",
					 kwlist, &vals[0], &vals[1], &fds))
		return -1;
	if (fds != Py_None && !PyObject_TypeCheck(fds, pv.FdArr)) {
		PyErr_Format(PyExc_TypeError,
			     "fds must be an FdArr, not %.100s",
			     Py_TYPE(fds)->tp_name);
		return -1;
	}
#if !HAVE_MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY
	if (fds != Py_None) {
		pv_raise_needs("Mlx5DVContextAttr(fds=...)", 57);
		return -1;
	}
#endif
	if (pv_mlx5_store_fields(obj, mca_fields, vals, 2))
		return -1;
	pv_set_slot(&self->fds, fds);
	return 0;
}

PV_GC_TYPE_SPEC(mca, "pyverbs.providers.mlx5.mlx5dv.Mlx5DVContextAttr",
		struct mlx5_ctx_attr,
		"Mlx5DVContextAttr(flags=0, comp_mask=0, fds=None)\n--\n\n"
		"How to open an mlx5 device (struct mlx5dv_context_attr): "
		"flags is a mask of MLX5DV_CONTEXT_FLAGS_* (DEVX, ...); fds, "
		"an FdArr, goes to the device with comp_mask "
		"MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY (rdma-core 57).",
		{ Py_tp_new, PyType_GenericNew }, { Py_tp_init, mca_init },
		PV_OSLOTS_GC_SLOTS(mca), { Py_tp_getset, NULL }, );

/*
 * The mlx5dv_context_attr of a for one mlx5dv_open_device() call, in *out
 * (its fds in *fds, which must outlive the call).  Built against an
 * rdma-core without attr.fds, the FD_ARRAY bit is refused: a newer
 * libmlx5 would read that member past the end of the struct.  0 or -1.
 */
#if HAVE_MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY
typedef struct ibv_fd_arr mca_fds;
#else
typedef char mca_fds;
#endif
static int mca_get(struct mlx5_ctx_attr *a, struct mlx5dv_context_attr *out,
		   mca_fds *fds)
{
	*out = a->attr;
#if HAVE_MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY
	out->fds = NULL;
	if (a->fds && a->fds != Py_None) {
		if (pv_fd_arr_get(a->fds, fds))
			return -1;
		out->fds = fds;
	}
#else
	(void)fds;
	if (out->comp_mask & 1) { /* MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY */
		pv_raise_needs("MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY", 57);
		return -1;
	}
#endif
	return 0;
}

/* ---- Mlx5DVContext (mlx5dv_query_device's answer) ---- */

struct mlx5_dv_ctx {
	PyObject_HEAD
	struct mlx5dv_context dv;
};

#define MDC struct mlx5_dv_ctx
static const struct pv_field mdc_fields[] = {
	PV_FIELD_RO(MDC, dv.version, "version"),
	PV_FIELD_RO(MDC, dv.flags, "flags"),
	PV_FIELD(MDC, dv.comp_mask, "comp_mask"),
	PV_FIELD_RO(MDC, dv.tunnel_offloads_caps, "tunnel_offload_caps"),
	PV_FIELD_RO(MDC, dv.max_dynamic_bfregs, "max_dynamic_bfregs"),
	PV_FIELD_RO(MDC, dv.max_clock_info_update_nsec,
		    "max_clock_info_update_nsec"),
	PV_FIELD_RO(MDC, dv.flow_action_flags, "flow_action_flags"),
	PV_FIELD_RO(MDC, dv.dc_odp_caps, "dc_odp_caps"),
	PV_FIELD_RO(MDC, dv.num_lag_ports, "num_lag_ports"),
	PV_FIELD_RO(MDC, dv.max_wr_memcpy_length, "max_wr_memcpy_length"),
#if HAVE_MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM
	PV_FIELD_RO(MDC, dv.max_dc_rd_atom, "max_dc_rd_atom"),
	PV_FIELD_RO(MDC, dv.max_dc_init_rd_atom, "max_dc_init_rd_atom"),
#endif
	PV_FIELD_END
};

/*
 * The nested capability structs read as dicts keyed by the C member names,
 * as Cython converts structs: one table of (name, offset, size) per struct.
 */
struct mdc_member {
	const char *name;
	size_t off;
	unsigned char size;
};
#define MDC_M(st, m) { #m, offsetof(st, m), sizeof(((st *)0)->m) }
#define MDC_M_END { NULL, 0, 0 }

static const struct mdc_member cqe_comp_members[] = {
	MDC_M(struct mlx5dv_cqe_comp_caps, max_num),
	MDC_M(struct mlx5dv_cqe_comp_caps, supported_format), MDC_M_END
};
static const struct mdc_member swp_members[] = {
	MDC_M(struct mlx5dv_sw_parsing_caps, sw_parsing_offloads),
	MDC_M(struct mlx5dv_sw_parsing_caps, supported_qpts), MDC_M_END
};
static const struct mdc_member strd_members[] = {
	MDC_M(struct mlx5dv_striding_rq_caps,
	      min_single_stride_log_num_of_bytes),
	MDC_M(struct mlx5dv_striding_rq_caps,
	      max_single_stride_log_num_of_bytes),
	MDC_M(struct mlx5dv_striding_rq_caps,
	      min_single_wqe_log_num_of_strides),
	MDC_M(struct mlx5dv_striding_rq_caps,
	      max_single_wqe_log_num_of_strides),
	MDC_M(struct mlx5dv_striding_rq_caps, supported_qpts),
	MDC_M_END
};
static const struct mdc_member crypto_members[] = {
	MDC_M(struct mlx5dv_crypto_caps, failed_selftests),
	MDC_M(struct mlx5dv_crypto_caps, crypto_engines),
	MDC_M(struct mlx5dv_crypto_caps, wrapped_import_method),
	MDC_M(struct mlx5dv_crypto_caps, log_max_num_deks),
	MDC_M(struct mlx5dv_crypto_caps, flags),
	MDC_M_END
};
static const struct mdc_member dci_members[] = {
	MDC_M(struct mlx5dv_dci_streams_caps, max_log_num_concurent),
	MDC_M(struct mlx5dv_dci_streams_caps, max_log_num_errored), MDC_M_END
};

#if HAVE_MLX5DV_CONTEXT_MASK_OOO_RECV_WRS
static const struct mdc_member ooo_members[] = {
	MDC_M(struct mlx5dv_ooo_recv_wrs_caps, max_rc),
	MDC_M(struct mlx5dv_ooo_recv_wrs_caps, max_xrc),
	MDC_M(struct mlx5dv_ooo_recv_wrs_caps, max_dct),
	MDC_M(struct mlx5dv_ooo_recv_wrs_caps, max_ud),
	MDC_M(struct mlx5dv_ooo_recv_wrs_caps, max_uc),
	MDC_M_END
};
#endif

struct mdc_dict {
	size_t off; /* of the struct in struct mlx5dv_context */
	const struct mdc_member *members;
};

static const struct mdc_dict mdc_dicts[] = {
	{ offsetof(struct mlx5dv_context, cqe_comp_caps), cqe_comp_members },
	{ offsetof(struct mlx5dv_context, sw_parsing_caps), swp_members },
	{ offsetof(struct mlx5dv_context, striding_rq_caps), strd_members },
	{ offsetof(struct mlx5dv_context, crypto_caps), crypto_members },
	{ offsetof(struct mlx5dv_context, dci_streams_caps), dci_members },
#if HAVE_MLX5DV_CONTEXT_MASK_OOO_RECV_WRS
	{ offsetof(struct mlx5dv_context, ooo_recv_wrs_caps), ooo_members },
#endif
};

#if !HAVE_MLX5DV_CONTEXT_MASK_OOO_RECV_WRS || \
	!HAVE_MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM
/* The attributes a build against an older rdma-core lacks: the error
 * naming the version that brings them. */
struct mdc_needs {
	const char *what;
	int version;
};

static PyObject *mdc_get_needs(PyObject *obj, void *closure)
{
	const struct mdc_needs *n = closure;

	return pv_raise_needs(n->what, n->version);
}

static const struct mdc_needs mdc_needs[] = {
	{ "Mlx5DVContext.max_dc_rd_atom", 47 },
	{ "Mlx5DVContext.max_dc_init_rd_atom", 47 },
	{ "Mlx5DVContext.ooo_recv_wrs_caps", 55 },
};
#endif

static PyObject *mdc_get_dict(PyObject *obj, void *closure)
{
	const struct mdc_dict *d = closure;
	const char *base = (const char *)&((MDC *)obj)->dv + d->off;
	const struct mdc_member *m;
	PyObject *res = PyDict_New();

	for (m = d->members; res && m->name; m++) {
		unsigned long long v = 0;
		PyObject *o;

		switch (m->size) {
		case 1:
			v = *(const uint8_t *)(base + m->off);
			break;
		case 2:
			v = *(const uint16_t *)(base + m->off);
			break;
		case 4:
			v = *(const uint32_t *)(base + m->off);
			break;
		default:
			v = *(const uint64_t *)(base + m->off);
			break;
		}
		o = PyLong_FromUnsignedLongLong(v);
		if (!o || PyDict_SetItemString(res, m->name, o))
			Py_CLEAR(res);
		Py_XDECREF(o);
	}
	return res;
}

static PyGetSetDef mdc_extra[] = {
	{ "cqe_comp_caps", mdc_get_dict, NULL,
	  "CQE compression caps (dict: max_num, supported_format).",
	  (void *)&mdc_dicts[0] },
	{ "sw_parsing_caps", mdc_get_dict, NULL,
	  "SW parsing caps (dict: sw_parsing_offloads, supported_qpts).",
	  (void *)&mdc_dicts[1] },
	{ "striding_rq_caps", mdc_get_dict, NULL, "Striding RQ caps (dict).",
	  (void *)&mdc_dicts[2] },
	{ "crypto_caps", mdc_get_dict, NULL, "Crypto caps (dict).",
	  (void *)&mdc_dicts[3] },
	{ "dci_streams_caps", mdc_get_dict, NULL,
	  "DCI streams caps (dict: max_log_num_concurent, "
	  "max_log_num_errored).",
	  (void *)&mdc_dicts[4] },
#if HAVE_MLX5DV_CONTEXT_MASK_OOO_RECV_WRS
	{ "ooo_recv_wrs_caps", mdc_get_dict, NULL,
	  "Out-of-order receive WRs caps (dict: max_rc, max_xrc, max_dct, "
	  "max_ud, max_uc).",
	  (void *)&mdc_dicts[5] },
#else
	{ "ooo_recv_wrs_caps", mdc_get_needs, NULL,
	  "Out-of-order receive WRs caps (rdma-core 55).",
	  (void *)&mdc_needs[2] },
#endif
#if !HAVE_MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM
	{ "max_dc_rd_atom", mdc_get_needs, NULL,
	  "Max DC read atomic (rdma-core 47).", (void *)&mdc_needs[0] },
	{ "max_dc_init_rd_atom", mdc_get_needs, NULL,
	  "Max DC init read atomic (rdma-core 47).", (void *)&mdc_needs[1] },
#endif
	{ NULL }
};
#undef MDC

PV_MLX5_ANSWER_SPEC(mdc, "pyverbs.providers.mlx5.mlx5dv.Mlx5DVContext",
		    struct mlx5_dv_ctx,
		    "Mlx5DVContext()\n--\n\n"
		    "mlx5-specific device capabilities (struct "
		    "mlx5dv_context), as Mlx5Context.query_mlx5_device() "
		    "returns them.");

/* ---- Mlx5DVPortAttr (mlx5dv_query_port's answer) ---- */

struct mlx5_port_attr {
	PyObject_HEAD
	struct mlx5dv_port attr;
};

#define MPA struct mlx5_port_attr
static const struct pv_field mpa_fields[] = {
	PV_FIELD_RO(MPA, attr.flags, "flags"),
	PV_FIELD_RO(MPA, attr.vport, "vport"),
	PV_FIELD_RO(MPA, attr.vport_vhca_id, "vport_vhca_id"),
	PV_FIELD_RO(MPA, attr.esw_owner_vhca_id, "esw_owner_vhca_id"),
	PV_FIELD_RO(MPA, attr.vport_steering_icm_rx, "vport_steering_icm_rx"),
	PV_FIELD_RO(MPA, attr.vport_steering_icm_tx, "vport_steering_icm_tx"),
	PV_FIELD_RO(MPA, attr.reg_c0.value, "reg_c0_value"),
	PV_FIELD_RO(MPA, attr.reg_c0.mask, "reg_c0_mask"),
	PV_FIELD_END
};
#undef MPA

PV_MLX5_ANSWER_SPEC(mpa, "pyverbs.providers.mlx5.mlx5dv.Mlx5DVPortAttr",
		    struct mlx5_port_attr,
		    "Mlx5DVPortAttr()\n--\n\n"
		    "mlx5-specific port attributes (struct mlx5dv_port), as "
		    "Mlx5Context.query_mlx5_port() returns them.");

/* ---- Mlx5Context ---- */

/*
 * Look 'name' up through Context.__init__(name=name, attr=attr), which
 * keeps the device and leaves the object closed.  0 or -1.
 */
int pv_mlx5_ctx_lookup(PyObject *obj, PyObject *name, PyObject *attr)
{
	PyObject *args, *kw;
	int rc = -1;

	args = PyTuple_New(0);
	kw = Py_BuildValue("{s:O,s:O}", "name", name, "attr", attr);
	if (args && kw)
		rc = pv.Context->tp_init(obj, args, kw);
	Py_XDECREF(args);
	Py_XDECREF(kw);
	return rc;
}

static int mctx_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr", "name", NULL };
	struct pv_context *self = (struct pv_context *)obj;
	PyObject *attr, *name = NULL;
	struct mlx5dv_context_attr open_attr;
	struct mlx5_ctx_attr *a;
	mca_fds fds;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:Mlx5Context", kwlist,
					 &attr, &name))
		return -1;
	if (!PyObject_TypeCheck(attr, pv_mlx5.DVContextAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "Argument 'attr' has incorrect type (expected "
			     "%s, got %.200s)",
			     mca_spec.name, Py_TYPE(attr)->tp_name);
		return -1;
	}
	a = (struct mlx5_ctx_attr *)attr;
	if (mca_get(a, &open_attr, &fds))
		return -1;
	if (!name) {
		name = PyUnicode_FromString("");
		if (!name)
			return -1;
		rc = pv_mlx5_ctx_lookup(obj, name, attr);
		Py_DECREF(name);
	} else {
		rc = pv_mlx5_ctx_lookup(obj, name, attr);
	}
	if (rc)
		return -1;
	if (!self->device) { /* cannot happen: the lookup raised */
		pv_raise_user("No device to open");
		return -1;
	}
	if (!mlx5dv_is_supported(self->device)) {
		pv_raise_user("This is not an MLX5 device");
		return -1;
	}
	/* NULL with errno set */
	self->ctx = mlx5dv_open_device(self->device, &open_attr);
	if (!self->ctx) {
		pv_raise_errno("mlx5dv_open_device",
			       "Failed to open mlx5 context on %U", self->name);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

static PyObject *mctx_query_mlx5_device(PyObject *obj, PyObject *args,
					PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", NULL };
	struct pv_context *self = (struct pv_context *)obj;
	PyObject *maskobj = NULL;
	struct mlx5_dv_ctx *res;
	uint64_t mask = MCTX_DEFAULT_COMP_MASK;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:query_mlx5_device",
					 kwlist, &maskobj))
		return NULL;
	/* -1 (the default) is upstream's "everything v44 knows" */
	if (maskobj && !pv_mlx5_is_minus_one(maskobj) &&
	    pv_to_u64(maskobj, UINT64_MAX, &mask, "comp_mask"))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	mask &= MCTX_KNOWN_MASK;
	res = PyObject_New(struct mlx5_dv_ctx, pv_mlx5.DVContext);
	if (!res)
		return NULL;
	memset(&res->dv, 0, sizeof(res->dv));
	res->dv.comp_mask = mask;
	rc = mlx5dv_query_device(self->ctx, &res->dv); /* returns errno */
	if (rc) {
		Py_DECREF(res);
		return pv_raise_rc(rc, "mlx5dv_query_device",
				   "Failed to query mlx5 device %U.",
				   self->name);
	}
	return (PyObject *)res;
}

/*
 * Parse the arguments of a static method (ctx) or (ctx, value): fmt is
 * "O:name" or "OO&:name", value converted by conv into val (both unused
 * with "O:").  The open Mlx5Context ctx, or NULL with the exception.
 */
static struct pv_context *ctx_args(PyObject *args, PyObject *kw,
				   const char *fmt, char **kwlist,
				   int (*conv)(PyObject *, void *), void *val)
{
	PyObject *ctxo;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &ctxo, conv,
					 val))
		return NULL;
	return pv_mlx5_ctx_arg(ctxo, "ctx");
}

static PyObject *mctx_query_mlx5_port(PyObject *unused, PyObject *args,
				      PyObject *kw)
{
	static char *kwlist[] = { "ctx", "port_num", NULL };
	struct mlx5_port_attr *res;
	struct pv_context *ctx;
	uint32_t port;
	int rc;

	ctx = ctx_args(args, kw, "OO&:query_mlx5_port", kwlist, pv_conv_u32,
		       &port);
	if (!ctx)
		return NULL;
	res = PyObject_New(struct mlx5_port_attr, pv_mlx5.DVPortAttr);
	if (!res)
		return NULL;
	memset(&res->attr, 0, sizeof(res->attr));
	/* inline: _mlx5dv_query_port(ctx, port, info, sizeof); errno */
	rc = mlx5dv_query_port(ctx->ctx, port, &res->attr);
	if (rc) {
		Py_DECREF(res);
		return pv_raise_rc(rc, "_mlx5dv_query_port",
				   "Failed to query dv port mlx5 %U port %u.",
				   ctx->name, port);
	}
	return (PyObject *)res;
}

static PyObject *mctx_reserved_qpn_alloc(PyObject *unused, PyObject *args,
					 PyObject *kw)
{
	static char *kwlist[] = { "ctx", NULL };
	struct pv_context *ctx;
	uint32_t qpn = 0;
	int rc;

	ctx = ctx_args(args, kw, "O:reserved_qpn_alloc", kwlist, NULL, NULL);
	if (!ctx)
		return NULL;
	rc = mlx5dv_reserved_qpn_alloc(ctx->ctx, &qpn); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_reserved_qpn_alloc",
				   "Failed to alloc reserved QP number.");
	return PyLong_FromUnsignedLong(qpn);
}

static PyObject *mctx_reserved_qpn_dealloc(PyObject *unused, PyObject *args,
					   PyObject *kw)
{
	static char *kwlist[] = { "ctx", "qpn", NULL };
	struct pv_context *ctx;
	uint32_t qpn;
	int rc;

	ctx = ctx_args(args, kw, "OO&:reserved_qpn_dealloc", kwlist,
		       pv_conv_u32, &qpn);
	if (!ctx)
		return NULL;
	rc = mlx5dv_reserved_qpn_dealloc(ctx->ctx, qpn); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_reserved_qpn_dealloc",
				   "Failed to dealloc QP number %u.", qpn);
	Py_RETURN_NONE;
}

static PyObject *mctx_crypto_login(PyObject *unused, PyObject *args,
				   PyObject *kw)
{
	static char *kwlist[] = { "ctx", "login_attr", NULL };
	struct mlx5dv_crypto_login_attr la;
	struct pv_context *ctx;
	PyObject *ctxo, *lao;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:crypto_login", kwlist,
					 &ctxo, &lao))
		return NULL;
	ctx = pv_mlx5_ctx_arg(ctxo, "ctx");
	if (!ctx || pv_mlx5_crypto_login_attr_get(lao, &la))
		return NULL;
	rc = mlx5dv_crypto_login(ctx->ctx, &la); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_crypto_login",
				   "Failed to create crypto login session.");
	Py_RETURN_NONE;
}

static PyObject *mctx_query_login_state(PyObject *unused, PyObject *args,
					PyObject *kw)
{
	static char *kwlist[] = { "ctx", NULL };
	enum mlx5dv_crypto_login_state state = 0;
	struct pv_context *ctx;
	int rc;

	ctx = ctx_args(args, kw, "O:query_login_state", kwlist, NULL, NULL);
	if (!ctx)
		return NULL;
	rc = mlx5dv_crypto_login_query_state(ctx->ctx, &state); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_crypto_login_query_state",
				   "Failed to query the crypto login session "
				   "state.");
	return PyLong_FromLong(state);
}

static PyObject *mctx_crypto_logout(PyObject *unused, PyObject *args,
				    PyObject *kw)
{
	static char *kwlist[] = { "ctx", NULL };
	struct pv_context *ctx;
	int rc;

	ctx = ctx_args(args, kw, "O:crypto_logout", kwlist, NULL, NULL);
	if (!ctx)
		return NULL;
	rc = mlx5dv_crypto_logout(ctx->ctx); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_crypto_logout",
				   "Failed to logout from crypto login "
				   "session.");
	Py_RETURN_NONE;
}

static PyObject *mctx_devx_general_cmd(PyObject *obj, PyObject *args,
				       PyObject *kw)
{
	static char *kwlist[] = { "in_", "outlen", NULL };
	struct pv_context *self = (struct pv_context *)obj;
	PyObject *ino, *in, *res = NULL;
	size_t outlen;
	void *out;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:devx_general_cmd",
					 kwlist, &ino, pv_conv_size, &outlen))
		return NULL;
	if (pv_check_open(&self->obj))
		return NULL;
	in = pv_mlx5_mailbox_in(ino);
	if (!in)
		return NULL;
	if (outlen > PY_SSIZE_T_MAX) {
		Py_DECREF(in);
		return PyErr_NoMemory();
	}
	out = PyMem_Calloc(1, outlen ? outlen : 1);
	if (!out) {
		Py_DECREF(in);
		return PyErr_NoMemory();
	}
	rc = mlx5dv_devx_general_cmd(self->ctx, PyBytes_AS_STRING(in),
				     PyBytes_GET_SIZE(in), out, outlen);
	if (rc)
		pv_raise_rc(rc, "mlx5dv_devx_general_cmd",
			    "DevX general command failed");
	else
		res = PyBytes_FromStringAndSize(out, outlen);
	PyMem_Free(out);
	Py_DECREF(in);
	return res;
}

static PyObject *mctx_device_timestamp_to_ns(PyObject *unused, PyObject *args,
					     PyObject *kw)
{
	static char *kwlist[] = { "ctx", "device_timestamp", NULL };
	struct mlx5dv_clock_info ci;
	struct pv_context *ctx;
	uint64_t ts;
	int rc;

	ctx = ctx_args(args, kw, "OO&:device_timestamp_to_ns", kwlist,
		       pv_conv_u64, &ts);
	if (!ctx)
		return NULL;
	memset(&ci, 0, sizeof(ci));
	rc = mlx5dv_get_clock_info(ctx->ctx, &ci); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_get_clock_info",
				   "Failed to get the clock info");
	return PyLong_FromUnsignedLongLong(mlx5dv_ts_to_ns(&ci, ts));
}

static PyObject *mctx_devx_query_eqn(PyObject *obj, PyObject *args,
				     PyObject *kw)
{
	struct pv_context *self = (struct pv_context *)obj;
	uint32_t vector, eqn = 0;
	int rc;

	if (pv_u32_arg(args, kw, "devx_query_eqn", "vector", &vector) ||
	    pv_check_open(&self->obj))
		return NULL;
	rc = mlx5dv_devx_query_eqn(self->ctx, vector, &eqn); /* errno */
	if (rc)
		return pv_raise_rc(rc, "mlx5dv_devx_query_eqn",
				   "Failed to query EQN");
	return PyLong_FromUnsignedLong(eqn);
}

/* get_data_direct_sysfs_path(length=512): the sysfs path of the device's
 * data-direct function, read into a buffer of length bytes. */
static PyObject *mctx_get_data_direct_sysfs_path(PyObject *obj, PyObject *args,
						 PyObject *kw)
{
	static char *kwlist[] = { "length", NULL };
	struct pv_context *self = (struct pv_context *)obj;
	size_t len = 512;
	PyObject *res = NULL;
	char *buf;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "|O&:get_data_direct_sysfs_path",
					 kwlist, pv_conv_size, &len) ||
	    pv_check_open(&self->obj))
		return NULL;
#if HAVE_MLX5DV_REG_DMABUF_MR
	if (len > PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	/* one byte more, zeroed: the path is NUL-terminated whatever the
	 * kernel wrote */
	buf = PyMem_Calloc(1, len + 1);
	if (!buf)
		return PyErr_NoMemory();
	rc = mlx5dv_get_data_direct_sysfs_path(self->ctx, buf, len); /* errno */
	if (rc)
		pv_raise_rc(rc, "mlx5dv_get_data_direct_sysfs_path",
			    "Get data direct sysfs path failed.");
	else
		res = PyUnicode_DecodeFSDefault(buf);
	PyMem_Free(buf);
	return res;
#else
	(void)buf;
	(void)rc;
	(void)res;
	return pv_raise_needs("mlx5dv_get_data_direct_sysfs_path", 54);
#endif
}

#define MCTX_KW(name, fn) \
	name, (PyCFunction)(void (*)(void))fn, METH_VARARGS | METH_KEYWORDS
#define MCTX_STATIC(name, fn)                  \
	name, (PyCFunction)(void (*)(void))fn, \
		METH_VARARGS | METH_KEYWORDS | METH_STATIC

static PyMethodDef mctx_methods[] = {
	{ MCTX_KW("query_mlx5_device", mctx_query_mlx5_device),
	  "query_mlx5_device($self, /, comp_mask=-1)\n--\n\n"
	  "The device's mlx5 capabilities (mlx5dv_query_device) as an "
	  "Mlx5DVContext; comp_mask -1 asks for every capability upstream "
	  "pyverbs 65 knows (0x178ff; 0x38ff built against rdma-core 44). "
	  "Bits of capabilities this build's struct lacks are left out." },
	{ MCTX_STATIC("query_mlx5_port", mctx_query_mlx5_port),
	  "query_mlx5_port(ctx, port_num)\n--\n\n"
	  "The mlx5 attributes of port port_num of Context ctx "
	  "(mlx5dv_query_port) as an Mlx5DVPortAttr." },
	{ MCTX_STATIC("reserved_qpn_alloc", mctx_reserved_qpn_alloc),
	  "reserved_qpn_alloc(ctx)\n--\n\n"
	  "Allocate a reserved QP number from the firmware." },
	{ MCTX_STATIC("reserved_qpn_dealloc", mctx_reserved_qpn_dealloc),
	  "reserved_qpn_dealloc(ctx, qpn)\n--\n\n"
	  "Give a reserved QP number back to the firmware." },
	{ MCTX_STATIC("crypto_login", mctx_crypto_login),
	  "crypto_login(ctx, login_attr)\n--\n\n"
	  "Open a crypto login session (mlx5dv_crypto_login) with an "
	  "Mlx5CryptoLoginAttr." },
	{ MCTX_STATIC("query_login_state", mctx_query_login_state),
	  "query_login_state(ctx)\n--\n\n"
	  "The state of the crypto login session "
	  "(MLX5DV_CRYPTO_LOGIN_STATE_*)." },
	{ MCTX_STATIC("crypto_logout", mctx_crypto_logout),
	  "crypto_logout(ctx)\n--\n\n"
	  "Close the crypto login session." },
	{ MCTX_KW("devx_general_cmd", mctx_devx_general_cmd),
	  "devx_general_cmd($self, /, in_, outlen)\n--\n\n"
	  "Run a DevX general command: in_ is the input mailbox (bytes or "
	  "an object with __bytes__); returns outlen bytes of output." },
	{ MCTX_STATIC("device_timestamp_to_ns", mctx_device_timestamp_to_ns),
	  "device_timestamp_to_ns(ctx, device_timestamp)\n--\n\n"
	  "Convert a device timestamp (HCA core clock cycles) to "
	  "nanoseconds (mlx5dv_get_clock_info + mlx5dv_ts_to_ns)." },
	{ MCTX_KW("get_data_direct_sysfs_path",
		  mctx_get_data_direct_sysfs_path),
	  "get_data_direct_sysfs_path($self, /, length=512)\n--\n\n"
	  "The sysfs path of the device's data-direct PCI function "
	  "(mlx5dv_get_data_direct_sysfs_path), read with a buffer of "
	  "length bytes (ENOSPC when it is too short)." },
	{ MCTX_KW("devx_query_eqn", mctx_devx_query_eqn),
	  "devx_query_eqn($self, /, vector)\n--\n\n"
	  "The device EQ number of completion vector 'vector'." },
	{ NULL }
};

static PyObject *mctx_repr(PyObject *obj)
{
	struct pv_context *self = (struct pv_context *)obj;

	if (self->obj.closed)
		return PyUnicode_FromFormat("<%s %R closed>",
					    _PyType_Name(Py_TYPE(obj)),
					    self->name ? self->name : Py_None);
	return PyUnicode_FromFormat("<%s %U>", _PyType_Name(Py_TYPE(obj)),
				    self->name);
}

/* GC and its slots: inherited from the base */
PV_TYPE_SPEC(mctx, "pyverbs.providers.mlx5.mlx5dv.Mlx5Context",
	     struct pv_context,
	     "Mlx5Context(attr, name='')\n--\n\n"
	     "An mlx5 device opened with mlx5dv_open_device() and the "
	     "Mlx5DVContextAttr attr.  A device that is not mlx5 "
	     "raises PyverbsUserError('This is not an MLX5 device').",
	     { Py_tp_init, mctx_init }, { Py_tp_methods, mctx_methods },
	     { Py_tp_repr, mctx_repr }, );

int pv_mlx5_context_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &mca_spec, &pv.PyverbsObject, &pv_mlx5.DVContextAttr,
		  mca_fields, mca_oslots },
		{ &mdc_spec, &pv.PyverbsObject, &pv_mlx5.DVContext, mdc_fields,
		  NULL, mdc_extra },
		{ &mpa_spec, &pv.PyverbsObject, &pv_mlx5.DVPortAttr,
		  mpa_fields },
		{ &mctx_spec, &pv.Context, &pv_mlx5.Context },
		{ NULL }
	};

	return pv_add_types(m, types);
}
