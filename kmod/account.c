// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: the items run and the CPU time used for each user of /dev/wsx.
 *
 * Work done for a user runs in the Ms, kernel threads outside the user's
 * cgroup, so the kernel's own accounting charges it to no one.  Each
 * session of /dev/wsx is counted for the real uid of the process that
 * opened it (as io_uring charges a ring to its creator's user): every
 * item of its jobs that an M runs adds one item and the CPU time the M
 * used meanwhile, also an item that skipped its work because its session
 * was closing, and whether or not the per-P counters are on (module
 * parameter stats).  The Ms' consuming of a pick-up ring's SQ is counted
 * for nobody.  The stats file shows one "user" line per uid
 * (wsx_accounts_show()).
 *
 * The CPU time is the M's se.sum_exec_runtime after the item less before
 * it, which the scheduler updates at its ticks and context switches: one
 * short item may be charged a tick's time or nothing, the sums over many
 * items come out right.  A blocking section's wait is not CPU time.
 *
 * Fields: U = under wsx_accounts_lock.  An account lives while a session
 * holds it (sessions) and after, until the table is full: the table keeps
 * at most max_users uids (module parameter).  A uid not in a full table
 * takes the place of an account that no session holds, whose counts are
 * folded into the overflow account (uid WSX_ACCOUNT_OVERFLOW_UID: users
 * that left the table); when every account is held, the new session is
 * counted in the overflow account.  Once its session is released no M
 * adds to an account (wsx_release() waits for every job), so a folded one
 * can be freed.  The counters are per CPU: an M adds to its CPU's with
 * this_cpu_add() (no shared cache line between Ms working for one user);
 * readers sum them racily, like the other statistics, and a reset may
 * lose to an M adding meanwhile.
 */
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "account.h"

#define WSX_ACCOUNT_OVERFLOW_UID	4294967295U

static unsigned int wsx_max_users = 1024;
module_param_named(max_users, wsx_max_users, uint, 0644);
MODULE_PARM_DESC(max_users, "Users of /dev/wsx counted each on their own in the stats, at least 1 (others together)");

/* One user's counters on one CPU, summed over CPUs when read. */
struct wsx_account_cpu {
	u64 items;	/* items run */
	u64 cpu_ns;	/* the Ms' CPU time while they ran them */
};

struct wsx_account {
	struct hlist_node node;			/* U: in wsx_accounts */
	kuid_t uid;				/* set once; INVALID_UID: overflow */
	unsigned int sessions;			/* U: sessions counted here */
	struct wsx_account_cpu __percpu *cpu;	/* each CPU's Ms */
	atomic64_t folded_items;		/* the overflow's: users gone */
	atomic64_t folded_cpu_ns;
};

static DEFINE_MUTEX(wsx_accounts_lock);
static DEFINE_HASHTABLE(wsx_accounts, 6);	/* U */
static unsigned int wsx_naccounts;		/* U: uids, not the overflow */

/* The account of @uid in the table, or NULL. */
static struct wsx_account *wsx_account_find(kuid_t uid)
{
	struct wsx_account *acct;

	lockdep_assert_held(&wsx_accounts_lock);
	hash_for_each_possible(wsx_accounts, acct, node, __kuid_val(uid))
		if (uid_eq(acct->uid, uid))
			return acct;
	return NULL;
}

/* A new account of @uid in the table, or NULL when out of memory. */
static struct wsx_account *wsx_account_new(kuid_t uid)
{
	struct wsx_account *acct;

	lockdep_assert_held(&wsx_accounts_lock);
	acct = kzalloc(sizeof(*acct), GFP_KERNEL);
	if (!acct)
		return NULL;
	acct->cpu = alloc_percpu(struct wsx_account_cpu);
	if (!acct->cpu) {
		kfree(acct);
		return NULL;
	}
	acct->uid = uid;
	hash_add(wsx_accounts, &acct->node, __kuid_val(uid));
	if (uid_valid(uid))
		wsx_naccounts++;
	return acct;
}

static void wsx_account_free(struct wsx_account *acct)
{
	lockdep_assert_held(&wsx_accounts_lock);
	hash_del(&acct->node);
	if (uid_valid(acct->uid))
		wsx_naccounts--;
	free_percpu(acct->cpu);
	kfree(acct);
}

/* @acct's items and CPU time, summed over CPUs (racily). */
static void wsx_account_sum(const struct wsx_account *acct, u64 *items,
			    u64 *cpu_ns)
{
	int cpu;

	*items = atomic64_read(&acct->folded_items);
	*cpu_ns = atomic64_read(&acct->folded_cpu_ns);
	for_each_possible_cpu(cpu) {
		const struct wsx_account_cpu *c = per_cpu_ptr(acct->cpu, cpu);

		/* racy: the Ms add meanwhile (see the header) */
		*items += data_race(c->items);
		/* racy, as above */
		*cpu_ns += data_race(c->cpu_ns);
	}
}

/*
 * Make room in a full table: fold an account no session holds into
 * @overflow and free it.  Returns false when every account is held.
 * (max_users lowered at run time: called until the table is below it.)
 */
static bool wsx_account_reclaim(struct wsx_account *overflow)
{
	struct wsx_account *acct;
	unsigned int bkt;
	u64 items, cpu_ns;

	lockdep_assert_held(&wsx_accounts_lock);
	hash_for_each(wsx_accounts, bkt, acct, node) {
		if (acct->sessions || !uid_valid(acct->uid))
			continue;
		/* no M adds to it: its sessions are released */
		wsx_account_sum(acct, &items, &cpu_ns);
		atomic64_add(items, &overflow->folded_items);
		atomic64_add(cpu_ns, &overflow->folded_cpu_ns);
		wsx_account_free(acct);
		return true;
	}
	return false;
}

/**
 * wsx_account_get - the account of a session opened by @uid
 * @uid:	the opener's real uid
 *
 * Makes it on first use, in a full table in the place of an account no
 * session holds, else returns the overflow account.  Process context (it
 * may sleep).  Each successful call needs a wsx_account_put().
 *
 * Return: the account, or NULL when out of memory.
 */
struct wsx_account *wsx_account_get(kuid_t uid)
{
	struct wsx_account *acct, *overflow;

	mutex_lock(&wsx_accounts_lock);
	acct = wsx_account_find(uid);
	if (acct)
		goto got;
	if (wsx_naccounts >= max(READ_ONCE(wsx_max_users), 1U)) {
		overflow = wsx_account_find(INVALID_UID);
		if (!overflow)
			overflow = wsx_account_new(INVALID_UID);
		if (!overflow)
			goto out;
		while (wsx_naccounts >= max(READ_ONCE(wsx_max_users), 1U))
			if (!wsx_account_reclaim(overflow)) {
				acct = overflow;
				goto got;
			}
	}
	acct = wsx_account_new(uid);
	if (!acct)
		goto out;
got:
	acct->sessions++;
out:
	mutex_unlock(&wsx_accounts_lock);
	return acct;
}

/**
 * wsx_account_put - a session of @acct's is released
 * @acct:	what wsx_account_get() returned; no M adds to it for the
 *		session any more
 */
void wsx_account_put(struct wsx_account *acct)
{
	mutex_lock(&wsx_accounts_lock);
	acct->sessions--;
	mutex_unlock(&wsx_accounts_lock);
}

/**
 * wsx_account_item - an M ran one item of @acct's
 * @acct:	the job's account (an in-kernel user's job has none: the M
 *		does not call this for it)
 * @cpu_ns:	the M's CPU time while it ran the item
 */
void wsx_account_item(struct wsx_account *acct, u64 cpu_ns)
{
	this_cpu_inc(acct->cpu->items);
	this_cpu_add(acct->cpu->cpu_ns, cpu_ns);
}

/* The stats file's "user" lines: one per account, uid order not kept. */
void wsx_accounts_show(struct seq_file *sf)
{
	struct wsx_account *acct;
	unsigned int bkt;

	mutex_lock(&wsx_accounts_lock);
	hash_for_each(wsx_accounts, bkt, acct, node) {
		u32 uid = WSX_ACCOUNT_OVERFLOW_UID;
		u64 items, cpu_ns;

		wsx_account_sum(acct, &items, &cpu_ns);
		if (uid_valid(acct->uid))
			uid = from_kuid_munged(&init_user_ns, acct->uid);
		seq_printf(sf, "user uid=%u items=%llu cpu_ns=%llu\n",
			   uid, items, cpu_ns);
	}
	mutex_unlock(&wsx_accounts_lock);
}

/* The stats file's reset: zero every account's counters (racily). */
void wsx_accounts_reset(void)
{
	struct wsx_account *acct;
	unsigned int bkt;
	int cpu;

	mutex_lock(&wsx_accounts_lock);
	hash_for_each(wsx_accounts, bkt, acct, node) {
		atomic64_set(&acct->folded_items, 0);
		atomic64_set(&acct->folded_cpu_ns, 0);
		for_each_possible_cpu(cpu) {
			struct wsx_account_cpu *c = per_cpu_ptr(acct->cpu, cpu);

			/* racy: an M adding meanwhile may keep its sum */
			data_race(c->items = 0);
			/* racy, as above */
			data_race(c->cpu_ns = 0);
		}
	}
	mutex_unlock(&wsx_accounts_lock);
}

/* Module exit, after the last session is gone: free the table. */
void wsx_accounts_exit(void)
{
	struct wsx_account *acct;
	struct hlist_node *tmp;
	unsigned int bkt;

	mutex_lock(&wsx_accounts_lock);
	hash_for_each_safe(wsx_accounts, bkt, tmp, acct, node)
		wsx_account_free(acct);
	mutex_unlock(&wsx_accounts_lock);
}
