/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Part of the recording double mlx5_double.c (which includes it at its end:
 * one translation unit, so that the parts share its object tables and
 * helpers): DevX objects, EQs, UMEMs, MSI vectors, scheduling elements and device-memory op addresses.
 */
/* ------------------------------------------------------------ mlx5objs */
/*
 * DevX objects, EQs, UMEMs, MSI vectors and scheduling elements on the
 * fake devices (any Context of one: these entry points take a plain
 * Context): each is a record the double numbers and logs; everything else
 * goes to the real library.
 *
 * A create command's output mailbox gets the status byte and the syndrome
 * of $PVFAKE_DEVX_STATUS ("status:syndrome", hex; default 0:0) in out[0]
 * and out[4:8] (big-endian, as the firmware writes them), and bytes
 * 0x80, 0x81, ... from out[8] on.  query and modify echo their input into
 * the output.  A destroyed record stays in the table (live = 0), so a
 * second destroy or a use after it aborts loudly instead of passing.
 */
enum { FX_DEVX, FX_EQ, FX_UMEM, FX_MSI, FX_NODE, FX_LEAF, FX_KINDS };
static const char *const fx_names[FX_KINDS] = {
	"devx", "eq", "umem", "msi", "node", "leaf" };

struct fx {
	union {				/* handed out */
		struct mlx5dv_devx_eq eq;
		struct mlx5dv_devx_umem umem;
		struct mlx5dv_devx_msi_vector msi;
		char opaque[16];
	} pub;
	int kind, id, live;
};
static struct fx *fxs[MAX_OBJS * 4];
static int nfx, fx_count[FX_KINDS];

static struct fx *fx_find(const void *p)
{
	for (int i = 0; i < nfx; i++)
		if (&fxs[i]->pub == p)
			return fxs[i];
	return NULL;
}

static struct fx *fx_new(int kind)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || nfx >= MAX_OBJS * 4)
		abort();
	f->kind = kind;
	f->id = ++fx_count[kind];
	f->live = 1;
	fxs[nfx++] = f;
	return f;
}

/* The live record p of this kind: a dead or foreign one aborts. */
static struct fx *fx_live(const void *p, int kind, const char *who)
{
	struct fx *f = fx_find(p);

	if (!f || f->kind != kind || !f->live) {
		plog("FATAL %s on a %s that is not live", who,
		     fx_names[kind]);
		abort();
	}
	return f;
}

static int fake_ctx(struct ibv_context *c)
{
	return c && fake_dev(c->device);
}

static void hex(char *buf, size_t size, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t off = 0;

	buf[0] = 0;
	for (size_t i = 0; i < len && off + 3 < size; i++)
		off += snprintf(buf + off, size - off, "%02x", b[i]);
}

static int fx_fill_out(void *out, size_t outlen)
{
	const char *st = getenv("PVFAKE_DEVX_STATUS");
	unsigned int status = 0, syndrome = 0;
	unsigned char *o = out;

	if (st && sscanf(st, "%x:%x", &status, &syndrome) < 1)
		abort();
	for (size_t i = 8; i < outlen; i++)
		o[i] = 0x80 + (i - 8);
	if (outlen >= 1)
		o[0] = status;
	for (size_t i = 0; i < 4 && 4 + i < outlen; i++)
		o[4 + i] = syndrome >> (24 - 8 * i);
	return status;
}

static void *fx_create(int kind, const char *fn, struct ibv_context *c,
		       const void *in, size_t inlen, void *out, size_t outlen)
{
	char h[80];
	struct fx *f = fx_new(kind);
	int status = fx_fill_out(out, outlen);

	hex(h, sizeof(h), in, inlen < 16 ? inlen : 16);
	plog("%s dev=%s inlen=%zu in=%s outlen=%zu -> %s#%d status=0x%x", fn,
	     c->device->name, inlen, h, outlen, fx_names[kind], f->id,
	     status);
	return &f->pub;
}

static int fx_destroy(const void *p, int kind, const char *fn)
{
	struct fx *f = fx_live(p, kind, fn);

	plog("%s %s#%d", fn, fx_names[kind], f->id);
	f->live = 0;
	return 0;
}

struct mlx5dv_devx_obj *mlx5dv_devx_obj_create(struct ibv_context *c,
					       const void *in, size_t inlen,
					       void *out, size_t outlen)
{
	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_obj_create, "MLX5_1.7")(c, in, inlen,
								out, outlen);
	return fx_create(FX_DEVX, "mlx5dv_devx_obj_create", c, in, inlen, out,
			 outlen);
}

