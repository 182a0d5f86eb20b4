/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/* Placeholder: filled in by its owner. */
#include "pyverbs.h"

int pv_addr_init_types(PyObject *m)
{
	return 0;
}

PyObject *pv_gid_new(const union ibv_gid *gid)
{
	return pv_raise_user("GID is not implemented yet");
}

PyObject *pv_ah_attr_new(const struct ibv_ah_attr *attr)
{
	return pv_raise_user("AHAttr is not implemented yet");
}
