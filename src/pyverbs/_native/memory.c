/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Memory at addresses that Python hands us as plain ints.
 *
 *   - pv_read_mem() / pv_write_mem(): copies that do not trust the address.
 *     They go through process_vm_readv/writev on our own pid (or, where a
 *     seccomp policy forbids those, through a pipe), so an unmapped,
 *     unreadable or read-only range raises PyverbsUserError instead of
 *     killing the interpreter.
 *   - the functions of pyverbs.mem_alloc (upstream's raw helpers: malloc,
 *     posix_memalign, free, mmap, munmap, madvise, read, write, read32,
 *     read64, writebe32, writebe64), built on those copies.  What they
 *     allocate or map is remembered, so that free() and munmap() refuse an
 *     address they did not hand out (which would corrupt the C heap or
 *     unmap Python's own memory) and a second free() of the same block.  A
 *     fixed mmap() never replaces an existing mapping (MAP_FIXED is sent as
 *     MAP_FIXED_NOREPLACE).  madvise() takes only whole pages of that
 *     memory or of an MR's own buffer (pv_mem_own()): MADV_DONTNEED and
 *     its kin empty the pages they are given, which anywhere else could be
 *     the interpreter's heap.
 *
 *   - the functions of pyverbs.dma_util: the user-space DMA barriers and
 *     single-store big-endian MMIO writes (doorbells), which check that the
 *     target lies in a writable mapping first.
 *
 * A write into a valid address that Python itself owns cannot be told from
 * a legitimate one; these functions are for memory the caller allocated.
 */
#include "memory.h" /* first: Python.h sets _GNU_SOURCE */
#include "errors.h"
#include "field.h"

#include <endian.h>
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* An address for messages: "0x0" for 0 (printf's %p would say (nil)). */
#define MEM_ADDR_LEN 24
static const char *mem_addr(char buf[MEM_ADDR_LEN], uint64_t addr)
{
	snprintf(buf, MEM_ADDR_LEN, "0x%" PRIx64, addr);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Fault-safe copies                                                   */
/* ------------------------------------------------------------------ */

/*
 * The fallback where process_vm_readv/writev are not allowed: a pipe.
 * write(2) from a bad source and read(2) into a bad destination fail with
 * EFAULT instead of faulting.  to_addr: copy buf into addr, else addr into
 * buf.  Returns 0 or -1 with errno set.
 */
static int mem_copy_pipe(void *buf, uint64_t addr, size_t len, int to_addr)
{
	char *ext = (char *)(uintptr_t)addr, *loc = buf;
	size_t off = 0;
	int p[2], rc = -1, err;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -1;
	while (off < len) {
		size_t n = len - off > 4096 ? 4096 : len - off;
		ssize_t w, r;

		w = write(p[1], (to_addr ? loc : ext) + off, n);
		if (w != (ssize_t)n) {
			if (w >= 0)
				errno = EFAULT;
			goto out;
		}
		r = read(p[0], (to_addr ? ext : loc) + off, n);
		if (r != (ssize_t)n) {
			if (r >= 0)
				errno = EFAULT;
			goto out;
		}
		off += n;
	}
	rc = 0;
out:
	err = errno;
	close(p[0]);
	close(p[1]);
	errno = err;
	return rc;
}

/* Returns 0, or -1 with PyverbsUserError set. */
static int mem_copy(void *buf, uint64_t addr, size_t len, int to_addr)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	char a[MEM_ADDR_LEN];
	ssize_t n;

	if (!len)
		return 0;
	if (addr + len < addr || addr + len - 1 > UINTPTR_MAX) {
		errno = EFAULT;
		goto fail;
	}
	/* Our own memory needs no ptrace permission. */
	n = to_addr ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0) :
		      process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		if (!mem_copy_pipe(buf, addr, len, to_addr))
			return 0;
	} else if (n >= 0) {
		errno = EFAULT; /* partial: the range ends in a hole */
	}
fail:
	pv_raise_user("Cannot %s %zu bytes at address %s: %s",
		      to_addr ? "write" : "read", len, mem_addr(a, addr),
		      strerror(errno));
	return -1;
}

