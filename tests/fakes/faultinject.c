/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * faultinject: an LD_PRELOAD library (tests only) standing between pyverbs
 * and libibverbs/librdmacm.  It wraps every exported ibv_* and rdma_* entry
 * point the extension imports, counts the calls made from pyverbs' own
 * shared objects, and makes one chosen call fail the way its man page says
 * that function reports failure:
 *
 *   PTR   NULL, errno set            (ibv_alloc_pd, ibv_create_qp, ...)
 *   RC    returns the errno value    (ibv_destroy_qp, ibv_modify_qp, ...)
 *   M1    -1, errno set              (ibv_query_gid, every int rdma_* call)
 *   REREG IBV_REREG_MR_ERR_INPUT, errno set (ibv_rereg_mr)
 *   PASS  cannot fail: only counted  (void calls, ibv_get_device_guid,
 *         ibv_get_device_index, whose -1 is a value: no index)
 *
 * Calls that libibverbs or librdmacm make to each other (librdmacm opens
 * every device, rdma_create_qp calls ibv_create_qp) are not counted and
 * never failed: only calls whose return address lies in a shared object
 * whose path contains $FAULT_CALLER (default "pyverbs") are.
 *
 * Configuration, from the environment at load time or at run time through
 * fi_arm() (ctypes):
 *   FAULT_FUNC   the function whose calls are counted, or "*" for all
 *   FAULT_NTH    fail the Nth counted call (1-based; 0: count only)
 *   FAULT_ERRNO  the errno of the failure, a number or a name (ENOMEM,
 *                EINVAL, EAGAIN, ...); default ENOMEM
 * Armed through fi_arm(), only the arming thread's calls count: a helper
 * thread (the peer of a connection) is never failed.
 *
 * Calls that the headers define as static inline functions reaching the
 * provider through the context's ops (ibv_post_send, ibv_poll_cq,
 * ibv_create_cq_ex, ibv_alloc_mw, ibv_open_xrcd, ibv_wr_*, ...) never pass
 * through a dynamic symbol and cannot be interposed here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* the types of the calls newer than the headers this may be built with
 * (rdma-core 59 to 65): pointers only, so incomplete is enough */
struct ibv_mr_init_attr;
struct ibv_dmah;
struct ibv_dmah_init_attr;
struct ibv_buf;
struct ibv_comp_cntr;
struct ibv_comp_cntr_init_attr;
struct ibv_comp_cntr_caps;
struct ibv_qp_attach_comp_cntr_attr;

/*
 * Entry points newer than rdma-core 44 (62) that a build against newer
 * headers imports: declared here for the wrappers, as the headers that
 * have them declare them (a compatible redeclaration there).  Wrapping one
 * that the libraries lack is harmless: its real symbol is looked up at the
 * first call, which a build that does not import it never makes.
 */
int ibv_query_port_speed(struct ibv_context *context, uint32_t port_num,
			 uint64_t *port_speed);
int ibv_dm_export_dmabuf_fd(struct ibv_dm *dm);

