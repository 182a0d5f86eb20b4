/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Part of the recording double mlx5_double.c (which includes it at its end,
 * after the other parts: one translation unit): the entry points that
 * upstream pyverbs reaches from rdma-core 45 to 65 (UPSTREAM65.md 1.7).
 * Those whose C call rdma-core 44 already has are always built; the newer
 * ones only when the headers have them: PVFAKE_RDMA, the rdma-core version
 * of the headers (tests/doubles.py passes pkg-config's), picks them.
 *
 * - Asynchronous DevX commands: a command-completion channel or an event
 *   channel of a faked device is a record with a real pipe (its fd is a
 *   descriptor the caller can poll) and a queue of responses in memory.
 *   query_async on a faked DevX object queues the response the kernel
 *   would (wr_id, then outlen bytes: the input echoed, as query does);
 *   subscribe queues one event per subscription (the cookie, then a 64-byte
 *   EQE 0xe0, 0xe1, ... unless the channel omits event data), and
 *   subscribe with an eventfd adds 1 to its counter, as a fired event does.
 *   get_async_cmd_comp / get_event take the oldest response, refusing a
 *   buffer too small for it with ENOSPC as the kernel does.
 * - The DR flow meter (PVFAKE_MLX5_DR set): an action record, logged with
 *   its attributes and its modifications; action_destroy (in the DR part)
 *   lets it go.
 */
#ifndef PVFAKE_RDMA
#define PVFAKE_RDMA 44
#endif
#include <fcntl.h>
#include <unistd.h>

/* ------------------------------------------------ command/event channels */

struct fresp {
	size_t len;
	unsigned char *data;	/* what read() would return */
};

struct fchan {
	union {				/* handed out */
		struct mlx5dv_devx_cmd_comp cc;
		struct mlx5dv_devx_event_channel ec;
	} pub;
	const char *kind;		/* "cc", "ec" */
	int id, live, wfd, omit_data;
	struct fresp q[16];
	int nq;
};
static struct fchan *fchans[MAX_OBJS];
static int nfchan, ncc, nec;

static struct fchan *fchan_of(const void *p)
{
	for (int i = 0; i < nfchan; i++)
		if (&fchans[i]->pub == p)
			return fchans[i];
	return NULL;
}

static struct fchan *fchan_new(const char *kind, int id)
{
	struct fchan *f = calloc(1, sizeof(*f));
	int fds[2];

	if (!f || nfchan >= MAX_OBJS || pipe2(fds, O_CLOEXEC))
		abort();
	f->kind = kind;
	f->id = id;
	f->live = 1;
	f->pub.cc.fd = fds[0];
	f->wfd = fds[1];
	fchans[nfchan++] = f;
	return f;
}

static struct fchan *fchan_live(const void *p, const char *who)
{
	struct fchan *f = fchan_of(p);

	if (!f || !f->live) {
		plog("FATAL %s on a channel that is not live", who);
		abort();
	}
	return f;
}

static void fchan_push(struct fchan *f, const void *head, size_t hlen,
		       const void *body, size_t blen)
{
	struct fresp *r;

	if (f->nq >= 16)
		abort();
	r = &f->q[f->nq++];
	r->len = hlen + blen;
	r->data = calloc(1, r->len ? r->len : 1);
	if (!r->data)
		abort();
	memcpy(r->data, head, hlen);
	if (blen)
		memcpy(r->data + hlen, body, blen);
	if (write(f->wfd, "x", 1) != 1)
		abort();
}

/* The oldest response into buf (len bytes): its length, or -1 with errno
 * (EAGAIN: none queued, which would block for ever; ENOSPC: too long). */
static ssize_t fchan_pop(struct fchan *f, void *buf, size_t len)
{
	struct fresp r;
	char c;

	if (!f->nq) {
		errno = EAGAIN;
		return -1;
	}
	r = f->q[0];
	if (r.len > len) {
		errno = ENOSPC;
		return -1;
	}
	memmove(f->q, f->q + 1, --f->nq * sizeof(f->q[0]));
	if (read(f->pub.cc.fd, &c, 1) != 1)
		abort();
	memcpy(buf, r.data, r.len);
	free(r.data);
	return (ssize_t)r.len;
}

static void fchan_destroy(struct fchan *f, const char *fn)
{
	plog("%s %s#%d queued=%d", fn, f->kind, f->id, f->nq);
	for (int i = 0; i < f->nq; i++)
		free(f->q[i].data);
	f->nq = 0;
	close(f->pub.cc.fd);
	close(f->wfd);
	f->live = 0;
}

struct mlx5dv_devx_cmd_comp *
mlx5dv_devx_create_cmd_comp(struct ibv_context *c)
{
	struct fchan *f;

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_create_cmd_comp, "MLX5_1.9")(c);
	f = fchan_new("cc", ++ncc);
	plog("mlx5dv_devx_create_cmd_comp dev=%s -> cc#%d", c->device->name,
	     f->id);
	return &f->pub.cc;
}

