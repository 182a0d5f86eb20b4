/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * DmaBufMR's object (dmabuf.c), for its provider subclasses (mlx5's
 * Mlx5DmaBufMR registers with mlx5dv_reg_dmabuf_mr instead).
 */
#ifndef PV_DMABUF_H
#define PV_DMABUF_H

#include "mr.h"

/* parents[0] is the PD, parents[1] the DmaBuf (when one was given or
 * allocated: not for a bare fd). */
struct pv_dmabuf_mr {
	struct pv_mr mr;
	PyObject *dmabuf; /* DmaBuf, an int fd, or NULL */
	uint64_t offset;  /* in the dma-buf, also the iova */
	int internal;	  /* we allocated dmabuf */
};

/* The dma-buf fd of the open DmaBuf o (its type checked by the caller);
 * -1 with PyverbsUserError when o is closed. */
int pv_dmabuf_fd(PyObject *o);
/* The mem() of a DmaBufMR: its CPU address through the DmaBuf's mapping
 * (PyverbsUserError when it has only a file descriptor). */
char *pv_dmabuf_mr_mem(struct pv_mr *mr);

#endif /* PV_DMABUF_H */
