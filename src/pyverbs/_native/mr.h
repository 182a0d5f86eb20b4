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

/*
 * For the subtypes that register their own way (MREx, BufMR), after
 * pv_obj_setup(o, pv_mr_destroy):
 *   - pv_mr_user_memory(): take the memory of MR(..., address=): an int
 *     (a raw address) or a contiguous buffer object, held until the MR is
 *     closed; *length 0 becomes the buffer's length;
 *   - pv_mr_alloc(): allocate length bytes (zeroed; huge pages if huge);
 *   - pv_mr_failed(): a registration failed: release what was taken;
 *   - pv_mr_opened(): the MR is registered: link it to its PD and to the
 *     other parents given (p1, p2 may be NULL) and open it; if that fails
 *     deregister it and release its memory.
 * Each returns 0, or -1 with an exception set.
 */
int pv_mr_user_memory(struct pv_mr *self, PyObject *address,
		      unsigned int access, size_t *length);
int pv_mr_alloc(struct pv_mr *self, size_t length, int huge);
void pv_mr_failed(struct pv_mr *self);
int pv_mr_opened(struct pv_mr *self, struct pv_obj *pd, struct pv_obj *p1,
		 struct pv_obj *p2);

#endif /* PV_MR_H */
