/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_DEVICE_ATTR_H
#define PV_DEVICE_ATTR_H

#include "base.h"

#include <infiniband/verbs.h>

/* device_attr.c: plain-data results of the Context queries */
struct pv_device_attr {
	PyObject_HEAD
	struct ibv_device_attr attr;
};
struct pv_device_attr_ex {
	PyObject_HEAD
	struct ibv_device_attr_ex attr;
};
struct pv_port_attr {
	PyObject_HEAD
	struct ibv_port_attr attr;
};
struct pv_gid_entry {
	PyObject_HEAD
	struct ibv_gid_entry entry;
};
struct pv_query_device_ex_input {
	PyObject_HEAD
	struct ibv_query_device_ex_input input;
};
/*
 * An async event.  get_async_event() acks the event as soon as it has
 * copied it (so that no destroy can block on an event Python forgot to
 * ack); ack() is kept for compatibility and does nothing more.  element is
 * the QP/CQ/SRQ object the event is about (None if unknown), or the port
 * number for port events.
 */
struct pv_async_event {
	PyObject_HEAD
	struct ibv_async_event event;
	PyObject *element;
	int from_ctx; /* came from get_async_event() */
};
PyObject *pv_device_attr_new(const struct ibv_device_attr *attr);
PyObject *pv_port_attr_new(const struct ibv_port_attr *attr);
PyObject *pv_gid_entry_new(const struct ibv_gid_entry *entry);
PyObject *pv_device_attr_ex_new(const struct ibv_device_attr_ex *attr);
/* Steals the reference to element (which may be NULL: None). */
PyObject *pv_async_event_new(const struct ibv_async_event *ev,
			     PyObject *element);
/* device_attr.c: does an async event of this type name a port? */
int pv_async_event_is_port(enum ibv_event_type t);

#endif /* PV_DEVICE_ATTR_H */
