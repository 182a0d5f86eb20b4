/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * DmaBuf (pyverbs.dmabuf) and DmaBufMR (pyverbs.mr): memory of a DRM (GPU)
 * device exported as a dma-buf file descriptor, and an MR registered over
 * it with ibv_reg_dmabuf_mr().
 *
 * DmaBuf(size, gpu=0, gtt=0) opens /dev/dri/renderD<128 + gpu>, asks the
 * driver for a GEM buffer of size bytes and exports it with
 * DRM_IOCTL_PRIME_HANDLE_TO_FD.  amdgpu (gtt: GTT instead of VRAM) and i915
 * have their own create/mmap ioctls; every other driver goes through dumb
 * buffers (DRM_IOCTL_MODE_CREATE_DUMB / MAP_DUMB).  The kernel refuses dumb
 * buffers on render nodes (EACCES), so for those the buffer is made on the
 * primary node (/dev/dri/cardN) of the same device when one can be opened;
 * that is how vgem, the virtual GEM driver, serves them.
 *
 * Only the stable kernel ABI of the ioctls is needed, declared below, so
 * the build needs neither libdrm nor the kernel's drm headers.
 *
 * Lifetimes: a DmaBufMR is a child of its PD and of its DmaBuf (closing
 * either deregisters the MR first).  A DmaBuf that DmaBufMR allocated itself
 * (dmabuf=None) belongs to that MR: it is closed right after the MR is
 * deregistered, and closing it closes the MR first ('owner').
 */
#include "dmabuf.h"
#include "errors.h"
#include "field.h"
#include "init.h"
#include "mr.h"
#include "object.h"
#include "pd.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <dirent.h>

/* ---- the DRM ioctls (include/uapi/drm/drm.h, drm_mode.h, amdgpu_drm.h,
 * i915_drm.h) ---- */

struct pv_drm_version {
	int major, minor, patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};
struct pv_drm_gem_close {
	uint32_t handle, pad;
};
struct pv_drm_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};
struct pv_drm_create_dumb {
	uint32_t height, width, bpp, flags;
	uint32_t handle, pitch;
	uint64_t size;
};
struct pv_drm_map_dumb {
	uint32_t handle, pad;
	uint64_t offset;
};
union pv_amdgpu_gem_create {
	struct {
		uint64_t bo_size, alignment, domains, domain_flags;
	} in;
	struct {
		uint32_t handle, pad;
	} out;
};
union pv_amdgpu_gem_mmap {
	struct {
		uint32_t handle, pad;
	} in;
	struct {
		uint64_t addr_ptr;
	} out;
};
struct pv_i915_gem_create {
	uint64_t size;
	uint32_t handle, pad;
};
struct pv_i915_gem_mmap_gtt {
	uint32_t handle, pad;
	uint64_t offset;
};

#define PV_DRM_IOCTL_BASE 'd'
#define PV_DRM_CMD_BASE 0x40 /* DRM_COMMAND_BASE: driver ioctls */
#define PV_DRM_IOCTL_VERSION \
	_IOWR(PV_DRM_IOCTL_BASE, 0x00, struct pv_drm_version)
#define PV_DRM_IOCTL_GEM_CLOSE \
	_IOW(PV_DRM_IOCTL_BASE, 0x09, struct pv_drm_gem_close)
#define PV_DRM_IOCTL_PRIME_HANDLE_TO_FD \
	_IOWR(PV_DRM_IOCTL_BASE, 0x2d, struct pv_drm_prime_handle)
#define PV_DRM_IOCTL_MODE_CREATE_DUMB \
	_IOWR(PV_DRM_IOCTL_BASE, 0xb2, struct pv_drm_create_dumb)
#define PV_DRM_IOCTL_MODE_MAP_DUMB \
	_IOWR(PV_DRM_IOCTL_BASE, 0xb3, struct pv_drm_map_dumb)
#define PV_AMDGPU_IOCTL_GEM_CREATE                       \
	_IOWR(PV_DRM_IOCTL_BASE, PV_DRM_CMD_BASE + 0x00, \
	      union pv_amdgpu_gem_create)
#define PV_AMDGPU_IOCTL_GEM_MMAP                         \
	_IOWR(PV_DRM_IOCTL_BASE, PV_DRM_CMD_BASE + 0x01, \
	      union pv_amdgpu_gem_mmap)
