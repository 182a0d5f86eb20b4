/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Part of the recording double mlx5_double.c (which includes it at its end:
 * one translation unit, so that the parts share its object tables and
 * helpers): DR domains/tables/matchers/rules/actions and mlx5 flow steering.
 */
/* ------------------------------------------------------------- mlx5dr */
/*
 * Direct-rules matchers and rules, which rxe cannot make (its domain is
 * root-only and the matcher needs DevX): with PVFAKE_MLX5_DR set, a
 * matcher made on any table is a record, and so are the rules made on
 * such a matcher.  The model keeps libmlx5's refcounts: a table with
 * matchers, a matcher with rules and an action used by a rule refuse to be
 * destroyed with EBUSY (logged "-> EBUSY"), so a binding that closes in
 * the wrong order is seen.  Tables, domains and actions stay real. 
 */
struct fdr_matcher {
	int id;
	int live;
	int rules;			/* live rules on it */
	struct mlx5dv_dr_table *tbl;
};
struct fdr_rule {
	int id;
	int live;
	struct fdr_matcher *m;
	size_t nact;
	struct mlx5dv_dr_action *acts[16];
};
static struct fdr_matcher *dr_matchers[MAX_OBJS];
static int ndr_matcher;
static struct fdr_rule *dr_rules[MAX_OBJS];
static int ndr_rule;
/* real tables and actions named in the log: tbl#N, act#N */
static void *dr_tbls[MAX_OBJS], *dr_acts[MAX_OBJS];
static int ndr_tbl, ndr_act;


static int dr_on(void)
{
	return getenv("PVFAKE_MLX5_DR") != NULL;
}

static int dr_id(void **tab, int *n, void *p)
{
	for (int i = 0; i < *n; i++)
		if (tab[i] == p)
			return i + 1;
	if (*n >= MAX_OBJS)
		abort();
	tab[(*n)++] = p;
	return *n;
}

static struct fdr_matcher *dr_matcher_of(void *p)
{
	for (int i = 0; i < ndr_matcher; i++)
		if ((void *)dr_matchers[i] == p)
			return dr_matchers[i];
	return NULL;
}

static struct fdr_rule *dr_rule_of(void *p)
{
	for (int i = 0; i < ndr_rule; i++)
		if ((void *)dr_rules[i] == p)
			return dr_rules[i];
	return NULL;
}

/* live rules using action a */
static int dr_act_refs(struct mlx5dv_dr_action *a)
{
	int n = 0;

	for (int i = 0; i < ndr_rule; i++)
		for (size_t j = 0; dr_rules[i]->live && j < dr_rules[i]->nact;
		     j++)
			n += dr_rules[i]->acts[j] == a;
	return n;
}

struct mlx5dv_dr_matcher *
mlx5dv_dr_matcher_create(struct mlx5dv_dr_table *tbl, uint16_t prio,
			 uint8_t mce, struct mlx5dv_flow_match_parameters *mask)
{
	struct fdr_matcher *m;

	if (!dr_on())
		return REAL(mlx5dv_dr_matcher_create, "MLX5_1.10")(tbl, prio,
								    mce, mask);
	m = calloc(1, sizeof(*m));
	if (!m || ndr_matcher >= MAX_OBJS || !mask)
		abort();
	m->id = ndr_matcher + 1;
	m->live = 1;
	m->tbl = tbl;
	dr_matchers[ndr_matcher++] = m;
	plog("mlx5dv_dr_matcher_create tbl#%d priority=%u mce=0x%x "
	     "mask.match_sz=%zu -> matcher#%d",
	     dr_id(dr_tbls, &ndr_tbl, tbl), prio, mce, mask->match_sz, m->id);
	return (struct mlx5dv_dr_matcher *)m;
}

