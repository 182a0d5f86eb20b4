/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Raising pyverbs exceptions from C (errors.c).
 */
#ifndef PV_ERRORS_H
#define PV_ERRORS_H

#include "base.h"

/*
 * libibverbs has two conventions: functions that return an errno value
 * (ibv_modify_qp, ibv_post_send, ibv_dealloc_pd, ...) and functions that
 * return NULL/-1 and set errno (ibv_alloc_pd, ibv_reg_mr, ibv_open_device
 * ...).  Use pv_raise_rc() for the first and pv_raise_errno() for the second
 * so that every call site is visibly right.  Both raise PyverbsRDMAError
 * with error_code and func set, and return NULL.
 *
 * msg is a printf-style format (PyUnicode_FromFormat).
 */
PyObject *pv_raise_rc(int rc, const char *func, const char *msg, ...);
PyObject *pv_raise_errno(const char *func, const char *msg, ...);
/*
 * The same with error_code = code as is, for the few places where upstream
 * reports no errno (-1) or the library's negative return value.
 */
PyObject *pv_raise_code(int code, const char *func, const char *msg, ...);
/* PyverbsUserError(msg); returns NULL. */
PyObject *pv_raise_user(const char *msg, ...);
/* PyverbsError(msg); returns NULL. */
PyObject *pv_raise_error(const char *msg, ...);
/* "<what> is not supported by this build (rdma-core too old)" */
PyObject *pv_raise_unsupported(const char *what);
/* The same for a call the build's rdma-core headers lack: names the
 * rdma-core version that first has it (EOPNOTSUPP, PyverbsRDMAError). */
PyObject *pv_raise_needs(const char *what, int version);

#endif /* PV_ERRORS_H */