#define PV_AMDGPU_GEM_DOMAIN_GTT 0x2
#define PV_AMDGPU_GEM_DOMAIN_VRAM 0x4
#define PV_AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED (1 << 0)
#define PV_AMDGPU_GEM_CREATE_CPU_GTT_USWC (1 << 2)
#define PV_I915_IOCTL_GEM_CREATE                         \
	_IOWR(PV_DRM_IOCTL_BASE, PV_DRM_CMD_BASE + 0x1b, \
	      struct pv_i915_gem_create)
#define PV_I915_IOCTL_GEM_MMAP_GTT                       \
	_IOWR(PV_DRM_IOCTL_BASE, PV_DRM_CMD_BASE + 0x24, \
	      struct pv_i915_gem_mmap_gtt)

/* ioctl() that retries on EINTR/EAGAIN as libdrm's drmIoctl does.
 * Returns 0 or an errno value. */
static int drm_ioctl(int fd, unsigned long req, void *arg)
{
	int rc;

	do
		rc = ioctl(fd, req, arg);
	while (rc == -1 && (errno == EINTR || errno == EAGAIN));
	return rc ? errno : 0;
}

/* ---- per-driver allocation: each returns 0 or an errno value ---- */

static int amdgpu_alloc(int fd, uint64_t size, int gtt, uint32_t *handle,
			uint64_t *offset)
{
	union pv_amdgpu_gem_create c = { 0 };
	union pv_amdgpu_gem_mmap m = { 0 };
	int rc;

	c.in.bo_size = size;
	c.in.domains = gtt ? PV_AMDGPU_GEM_DOMAIN_GTT :
			     PV_AMDGPU_GEM_DOMAIN_VRAM;
	c.in.domain_flags = gtt ? PV_AMDGPU_GEM_CREATE_CPU_GTT_USWC :
				  PV_AMDGPU_GEM_CREATE_CPU_ACCESS_REQUIRED;
	rc = drm_ioctl(fd, PV_AMDGPU_IOCTL_GEM_CREATE, &c);
	if (rc)
		return rc;
	*handle = c.out.handle;
	m.in.handle = *handle;
	rc = drm_ioctl(fd, PV_AMDGPU_IOCTL_GEM_MMAP, &m);
	*offset = m.out.addr_ptr;
	return rc;
}

static int i915_alloc(int fd, uint64_t size, int gtt, uint32_t *handle,
		      uint64_t *offset)
{
	struct pv_i915_gem_create c = { .size = size };
	struct pv_i915_gem_mmap_gtt m = { 0 };
	int rc;

	rc = drm_ioctl(fd, PV_I915_IOCTL_GEM_CREATE, &c);
	if (rc)
		return rc;
	*handle = c.handle;
	m.handle = *handle;
	rc = drm_ioctl(fd, PV_I915_IOCTL_GEM_MMAP_GTT, &m);
	*offset = m.offset;
	return rc;
}

/* A dumb buffer of rows of one page (8 bits per pixel) covering size. */
#define DUMB_WIDTH 4096u
static int dumb_alloc(int fd, uint64_t size, int gtt, uint32_t *handle,
		      uint64_t *offset)
{
	struct pv_drm_create_dumb c = { .width = DUMB_WIDTH, .bpp = 8 };
	struct pv_drm_map_dumb m = { 0 };
	uint64_t rows = (size + DUMB_WIDTH - 1) / DUMB_WIDTH;
	int rc;

	if (rows > UINT32_MAX)
		return EINVAL;
	c.height = (uint32_t)rows;
	rc = drm_ioctl(fd, PV_DRM_IOCTL_MODE_CREATE_DUMB, &c);
	if (rc)
		return rc;
	*handle = c.handle;
	m.handle = *handle;
	rc = drm_ioctl(fd, PV_DRM_IOCTL_MODE_MAP_DUMB, &m);
	*offset = m.offset;
	return rc;
}

typedef int (*drm_alloc_fn)(int fd, uint64_t size, int gtt, uint32_t *handle,
			    uint64_t *offset);

static const struct {
	const char *driver;
	drm_alloc_fn alloc;
} drm_drivers[] = {
	{ "amdgpu", amdgpu_alloc },
	{ "i915", i915_alloc },
};