/* kind, return type, name, symbol version, parameters, arguments */
#define FI_FUNCS(X)							\
	X(PASS, void, ibv_ack_async_event, "IBVERBS_1.1",		\
	  (struct ibv_async_event *a), (a))				\
	X(PASS, void, ibv_ack_cq_events, "IBVERBS_1.1",			\
	  (struct ibv_cq *a, unsigned int b), (a, b))			\
	X(PTR, struct ibv_pd *, ibv_alloc_pd, "IBVERBS_1.1",		\
	  (struct ibv_context *a), (a))					\
	X(M1, int, ibv_close_device, "IBVERBS_1.1",			\
	  (struct ibv_context *a), (a))					\
	X(PTR, struct ibv_ah *, ibv_create_ah, "IBVERBS_1.1",		\
	  (struct ibv_pd *a, struct ibv_ah_attr *b), (a, b))		\
	X(PTR, struct ibv_ah *, ibv_create_ah_from_wc, "IBVERBS_1.1",	\
	  (struct ibv_pd *a, struct ibv_wc *b, struct ibv_grh *c,	\
	   uint8_t d), (a, b, c, d))					\
	X(PTR, struct ibv_comp_channel *, ibv_create_comp_channel,	\
	  "IBVERBS_1.0", (struct ibv_context *a), (a))			\
	X(PTR, struct ibv_cq *, ibv_create_cq, "IBVERBS_1.1",		\
	  (struct ibv_context *a, int b, void *c,			\
	   struct ibv_comp_channel *d, int e), (a, b, c, d, e))		\
	X(PTR, struct ibv_qp *, ibv_create_qp, "IBVERBS_1.1",		\
	  (struct ibv_pd *a, struct ibv_qp_init_attr *b), (a, b))	\
	X(PTR, struct ibv_srq *, ibv_create_srq, "IBVERBS_1.1",		\
	  (struct ibv_pd *a, struct ibv_srq_init_attr *b), (a, b))	\
	X(RC, int, ibv_dealloc_pd, "IBVERBS_1.1", (struct ibv_pd *a), (a)) \
	X(RC, int, ibv_dereg_mr, "IBVERBS_1.1", (struct ibv_mr *a), (a)) \
	X(RC, int, ibv_destroy_ah, "IBVERBS_1.1", (struct ibv_ah *a), (a)) \
	X(RC, int, ibv_destroy_comp_channel, "IBVERBS_1.0",		\
	  (struct ibv_comp_channel *a), (a))				\
	X(RC, int, ibv_destroy_cq, "IBVERBS_1.1", (struct ibv_cq *a), (a)) \
	X(RC, int, ibv_destroy_qp, "IBVERBS_1.1", (struct ibv_qp *a), (a)) \
	X(RC, int, ibv_attach_mcast, "IBVERBS_1.1",			\
	  (struct ibv_qp *a, const union ibv_gid *b, uint16_t c), (a, b, c)) \
	X(RC, int, ibv_detach_mcast, "IBVERBS_1.1",			\
	  (struct ibv_qp *a, const union ibv_gid *b, uint16_t c), (a, b, c)) \
	X(RC, int, ibv_destroy_srq, "IBVERBS_1.1", (struct ibv_srq *a), (a)) \
	X(M1, int, ibv_dm_export_dmabuf_fd, "IBVERBS_1.16",		\
	  (struct ibv_dm *a), (a))					\
	X(RC, int, ibv_fork_init, "IBVERBS_1.1", (void), ())		\
	X(PASS, void, ibv_free_device_list, "IBVERBS_1.1",		\
	  (struct ibv_device **a), (a))					\
	X(M1, int, ibv_get_async_event, "IBVERBS_1.1",			\
	  (struct ibv_context *a, struct ibv_async_event *b), (a, b))	\
	X(M1, int, ibv_get_cq_event, "IBVERBS_1.1",			\
	  (struct ibv_comp_channel *a, struct ibv_cq **b, void **c),	\
	  (a, b, c))							\
	X(PASS, __be64, ibv_get_device_guid, "IBVERBS_1.1",		\
	  (struct ibv_device *a), (a))					\
	/* -1 means "the kernel has no device indexes": a value, no error */ \
	X(PASS, int, ibv_get_device_index, "IBVERBS_1.9",			\
	  (struct ibv_device *a), (a))					\
	X(PTR, struct ibv_device **, ibv_get_device_list, "IBVERBS_1.1",	\
	  (int *a), (a))						\
	X(PTR, const char *, ibv_get_device_name, "IBVERBS_1.1",	\
	  (struct ibv_device *a), (a))					\
	X(M1, int, ibv_get_pkey_index, "IBVERBS_1.5",			\
	  (struct ibv_context *a, uint8_t b, __be16 c), (a, b, c))	\
	X(PTR, struct ibv_context *, ibv_import_device, "IBVERBS_1.10",	\
	  (int a), (a))							\
	X(PTR, struct ibv_dm *, ibv_import_dm, "IBVERBS_1.13",		\
	  (struct ibv_context *a, uint32_t b), (a, b))			\
	X(PTR, struct ibv_mr *, ibv_import_mr, "IBVERBS_1.10",		\
	  (struct ibv_pd *a, uint32_t b), (a, b))			\
	X(PTR, struct ibv_pd *, ibv_import_pd, "IBVERBS_1.10",		\
	  (struct ibv_context *a, uint32_t b), (a, b))			\
	X(PASS, enum ibv_fork_status, ibv_is_fork_initialized,		\
	  "IBVERBS_1.13", (void), ())					\
	X(RC, int, ibv_modify_qp, "IBVERBS_1.1",			\
	  (struct ibv_qp *a, struct ibv_qp_attr *b, int c), (a, b, c))	\
	X(RC, int, ibv_modify_srq, "IBVERBS_1.1",			\
	  (struct ibv_srq *a, struct ibv_srq_attr *b, int c), (a, b, c)) \
	X(PTR, struct ibv_context *, ibv_open_device, "IBVERBS_1.1",	\
	  (struct ibv_device *a), (a))					\
	X(PTR, struct ibv_qp_ex *, ibv_qp_to_qp_ex, "IBVERBS_1.6",	\
	  (struct ibv_qp *a), (a))					\
	X(RC, int, ibv_query_device, "IBVERBS_1.1",			\
	  (struct ibv_context *a, struct ibv_device_attr *b), (a, b))	\
	X(RC, int, ibv_query_ece, "IBVERBS_1.10",			\
	  (struct ibv_qp *a, struct ibv_ece *b), (a, b))		\
	X(M1, int, ibv_query_gid, "IBVERBS_1.1",			\
	  (struct ibv_context *a, uint8_t b, int c, union ibv_gid *d),	\
	  (a, b, c, d))							\
	X(RC, int, ibv_query_port_speed, "IBVERBS_1.16",		\
	  (struct ibv_context *a, uint32_t b, uint64_t *c), (a, b, c))	\
	X(M1, int, ibv_query_pkey, "IBVERBS_1.1",			\
	  (struct ibv_context *a, uint8_t b, int c, __be16 *d),	\
	  (a, b, c, d))							\
	X(RC, int, ibv_query_port, "IBVERBS_1.1",			\
	  (struct ibv_context *a, uint8_t b,				\
	   struct _compat_ibv_port_attr *c), (a, b, c))			\
	X(RC, int, ibv_query_qp, "IBVERBS_1.1",				\
	  (struct ibv_qp *a, struct ibv_qp_attr *b, int c,		\
	   struct ibv_qp_init_attr *d), (a, b, c, d))			\
	X(PASS, int, ibv_query_qp_data_in_order, "IBVERBS_1.14",	\
	  (struct ibv_qp *a, enum ibv_wr_opcode b, uint32_t c), (a, b, c)) \
	X(RC, int, ibv_query_srq, "IBVERBS_1.1",			\
	  (struct ibv_srq *a, struct ibv_srq_attr *b), (a, b))		\
	X(PTR, struct ibv_mr *, ibv_reg_mr_ex, "IBVERBS_1.15",		\
	  (struct ibv_pd *a, struct ibv_mr_init_attr *b), (a, b))	\
	X(PTR, struct ibv_dmah *, ibv_alloc_dmah, "IBVERBS_1.15",	\
	  (struct ibv_context *a, struct ibv_dmah_init_attr *b), (a, b)) \
	X(RC, int, ibv_dealloc_dmah, "IBVERBS_1.15", (struct ibv_dmah *a), \
	  (a))								\
	X(PTR, void *, ibv_alloc_buf, "IBVERBS_1.17",			\
	  (struct ibv_pd *a, size_t b, struct ibv_buf **c), (a, b, c))	\
	X(PASS, void, ibv_free_buf, "IBVERBS_1.17", (struct ibv_buf *a), (a)) \
	X(PTR, struct ibv_mr *, ibv_reg_buf_mr, "IBVERBS_1.17",		\
	  (struct ibv_pd *a, struct ibv_buf *b, void *c, size_t d, int e), \
	  (a, b, c, d, e))						\
	X(M1, int, ibv_export_buf_dmabuf_fd, "IBVERBS_1.18",		\
	  (struct ibv_buf *a), (a))					\
	X(RC, int, _ibv_query_comp_cntr_caps, "IBVERBS_1.18",		\
	  (struct ibv_context *a, struct ibv_comp_cntr_caps *b, size_t c), \
	  (a, b, c))							\
	X(PTR, struct ibv_comp_cntr *, ibv_create_comp_cntr, "IBVERBS_1.18", \
	  (struct ibv_context *a, struct ibv_comp_cntr_init_attr *b),	\
	  (a, b))							\
	X(RC, int, ibv_destroy_comp_cntr, "IBVERBS_1.18",		\
	  (struct ibv_comp_cntr *a), (a))				\
	X(RC, int, ibv_set_comp_cntr, "IBVERBS_1.18",			\
	  (struct ibv_comp_cntr *a, uint64_t b), (a, b))		\
	X(RC, int, ibv_set_err_comp_cntr, "IBVERBS_1.18",		\
	  (struct ibv_comp_cntr *a, uint64_t b), (a, b))		\
	X(RC, int, ibv_inc_comp_cntr, "IBVERBS_1.18",			\
	  (struct ibv_comp_cntr *a, uint64_t b), (a, b))		\
	X(RC, int, ibv_inc_err_comp_cntr, "IBVERBS_1.18",		\
	  (struct ibv_comp_cntr *a, uint64_t b), (a, b))		\
	X(RC, int, ibv_read_comp_cntr, "IBVERBS_1.18",			\
	  (struct ibv_comp_cntr *a, uint64_t *b), (a, b))		\
	X(RC, int, ibv_read_err_comp_cntr, "IBVERBS_1.18",		\
	  (struct ibv_comp_cntr *a, uint64_t *b), (a, b))		\
	X(RC, int, ibv_qp_attach_comp_cntr, "IBVERBS_1.18",		\
	  (struct ibv_qp *a, struct ibv_comp_cntr *b,			\
	   struct ibv_qp_attach_comp_cntr_attr *c), (a, b, c))		\
	X(PTR, struct ibv_mr *, ibv_reg_dmabuf_mr, "IBVERBS_1.12",	\
	  (struct ibv_pd *a, uint64_t b, size_t c, uint64_t d, int e,	\
	   int f), (a, b, c, d, e, f))					\
	X(PTR, struct ibv_mr *, ibv_reg_mr_iova2, "IBVERBS_1.8",	\
	  (struct ibv_pd *a, void *b, size_t c, uint64_t d,		\
	   unsigned int e), (a, b, c, d, e))				\
	X(REREG, int, ibv_rereg_mr, "IBVERBS_1.1",			\
	  (struct ibv_mr *a, int b, struct ibv_pd *c, void *d, size_t e, \
	   int f), (a, b, c, d, e, f))					\
	X(RC, int, ibv_resize_cq, "IBVERBS_1.1",			\
	  (struct ibv_cq *a, int b), (a, b))				\
	X(RC, int, ibv_set_ece, "IBVERBS_1.10",				\
	  (struct ibv_qp *a, struct ibv_ece *b), (a, b))		\
	X(PASS, void, ibv_unimport_dm, "IBVERBS_1.13", (struct ibv_dm *a), (a)) \
	X(PASS, void, ibv_unimport_mr, "IBVERBS_1.10", (struct ibv_mr *a), (a)) \
	X(PASS, void, ibv_unimport_pd, "IBVERBS_1.10", (struct ibv_pd *a), (a)) \
	X(M1, int, rdma_accept, "RDMACM_1.0",				\
	  (struct rdma_cm_id *a, struct rdma_conn_param *b), (a, b))	\
	X(M1, int, rdma_ack_cm_event, "RDMACM_1.0",			\
	  (struct rdma_cm_event *a), (a))				\
	X(M1, int, rdma_bind_addr, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a, struct sockaddr *b), (a, b))		\
	X(M1, int, rdma_connect, "RDMACM_1.0",				\
	  (struct rdma_cm_id *a, struct rdma_conn_param *b), (a, b))	\
	X(M1, int, rdma_create_ep, "RDMACM_1.0",			\
	  (struct rdma_cm_id **a, struct rdma_addrinfo *b,		\
	   struct ibv_pd *c, struct ibv_qp_init_attr *d), (a, b, c, d))	\
	X(PTR, struct rdma_event_channel *, rdma_create_event_channel,	\
	  "RDMACM_1.0", (void), ())					\
	X(M1, int, rdma_create_id, "RDMACM_1.0",			\
	  (struct rdma_event_channel *a, struct rdma_cm_id **b, void *c, \
	   enum rdma_port_space d), (a, b, c, d))			\
	X(M1, int, rdma_create_qp, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a, struct ibv_pd *b,			\
	   struct ibv_qp_init_attr *c), (a, b, c))			\
	X(PASS, void, rdma_destroy_ep, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a), (a))					\
	X(PASS, void, rdma_destroy_event_channel, "RDMACM_1.0",		\
	  (struct rdma_event_channel *a), (a))				\
	X(M1, int, rdma_destroy_id, "RDMACM_1.0", (struct rdma_cm_id *a), (a)) \
	X(PASS, void, rdma_destroy_qp, "RDMACM_1.0", (struct rdma_cm_id *a), (a)) \
	X(M1, int, rdma_disconnect, "RDMACM_1.0", (struct rdma_cm_id *a), (a)) \
	X(M1, int, rdma_establish, "RDMACM_1.2", (struct rdma_cm_id *a), (a)) \
	X(PASS, const char *, rdma_event_str, "RDMACM_1.0",		\
	  (enum rdma_cm_event_type a), (a))				\
	X(PASS, void, rdma_free_devices, "RDMACM_1.0",			\
	  (struct ibv_context **a), (a))				\
	X(PASS, void, rdma_freeaddrinfo, "RDMACM_1.0",			\
	  (struct rdma_addrinfo *a), (a))				\
	X(M1, int, rdma_get_cm_event, "RDMACM_1.0",			\
	  (struct rdma_event_channel *a, struct rdma_cm_event **b), (a, b)) \
	X(PTR, struct ibv_context **, rdma_get_devices, "RDMACM_1.0",	\
	  (int *a), (a))						\
	X(M1, int, rdma_get_remote_ece, "RDMACM_1.3",			\
	  (struct rdma_cm_id *a, struct ibv_ece *b), (a, b))		\
	X(M1, int, rdma_get_request, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a, struct rdma_cm_id **b), (a, b))	\
	X(M1, int, rdma_getaddrinfo, "RDMACM_1.0",			\
	  (const char *a, const char *b, const struct rdma_addrinfo *c,	\
	   struct rdma_addrinfo **d), (a, b, c, d))			\
	X(M1, int, rdma_init_qp_attr, "RDMACM_1.2",			\
	  (struct rdma_cm_id *a, struct ibv_qp_attr *b, int *c), (a, b, c)) \
	X(M1, int, rdma_join_multicast, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a, struct sockaddr *b, void *c), (a, b, c)) \
	X(M1, int, rdma_join_multicast_ex, "RDMACM_1.1",		\
	  (struct rdma_cm_id *a, struct rdma_cm_join_mc_attr_ex *b,	\
	   void *c), (a, b, c))						\
	X(M1, int, rdma_leave_multicast, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a, struct sockaddr *b), (a, b))		\
	X(M1, int, rdma_listen, "RDMACM_1.0",				\
	  (struct rdma_cm_id *a, int b), (a, b))			\
	X(M1, int, rdma_reject, "RDMACM_1.0",				\
	  (struct rdma_cm_id *a, const void *b, uint8_t c), (a, b, c))	\
	X(M1, int, rdma_resolve_addr, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a, struct sockaddr *b, struct sockaddr *c, \
	   int d), (a, b, c, d))					\
	X(M1, int, rdma_resolve_route, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a, int b), (a, b))			\
	X(M1, int, rdma_set_local_ece, "RDMACM_1.3",			\
	  (struct rdma_cm_id *a, struct ibv_ece *b), (a, b))		\
	X(M1, int, rdma_set_option, "RDMACM_1.0",			\
	  (struct rdma_cm_id *a, int b, int c, void *d, size_t e),	\
	  (a, b, c, d, e))

