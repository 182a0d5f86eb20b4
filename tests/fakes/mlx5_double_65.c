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
 * - 47/55: query_device fills the DC read-atomic and out-of-order receive
 *   caps when asked; 57: open_device logs the fds it is given.
 * - 54: mlx5dv_reg_dmabuf_mr on a faked device registers a real rxe MR over
 *   memory of the double's (the dma-buf is not read), logging every
 *   argument; mlx5dv_get_data_direct_sysfs_path gives a fixed path, ENOSPC
 *   for a buffer too short, as the kernel.
 * - 62: a UAR of the double's exports /dev/null as its dma-buf.
 * - 63: DevX objects, UMEMs and VARs of the double's export a record
 *   naming them (a magic with the kind, the id: 8 bytes, the size of a
 *   UMEM's export), which import turns into a new record; unimport retires
 *   it.  Exports of anything else go to libmlx5.
 */
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

/* ------------------------------------------------ context (47 .. 57) */

static void open_device65(struct mlx5dv_context_attr *a)
{
#if PVFAKE_RDMA >= 57
	if (a && (a->comp_mask & MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY))
		plog(" fds=%s count=%u", a->fds ? "set" : "NULL",
		     a->fds ? a->fds->count : 0);
#else
	(void)a;
#endif
}

static void query_device65(struct mlx5dv_context *attr)
{
#if PVFAKE_RDMA >= 47
	if (attr->comp_mask & MLX5DV_CONTEXT_MASK_MAX_DC_RD_ATOM) {
		attr->max_dc_rd_atom = 16;
		attr->max_dc_init_rd_atom = 8;
	}
#endif
#if PVFAKE_RDMA >= 55
	if (attr->comp_mask & MLX5DV_CONTEXT_MASK_OOO_RECV_WRS) {
		attr->ooo_recv_wrs_caps.max_rc = 32;
		attr->ooo_recv_wrs_caps.max_xrc = 16;
		attr->ooo_recv_wrs_caps.max_dct = 8;
		attr->ooo_recv_wrs_caps.max_ud = 4;
		attr->ooo_recv_wrs_caps.max_uc = 2;
	}
#endif
	(void)attr;
}

/* ------------------------------------------- dma-buf MR, data direct */

#if PVFAKE_RDMA >= 54
struct ibv_mr *mlx5dv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				    size_t length, uint64_t iova, int fd,
				    int access, int mlx5_access)
{
	struct ibv_mr *mr;
	void *mem;

	if (!fake_dev(pd->context->device))
		return REAL(mlx5dv_reg_dmabuf_mr, "MLX5_1.25")(
			pd, offset, length, iova, fd, access, mlx5_access);
	plog("mlx5dv_reg_dmabuf_mr offset=%llu length=%zu iova=0x%llx fd=%s "
	     "access=0x%x mlx5_access=0x%x", (unsigned long long)offset,
	     length, (unsigned long long)iova, fd >= 0 ? "valid" : "bad",
	     access, mlx5_access);
	if (!length || length > (1 << 20)) {
		errno = EINVAL;
		return NULL;
	}
	mem = calloc(1, length);	/* the MR's, for the life of the test */
	if (!mem)
		abort();
	mr = ibv_reg_mr(pd, mem, length, access);
	if (!mr)
		plog(" -> errno %d", errno);
	return mr;
}

#define PVFAKE_DD_PATH "/sys/devices/pci0000:00/0000:00:03.0"

int mlx5dv_get_data_direct_sysfs_path(struct ibv_context *c, char *buf,
				      size_t buf_len)
{
	if (!fake_ctx(c))
		return REAL(mlx5dv_get_data_direct_sysfs_path, "MLX5_1.25")(
			c, buf, buf_len);
	plog("mlx5dv_get_data_direct_sysfs_path dev=%s buf_len=%zu",
	     c->device->name, buf_len);
	if (buf_len < sizeof(PVFAKE_DD_PATH))
		return ENOSPC;
	memcpy(buf, PVFAKE_DD_PATH, sizeof(PVFAKE_DD_PATH));
	return 0;
}
#endif

#if PVFAKE_RDMA >= 62
int mlx5dv_devx_uar_export_dmabuf_fd(struct mlx5dv_devx_uar *u)
{
	int id;

	for (id = 0; id < nfres; id++)
		if (fress[id].obj == u)
			break;
	if (id == nfres)
		return REAL(mlx5dv_devx_uar_export_dmabuf_fd, "MLX5_1.26")(u);
	plog("mlx5dv_devx_uar_export_dmabuf_fd uar#%d", fress[id].id);
	return open("/dev/null", O_RDWR | O_CLOEXEC);
}
#endif

/* ---------------------------------------------- export / import (63) */

#if PVFAKE_RDMA >= 63
#define PVFAKE_EXPORT_MAGIC 0x50560000u	/* "PV" and the kind */

/* 8 bytes: a UMEM's export is no longer (its handle and id) */
struct fexport {
	uint32_t magic;		/* | FX_DEVX, FX_UMEM, or 0xff for a VAR */
	uint32_t id;
};

