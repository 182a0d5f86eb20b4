/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The init attributes of mlx5 QPs (pyverbs.providers.mlx5.mlx5dv): plain
 * data over struct mlx5dv_dci_streams, mlx5dv_dc_init_attr and
 * mlx5dv_qp_init_attr.  Their __str__ lives in mlx5dv.py.
 *
 * In struct mlx5dv_dc_init_attr, dct_access_key (u64) and dci_streams (two
 * u8) share a union: as upstream, writing one changes what the other reads
 * (dct_access_key=0x1234 reads back as log_num_concurent 0x34,
 * log_num_errored 0x12), and the printout shows both.
 */
#include "mlx5.h"
#include "field.h"
#include "state.h"

/* ------------------------------------------------------------------ */
/* dci_streams as a dict (upstream: Cython's struct <-> dict)          */
/* ------------------------------------------------------------------ */

static PyObject *streams_to_dict(const struct mlx5dv_dci_streams *s)
{
	return Py_BuildValue("{s:i,s:i}", "log_num_concurent",
			     (int)s->log_num_concurent, "log_num_errored",
			     (int)s->log_num_errored);
}

/*
 * Read log_num_concurent and log_num_errored into *s: as the keys of a
 * mapping (others are ignored, as upstream's Cython struct conversion
 * does), or as attributes of any object (upstream's Mlx5DVDCInitAttr reads
 * them so from its dci_streams argument).
 */
static int streams_read(PyObject *v, struct mlx5dv_dci_streams *s, int mapping)
{
	static const char *const keys[] = { "log_num_concurent",
					    "log_num_errored" };
	uint8_t val[2];
	int i;

	if (mapping && (!PyMapping_Check(v) || PyUnicode_Check(v) ||
			PySequence_Check(v))) {
		PyErr_Format(PyExc_TypeError, "Expected a mapping, got %.100s",
			     Py_TYPE(v)->tp_name);
		return -1;
	}
	for (i = 0; i < 2; i++) {
		PyObject *x = mapping ? PyMapping_GetItemString(v, keys[i]) :
					PyObject_GetAttrString(v, keys[i]);
		uint64_t u;
		int rc;

		if (!x) {
			if (mapping && PyErr_ExceptionMatches(PyExc_KeyError)) {
				PyErr_Clear();
				PyErr_Format(PyExc_ValueError,
					     "No value "
					     "specified for struct attribute "
					     "'%s'",
					     keys[i]);
			}
			return -1;
		}
		rc = pv_to_u64(x, UINT8_MAX, &u, keys[i]);
		Py_DECREF(x);
		if (rc)
			return -1;
		val[i] = (uint8_t)u;
	}
	s->log_num_concurent = val[0];
	s->log_num_errored = val[1];
	return 0;
}

/* ------------------------------------------------------------------ */
/* Mlx5DCIStreamInitAttr                                               */
/* ------------------------------------------------------------------ */

struct dci_streams_obj {
	PyObject_HEAD
	struct mlx5dv_dci_streams s;
};

static int dci_streams_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "log_num_concurent", "log_num_errored",
				  NULL };
	struct dci_streams_obj *self = (struct dci_streams_obj *)o;
	uint8_t c = 0, e = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw,
					 "|O&O&:Mlx5DCIStreamInitAttr", kwlist,
					 pv_conv_u8, &c, pv_conv_u8, &e))
		return -1;
	self->s.log_num_concurent = c;
	self->s.log_num_errored = e;
	return 0;
}

static const struct pv_field dci_streams_fields[] = {
	PV_FIELD(struct dci_streams_obj, s.log_num_concurent,
		 "log_num_concurent"),
	PV_FIELD(struct dci_streams_obj, s.log_num_errored, "log_num_errored"),
	PV_FIELD_END
};

PV_DATA_SPEC(dci_streams, "pyverbs.providers.mlx5.mlx5dv.Mlx5DCIStreamInitAttr",
	     struct dci_streams_obj,
	     "Mlx5DCIStreamInitAttr(log_num_concurent=0, "
	     "log_num_errored=0)\n--\n\n"
	     "The DCI streams of a DC QP (struct mlx5dv_dci_streams): "
	     "log2 of the stream channels and of the errored ones "
	     "before the DCI moves to error.",
	     { Py_tp_init, dci_streams_init }, );

/* ------------------------------------------------------------------ */
/* Mlx5DVDCInitAttr                                                    */
/* ------------------------------------------------------------------ */

struct dc_init_attr_obj {
	PyObject_HEAD
	struct mlx5dv_dc_init_attr attr;
};

static int dc_init_attr_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "dc_type", "dct_access_key", "dci_streams",
				  NULL };
	struct dc_init_attr_obj *self = (struct dc_init_attr_obj *)o;
	uint32_t dc_type = MLX5DV_DCTYPE_DCI;
	uint64_t key = 0;
	PyObject *streams = Py_None;
	struct mlx5dv_dc_init_attr a;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&O:Mlx5DVDCInitAttr",
					 kwlist, pv_conv_u32, &dc_type,
					 pv_conv_u64, &key, &streams))
		return -1;
	memset(&a, 0, sizeof(a));
	a.dc_type = dc_type;
	a.dct_access_key = key;
	/* the streams overwrite the key's low bytes (the union) */
	if (streams != Py_None && streams_read(streams, &a.dci_streams, 0))
		return -1;
	self->attr = a;
	return 0;
}

/* closure: the offset of the struct mlx5dv_dci_streams in the object */
static PyObject *streams_get(PyObject *o, void *c)
{
	return streams_to_dict((void *)((char *)o + (uintptr_t)c));
}

