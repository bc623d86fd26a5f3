// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of wsx's pure parts: the runq (wsx_runq.h), the victim
 * order and global batch formulas (wsx_order.h), the victim tables by
 * distance (wsx_victims.h) for generated topologies, and the bounds on what
 * the system and users hand the module (wsx_bounds.h) at values no test
 * machine has.  Built as wsx_kunit.ko
 * when the kernel has KUnit (the debug kernels of `make check-debug`).
 *
 * The race tests run an owner and thieves on a runq (and on a runnext slot)
 * at once, in kthreads, and check that every item is taken exactly once:
 * what the protocol comment of wsx_runq.h promises, and what KCSAN watches.
 * A hook holds the owner's runnext take between its peek and its xchg
 * while the thieves run, so that they steal inside it.
 *
 * The park tests use the executor of wsx.ko, loaded before this module:
 * wsx_park() and wsx_ready() (kmod/wsx.h, docs/park.md) with live Ms, and
 * the channels built on them (chan.c).
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "wsx.h"

/*
 * The runq's snapshot point (between its loads of head and tail): a test
 * may set wsx_runq_churn to a runq, which the next snapshot of that runq
 * then finds changed under it, as an owner and a thief would leave it.
 */
struct wsx_runq;
static struct wsx_runq *wsx_runq_churn;
static void wsx_runq_churn_once(const struct wsx_runq *r);
#define wsx_runq_snapshot_point(r)	wsx_runq_churn_once(r)

/*
 * The owner's runnext take, between its peek and its xchg: a test may set
 * wsx_runnext_window to a runnext slot, whose takes then wait there for
 * the thieves, counting in wsx_runnext_window_steals each take whose item
 * a thief took meanwhile.  A take that kept the item it peeked (a plain
 * store of NULL for the xchg) then returns it twice, each time; one that
 * read runnext again before its store opens its window after this point,
 * which the litmus variant runq-get-runnext-peek-once+load-store (and
 * KCSAN, its accesses being plain) covers instead.
 */
static struct wsx_item **wsx_runnext_window;
static atomic_t wsx_runnext_window_steals;
static void wsx_runnext_wait_for_thieves(struct wsx_item **runnext);
#define wsx_runnext_peek_point(rn)	wsx_runnext_wait_for_thieves(rn)

#include "wsx_bounds.h"
#include "wsx_order.h"
#include "wsx_runq.h"
#include "wsx_victims.h"

/* A consumer takes one item and the owner puts one: still full. */
static void wsx_runq_churn_once(const struct wsx_runq *r)
{
	struct wsx_runq *runq = wsx_runq_churn;

	if (runq != r)
		return;
	wsx_runq_churn = NULL;
	wsx_runq_push(runq, wsx_runq_pop(runq));
}

static void wsx_runnext_wait_for_thieves(struct wsx_item **runnext)
{
	if (runnext != READ_ONCE(wsx_runnext_window))
		return;
	udelay(2);
	if (!READ_ONCE(*runnext))
		atomic_inc(&wsx_runnext_window_steals);
}

/* Items are fake pointers: id + 1, so that NULL is never an item. */
static struct wsx_item *wsx_fake(unsigned long id)
{
	return (struct wsx_item *)(id + 1);
}

static unsigned long wsx_fake_id(struct wsx_item *item)
{
	return (unsigned long)item - 1;
}

static void wsx_runq_at(struct wsx_runq *r, u32 start)
{
	wsx_runq_init(r);
	r->head = start;
	r->tail = start;
}

static void runq_fifo_full_empty(struct kunit *test)
{
	struct wsx_runq *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	wsx_runq_init(r);
	KUNIT_EXPECT_NULL(test, wsx_runq_pop(r));
	for (i = 0; i < WSX_RUNQ_SIZE; i++)
		KUNIT_EXPECT_TRUE(test, wsx_runq_push(r, wsx_fake(i)));
	KUNIT_EXPECT_FALSE(test, wsx_runq_push(r, wsx_fake(999)));
	KUNIT_EXPECT_EQ(test, wsx_runq_len(r), WSX_RUNQ_SIZE);
	for (i = 0; i < WSX_RUNQ_SIZE; i++)
		KUNIT_EXPECT_EQ(test, wsx_fake_id(wsx_runq_pop(r)), i);
	KUNIT_EXPECT_NULL(test, wsx_runq_pop(r));
	KUNIT_EXPECT_TRUE(test, wsx_runq_empty(r));
}

/*
 * A full runq that an owner and a consumer churn between the two loads of a
 * snapshot (head, one get and one put, tail: tail - head = 257) is full,
 * not empty: the parking M's recheck asks wsx_runq_empty().
 */
static void runq_len_churning_full_runq(struct kunit *test)
{
	struct wsx_runq *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	wsx_runq_init(r);
	for (i = 0; i < WSX_RUNQ_SIZE; i++)
		KUNIT_ASSERT_TRUE(test, wsx_runq_push(r, wsx_fake(i)));
	wsx_runq_churn = r;
	KUNIT_EXPECT_EQ(test, wsx_runq_len(r), WSX_RUNQ_SIZE);
	KUNIT_EXPECT_NULL(test, wsx_runq_churn);	/* the point was hit */
	wsx_runq_churn = r;
	KUNIT_EXPECT_FALSE(test, wsx_runq_empty(r));
	wsx_runq_churn = NULL;
}

/* The free-running u32 indices wrap past 2^32 without a hitch. */
static void runq_wraps_32_bit_indices(struct kunit *test)
{
	struct wsx_runq *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long i, next = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	wsx_runq_at(r, 0xffffff00U);
	for (i = 0; i < 1000; i++) {
		KUNIT_ASSERT_TRUE(test, wsx_runq_push(r, wsx_fake(i)));
		if (i >= 100)		/* FIFO: the oldest comes out */
			KUNIT_EXPECT_EQ(test, wsx_fake_id(wsx_runq_pop(r)),
					next++);
	}
	KUNIT_EXPECT_LT(test, r->tail, 0x1000U);	/* tail wrapped */
	KUNIT_EXPECT_EQ(test, wsx_runq_len(r), 100U);
}

/* A full runq's spill takes its oldest half, in order; others nothing. */
static void runq_take_half_only_when_full(struct kunit *test)
{
	struct wsx_runq *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct wsx_item *batch[WSX_RUNQ_SIZE / 2];
	unsigned long i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	wsx_runq_at(r, 0xfffffff0U);
	for (i = 0; i < WSX_RUNQ_SIZE - 1; i++)
		wsx_runq_push(r, wsx_fake(i));
	KUNIT_EXPECT_EQ(test, wsx_runq_take_half(r, batch), 0U);
	wsx_runq_push(r, wsx_fake(i));
	KUNIT_ASSERT_EQ(test, wsx_runq_take_half(r, batch), WSX_RUNQ_SIZE / 2);
	for (i = 0; i < WSX_RUNQ_SIZE / 2; i++)
		KUNIT_EXPECT_EQ(test, wsx_fake_id(batch[i]), i);
	KUNIT_EXPECT_EQ(test, wsx_fake_id(wsx_runq_pop(r)), WSX_RUNQ_SIZE / 2);
}

/* Steal n - n/2 (half), 1 (one) or n (all) of the oldest, into dst's tail. */
static void runq_grab_amounts(struct kunit *test)
{
	static const u32 sizes[] = { 0, 1, 2, 3, 4, 255, 256 };
	static const enum wsx_steal_policy policies[] = {
		WSX_STEAL_HALF, WSX_STEAL_ONE, WSX_STEAL_ALL, WSX_STEAL_NONE,
	};
	struct wsx_runq *v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);
	struct wsx_runq *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	unsigned int s, p;

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, d);
	for (p = 0; p < ARRAY_SIZE(policies); p++) {
		for (s = 0; s < ARRAY_SIZE(sizes); s++) {
			u32 n = sizes[s], want, got, seen = ~0U, i;
			u64 fails = 0;

			wsx_runq_at(v, 0xffffff80U);
			wsx_runq_at(d, 7);
			for (i = 0; i < n; i++)
				wsx_runq_push(v, wsx_fake(i));
			want = wsx_steal_amount(policies[p], n);
			got = wsx_runq_grab(v, d, d->tail, policies[p], &seen,
					    &fails);
			KUNIT_EXPECT_EQ_MSG(test, got, want,
					    "policy %u, %u queued", p, n);
			if (got)
				KUNIT_EXPECT_EQ(test, seen, n);
			KUNIT_EXPECT_EQ(test, fails, 0ULL);
			for (i = 0; i < got; i++)
				KUNIT_EXPECT_EQ(test,
						wsx_fake_id(d->slots[(7 + i) &
							    WSX_RUNQ_MASK]), i);
			KUNIT_EXPECT_EQ(test, wsx_runq_len(v), n - got);
		}
	}
	KUNIT_EXPECT_EQ(test, wsx_steal_amount(WSX_STEAL_HALF, 1), 1U);
	KUNIT_EXPECT_EQ(test, wsx_steal_amount(WSX_STEAL_HALF, 255), 128U);
}

/* How many distinct Ps one round of the victim order visits. */
static unsigned int order_round_visits(unsigned int start,
				       unsigned int stride, unsigned int n)
{
	DECLARE_BITMAP(seen, 64);
	unsigned int i, pos = start;

	bitmap_zero(seen, 64);
	for (i = 0; i < n; i++) {
		__set_bit(pos, seen);
		pos = wsx_order_next(pos, stride, n);
	}
	return bitmap_weight(seen, 64);
}