static int fx_cmd(struct mlx5dv_devx_obj *obj, const char *fn,
		  const void *in, size_t inlen, void *out, size_t outlen)
{
	struct fx *f = fx_live(obj, FX_DEVX, fn);
	char h[80];

	hex(h, sizeof(h), in, inlen < 16 ? inlen : 16);
	plog("%s devx#%d inlen=%zu in=%s outlen=%zu", fn, f->id, inlen, h,
	     outlen);
	memcpy(out, in, inlen < outlen ? inlen : outlen);
	return 0;
}

int mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
			  size_t inlen, void *out, size_t outlen)
{
	if (!fx_find(obj))
		return REAL(mlx5dv_devx_obj_query, "MLX5_1.7")(obj, in, inlen,
							       out, outlen);
	return fx_cmd(obj, "mlx5dv_devx_obj_query", in, inlen, out, outlen);
}

int mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in,
			   size_t inlen, void *out, size_t outlen)
{
	if (!fx_find(obj))
		return REAL(mlx5dv_devx_obj_modify, "MLX5_1.7")(obj, in, inlen,
								out, outlen);
	return fx_cmd(obj, "mlx5dv_devx_obj_modify", in, inlen, out, outlen);
}

int mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	if (!fx_find(obj))
		return REAL(mlx5dv_devx_obj_destroy, "MLX5_1.7")(obj);
	return fx_destroy(obj, FX_DEVX, "mlx5dv_devx_obj_destroy");
}

struct mlx5dv_devx_eq *mlx5dv_devx_create_eq(struct ibv_context *c,
					     const void *in, size_t inlen,
					     void *out, size_t outlen)
{
	struct mlx5dv_devx_eq *eq;

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_create_eq, "MLX5_1.23")(c, in, inlen,
								out, outlen);
	eq = fx_create(FX_EQ, "mlx5dv_devx_create_eq", c, in, inlen, out,
		       outlen);
	eq->vaddr = (void *)0xe0000;
	return eq;
}

int mlx5dv_devx_destroy_eq(struct mlx5dv_devx_eq *eq)
{
	if (!fx_find(eq))
		return REAL(mlx5dv_devx_destroy_eq, "MLX5_1.23")(eq);
	return fx_destroy(eq, FX_EQ, "mlx5dv_devx_destroy_eq");
}

static struct mlx5dv_devx_umem *fx_umem(const char *fn, const char *args)
{
	struct fx *f = fx_new(FX_UMEM);

	f->pub.umem.umem_id = 0x500 + f->id;
	plog("%s %s -> umem#%d umem_id=0x%x", fn, args, f->id,
	     f->pub.umem.umem_id);
	return &f->pub.umem;
}

struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg(struct ibv_context *c,
					      void *addr, size_t size,
					      uint32_t access)
{
	char args[160];

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_umem_reg, "MLX5_1.7")(c, addr, size,
							      access);
	/* the pages are the caller's: touch them all, as pinning would */
	for (size_t i = 0; i < size; i += 4096)
		((volatile char *)addr)[i];
	snprintf(args, sizeof(args), "size=%zu access=0x%x align64=%d", size,
		 access, !((uintptr_t)addr & 63));
	return fx_umem("mlx5dv_devx_umem_reg", args);
}

struct mlx5dv_devx_umem *
mlx5dv_devx_umem_reg_ex(struct ibv_context *c, struct mlx5dv_devx_umem_in *in)
{
	char args[200];

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_umem_reg_ex, "MLX5_1.19")(c, in);
	snprintf(args, sizeof(args), "size=%zu access=0x%x pgsz_bitmap=0x%llx "
		 "comp_mask=0x%llx dmabuf_fd=%d", in->size, in->access,
		 (unsigned long long)in->pgsz_bitmap,
		 (unsigned long long)in->comp_mask, in->dmabuf_fd);
	return fx_umem("mlx5dv_devx_umem_reg_ex", args);
}

int mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *umem)
{
	if (!fx_find(umem))
		return REAL(mlx5dv_devx_umem_dereg, "MLX5_1.7")(umem);
	return fx_destroy(umem, FX_UMEM, "mlx5dv_devx_umem_dereg");
}