static drm_alloc_fn drm_pick_alloc(int fd)
{
	char name[32] = "";
	struct pv_drm_version v = { .name_len = sizeof(name) - 1,
				    .name = name };
	size_t i;

	if (drm_ioctl(fd, PV_DRM_IOCTL_VERSION, &v))
		return dumb_alloc;
	for (i = 0; i < sizeof(drm_drivers) / sizeof(drm_drivers[0]); i++)
		if (!strcmp(name, drm_drivers[i].driver))
			return drm_drivers[i].alloc;
	return dumb_alloc;
}

/* The primary node (/dev/dri/cardN) of the device behind render node fd,
 * opened; -1 if there is none we can open. */
static int drm_open_primary(int render_fd)
{
	char path[96];
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int fd = -1;

	if (fstat(render_fd, &st) || !S_ISCHR(st.st_mode))
		return -1;
	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device/drm",
		 major(st.st_rdev), minor(st.st_rdev));
	dir = opendir(path);
	if (!dir)
		return -1;
	while (fd < 0 && (d = readdir(dir))) {
		unsigned int n;
		char extra;

		if (sscanf(d->d_name, "card%u%c", &n, &extra) != 1)
			continue;
		snprintf(path, sizeof(path), "/dev/dri/card%u", n);
		fd = open(path, O_RDWR | O_CLOEXEC);
	}
	closedir(dir);
	return fd;
}

/* ---- DmaBuf ---- */

struct pv_dmabuf {
	struct pv_obj obj;
	int drm_fd;	     /* the DRM node the buffer was made on */
	int fd;		     /* the exported dma-buf */
	uint32_t handle;     /* GEM handle on drm_fd */
	uint64_t map_offset; /* for mmap() of drm_fd */
	uint64_t size;
	int gpu, gtt;
	void *map;	      /* CPU mapping of size bytes, made on demand */
	struct pv_obj *owner; /* the DmaBufMR that allocated us (borrowed) */
};

/* Close what is set; leaves every resource unset. */
static void dmabuf_release(struct pv_dmabuf *self)
{
	if (self->map) {
		munmap(self->map, (size_t)self->size);
		self->map = NULL;
	}
	if (self->fd >= 0) {
		close(self->fd);
		self->fd = -1;
	}
	if (self->drm_fd >= 0) {
		struct pv_drm_gem_close c = { .handle = self->handle };

		if (self->handle)
			drm_ioctl(self->drm_fd, PV_DRM_IOCTL_GEM_CLOSE, &c);
		close(self->drm_fd);
		self->drm_fd = -1;
	}
	self->handle = 0;
}

static int dmabuf_destroy(struct pv_obj *o)
{
	struct pv_dmabuf *self = (struct pv_dmabuf *)o;
	struct pv_obj *owner = self->owner;

	/* Our MR goes first; its destroy comes back to close us, which
	 * finds us closing and returns. */
	if (owner) {
		self->owner = NULL;
		if (pv_close(owner)) {
			self->owner = owner;
			return -1;
		}
	}
	dmabuf_release(self);
	return 0;
}

/* Allocate and export; 0 or an errno value (resources set so far are left
 * for dmabuf_release). */
static int dmabuf_alloc(struct pv_dmabuf *self, uint64_t size, int gpu, int gtt)
{
	char path[32];
	drm_alloc_fn alloc;
	struct pv_drm_prime_handle ph = { .flags = O_RDWR | O_CLOEXEC };
	int rc;

	snprintf(path, sizeof(path), "/dev/dri/renderD%d", 128 + gpu);
	self->drm_fd = open(path, O_RDWR | O_CLOEXEC);
	if (self->drm_fd < 0)
		return errno;
	alloc = drm_pick_alloc(self->drm_fd);
	rc = alloc(self->drm_fd, size, gtt, &self->handle, &self->map_offset);
	if (rc == EACCES && alloc == dumb_alloc && !self->handle) {
		int fd = drm_open_primary(self->drm_fd);

		if (fd >= 0) {
			close(self->drm_fd);
			self->drm_fd = fd;
			rc = alloc(fd, size, gtt, &self->handle,
				   &self->map_offset);
		}
	}
	if (rc)
		return rc;
	ph.handle = self->handle;
	rc = drm_ioctl(self->drm_fd, PV_DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph);
	if (rc)
		return rc;
	self->fd = ph.fd;
	return 0;
}

/* gtt: an int or a bool (rdma-core's tests pass a bool). */
static int conv_gtt(PyObject *v, void *out)
{
	if (PyBool_Check(v)) {
		*(int *)out = v == Py_True;
		return 1;
	}
	return pv_conv_int(v, out);
}