/* The victim order visits each P exactly once per round, for 1..64 Ps. */
static void order_visits_every_p_once(struct kunit *test)
{
	unsigned int *strides = kunit_kcalloc(test, 64, sizeof(*strides),
					      GFP_KERNEL);
	unsigned int n, k, c, start;

	KUNIT_ASSERT_NOT_NULL(test, strides);
	for (n = 1; n <= 64; n++) {
		k = wsx_coprimes_fill(strides, n);
		KUNIT_EXPECT_GE(test, k, 1U);
		for (c = 0; c < k; c++) {
			for (start = 0; start < n; start++)
				KUNIT_EXPECT_EQ(test,
						order_round_visits(start,
								   strides[c],
								   n), n);
		}
	}
}

static void global_batch_formula(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wsx_gq_batch(0, 4, 0), 0U);
	KUNIT_EXPECT_EQ(test, wsx_gq_batch(1, 4, 0), 1U);
	KUNIT_EXPECT_EQ(test, wsx_gq_batch(20, 4, 0), 6U);	/* 20/4+1 */
	KUNIT_EXPECT_EQ(test, wsx_gq_batch(3, 1, 0), 3U);	/* len */
	KUNIT_EXPECT_EQ(test, wsx_gq_batch(10000, 2, 0), 128U);
	KUNIT_EXPECT_EQ(test, wsx_gq_batch(20, 4, 1), 1U);	/* tick */
	KUNIT_EXPECT_EQ(test, wsx_gq_batch(20, 0, 0), 20U);
}

/* ---- races: an owner against thieves -------------------------------- */

#define RACE_ITEMS	200000
#define RACE_THIEVES	2
#define RACE_ROUNDS	20	/* at most, until both kinds of steal happened */

struct race {
	struct wsx_runq *victim;
	struct wsx_item *runnext;	/* the owner xchg's, thieves cmpxchg */
	atomic_t *taken;		/* per id */
	atomic_t runq_stolen;		/* ids the thieves took from the runq */
	atomic_t runnext_stolen;	/* and from runnext */
	atomic_t done;
	struct completion finished;
	bool stop;
};

static void race_take(struct race *r, struct wsx_item *item)
{
	atomic_inc(&r->taken[wsx_fake_id(item)]);
}

static int race_thief(void *arg)
{
	struct race *r = arg;
	struct wsx_runq *mine = kzalloc(sizeof(*mine), GFP_KERNEL);
	struct wsx_item *next;
	u32 n, i, seen;
	u64 fails = 0;

	while (mine && !READ_ONCE(r->stop)) {
		wsx_runq_init(mine);
		preempt_disable();
		n = wsx_runq_grab(r->victim, mine, 0, WSX_STEAL_HALF, &seen,
				  &fails);
		preempt_enable();
		for (i = 0; i < n; i++)
			race_take(r, mine->slots[i]);
		atomic_add(n, &r->runq_stolen);
		next = READ_ONCE(r->runnext);
		if (next && cmpxchg(&r->runnext, next, NULL) == next) {
			race_take(r, next);
			atomic_inc(&r->runnext_stolen);
		}
		cond_resched();
	}
	kfree(mine);
	if (atomic_inc_return(&r->done) == RACE_THIEVES)
		complete(&r->finished);
	return 0;
}

/* One race of RACE_ITEMS ids; how many were taken exactly once. */
static unsigned long race_round(struct kunit *test, struct race *r)
{
	struct wsx_item *item;
	unsigned long id, once = 0;
	int t;

	memset(r->taken, 0, RACE_ITEMS * sizeof(atomic_t));
	wsx_runq_init(r->victim);
	r->runnext = NULL;
	WRITE_ONCE(r->stop, false);
	atomic_set(&r->done, 0);
	init_completion(&r->finished);
	for (t = 0; t < RACE_THIEVES; t++) {
		struct task_struct *thief;

		thief = kthread_run(race_thief, r, "wsx_kunit/%d", t);
		KUNIT_ASSERT_FALSE(test, IS_ERR(thief));
	}
	for (id = 0; id < RACE_ITEMS; id++) {
		item = xchg(&r->runnext, wsx_fake(id));
		if (item && !wsx_runq_push(r->victim, item))
			race_take(r, item);	/* full: the owner runs it */
		if (id % 3 == 0) {
			item = wsx_runnext_take(&r->runnext);
			if (!item)
				item = wsx_runq_pop(r->victim);
			if (item)
				race_take(r, item);
		}
		if (id % 1024 == 0)
			cond_resched();
	}
	while ((item = wsx_runq_pop(r->victim)))
		race_take(r, item);
	item = wsx_runnext_take(&r->runnext);
	if (item)
		race_take(r, item);
	WRITE_ONCE(r->stop, true);
	wait_for_completion(&r->finished);
	for (id = 0; id < RACE_ITEMS; id++)
		once += atomic_read(&r->taken[id]) == 1;
	return once;
}

/*
 * The owner pushes ids to its runnext (the old occupant to the runq) and
 * takes from both, as wsx_runq_put()/wsx_runq_get() do, while two thieves
 * steal half of its runq and its runnext.  Every id is taken exactly once,
 * and the thieves did steal from both: the race is run again (at most
 * RACE_ROUNDS times) until they took ids from the runq and from runnext.
 */
static void runq_and_runnext_race(struct kunit *test)
{
	struct race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int round;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->victim = kunit_kzalloc(test, sizeof(*r->victim), GFP_KERNEL);
	r->taken = kunit_kcalloc(test, RACE_ITEMS, sizeof(atomic_t),
				 GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->victim);
	KUNIT_ASSERT_NOT_NULL(test, r->taken);
	atomic_set(&wsx_runnext_window_steals, 0);
	WRITE_ONCE(wsx_runnext_window, &r->runnext);
	for (round = 1; round <= RACE_ROUNDS; round++) {
		KUNIT_EXPECT_EQ(test, race_round(test, r),
				(unsigned long)RACE_ITEMS);
		if (atomic_read(&r->runq_stolen) &&
		    atomic_read(&r->runnext_stolen) &&
		    atomic_read(&wsx_runnext_window_steals))
			break;
	}
	WRITE_ONCE(wsx_runnext_window, NULL);
	kunit_info(test, "%d rounds: thieves took %d ids from the runq, %d from runnext, %d of them inside the owner's take\n",
		   min(round, RACE_ROUNDS), atomic_read(&r->runq_stolen),
		   atomic_read(&r->runnext_stolen),
		   atomic_read(&wsx_runnext_window_steals));
	KUNIT_EXPECT_GT(test, atomic_read(&r->runq_stolen), 0);
	KUNIT_EXPECT_GT(test, atomic_read(&r->runnext_stolen), 0);
	/* the window between the owner's peek and its xchg was hit */
	KUNIT_EXPECT_GT(test, atomic_read(&wsx_runnext_window_steals), 0);
}

/* ---- victim tables by distance (wsx_victims.h) ---------------------- */

#define TOPO_MAX_CPUS	64
#define TOPO_MAX_NODES	4

/* A generated machine: nodes x llcs x cores x threads CPUs, some missing. */
struct topo_case {
	unsigned int nodes, llcs, cores, threads;	/* per node, llc, core */
	unsigned int missing_every;	/* drop every k-th CPU (0: none) */
};

struct topo_gen {
	struct wsx_topo_p ps[TOPO_MAX_CPUS];
	u8 dist[TOPO_MAX_NODES * TOPO_MAX_NODES];
	unsigned int n, nnodes;
};

/*
 * Number CPUs node by node, LLC by LLC, core by core; a P for each CPU
 * present (the CPUs missing after hotplug get none, so P ids are dense
 * while CPU ids have holes).  Node distances: 10 to itself, 20 + 10 x
 * |a - b| to others, so farther node indices are farther.
 */
static void topo_generate(const struct topo_case *c, struct topo_gen *g)
{
	unsigned int cpu = 0, node, llc, core, thr, a, b;

	g->n = 0;
	g->nnodes = c->nodes;
	for (node = 0; node < c->nodes; node++)
		for (llc = 0; llc < c->llcs; llc++)
			for (core = 0; core < c->cores; core++)
				for (thr = 0; thr < c->threads; thr++, cpu++) {
					struct wsx_topo_p *p = &g->ps[g->n];

					if (c->missing_every &&
					    cpu % c->missing_every == 1)
						continue;
					p->node = node;
					p->llc = cpu - thr - core * c->threads;
					p->core = cpu - thr;
					g->n++;
				}
	for (a = 0; a < c->nodes; a++)
		for (b = 0; b < c->nodes; b++)
			g->dist[a * c->nodes + b] = a == b ? 10 :
				20 + 10 * (a > b ? a - b : b - a);
}

/*
 * The group key the builder must give P @b seen from @a, worked out here
 * from the generator's numbers, not with wsx_victim_key()'s code.
 */
static unsigned int topo_expected_key(enum wsx_steal_topology topo,
				      const struct topo_gen *g,
				      unsigned int a, unsigned int b)
{
	const struct wsx_topo_p *x = &g->ps[a], *y = &g->ps[b];
	unsigned int near;

	if (topo == WSX_TOPO_FLAT)
		return 0;
	near = x->core == y->core ? 0 : x->llc == y->llc ? 1 : 2;
	if (x->node != y->node)
		return topo == WSX_TOPO_CACHE ? 2 :
			3 + g->dist[x->node * g->nnodes + y->node];
	return near;
}

/*
 * Every other P exactly once, never @self; groups in strictly increasing
 * key order (nearer levels strictly first, other nodes by distance); each
 * group one key; @level as wsx_level_of() says.
 */