int pv_read_mem(void *dst, uint64_t addr, size_t len)
{
	return mem_copy(dst, addr, len, 0);
}

int pv_write_mem(uint64_t addr, const void *src, size_t len)
{
	return mem_copy((void *)src, addr, len, 1);
}

/* ------------------------------------------------------------------ */
/* What mem_alloc handed out                                           */
/* ------------------------------------------------------------------ */

/*
 * MEM_HEAP: malloc()/posix_memalign() of mem_alloc; MEM_MAP: its mmap()
 * (the kernel maps whole pages); MEM_OWNED: a buffer pyverbs allocated in
 * whole pages for an object of its own (an MR's memory), which mem_alloc's
 * free()/munmap() do not take.
 */
enum { MEM_HEAP, MEM_MAP, MEM_OWNED };

/* address (int) -> (MEM_HEAP, MEM_MAP or MEM_OWNED, length) */
static PyObject *mem_blocks;

/*
 * A look-up and what follows from it (free() after finding the block, and
 * forgetting it) as one step: the GIL makes it one, and without the GIL a
 * lock of the registry's own does, so that two threads never free one
 * block twice.  Not mem_blocks' critical section: the dict's own calls
 * inside take it again, and on 3.13 that lets it go for a moment (seen:
 * three of eight threads freeing one block got past the look-up).  The
 * lock is the thread's again when code it runs (a finalizer) frees a
 * block: the step it interrupts then finds the block gone.  fn(arg) runs
 * inside; its result is returned.
 */
#ifdef Py_GIL_DISABLED
static PyMutex mem_mutex;
static const void *mem_owner;
static int mem_depth;
#endif

static PyObject *mem_locked(PyObject *(*fn)(void *), void *arg)
{
	PyObject *r;
#ifdef Py_GIL_DISABLED
	const void *me = PyThreadState_Get();

	if (__atomic_load_n(&mem_owner, __ATOMIC_ACQUIRE) != me) {
		PyMutex_Lock(&mem_mutex);
		__atomic_store_n(&mem_owner, me, __ATOMIC_RELEASE);
	}
	mem_depth++;
	r = fn(arg);
	if (--mem_depth == 0) {
		__atomic_store_n(&mem_owner, NULL, __ATOMIC_RELEASE);
		PyMutex_Unlock(&mem_mutex);
	}
#else
	r = fn(arg);
#endif
	return r;
}

static int mem_remember(void *p, int kind, size_t len)
{
	PyObject *key = PyLong_FromVoidPtr(p), *val;
	int rc = -1;

	val = Py_BuildValue("(in)", kind, (Py_ssize_t)len);
	if (key && val)
		rc = PyDict_SetItem(mem_blocks, key, val);
	Py_XDECREF(key);
	Py_XDECREF(val);
	return rc;
}

/*
 * Look addr up: 1 and *len if it is a block of this kind, 0 if not (a
 * PyverbsUserError is set), -1 on another error.
 */
static int mem_lookup(uint64_t addr, int kind, size_t *len, const char *fn)
{
	PyObject *key = PyLong_FromUnsignedLongLong(addr), *val;
	char a[MEM_ADDR_LEN];
	int k;
	Py_ssize_t n;

	if (!key)
		return -1;
	val = PyDict_GetItemWithError(mem_blocks, key);
	Py_DECREF(key);
	if (!val && PyErr_Occurred())
		return -1;
	if (!val || !PyArg_ParseTuple(val, "in", &k, &n) || k != kind) {
		PyErr_Clear();
		pv_raise_user("%s(): %s is not an address that "
			      "pyverbs.mem_alloc.%s() returned (or it was "
			      "released already)",
			      fn, mem_addr(a, addr),
			      kind == MEM_MAP ? "mmap" :
						"malloc/posix_memalign");
		return 0;
	}
	*len = (size_t)n;
	return 1;
}

