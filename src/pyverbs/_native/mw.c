/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Memory windows: MW (ibv_alloc_mw / ibv_dealloc_mw), the bind descriptions
 * MWBindInfo and MWBind, and QP.bind_mw (ibv_bind_mw, type 1 windows).
 * Type 2 windows are bound with a SendWR (opcode IBV_WR_BIND_MW,
 * SendWR.set_bind_wr), see send_wr.c.
 */
#include "mw.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "mr.h"
#include "object.h"
#include "pd.h"
#include "qp.h"
#include "state.h"

#include <errno.h>

/* ---- MW; parents[0] is the PD ---- */

static int mw_destroy(struct pv_obj *o)
{
	struct pv_mw *self = (struct pv_mw *)o;
	int rc;

	if (!self->mw)
		return 0;
	rc = ibv_dealloc_mw(self->mw); /* returns errno */
	if (rc) {
		pv_raise_rc(rc, "ibv_dealloc_mw", "Failed to dealloc MW");
		return -1;
	}
	self->mw = NULL;
	return 0;
}

/*
 * A type 2 window bound through qp (a posted BIND_MW, QPEx.wr_bind_mw) is
 * closed with that QP, as upstream's QPEx does: the window cannot be used
 * without its QP, and rxe keeps the QP alive until the window is
 * deallocated, so that ibv_destroy_qp() of a QP whose window outlives it
 * waits for the kernel's timeout (50 s on Linux 6.1) before giving up.
 * The QP is the window's parent in slot 1 (its last one: a rebind through
 * another QP moves it, only when old is given: *old then gets a reference
 * to the QP it held, to drop once nothing borrowed is in use, since that
 * can free the QP and run Python code).  Best effort: a link that cannot
 * be made changes only the order of the closes.
 */
void pv_mw_bound_via(PyObject *mwo, struct pv_obj *qp, PyObject **old)
{
	struct pv_mw *mw = (struct pv_mw *)mwo;
	struct pv_obj *o = &mw->obj, *prev = pv_obj_parent(o, 1);

	if (o->closed || !mw->mw || mw->mw->type != IBV_MW_TYPE_2 ||
	    qp->closed || prev == qp)
		return;
	if (!prev) {
		if (pv_obj_link(o, qp))
			PyErr_Clear();
		return;
	}
	if (!old)
		return;
	Py_INCREF(prev);
	if (pv_obj_relink(o, 1, qp)) {
		PyErr_Clear();
		Py_DECREF(prev); /* still linked: not the last reference */
		return;
	}
	*old = (PyObject *)prev;
}

static int mw_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd", "mw_type", NULL };
	struct pv_mw *self = (struct pv_mw *)obj;
	PyObject *pdobj;
	uint32_t type;
	struct pv_pd *pd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&:MW", kwlist, &pdobj,
					 pv_conv_u32, &type))
		return -1;
	if (!self->obj.closed || self->obj.nparents) {
		pv_raise_user("MW is already initialised");
		return -1;
	}
	pd = pv_pd_arg(pdobj);
	if (!pd)
		return -1;
	pv_obj_setup(&self->obj, mw_destroy);
	self->mw = ibv_alloc_mw(pd->pd, (enum ibv_mw_type)type);
	if (!self->mw) {
		pv_raise_errno("ibv_alloc_mw", "Failed to allocate MW");
		return -1;
	}
	if (pv_obj_link(&self->obj, &pd->obj)) {
		mw_destroy(&self->obj);
		return -1;
	}
	pv_obj_opened(&self->obj);
	return 0;
}

#define MW_GETTER(name, expr)                                        \
	static PyObject *mw_get_##name(PyObject *obj, void *closure) \
	{                                                            \
		struct pv_mw *self = (struct pv_mw *)obj;            \
		if (pv_check_open(&self->obj))                       \
			return NULL;                                 \
		return PyLong_FromUnsignedLong(expr);                \
	}
MW_GETTER(rkey, self->mw->rkey)
MW_GETTER(handle, self->mw->handle)
MW_GETTER(type, self->mw->type)

static PyObject *mw_get_mw(PyObject *obj, void *closure)
{
	struct pv_mw *self = (struct pv_mw *)obj;

	return PyLong_FromVoidPtr(self->obj.closed ? NULL : self->mw);
}