struct mlx5dv_devx_msi_vector *
mlx5dv_devx_alloc_msi_vector(struct ibv_context *c)
{
	struct fx *f;

	if (!fake_ctx(c))
		return REAL(mlx5dv_devx_alloc_msi_vector, "MLX5_1.23")(c);
	f = fx_new(FX_MSI);
	f->pub.msi.vector = 40 + f->id;
	f->pub.msi.fd = -1;
	plog("mlx5dv_devx_alloc_msi_vector dev=%s -> msi#%d",
	     c->device->name, f->id);
	return &f->pub.msi;
}

int mlx5dv_devx_free_msi_vector(struct mlx5dv_devx_msi_vector *msi)
{
	if (!fx_find(msi))
		return REAL(mlx5dv_devx_free_msi_vector, "MLX5_1.23")(msi);
	return fx_destroy(msi, FX_MSI, "mlx5dv_devx_free_msi_vector");
}

static void sched_args(char *buf, size_t size,
		       const struct mlx5dv_sched_attr *a)
{
	struct fx *p = a->parent ? fx_find(a->parent) : NULL;

	if (a->parent && (!p || p->kind != FX_NODE || !p->live)) {
		plog("FATAL sched attr with a parent that is not a live node");
		abort();
	}
	snprintf(buf, size, "parent=%s%d flags=0x%x bw_share=%u max_avg_bw=%u "
		 "comp_mask=0x%llx", p ? "node#" : "", p ? p->id : 0,
		 a->flags, a->bw_share, a->max_avg_bw,
		 (unsigned long long)a->comp_mask);
}

static void *fx_sched_create(int kind, const char *fn, struct ibv_context *c,
			     const struct mlx5dv_sched_attr *a)
{
	char args[200];
	struct fx *f;

	sched_args(args, sizeof(args), a);
	f = fx_new(kind);
	plog("%s dev=%s %s -> %s#%d", fn, c->device->name, args,
	     fx_names[kind], f->id);
	return &f->pub;
}

static int fx_sched_modify(const void *p, int kind, const char *fn,
			   const struct mlx5dv_sched_attr *a)
{
	struct fx *f = fx_live(p, kind, fn);
	char args[200];

	sched_args(args, sizeof(args), a);
	plog("%s %s#%d %s", fn, fx_names[kind], f->id, args);
	return 0;
}

/* A node with live children cannot go first (the firmware refuses). */
struct mlx5dv_sched_node *
mlx5dv_sched_node_create(struct ibv_context *c,
			 const struct mlx5dv_sched_attr *a)
{
	if (!fake_ctx(c))
		return REAL(mlx5dv_sched_node_create, "MLX5_1.17")(c, a);
	return fx_sched_create(FX_NODE, "mlx5dv_sched_node_create", c, a);
}

struct mlx5dv_sched_leaf *
mlx5dv_sched_leaf_create(struct ibv_context *c,
			 const struct mlx5dv_sched_attr *a)
{
	if (!fake_ctx(c))
		return REAL(mlx5dv_sched_leaf_create, "MLX5_1.17")(c, a);
	return fx_sched_create(FX_LEAF, "mlx5dv_sched_leaf_create", c, a);
}

int mlx5dv_sched_node_modify(struct mlx5dv_sched_node *n,
			     const struct mlx5dv_sched_attr *a)
{
	if (!fx_find(n))
		return REAL(mlx5dv_sched_node_modify, "MLX5_1.17")(n, a);
	return fx_sched_modify(n, FX_NODE, "mlx5dv_sched_node_modify", a);
}

int mlx5dv_sched_leaf_modify(struct mlx5dv_sched_leaf *l,
			     const struct mlx5dv_sched_attr *a)
{
	if (!fx_find(l))
		return REAL(mlx5dv_sched_leaf_modify, "MLX5_1.17")(l, a);
	return fx_sched_modify(l, FX_LEAF, "mlx5dv_sched_leaf_modify", a);
}

int mlx5dv_sched_node_destroy(struct mlx5dv_sched_node *n)
{
	if (!fx_find(n))
		return REAL(mlx5dv_sched_node_destroy, "MLX5_1.17")(n);
	return fx_destroy(n, FX_NODE, "mlx5dv_sched_node_destroy");
}

int mlx5dv_sched_leaf_destroy(struct mlx5dv_sched_leaf *l)
{
	if (!fx_find(l))
		return REAL(mlx5dv_sched_leaf_destroy, "MLX5_1.17")(l);
	return fx_destroy(l, FX_LEAF, "mlx5dv_sched_leaf_destroy");
}

