// SPDX-License-Identifier: GPL-2.0
/*
 * wsx stealing: an M whose P has nothing queued takes work from other Ps.
 *
 * An M that found nothing queued on its P or the global queues, and may
 * spin (sched.c, "Spinning and parking"), steals (wsx_steal_work()): up to
 * steal_tries (4) rounds over the other Ps, nearest first (topology.c,
 * steal_topology=numa): the P's SMT siblings, then the Ps sharing its
 * last-level cache, then its node, then the other nodes by distance -
 * Vyukov's NUMA-aware design for Go, the workqueue's affinity scopes.
 * Inside each such group the order is random - a random start and a random
 * stride coprime with the group's size, so each round visits every P of the
 * group once and no two thieves march in step.  An idle P with an empty
 * inbox is not tried: its runq and runnext are empty (as Go skips idle Ps).
 *
 * A steal takes n - n/2 of the victim's runq (the oldest items, whose data
 * is coldest) with one cmpxchg on its head, copying them straight into the
 * thief's own runq (wsx_runq_grab(); wsx_runq.h states the protocol); the
 * thief runs one and publishes the rest with a store-release of its tail.
 * A victim whose runq is empty gives half of its inbox instead
 * (wsx_inbox_steal()).  Only the last round may take the victim's runnext,
 * and only after a 3 us back-off when the victim is running an item, which
 * would likely pick it up itself; the last round also runs a busy victim's
 * due delayed items.
 *
 * A round in which no victim showed anything (empty runqs and inboxes, no
 * lost cmpxchg, no runnext or due timers left for the last round) ends the
 * search: another round would find the same, and an M that gives up too
 * early is covered by the parking handshake (sched.c).  So an M looking for
 * work tries each busy P at most once per round, and makes one round when
 * there is nothing to steal (a busy P's runnext or delayed items keep it
 * going to the last).
 */
#include <linux/delay.h>
#include <linux/rcupdate.h>

#include "queue.h"
#include "sched.h"
#include "steal.h"
#include "timers.h"
#include "wsx_order.h"
#include "wsx_trace.h"

/* Thief @p took @n items from @victim. */
static void wsx_steal_account(struct wsx_p *p, struct wsx_p *victim, u32 seen,
			      u32 n)
{
	struct wsx_steal_rec *rec;
	u64 *cell;

	enum wsx_level level = p->victims.level[victim->id];

	trace_wsx_steal(p->id, victim->id, n, level);
	if (!static_branch_likely(&wsx_stats_on))
		return;
	wsx_stat_inc(p, steals);
	wsx_stat_add(p, stolen, n);
	wsx_stat_inc(p, level_steals[level]);
	wsx_stat_add(p, level_stolen[level], n);
	atomic64_add(n, &victim->stats.stolen_from);
	cell = &p->hist.steal_size[min(fls(n) - 1, WSX_STEAL_BUCKETS - 1)];
	WRITE_ONCE(*cell, READ_ONCE(*cell) + 1);	/* and the reset */
	cell = &p->hist.steals_from[victim->id];
	WRITE_ONCE(*cell, READ_ONCE(*cell) + 1);	/* and the reset */
	/* the owner's; the reset zeroes it from another CPU */
	rec = &p->steal_log[READ_ONCE(p->steal_log_pos) % WSX_STEAL_LOG];
	WRITE_ONCE(rec->victim, victim->id);
	WRITE_ONCE(rec->seen, seen);
	WRITE_ONCE(rec->taken, n);
	WRITE_ONCE(rec->level, level);
	WRITE_ONCE(p->steal_log_pos, READ_ONCE(p->steal_log_pos) + 1);
}

static u32 wsx_m_rand(struct wsx_m *m)
{
	/* xorshift32: cheap, per-M, good enough to pick victims */
	u32 x = m->rnd;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	m->rnd = x;
	return x;
}