static int mem_forget(uint64_t addr)
{
	PyObject *key = PyLong_FromUnsignedLongLong(addr);
	int rc;

	if (!key)
		return -1;
	rc = PyDict_DelItem(mem_blocks, key);
	Py_DECREF(key);
	return rc;
}

int pv_mem_own(void *p, size_t len)
{
	return mem_remember(p, MEM_OWNED, len);
}

void pv_mem_disown(void *p)
{
	PyObject *key, *et, *ev, *tb;

	if (!mem_blocks)
		return;
	PyErr_Fetch(&et, &ev, &tb); /* may run in a deallocator */
	key = PyLong_FromVoidPtr(p);
	if (!key || PyDict_DelItem(mem_blocks, key))
		PyErr_Clear();
	Py_XDECREF(key);
	PyErr_Restore(et, ev, tb);
}

/*
 * 1 if every page that [addr, addr + len) touches lies in one remembered
 * block (for a heap block, inside its bytes; the others span whole pages);
 * 0 with PyverbsUserError if not, -1 on another error.
 */
static int mem_owns_pages(uint64_t addr, size_t len, const char *fn)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), start, end;
	PyObject *key, *val;
	Py_ssize_t pos = 0;
	char a[MEM_ADDR_LEN];

	start = addr & ~(pg - 1);
	end = len > UINT64_MAX - addr - (pg - 1) ?
		      0 :
		      (addr + len + pg - 1) & ~(pg - 1);
	while (end && PyDict_Next(mem_blocks, &pos, &key, &val)) {
		uint64_t b = PyLong_AsUnsignedLongLong(key), bend;
		long kind = PyLong_AsLong(PyTuple_GET_ITEM(val, 0));
		Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(val, 1));

		if (PyErr_Occurred())
			return -1;
		bend = b + (uint64_t)n;
		if (kind == MEM_MAP)
			bend = (bend + pg - 1) & ~(pg - 1);
		if (start >= b && end <= bend)
			return 1;
	}
	pv_raise_user("%s(): the pages of %s (+%zu bytes) are not all in "
		      "memory that pyverbs allocated (mem_alloc.mmap(), "
		      "mem_alloc.malloc()/posix_memalign() or an MR's own "
		      "buffer)",
		      fn, mem_addr(a, addr), len);
	return 0;
}

/* ------------------------------------------------------------------ */
/* pyverbs.mem_alloc                                                   */
/* ------------------------------------------------------------------ */

/* addr + offset * unit, checked; 0 or -1 with OverflowError. */
static int mem_at(uint64_t addr, uint64_t offset, unsigned int unit,
		  uint64_t *out)
{
	if (offset > (UINT64_MAX - addr) / unit) {
		PyErr_SetString(PyExc_OverflowError,
				"address + offset is out of range");
		return -1;
	}
	*out = addr + offset * unit;
	return 0;
}

static PyObject *mem_malloc(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "size", NULL };
	size_t size;
	void *p;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:malloc", kwlist,
					 pv_conv_size, &size))
		return NULL;
	p = malloc(size ? size : 1);
	if (!p)
		return PyErr_Format(PyExc_MemoryError,
				    "Failed to allocate memory");
	if (mem_remember(p, MEM_HEAP, size)) {
		free(p);
		return NULL;
	}
	return PyLong_FromVoidPtr(p);
}

static PyObject *mem_posix_memalign(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "size", "alignment", NULL };
	size_t size, align = 8;
	void *p;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|O&:posix_memalign",
					 kwlist, pv_conv_size, &size,
					 pv_conv_size, &align))
		return NULL;
	if (align < sizeof(void *) || (align & (align - 1)))
		return PyErr_Format(PyExc_ValueError,
				    "alignment must be a power of two and a "
				    "multiple of %zu, not %zu",
				    sizeof(void *), align);
	rc = posix_memalign(&p, align, size ? size : 1);
	if (rc) /* an errno value; errno is not set */
		return PyErr_Format(PyExc_MemoryError,
				    "Failed to allocate memory (%s)",
				    strerror(rc));
	memset(p, 0, size);
	if (mem_remember(p, MEM_HEAP, size)) {
		free(p);
		return NULL;
	}
	return PyLong_FromVoidPtr(p);
}