static void topo_check_one(struct kunit *test, enum wsx_steal_topology topo,
			   const struct topo_gen *g, unsigned int self)
{
	u16 order[TOPO_MAX_CPUS], ends[WSX_LEVEL_REMOTE + TOPO_MAX_NODES];
	u8 level[TOPO_MAX_CPUS], seen[TOPO_MAX_CPUS] = { 0 };
	unsigned int ngroups, gi, k = 0, key, prev = 0, id;

	ngroups = wsx_victims_build(topo, g->ps, g->n, self, g->dist,
				    g->nnodes, order, ends, level);
	KUNIT_ASSERT_LE(test, ngroups, WSX_LEVEL_REMOTE + g->nnodes);
	for (gi = 0; gi < ngroups; gi++) {
		KUNIT_ASSERT_GT(test, ends[gi], k);	/* no empty group */
		for (; k < ends[gi]; k++) {
			id = order[k];
			KUNIT_ASSERT_LT(test, id, g->n);
			KUNIT_EXPECT_NE(test, id, self);
			seen[id]++;
			key = topo_expected_key(topo, g, self, id);
			if (k == (gi ? ends[gi - 1] : 0u)) {
				if (gi)
					KUNIT_EXPECT_GT(test, key, prev);
				prev = key;
			}
			KUNIT_EXPECT_EQ(test, key, prev);
		}
	}
	KUNIT_EXPECT_EQ(test, k, g->n - 1);
	for (id = 0; id < g->n; id++) {
		KUNIT_EXPECT_EQ(test, seen[id], id == self ? 0 : 1);
		KUNIT_EXPECT_EQ(test, level[id],
				g->ps[self].node != g->ps[id].node ?
				WSX_LEVEL_REMOTE :
				topo_expected_key(WSX_TOPO_NUMA, g, self, id));
	}
	if (topo == WSX_TOPO_FLAT && g->n > 1)
		KUNIT_EXPECT_EQ(test, ngroups, 1);
}

/* Levels: SMT before cache before node before remote, for numa. */
static void topo_check_levels(struct kunit *test, const struct topo_gen *g,
			      unsigned int self)
{
	u16 order[TOPO_MAX_CPUS], ends[WSX_LEVEL_REMOTE + TOPO_MAX_NODES];
	u8 level[TOPO_MAX_CPUS];
	unsigned int k, prev = 0, lv, d, prevd = 0;

	wsx_victims_build(WSX_TOPO_NUMA, g->ps, g->n, self, g->dist,
			  g->nnodes, order, ends, level);
	for (k = 0; k + 1 < g->n; k++) {
		lv = level[order[k]];
		KUNIT_EXPECT_GE(test, lv, prev);
		prev = lv;
		if (lv != WSX_LEVEL_REMOTE)
			continue;
		d = g->dist[g->ps[self].node * g->nnodes +
			    g->ps[order[k]].node];
		KUNIT_EXPECT_GE(test, d, prevd);	/* nearest first */
		prevd = d;
	}
}

static const struct topo_case topo_cases[] = {
	{ 1, 1, 2, 1, 0 },	/* two CPUs, no SMT */
	{ 1, 1, 4, 2, 0 },	/* SMT pairs, one LLC */
	{ 1, 2, 4, 2, 0 },	/* two LLCs on one node */
	{ 2, 1, 2, 2, 0 },	/* the QEMU machine of the tests */
	{ 2, 2, 2, 2, 3 },	/* CPUs missing after hotplug */
	{ 3, 2, 2, 1, 0 },	/* three nodes, distances differ */
	{ 4, 4, 2, 2, 0 },	/* 64 CPUs on four nodes */
	{ 4, 2, 4, 2, 5 },	/* 64 CPU ids, every 5th missing */
	{ 1, 1, 1, 1, 0 },	/* one P: no victims */
};

static void victims_by_distance(struct kunit *test)
{
	static const enum wsx_steal_topology topos[] = {
		WSX_TOPO_NUMA, WSX_TOPO_CACHE, WSX_TOPO_FLAT,
	};
	struct topo_gen *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned int c, t, self;

	KUNIT_ASSERT_NOT_NULL(test, g);
	for (c = 0; c < ARRAY_SIZE(topo_cases); c++) {
		topo_generate(&topo_cases[c], g);
		KUNIT_ASSERT_LE(test, g->n, TOPO_MAX_CPUS);
		for (self = 0; self < g->n; self++) {
			for (t = 0; t < ARRAY_SIZE(topos); t++)
				topo_check_one(test, topos[t], g, self);
			topo_check_levels(test, g, self);
		}
	}
}

/* The suites' guest, 2 nodes of 2 CPUs: P0's groups are {1}, {2, 3}. */
static void victims_of_the_suite_machine(struct kunit *test)
{
	static const struct topo_case c = { 2, 1, 2, 1, 0 };
	u16 order[TOPO_MAX_CPUS], ends[WSX_LEVEL_REMOTE + TOPO_MAX_NODES];
	u8 level[TOPO_MAX_CPUS];
	struct topo_gen *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, g);
	topo_generate(&c, g);
	KUNIT_ASSERT_EQ(test, g->n, 4);
	KUNIT_ASSERT_EQ(test, wsx_victims_build(WSX_TOPO_NUMA, g->ps, g->n, 0,
						g->dist, g->nnodes, order,
						ends, level), 2);
	KUNIT_EXPECT_EQ(test, ends[0], 1);
	KUNIT_EXPECT_EQ(test, order[0], 1);
	KUNIT_EXPECT_EQ(test, ends[1], 3);
	KUNIT_EXPECT_EQ(test, level[1], WSX_LEVEL_CACHE);
	KUNIT_EXPECT_EQ(test, level[2], WSX_LEVEL_REMOTE);
	KUNIT_EXPECT_EQ(test, level[3], WSX_LEVEL_REMOTE);
}

/* The bench's 2-node machine with SMT: P0's groups are exactly {1}, {2,3}, {4..7}. */
static void victims_of_the_test_machine(struct kunit *test)
{
	static const struct topo_case c = { 2, 1, 2, 2, 0 };
	u16 order[TOPO_MAX_CPUS], ends[WSX_LEVEL_REMOTE + TOPO_MAX_NODES];
	u8 level[TOPO_MAX_CPUS];
	struct topo_gen *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned int ngroups;

	KUNIT_ASSERT_NOT_NULL(test, g);
	topo_generate(&c, g);
	ngroups = wsx_victims_build(WSX_TOPO_NUMA, g->ps, g->n, 0, g->dist,
				    g->nnodes, order, ends, level);
	KUNIT_ASSERT_EQ(test, ngroups, 3);
	KUNIT_EXPECT_EQ(test, ends[0], 1);
	KUNIT_EXPECT_EQ(test, order[0], 1);
	KUNIT_EXPECT_EQ(test, ends[1], 3);
	KUNIT_EXPECT_EQ(test, ends[2], 7);
	KUNIT_EXPECT_EQ(test, level[1], WSX_LEVEL_SMT);
	KUNIT_EXPECT_EQ(test, level[2], WSX_LEVEL_CACHE);
	KUNIT_EXPECT_EQ(test, level[4], WSX_LEVEL_REMOTE);
	ngroups = wsx_victims_build(WSX_TOPO_CACHE, g->ps, g->n, 0, g->dist,
				    g->nnodes, order, ends, level);
	KUNIT_EXPECT_EQ(test, ngroups, 3);
	ngroups = wsx_victims_build(WSX_TOPO_FLAT, g->ps, g->n, 0, g->dist,
				    g->nnodes, order, ends, level);
	KUNIT_EXPECT_EQ(test, ngroups, 1);
	KUNIT_EXPECT_EQ(test, level[4], WSX_LEVEL_REMOTE);
}

/* P id U16_MAX is WSX_NO_P: 65536 Ps cannot be numbered, 65535 can */
static void bounds_p_ids(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, wsx_p_ids_fit(65536, 65535));
	KUNIT_EXPECT_FALSE(test, wsx_p_ids_fit(65536, 65536));
	KUNIT_EXPECT_FALSE(test, wsx_p_ids_fit(65537, 4));
	KUNIT_EXPECT_TRUE(test, wsx_p_ids_fit(4, 4));
}

/* A CPU of no node counts in the fallback node; others in their own */
static void bounds_unknown_node(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, wsx_known_node(NUMA_NO_NODE, 3), 3);
	KUNIT_EXPECT_EQ(test, wsx_known_node(1, 3), 1);
	KUNIT_EXPECT_EQ(test, wsx_known_node(0, 3), 0);
}

/*
 * An address above 4 GiB is refused where it does not fit a pointer (a
 * 32-bit kernel) and kept whole where it does.
 */
static void bounds_user_addr(struct kunit *test)
{
	const u64 high = (1ULL << 32) | 0x1000;
	void __user *ptr = NULL;

	KUNIT_EXPECT_TRUE(test, wsx_user_addr(0x1000, &ptr));
	KUNIT_EXPECT_PTR_EQ(test, (__force void *)ptr, (void *)0x1000);
	if (BITS_PER_LONG == 32) {
		KUNIT_EXPECT_FALSE(test, wsx_user_addr(high, &ptr));
	} else {
		KUNIT_EXPECT_TRUE(test, wsx_user_addr(high, &ptr));
		KUNIT_EXPECT_EQ(test, (u64)(uintptr_t)ptr, high);
	}
}