static int dmabuf_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "size", "gpu", "gtt", NULL };
	struct pv_dmabuf *self = (struct pv_dmabuf *)obj;
	uint64_t size;
	int gpu = 0, gtt = 0, rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&O&:DmaBuf", kwlist,
					 pv_conv_u64, &size, pv_conv_uint, &gpu,
					 conv_gtt, &gtt))
		return -1;
	if (!self->obj.closed || self->fd > 0) {
		pv_raise_user("DmaBuf is already initialised");
		return -1;
	}
	if (gpu > 0xffff) {
		PyErr_Format(PyExc_OverflowError, "gpu %d is out of range",
			     gpu);
		return -1;
	}
	pv_obj_setup(&self->obj, dmabuf_destroy);
	self->drm_fd = self->fd = -1;
	rc = dmabuf_alloc(self, size, gpu, gtt);
	if (rc) {
		dmabuf_release(self);
		pv_raise_rc(rc, "DmaBuf",
			    "Failed to allocate dmabuf of size %llu on gpu %d",
			    (unsigned long long)size, gpu);
		return -1;
	}
	self->size = size;
	self->gpu = gpu;
	self->gtt = !!gtt;
	pv_obj_opened(&self->obj);
	return 0;
}

/* The buffer's CPU mapping, made on first use. */
static char *dmabuf_map(struct pv_dmabuf *self)
{
	void *p;

	if (pv_check_open(&self->obj))
		return NULL;
	if (self->map)
		return self->map;
	if (self->size > SIZE_MAX) {
		pv_raise_user("dma-buf too large to map");
		return NULL;
	}
	p = mmap(NULL, self->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->drm_fd, (off_t)self->map_offset);
	if (p == MAP_FAILED) {
		pv_raise_errno("mmap", "Failed to map dma-buf of size %llu",
			       (unsigned long long)self->size);
		return NULL;
	}
	self->map = p;
	return p;
}

#define DMABUF_GETTER(name, expr)                                        \
	static PyObject *dmabuf_get_##name(PyObject *obj, void *closure) \
	{                                                                \
		struct pv_dmabuf *self = (struct pv_dmabuf *)obj;        \
		if (pv_check_open(&self->obj))                           \
			return NULL;                                     \
		return PyLong_FromUnsignedLongLong(expr);                \
	}
DMABUF_GETTER(fd, self->fd)
DMABUF_GETTER(drm_fd, self->drm_fd)
DMABUF_GETTER(handle, self->handle)
DMABUF_GETTER(map_offset, self->map_offset)
DMABUF_GETTER(size, self->size)
DMABUF_GETTER(gpu, self->gpu)
DMABUF_GETTER(gtt, self->gtt)

static PyGetSetDef dmabuf_getset[] = {
	{ "fd", dmabuf_get_fd, NULL, "The dma-buf file descriptor.", NULL },
	{ "drm_fd", dmabuf_get_drm_fd, NULL,
	  "The file descriptor of the DRM node holding the buffer.", NULL },
	{ "handle", dmabuf_get_handle, NULL, "The GEM handle on drm_fd.",
	  NULL },
	{ "map_offset", dmabuf_get_map_offset, NULL,
	  "Offset to mmap() drm_fd at to reach the buffer.", NULL },
	{ "size", dmabuf_get_size, NULL, "Size in bytes.", NULL },
	{ "gpu", dmabuf_get_gpu, NULL, "The GPU unit (renderD128 + gpu).",
	  NULL },
	{ "gtt", dmabuf_get_gtt, NULL, "Allocated from GTT (amdgpu).", NULL },
	{ NULL }
};

PV_GC_TYPE_SPEC(
	dmabuf, "pyverbs.dmabuf.DmaBuf", struct pv_dmabuf,
	"DmaBuf(size, gpu=0, gtt=0)\n--\n\n"
	"A buffer of size bytes allocated on the DRM device "
	"/dev/dri/renderD<128 + gpu> and exported as a dma-buf (usually "
	"needs membership of the 'render' group).  gtt: allocate from GTT "
	"instead of VRAM (amdgpu).  Raises PyverbsRDMAError with the errno "
	"on failure (ENOENT: no such device).",
	{ Py_tp_init, dmabuf_init }, { Py_tp_getset, dmabuf_getset },
	PV_CM_SLOTS, );

/* ---- DmaBufMR ---- */