static PyObject *mem_free_block(void *arg)
{
	uint64_t addr = *(uint64_t *)arg;
	size_t len;
	int rc;

	rc = mem_lookup(addr, MEM_HEAP, &len, "free");
	if (rc <= 0 || mem_forget(addr))
		return NULL;
	free((void *)(uintptr_t)addr);
	Py_RETURN_NONE;
}

static PyObject *mem_free(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "ptr", NULL };
	uint64_t addr;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&:free", kwlist,
					 pv_conv_u64, &addr))
		return NULL;
	if (!addr) /* free(NULL) */
		Py_RETURN_NONE;
	return mem_locked(mem_free_block, &addr);
}

static PyObject *mem_mmap(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "length", "prot", "flags",
				  "fd",	  "offset", NULL };
	uint64_t addr = 0, offset = 0;
	size_t length = 100;
	int prot = PROT_READ | PROT_WRITE;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS, fd = 0, err;
	void *p;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|O&O&O&O&O&O&:mmap", kwlist,
					 pv_conv_u64, &addr, pv_conv_size,
					 &length, pv_conv_int, &prot,
					 pv_conv_int, &flags, pv_conv_int, &fd,
					 pv_conv_u64, &offset))
		return NULL;
	if (offset > INT64_MAX)
		return PyErr_Format(PyExc_OverflowError,
				    "offset is out of range");
	/* never replace a mapping someone else owns */
	if (flags & MAP_FIXED)
		flags = (flags & ~MAP_FIXED) | MAP_FIXED_NOREPLACE;
	Py_BEGIN_ALLOW_THREADS
	p = mmap((void *)(uintptr_t)addr, length, prot, flags, fd,
		 (off_t)offset);
	err = errno;
	Py_END_ALLOW_THREADS
	if (p == MAP_FAILED)
		return PyErr_Format(PyExc_MemoryError,
				    "Failed to mmap memory (%s)",
				    strerror(err));
	if ((flags & MAP_FIXED_NOREPLACE) && (uintptr_t)p != addr) {
		/* a kernel older than 4.17 took the address as a hint */
		munmap(p, length);
		return PyErr_Format(PyExc_MemoryError,
				    "Failed to mmap memory (%s)",
				    strerror(EEXIST));
	}
	if (mem_remember(p, MEM_MAP, length)) {
		munmap(p, length);
		return NULL;
	}
	return PyLong_FromVoidPtr(p);
}

/* how many pages n bytes span (without overflowing near SIZE_MAX) */
static size_t mem_pages(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return n / pg + (n % pg != 0);
}

struct mem_range {
	uint64_t addr;
	size_t length;
	int advice;
};

static PyObject *mem_unmap_block(void *arg)
{
	uint64_t addr = ((struct mem_range *)arg)->addr;
	size_t length = ((struct mem_range *)arg)->length, mapped;
	char a[MEM_ADDR_LEN];
	int rc;

	rc = mem_lookup(addr, MEM_MAP, &mapped, "munmap");
	if (rc <= 0)
		return NULL;
	/* the kernel unmaps whole pages: a length that ends in the mapping's
	 * last page unmaps all of it (upstream's tests shrink msg_size
	 * between mmap and munmap), so the whole mapping is what goes */
	if (length != mapped && mem_pages(length) != mem_pages(mapped))
		return pv_raise_user("munmap(): %s was mapped with length "
				     "%zu, not %zu (unmap it whole)",
				     mem_addr(a, addr), mapped, length);
	if (munmap((void *)(uintptr_t)addr, mapped))
		return PyErr_Format(PyExc_MemoryError,
				    "Failed to munmap requested memory (%s)",
				    strerror(errno));
	if (mem_forget(addr))
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *mem_munmap(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "length", NULL };
	struct mem_range r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&:munmap", kwlist,
					 pv_conv_u64, &r.addr, pv_conv_size,
					 &r.length))
		return NULL;
	return mem_locked(mem_unmap_block, &r);
}

