/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_MEMORY_H
#define PV_MEMORY_H

#include "base.h"

/* memory.c */
/*
 * Copy len bytes at address addr of this process into dst without trusting
 * the address: an unmapped or unreadable range raises PyverbsUserError
 * instead of crashing (process_vm_readv on our own pid).  Returns 0 or -1.
 */
int pv_read_mem(void *dst, uint64_t addr, size_t len);
/* The same the other way: src into addr (an unwritable range raises). */
int pv_write_mem(uint64_t addr, const void *src, size_t len);
/*
 * p (page aligned, len a multiple of the page size) is a buffer that
 * pyverbs allocated for an object of its own: mem_alloc.madvise() may
 * advise about its pages.  pv_mem_own returns 0 or -1; pv_mem_disown
 * (before the buffer is freed) sets no exception.
 */
int pv_mem_own(void *p, size_t len);
void pv_mem_disown(void *p);
/* _verbs._mem_alloc (pyverbs.mem_alloc's functions and constants) */
int pv_memory_init(PyObject *m);

#endif /* PV_MEMORY_H */