#define FI_INDEX(kind, ret, name, ver, params, args) FI_##name,
enum { FI_FUNCS(FI_INDEX) FI_N };

enum { K_PTR, K_RC, K_M1, K_REREG, K_PASS };

#define FI_ENTRY(kind, ret, name, ver, params, args) { #name, K_##kind },
static const struct {
	const char *name;
	int kind;
} fi_table[FI_N] = { FI_FUNCS(FI_ENTRY) };

static const char *const kind_names[] = { "PTR", "RC", "M1", "REREG", "PASS" };

static long counts[FI_N];	/* counted calls per function since fi_arm */
static int target = -2;		/* a function's index, -1 for all, -2 none */
static long nth;		/* 0: count only */
static long seen;		/* counted calls of the target */
static int fault_errno = ENOMEM;
static const char *fired;	/* the function failed last, until fi_arm */
static char caller_tag[256] = "pyverbs";
static int configured;
static pthread_t owner;		/* with owner_set: the only thread counted */
static int owner_set;

static int errno_of(const char *s)
{
	static const struct {
		const char *name;
		int val;
	} names[] = { { "ENOMEM", ENOMEM }, { "EINVAL", EINVAL },
		      { "EAGAIN", EAGAIN }, { "EIO", EIO },
		      { "EPERM", EPERM }, { "EBUSY", EBUSY },
		      { "ENODEV", ENODEV }, { "EFAULT", EFAULT },
		      { "EOPNOTSUPP", EOPNOTSUPP }, { "ETIMEDOUT", ETIMEDOUT } };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].val;
	return atoi(s) > 0 ? atoi(s) : ENOMEM;
}