/* no thread frees the block meanwhile (mem_locked) */
static PyObject *mem_advise_block(void *arg)
{
	const struct mem_range *r = arg;

	if (r->length && mem_owns_pages(r->addr, r->length, "madvise") <= 0)
		return NULL;
	if (madvise((void *)(uintptr_t)r->addr, r->length, r->advice))
		return pv_raise_errno("madvise", "Failed to madvise memory");
	Py_RETURN_NONE;
}

static PyObject *mem_madvise(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "length", "flags", NULL };
	struct mem_range r = { .advice = MADV_DONTNEED };

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&:madvise", kwlist,
					 pv_conv_u64, &r.addr, pv_conv_size,
					 &r.length, pv_conv_int, &r.advice))
		return NULL;
	return mem_locked(mem_advise_block, &r);
}

static PyObject *mem_read(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "length", "offset", NULL };
	uint64_t addr, offset = 0;
	size_t length;
	PyObject *out;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O&|O&:read", kwlist,
					 pv_conv_u64, &addr, pv_conv_size,
					 &length, pv_conv_u64, &offset) ||
	    mem_at(addr, offset, 1, &addr))
		return NULL;
	if (length > PY_SSIZE_T_MAX)
		return PyErr_NoMemory();
	out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)length);
	if (out && pv_read_mem(PyBytes_AS_STRING(out), addr, length))
		Py_CLEAR(out);
	return out;
}

static PyObject *mem_write(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addr", "data", "length", "offset", NULL };
	uint64_t addr, offset = 0;
	PyObject *data, *res = NULL;
	size_t length;
	Py_buffer view;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O&OO&|O&:write", kwlist,
					 pv_conv_u64, &addr, &data,
					 pv_conv_size, &length, pv_conv_u64,
					 &offset) ||
	    mem_at(addr, offset, 1, &addr))
		return NULL;
	if (PyUnicode_Check(data)) { /* upstream encodes str */
		data = PyUnicode_AsUTF8String(data);
		if (!data)
			return NULL;
	} else {
		Py_INCREF(data);
	}
	if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE))
		goto out;
	if (length > (size_t)view.len)
		PyErr_Format(PyExc_ValueError,
			     "length %zu is more than the %zd bytes of data",
			     length, view.len);
	else if (!pv_write_mem(addr, view.buf, length))
		res = Py_NewRef(Py_None);
	PyBuffer_Release(&view);
out:
	Py_DECREF(data);
	return res;
}

/* read32/read64: the value at addr + offset * size, host byte order */
static PyObject *mem_read_n(PyObject *args, PyObject *kw, unsigned int size,
			    const char *fmt)
{
	static char *kwlist[] = { "addr", "offset", NULL };
	uint64_t addr, offset = 0, v64;
	uint32_t v32;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv_conv_u64,
					 &addr, pv_conv_u64, &offset) ||
	    mem_at(addr, offset, size, &addr))
		return NULL;
	if (size == 4)
		return pv_read_mem(&v32, addr, 4) ?
			       NULL :
			       PyLong_FromUnsignedLong(v32);
	return pv_read_mem(&v64, addr, 8) ? NULL :
					    PyLong_FromUnsignedLongLong(v64);
}

static PyObject *mem_read32(PyObject *m, PyObject *args, PyObject *kw)
{
	return mem_read_n(args, kw, 4, "O&|O&:read32");
}

static PyObject *mem_read64(PyObject *m, PyObject *args, PyObject *kw)
{
	return mem_read_n(args, kw, 8, "O&|O&:read64");
}