int mlx5dv_dr_matcher_destroy(struct mlx5dv_dr_matcher *matcher)
{
	struct fdr_matcher *m = dr_matcher_of(matcher);

	if (!m)
		return REAL(mlx5dv_dr_matcher_destroy, "MLX5_1.10")(matcher);
	if (!m->live)
		abort();		/* a double destroy */
	if (m->rules) {
		plog("mlx5dv_dr_matcher_destroy matcher#%d -> EBUSY", m->id);
		errno = EBUSY;
		return EBUSY;
	}
	m->live = 0;
	plog("mlx5dv_dr_matcher_destroy matcher#%d", m->id);
	return 0;
}

int mlx5dv_dr_matcher_set_layout(struct mlx5dv_dr_matcher *matcher,
				 struct mlx5dv_dr_matcher_layout *layout)
{
	struct fdr_matcher *m = dr_matcher_of(matcher);

	if (!m)
		return REAL(mlx5dv_dr_matcher_set_layout, "MLX5_1.21")(
			matcher, layout);
	if (!m->live)
		abort();
	plog("mlx5dv_dr_matcher_set_layout matcher#%d flags=0x%x "
	     "log_num_of_rules_hint=%u", m->id, layout->flags,
	     layout->log_num_of_rules_hint);
	return 0;
}

struct mlx5dv_dr_rule *
mlx5dv_dr_rule_create(struct mlx5dv_dr_matcher *matcher,
		      struct mlx5dv_flow_match_parameters *value,
		      size_t num_actions, struct mlx5dv_dr_action *actions[])
{
	struct fdr_matcher *m = dr_matcher_of(matcher);
	struct fdr_rule *r;
	char buf[512];
	size_t len = 0;

	if (!m)
		return REAL(mlx5dv_dr_rule_create, "MLX5_1.10")(
			matcher, value, num_actions, actions);
	if (!m->live || !value || num_actions > 16)
		abort();
	r = calloc(1, sizeof(*r));
	if (!r || ndr_rule >= MAX_OBJS)
		abort();
	r->id = ndr_rule + 1;
	r->live = 1;
	r->m = m;
	r->nact = num_actions;
	buf[0] = 0;
	for (size_t i = 0; i < num_actions; i++) {
		if (!actions[i])
			abort();
		r->acts[i] = actions[i];
		len += snprintf(buf + len, sizeof(buf) - len, " act#%d",
				dr_id(dr_acts, &ndr_act, actions[i]));
	}
	m->rules++;
	dr_rules[ndr_rule++] = r;
	plog("mlx5dv_dr_rule_create matcher#%d value.match_sz=%zu "
	     "actions=[%s ] -> rule#%d", m->id, value->match_sz, buf, r->id);
	return (struct mlx5dv_dr_rule *)r;
}

int mlx5dv_dr_rule_destroy(struct mlx5dv_dr_rule *rule)
{
	struct fdr_rule *r = dr_rule_of(rule);

	if (!r)
		return REAL(mlx5dv_dr_rule_destroy, "MLX5_1.10")(rule);
	if (!r->live)
		abort();
	r->live = 0;
	r->m->rules--;
	plog("mlx5dv_dr_rule_destroy rule#%d", r->id);
	return 0;
}

int mlx5dv_dr_table_destroy(struct mlx5dv_dr_table *tbl)
{
	int rc;

	for (int i = 0; dr_on() && i < ndr_matcher; i++)
		if (dr_matchers[i]->live && dr_matchers[i]->tbl == tbl) {
			plog("mlx5dv_dr_table_destroy tbl#%d -> EBUSY",
			     dr_id(dr_tbls, &ndr_tbl, tbl));
			errno = EBUSY;
			return EBUSY;
		}
	rc = REAL(mlx5dv_dr_table_destroy, "MLX5_1.10")(tbl);
	if (dr_on())
		plog("mlx5dv_dr_table_destroy tbl#%d -> %d",
		     dr_id(dr_tbls, &ndr_tbl, tbl), rc);
	return rc;
}

static int fmeter_destroy(struct mlx5dv_dr_action *a); /* mlx5_double_65.c */