/* struct pv_dmabuf_mr: dmabuf.h */

static int dmabuf_mr_destroy(struct pv_obj *o)
{
	struct pv_dmabuf_mr *self = (struct pv_dmabuf_mr *)o;

	if (pv_mr_destroy(o))
		return -1;
	if (self->internal) {
		struct pv_dmabuf *db = (struct pv_dmabuf *)self->dmabuf;

		self->internal = 0;
		db->owner = NULL;
		if (pv_close(&db->obj))
			PyErr_WriteUnraisable(self->dmabuf);
	}
	return 0;
}

int pv_dmabuf_fd(PyObject *o)
{
	struct pv_dmabuf *db = (struct pv_dmabuf *)o;

	return pv_check_open(&db->obj) ? -1 : db->fd;
}

char *pv_dmabuf_mr_mem(struct pv_mr *mr)
{
	struct pv_dmabuf_mr *self = (struct pv_dmabuf_mr *)mr;
	char *p;

	if (!self->dmabuf || !PyObject_TypeCheck(self->dmabuf, pv.DmaBuf)) {
		pv_raise_user("read/write need the MR's dma-buf as a DmaBuf "
			      "object, not a file descriptor");
		return NULL;
	}
	p = dmabuf_map((struct pv_dmabuf *)self->dmabuf);
	return p ? p + self->offset : NULL;
}

static int dmabuf_mr_init(PyObject *obj, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "pd",	    "length", "access", "dmabuf",
				  "offset", "gpu",    "gtt",	NULL };
	struct pv_dmabuf_mr *self = (struct pv_dmabuf_mr *)obj;
	PyObject *pdobj, *dbobj = Py_None, *gpu = NULL, *gtt = NULL;
	struct pv_dmabuf *db = NULL;
	uint64_t length, offset = 0;
	unsigned int access;
	struct pv_pd *pd;
	int fd;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "OO&O&|OO&OO:DmaBufMR",
					 kwlist, &pdobj, pv_conv_u64, &length,
					 pv_conv_u32, &access, &dbobj,
					 pv_conv_u64, &offset, &gpu, &gtt))
		return -1;
	if (!self->mr.obj.closed || self->mr.obj.nparents || self->mr.mr) {
		pv_raise_user("DmaBufMR is already initialised");
		return -1;
	}
	pd = pv_pd_arg(pdobj);
	if (!pd)
		return -1;
	if (length > SIZE_MAX || offset > UINT64_MAX - length) {
		PyErr_SetString(PyExc_OverflowError,
				"length + offset is out of range");
		return -1;
	}
	if (dbobj == Py_None) {
		PyObject *kwargs = PyDict_New(), *sz;

		sz = PyLong_FromUnsignedLongLong(length + offset);
		if (kwargs && sz &&
		    (!gpu || !PyDict_SetItemString(kwargs, "gpu", gpu)) &&
		    (!gtt || !PyDict_SetItemString(kwargs, "gtt", gtt)))
			dbobj = PyObject_VectorcallDict((PyObject *)pv.DmaBuf,
							&sz, 1, kwargs);
		else
			dbobj = NULL;
		Py_XDECREF(sz);
		Py_XDECREF(kwargs);
		if (!dbobj)
			return -1;
		self->internal = 1;
	} else if (PyObject_TypeCheck(dbobj, pv.DmaBuf)) {
		Py_INCREF(dbobj);
	} else if (PyLong_Check(dbobj) && !PyBool_Check(dbobj)) {
		Py_INCREF(dbobj);
	} else {
		PyErr_Format(PyExc_TypeError,
			     "dmabuf must be a DmaBuf, a file descriptor or "
			     "None, not %.100s",
			     Py_TYPE(dbobj)->tp_name);
		return -1;
	}
	Py_XSETREF(self->dmabuf, dbobj);
	if (PyObject_TypeCheck(dbobj, pv.DmaBuf)) {
		db = (struct pv_dmabuf *)dbobj;
		if (pv_check_open(&db->obj))
			return -1;
		fd = db->fd;
	} else if (pv_conv_int(dbobj, &fd) == 0) {
		return -1;
	}
	pv_obj_setup(&self->mr.obj, dmabuf_mr_destroy);
	self->mr.mem = pv_dmabuf_mr_mem;
	self->offset = offset;
	self->mr.mr =
		ibv_reg_dmabuf_mr(pd->pd, offset, length, offset, fd, access);
	if (!self->mr.mr) {
		pv_raise_errno("ibv_reg_dmabuf_mr",
			       "Failed to register a dma-buf MR. length: %llu, "
			       "access flags: %u",
			       (unsigned long long)length, access);
		goto err;
	}
	self->mr.length = length;
	if (pv_obj_link(&self->mr.obj, &pd->obj) ||
	    (db && !self->internal && pv_obj_link(&self->mr.obj, &db->obj))) {
		pv_mr_destroy(&self->mr.obj);
		goto err;
	}
	if (self->internal)
		db->owner = &self->mr.obj;
	pv_obj_opened(&self->mr.obj);
	return 0;