void mlx5dv_devx_destroy_cmd_comp(struct mlx5dv_devx_cmd_comp *cc)
{
	if (!fchan_of(cc)) {
		REAL(mlx5dv_devx_destroy_cmd_comp, "MLX5_1.9")(cc);
		return;
	}
	fchan_destroy(fchan_live(cc, "mlx5dv_devx_destroy_cmd_comp"),
		      "mlx5dv_devx_destroy_cmd_comp");
}

int mlx5dv_devx_obj_query_async(struct mlx5dv_devx_obj *obj, const void *in,
				size_t inlen, size_t outlen, uint64_t wr_id,
				struct mlx5dv_devx_cmd_comp *cc)
{
	struct fx *x = fx_find(obj);
	struct fchan *f;
	unsigned char *out;
	char h[80];

	if (!x)
		return REAL(mlx5dv_devx_obj_query_async, "MLX5_1.9")(
			obj, in, inlen, outlen, wr_id, cc);
	x = fx_live(obj, FX_DEVX, "mlx5dv_devx_obj_query_async");
	f = fchan_live(cc, "mlx5dv_devx_obj_query_async");
	hex(h, sizeof(h), in, inlen < 16 ? inlen : 16);
	plog("mlx5dv_devx_obj_query_async devx#%d inlen=%zu in=%s outlen=%zu "
	     "wr_id=%llu cc#%d", x->id, inlen, h, outlen,
	     (unsigned long long)wr_id, f->id);
	out = calloc(1, outlen ? outlen : 1);
	if (!out)
		abort();
	memcpy(out, in, inlen < outlen ? inlen : outlen);
	fchan_push(f, &wr_id, sizeof(wr_id), out, outlen);
	free(out);
	return 0;
}

int mlx5dv_devx_get_async_cmd_comp(struct mlx5dv_devx_cmd_comp *cc,
				   struct mlx5dv_devx_async_cmd_hdr *resp,
				   size_t len)
{
	struct fchan *f = fchan_of(cc);
	ssize_t got;

	if (!f)
		return REAL(mlx5dv_devx_get_async_cmd_comp, "MLX5_1.9")(
			cc, resp, len);
	f = fchan_live(cc, "mlx5dv_devx_get_async_cmd_comp");
	got = fchan_pop(f, resp, len);
	if (got < 0) {
		plog("mlx5dv_devx_get_async_cmd_comp cc#%d cmd_resp_len=%zu "
		     "-> errno %d", f->id, len, errno);
		return errno;
	}
	plog("mlx5dv_devx_get_async_cmd_comp cc#%d cmd_resp_len=%zu -> "
	     "wr_id=%llu bytes=%zd", f->id, len,
	     (unsigned long long)resp->wr_id, got);
	return 0;
}

struct mlx5dv_devx_event_channel *
mlx5dv_devx_create_event_channel(struct ibv_context *c,
				 enum mlx5dv_devx_create_event_channel_flags fl)
{
	struct fchan *f;

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_create_event_channel, "MLX5_1.11")(c,
									    fl);
	f = fchan_new("ec", ++nec);
	f->omit_data = !!(fl & MLX5DV_DEVX_CREATE_EVENT_CHANNEL_FLAGS_OMIT_EV_DATA);
	plog("mlx5dv_devx_create_event_channel dev=%s flags=0x%x -> ec#%d",
	     c->device->name, (unsigned int)fl, f->id);
	return &f->pub.ec;
}

void mlx5dv_devx_destroy_event_channel(struct mlx5dv_devx_event_channel *ec)
{
	if (!fchan_of(ec)) {
		REAL(mlx5dv_devx_destroy_event_channel, "MLX5_1.11")(ec);
		return;
	}
	fchan_destroy(fchan_live(ec, "mlx5dv_devx_destroy_event_channel"),
		      "mlx5dv_devx_destroy_event_channel");
}

/* "devx#N", or "none" for NULL (an unaffiliated subscription) */
static const char *fx_name(struct mlx5dv_devx_obj *obj, char *buf, size_t n,
			   const char *who)
{
	if (!obj)
		return "none";
	snprintf(buf, n, "devx#%d", fx_live(obj, FX_DEVX, who)->id);
	return buf;
}

int mlx5dv_devx_subscribe_devx_event(struct mlx5dv_devx_event_channel *ec,
				     struct mlx5dv_devx_obj *obj,
				     uint16_t events_sz, uint16_t events_num[],
				     uint64_t cookie)
{
	struct fchan *f = fchan_of(ec);
	unsigned char eqe[64];
	char buf[256], name[32];
	size_t len = 0;

	if (!f)
		return REAL(mlx5dv_devx_subscribe_devx_event, "MLX5_1.11")(
			ec, obj, events_sz, events_num, cookie);
	f = fchan_live(ec, "mlx5dv_devx_subscribe_devx_event");
	buf[0] = 0;
	for (size_t i = 0; i < events_sz / 2u && len < sizeof(buf) - 8; i++)
		len += snprintf(buf + len, sizeof(buf) - len, " %u",
				events_num[i]);
	plog("mlx5dv_devx_subscribe_devx_event ec#%d obj=%s events_sz=%u "
	     "events=[%s ] cookie=%llu", f->id,
	     fx_name(obj, name, sizeof(name),
		     "mlx5dv_devx_subscribe_devx_event"),
	     events_sz, buf, (unsigned long long)cookie);
	for (size_t i = 0; i < sizeof(eqe); i++)
		eqe[i] = 0xe0 + i;
	fchan_push(f, &cookie, sizeof(cookie), eqe,
		   f->omit_data ? 0 : sizeof(eqe));
	return 0;
}