static int index_of(const char *func)
{
	int i;

	if (!func || !*func)
		return -2;
	if (!strcmp(func, "*"))
		return -1;
	for (i = 0; i < FI_N; i++)
		if (!strcmp(fi_table[i].name, func))
			return i;
	fprintf(stderr, "faultinject: %s is not a wrapped function\n", func);
	abort();
}

/* Arm: fail the nth counted call of func ("*": of any failing function;
 * NULL: none) with errno err; all counters restart. */
void fi_arm(const char *func, long n, int err)
{
	memset(counts, 0, sizeof(counts));
	target = index_of(func);
	nth = n;
	seen = 0;
	fault_errno = err > 0 ? err : ENOMEM;
	fired = NULL;
	configured = 1;
	owner = pthread_self();
	owner_set = 1;
}

static void configure(void)
{
	const char *s;

	if (configured)
		return;
	if ((s = getenv("FAULT_CALLER")) && *s)
		snprintf(caller_tag, sizeof(caller_tag), "%s", s);
	s = getenv("FAULT_ERRNO");
	fi_arm(getenv("FAULT_FUNC"), getenv("FAULT_NTH") ?
	       atol(getenv("FAULT_NTH")) : 0, s ? errno_of(s) : ENOMEM);
	owner_set = 0;
}