/* writebe32/writebe64: val, big endian, at addr + offset * size */
static PyObject *mem_writebe_n(PyObject *args, PyObject *kw, unsigned int size,
			       const char *fmt)
{
	static char *kwlist[] = { "addr", "val", "offset", NULL };
	uint64_t addr, val, offset = 0;
	PyObject *valo;
	uint32_t be32;
	uint64_t be64;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv_conv_u64,
					 &addr, &valo, pv_conv_u64, &offset) ||
	    pv_to_u64(valo, size == 4 ? UINT32_MAX : UINT64_MAX, &val, "val") ||
	    mem_at(addr, offset, size, &addr))
		return NULL;
	if (size == 4) {
		be32 = htobe32((uint32_t)val);
		if (pv_write_mem(addr, &be32, 4))
			return NULL;
	} else {
		be64 = htobe64(val);
		if (pv_write_mem(addr, &be64, 8))
			return NULL;
	}
	Py_RETURN_NONE;
}

static PyObject *mem_writebe32(PyObject *m, PyObject *args, PyObject *kw)
{
	return mem_writebe_n(args, kw, 4, "O&O|O&:writebe32");
}

static PyObject *mem_writebe64(PyObject *m, PyObject *args, PyObject *kw)
{
	return mem_writebe_n(args, kw, 8, "O&O|O&:writebe64");
}

#define MEM_FN(name, sig, doc)                            \
	{ #name, (PyCFunction)(void (*)(void))mem_##name, \
	  METH_VARARGS | METH_KEYWORDS, #name sig "\n--\n\n" doc }

static PyMethodDef mem_functions[] = {
	MEM_FN(malloc, "(size)",
	       "Allocate size bytes (malloc); return the address.  Release "
	       "it with free().  Raises MemoryError."),
	MEM_FN(posix_memalign, "(size, alignment=8)",
	       "Allocate size zeroed bytes aligned to alignment (a power of "
	       "two, at least 8); return the address.  Release it with "
	       "free()."),
	MEM_FN(free, "(ptr)",
	       "Release a block of malloc() or posix_memalign().  Any other "
	       "address, or a block released already, raises "
	       "PyverbsUserError; 0 does nothing."),
	MEM_FN(mmap,
	       "(addr=0, length=100, prot=PROT_READ_|"
	       "PROT_WRITE_, flags=MAP_PRIVATE_|MAP_ANONYMOUS_, fd=0, "
	       "offset=0)",
	       "mmap(2); return the address of the mapping.  MAP_FIXED_ "
	       "never replaces an existing mapping: the call fails instead. "
	       "Raises MemoryError."),
	MEM_FN(munmap, "(addr, length)",
	       "Unmap a whole mapping that mmap() returned (with the same "
	       "length); other addresses raise PyverbsUserError."),
	MEM_FN(madvise, "(addr, length, flags=MADV_DONTNEED_)",
	       "madvise(2): advise the kernel about the pages of addr "
	       "(page aligned) + length; MADV_DONTNEED_ (the default) empties "
	       "them.  They must be memory that pyverbs allocated (mmap(), "
	       "malloc()/posix_memalign() of this module, or an MR's own "
	       "buffer), else PyverbsUserError; the kernel's refusal raises "
	       "PyverbsRDMAError."),
	MEM_FN(read, "(addr, length, offset=0)",
	       "The length bytes at addr + offset, as bytes.  An unreadable "
	       "range raises PyverbsUserError."),
	MEM_FN(write, "(addr, data, length, offset=0)",
	       "Copy the first length bytes of data (bytes-like, or str, "
	       "encoded as UTF-8) to addr + offset.  An unwritable range "
	       "raises PyverbsUserError."),
	MEM_FN(read32, "(addr, offset=0)",
	       "The 32-bit value (host byte order) at addr + 4 * offset."),
	MEM_FN(read64, "(addr, offset=0)",
	       "The 64-bit value (host byte order) at addr + 8 * offset."),
	MEM_FN(writebe32, "(addr, val, offset=0)",
	       "Store val as 32-bit big endian at addr + 4 * offset."),
	MEM_FN(writebe64, "(addr, val, offset=0)",
	       "Store val as 64-bit big endian at addr + 8 * offset."),
	{ NULL }
};

/* ------------------------------------------------------------------ */
/* pyverbs.dma_util                                                    */
/* ------------------------------------------------------------------ */

/*
 * The barriers of rdma-core's util/udma_barrier.h (a private header): what
 * orders CPU stores before a device reads memory (to_device), and CPU loads
 * after a device wrote it (from_device).  x86 keeps stores in order and
 * needs only the compiler barrier for the first; the other architectures
 * get their device-ordering instructions; anything else a full fence.
 */
static inline void mem_to_device_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("dsb st" ::: "memory");
#elif defined(__powerpc__) || defined(__powerpc64__)
	__asm__ volatile("sync" ::: "memory");
#else
	__sync_synchronize();
#endif
}