/* Node counts at the limit, chains in closed form, depths no tree has */
static void bounds_spawn_nodes(struct kunit *test)
{
	const u64 max = 1 << 22;

	KUNIT_EXPECT_EQ(test, wsx_spawn_nodes(1, 0, max), 1ULL);
	KUNIT_EXPECT_EQ(test, wsx_spawn_nodes(1, max - 1, max), max);
	KUNIT_EXPECT_EQ(test, wsx_spawn_nodes(1, max, max), U64_MAX);
	KUNIT_EXPECT_EQ(test, wsx_spawn_nodes(1, U64_MAX, max), U64_MAX);
	KUNIT_EXPECT_EQ(test, wsx_spawn_nodes(2, 21, max), max - 1);
	KUNIT_EXPECT_EQ(test, wsx_spawn_nodes(2, 22, max), U64_MAX);
	KUNIT_EXPECT_EQ(test, wsx_spawn_nodes(64, 3, max), 266305ULL);
	KUNIT_EXPECT_EQ(test, wsx_spawn_nodes(64, U64_MAX, max), U64_MAX);
}

/* ---- parking and readying, with wsx.ko's Ms ------------------------- */

#define PARK_WAIT	(60 * HZ)	/* for the executor on a loaded debug kernel */

/*
 * Wait for @c; on a timeout, fail the test and keep this module loaded:
 * items of ours may still be queued or parked, their functions in our text
 * (their memory is leaked, not freed, for the same reason).
 */
static bool park_wait(struct kunit *test, struct completion *c,
		      const char *what)
{
	if (wait_for_completion_timeout(c, PARK_WAIT))
		return true;
	__module_get(THIS_MODULE);
	KUNIT_FAIL(test, "%s: not within %d s; wsx_kunit stays loaded",
		   what, PARK_WAIT / HZ);
	return false;
}

/*
 * park_wait() for a run that counts its progress in @count: waits on
 * while the count moves (a run of 10^6 values on a loaded debug kernel
 * takes longer than PARK_WAIT), fails once it stood still for PARK_WAIT.
 */
static bool park_wait_progress(struct kunit *test, struct completion *c,
			       atomic_t *count, const char *what)
{
	int seen;

	do {
		seen = atomic_read(count);
		if (wait_for_completion_timeout(c, PARK_WAIT))
			return true;
	} while (atomic_read(count) != seen);
	return park_wait(test, c, what);
}

struct parkjob {
	struct wsx_job job;
	struct wsx_item first;
	struct wsx_item cont;
	struct completion parked;
	struct completion done;
	bool cont_ran;
};

static void parkjob_done(struct wsx_job *job)
{
	complete(&container_of(job, struct parkjob, job)->done);
}

static void parkjob_first(struct wsx_item *item)
{
	struct parkjob *pj = container_of(item, struct parkjob, first);

	wsx_park(&pj->cont);
	complete(&pj->parked);
}

static void parkjob_cont(struct wsx_item *item)
{
	WRITE_ONCE(container_of(item, struct parkjob, cont)->cont_ran, true);
}

/*
 * An item parks a continuation and ends: its job is not done while the
 * continuation waits (wsx_park() counted it), and is done once a thread
 * that is not an M readied it and it ran.  Memory is freed only once the
 * job is done: a failed wait leaks it rather than free what may still run.
 */
static void parked_continuation_keeps_its_job(struct kunit *test)
{
	struct parkjob *pj = kzalloc(sizeof(*pj), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pj);
	init_completion(&pj->parked);
	init_completion(&pj->done);
	wsx_job_init(&pj->job, parkjob_done);
	wsx_item_init(&pj->first, parkjob_first, &pj->job);
	wsx_item_init(&pj->cont, parkjob_cont, &pj->job);
	KUNIT_ASSERT_EQ(test, wsx_queue(&pj->first, WSX_WHERE_LOCAL, 0), 0);
	wsx_job_start(&pj->job);
	if (!park_wait(test, &pj->parked, "the park"))
		return;
	/* the parker has ended (or is about to): the job must wait on */
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&pj->done));
	KUNIT_EXPECT_FALSE(test, READ_ONCE(pj->cont_ran));
	wsx_ready(&pj->cont);
	if (!park_wait(test, &pj->done, "the job after the ready"))
		return;
	KUNIT_EXPECT_TRUE(test, READ_ONCE(pj->cont_ran));
	kfree(pj);
}

/* Two jobs whose items follow one another on one M (job.c's credit). */
struct credit2 {
	struct wsx_job j, k;
	struct wsx_item root, child, other;
	struct completion j_done, k_done, other_ran;
	struct task_struct *ran_on[3];	/* the M of root, child, other */
	bool j_done_in_other;	/* j was done when other looked */
	bool k_done_early;	/* k was done before its creator started it */
	bool k_started;
	u32 j_nodes, k_nodes;	/* at done */
};

static void credit2_j_done(struct wsx_job *job)
{
	struct credit2 *c = container_of(job, struct credit2, j);

	c->j_nodes = wsx_job_nodes(job);
	complete_all(&c->j_done);	/* k's item waits for it, then the test */
}

static void credit2_k_done(struct wsx_job *job)
{
	struct credit2 *c = container_of(job, struct credit2, k);

	c->k_nodes = wsx_job_nodes(job);
	WRITE_ONCE(c->k_done_early, !READ_ONCE(c->k_started));
	complete(&c->k_done);
}

static void credit2_root(struct wsx_item *item)
{
	struct credit2 *c = container_of(item, struct credit2, root);

	c->ran_on[0] = current;
	wsx_spawn(&c->child);
}

static void credit2_child(struct wsx_item *item)
{
	struct credit2 *c = container_of(item, struct credit2, child);

	c->ran_on[1] = current;
	wsx_spawn(&c->other);
}

/* An item of k, next after j's last on the same M: j must be done */
static void credit2_other(struct wsx_item *item)
{
	struct credit2 *c = container_of(item, struct credit2, other);

	c->ran_on[2] = current;
	WRITE_ONCE(c->j_done_in_other,
		   wait_for_completion_timeout(&c->j_done, PARK_WAIT) > 0);
	complete(&c->other_ran);
}

/*
 * Job j's root spawns j's child, which spawns an item of job k; each runs
 * next on the spawner's M (runnext; a thief may take one, and the case
 * then says so and checks only the counts).  That M holds j's counts as
 * credit when it comes to k's item: it gives them back first, so j is
 * done while k's item runs (the item waits for it, PARK_WAIT at most),
 * with its 2 items counted; the credit of j pays for nothing of k's, so
 * k is done only once its creator started it, with its 1 item counted.
 */
static void credit_of_one_job_not_held_or_spent_for_another(struct kunit *test)
{
	struct credit2 *c = kzalloc(sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(&c->j_done);
	init_completion(&c->k_done);
	init_completion(&c->other_ran);
	wsx_job_init(&c->j, credit2_j_done);
	wsx_job_init(&c->k, credit2_k_done);
	wsx_item_init(&c->root, credit2_root, &c->j);
	wsx_item_init(&c->child, credit2_child, &c->j);
	wsx_item_init(&c->other, credit2_other, &c->k);
	KUNIT_ASSERT_EQ(test, wsx_queue(&c->root, WSX_WHERE_P, 0), 0);
	wsx_job_start(&c->j);
	if (!park_wait(test, &c->other_ran, "k's item"))
		return;
	if (c->ran_on[0] == c->ran_on[1] && c->ran_on[1] == c->ran_on[2])
		KUNIT_EXPECT_TRUE_MSG(test, READ_ONCE(c->j_done_in_other),
				      "job j not done while k's item ran");
	else
		kunit_info(test, "a thief ran an item on another M: the hand-over from j to k on one M was not tried\n");
	if (!park_wait(test, &c->j_done, "job j"))
		return;
	KUNIT_EXPECT_EQ(test, c->j_nodes, 2);
	/* k's item has ended (or is about to): k waits for its creator */
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&c->k_done));
	WRITE_ONCE(c->k_started, true);
	wsx_job_start(&c->k);
	if (!park_wait(test, &c->k_done, "job k"))
		return;
	KUNIT_EXPECT_FALSE_MSG(test, READ_ONCE(c->k_done_early),
			       "job k done before its creator started it");
	KUNIT_EXPECT_EQ(test, c->k_nodes, 1);
	kfree(c);
}

#define PP_HANDOFFS	2000
#define PP_FILLERS	2	/* items each turn spawns before its ready */

struct pingpong;

/* An item a turn spawns before it readies the other side. */
struct pp_filler {
	struct wsx_item item;
	struct pingpong *pp;
	int turn;		/* the turn that spawned it */
	int cpu;		/* ... on this CPU */
};

/*
 * Two items hand the turn to each other PP_HANDOFFS times through one
 * parked slot, as two goroutines on an unbuffered channel: each takes the
 * other out of the slot, parks itself there (counted first, then
 * published, under the lock), spawns PP_FILLERS items and readies the
 * other.
 */
struct pingpong {
	struct wsx_job job;
	struct wsx_item side[2];
	spinlock_t lock;		/* parked, left */
	struct wsx_item *parked;	/* under lock */
	int left;			/* under lock: parks still to make */
	int readier_cpu;		/* -1, or the CPU of the last wsx_ready() */
	atomic_t turn;			/* turns started */
	atomic_t handoffs;
	atomic_t same_cpu;
	atomic_t overtaken;	/* fillers that ran on their turn's CPU first */
	struct pp_filler *fillers;	/* PP_FILLERS per turn */
	struct completion done;
};