int mlx5dv_dr_action_destroy(struct mlx5dv_dr_action *a)
{
	if (dr_on() && dr_act_refs(a)) {
		plog("mlx5dv_dr_action_destroy act#%d -> EBUSY",
		     dr_id(dr_acts, &ndr_act, a));
		errno = EBUSY;
		return EBUSY;
	}
	if (dr_on()) {
		for (int i = 0; i < ndr_act; i++)
			if (dr_acts[i] == a) {
				plog("mlx5dv_dr_action_destroy act#%d", i + 1);
				dr_acts[i] = NULL;	/* may be reused */
			}
	}
	if (fmeter_destroy(a))		/* a record of the double's */
		return 0;
	return REAL(mlx5dv_dr_action_destroy, "MLX5_1.10")(a);
}

/*
 * Flow steering (mlx5dv_flow): with PVFAKE_MLX5_DR set, flow matchers,
 * packet-reformat flow actions and flows are records too.  The flows and
 * actions handed out name a verbs context of the double's own (ibv_flow's
 * and ibv_flow_action's destroy are inline in verbs.h and go through the
 * context's ops), whose destroy ops log and keep the refcounts: a matcher
 * with flows and an action used by a flow refuse with EBUSY.
 */
struct fflow_matcher {
	int id, live, flows;
};
struct fflow_action {
	struct ibv_flow_action fa;	/* handed out */
	int id, live, flows;
};
struct fflow {
	struct ibv_flow flow;		/* handed out */
	int id, live;
	struct fflow_matcher *m;
	struct fflow_action *acts[8];
	size_t nact;
};
static struct fflow_matcher *fl_matchers[MAX_OBJS];
static int nfl_matcher;
static struct fflow_action *fl_actions[MAX_OBJS];
static int nfl_action;
static struct fflow *fl_flows[MAX_OBJS];
static int nfl_flow;
static struct verbs_context *fl_vctx;

static struct fflow_matcher *fl_matcher_of(void *p)
{
	for (int i = 0; i < nfl_matcher; i++)
		if ((void *)fl_matchers[i] == p)
			return fl_matchers[i];
	return NULL;
}

static struct fflow_action *fl_action_of(void *p)
{
	for (int i = 0; i < nfl_action; i++)
		if ((void *)fl_actions[i] == p)
			return fl_actions[i];
	return NULL;
}

static int fl_destroy_flow(struct ibv_flow *flow)
{
	struct fflow *f = NULL;

	for (int i = 0; i < nfl_flow; i++)
		if (&fl_flows[i]->flow == flow)
			f = fl_flows[i];
	if (!f || !f->live)
		abort();
	f->live = 0;
	f->m->flows--;
	for (size_t i = 0; i < f->nact; i++)
		f->acts[i]->flows--;
	plog("ibv_destroy_flow flow#%d", f->id);
	return 0;
}

static int fl_destroy_action(struct ibv_flow_action *fa)
{
	struct fflow_action *a = fl_action_of(fa);

	if (!a || !a->live)
		abort();
	if (a->flows) {
		plog("ibv_destroy_flow_action fa#%d -> EBUSY", a->id);
		return EBUSY;
	}
	a->live = 0;
	plog("ibv_destroy_flow_action fa#%d", a->id);
	return 0;
}

static struct ibv_context *fl_context(void)
{
	if (!fl_vctx) {
		fl_vctx = calloc(1, sizeof(*fl_vctx));
		if (!fl_vctx)
			abort();
		fl_vctx->sz = sizeof(*fl_vctx);
		fl_vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
		fl_vctx->ibv_destroy_flow = fl_destroy_flow;
		fl_vctx->destroy_flow_action = fl_destroy_action;
	}
	return &fl_vctx->context;
}

struct mlx5dv_flow_matcher *
mlx5dv_create_flow_matcher(struct ibv_context *c,
			   struct mlx5dv_flow_matcher_attr *attr)
{
	struct fflow_matcher *m;