int mlx5dv_devx_subscribe_devx_event_fd(struct mlx5dv_devx_event_channel *ec,
					int fd, struct mlx5dv_devx_obj *obj,
					uint16_t event_num)
{
	struct fchan *f = fchan_of(ec);
	uint64_t one = 1;
	char name[32];

	if (!f)
		return REAL(mlx5dv_devx_subscribe_devx_event_fd, "MLX5_1.11")(
			ec, fd, obj, event_num);
	f = fchan_live(ec, "mlx5dv_devx_subscribe_devx_event_fd");
	plog("mlx5dv_devx_subscribe_devx_event_fd ec#%d fd=%s obj=%s "
	     "event=%u", f->id, fd >= 0 ? "valid" : "bad",
	     fx_name(obj, name, sizeof(name),
		     "mlx5dv_devx_subscribe_devx_event_fd"), event_num);
	/* the event fires: the kernel signals the eventfd */
	if (write(fd, &one, sizeof(one)) != sizeof(one))
		return errno;
	return 0;
}

ssize_t mlx5dv_devx_get_event(struct mlx5dv_devx_event_channel *ec,
			      struct mlx5dv_devx_async_event_hdr *data,
			      size_t len)
{
	struct fchan *f = fchan_of(ec);
	ssize_t got;

	if (!f)
		return REAL(mlx5dv_devx_get_event, "MLX5_1.11")(ec, data, len);
	f = fchan_live(ec, "mlx5dv_devx_get_event");
	got = fchan_pop(f, data, len);
	if (got < 0)
		plog("mlx5dv_devx_get_event ec#%d event_resp_len=%zu -> "
		     "errno %d", f->id, len, errno);
	else
		plog("mlx5dv_devx_get_event ec#%d event_resp_len=%zu -> "
		     "cookie=%llu bytes=%zd", f->id, len,
		     (unsigned long long)data->cookie, got);
	return got;
}

/* ---------------------------------------------------- DR flow meter */

struct fmeter {
	int id, live;
};
static struct fmeter *fmeters[MAX_OBJS];
static int nfmeter;

static struct fmeter *fmeter_of(const void *p)
{
	for (int i = 0; i < nfmeter; i++)
		if ((void *)fmeters[i] == p)
			return fmeters[i];
	return NULL;
}

static void meter_attr_log(const char *fn, int id,
			   struct mlx5dv_dr_flow_meter_attr *a, const char *tail)
{
	char h[80];

	hex(h, sizeof(h), a->flow_meter_parameter,
	    a->flow_meter_parameter_sz < 16 ? a->flow_meter_parameter_sz : 16);
	plog("%s meter#%d tbl#%d active=%u reg_c_index=%u param_sz=%zu "
	     "param=%s%s", fn, id, dr_id(dr_tbls, &ndr_tbl, a->next_table),
	     a->active, a->reg_c_index, a->flow_meter_parameter_sz, h, tail);
}

struct mlx5dv_dr_action *
mlx5dv_dr_action_create_flow_meter(struct mlx5dv_dr_flow_meter_attr *a)
{
	struct fmeter *m;

	if (!dr_on())
		return REAL(mlx5dv_dr_action_create_flow_meter, "MLX5_1.12")(a);
	if (!a || !a->next_table || (a->flow_meter_parameter_sz &&
				     !a->flow_meter_parameter))
		abort();
	m = calloc(1, sizeof(*m));
	if (!m || nfmeter >= MAX_OBJS)
		abort();
	m->id = nfmeter + 1;
	m->live = 1;
	fmeters[nfmeter++] = m;
	meter_attr_log("mlx5dv_dr_action_create_flow_meter", m->id, a, "");
	return (struct mlx5dv_dr_action *)m;
}

int mlx5dv_dr_action_modify_flow_meter(struct mlx5dv_dr_action *action,
				       struct mlx5dv_dr_flow_meter_attr *a,
				       __be64 select)
{
	struct fmeter *m = fmeter_of(action);
	char tail[48];

	if (!m)
		return REAL(mlx5dv_dr_action_modify_flow_meter, "MLX5_1.12")(
			action, a, select);
	if (!m->live)
		abort();
	snprintf(tail, sizeof(tail), " select=0x%llx",
		 (unsigned long long)select);
	meter_attr_log("mlx5dv_dr_action_modify_flow_meter", m->id, a, tail);
	return 0;
}

/* 1 if a is a flow meter of the double's (destroyed now), else 0 */
static int fmeter_destroy(struct mlx5dv_dr_action *a)
{
	struct fmeter *m = fmeter_of(a);

	if (!m)
		return 0;
	if (!m->live)
		abort();
	m->live = 0;
	plog("mlx5dv_dr_action_destroy meter#%d", m->id);
	return 1;
}