err:
	if (self->internal) {
		PyObject *et, *ev, *tb;

		self->internal = 0;
		PyErr_Fetch(&et, &ev, &tb);
		if (pv_close(&db->obj))
			PyErr_WriteUnraisable(dbobj);
		PyErr_Restore(et, ev, tb);
	}
	return -1;
}

static PyObject *dmabuf_mr_get_dmabuf(PyObject *obj, void *closure)
{
	PyObject *d = ((struct pv_dmabuf_mr *)obj)->dmabuf;

	return Py_NewRef(d ? d : Py_None);
}

static PyObject *dmabuf_mr_get_offset(PyObject *obj, void *closure)
{
	return PyLong_FromUnsignedLongLong(
		((struct pv_dmabuf_mr *)obj)->offset);
}

static PyGetSetDef dmabuf_mr_getset[] = {
	{ "dmabuf", dmabuf_mr_get_dmabuf, NULL,
	  "The DmaBuf (or file descriptor) the MR is registered on.", NULL },
	{ "offset", dmabuf_mr_get_offset, NULL,
	  "Byte offset of the MR in the dma-buf (also its iova).", NULL },
	{ NULL }
};

static int dmabuf_mr_traverse(PyObject *obj, visitproc visit, void *arg)
{
	Py_VISIT(((struct pv_dmabuf_mr *)obj)->dmabuf);
	return pv.MR->tp_traverse(obj, visit, arg);
}

static int dmabuf_mr_clear(PyObject *obj)
{
	struct pv_dmabuf_mr *self = (struct pv_dmabuf_mr *)obj;

	pv.MR->tp_clear(obj); /* closes us if still open */
	if (self->internal && !self->mr.mr) {
		((struct pv_dmabuf *)self->dmabuf)->owner = NULL;
		self->internal = 0;
	}
	if (!self->internal)
		Py_CLEAR(self->dmabuf);
	return 0;
}

static void dmabuf_mr_dealloc(PyObject *obj)
{
	struct pv_dmabuf_mr *self = (struct pv_dmabuf_mr *)obj;

	/* pv_obj_dealloc() runs tp_clear; an internal DmaBuf still owned
	 * (our close failed) must not keep a pointer to us. */
	if (self->internal && self->dmabuf) {
		((struct pv_dmabuf *)self->dmabuf)->owner = NULL;
		self->internal = 0;
	}
	pv_obj_dealloc(obj);
}

PV_GC_TYPE_SPEC(
	dmabuf_mr, "pyverbs.mr.DmaBufMR", struct pv_dmabuf_mr,
	"DmaBufMR(pd, length, access, dmabuf=None, offset=0, gpu=0, "
	"gtt=0)\n--\n\n"
	"An MR over [offset, offset + length) of a dma-buf "
	"(ibv_reg_dmabuf_mr, iova = offset).  dmabuf: a DmaBuf, a dma-buf "
	"file descriptor, or None to allocate a DmaBuf(length + offset, gpu, "
	"gtt) that lives as long as the MR.  read()/write() go through a "
	"CPU mapping of the DmaBuf.",
	{ Py_tp_init, dmabuf_mr_init }, { Py_tp_getset, dmabuf_mr_getset },
	{ Py_tp_traverse, dmabuf_mr_traverse },
	{ Py_tp_clear, dmabuf_mr_clear },
	{ Py_tp_dealloc, dmabuf_mr_dealloc }, );

int pv_dmabuf_init_types(PyObject *m)
{
	static const struct pv_type_def types[] = {
		{ &dmabuf_spec, &pv.PyverbsCM, &pv.DmaBuf },
		{ &dmabuf_mr_spec, &pv.MR, &pv.DmaBufMR },
		{ NULL }
	};

	return pv_add_types(m, types);
}
