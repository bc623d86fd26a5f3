// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: the items run and the CPU time used for each user of /dev/wsx.
 *
 * Work done for a user runs in the Ms, kernel threads outside the user's
 * cgroup, so the kernel's own accounting charges it to no one.  Each
 * session of /dev/wsx is counted for the real uid of the process that
 * opened it (as io_uring charges a ring to its creator's user): every
 * item of its jobs that an M runs adds one item and the CPU time the M
 * used meanwhile.  The stats file shows one "user" line per uid
 * (wsx_accounts_show()).
 *
 * The CPU time is the M's se.sum_exec_runtime after the item less before
 * it, which the scheduler updates at its ticks and context switches: one
 * short item may be charged a tick's time or nothing, the sums over many
 * items come out right.  A blocking section's wait is not CPU time.
 *
 * Fields: A = under wsx_accounts_lock.  An account, once made, lives until
 * the module is unloaded (sessions keep a plain pointer), so the table
 * holds at most WSX_ACCOUNTS_MAX uids; the sessions of further uids are
 * counted together under uid WSX_ACCOUNT_OVERFLOW_UID.  The counters are
 * per CPU: an M adds to its CPU's with this_cpu_add() (no shared cache
 * line between Ms working for one user); readers sum them racily, like the
 * other statistics.
 */
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/user_namespace.h>

#include "account.h"

#define WSX_ACCOUNTS_MAX		1024
#define WSX_ACCOUNT_OVERFLOW_UID	4294967295U

/* One user's counters on one CPU, summed over CPUs when read. */
struct wsx_account_cpu {
	u64 items;	/* items run */
	u64 cpu_ns;	/* the Ms' CPU time while they ran them */
};

struct wsx_account {
	struct hlist_node node;			/* A: in wsx_accounts */
	kuid_t uid;				/* set once; INVALID_UID: overflow */
	struct wsx_account_cpu __percpu *cpu;	/* each CPU's Ms */
};

static DEFINE_MUTEX(wsx_accounts_lock);
static DEFINE_HASHTABLE(wsx_accounts, 6);	/* A */
static unsigned int wsx_naccounts;		/* A */

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

/**
 * wsx_account_get - the account of a session opened by @uid
 * @uid:	the opener's real uid
 *
 * Makes it on first use; past WSX_ACCOUNTS_MAX uids, returns the account
 * they share.  Process context (it may sleep).
 *
 * Return: the account, valid until the module is unloaded, or NULL when
 * out of memory.
 */
struct wsx_account *wsx_account_get(kuid_t uid)
{
	struct wsx_account *acct;

	mutex_lock(&wsx_accounts_lock);
	if (wsx_naccounts >= WSX_ACCOUNTS_MAX)
		uid = INVALID_UID;
	acct = wsx_account_find(uid);
	if (acct)
		goto out;
	acct = kzalloc(sizeof(*acct), GFP_KERNEL);
	if (!acct)
		goto out;
	acct->cpu = alloc_percpu(struct wsx_account_cpu);
	if (!acct->cpu) {
		kfree(acct);
		acct = NULL;
		goto out;
	}
	acct->uid = uid;
	hash_add(wsx_accounts, &acct->node, __kuid_val(uid));
	if (uid_valid(uid))
		wsx_naccounts++;
out:
	mutex_unlock(&wsx_accounts_lock);
	return acct;
}

/**
 * wsx_account_item - an M ran one item of @acct's
 * @acct:	the job's account, or NULL (an in-kernel user's job)
 * @cpu_ns:	the M's CPU time while it ran the item
 */
void wsx_account_item(struct wsx_account *acct, u64 cpu_ns)
{
	if (!acct)
		return;
	this_cpu_inc(acct->cpu->items);
	this_cpu_add(acct->cpu->cpu_ns, cpu_ns);
}

/* The stats file's "user" lines: one per account, uid order not kept. */
void wsx_accounts_show(struct seq_file *sf)
{
	struct wsx_account *acct;
	unsigned int bkt;
	int cpu;

	mutex_lock(&wsx_accounts_lock);
	hash_for_each(wsx_accounts, bkt, acct, node) {
		u64 items = 0, cpu_ns = 0;
		u32 uid = WSX_ACCOUNT_OVERFLOW_UID;

		for_each_possible_cpu(cpu) {
			const struct wsx_account_cpu *c =
				per_cpu_ptr(acct->cpu, cpu);

			/* racy: the Ms add meanwhile (see the header) */
			items += data_race(c->items);
			/* racy, as above */
			cpu_ns += data_race(c->cpu_ns);
		}
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
	hash_for_each(wsx_accounts, bkt, acct, node)
		for_each_possible_cpu(cpu) {
			struct wsx_account_cpu *c = per_cpu_ptr(acct->cpu, cpu);

			/* racy: an M adding meanwhile may keep its sum */
			data_race(c->items = 0);
			/* racy, as above */
			data_race(c->cpu_ns = 0);
		}
	mutex_unlock(&wsx_accounts_lock);
}

/* Module exit, after the last session is gone: free the table. */
void wsx_accounts_exit(void)
{
	struct wsx_account *acct;
	struct hlist_node *tmp;
	unsigned int bkt;

	hash_for_each_safe(wsx_accounts, bkt, tmp, acct, node) {
		hash_del(&acct->node);
		free_percpu(acct->cpu);
		kfree(acct);
	}
	wsx_naccounts = 0;
}