static PyGetSetDef mw_getset[] = {
	{ "rkey", mw_get_rkey, NULL, "The remote key of the window.", NULL },
	{ "handle", mw_get_handle, NULL, "The kernel handle.", NULL },
	{ "type", mw_get_type, NULL, "IBV_MW_TYPE_1 or IBV_MW_TYPE_2.", NULL },
	{ "mw", mw_get_mw, NULL, "Address of the struct ibv_mw.", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(mw, "pyverbs.mr.MW", struct pv_mw,
		"MW(pd, mw_type)\n--\n\n"
		"A memory window of type IBV_MW_TYPE_1 or _2 on a PD.",
		{ Py_tp_init, mw_init }, { Py_tp_getset, mw_getset },
		PV_CM_SLOTS, );

/* ---- MWBindInfo(mr, addr, length, mw_access_flags) ---- */

static int bi_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "mr", "addr", "length", "mw_access_flags",
				  NULL };
	struct pv_mw_bind_info *self = (struct pv_mw_bind_info *)obj;
	PyObject *mrobj;
	uint64_t addr, length;
	uint32_t access;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&O&:MWBindInfo", kwlist,
					 &mrobj, pv_conv_u64, &addr,
					 pv_conv_u64, &length, pv_conv_u32,
					 &access))
		return -1;
	if (!PyObject_TypeCheck(mrobj, pv.MR)) {
		PyErr_Format(PyExc_TypeError, "mr must be an MR, not %.100s",
			     Py_TYPE(mrobj)->tp_name);
		return -1;
	}
	if (pv_check_open(PV_OBJ(mrobj)))
		return -1;
	Py_INCREF(mrobj);
	Py_XSETREF(self->mr, mrobj);
	self->info.mr = ((struct pv_mr *)mrobj)->mr;
	self->info.addr = addr;
	self->info.length = length;
	self->info.mw_access_flags = access;
	return 0;
}

/* The bind info, checked usable: its MR must still be registered. */
int pv_mw_bind_info_get(PyObject *obj, struct ibv_mw_bind_info *out)
{
	struct pv_mw_bind_info *self = (struct pv_mw_bind_info *)obj;

	if (!PyObject_TypeCheck(obj, pv.MWBindInfo)) {
		PyErr_Format(PyExc_TypeError,
			     "bind_info must be an MWBindInfo, not %.100s",
			     Py_TYPE(obj)->tp_name);
		return -1;
	}
	if (!self->mr) {
		pv_raise_user("MWBindInfo is closed or was not initialised");
		return -1;
	}
	if (pv_check_open(PV_OBJ(self->mr)))
		return -1;
	*out = self->info;
	return 0;
}

/*
 * close(), with: upstream's MWBindInfo and MWBind are context managers
 * with a close() that frees nothing.  Here close() lets go of what the
 * object holds (the MWBindInfo its MR, the MWBind its MWBindInfo), after
 * which a bind refuses it; closing again does nothing.
 */
static PyObject *bi_close(PyObject *obj, PyObject *unused)
{
	struct pv_mw_bind_info *self = (struct pv_mw_bind_info *)obj;

	self->info.mr = NULL;
	Py_CLEAR(self->mr);
	Py_RETURN_NONE;
}

static PyObject *bind_close(PyObject *obj, PyObject *unused)
{
	Py_CLEAR(((struct pv_mw_bind *)obj)->info);
	Py_RETURN_NONE;
}

static PyObject *mwb_enter(PyObject *obj, PyObject *unused)
{
	return Py_NewRef(obj);
}

/* __exit__: close() of the type, whatever the exception */
static PyObject *mwb_exit(PyObject *obj, PyObject *args)
{
	return PyObject_TypeCheck(obj, pv.MWBind) ? bind_close(obj, NULL) :
						    bi_close(obj, NULL);
}

#define MWB_CLOSE_DOC(what)                                    \
	"close($self, /)\n--\n\nLet go of the " what " held: " \
	"a bind refuses the object from then on."
#define MWB_ENTER_EXIT                                        \
	{ "__enter__", mwb_enter, METH_NOARGS,                \
	  "__enter__($self, /)\n--\n\nReturns the object." }, \
		{ "__exit__", mwb_exit, METH_VARARGS,         \
		  "__exit__($self, /, *exc_info)\n--\n\nclose()." }

static PyMethodDef bi_methods[] = {
	{ "close", bi_close, METH_NOARGS, MWB_CLOSE_DOC("MR") },
	MWB_ENTER_EXIT,
	{ NULL },
};

static PyMethodDef bind_methods[] = {
	{ "close", bind_close, METH_NOARGS, MWB_CLOSE_DOC("MWBindInfo") },
	MWB_ENTER_EXIT,
	{ NULL },
};

static const struct pv_field bi_fields[] = {
	PV_FIELD_RO(struct pv_mw_bind_info, info.addr, "addr"),
	PV_FIELD_RO(struct pv_mw_bind_info, info.length, "length"),
	PV_FIELD_RO(struct pv_mw_bind_info, info.mw_access_flags,
		    "mw_access_flags"),
	PV_FIELD_END
};

static const struct pv_oslot bi_oslots[] = {
	PV_OSLOT_RO(struct pv_mw_bind_info, mr, "mr",
		    "The MR the window is bound to."),
	PV_OSLOT_END
};