/* Counted calls of func since fi_arm (NULL: all functions). */
long fi_calls(const char *func)
{
	long total = 0;
	int i;

	if (func)
		return counts[index_of(func)];
	for (i = 0; i < FI_N; i++)
		total += counts[i];
	return total;
}

/* The name of the function failed since fi_arm, else NULL. */
const char *fi_fired(void)
{
	return fired;
}

/* The i-th wrapped function and its failure convention, else NULL. */
const char *fi_function(int i, const char **kind)
{
	if (i < 0 || i >= FI_N)
		return NULL;
	*kind = kind_names[fi_table[i].kind];
	return fi_table[i].name;
}

/* Whether the caller at ret lies in one of pyverbs' shared objects. */
static int from_pyverbs(void *ret)
{
	static void *yes_base, *no_base;
	Dl_info info;

	if (!dladdr(ret, &info) || !info.dli_fname)
		return 0;
	if (info.dli_fbase == yes_base)
		return 1;
	if (info.dli_fbase == no_base)
		return 0;
	if (strstr(info.dli_fname, caller_tag)) {
		yes_base = info.dli_fbase;
		return 1;
	}
	no_base = info.dli_fbase;
	return 0;
}

/* Count a call of function i; whether it is the one to fail. */
static int hit(int i, void *ret)
{
	configure();
	if (owner_set && !pthread_equal(owner, pthread_self()))
		return 0;
	if (!from_pyverbs(ret))
		return 0;
	counts[i]++;
	if (fi_table[i].kind == K_PASS || nth <= 0 || fired)
		return 0;
	if (target != i && target != -1)
		return 0;
	if (++seen != nth)
		return 0;
	fired = fi_table[i].name;
	return 1;
}

