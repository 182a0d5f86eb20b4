/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Registration of the EFA direct-verbs types into pyverbs._verbs; the
 * Python module pyverbs.providers.efa.efadv imports them from there.
 */
#include "efa.h"
#include "init.h"

int pv_efa_init_types(PyObject *m)
{
	if (PyModule_AddIntConstant(m, "_HAVE_EFA", 1))
		return -1;
	if (pv_efa_attr_init_types(m) || pv_efadv_init_types(m))
		return -1;
	return 0;
}