static void pp_filler_fn(struct wsx_item *item)
{
	struct pp_filler *f = container_of(item, struct pp_filler, item);

	/* the readied side starts a new turn: it should have come first */
	if (raw_smp_processor_id() == f->cpu &&
	    atomic_read(&f->pp->turn) == f->turn)
		atomic_inc(&f->pp->overtaken);
}

static void pingpong_done(struct wsx_job *job)
{
	complete(&container_of(job, struct pingpong, job)->done);
}

static void pingpong_turn(struct wsx_item *self)
{
	struct pingpong *pp = container_of(self->job, struct pingpong, job);
	int cpu = raw_smp_processor_id();
	int readier = READ_ONCE(pp->readier_cpu);
	int turn = atomic_inc_return(&pp->turn), i;
	struct wsx_item *other;

	/* written before the wsx_ready() that queued us (one turn at a time) */
	if (readier >= 0) {
		atomic_inc(&pp->handoffs);
		if (readier == cpu)
			atomic_inc(&pp->same_cpu);
	}
	spin_lock(&pp->lock);
	other = pp->parked;
	pp->parked = NULL;
	if (pp->left > 0) {
		pp->left--;
		wsx_park(self);
		pp->parked = self;
	}
	spin_unlock(&pp->lock);
	/* after the unlock, @self may already run elsewhere: not touched */
	if (!other)
		return;
	for (i = 0; i < PP_FILLERS; i++) {
		struct pp_filler *f = &pp->fillers[(turn - 1) * PP_FILLERS + i];

		f->pp = pp;
		f->turn = turn;
		f->cpu = cpu;
		wsx_item_init(&f->item, pp_filler_fn, &pp->job);
		wsx_spawn(&f->item);
	}
	WRITE_ONCE(pp->readier_cpu, cpu);
	wsx_ready(other);
}

/*
 * Go's goready(): a continuation readied by an item runs next on the
 * readier's P, before what the readier spawned, so the ping-pong stays on
 * one CPU; at least 90% of the handoffs run on the readier's CPU, and at
 * most 10% of the fillers run on it before the readied side (a thief may
 * take runnext when the readier's vCPU stalls before it returns); the job
 * ends with every turn made.
 */
static void ready_runs_next_on_the_readiers_p(struct kunit *test)
{
	struct pingpong *pp = kzalloc(sizeof(*pp), GFP_KERNEL);
	int handoffs, same, overtaken;

	KUNIT_ASSERT_NOT_NULL(test, pp);
	/* a turn per park, and the last turn's ready */
	pp->fillers = vzalloc(array_size(PP_HANDOFFS + 2,
					 PP_FILLERS * sizeof(*pp->fillers)));
	KUNIT_ASSERT_NOT_NULL(test, pp->fillers);
	spin_lock_init(&pp->lock);
	init_completion(&pp->done);
	pp->left = PP_HANDOFFS;
	pp->readier_cpu = -1;
	wsx_job_init(&pp->job, pingpong_done);
	wsx_item_init(&pp->side[0], pingpong_turn, &pp->job);
	wsx_item_init(&pp->side[1], pingpong_turn, &pp->job);
	wsx_park(&pp->side[1]);
	pp->parked = &pp->side[1];
	KUNIT_ASSERT_EQ(test, wsx_queue(&pp->side[0], WSX_WHERE_LOCAL, 0), 0);
	wsx_job_start(&pp->job);
	if (!park_wait(test, &pp->done, "the ping-pong"))
		return;
	handoffs = atomic_read(&pp->handoffs);
	same = atomic_read(&pp->same_cpu);
	overtaken = atomic_read(&pp->overtaken);
	kunit_info(test, "%d handoffs, %d on the readier's CPU; %d of %d fillers ran there first\n",
		   handoffs, same, overtaken, handoffs * PP_FILLERS);
	/* PP_HANDOFFS parks, each readied once, and the last turn's ready */
	KUNIT_EXPECT_EQ(test, handoffs, PP_HANDOFFS + 1);
	KUNIT_EXPECT_GE(test, same * 10, handoffs * 9);
	KUNIT_EXPECT_LE(test, overtaken * 10, handoffs * PP_FILLERS);
	vfree(pp->fillers);
	kfree(pp);
}

/* ---- channels (chan.c) -------------------------------------------------- */

/* One continuation parked on a channel by the test's thread, in its job. */
struct chanwait {
	struct wsx_job job;
	struct wsx_item cont;
	struct wsx_chan_waiter w;
	struct completion done;
	int status;		/* the waiter's, read by the continuation */
	u64 val;
	int runs;
};

static void chanwait_cont(struct wsx_item *item)
{
	struct chanwait *cw = container_of(item, struct chanwait, cont);

	cw->status = cw->w.status;
	cw->val = cw->w.val;
	cw->runs++;
}

static void chanwait_done(struct wsx_job *job)
{
	complete(&container_of(job, struct chanwait, job)->done);
}

static void chanwait_init(struct chanwait *cw)
{
	init_completion(&cw->done);
	wsx_job_init(&cw->job, chanwait_done);
	wsx_item_init(&cw->cont, chanwait_cont, &cw->job);
	wsx_chan_waiter_init(&cw->w, &cw->cont);
}

/*
 * Go's channel semantics, one step at a time from the test's thread: the
 * try forms; a send to a parked receiver goes to it, not to the buffer; a
 * receive from a full buffer with a sender parked takes the head and
 * readies the sender, whose value comes next; close readies a parked
 * receiver with -ENODATA and a parked sender with -EPIPE, refuses a second
 * close, and leaves buffered values to be received; a capacity beyond the
 * limit is refused.
 */
static void chan_semantics(struct kunit *test)
{
	struct chanwait *cw = kcalloc(4, sizeof(*cw), GFP_KERNEL);
	struct wsx_chan *c;
	u64 v = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, cw);
	for (i = 0; i < 4; i++)
		chanwait_init(&cw[i]);
	KUNIT_EXPECT_EQ(test, PTR_ERR(wsx_chan_create(WSX_CHAN_CAP_MAX + 1,
						      GFP_KERNEL)), -EINVAL);
	c = wsx_chan_create(1, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(c, 1), 0);
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(c, 2), -EAGAIN);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 1);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), -EAGAIN);

	/* a parked receiver gets the next value from the sender's hand */
	KUNIT_ASSERT_EQ(test, wsx_chan_recv(c, &v, &cw[0].w), -EINPROGRESS);
	wsx_job_start(&cw[0].job);
	msleep(20);
	KUNIT_EXPECT_FALSE(test, completion_done(&cw[0].done));
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(c, 7), 0);
	if (!park_wait(test, &cw[0].done, "the parked receiver"))
		return;
	KUNIT_EXPECT_EQ(test, cw[0].runs, 1);
	KUNIT_EXPECT_EQ(test, cw[0].status, 0);
	KUNIT_EXPECT_EQ(test, cw[0].val, 7);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), -EAGAIN);

	/* a full buffer and a parked sender: the head, then the sender's */
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(c, 8), 0);
	KUNIT_ASSERT_EQ(test, wsx_chan_send(c, 9, &cw[1].w), -EINPROGRESS);
	wsx_job_start(&cw[1].job);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 8);
	if (!park_wait(test, &cw[1].done, "the parked sender"))
		return;
	KUNIT_EXPECT_EQ(test, cw[1].status, 0);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 9);

	/* close readies a parked receiver */
	KUNIT_ASSERT_EQ(test, wsx_chan_recv(c, &v, &cw[2].w), -EINPROGRESS);
	wsx_job_start(&cw[2].job);
	KUNIT_EXPECT_EQ(test, wsx_chan_close(c), 0);
	if (!park_wait(test, &cw[2].done, "the receiver readied by close"))
		return;
	KUNIT_EXPECT_EQ(test, cw[2].runs, 1);
	KUNIT_EXPECT_EQ(test, cw[2].status, -ENODATA);
	KUNIT_EXPECT_EQ(test, wsx_chan_close(c), -EALREADY);
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(c, 10), -EPIPE);
	KUNIT_EXPECT_EQ(test, wsx_chan_send(c, 10, &cw[3].w), -EPIPE);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), -ENODATA);
	wsx_chan_destroy(c);

	/* values buffered before the close stay for the receivers */
	c = wsx_chan_create(2, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(c, 11), 0);
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(c, 12), 0);
	KUNIT_EXPECT_EQ(test, wsx_chan_close(c), 0);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 11);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 12);
	KUNIT_EXPECT_EQ(test, wsx_chan_recv(c, &v, &cw[3].w), -ENODATA);
	wsx_chan_destroy(c);

	/* unbuffered: a parked sender is readied by close with -EPIPE */
	c = wsx_chan_create(0, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(c));
	KUNIT_ASSERT_EQ(test, wsx_chan_send(c, 13, &cw[3].w), -EINPROGRESS);
	wsx_job_start(&cw[3].job);
	KUNIT_EXPECT_EQ(test, wsx_chan_close(c), 0);
	if (!park_wait(test, &cw[3].done, "the sender readied by close"))
		return;
	KUNIT_EXPECT_EQ(test, cw[3].status, -EPIPE);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(c, &v), -ENODATA);
	wsx_chan_destroy(c);
	/* each readied once, whatever came after its completion */
	msleep(20);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, cw[i].runs, 1);
	kfree(cw);
}

#define CH_SENDERS	16
#define CH_RECEIVERS	16
#define CH_VALUES	8000	/* per sender */
#define CH_SEL_VALUES	31250	/* per sender with selects: 500,000 a run */

struct chanrun;

