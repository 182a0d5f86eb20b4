/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Work requests: SGE (struct ibv_sge), RecvWR (struct ibv_recv_wr),
 * SendWR (struct ibv_send_wr) and the tag-matching OpsWr (struct
 * ibv_ops_wr, which pyverbs.srq exports).  This file holds what they share
 * (the scatter/gather storage, the members the WRs have in common, the
 * registration of their types; their argument parser is args.c's); the types themselves are in
 * sge.c, recv_wr.c (RecvWR, OpsWr) and send_wr.c, and wr_impl.h declares
 * what crosses between the files.
 *
 * These objects are built on the data path, once or more per message, so
 * their constructors skip the generic machinery: the exact types get a
 * vectorcall constructor (type->tp_vectorcall, set after the type is made:
 * CPython 3.11 has no slot for it) that parses arguments with interned
 * keyword names and converts small ints without raising; subclasses go
 * through tp_new/tp_init as usual, with the same parser.
 *
 * A WR embeds its C struct.  Its SGEs are copied in when it is built (as
 * upstream does), into storage inside the object for up to
 * PV_WR_INLINE_SGES of them, else into a PyMem block.  wr.next always
 * points at the struct of the next_wr object, which the WR holds, so that a
 * chain is valid C memory for ibv_post_send() as long as its head is alive;
 * cycles are refused.  num_sge can be lowered but never raised above the
 * number of SGEs stored.  RecvWR, SendWR and OpsWr share one implementation
 * of these members, driven by a struct pv_wr_kind per type.
 */
#include "wr.h" /* first: Python.h sets _GNU_SOURCE */
#include "wr_impl.h"
#include "errors.h"
#include "field.h"
#include "state.h"

/* ------------------------------------------------------------------ */
/* Scatter/gather storage shared by the WR kinds                       */
/* ------------------------------------------------------------------ */

/*
 * The SGEs to copy in: sg is None (or absent), an SGE, or a list/tuple of
 * SGEs.  *num_sge is -1 when not given: then it is the length of sg.
 * Checks the first *num_sge items.  Sets *items and *none; one is room for a
 * lone SGE.  The items are borrowed from sg: copy them before any Python
 * code can run (an __index__ could change the list).  Returns 0 or -1.
 */
int pv_wr_sg_collect(const char *fname, PyObject *sg, int *num_sge,
		     PyObject *const **items, int *none, PyObject **one)
{
	Py_ssize_t n, i;

	*none = !sg || sg == Py_None;
	if (*none) {
		/* the caller decides: no SGE at all may be fine */
		*items = NULL;
		if (*num_sge < 0)
			*num_sge = 0;
		return 0;
	}
	if (pv_wr_is_sge(sg)) {
		/* a single SGE stands for [sge] */
		one[0] = sg;
		*items = one;
		n = 1;
	} else if (PyList_Check(sg) || PyTuple_Check(sg)) {
		*items = PySequence_Fast_ITEMS(sg);
		n = PySequence_Fast_GET_SIZE(sg);
	} else {
		PyErr_Format(PyExc_TypeError,
			     "%s(): sg must be a list of SGE objects, not "
			     "%.100s",
			     fname, Py_TYPE(sg)->tp_name);
		return -1;
	}
	if (*num_sge < 0) {
		if (n > INT_MAX) {
			PyErr_Format(PyExc_OverflowError, "%s(): too many SGEs",
				     fname);
			return -1;
		}
		*num_sge = (int)n;
	}
	if (*num_sge > n) {
		PyErr_Format(PyExc_IndexError,
			     "%s(): num_sge is %d but sg has only %zd SGEs",
			     fname, *num_sge, n);
		return -1;
	}
	for (i = 0; i < *num_sge; i++)
		if (!pv_wr_is_sge((*items)[i])) {
			PyErr_Format(PyExc_TypeError,
				     "%s(): sg[%zd] must be an SGE, not %.100s",
				     fname, i, Py_TYPE((*items)[i])->tp_name);
			return -1;
		}
	return 0;
}

/*
 * Replace the SGE storage *list (inline buffer inl, or a PyMem block) with
 * copies of items[0..n).  Nothing changes on failure.  Returns 0 or -1.
 */
int pv_wr_sg_store(struct ibv_sge **list, struct ibv_sge *inl,
		   PyObject *const *items, int n)
{
	struct ibv_sge *dst = inl;
	int i;

	if (n > PV_WR_INLINE_SGES) {
		dst = PyMem_Malloc((size_t)n * sizeof(*dst));
		if (!dst) {
			PyErr_NoMemory();
			return -1;
		}
	}
	if (*list && *list != inl)
		PyMem_Free(*list);
	for (i = 0; i < n; i++)
		dst[i] = ((struct pv_sge *)items[i])->sge;
	*list = dst;
	return 0;
}

/* pv_wr_sg_store() from a C array (src must not be *list's storage). */
static int sg_store_raw(struct ibv_sge **list, struct ibv_sge *inl,
			const struct ibv_sge *src, int n)
{
	struct ibv_sge *dst = inl;

	if (n > PV_WR_INLINE_SGES) {
		dst = PyMem_Malloc((size_t)n * sizeof(*dst));
		if (!dst) {
			PyErr_NoMemory();
			return -1;
		}
	}
	if (n)
		memmove(dst, src, (size_t)n * sizeof(*dst));
	if (*list && *list != inl && *list != dst)
		PyMem_Free(*list);
	*list = dst;
	return 0;
}

static void sg_free(struct ibv_sge **list, struct ibv_sge *inl)
{
	if (*list && *list != inl)
		PyMem_Free(*list);
	*list = NULL;
}

/* ------------------------------------------------------------------ */
/* What RecvWR, SendWR and OpsWr share                                 */
/* ------------------------------------------------------------------ */

/* next may follow self: a WR of the same kind, and no cycle. */
int pv_wr_check_next(PyObject *self, const struct pv_wr_kind *k, PyObject *next)
{
	PyObject *p;

	if (!PyObject_TypeCheck(next, *k->type)) {
		PyErr_Format(PyExc_TypeError,
			     "next_wr must be a %s or None, not %.100s",
			     k->name, Py_TYPE(next)->tp_name);
		return -1;
	}
	for (p = next; p; p = *PV_WR_AT(p, k->next_wr, PyObject *))
		if (p == self) {
			pv_raise_user("next_wr would make a cycle of WRs");
			return -1;
		}
	return 0;
}

/* The getters and setters get their kind as the closure. */
PyObject *pv_wr_get_next(PyObject *obj, void *closure)
{
	const struct pv_wr_kind *k = closure;
	PyObject *n = *PV_WR_AT(obj, k->next_wr, PyObject *);

	return Py_NewRef(n ? n : Py_None);
}

int pv_wr_set_next(PyObject *obj, PyObject *val, void *closure)
{
	if (val == Py_None)
		val = NULL; /* as deleting: the end of the list */
	if (val && pv_wr_check_next(obj, closure, val))
		return -1;
	pv_wr_link(obj, closure, val);
	return 0;
}

PyObject *pv_wr_get_num_sge(PyObject *obj, void *closure)
{
	const struct pv_wr_kind *k = closure;

	return PyLong_FromLong(*PV_WR_AT(obj, k->num_sge, int));
}

int pv_wr_set_num_sge(PyObject *obj, PyObject *val, void *closure)
{
	const struct pv_wr_kind *k = closure;
	int cap = *PV_WR_AT(obj, k->sg_cap, int);
	int64_t x;

	if (!val) {
		PyErr_SetString(PyExc_AttributeError, "cannot delete num_sge");
		return -1;
	}
	if (pv_to_i64(val, 0, INT_MAX, &x, "num_sge"))
		return -1;
	if (x > cap) {
		pv_raise_user("%s holds %d SGEs: num_sge cannot be %lld (set "
			      "sg_list to store more)",
			      k->name, cap, (long long)x);
		return -1;
	}
	*PV_WR_AT(obj, k->num_sge, int) = (int)x;
	return 0;
}

/* An SGE or a list of them; num_sge becomes their number. */
int pv_wr_set_sg(PyObject *obj, PyObject *val, void *closure)
{
	const struct pv_wr_kind *k = closure;
	PyObject *const *items, *one[1];
	int none, n = -1;

	if (!val || val == Py_None) {
		PyErr_Format(PyExc_TypeError,
			     "%s.sg_list must be an SGE or a list of SGEs",
			     k->name);
		return -1;
	}
	if (pv_wr_sg_collect(k->name, val, &n, &items, &none, one) ||
	    pv_wr_sg_store(PV_WR_AT(obj, k->sg_list, struct ibv_sge *),
			   PV_WR_AT(obj, k->sge_inline, struct ibv_sge), items,
			   n))
		return -1;
	*PV_WR_AT(obj, k->num_sge, int) = n;
	*PV_WR_AT(obj, k->sg_cap, int) = n;
	return 0;
}

/*
 * Make dst's WR a copy of src's (upstream's bad_wr): every field and the
 * SGEs, into dst's own storage (sg_cap updated); dst keeps its own wr.next
 * and next_wr.  Returns 0 or -1 (MemoryError), dst unchanged then.
 */
int pv_wr_copy(PyObject *dst, PyObject *src, const struct pv_wr_kind *k)
{
	struct ibv_sge *sg = *PV_WR_AT(dst, k->sg_list, struct ibv_sge *);
	void *next = *PV_WR_AT(dst, k->next, void *);
	int n = *PV_WR_AT(src, k->num_sge, int);

	if (dst == src)
		return 0;
	if (sg_store_raw(&sg, PV_WR_AT(dst, k->sge_inline, struct ibv_sge),
			 *PV_WR_AT(src, k->sg_list, struct ibv_sge *), n))
		return -1;
	memcpy(PV_WR_AT(dst, k->wr, char), PV_WR_AT(src, k->wr, char),
	       k->wr_size);
	*PV_WR_AT(dst, k->sg_list, struct ibv_sge *) = sg;
	*PV_WR_AT(dst, k->next, void *) = next;
	*PV_WR_AT(dst, k->sg_cap, int) = n;
	return 0;
}

/* tp_dealloc of the kinds; dealloc is the type's own, for the trashcan. */
void pv_wr_dealloc(PyObject *self, const struct pv_wr_kind *k,
		   destructor dealloc)
{
	PyTypeObject *tp = Py_TYPE(self);

	PyObject_GC_UnTrack(self);
	/* a long chain would otherwise recurse once per WR */
	Py_TRASHCAN_BEGIN(self, dealloc) k->clear(self);
	sg_free(PV_WR_AT(self, k->sg_list, struct ibv_sge *),
		PV_WR_AT(self, k->sge_inline, struct ibv_sge));
	tp->tp_free(self);
	Py_DECREF(tp);
	Py_TRASHCAN_END
}

/* The methods of PV_WR_CM_METHODS. */
PyObject *pv_wr_close(PyObject *self, PyObject *unused)
{
	Py_RETURN_NONE;
}

PyObject *pv_wr_enter(PyObject *self, PyObject *unused)
{
	return Py_NewRef(self);
}

PyObject *pv_wr_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
	Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */
/* Types registration                                                  */
/* ------------------------------------------------------------------ */

/* wr_impl.h */
int pv_wr_add_type(PyObject *m, const struct pv_wr_type *t)
{
	struct pv_args_sig *const *sig;

	for (sig = t->sigs; *sig; sig++)
		if (pv_args_intern(*sig))
			return -1;
	if (pv_add_data_type(m, t->spec, pv.PyverbsObject, t->fields, NULL,
			     t->extra, t->slot))
		return -1;
	/*
	 * The constructor of the exact type (subclasses do not inherit
	 * tp_vectorcall and go through tp_new/tp_init).
	 */
	(*t->slot)->tp_vectorcall = t->vc;
	return 0;
}