	if (!dr_on())
		return REAL(mlx5dv_create_flow_matcher, "MLX5_1.6")(c, attr);
	m = calloc(1, sizeof(*m));
	if (!m || nfl_matcher >= MAX_OBJS || !attr->match_mask)
		abort();
	m->id = nfl_matcher + 1;
	m->live = 1;
	fl_matchers[nfl_matcher++] = m;
	plog("mlx5dv_create_flow_matcher type=%d flags=0x%x priority=%u "
	     "mce=0x%x mask.match_sz=%zu comp_mask=0x%llx ft_type=%d "
	     "-> fm#%d", attr->type, attr->flags, attr->priority,
	     attr->match_criteria_enable, attr->match_mask->match_sz,
	     (unsigned long long)attr->comp_mask, attr->ft_type, m->id);
#if PVFAKE_RDMA >= 57
	if (attr->comp_mask & MLX5DV_FLOW_MATCHER_MASK_IB_PORT)
		plog(" ib_port=%u", attr->ib_port);
#endif
	return (struct mlx5dv_flow_matcher *)m;
}

int mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	struct fflow_matcher *m = fl_matcher_of(matcher);

	if (!m)
		return REAL(mlx5dv_destroy_flow_matcher, "MLX5_1.6")(matcher);
	if (!m->live)
		abort();
	if (m->flows) {
		plog("mlx5dv_destroy_flow_matcher fm#%d -> EBUSY", m->id);
		return EBUSY;
	}
	m->live = 0;
	plog("mlx5dv_destroy_flow_matcher fm#%d", m->id);
	return 0;
}

struct ibv_flow_action *mlx5dv_create_flow_action_packet_reformat(
	struct ibv_context *c, size_t data_sz, void *data,
	enum mlx5dv_flow_action_packet_reformat_type type,
	enum mlx5dv_flow_table_type ft_type)
{
	struct fflow_action *a;

	if (!dr_on())
		return REAL(mlx5dv_create_flow_action_packet_reformat,
			    "MLX5_1.7")(c, data_sz, data, type, ft_type);
	a = calloc(1, sizeof(*a));
	if (!a || nfl_action >= MAX_OBJS || (data_sz && !data))
		abort();
	a->id = nfl_action + 1;
	a->live = 1;
	a->fa.context = fl_context();
	fl_actions[nfl_action++] = a;
	plog("mlx5dv_create_flow_action_packet_reformat data_sz=%zu type=%d "
	     "ft_type=%d -> fa#%d", data_sz, type, ft_type, a->id);
	return &a->fa;
}

/*
 * rdma-core 65 made mlx5dv_create_flow a macro over __mlx5dv_create_flow
 * (which also takes the attribute's size); libmlx5 still exports the old
 * function for binaries built against older headers: both are replaced.
 */
#ifdef mlx5dv_create_flow
#undef mlx5dv_create_flow
struct ibv_flow *mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				    struct mlx5dv_flow_match_parameters *value,
				    size_t num_actions,
				    struct mlx5dv_flow_action_attr actions[]);
#define PVFAKE_FLOW_ATTR_LEN 1
#endif

/* " devx#N" (dest), " counter(devx#N)" or " counter(devx#N+off)"; the
 * DevX objects are the double's records (mlx5_double_devx.c) */
static int fl_devx_action(char *buf, size_t size,
			  const struct mlx5dv_flow_action_attr *a)
{
	const struct fx *x;

	switch ((int)a->type) {
	case MLX5DV_FLOW_ACTION_DEST_DEVX:
		x = fx_live(a->obj, FX_DEVX, "mlx5dv_create_flow");
		return snprintf(buf, size, " devx#%d", x->id);
	case MLX5DV_FLOW_ACTION_COUNTERS_DEVX:
		x = fx_live(a->obj, FX_DEVX, "mlx5dv_create_flow");
		return snprintf(buf, size, " counter(devx#%d)", x->id);
#if PVFAKE_RDMA >= 60
	case MLX5DV_FLOW_ACTION_COUNTERS_DEVX_WITH_OFFSET:
		x = fx_live(a->bulk_obj.obj, FX_DEVX, "mlx5dv_create_flow");
		return snprintf(buf, size, " counter(devx#%d+%u)", x->id,
				a->bulk_obj.offset);
#endif
	}
	abort();
}

