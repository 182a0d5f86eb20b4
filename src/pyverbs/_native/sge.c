/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * SGE (struct ibv_sge): a scatter/gather element, which the WRs copy in
 * when they are built.  Its constructor is a vectorcall one, as wr.c
 * explains; registered with wr.c's pv_wr_add_type().  Also the sg_list
 * attribute of the WRs, which makes SGE objects.
 */
#include "wr.h" /* first: Python.h sets _GNU_SOURCE */
#include "wr_impl.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "memory.h"
#include "state.h"

PV_ARGS_SIG(sge_sig, "SGE", 3, 3, "addr", "length", "lkey");
PV_ARGS_SIG(sge_read_sig, "read", 2, 2, "length", "offset");

static PyObject *sge_alloc(PyTypeObject *tp)
{
	PyObject *o;

	if (tp != pv.SGE)
		return tp->tp_alloc(tp, 0);
	o = PyObject_Malloc(sizeof(struct pv_sge));
	if (!o)
		return PyErr_NoMemory();
	return PyObject_Init(o, tp); /* takes a reference to tp */
}

static PyObject *sge_new(const struct ibv_sge *sge)
{
	PyObject *o = sge_alloc(pv.SGE);

	if (o)
		((struct pv_sge *)o)->sge = *sge;
	return o;
}

/* The sg_list attribute of a RecvWR, SendWR or OpsWr (wr_impl.h): a new
 * SGE object for each SGE of the WR. */
PyObject *pv_wr_get_sg(PyObject *obj, void *closure)
{
	const struct pv_wr_kind *k = closure;
	const struct ibv_sge *sg = *PV_WR_AT(obj, k->sg_list, struct ibv_sge *);
	int i, n = *PV_WR_AT(obj, k->num_sge, int);
	PyObject *l = PyList_New(n);

	if (!l)
		return NULL;
	for (i = 0; i < n; i++) {
		PyObject *s = sge_new(&sg[i]);

		if (!s) {
			Py_DECREF(l);
			return NULL;
		}
		PyList_SET_ITEM(l, i, s);
	}
	return l;
}

static int sge_fill(struct pv_sge *self, PyObject **v)
{
	struct ibv_sge sge = { 0 };
	uint64_t addr = 0;

	if (pv_args_u64(v[0], UINT64_MAX, &addr, "addr") ||
	    pv_args_u32(v[1], &sge.length, "length") ||
	    pv_args_u32(v[2], &sge.lkey, "lkey"))
		return -1;
	sge.addr = addr;
	self->sge = sge;
	return 0;
}

static PyObject *sge_vectorcall(PyObject *type, PyObject *const *args,
				size_t nargsf, PyObject *kwnames)
{
	Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
	PyObject *v[3];
	PyObject *self;

	if (!kwnames && nargs == 3) {
		v[0] = args[0];
		v[1] = args[1];
		v[2] = args[2];
	} else if (pv_args_parse_vc(&sge_sig, args, nargs, kwnames, v)) {
		return NULL;
	}
	self = sge_alloc((PyTypeObject *)type);
	if (!self)
		return NULL;
	if (sge_fill((struct pv_sge *)self, v)) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

static PyObject *sge_tp_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
	return sge_alloc(tp);
}

static int sge_init(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *v[3];

	if (pv_args_parse_tuple(&sge_sig, args, kw, v))
		return -1;
	return sge_fill((struct pv_sge *)self, v);
}

static void sge_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);

	tp->tp_free(self);
	Py_DECREF(tp);
}

static PyObject *sge_read(PyObject *obj, PyObject *const *args,
			  Py_ssize_t nargs, PyObject *kwnames)
{
	struct pv_sge *self = (struct pv_sge *)obj;
	PyObject *v[2], *out;
	int64_t length, offset;

	if (pv_args_parse_vc(&sge_read_sig, args, nargs, kwnames, v) ||
	    pv_to_i64(v[0], INT64_MIN, INT64_MAX, &length, "length") ||
	    pv_to_i64(v[1], INT64_MIN, INT64_MAX, &offset, "offset"))
		return NULL;
	if (length < 0 || offset < 0 || offset > self->sge.length ||
	    length > self->sge.length - offset)
		return pv_raise_user("Cannot read %lld bytes at offset %lld "
				     "of an SGE of %u bytes",
				     (long long)length, (long long)offset,
				     self->sge.length);
	out = PyBytes_FromStringAndSize(NULL, length);
	if (!out)
		return NULL;
	if (pv_read_mem(PyBytes_AS_STRING(out), self->sge.addr + offset,
			length)) {
		Py_DECREF(out);
		return NULL;
	}
	return out;
}

static PyMethodDef sge_methods[] = {
	{ "read", (PyCFunction)(void (*)(void))sge_read,
	  METH_FASTCALL | METH_KEYWORDS,
	  "read($self, length, offset)\n--\n\n"
	  "Return length bytes from offset bytes past addr.  The range must "
	  "lie\nwithin the SGE's length; an unreadable address raises "
	  "PyverbsUserError." },
	PV_WR_CM_METHODS,
	{ NULL }
};

static const struct pv_field sge_fields[] = {
	PV_FIELD(struct pv_sge, sge.addr, "addr"),
	PV_FIELD(struct pv_sge, sge.length, "length"),
	PV_FIELD(struct pv_sge, sge.lkey, "lkey"), PV_FIELD_END
};

PV_DATA_SPEC(sge, "pyverbs.wr.SGE", struct pv_sge,
	     "SGE(addr, length, lkey)\n--\n\n"
	     "A scatter/gather element (struct ibv_sge): length bytes "
	     "at addr, in the\nmemory region whose local key is "
	     "lkey.",
	     { Py_tp_new, sge_tp_new }, { Py_tp_init, sge_init },
	     { Py_tp_dealloc, sge_dealloc }, { Py_tp_methods, sge_methods }, );

static struct pv_args_sig *const sge_sigs[] = { &sge_sig, &sge_read_sig, NULL };

static const struct pv_wr_type sge_type = {
	.spec = &sge_spec,
	.fields = sge_fields,
	.slot = &pv.SGE,
	.vc = sge_vectorcall,
	.sigs = sge_sigs,
};

int pv_sge_init_types(PyObject *m)
{
	return pv_wr_add_type(m, &sge_type);
}
