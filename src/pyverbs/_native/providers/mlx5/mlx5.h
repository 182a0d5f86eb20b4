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

#endif