struct ibv_flow *mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				    struct mlx5dv_flow_match_parameters *value,
				    size_t num_actions,
				    struct mlx5dv_flow_action_attr actions[])
{
	struct fflow_matcher *m = fl_matcher_of(matcher);
	struct fflow *f;
	char buf[512];
	size_t len = 0;

	if (!m)
		return REAL(mlx5dv_create_flow, "MLX5_1.6")(
			matcher, value, num_actions, actions);
	if (!m->live || !value || num_actions > 8)
		abort();
	f = calloc(1, sizeof(*f));
	if (!f || nfl_flow >= MAX_OBJS)
		abort();
	buf[0] = 0;
	for (size_t i = 0; i < num_actions; i++) {
		if (actions[i].type == MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION) {
			struct fflow_action *a =
				fl_action_of(actions[i].action);

			if (!a || !a->live)
				abort();
			f->acts[f->nact++] = a;
			len += snprintf(buf + len, sizeof(buf) - len,
					" fa#%d", a->id);
		} else if (actions[i].type == MLX5DV_FLOW_ACTION_DEST_IBV_QP) {
			if (!actions[i].qp)
				abort();
			len += snprintf(buf + len, sizeof(buf) - len,
					" qp%s", actions[i].qp->qp_type ==
					IBV_QPT_UD ? "(ud)" : "");
		} else {
			len += fl_devx_action(buf + len, sizeof(buf) - len,
					      &actions[i]);
		}
	}
	f->id = nfl_flow + 1;
	f->live = 1;
	f->m = m;
	f->flow.context = fl_context();
	m->flows++;
	for (size_t i = 0; i < f->nact; i++)
		f->acts[i]->flows++;
	fl_flows[nfl_flow++] = f;
	plog("mlx5dv_create_flow fm#%d value.match_sz=%zu actions=[%s ] "
	     "-> flow#%d", m->id, value->match_sz, buf, f->id);
	return &f->flow;
}

#ifdef PVFAKE_FLOW_ATTR_LEN
struct ibv_flow *__mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				      struct mlx5dv_flow_match_parameters *value,
				      size_t num_actions,
				      struct mlx5dv_flow_action_attr actions[],
				      size_t attr_len)
{
	if (!fl_matcher_of(matcher))
		return REAL(__mlx5dv_create_flow, "MLX5_1.25.1")(
			matcher, value, num_actions, actions, attr_len);
	if (attr_len != sizeof(struct mlx5dv_flow_action_attr)) {
		plog("FATAL __mlx5dv_create_flow attr_len=%zu", attr_len);
		abort();
	}
	return mlx5dv_create_flow(matcher, value, num_actions, actions);
}
#endif

/* mlx5dv_create_flow_action_modify_header: a record, as packet reformat's */
struct ibv_flow_action *
mlx5dv_create_flow_action_modify_header(struct ibv_context *c,
					size_t actions_sz, uint64_t actions[],
					enum mlx5dv_flow_table_type ft_type)
{
	struct fflow_action *a;
	char h[80];

	if (!dr_on())
		return REAL(mlx5dv_create_flow_action_modify_header,
			    "MLX5_1.7")(c, actions_sz, actions, ft_type);
	a = calloc(1, sizeof(*a));
	if (!a || nfl_action >= MAX_OBJS || (actions_sz && !actions))
		abort();
	a->id = nfl_action + 1;
	a->live = 1;
	a->fa.context = fl_context();
	fl_actions[nfl_action++] = a;
	hex(h, sizeof(h), actions, actions_sz < 16 ? actions_sz : 16);
	plog("mlx5dv_create_flow_action_modify_header actions_sz=%zu "
	     "actions=%s ft_type=%d -> fa#%d", actions_sz, h, ft_type, a->id);
	return &a->fa;
}
