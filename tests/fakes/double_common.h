/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * What the recording doubles (mlx5_double.c, efa_double.c) share: finding
 * the real entry point, the call log, and which devices are faked.  The
 * includer defines PVFAKE_LIB (the provider library's soname) and
 * PVFAKE_DEVICES (the environment variable listing the faked devices,
 * comma-separated) first.
 */
#ifndef PVFAKE_DOUBLE_COMMON_H
#define PVFAKE_DOUBLE_COMMON_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#define REAL(name, ver) ((__typeof__(&name))real_sym(#name, ver))

/* The real one, at its exact version: next in the global scope, else in
 * the provider library, which the Python extension linking it may have
 * loaded RTLD_LOCAL (out of RTLD_NEXT's sight).  Missing: abort. */
static void *real_sym(const char *name, const char *ver)
{
	void *p = dlvsym(RTLD_NEXT, name, ver);
	void *lib;

	if (!p && (lib = dlopen(PVFAKE_LIB, RTLD_NOW | RTLD_LOCAL)))
		p = dlvsym(lib, name, ver);	/* the handle stays open */
	if (!p) {
		fprintf(stderr, "pvfake: no %s@%s\n", name, ver);
		abort();
	}
	return p;
}

/* One line to $PVFAKE_LOG (stderr without it). */
static void plog(const char *fmt, ...)
{
	const char *path = getenv("PVFAKE_LOG");
	FILE *f = path ? fopen(path, "a") : stderr;
	va_list ap;

	if (!f)
		abort();
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	if (f != stderr)
		fclose(f);
}

/* Whether d is one of the devices $PVFAKE_DEVICES names. */
static int fake_dev(struct ibv_device *d)
{
	const char *list = getenv(PVFAKE_DEVICES);
	size_t n;

	if (!d || !list)
		return 0;
	n = strlen(d->name);
	for (const char *p = list; (p = strstr(p, d->name)); p += n)
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return 1;
	return 0;
}

#endif