PV_OSLOTS_GC(bi, bi_oslots)

PV_GC_TYPE_SPEC(bi, "pyverbs.mr.MWBindInfo", struct pv_mw_bind_info,
		"MWBindInfo(mr, addr, length, mw_access_flags)\n--\n\n"
		"The part of an MR a memory window gives access to.",
		{ Py_tp_init, bi_init }, { Py_tp_methods, bi_methods },
		PV_OSLOTS_GC_SLOTS(bi), { Py_tp_getset, NULL },
		/* filled from bi_fields */);

/* ---- MWBind(info, send_flags, wr_id=0) ---- */

static int bind_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "info", "send_flags", "wr_id", NULL };
	struct pv_mw_bind *self = (struct pv_mw_bind *)obj;
	PyObject *info;
	uint32_t flags;
	uint64_t wr_id = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&|O&:MWBind", kwlist,
					 &info, pv_conv_u32, &flags,
					 pv_conv_u64, &wr_id))
		return -1;
	if (pv_mw_bind_info_get(info, &self->bind.bind_info))
		return -1;
	Py_INCREF(info);
	Py_XSETREF(self->info, info);
	self->bind.send_flags = flags;
	self->bind.wr_id = wr_id;
	return 0;
}

static const struct pv_field bind_fields[] = {
	PV_FIELD(struct pv_mw_bind, bind.wr_id, "wr_id"),
	PV_FIELD(struct pv_mw_bind, bind.send_flags, "send_flags"), PV_FIELD_END
};

/* The MWBindInfo is held, not shown (upstream has no such attribute). */
static const struct pv_oslot bind_oslots[] = { { PV_OSLOT_AT(struct pv_mw_bind,
							     info, "info"),
						 .flags = PV_OSLOT_HIDDEN },
					       PV_OSLOT_END };

PV_OSLOTS_GC(bind, bind_oslots)

PV_GC_TYPE_SPEC(bind, "pyverbs.mr.MWBind", struct pv_mw_bind,
		"MWBind(info, send_flags, wr_id=0)\n--\n\n"
		"A type 1 window bind request for QP.bind_mw().",
		{ Py_tp_init, bind_init }, { Py_tp_methods, bind_methods },
		PV_OSLOTS_GC_SLOTS(bind), { Py_tp_getset, NULL },
		/* filled from bind_fields */);

/* _verbs._qp_bind_mw(qp, mw, mw_bind): QP.bind_mw() (see mr.py). */
static PyObject *qp_bind_mw(PyObject *m, PyObject *const *args,
			    Py_ssize_t nargs)
{
	struct pv_mw_bind *bind;
	struct ibv_mw_bind b;
	struct pv_qp *qp;
	struct pv_mw *mw;
	int rc;

	if (nargs != 3)
		return PyErr_Format(PyExc_TypeError,
				    "bind_mw() takes (mw, mw_bind)");
	if (!PyObject_TypeCheck(args[0], pv.QP) ||
	    !PyObject_TypeCheck(args[1], pv.MW) ||
	    !PyObject_TypeCheck(args[2], pv.MWBind))
		return PyErr_Format(PyExc_TypeError,
				    "bind_mw() takes an MW and an MWBind");
	qp = (struct pv_qp *)args[0];
	mw = (struct pv_mw *)args[1];
	bind = (struct pv_mw_bind *)args[2];
	if (pv_check_open(&qp->obj) || pv_check_open(&mw->obj))
		return NULL;
	if (!bind->info)
		return pv_raise_user("MWBind is closed or was not initialised");
	b = bind->bind;
	/* re-read: the MR may have been closed since the MWBind was made */
	if (pv_mw_bind_info_get(bind->info, &b.bind_info))
		return NULL;
	rc = ibv_bind_mw(qp->qp, mw->mw, &b); /* returns errno */
	if (rc)
		return pv_raise_rc(rc, "ibv_bind_mw", "Failed to bind MW");
	Py_RETURN_NONE;
}

static PyMethodDef mw_module_methods[] = {
	{ "_qp_bind_mw", (PyCFunction)(void (*)(void))qp_bind_mw, METH_FASTCALL,
	  "_qp_bind_mw(qp, mw, mw_bind)\n--\n\n"
	  "ibv_bind_mw(): bind a type 1 memory window." },
	{ NULL }
};

int pv_mw_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &mw_spec, &pv.PyverbsCM, &pv.MW },
		{ &bi_spec, &pv.PyverbsObject, &pv.MWBindInfo, bi_fields,
		  bi_oslots },
		{ &bind_spec, &pv.PyverbsObject, &pv.MWBind, bind_fields,
		  bind_oslots },
		{ NULL }
	};

	if (PyModule_AddFunctions(m, mw_module_methods))
		return -1;
	return pv_add_types(m, types);
}