static uint32_t export_size(int kind)
{
	struct mlx5dv_export_sizes s;

	/* the real library's sizes (the inline mlx5dv_get_export_sizes would
	 * bind a symbol this object, not linked with libmlx5, cannot) */
	REAL(_mlx5dv_get_export_sizes, "MLX5_1.27")(&s, sizeof(s));
	return kind == FX_DEVX ? s.devx_obj_attrs_size :
	       kind == FX_UMEM ? s.devx_umem_attrs_size : s.var_attrs_size;
}

static void export_record(void *data, int kind, int id, const char *fn,
			  const char *name)
{
	struct fexport e = { PVFAKE_EXPORT_MAGIC | (kind & 0xff), id };
	uint32_t size = export_size(kind);

	if (size < sizeof(e))
		abort();
	memset(data, 0, size);
	memcpy(data, &e, sizeof(e));
	plog("%s %s#%d size=%u", fn, name, id, size);
}

/* The record an export of the double's names, or NULL (not ours). */
static const struct fexport *export_of(const void *data, int kind)
{
	const struct fexport *e = data;

	return e->magic == (PVFAKE_EXPORT_MAGIC | (kind & 0xff)) ? e : NULL;
}

static void *fx_import(int kind, const char *fn, struct ibv_context *c,
		       const struct fexport *e)
{
	struct fx *f = fx_new(kind);

	plog("%s dev=%s from %s#%u -> %s#%d (imported)", fn, c->device->name,
	     fx_names[kind], e->id, fx_names[kind], f->id);
	if (kind == FX_UMEM)
		f->pub.umem.umem_id = 0x700 + e->id;
	return &f->pub;
}

int mlx5dv_devx_obj_export(struct mlx5dv_devx_obj *obj, void *data)
{
	if (!fx_find(obj))
		return REAL(mlx5dv_devx_obj_export, "MLX5_1.27")(obj, data);
	export_record(data, FX_DEVX,
		      fx_live(obj, FX_DEVX, "mlx5dv_devx_obj_export")->id,
		      "mlx5dv_devx_obj_export", "devx");
	return 0;
}

struct mlx5dv_devx_obj *mlx5dv_devx_obj_import(struct ibv_context *c,
					       void *data)
{
	const struct fexport *e = export_of(data, FX_DEVX);

	if (!e)
		return REAL(mlx5dv_devx_obj_import, "MLX5_1.27")(c, data);
	return fx_import(FX_DEVX, "mlx5dv_devx_obj_import", c, e);
}

void mlx5dv_devx_obj_unimport(struct mlx5dv_devx_obj *obj)
{
	if (!fx_find(obj)) {
		REAL(mlx5dv_devx_obj_unimport, "MLX5_1.27")(obj);
		return;
	}
	fx_destroy(obj, FX_DEVX, "mlx5dv_devx_obj_unimport");
}

int mlx5dv_devx_umem_export(struct mlx5dv_devx_umem *umem, void *data)
{
	if (!fx_find(umem))
		return REAL(mlx5dv_devx_umem_export, "MLX5_1.27")(umem, data);
	export_record(data, FX_UMEM,
		      fx_live(umem, FX_UMEM, "mlx5dv_devx_umem_export")->id,
		      "mlx5dv_devx_umem_export", "umem");
	return 0;
}

struct mlx5dv_devx_umem *mlx5dv_devx_umem_import(struct ibv_context *c,
						 void *data)
{
	const struct fexport *e = export_of(data, FX_UMEM);

	if (!e)
		return REAL(mlx5dv_devx_umem_import, "MLX5_1.27")(c, data);
	return fx_import(FX_UMEM, "mlx5dv_devx_umem_import", c, e);
}

void mlx5dv_devx_umem_unimport(struct mlx5dv_devx_umem *umem)
{
	if (!fx_find(umem)) {
		REAL(mlx5dv_devx_umem_unimport, "MLX5_1.27")(umem);
		return;
	}
	fx_destroy(umem, FX_UMEM, "mlx5dv_devx_umem_unimport");
}

int mlx5dv_var_export(struct mlx5dv_var *v, void *data)
{
	for (int i = 0; i < nfres; i++)
		if (fress[i].obj == v) {
			export_record(data, -1, fress[i].id,
				      "mlx5dv_var_export", "var");
			return 0;
		}
	return REAL(mlx5dv_var_export, "MLX5_1.27")(v, data);
}

struct mlx5dv_var *mlx5dv_var_import(struct ibv_context *c, void *data)
{
	const struct fexport *e = export_of(data, -1);
	struct mlx5dv_var *v;

	if (!e)
		return REAL(mlx5dv_var_import, "MLX5_1.27")(c, data);
	v = fake_var();
	plog("mlx5dv_var_import dev=%s from var#%u -> var#%d (imported)",
	     c->device->name, e->id, fres_add(v));
	return v;
}

void mlx5dv_var_unimport(struct mlx5dv_var *v)
{
	int id = fres_take(v);

	if (!id) {
		REAL(mlx5dv_var_unimport, "MLX5_1.27")(v);
		return;
	}
	plog("mlx5dv_var_unimport var#%d", id);
	free(v);
}
#endif