/*
 * A sender or a receiver: an item that loops on the channel and, where
 * the operation parks, returns with itself as the continuation; readied,
 * it reads its waiter's status and goes on.  @parked is set before each
 * operation (after a park the item is not ours to write).  A side with
 * @select set sends or receives by a select over both channels of the
 * run, @c and @c2; a receiving one drops the case of a channel it found
 * closed and drained (@drained) and ends once both are.
 */
struct ch_side {
	struct wsx_item item;
	struct wsx_chan_waiter w;
	struct wsx_select sel;
	struct chanrun *run;
	u64 next, end;		/* a sender's values: next .. end - 1 */
	bool parked;
	bool select;
	bool drained[2];
};

struct chanrun {
	struct wsx_job job;
	struct wsx_chan *c, *c2;
	struct ch_side side[CH_SENDERS + CH_RECEIVERS];
	atomic_t senders_left;
	atomic_t received;
	atomic_t received2;	/* ... through @c2 */
	atomic_t dups;		/* a value received twice, or never sent */
	atomic_t errors;	/* a status or return no step should see */
	atomic_t parks;		/* operations that parked */
	atomic_t readied;	/* continuations that ran */
	u32 total;		/* values sent, by all the senders */
	unsigned long *seen;	/* values 1 .. @total received */
	struct completion done;
};

static void ch_got(struct chanrun *run, u64 v)
{
	atomic_inc(&run->received);
	if (v < 1 || v > run->total || test_and_set_bit(v, run->seen))
		atomic_inc(&run->dups);
}

/* One send of @s->next: 0, -EINPROGRESS when parked, or an error. */
static int ch_send_op(struct ch_side *s)
{
	struct chanrun *run = s->run;
	int ret;

	if (!s->select)
		return wsx_chan_send(run->c, s->next, &s->w);
	s->sel.n = 2;
	s->sel.cases[0] = (struct wsx_select_case){
		.chan = run->c, .val = s->next, .send = true };
	s->sel.cases[1] = (struct wsx_select_case){
		.chan = run->c2, .val = s->next, .send = true };
	ret = wsx_chan_select(&s->sel, &s->item);
	return ret < 0 ? ret : s->sel.cases[ret].status;
}

/* A parked send's status, read by its continuation. */
static int ch_send_resumed(struct ch_side *s)
{
	if (!s->select)
		return s->w.status;
	return s->sel.cases[wsx_chan_select_resume(&s->sel)].status;
}

static void ch_send_fn(struct wsx_item *item)
{
	struct ch_side *s = container_of(item, struct ch_side, item);
	struct chanrun *run = s->run;
	int ret;

	if (s->parked) {
		s->parked = false;
		atomic_inc(&run->readied);
		if (ch_send_resumed(s)) {
			atomic_inc(&run->errors);
			goto out;
		}
		s->next++;
	}
	while (s->next < s->end) {
		s->parked = true;
		ret = ch_send_op(s);
		if (ret == -EINPROGRESS) {
			/* our own count keeps @run: the job is not done */
			atomic_inc(&run->parks);
			return;
		}
		s->parked = false;
		if (ret) {
			atomic_inc(&run->errors);
			break;
		}
		s->next++;
	}
out:
	/* the last sender closes: the receivers drain and end */
	if (atomic_dec_and_test(&run->senders_left) &&
	    (wsx_chan_close(run->c) || wsx_chan_close(run->c2)))
		atomic_inc(&run->errors);
}

/*
 * A select receive's case @i: 0 with the value in *@v, 1 when its channel
 * was closed and drained and the other is not yet, -ENODATA when both are.
 */
static int ch_recv_case(struct ch_side *s, int i, u64 *v)
{
	struct wsx_select_case *sc = &s->sel.cases[i];

	if (sc->status != -ENODATA) {
		*v = sc->val;
		if (!sc->status && sc->chan == s->run->c2)
			atomic_inc(&s->run->received2);
		return sc->status;
	}
	s->drained[sc->chan == s->run->c2] = true;
	return s->drained[0] && s->drained[1] ? -ENODATA : 1;
}

/* One receive: as ch_recv_case(), or -EINPROGRESS when parked. */
static int ch_recv_op(struct ch_side *s, u64 *v)
{
	struct chanrun *run = s->run;
	int ret;

	if (!s->select)
		return wsx_chan_recv(run->c, v, &s->w);
	s->sel.n = 0;
	if (!s->drained[0])
		s->sel.cases[s->sel.n++] = (struct wsx_select_case){
			.chan = run->c };
	if (!s->drained[1])
		s->sel.cases[s->sel.n++] = (struct wsx_select_case){
			.chan = run->c2 };
	ret = wsx_chan_select(&s->sel, &s->item);
	return ret < 0 ? ret : ch_recv_case(s, ret, v);
}

/* A receive, its park counted; -EINPROGRESS: @s is no longer ours. */
static int ch_recv_step(struct ch_side *s, u64 *v)
{
	struct chanrun *run = s->run;
	int ret;

	s->parked = true;
	ret = ch_recv_op(s, v);
	if (ret == -EINPROGRESS) {
		atomic_inc(&run->parks);
		return ret;
	}
	s->parked = false;
	return ret;
}

static void ch_recv_fn(struct wsx_item *item)
{
	struct ch_side *s = container_of(item, struct ch_side, item);
	struct chanrun *run = s->run;
	u64 v = 0;
	int ret;

	if (s->parked) {
		s->parked = false;
		atomic_inc(&run->readied);
		if (s->select) {
			ret = ch_recv_case(s, wsx_chan_select_resume(&s->sel),
					   &v);
		} else {
			ret = s->w.status;
			v = s->w.val;
		}
	} else {
		ret = ch_recv_step(s, &v);
	}
	for (;;) {
		if (ret == -EINPROGRESS || ret == -ENODATA)
			return;
		if (ret < 0) {
			atomic_inc(&run->errors);
			return;
		}
		if (!ret)
			ch_got(run, v);
		ret = ch_recv_step(s, &v);
	}
}

static void chanrun_done(struct wsx_job *job)
{
	complete(&container_of(job, struct chanrun, job)->done);
}

/*
 * Every value exactly once through a channel of @cap, 16 senders and 16
 * receivers queued on P0 and taken by thieves, parking and readying one
 * another; the job ends once every sender ended, the last closed the
 * channel, and every receiver drained it: no waiter is left.  With
 * @selects, every other sender sends by a select over the channel and a
 * second one of @cap, and every other receiver receives by a select over
 * both: selects claim one another's waiters, and the plain sides'.
 */
static void chan_values_once(struct kunit *test, u32 cap, bool selects)
{
	struct chanrun *run = kzalloc(sizeof(*run), GFP_KERNEL);
	u32 values = selects ? CH_SEL_VALUES : CH_VALUES;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, run);
	run->total = CH_SENDERS * values;
	run->seen = bitmap_zalloc(run->total + 1, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, run->seen);
	run->c = wsx_chan_create(cap, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(run->c));
	run->c2 = wsx_chan_create(cap, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(run->c2));
	init_completion(&run->done);
	atomic_set(&run->senders_left, CH_SENDERS);
	wsx_job_init(&run->job, chanrun_done);
	for (i = 0; i < CH_SENDERS + CH_RECEIVERS; i++) {
		struct ch_side *s = &run->side[i];
		bool sender = i < CH_SENDERS;

		s->run = run;
		s->select = selects && (i & 1);
		s->next = (u64)i * values + 1;
		s->end = s->next + values;
		wsx_item_init(&s->item, sender ? ch_send_fn : ch_recv_fn,
			      &run->job);
		wsx_chan_waiter_init(&s->w, &s->item);
	}
	/* senders and receivers interleaved, so both sides park */
	for (i = 0; i < CH_SENDERS; i++) {
		KUNIT_ASSERT_EQ(test, wsx_queue(&run->side[i].item,
						WSX_WHERE_P, 0), 0);
		KUNIT_ASSERT_EQ(test, wsx_queue(&run->side[CH_SENDERS + i].item,
						WSX_WHERE_P, 0), 0);
	}
	wsx_job_start(&run->job);
	if (!park_wait_progress(test, &run->done, &run->received,
				"the channel's values"))
		return;
	kunit_info(test, "cap %u%s: %d values received (%d through the second channel), %d parks, %d continuations ran\n",
		   cap, selects ? ", selects" : "", atomic_read(&run->received),
		   atomic_read(&run->received2), atomic_read(&run->parks),
		   atomic_read(&run->readied));
	KUNIT_EXPECT_EQ(test, atomic_read(&run->received), run->total);
	KUNIT_EXPECT_EQ(test, atomic_read(&run->dups), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&run->errors), 0);
	/* each park readied and run once: a second run counts twice */
	KUNIT_EXPECT_EQ(test, atomic_read(&run->readied),
			atomic_read(&run->parks));
	/* unbuffered, each value parks its sender or its receiver */
	if (!cap)
		KUNIT_EXPECT_GE(test, atomic_read(&run->parks), run->total);
	/* the selects' sends take the second channel too */
	if (selects)
		KUNIT_EXPECT_GT(test, atomic_read(&run->received2), 0);
	else
		KUNIT_EXPECT_EQ(test, atomic_read(&run->received2), 0);
	/* no waiter is left on either (destroy warns and leaks) */
	wsx_chan_destroy(run->c);
	wsx_chan_destroy(run->c2);
	bitmap_free(run->seen);
	kfree(run);
}

static void chan_values_exactly_once(struct kunit *test)
{
	chan_values_once(test, 0, false);
	chan_values_once(test, 4, false);
}

static void chan_values_exactly_once_with_selects(struct kunit *test)
{
	chan_values_once(test, 0, true);
	chan_values_once(test, 4, true);
}