/*
 * Device memory, with $PVFAKE_DM set: the contexts of the fake devices get
 * alloc_dm/free_dm (host memory standing for the device's, its copies
 * logged) and a max_dm_size of 64 KiB, so that a DM exists to map;
 * mlx5dv_dm_map_op_addr() of such a DM maps anonymous pages the size of
 * the DM rounded up to pages (as libmlx5 maps the device's), the DM at
 * offset $PVFAKE_DM in the first page, and fills the DM's bytes there.
 */
#include <sys/mman.h>
#include <unistd.h>

struct fdm {
	struct ibv_dm dm;		/* handed out */
	size_t length;
	unsigned char *mem;
	int id;
};
static struct fdm *fdms[MAX_OBJS];
static int nfdm;
static int (*real_query_device_ex)(struct ibv_context *,
				   const struct ibv_query_device_ex_input *,
				   struct ibv_device_attr_ex *, size_t);

static struct fdm *by_dm(struct ibv_dm *dm)
{
	for (int i = 0; i < nfdm; i++)
		if (&fdms[i]->dm == dm)
			return fdms[i];
	return NULL;
}

static int fdm_to(struct ibv_dm *dm, uint64_t off, const void *src,
		  size_t len)
{
	struct fdm *f = by_dm(dm);

	if (!f || off + len > f->length)
		return EINVAL;
	memcpy(f->mem + off, src, len);
	return 0;
}

static int fdm_from(void *dst, struct ibv_dm *dm, uint64_t off, size_t len)
{
	struct fdm *f = by_dm(dm);

	if (!f || off + len > f->length)
		return EINVAL;
	memcpy(dst, f->mem + off, len);
	return 0;
}

static struct ibv_dm *fdm_alloc(struct ibv_context *c,
				struct ibv_alloc_dm_attr *a)
{
	struct fdm *f = calloc(1, sizeof(*f));

	if (!f || nfdm >= MAX_OBJS)
		abort();
	f->length = a->length;
	f->mem = calloc(1, a->length ? a->length : 1);
	f->id = nfdm + 1;
	f->dm.context = c;
	f->dm.memcpy_to_dm = fdm_to;
	f->dm.memcpy_from_dm = fdm_from;
	fdms[nfdm++] = f;
	plog("ibv_alloc_dm dev=%s length=%zu -> dm#%d", c->device->name,
	     f->length, f->id);
	return &f->dm;
}

static int fdm_free(struct ibv_dm *dm)
{
	struct fdm *f = by_dm(dm);

	if (!f || !f->mem) {
		plog("FATAL ibv_free_dm of a DM that is not live");
		abort();
	}
	plog("ibv_free_dm dm#%d", f->id);
	free(f->mem);
	f->mem = NULL;
	return 0;
}

static int fdm_query_device_ex(struct ibv_context *c,
			       const struct ibv_query_device_ex_input *in,
			       struct ibv_device_attr_ex *attr, size_t size)
{
	int rc = real_query_device_ex(c, in, attr, size);

	if (!rc)
		attr->max_dm_size = 65536;
	return rc;
}

struct ibv_context *ibv_open_device(struct ibv_device *d)
{
	struct ibv_context *c = REAL(ibv_open_device, "IBVERBS_1.1")(d);
	struct verbs_context *v = c ? verbs_get_ctx(c) : NULL;

	if (v && fake_dev(d) && getenv("PVFAKE_DM")) {
		real_query_device_ex = v->query_device_ex;
		v->query_device_ex = fdm_query_device_ex;
		v->alloc_dm = fdm_alloc;
		v->free_dm = fdm_free;
	}
	return c;
}

void *mlx5dv_dm_map_op_addr(struct ibv_dm *dm, uint8_t op)
{
	struct fdm *f = by_dm(dm);
	size_t page = sysconf(_SC_PAGESIZE), off, span;
	char *p;

	if (!f)
		return REAL(mlx5dv_dm_map_op_addr, "MLX5_1.19")(dm, op);
	off = strtoul(getenv("PVFAKE_DM"), NULL, 0) % page;
	span = (f->length + page - 1) / page * page;
	p = mmap(NULL, span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	memset(p, 0xdd, span);
	memcpy(p + off, f->mem, f->length < span - off ? f->length :
							 span - off);
	plog("mlx5dv_dm_map_op_addr dm#%d op=%u -> %zu bytes mapped, dm at "
	     "offset %zu", f->id, op, span, off);
	return p + off;
}

