/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The direct-rules flow meter (pyverbs.providers.mlx5.dr_action, rdma-core
 * 48's API, whose C calls libmlx5 44 already has):
 *   DrFlowMeterAttr(next_table, active=1, reg_c_index=0,
 *                   flow_meter_parameter=None)
 *       struct mlx5dv_dr_flow_meter_attr: the DrTable the metered packets
 *       go on to, whether the meter is active, the register C that gets the
 *       packet's colour, and the meter's parameters in the device's format
 *       (bytes, or an object with __bytes__).  It holds the table and a copy
 *       of the parameters; close() drops both.
 *   DrActionFlowMeter(attr)      mlx5dv_dr_action_create_flow_meter
 *       .modify(attr, modify_field_select)
 *                                mlx5dv_dr_action_modify_flow_meter
 * The action is a child of attr's table (closing the table closes the
 * action first, and the action closes the rules using it first).
 * Upstream dereferences a None attr or table; here they are TypeErrors,
 * and a closed attr or table is refused.
 */
#include "mlx5.h"
#include "errors.h"
#include "field.h"
#include "object.h"
#include "state.h"

/* ---- DrFlowMeterAttr ---- */

struct meter_attr {
	struct pv_obj obj;
	PyObject *table; /* DrTable */
	PyObject *param; /* bytes */
	uint8_t active, reg_c_index;
};

static int ma_destroy(struct pv_obj *o)
{
	struct meter_attr *self = (struct meter_attr *)o;

	Py_CLEAR(self->table);
	Py_CLEAR(self->param);
	return 0;
}

static int ma_traverse(PyObject *o, visitproc visit, void *arg)
{
	struct meter_attr *self = (struct meter_attr *)o;

	Py_VISIT(self->table);
	Py_VISIT(self->param);
	return pv_obj_traverse(PV_OBJ(o), visit, arg);
}

static int ma_clear(PyObject *o)
{
	ma_destroy(PV_OBJ(o));
	return pv_obj_clear(PV_OBJ(o));
}

/* bytes(o) of the meter parameters: an int (a length to bytes()) and None
 * are refused.  A new reference or NULL. */
static PyObject *meter_param(PyObject *o)
{
	PyObject *b;

	if (o == Py_None || PyLong_Check(o)) {
		PyErr_Format(PyExc_TypeError,
			     "flow_meter_parameter must be bytes, not %.100s",
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	b = PyObject_Bytes(o);
	if (!b && PyErr_ExceptionMatches(PyExc_TypeError)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError,
			     "flow_meter_parameter must be bytes, not %.100s",
			     Py_TYPE(o)->tp_name);
	}
	return b;
}

static int ma_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "next_table", "active", "reg_c_index",
				  "flow_meter_parameter", NULL };
	struct meter_attr *self = (struct meter_attr *)obj;
	PyObject *tblo, *paramo = Py_None, *param;
	uint8_t active = 1, reg_c = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|O&O&O:DrFlowMeterAttr",
					 kwlist, pv_mlx5.DrTable, &tblo,
					 pv_conv_u8, &active, pv_conv_u8,
					 &reg_c, &paramo))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("DrFlowMeterAttr is already initialised");
		return -1;
	}
	param = meter_param(paramo);
	if (!param)
		return -1;
	pv_obj_setup(&self->obj, ma_destroy);
	ma_destroy(&self->obj);
	self->table = Py_NewRef(tblo);
	self->param = param;
	self->active = active;
	self->reg_c_index = reg_c;
	pv_obj_opened(&self->obj);
	return 0;
}

PV_GC_TYPE_SPEC(ma, "pyverbs.providers.mlx5.dr_action.DrFlowMeterAttr",
		struct meter_attr,
		"DrFlowMeterAttr(next_table, active=1, reg_c_index=0, "
		"flow_meter_parameter=None)\n--\n\n"
		"How to meter (struct mlx5dv_dr_flow_meter_attr): packets "
		"go on to the DrTable next_table with their colour in the "
		"low byte of register C reg_c_index; active says whether the "
		"meter is in use; flow_meter_parameter (bytes, or an object "
		"with __bytes__; required) holds the rates and colours in "
		"the device's format.  close() drops the table and the "
		"parameters.",
		{ Py_tp_init, ma_init }, { Py_tp_traverse, ma_traverse },
		{ Py_tp_clear, ma_clear }, );

