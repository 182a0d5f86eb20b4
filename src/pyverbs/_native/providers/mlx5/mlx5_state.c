/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * The mlx5 provider's state: its type pointers (struct pv_mlx5_types), set
 * by each family's registration and read by any file.  A unit of its own,
 * the lowest of the provider: it calls nothing, so no family reaches
 * another's file for a type.
 */
#include "mlx5.h"

struct pv_mlx5_types pv_mlx5;
