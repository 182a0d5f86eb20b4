/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The floor of bench/count_instr.py: each operation of its table done with
 * the plain libibverbs calls a C program would make, in a loop of n.  Built
 * by count_instr.py (gcc -O2 -shared, -libverbs) and called through ctypes
 * on the objects the Python driver set up, so that C and Python run the
 * same provider code on the same queues.
 *
 * Also the two callgrind client requests the driver brackets every measured
 * Python loop with (zero the counters; dump them under a name).  The C
 * loops bracket themselves (FL_BEGIN, FL_END) when fl_tag() has given them
 * a name, so that the ctypes call around them is not counted: its cost
 * differs from call to call by more than a short loop's.  Outside valgrind
 * they do nothing.
 */
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <valgrind/callgrind.h>

void cg_zero(void)
{
	CALLGRIND_ZERO_STATS;
}

void cg_dump(const char *name)
{
	CALLGRIND_DUMP_STATS_AT(name);
}

static const char *fl_name;

/* The name of the next C loop's dump, or NULL: no dump. */
void fl_tag(const char *name)
{
	fl_name = name;
}

#define FL_BEGIN                                                        \
	do {                                                            \
		if (fl_name)                                            \
			CALLGRIND_ZERO_STATS;                           \
	} while (0)
#define FL_END                                                          \
	do {                                                            \
		if (fl_name)                                            \
			CALLGRIND_DUMP_STATS_AT(fl_name);               \
	} while (0)

/* Results land here so that the compiler keeps every store. */
volatile uint64_t fl_sink;

void fl_loop(long n)
{
	for (long i = 0; i < n; i++)
		fl_sink = i;
}

/* Polls with up to num entries; returns the completions polled in all. */
long fl_poll(struct ibv_cq *cq, int num, long n)
{
	struct ibv_wc wc[16];
	long total = 0;

	FL_BEGIN;
	for (long i = 0; i < n; i++) {
		int rc = ibv_poll_cq(cq, num, wc);

		if (rc < 0) {
			total = -1;
			break;
		}
		total += rc;
	}
	FL_END;
	return total;
}

/* n calls of ibv_post_send() (ibv_post_recv() with recv) of one chain of
 * len WRs of 64 bytes (RDMA WRITEs, unsignalled), built once, as a program
 * reposting its WRs does; returns 0 or the first error. */
int fl_post(struct ibv_qp *qp, long n, int len, int recv, uint64_t addr,
	    uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge[16];
	struct ibv_send_wr swr[16], *sbad;
	struct ibv_recv_wr rwr[16], *rbad;
	int rc = 0;

	memset(swr, 0, sizeof(swr));
	memset(rwr, 0, sizeof(rwr));
	for (int k = 0; k < len; k++) {
		sge[k].addr = addr;
		sge[k].length = 64;
		sge[k].lkey = lkey;
		swr[k].sg_list = rwr[k].sg_list = &sge[k];
		swr[k].num_sge = rwr[k].num_sge = 1;
		swr[k].opcode = IBV_WR_RDMA_WRITE;
		swr[k].wr.rdma.remote_addr = raddr;
		swr[k].wr.rdma.rkey = rkey;
		swr[k].next = k + 1 < len ? &swr[k + 1] : NULL;
		rwr[k].next = k + 1 < len ? &rwr[k + 1] : NULL;
	}
	FL_BEGIN;
	if (recv)
		for (long i = 0; i < n && !rc; i++)
			rc = ibv_post_recv(qp, rwr, &rbad);
	else
		for (long i = 0; i < n && !rc; i++)
			rc = ibv_post_send(qp, swr, &sbad);
	FL_END;
	return rc;
}

/* SendWR + SGE construction: fill the two structs. */
void fl_wr_build(long n, uint64_t addr, uint32_t lkey)
{
	FL_BEGIN;
	for (long i = 0; i < n; i++) {
		struct ibv_sge sge = { .addr = addr, .length = 64,
				       .lkey = lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
		};
		__asm__ volatile("" : : "r"(&wr), "r"(&sge) : "memory");
	}
	FL_END;
}

/* The ibv_wr_* sequences, unsignalled.  op: see count_instr.py QPEX_OPS. */
int fl_qpex(struct ibv_qp *qp, long n, int op, uint64_t addr, uint32_t lkey,
	    uint64_t raddr, uint32_t rkey, struct ibv_ah *ah, uint32_t rqpn,
	    uint32_t qkey)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	int rc = 0;

	FL_BEGIN;
	for (long i = 0; i < n && !rc; i++) {
		ibv_wr_start(qpx);
		qpx->wr_id = i;
		qpx->wr_flags = 0;
		switch (op) {
		case 0:
			ibv_wr_send(qpx);
			break;
		case 1:
			ibv_wr_send_imm(qpx, 7);
			break;
		case 2:
			ibv_wr_rdma_write(qpx, rkey, raddr);
			break;
		case 3:
			ibv_wr_rdma_write_imm(qpx, rkey, raddr, 7);
			break;
		case 4:
			ibv_wr_rdma_read(qpx, rkey, raddr);
			break;
		case 5:
			ibv_wr_atomic_fetch_add(qpx, rkey, raddr, 1);
			break;
		case 6:
			ibv_wr_atomic_cmp_swp(qpx, rkey, raddr, 0, 1);
			break;
		}
		if (ah)
			ibv_wr_set_ud_addr(qpx, ah, rqpn, qkey);
		ibv_wr_set_sge(qpx, lkey, addr, op >= 5 ? 8 : 64);
		rc = ibv_wr_complete(qpx);
	}
	FL_END;
	return rc;
}

/* MR read and write of 64 bytes: memcpy out of and into the buffer. */
void fl_mr_read(const char *buf, long n)
{
	char out[64];

	FL_BEGIN;
	for (long i = 0; i < n; i++) {
		memcpy(out, buf, 64);
		__asm__ volatile("" : : "r"(out) : "memory");
	}
	FL_END;
}

void fl_mr_write(char *buf, const char *data, long n)
{
	FL_BEGIN;
	for (long i = 0; i < n; i++) {
		memcpy(buf, data, 64);
		__asm__ volatile("" : : "r"(buf) : "memory");
	}
	FL_END;
}
