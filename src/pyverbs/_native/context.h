/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_CONTEXT_H
#define PV_CONTEXT_H

#include "object.h"
#include "state.h"

#include <infiniband/verbs.h>

/*
 * context.c.  A provider subclass (Mlx5Context, ...) calls Context.__init__
 * with attr=...: that finds the device by name and keeps it in 'device'
 * (dev_list stays allocated so that the ibv_device stays referenced) but
 * opens nothing and leaves the object closed.  The subclass then opens
 * 'device' itself, stores the result in 'ctx' and calls pv_obj_opened();
 * close() calls ibv_close_device(ctx) and frees dev_list.
 */
struct pv_context {
	struct pv_obj obj;
	struct ibv_context *ctx;
	PyObject *name;		      /* str */
	int imported;		      /* from cmd_fd (still closed with
				 * ibv_close_device, as its man page says) */
	struct ibv_device **dev_list; /* kept while 'device' is used */
	struct ibv_device *device;    /* the device found by name */
	int adopted;		      /* ctx is a CMID's id->verbs: not ours to
				 * close (the Context is the CMID's child) */
};

/* context.c: the destroy() of a Context (ibv_close_device, then the device
 * list), for a provider subclass that opens its device without the name
 * lookup (Mlx5VfioContext): it calls pv_obj_setup(o, pv_context_destroy). */
int pv_context_destroy(struct pv_obj *o);

/* context.c: ibv_get_device_name(d), checked: NULL with an exception set
 * when it fails. */
const char *pv_device_name(struct ibv_device *d);
PyObject *pv_device_name_str(struct ibv_device *d);

/* The open Context given as argument o (named what), else NULL with
 * TypeError ("<what> must be a Context, not ...") or PyverbsUserError
 * (closed).  Inline: the files that take a Context need not call context.c
 * (which calls some of them). */
static inline struct pv_context *pv_context_arg(PyObject *o, const char *what)
{
	if (!PyObject_TypeCheck(o, pv.Context)) {
		PyErr_Format(PyExc_TypeError,
			     "%s must be a Context, not %.100s", what,
			     Py_TYPE(o)->tp_name);
		return NULL;
	}
	if (pv_check_open(PV_OBJ(o)))
		return NULL;
	return (struct pv_context *)o;
}

#endif /* PV_CONTEXT_H */