/* A select parked by the test's thread, in its job. */
struct selwait {
	struct wsx_job job;
	struct wsx_item cont;
	struct wsx_select sel;
	struct completion done;
	int won;
	int runs;
};

static void selwait_cont(struct wsx_item *item)
{
	struct selwait *sw = container_of(item, struct selwait, cont);

	sw->won = wsx_chan_select_resume(&sw->sel);
	sw->runs++;
}

static void selwait_done(struct wsx_job *job)
{
	complete(&container_of(job, struct selwait, job)->done);
}

/*
 * Park @sw on two cases (@c0 and @c1, each a send of 100 or 101, or a
 * receive), or fail the test.
 */
static bool selwait_park(struct kunit *test, struct selwait *sw,
			 struct wsx_chan *c0, bool send0,
			 struct wsx_chan *c1, bool send1)
{
	init_completion(&sw->done);
	wsx_job_init(&sw->job, selwait_done);
	wsx_item_init(&sw->cont, selwait_cont, &sw->job);
	sw->runs = 0;
	sw->won = -1;
	sw->sel.n = 2;
	sw->sel.cases[0] = (struct wsx_select_case){
		.chan = c0, .val = 100, .send = send0 };
	sw->sel.cases[1] = (struct wsx_select_case){
		.chan = c1, .val = 101, .send = send1 };
	if (wsx_chan_select(&sw->sel, &sw->cont) != -EINPROGRESS) {
		KUNIT_FAIL(test, "the select did not park");
		return false;
	}
	wsx_job_start(&sw->job);
	msleep(20);
	KUNIT_EXPECT_FALSE(test, completion_done(&sw->done));
	return true;
}

/*
 * Wait for @sw's continuation: the case that won, its status and, with
 * status 0, its value (a send's own, or the one received).
 */
static bool selwait_ended(struct kunit *test, struct selwait *sw, int won,
			  int status, u64 val)
{
	if (!park_wait(test, &sw->done, "the parked select"))
		return false;
	KUNIT_EXPECT_EQ(test, sw->runs, 1);
	KUNIT_EXPECT_EQ(test, sw->won, won);
	if (sw->won == won) {
		KUNIT_EXPECT_EQ(test, sw->sel.cases[won].status, status);
		if (!status)
			KUNIT_EXPECT_EQ(test, sw->sel.cases[won].val, val);
	}
	return true;
}

/* An item that acts on two channels while a select is parked on them. */
struct selact {
	struct wsx_job job;
	struct wsx_item item;
	struct wsx_chan *c[2];
	int ret[2];
	struct completion done;
};

/* Two sends in one run: the select's continuation waits in our runnext. */
static void selact_send_both(struct wsx_item *item)
{
	struct selact *a = container_of(item, struct selact, item);

	a->ret[0] = wsx_chan_trysend(a->c[0], 1);
	a->ret[1] = wsx_chan_trysend(a->c[1], 2);
}

/* Close and drop a channel before the readied select's resume locks it. */
static void selact_close_destroy(struct wsx_item *item)
{
	struct selact *a = container_of(item, struct selact, item);

	a->ret[0] = wsx_chan_close(a->c[1]);
	wsx_chan_destroy(a->c[1]);
}

static void selact_done(struct wsx_job *job)
{
	complete(&container_of(job, struct selact, job)->done);
}

/* Run @fn as an item on @u0 and @u1, and wait for it. */
static bool selact_run(struct kunit *test, struct selact *a, wsx_fn_t fn,
		       struct wsx_chan *u0, struct wsx_chan *u1)
{
	init_completion(&a->done);
	wsx_job_init(&a->job, selact_done);
	wsx_item_init(&a->item, fn, &a->job);
	a->c[0] = u0;
	a->c[1] = u1;
	a->ret[0] = 1;
	a->ret[1] = 1;
	KUNIT_EXPECT_EQ(test, wsx_queue(&a->item, WSX_WHERE_LOCAL, 0), 0);
	wsx_job_start(&a->job);
	return park_wait(test, &a->done, "the acting item");
}

/*
 * Go's select, one step at a time from the test's thread: bad selects are
 * refused; the try form proceeds with a ready case (a buffered value,
 * buffer room, a closed channel) or ends with -EAGAIN; a parked select is
 * readied once, by a send, a receive, a close or another select, with the
 * case that readied it, and the second of two sends in one item's run
 * finds it claimed; a channel closed and destroyed before the readied
 * select's resume locks it again stays until then (KASAN would report the
 * use after free); a select does not meet itself on a channel it
 * names twice; its other waiters are off their queues when it resumes
 * (its record parks again at once, and the channels' destroy warns on a
 * waiter left).
 */
static void chan_select_semantics(struct kunit *test)
{
	struct selwait *sw = kzalloc(sizeof(*sw), GFP_KERNEL);
	struct wsx_select *try = kzalloc(sizeof(*try), GFP_KERNEL);
	struct selact *act = kzalloc(sizeof(*act), GFP_KERNEL);
	struct wsx_chan *u0, *u1, *b, *gone;
	u64 v = 0;

	KUNIT_ASSERT_NOT_NULL(test, sw);
	KUNIT_ASSERT_NOT_NULL(test, try);
	KUNIT_ASSERT_NOT_NULL(test, act);
	u0 = wsx_chan_create(0, GFP_KERNEL);
	u1 = wsx_chan_create(0, GFP_KERNEL);
	b = wsx_chan_create(1, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(u0) || IS_ERR(u1) || IS_ERR(b));

	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), -EINVAL);
	try->n = WSX_SELECT_MAX + 1;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), -EINVAL);
	try->n = 2;
	try->cases[0].chan = u0;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), -EINVAL);

	/* receives: nothing ready, then a buffered value */
	try->cases[1].chan = b;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), -EAGAIN);
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(b, 5), 0);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), 1);
	KUNIT_EXPECT_EQ(test, try->cases[1].status, 0);
	KUNIT_EXPECT_EQ(test, try->cases[1].val, 5);
	/* sends: the buffer's room, then none */
	try->cases[0].send = true;
	try->cases[1].send = true;
	try->cases[1].val = 6;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), 1);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), -EAGAIN);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(b, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 6);

	/* parked on two receives, readied by a send on the second */
	if (!selwait_park(test, sw, u0, false, u1, false))
		goto out;
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(u1, 42), 0);
	if (!selwait_ended(test, sw, 1, 0, 42))
		goto out;
	/* its waiter on u0 went with its resume */
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(u0, 1), -EAGAIN);

	/* parked on a send and a receive, readied by a receive */
	if (!selwait_park(test, sw, u0, true, u1, false))
		goto out;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(u0, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 100);
	if (!selwait_ended(test, sw, 0, 0, 100))
		goto out;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(u0, &v), -EAGAIN);

	/* two sends in one run: the first claims, the second finds none */
	if (!selwait_park(test, sw, u0, false, u1, false))
		goto out;
	if (!selact_run(test, act, selact_send_both, u0, u1))
		goto out;
	KUNIT_EXPECT_EQ(test, act->ret[0], 0);
	KUNIT_EXPECT_EQ(test, act->ret[1], -EAGAIN);
	if (!selwait_ended(test, sw, 0, 0, 1))
		goto out;

	/* a channel closed and destroyed before the select's resume */
	gone = wsx_chan_create(0, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(gone));
	if (!selwait_park(test, sw, u0, false, gone, false))
		goto out;
	if (!selact_run(test, act, selact_close_destroy, u0, gone))
		goto out;
	KUNIT_EXPECT_EQ(test, act->ret[0], 0);
	if (!selwait_ended(test, sw, 1, -ENODATA, 0))
		goto out;

	/* a send and a receive on one channel: it does not meet itself */
	if (!selwait_park(test, sw, u0, true, u0, false))
		goto out;
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(u0, 7), 0);
	if (!selwait_ended(test, sw, 1, 0, 7))
		goto out;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(u0, &v), -EAGAIN);

	/* readied by another select, which proceeds with that case */
	if (!selwait_park(test, sw, u0, false, u1, false))
		goto out;
	try->n = 2;
	try->cases[0] = (struct wsx_select_case){ .chan = b };
	try->cases[1] = (struct wsx_select_case){
		.chan = u1, .val = 9, .send = true };
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), 1);
	KUNIT_EXPECT_EQ(test, try->cases[1].status, 0);
	if (!selwait_ended(test, sw, 1, 0, 9))
		goto out;

	/* readied by a close: a receive with -ENODATA */
	KUNIT_EXPECT_EQ(test, wsx_chan_trysend(b, 8), 0);
	if (!selwait_park(test, sw, u0, false, b, true))
		goto out;
	KUNIT_EXPECT_EQ(test, wsx_chan_close(u0), 0);
	if (!selwait_ended(test, sw, 0, -ENODATA, 0))
		goto out;
	/* closed channels proceed at once */
	try->n = 1;
	try->cases[0] = (struct wsx_select_case){ .chan = u0 };
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), 0);
	KUNIT_EXPECT_EQ(test, try->cases[0].status, -ENODATA);
	try->cases[0].send = true;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryselect(try), 0);
	KUNIT_EXPECT_EQ(test, try->cases[0].status, -EPIPE);

	/* a send readied by a close with -EPIPE; the buffer stays */
	if (!selwait_park(test, sw, u1, false, b, true))
		goto out;
	KUNIT_EXPECT_EQ(test, wsx_chan_close(b), 0);
	if (!selwait_ended(test, sw, 1, -EPIPE, 0))
		goto out;
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(b, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 8);
	KUNIT_EXPECT_EQ(test, wsx_chan_tryrecv(b, &v), -ENODATA);