static inline void mem_from_device_barrier(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("lfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("dsb ld" ::: "memory");
#elif defined(__powerpc__) || defined(__powerpc64__)
	__asm__ volatile("lwsync" ::: "memory");
#else
	__sync_synchronize();
#endif
}

static PyObject *dma_udma_to_dev_barrier(PyObject *m, PyObject *unused)
{
	mem_to_device_barrier();
	Py_RETURN_NONE;
}

static PyObject *dma_udma_from_dev_barrier(PyObject *m, PyObject *unused)
{
	mem_from_device_barrier();
	Py_RETURN_NONE;
}

/*
 * Is [addr, addr + len) inside one writable mapping of this process?  A
 * device register page (a UAR) is a mapping that process_vm_writev cannot
 * reach, so the MMIO writes check /proc/self/maps instead.  1 yes, 0 no,
 * -1 with an exception set.
 */
static int mem_writable_mapping(uint64_t addr, size_t len)
{
	unsigned long long lo, hi;
	char line[512], perms[8];
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "re");
	if (!f) {
		PyErr_SetFromErrnoWithFilename(PyExc_OSError,
					       "/proc/self/maps");
		return -1;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 &&
		    addr >= lo && addr + len <= hi && perms[1] == 'w')
			found = 1;
	}
	fclose(f);
	return found;
}

/* mmio_write32_as_be / mmio_write64_as_be: one aligned store of val */
static PyObject *dma_mmio_write_be(PyObject *args, PyObject *kw,
				   unsigned int size, const char *fmt)
{
	static char *kwlist[] = { "addr", "val", NULL };
	uint64_t addr, val;
	char a[MEM_ADDR_LEN];
	PyObject *valo;
	int rc;

	if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, pv_conv_u64,
					 &addr, &valo) ||
	    pv_to_u64(valo, size == 4 ? UINT32_MAX : UINT64_MAX, &val, "val"))
		return NULL;
	if (addr % size)
		return PyErr_Format(PyExc_ValueError,
				    "addr must be %u-byte aligned", size);
	rc = addr > UINT64_MAX - size ? 0 : mem_writable_mapping(addr, size);
	if (rc < 0)
		return NULL;
	if (!rc)
		return pv_raise_user("Cannot write %u bytes at address %s: "
				     "not in a writable mapping",
				     size, mem_addr(a, addr));
	/* a single store of the whole width, as a device register wants */
	if (size == 4)
		*(volatile uint32_t *)(uintptr_t)addr = htobe32((uint32_t)val);
	else
		*(volatile uint64_t *)(uintptr_t)addr = htobe64(val);
	Py_RETURN_NONE;
}

static PyObject *dma_mmio_write32_as_be(PyObject *m, PyObject *args,
					PyObject *kw)
{
	return dma_mmio_write_be(args, kw, 4, "O&O:mmio_write32_as_be");
}

static PyObject *dma_mmio_write64_as_be(PyObject *m, PyObject *args,
					PyObject *kw)
{
	return dma_mmio_write_be(args, kw, 8, "O&O:mmio_write64_as_be");
}

