/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * pyverbs.providers.mlx5: mlx5 direct verbs over libmlx5 (built when meson
 * finds libmlx5; PV_HAVE_MLX5).  One C file per object family, each with
 * its pv_mlx5_<family>_init_types(), called in order by mlx5.c.
 */
#ifndef PV_MLX5_H
#define PV_MLX5_H

#include "pyverbs.h"
#include <infiniband/mlx5dv.h>

/* Each family's type registration (0, or -1 with an exception set). */
/* mlx5ctx */

/* mlx5qp */

/* mlx5objs */
int pv_mlx5_devx_init_types(PyObject *m);	/* devx.c */
int pv_mlx5_wqe_init_types(PyObject *m);	/* wqe.c */
int pv_mlx5_sched_init_types(PyObject *m);	/* sched.c */
/* devx.c: destroy what a failed constructor created (o->destroy), keeping
 * the exception set; a failing destroy is reported as unraisable. */
void pv_mlx5_undo_create(struct pv_obj *o);

/* mlx5dr */


/*
 * Accessors one family offers the others.  Declared weak so that a family
 * builds and is tested before the one defining them is merged: a caller
 * checks the pointer and raises NotImplementedError when it is NULL.
 */

/* mlx5ctx: the Mlx5CryptoAttr obj as a struct for one call (its dek pointer
 * stays valid while obj lives); 0, or -1 with TypeError. */
int pv_mlx5_crypto_attr_get(PyObject *obj, struct mlx5dv_crypto_attr *out)
	__attribute__((weak));
/* mlx5ctx: 1 if obj is an Mlx5Context (or subclass), else 0. */
int pv_mlx5_is_context(PyObject *obj) __attribute__((weak));

/* mlx5objs: the open Mlx5dvSchedLeaf obj's leaf; NULL with an exception
 * (TypeError for another type, closed object error). */
struct mlx5dv_sched_leaf *pv_mlx5_sched_leaf_get(PyObject *obj)
	__attribute__((weak));
/* mlx5objs: the open Mlx5DevxObj obj's mlx5dv_devx_obj; NULL with an
 * exception. */
struct mlx5dv_devx_obj *pv_mlx5_devx_obj_get(PyObject *obj)
	__attribute__((weak));

#endif
