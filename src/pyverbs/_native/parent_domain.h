/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_PARENT_DOMAIN_H
#define PV_PARENT_DOMAIN_H

#include "object.h"

struct pv_pd;

/*
 * parent_domain.c: the guard of a creation call (ibv_create_cq_ex,
 * ibv_create_qp, ...) on a PD that may be a ParentDomain with Python
 * allocators, which the provider calls from inside the creation.  begin()
 * marks pd and the objects in uses (NULLs skipped) busy and holds them, so
 * that the allocators cannot close what the call is using, and drops an
 * allocator exception left by an unwatched call (reported as unraisable).
 * end() undoes that; with failed (the creation's exception set) it makes
 * the allocator's exception, if any, the __cause__ of the current one;
 * without, it reports it as unraisable.  Both do nothing for a plain PD.
 */
struct pv_alloc_guard {
	struct pv_obj *busy[PV_MAX_PARENTS + 1];
	int n;
	PyObject *pd_context; /* the ParentDomainContext, or NULL */
};
void pv_alloc_guard_begin(struct pv_alloc_guard *g, struct pv_pd *pd,
			  struct pv_obj *const *uses, int n);
void pv_alloc_guard_end(struct pv_alloc_guard *g, int failed);

#endif /* PV_PARENT_DOMAIN_H */
