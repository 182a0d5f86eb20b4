/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_BUF_H
#define PV_BUF_H

#include "object.h"

struct ibv_buf; /* rdma-core 64 */

/* buf.c: a Buf; parents[0] is the PD that allocated it.  The MRs over it
 * (BufMR, MREx(buf=)) are its children: closing it deregisters them
 * before the memory is freed. */
struct pv_buf {
	struct pv_obj obj;
	struct ibv_buf *buf;
	void *addr;
	size_t size;
};

/* The Buf given as argument o; else NULL with TypeError ("buf must be a
 * Buf, not ..."). */
struct pv_buf *pv_buf_typed(PyObject *o);
/* 0 if b is open; else -1 with PyverbsUserError (closed) or, from a build
 * without ibv_alloc_buf, the error naming rdma-core 64. */
int pv_buf_check_open(struct pv_buf *b);
/*
 * Check that [off, off + *length) lies in the Buf, *length 0 standing for
 * the rest of it (set here); else PyverbsRDMAError(EINVAL), as libibverbs
 * reports a range outside the buffer (func names the call).  0 or -1.
 */
int pv_buf_range(struct pv_buf *b, uint64_t off, size_t *length,
		 const char *func);

#endif /* PV_BUF_H */