static int streams_set(PyObject *o, PyObject *v, void *c)
{
	if (pv_refuse_delete(v, "dci_streams"))
		return -1;
	return streams_read(v, (void *)((char *)o + (uintptr_t)c), 1);
}

static const struct pv_field dc_init_attr_fields[] = {
	PV_FIELD(struct dc_init_attr_obj, attr.dc_type, "dc_type"),
	PV_FIELD(struct dc_init_attr_obj, attr.dct_access_key,
		 "dct_access_key"),
	PV_FIELD_END
};

static const PyGetSetDef dc_init_attr_getset[] = {
	{ "dci_streams", streams_get, streams_set,
	  "The DCI streams, a dict {'log_num_concurent': .., "
	  "'log_num_errored': ..} (shares its bytes with dct_access_key).",
	  (void *)offsetof(struct dc_init_attr_obj, attr.dci_streams) },
	{ NULL }
};

PV_DATA_SPEC(dc_init_attr, "pyverbs.providers.mlx5.mlx5dv.Mlx5DVDCInitAttr",
	     struct dc_init_attr_obj,
	     "Mlx5DVDCInitAttr(dc_type=2, "
	     "dct_access_key=0, dci_streams=None)\n--\n\n"
	     "Defaults: dc_type=MLX5DV_DCTYPE_DCI.\n"
	     "The DC part of an mlx5 QP's init attributes (struct "
	     "mlx5dv_dc_init_attr).  dct_access_key and dci_streams "
	     "share their memory, as in C.",
	     { Py_tp_init, dc_init_attr_init }, );

/* ------------------------------------------------------------------ */
/* Mlx5DVQPInitAttr                                                    */
/* ------------------------------------------------------------------ */

static int qp_init_attr_init(PyObject *o, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "comp_mask", "create_flags", "dc_init_attr",
				  "send_ops_flags", NULL };
	struct pv_mlx5_dv_qp_init_attr *self = (void *)o;
	uint64_t comp_mask = 0, send_ops = 0;
	uint32_t create_flags = 0;
	PyObject *dc = Py_None;
	struct mlx5dv_qp_init_attr a;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&OO&:Mlx5DVQPInitAttr",
					 kwlist, pv_conv_u64, &comp_mask,
					 pv_conv_u32, &create_flags, &dc,
					 pv_conv_u64, &send_ops))
		return -1;
	if (dc != Py_None && !pv_type_ok(dc, pv_mlx5.DVDCInitAttr)) {
		return pv_mlx5_arg_type_error("dc_init_attr",
					      dc_init_attr_spec.name, dc);
	}
	memset(&a, 0, sizeof(a));
	a.comp_mask = comp_mask;
	a.create_flags = create_flags;
	a.send_ops_flags = send_ops;
	if (dc != Py_None) {
		const struct mlx5dv_dc_init_attr *d =
			&((struct dc_init_attr_obj *)dc)->attr;

		/* upstream copies the streams or the key, not both */
		a.dc_init_attr.dc_type = d->dc_type;
		if (comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS)
			a.dc_init_attr.dci_streams = d->dci_streams;
		else
			a.dc_init_attr.dct_access_key = d->dct_access_key;
	}
	self->attr = a;
	return 0;
}

static const struct pv_field qp_init_attr_fields[] = {
	PV_FIELD(struct pv_mlx5_dv_qp_init_attr, attr.comp_mask, "comp_mask"),
	PV_FIELD(struct pv_mlx5_dv_qp_init_attr, attr.create_flags,
		 "create_flags"),
	PV_FIELD(struct pv_mlx5_dv_qp_init_attr, attr.send_ops_flags,
		 "send_ops_flags"),
	PV_FIELD(struct pv_mlx5_dv_qp_init_attr, attr.dc_init_attr.dc_type,
		 "dc_type"),
	PV_FIELD(struct pv_mlx5_dv_qp_init_attr,
		 attr.dc_init_attr.dct_access_key, "dct_access_key"),
	PV_FIELD_END
};

static const PyGetSetDef qp_init_attr_getset[] = {
	{ "dci_streams", streams_get, streams_set,
	  "The DCI streams of the DC init attributes, as a dict (shares its "
	  "bytes with dct_access_key).",
	  (void *)offsetof(struct pv_mlx5_dv_qp_init_attr,
			   attr.dc_init_attr.dci_streams) },
	{ NULL }
};

PV_DATA_SPEC(qp_init_attr, "pyverbs.providers.mlx5.mlx5dv.Mlx5DVQPInitAttr",
	     struct pv_mlx5_dv_qp_init_attr,
	     "Mlx5DVQPInitAttr(comp_mask=0, create_flags=0, "
	     "dc_init_attr=None, send_ops_flags=0)\n--\n\n"
	     "The mlx5 init attributes of an Mlx5QP (struct "
	     "mlx5dv_qp_init_attr).  From dc_init_attr, the DC type "
	     "is copied, then the DCI streams when comp_mask has "
	     "MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS, else the DCT "
	     "access key.",
	     { Py_tp_init, qp_init_attr_init }, );

int pv_mlx5_qp_attr_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &dci_streams_spec, &pv.PyverbsObject,
		  &pv_mlx5.DCIStreamInitAttr, dci_streams_fields },
		{ &dc_init_attr_spec, &pv.PyverbsObject, &pv_mlx5.DVDCInitAttr,
		  dc_init_attr_fields, NULL, dc_init_attr_getset },
		{ &qp_init_attr_spec, &pv.PyverbsObject, &pv_mlx5.DVQPInitAttr,
		  qp_init_attr_fields, NULL, qp_init_attr_getset },
		{ NULL }
	};

	return pv_add_types(m, types);
}