/* Take @victim's runnext for @p's runq slot at @t; true if taken. */
static bool wsx_steal_runnext(struct wsx_p *p, struct wsx_p *victim, u32 t)
{
	struct wsx_item *next = READ_ONCE(victim->runnext);

	if (!next)
		return false;
	/*
	 * A running victim is about to pick its runnext itself: give it a
	 * moment, so that a parent and its child are not split needlessly.
	 */
	if (READ_ONCE(victim->cur)) {
		udelay(3);
		next = READ_ONCE(victim->runnext);
		if (!next)
			return false;
	}
	/* the thief sees the item's contents (litmus/runq-put-runnext-steal-mp)
	 * and takes it once (litmus/runq-put-runnext-steal-once)
	 */
	if (cmpxchg(&victim->runnext, next, NULL) != next)
		return false;
	WRITE_ONCE(p->runq.slots[t & WSX_RUNQ_MASK], next);
	return true;
}

/*
 * Give the @n items @first..@last back to @p's inbox, as a submitter would
 * add them; more than a runq's worth go to the global queue instead, so
 * that a huge inbox is walked once, not once per steal.
 */
static void wsx_inbox_return(struct wsx_p *p, struct llist_node *first,
			     struct llist_node *last, u32 n)
{
	struct wsx_item *item, *tmp;
	LIST_HEAD(items);
	unsigned int i = 0;
	bool ok = false;

	rcu_read_lock();
	if (n <= WSX_RUNQ_SIZE)
		ok = READ_ONCE(p->want_online);
	if (ok) {
		atomic_add(n, &p->inbox_len);
		llist_add_batch(first, last, &p->inbox);
	}
	rcu_read_unlock();
	if (ok)
		return;
	/* too many, or going offline (perhaps drained already) */
	llist_for_each_entry_safe(item, tmp, first, lnode) {
		wsx_item_to_gq(item);
		list_add_tail(&item->node, &items);
		wsx_walk_point(++i);
	}
	wsx_gq_put_near(wsx_p_here(), &items, n);
}

/*
 * wsx_inbox_steal - owner of @p, whose runq is empty: take what the steal
 * policy says (n - n/2 for "half") of the n oldest items queued on
 * @victim's inbox from outside, n at most a runq's worth, into @p's runq
 * from slot @t on.  Returns the number taken; @seen gets n.
 *
 * The inbox is a lock-free list that any number of submitters add to and
 * that its owner empties with llist_del_all(); a thief does the same, so
 * each item is taken by exactly one of them.  It gives the items it does
 * not keep back the way a submitter adds them - under rcu_read_lock(), only
 * while the victim's CPU is online, against the hotplug drain - where they
 * run after the items queued on the victim meanwhile.  Without this, items
 * queued on a P whose M runs a long item would wait for it, however many
 * Ps are idle: only the owner moves its inbox into its runq.
 */
static u32 wsx_inbox_steal(struct wsx_p *p, struct wsx_p *victim, u32 t,
			   u32 *seen)
{
	struct llist_node *list, *node;
	u32 all = 0, n, k, i = 0;

	/* steal_policy=none: wsx_steal_work() never gets here */
	if (llist_empty(&victim->inbox))
		return 0;
	/* the items' contents, as in the owner's drain (litmus/inbox-put-drain-mp) */
	list = llist_del_all(&victim->inbox);
	if (!list)
		return 0;
	atomic_inc(&victim->inbox_takes);
	list = llist_reverse_order(list);	/* oldest first */
	for (node = list; node; node = node->next)
		wsx_walk_point(++all);
	n = min_t(u32, all, WSX_RUNQ_SIZE);
	k = wsx_steal_amount(wsx_sched.steal_policy, n);
	for (node = list; i < k; node = node->next, i++)
		WRITE_ONCE(p->runq.slots[(t + i) & WSX_RUNQ_MASK],
			   llist_entry(node, struct wsx_item, lnode));
	atomic_sub(all, &victim->inbox_len);	/* the rest is added back */
	if (node) {
		/* the rest, newest first, so that they drain in order */
		struct llist_node *rest = llist_reverse_order(node), *last;

		for (last = rest, i = 0; last->next; last = last->next)
			wsx_walk_point(++i);
		wsx_inbox_return(victim, rest, last, all - k);
	}
	*seen = n;
	return k;
}

/*
 * wsx_runq_steal - owner of @p (whose queues are empty): steal from @victim
 * into @p's runq and return one of the items to run now.
 */