/* The real one: next in the global scope, else in its library (a linker
 * with --as-needed leaves libraries we name no symbol of off our list). */
static void *real_sym(const char *name, const char *ver)
{
	void *p = dlvsym(RTLD_NEXT, name, ver);
	void *lib;

	if (!p && (lib = dlopen(strncmp(name, "rdma_", 5) ? "libibverbs.so.1" :
				"librdmacm.so.1", RTLD_NOW | RTLD_GLOBAL)))
		p = dlvsym(lib, name, ver);	/* the handle stays open */
	if (!p) {
		fprintf(stderr, "faultinject: no %s@%s\n", name, ver);
		abort();
	}
	return p;
}

/* The failure each convention reports. */
#define FAIL_PTR	do { errno = fault_errno; return NULL; } while (0)
#define FAIL_RC		do { return fault_errno; } while (0)
#define FAIL_M1		do { errno = fault_errno; return -1; } while (0)
#define FAIL_REREG	do { errno = fault_errno;			\
			     return IBV_REREG_MR_ERR_INPUT; } while (0)
#define FAIL_PASS	do { } while (0)

#define REAL_OF(name, ver)						\
	static __typeof__(&(name)) real;				\
	if (!real)							\
		real = (__typeof__(&(name)))real_sym(#name, ver)

#define WRAP_FAILING(kind, ret, name, ver, params, args)		\
	ret(name) params						\
	{								\
		REAL_OF(name, ver);					\
		if (hit(FI_##name, __builtin_return_address(0)))	\
			FAIL_##kind;					\
		return real args;					\
	}
#define WRAP_PTR WRAP_FAILING
#define WRAP_RC WRAP_FAILING
#define WRAP_M1 WRAP_FAILING
#define WRAP_REREG WRAP_FAILING
/* void or infallible: counted, never failed */
#define WRAP_PASS(kind, ret, name, ver, params, args)			\
	ret(name) params						\
	{								\
		REAL_OF(name, ver);					\
		hit(FI_##name, __builtin_return_address(0));		\
		return real args;					\
	}

#define FI_WRAP(kind, ret, name, ver, params, args)			\
	WRAP_##kind(kind, ret, name, ver, params, args)
FI_FUNCS(FI_WRAP)