/*
 * The struct of the open DrFlowMeterAttr o (argument what), its pointers
 * valid while o is not closed, and the table in *tbl.  0, or -1 with
 * TypeError (another type, None) or PyverbsUserError (closed).
 */
static int meter_attr_get(PyObject *o, const char *what,
			  struct mlx5dv_dr_flow_meter_attr *out,
			  struct pv_dr_table **tbl)
{
	struct meter_attr *ma = (struct meter_attr *)o;

	if (!pv_type_ok(o, pv_mlx5.DrFlowMeterAttr)) {
		PyErr_Format(PyExc_TypeError,
			     "%s must be a DrFlowMeterAttr, not %.100s", what,
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	if (pv_check_open(&ma->obj))
		return -1;
	*tbl = pv_dr_table_arg(ma->table, "next_table");
	if (!*tbl)
		return -1;
	memset(out, 0, sizeof(*out));
	out->next_table = (*tbl)->table;
	out->active = ma->active;
	out->reg_c_index = ma->reg_c_index;
	out->flow_meter_parameter_sz = PyBytes_GET_SIZE(ma->param);
	out->flow_meter_parameter = PyBytes_AS_STRING(ma->param);
	return 0;
}

/* ---- DrActionFlowMeter ---- */

static int meter_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	struct mlx5dv_dr_flow_meter_attr attr;
	struct pv_dr_table *tbl;
	PyObject *o;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O:DrActionFlowMeter",
					 kwlist, &o) ||
	    pv_dr_action_begin(self) || meter_attr_get(o, "attr", &attr, &tbl))
		return -1;
	return pv_dr_action_finish(self,
				   mlx5dv_dr_action_create_flow_meter(&attr),
				   "mlx5dv_dr_action_create_flow_meter",
				   "DrActionFlowMeter creation failed.",
				   (struct pv_obj *const[]){ &tbl->obj }, 1);
}

static PyObject *meter_modify(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "attr", "modify_field_select", NULL };
	struct pv_dr_action *self = (struct pv_dr_action *)obj;
	struct mlx5dv_dr_flow_meter_attr attr;
	struct pv_dr_table *tbl;
	uint64_t select;
	PyObject *o;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:modify", kwlist, &o,
					 pv_conv_u64, &select) ||
	    meter_attr_get(o, "attr", &attr, &tbl) || pv_check_open(&self->obj))
		return NULL;
	/* the 64 bits as given (upstream passes the int as the __be64) */
	rc = mlx5dv_dr_action_modify_flow_meter(self->action, &attr,
						(__be64)select);
	if (rc) /* an errno value */
		return pv_raise_rc(rc, "mlx5dv_dr_action_modify_flow_meter",
				   "Modify DrActionFlowMeter failed.");
	Py_RETURN_NONE;
}

static PyMethodDef meter_methods[] = {
	{ "modify", (PyCFunction)(void (*)(void))meter_modify,
	  METH_VARARGS | METH_KEYWORDS,
	  "modify($self, /, attr, modify_field_select)\n--\n\n"
	  "Change the meter (mlx5dv_dr_action_modify_flow_meter) to the "
	  "DrFlowMeterAttr attr, the fields chosen by the bits of "
	  "modify_field_select: 0 active, 1 CBS, 2 CIR, 3 EBS, 4 EIR (a "
	  "64-bit value, passed as given)." },
	{ NULL }
};

PV_GC_TYPE_SPEC(meter, "pyverbs.providers.mlx5.dr_action.DrActionFlowMeter",
		struct pv_dr_action,
		"DrActionFlowMeter(attr)\n--\n\n"
		"Meter the packets as the DrFlowMeterAttr attr says "
		"(mlx5dv_dr_action_create_flow_meter).  Closing attr's table "
		"closes the action first.",
		{ Py_tp_init, meter_init }, { Py_tp_methods, meter_methods },
		PV_CM_SLOTS, );

int pv_mlx5_dr_meter_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &ma_spec, &pv.PyverbsCM, &pv_mlx5.DrFlowMeterAttr },
		{ &meter_spec, &pv_mlx5.DrAction, &pv_mlx5.DrActionFlowMeter },
		{ NULL }
	};

	return pv_add_types(m, types);
}
