/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_MR_H
#define PV_MR_H

#include "object.h"

#include <infiniband/verbs.h>

/* mr.c; parents[0] is the PD */
struct pv_mr {
	struct pv_obj obj;
	struct ibv_mr *mr;
	void *buf; /* start of the registered memory */
	size_t length;
	void *own_buf;	/* memory pyverbs allocated, or NULL */
	size_t own_len; /* its mapped size */
	int own_mmap;	/* own_buf came from mmap (huge pages) */
	Py_buffer user; /* a caller's buffer we hold, if has_user */
	int has_user;
	int readonly;	    /* user is a read-only buffer (bytes): the MR
				 * has no write access and write() refuses */
	Py_ssize_t exports; /* live memoryviews of our memory */
	int imported;
	/* A subtype whose memory is not at buf (DmaBufMR): the CPU address
	 * of the MR's first byte for read()/write(), or NULL with an
	 * exception set.  NULL: buf is the memory. */
	char *(*mem)(struct pv_mr *self);
};
/* The destroy() of an MR (ibv_dereg_mr, then release its memory); a
 * subtype's destroy calls it first. */
int pv_mr_destroy(struct pv_obj *o);

#endif /* PV_MR_H */