static PyMethodDef dma_functions[] = {
	{ "udma_to_dev_barrier", dma_udma_to_dev_barrier, METH_NOARGS,
	  "udma_to_dev_barrier()\n--\n\n"
	  "Order the CPU's earlier stores to memory before a device reads "
	  "it (before ringing a doorbell)." },
	{ "udma_from_dev_barrier", dma_udma_from_dev_barrier, METH_NOARGS,
	  "udma_from_dev_barrier()\n--\n\n"
	  "Order the CPU's later loads after the check that a device wrote "
	  "memory (after seeing a valid CQE owner bit)." },
	{ "mmio_write32_as_be",
	  (PyCFunction)(void (*)(void))dma_mmio_write32_as_be,
	  METH_VARARGS | METH_KEYWORDS,
	  "mmio_write32_as_be(addr, val)\n--\n\n"
	  "Store val as 32-bit big endian at addr (4-byte aligned, in a "
	  "writable mapping such as a device register page) in one store." },
	{ "mmio_write64_as_be",
	  (PyCFunction)(void (*)(void))dma_mmio_write64_as_be,
	  METH_VARARGS | METH_KEYWORDS,
	  "mmio_write64_as_be(addr, val)\n--\n\n"
	  "Store val as 64-bit big endian at addr (8-byte aligned, in a "
	  "writable mapping such as a device register page) in one store." },
	{ NULL }
};

#define MMAN(n) { #n "_", n }

static const struct {
	const char *name;
	long value;
} mem_mman[] = {
	MMAN(PROT_EXEC),
	MMAN(PROT_READ),
	MMAN(PROT_WRITE),
	MMAN(PROT_NONE),
	MMAN(MAP_PRIVATE),
	MMAN(MAP_SHARED),
	MMAN(MAP_FIXED),
	MMAN(MAP_ANONYMOUS),
	MMAN(MAP_STACK),
	MMAN(MAP_LOCKED),
	MMAN(MAP_HUGETLB),
	MMAN(MAP_POPULATE),
	MMAN(MAP_NORESERVE),
	MMAN(MAP_GROWSDOWN),
	/* madvise()'s advice (pyverbs-c's; upstream has none of these) */
	MMAN(MADV_NORMAL),
	MMAN(MADV_RANDOM),
	MMAN(MADV_SEQUENTIAL),
	MMAN(MADV_WILLNEED),
	MMAN(MADV_DONTNEED),
};

/*
 * A new dict {name: function} of the functions of defs, which carry the
 * module name modname (the Python module that re-exports them).
 */
static PyObject *mem_function_dict(PyMethodDef *defs, const char *modname)
{
	PyObject *d = PyDict_New(), *name = PyUnicode_FromString(modname);
	PyMethodDef *def;

	if (!d || !name)
		goto err;
	for (def = defs; def->ml_name; def++) {
		PyObject *v = PyCFunction_NewEx(def, NULL, name);

		if (!v || PyDict_SetItemString(d, def->ml_name, v)) {
			Py_XDECREF(v);
			goto err;
		}
		Py_DECREF(v);
	}
	Py_DECREF(name);
	return d;
err:
	Py_XDECREF(name);
	Py_XDECREF(d);
	return NULL;
}

/*
 * _verbs._mem_alloc: {name: function or constant} for pyverbs.mem_alloc;
 * _verbs._dma_util: {name: function} for pyverbs.dma_util.
 */
int pv_memory_init(PyObject *m)
{
	PyObject *d, *v;
	size_t i;

	mem_blocks = PyDict_New();
	if (!mem_blocks)
		return -1;
	d = mem_function_dict(mem_functions, "pyverbs.mem_alloc");
	if (!d)
		return -1;
	for (i = 0; i < sizeof(mem_mman) / sizeof(mem_mman[0]); i++) {
		v = PyLong_FromLong(mem_mman[i].value);
		if (!v || PyDict_SetItemString(d, mem_mman[i].name, v)) {
			Py_XDECREF(v);
			goto err;
		}
		Py_DECREF(v);
	}
	if (PyModule_AddObject(m, "_mem_alloc", d))
		goto err;
	d = mem_function_dict(dma_functions, "pyverbs.dma_util");
	if (!d)
		return -1;
	if (PyModule_AddObject(m, "_dma_util", d))
		goto err;
	return 0;
err:
	Py_DECREF(d);
	return -1;
}
