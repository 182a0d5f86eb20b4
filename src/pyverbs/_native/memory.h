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
/* _verbs._mem_alloc (pyverbs.mem_alloc's functions and constants) */
int pv_memory_init(PyObject *m);

#endif /* PV_MEMORY_H */
