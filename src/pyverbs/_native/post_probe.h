/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
#ifndef PV_POST_PROBE_H
#define PV_POST_PROBE_H

#include "base.h"

/*
 * Whether releasing the GIL around a post pays.  A release and re-acquire
 * costs about 500 instructions (a fraction of a microsecond) and lets
 * another thread run only while the post lasts.  Hardware providers post
 * by writing a doorbell register: tens of nanoseconds, not worth it.
 * Software providers (rxe, siw) ring their send doorbell with a write()
 * system call that runs the kernel's requester: microseconds.  So a queue
 * times its first PV_POST_PROBES successful posts (CLOCK_MONOTONIC) and,
 * when even the fastest took PV_POST_SLOW_NS or more, posts its plain WRs
 * (no AH, no bind, no inline data) from then on with the GIL released,
 * whenever another Python thread exists to use the time.  Posting then
 * works on a private copy of the WRs, so that the WR objects may change
 * meanwhile, and counts itself in the queue's posting, which close()
 * waits for (struct pv_obj).
 */
#define PV_POST_PROBES 8
#define PV_POST_SLOW_NS 1000
struct pv_post_probe {
	uint32_t min_ns; /* fastest post timed */
	uint8_t timed;	 /* posts timed, up to PV_POST_PROBES */
	uint8_t slow;	 /* post without the GIL */
};

#endif /* PV_POST_PROBE_H */