static struct wsx_item *wsx_runq_steal(struct wsx_p *p, struct wsx_p *victim,
				       bool steal_runnext, bool *busy)
{
	u32 t = p->runq.tail, seen = 0, n;
	u64 cas_fails = 0;

	wsx_stat_inc(p, steal_attempts);
	preempt_disable();	/* keeps the grab short: see wsx_runq.h */
	n = wsx_runq_grab(&victim->runq, &p->runq, t, wsx_sched.steal_policy,
			  &seen, &cas_fails);
	preempt_enable();
	if (cas_fails)
		wsx_stat_add(p, steal_cas_fails, cas_fails);
	if (seen || cas_fails)
		*busy = true;
	if (!n)
		n = wsx_inbox_steal(p, victim, t, &seen);
	if (!n && steal_runnext && wsx_steal_runnext(p, victim, t))
		n = 1;
	if (!n)
		return NULL;
	wsx_steal_account(p, victim, seen, n);
	n--;
	if (n)
		/* publish the rest (litmus/runq-steal-publish-mp) */
		smp_store_release(&p->runq.tail, t + n);
	return READ_ONCE(p->runq.slots[(t + n) & WSX_RUNQ_MASK]);
}

/*
 * Last stealing round: run @victim's due delayed items here, if its own M is
 * busy with an item (an idle victim's timer fires and wakes it).
 */
static struct wsx_item *wsx_steal_timers(struct wsx_p *p,
					 struct wsx_p *victim)
{
	struct wsx_item *item, *tmp, *first = NULL;
	struct llist_node *chain;

	if (!READ_ONCE(victim->ntimers) || !READ_ONCE(victim->cur))
		return NULL;
	chain = wsx_timers_pop_due(victim);
	llist_for_each_entry_safe(item, tmp, chain, lnode) {
		/* queued on the victim now, run here: counted as stolen */
		wsx_item_stamp(item, item->queued_p, WSX_ORIGIN_REMOTE);
		if (!first)
			first = item;
		else
			wsx_runq_put(p, item, false);
	}
	return first;
}

/*
 * Does @victim hold what only the last round takes: its runnext, or due
 * delayed items while its M is busy?
 */
static bool wsx_victim_has_more(struct wsx_p *victim)
{
	return READ_ONCE(victim->runnext) ||
	       (READ_ONCE(victim->ntimers) && READ_ONCE(victim->cur));
}

/*
 * One round over group @g of @m's victims (topology.c), in a random order of
 * the group's own: a random start and a random stride coprime with its size.
 * @busy is set when a victim showed work this round could not take.
 */
static struct wsx_item *wsx_steal_group(struct wsx_m *m, unsigned int g,
					bool last, bool *busy)
{
	const struct wsx_victims *v = &m->p->victims;
	unsigned int start = g ? v->group_end[g - 1] : 0;
	unsigned int len = v->group_end[g] - start, i, pos, stride;
	struct wsx_p *victim;
	struct wsx_item *item;

	pos = wsx_m_rand(m) % len;
	stride = wsx_sched.coprimes[len][wsx_m_rand(m) %
					 wsx_sched.ncoprimes[len]];
	for (i = 0; i < len; i++, pos = wsx_order_next(pos, stride, len)) {
		victim = wsx_sched.ps[v->order[start + pos]];
		/*
		 * An idle P has an empty runq and runnext: only its owner
		 * fills them, and it parked with them empty.  Its inbox may
		 * hold items queued since (its M is on the way).
		 */
		if (test_bit(victim->id, wsx_sched.pidle) &&
		    llist_empty(&victim->inbox))
			continue;
		item = wsx_runq_steal(m->p, victim, last, busy);
		if (!item && last)
			item = wsx_steal_timers(m->p, victim);
		if (item)
			return item;
		if (!last && wsx_victim_has_more(victim))
			*busy = true;
	}
	return NULL;
}

struct wsx_item *wsx_steal_work(struct wsx_m *m)
{
	const struct wsx_victims *v = &m->p->victims;
	unsigned int round, g, tries = wsx_sched.steal_tries;
	struct wsx_item *item;
	bool busy;

	if (wsx_sched.steal_policy == WSX_STEAL_NONE)
		return NULL;
	for (round = 0; round < tries; round++) {
		busy = false;
		for (g = 0; g < v->ngroups; g++) {
			item = wsx_steal_group(m, g, round == tries - 1, &busy);
			if (item)
				return item;
		}
		/* every victim was empty: another round would see the same */
		if (!busy)
			break;
	}
	return NULL;
}