out:
	wsx_chan_destroy(u0);
	wsx_chan_destroy(u1);
	wsx_chan_destroy(b);
	kfree(act);
	kfree(try);
	kfree(sw);
}

#define SEL_FAIR_ROUNDS	100000
#define SEL_FAIR_CASES	4

/*
 * Go's random poll order: a select whose cases are all ready picks each
 * about as often; over 10^5 selects on 4 buffered channels kept non-empty,
 * each case wins within 10% of a quarter.
 */
static void chan_select_fairness(struct kunit *test)
{
	struct wsx_select *sel = kzalloc(sizeof(*sel), GFP_KERNEL);
	unsigned int wins[SEL_FAIR_CASES] = { };
	struct wsx_chan *c[SEL_FAIR_CASES];
	unsigned int expect = SEL_FAIR_ROUNDS / SEL_FAIR_CASES;
	int i, r, won;

	KUNIT_ASSERT_NOT_NULL(test, sel);
	sel->n = SEL_FAIR_CASES;
	for (i = 0; i < SEL_FAIR_CASES; i++) {
		c[i] = wsx_chan_create(1, GFP_KERNEL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(c[i]));
		KUNIT_ASSERT_EQ(test, wsx_chan_trysend(c[i], i), 0);
		sel->cases[i].chan = c[i];
	}
	for (r = 0; r < SEL_FAIR_ROUNDS; r++) {
		won = wsx_chan_tryselect(sel);
		if (won < 0 || won >= SEL_FAIR_CASES ||
		    sel->cases[won].val != won) {
			KUNIT_FAIL(test, "select %d: %d", r, won);
			break;
		}
		wins[won]++;
		wsx_chan_trysend(c[won], won);
		if (!(r % 1024))
			cond_resched();
	}
	kunit_info(test, "%d selects of 4 ready cases: %u %u %u %u\n",
		   SEL_FAIR_ROUNDS, wins[0], wins[1], wins[2], wins[3]);
	for (i = 0; i < SEL_FAIR_CASES; i++) {
		KUNIT_EXPECT_GE(test, wins[i] * 10, expect * 9);
		KUNIT_EXPECT_LE(test, wins[i] * 10, expect * 11);
		wsx_chan_destroy(c[i]);
	}
	kfree(sel);
}

#define CPP_ROUNDS	2000

/*
 * Two items play ping-pong over two unbuffered channels: the pinger sends
 * round r on @ping and receives it back on @pong, the ponger receives on
 * @ping and sends back on @pong; each parks where the other has not come
 * yet, and its continuation is itself.  @step says where it resumes.
 */
struct chan_pp_side {
	struct wsx_item item;
	struct wsx_chan_waiter w;
	struct chan_pingpong *pp;
	u64 round;
	int step;		/* 0: send next; 1: receive next */
	bool parked;
};

struct chan_pingpong {
	struct wsx_job job;
	struct wsx_chan *ping, *pong;
	struct chan_pp_side side[2];	/* the pinger, the ponger */
	int readier_cpu;	/* the CPU of the last operation that may ready */
	atomic_t handoffs;	/* continuations that ran */
	atomic_t same_cpu;	/* ... on the CPU of their readier */
	atomic_t errors;
	struct completion done;
};

/* One operation of @s; true when it parked (@s is no longer ours). */
static bool chan_pp_op(struct chan_pp_side *s, bool pinger)
{
	struct chan_pingpong *pp = s->pp;
	bool send = s->step == (pinger ? 0 : 1);
	struct wsx_chan *c = (pinger == send) ? pp->ping : pp->pong;
	u64 v;
	int ret;

	s->parked = true;
	WRITE_ONCE(pp->readier_cpu, raw_smp_processor_id());
	ret = send ? wsx_chan_send(c, s->round, &s->w) :
		     wsx_chan_recv(c, &v, &s->w);
	if (ret == -EINPROGRESS)
		return true;
	s->parked = false;
	if (ret || (!send && v != s->round))
		atomic_inc(&pp->errors);
	return false;
}

static void chan_pp_fn(struct wsx_item *item)
{
	struct chan_pp_side *s = container_of(item, struct chan_pp_side, item);
	struct chan_pingpong *pp = s->pp;
	bool pinger = s == &pp->side[0];

	if (s->parked) {
		bool send = s->step == (pinger ? 0 : 1);

		s->parked = false;
		atomic_inc(&pp->handoffs);
		if (READ_ONCE(pp->readier_cpu) == raw_smp_processor_id())
			atomic_inc(&pp->same_cpu);
		if (s->w.status || (!send && s->w.val != s->round))
			atomic_inc(&pp->errors);
	} else if (chan_pp_op(s, pinger)) {
		return;
	}
	for (;;) {
		if (s->step == 1 && ++s->round > CPP_ROUNDS)
			return;
		s->step ^= 1;
		if (chan_pp_op(s, pinger))
			return;
	}
}

static void chan_pingpong_done(struct wsx_job *job)
{
	complete(&container_of(job, struct chan_pingpong, job)->done);
}

/*
 * Go's goready() through channels: a receiver readied by a send (and a
 * sender by a receive) runs on the readier's CPU, so the ping-pong of two
 * items stays on one CPU of 4 idle Ps; at least 90% of the handoffs run
 * there (a thief may take runnext when the readier's vCPU stalls before
 * it returns); each of a round's two values is one park and one ready,
 * and every value comes back.  Where a ready goes is
 * ready_runs_next_on_the_readiers_p's check, not this one's: with nothing
 * else queued the readier's M, about to idle, takes the continuation
 * wherever it went (the global queue, or another P's inbox before that
 * P's M wakes), so readies sent to the global queue kept 3,940 of 4,000
 * handoffs on the readier's CPU, and readies sent to the next P's inbox
 * 3,798 (both on the KASAN kernel, 4 vCPUs).
 */
static void chan_pingpong_stays_on_one_cpu(struct kunit *test)
{
	struct chan_pingpong *pp = kzalloc(sizeof(*pp), GFP_KERNEL);
	int i, handoffs, same;

	KUNIT_ASSERT_NOT_NULL(test, pp);
	pp->ping = wsx_chan_create(0, GFP_KERNEL);
	pp->pong = wsx_chan_create(0, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pp->ping) || IS_ERR(pp->pong));
	init_completion(&pp->done);
	wsx_job_init(&pp->job, chan_pingpong_done);
	for (i = 0; i < 2; i++) {
		struct chan_pp_side *s = &pp->side[i];

		s->pp = pp;
		s->round = 1;
		wsx_item_init(&s->item, chan_pp_fn, &pp->job);
		wsx_chan_waiter_init(&s->w, &s->item);
		KUNIT_ASSERT_EQ(test, wsx_queue(&s->item, WSX_WHERE_LOCAL, 0),
				0);
	}
	wsx_job_start(&pp->job);
	if (!park_wait(test, &pp->done, "the channel ping-pong"))
		return;
	handoffs = atomic_read(&pp->handoffs);
	same = atomic_read(&pp->same_cpu);
	kunit_info(test, "%d rounds: %d handoffs, %d on the readier's CPU\n",
		   CPP_ROUNDS, handoffs, same);
	KUNIT_EXPECT_EQ(test, atomic_read(&pp->errors), 0);
	/* each of a round's two values parks its receiver or its sender */
	KUNIT_EXPECT_EQ(test, handoffs, 2 * CPP_ROUNDS);
	KUNIT_EXPECT_GE(test, same * 10, handoffs * 9);
	wsx_chan_destroy(pp->ping);
	wsx_chan_destroy(pp->pong);
	kfree(pp);
}

static struct kunit_case wsx_kunit_cases[] = {
	KUNIT_CASE(runq_fifo_full_empty),
	KUNIT_CASE(runq_len_churning_full_runq),
	KUNIT_CASE(runq_wraps_32_bit_indices),
	KUNIT_CASE(runq_take_half_only_when_full),
	KUNIT_CASE(runq_grab_amounts),
	KUNIT_CASE(order_visits_every_p_once),
	KUNIT_CASE(global_batch_formula),
	KUNIT_CASE(runq_and_runnext_race),
	KUNIT_CASE(victims_by_distance),
	KUNIT_CASE(victims_of_the_suite_machine),
	KUNIT_CASE(victims_of_the_test_machine),
	KUNIT_CASE(bounds_p_ids),
	KUNIT_CASE(bounds_unknown_node),
	KUNIT_CASE(bounds_user_addr),
	KUNIT_CASE(bounds_spawn_nodes),
	KUNIT_CASE(parked_continuation_keeps_its_job),
	KUNIT_CASE(credit_of_one_job_not_held_or_spent_for_another),
	KUNIT_CASE(ready_runs_next_on_the_readiers_p),
	KUNIT_CASE(chan_semantics),
	KUNIT_CASE(chan_values_exactly_once),
	KUNIT_CASE(chan_values_exactly_once_with_selects),
	KUNIT_CASE(chan_select_semantics),
	KUNIT_CASE(chan_select_fairness),
	KUNIT_CASE(chan_pingpong_stays_on_one_cpu),
	{}
};

static struct kunit_suite wsx_kunit_suite = {
	.name = "wsx_kunit",
	.test_cases = wsx_kunit_cases,
};

kunit_test_suite(wsx_kunit_suite);

MODULE_DESCRIPTION("KUnit tests of wsx's runq, scheduling formulas, parking and channels");
MODULE_LICENSE("GPL");
