// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: the /dev/wsx misc device, its sessions and ioctls.
 *
 * Each open file is a session.  WSX_IOC_SUBMIT turns every request of a
 * batch into a job (struct wsx_ujob) whose root item is queued on the
 * executor; once the job's last item finished (and its count is given back:
 * job.c, "An M's credit"), its done callback moves the job to the
 * session's done list and wakes waiters.  WSX_IOC_WAIT consumes that
 * list; poll() reports it.  A job counts against the in-flight limits from
 * submission until its completion record is read (or dropped at close).
 *
 * Closing the file sets the session's closing flag, which is the cancel
 * flag of all its jobs: items not yet started skip their work.  wsx_release()
 * then waits until every job has finished, so no item outlives the session.
 *
 * A session may also share rings with userspace (rings.c): WSX_IOC_RING_SETUP
 * creates them, mmap() maps them, WSX_IOC_ENTER drives them.  It owns
 * channels (uchan.c): WSX_IOC_CHAN_CREATE and WSX_IOC_CHAN_CLOSE; closing
 * the session closes them, which readies the items parked on them, and
 * cancels its armed POLL items (poll.c), before it waits for its jobs.
 *
 * Session fields: E = under s->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include <linux/wsx.h>

#include "account.h"
#include "dev.h"
#include "fault.h"
#include "ops.h"
#include "poll.h"
#include "rings.h"
#include "submit.h"
#include "timers.h"
#include "uchan.h"
#include "wsx_bounds.h"

static_assert(sizeof(struct wsx_version) == 32);
static_assert(sizeof(struct wsx_req) == 64);
static_assert(sizeof(struct wsx_submit) == 32);
static_assert(sizeof(struct wsx_completion) == 64);
static_assert(sizeof(struct wsx_wait) == 40);
static_assert(sizeof(struct wsx_ring_setup) == 64);
static_assert(sizeof(struct wsx_enter) == 32);
static_assert(sizeof(struct wsx_chan_create) == 16);

struct wsx_session {
	spinlock_t lock;		/* the E: fields */
	struct list_head done;		/* E: finished jobs, oldest first */
	unsigned int ndone;		/* E, read racily by poll and WAIT */
	unsigned int running;		/* E: jobs not finished */
	unsigned int inflight;		/* E: jobs not yet reaped */
	bool closing;			/* E: the cancel flag of every job */
	wait_queue_head_t wq;		/* WAIT, poll (the rings' too), release */
	struct wsx_rings *rings;	/* set once (release/acquire) */
	struct wsx_account *acct;	/* set at open: the opener's uid */
	struct wsx_uchans chans;	/* its channels: uchan.c's fields */
};

struct wsx_ujob {
	struct wsx_job job;
	struct wsx_session *s;
	struct list_head node;		/* in s->done */
	u64 user_data;
	u64 queued_ns;
	u64 finished_ns;
	u32 op;
};

unsigned int wsx_max_inflight_fd = 1U << 16;
static struct kmem_cache *wsx_ujob_cache;

static void wsx_ujob_free(struct wsx_ujob *uj)
{
	wsx_inflight_unreserve(1);
	kmem_cache_free(wsx_ujob_cache, uj);
}

/* The job's last item finished: runs in an M that ran one of its items. */
static void wsx_ujob_done(struct wsx_job *job)
{
	struct wsx_ujob *uj = container_of(job, struct wsx_ujob, job);
	struct wsx_session *s = uj->s;
	unsigned long flags;

	uj->finished_ns = ktime_get_ns();
	spin_lock_irqsave(&s->lock, flags);
	if (s->closing) {
		s->inflight--;
		atomic64_inc(&wsx_cancelled_jobs);
		wsx_ujob_free(uj);
	} else {
		list_add_tail(&uj->node, &s->done);
		WRITE_ONCE(s->ndone, s->ndone + 1);
	}
	WRITE_ONCE(s->running, s->running - 1);
	/* under the lock: wsx_release() frees s only after taking it */
	wake_up(&s->wq);
	spin_unlock_irqrestore(&s->lock, flags);
}

/* ---- WSX_IOC_VERSION -------------------------------------------------- */

static long wsx_ioctl_version(void __user *arg)
{
	struct wsx_version v = {
		.abi_major = WSX_ABI_MAJOR,
		.abi_minor = WSX_ABI_MINOR,
		.nprocs = wsx_nr_procs(),
		.submit_max = WSX_SUBMIT_MAX,
		.wait_max = WSX_WAIT_MAX,
	};

	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

/* ---- WSX_IOC_SUBMIT --------------------------------------------------- */

/* Count one more job in flight for @s, within the limits. */
static int wsx_inflight_get(struct wsx_session *s)
{
	int ret = 0;

	spin_lock_irq(&s->lock);
	if (s->inflight >= READ_ONCE(wsx_max_inflight_fd)) {
		ret = -EAGAIN;
	} else if (wsx_inflight_reserve(1)) {
		ret = -EAGAIN;
	} else {
		s->inflight++;
		s->running++;
	}
	spin_unlock_irq(&s->lock);
	return ret;
}

static void wsx_inflight_put(struct wsx_session *s)
{
	spin_lock_irq(&s->lock);
	s->inflight--;
	s->running--;
	spin_unlock_irq(&s->lock);
	wsx_inflight_unreserve(1);
}

/* Turn one checked request into a job queued in @batch. */
static int wsx_submit_one(struct wsx_session *s, const struct wsx_req *req,
			  struct wsx_queue_batch *batch)
{
	struct wsx_item *root;
	struct wsx_ujob *uj;
	int ret;

	ret = wsx_inflight_get(s);
	if (ret)
		return ret;
	uj = kmem_cache_alloc(wsx_ujob_cache, GFP_KERNEL_ACCOUNT);
	if (!uj) {
		ret = -ENOMEM;
		goto fail;
	}
	wsx_job_init(&uj->job, wsx_ujob_done);
	uj->job.cancel = &s->closing;
	uj->job.acct = s->acct;
	uj->s = s;
	uj->user_data = req->user_data;
	uj->op = req->op;
	wsx_submit_before_setup(req, batch);
	root = wsx_op_create(req, &uj->job, &s->chans);
	if (IS_ERR(root)) {
		ret = PTR_ERR(root);
		kmem_cache_free(wsx_ujob_cache, uj);
		goto fail;
	}
	uj->queued_ns = ktime_get_ns();
	wsx_submit_root(root, req, batch);
	wsx_job_start(&uj->job);
	return 0;
fail:
	wsx_inflight_put(s);
	return ret;
}

/*
 * Copy request @ureq; when that would wait for a page fault (which a user
 * may serve only once these items ran), queue what @batch holds first.
 */
static int wsx_req_copy(struct wsx_req *req, const struct wsx_req __user *ureq,
			struct wsx_queue_batch *batch)
{
	if (!copy_from_user_nofault(req, ureq, sizeof(*req)))
		return 0;
	wsx_queue_batch_flush(batch);
	return copy_from_user(req, ureq, sizeof(*req)) ? -EFAULT : 0;
}

static long wsx_ioctl_submit(struct wsx_session *s,
			     struct wsx_submit __user *uarg)
{
	struct wsx_queue_batch batch = WSX_QUEUE_BATCH_INIT;
	struct wsx_req __user *ureqs;
	void __user *uitems;
	struct wsx_submit sub;
	struct wsx_req req;
	u32 i;
	int err = 0;

	if (copy_from_user(&sub, uarg, sizeof(sub)))
		return -EFAULT;
	if (memchr_inv(sub.reserved, 0, sizeof(sub.reserved)) || !sub.count)
		return -EINVAL;
	if (sub.count > WSX_SUBMIT_MAX)
		return -E2BIG;
	if (!wsx_user_addr(sub.items, &uitems))
		return -EFAULT;
	ureqs = uitems;
	for (i = 0; i < sub.count; i++) {
		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		/*
		 * the batch's items wait for no turn of ours we can see
		 * coming; a preemption inside an iteration (an allocation's
		 * might_resched(), or anywhere under full preemption) may
		 * hold them for a time slice, once per iteration until the
		 * batch fills (31 items at most)
		 */
		if (need_resched())
			wsx_queue_batch_flush(&batch);
		cond_resched();
		err = wsx_req_copy(&req, &ureqs[i], &batch);
		if (!err)
			err = wsx_req_check(&req, 0);
		if (!err)
			err = wsx_submit_one(s, &req, &batch);
		if (err)
			break;
	}
	wsx_queue_batch_flush(&batch);
	/* the queued items stand even if userspace cannot learn of it here */
	if (put_user(i, &uarg->queued) || put_user(err, &uarg->error))
		return i ? i : -EFAULT;
	return i ? i : err;
}

/* ---- WSX_IOC_WAIT ----------------------------------------------------- */

/*
 * Wait as WSX_IOC_WAIT documents: until at least @min records are ready
 * (0), a signal comes (-EINTR), or the CLOCK_MONOTONIC time @until (NULL:
 * no limit) has passed (-ETIMEDOUT).  The deadline is absolute, so a
 * wakeup that finds too few records sleeps only for what is left of it.
 * 0 means the records were seen ready: another WAIT may take them before
 * the caller does (wsx_records_copy()).
 *
 * The loop is written out rather than taken from
 * wait_event_interruptible_hrtimeout(), whose plain test of its timer's
 * sleeper, racing with hrtimer_wakeup(), is inlined here: KCSAN reported
 * that race in this function.  schedule_hrtimeout_range() has the same
 * harmless race (a stale sleeper only makes schedule() return at once,
 * the task being running already), but in the kernel's own code, as for
 * poll() and select(); the rings' waits use it too.
 */
static int wsx_wait_ready(struct wsx_session *s, u32 min, ktime_t *until)
{
	DEFINE_WAIT(wait);
	int ret = 0;

	if (!min)
		return 0;
	for (;;) {
		prepare_to_wait(&s->wq, &wait, TASK_INTERRUPTIBLE);
		if (READ_ONCE(s->ndone) >= min)
			break;
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		/* 0: the deadline passed; the records may have come with it */
		if (!schedule_hrtimeout_range(until, current->timer_slack_ns,
					      HRTIMER_MODE_ABS)) {
			if (READ_ONCE(s->ndone) < min)
				ret = -ETIMEDOUT;
			break;
		}
	}
	finish_wait(&s->wq, &wait);
	return ret;
}

/*
 * Copy up to @max records to @urecs, if at least @min are there (else
 * -EAGAIN: another WAIT took them since wsx_wait_ready() saw them, and
 * the caller waits again; a WSX_DEBUG build's wait_take_lost drop point
 * fakes that, leaving the records).  What cannot be copied goes back to
 * the session, and whoever slept on s->wq while it was out (another WAIT,
 * a poll()) is woken to look again.
 */
static long wsx_records_copy(struct wsx_session *s,
			     struct wsx_completion __user *urecs, u32 min,
			     u32 max)
{
	struct wsx_completion rec;
	struct wsx_ujob *uj, *tmp;
	u32 n = 0, copied = 0;
	LIST_HEAD(batch);

	spin_lock_irq(&s->lock);
	if (s->ndone < min || wsx_fault_drop(WSX_FAULT_WAIT_TAKE_LOST)) {
		spin_unlock_irq(&s->lock);
		return -EAGAIN;
	}
	list_for_each_entry_safe(uj, tmp, &s->done, node) {
		if (n == max)
			break;
		list_move_tail(&uj->node, &batch);
		n++;
	}
	WRITE_ONCE(s->ndone, s->ndone - n);
	spin_unlock_irq(&s->lock);

	wsx_fault_sleep(WSX_FAULT_RECORDS_OUT);
	list_for_each_entry_safe(uj, tmp, &batch, node) {
		wsx_record_fill(&rec, uj->user_data, uj->op, &uj->job,
				uj->queued_ns, uj->finished_ns);
		if (copy_to_user(&urecs[copied], &rec, sizeof(rec)))
			break;
		list_del(&uj->node);
		wsx_ujob_free(uj);
		copied++;
	}

	spin_lock_irq(&s->lock);
	s->inflight -= copied;
	if (copied < n) {
		list_splice(&batch, &s->done);
		WRITE_ONCE(s->ndone, s->ndone + n - copied);
	}
	spin_unlock_irq(&s->lock);
	/*
	 * A waiter that found ndone short while these records were out
	 * sleeps on s->wq; the records' own wakeup was spent.  wake_up()
	 * takes the queue's lock: a waiter queued before it is woken, and
	 * one queued after it (prepare_to_wait(), poll_wait()) reads this
	 * ndone or a later one (litmus/records-putback-wait-locked).  So no
	 * waitqueue_active() test here, which would need an smp_mb().
	 */
	if (copied < n)
		wake_up(&s->wq);
	return copied || !n ? copied : -EFAULT;
}

static long wsx_ioctl_wait(struct wsx_session *s, struct wsx_wait __user *uarg)
{
	ktime_t deadline, *until = NULL;
	void __user *urecs;
	struct wsx_wait w;
	long ret;

	if (copy_from_user(&w, uarg, sizeof(w)))
		return -EFAULT;
	if (memchr_inv(w.reserved, 0, sizeof(w.reserved)) || !w.max ||
	    w.min > w.max)
		return -EINVAL;
	if (w.max > WSX_WAIT_MAX)
		return -E2BIG;
	/* fail before taking any record if @count cannot be written back */
	if (put_user(0U, &uarg->count))
		return -EFAULT;
	if (!wsx_user_addr(w.records, &urecs))
		return -EFAULT;
	if (w.timeout_ns >= 0) {
		deadline = ktime_add_safe(ktime_get(),
					  ns_to_ktime(w.timeout_ns));
		until = &deadline;
	}
	/*
	 * Several WAITs on one session may all see the same records ready;
	 * one that finds fewer than @min left when it takes them waits again,
	 * to the same deadline, rather than return short.
	 */
	for (;;) {
		ret = wsx_wait_ready(s, w.min, until);
		if (ret)
			return ret;
		wsx_fault_sleep(WSX_FAULT_WAIT_BEFORE_TAKE);
		ret = wsx_records_copy(s, urecs, w.min, w.max);
		if (ret != -EAGAIN)
			break;
		/*
		 * Another WAIT took them.  A signal or the deadline ends the
		 * call here: wsx_wait_ready() looks at neither while records
		 * are ready, and others may keep taking them.
		 */
		if (signal_pending(current))
			return -EINTR;
		if (until && ktime_compare(ktime_get(), *until) >= 0)
			return -ETIMEDOUT;
		cond_resched();
	}
	/*
	 * The copied records are gone from the session: report their number
	 * even if @count became unwritable since the check above.
	 */
	if (ret > 0 && put_user((u32)ret, &uarg->count))
		pr_debug("WAIT: count not written back\n");
	return ret;
}

/* ---- the rings: WSX_IOC_RING_SETUP, WSX_IOC_ENTER, mmap ---------------- */

/* The session's rings, or NULL before WSX_IOC_RING_SETUP. */
static struct wsx_rings *wsx_session_rings(struct wsx_session *s)
{
	/* acquire: pairs with the cmpxchg that published them
	 * (litmus/ring-setup-session-rings-mp)
	 */
	return smp_load_acquire(&s->rings);
}

static long wsx_ioctl_ring_setup(struct wsx_session *s,
				 struct wsx_ring_setup __user *uarg)
{
	struct wsx_ring_setup setup;
	struct wsx_rings *r;

	if (copy_from_user(&setup, uarg, sizeof(setup)))
		return -EFAULT;
	if (wsx_session_rings(s))
		return -EBUSY;
	r = wsx_rings_create(&setup, &s->closing, &s->wq, s->acct, &s->chans);
	if (IS_ERR(r))
		return PTR_ERR(r);
	if (copy_to_user(uarg, &setup, sizeof(setup))) {
		wsx_rings_destroy(r);
		return -EFAULT;
	}
	/* fully ordered: the rings are set up before anyone sees them
	 * (litmus/ring-setup-session-rings-mp)
	 */
	if (cmpxchg(&s->rings, NULL, r)) {
		wsx_rings_destroy(r);
		return -EBUSY;
	}
	/*
	 * After the cmpxchg's full barrier: a poll() that found no rings
	 * is on s->wq by now, and looks again once woken, this time under
	 * cq_lock (wsx_rings_poll()); the rings' posters wake only the
	 * sleepers they see under cq_lock (litmus/rings-setup-poll-sb)
	 */
	if (waitqueue_active(&s->wq))
		wake_up(&s->wq);
	return 0;
}

static long wsx_ioctl_enter(struct wsx_session *s,
			    struct wsx_enter __user *uarg)
{
	struct wsx_rings *r = wsx_session_rings(s);
	struct wsx_enter e;
	long ret;

	if (copy_from_user(&e, uarg, sizeof(e)))
		return -EFAULT;
	if (!r)
		return -ENXIO;
	ret = wsx_rings_enter(r, &e);
	if (put_user(e.submitted, &uarg->submitted) ||
	    put_user(e.error, &uarg->error))
		return -EFAULT;
	return ret;
}

/* ---- WSX_IOC_CHAN_CREATE, WSX_IOC_CHAN_CLOSE ---------------------------- */

static long wsx_ioctl_chan_create(struct wsx_session *s,
				  struct wsx_chan_create __user *uarg)
{
	struct wsx_chan_create cc;
	long ret;

	if (copy_from_user(&cc, uarg, sizeof(cc)))
		return -EFAULT;
	if (cc.flags || cc.reserved)
		return -EINVAL;
	ret = wsx_uchan_create(&s->chans, cc.cap, &cc.id);
	if (ret)
		return ret;
	/* the channel stays, as an id the user never learnt, till release */
	return put_user(cc.id, &uarg->id) ? -EFAULT : 0;
}

static long wsx_ioctl_chan_close(struct wsx_session *s, u32 __user *uarg)
{
	u32 id;

	if (get_user(id, uarg))
		return -EFAULT;
	return wsx_uchan_close(&s->chans, id);
}

static int wsx_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct wsx_rings *r = wsx_session_rings(file->private_data);

	return r ? wsx_rings_mmap(r, vma) : -ENXIO;
}

/* ---- file operations -------------------------------------------------- */

static long wsx_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct wsx_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	/* what queues work or allocates for it needs a file open for writing */
	if ((cmd == WSX_IOC_SUBMIT || cmd == WSX_IOC_RING_SETUP ||
	     cmd == WSX_IOC_ENTER || cmd == WSX_IOC_CHAN_CREATE ||
	     cmd == WSX_IOC_CHAN_CLOSE) && !(file->f_mode & FMODE_WRITE))
		return -EBADF;

	switch (cmd) {
	case WSX_IOC_VERSION:
		return wsx_ioctl_version(uarg);
	case WSX_IOC_SUBMIT:
		return wsx_ioctl_submit(s, uarg);
	case WSX_IOC_WAIT:
		return wsx_ioctl_wait(s, uarg);
	case WSX_IOC_RING_SETUP:
		return wsx_ioctl_ring_setup(s, uarg);
	case WSX_IOC_ENTER:
		return wsx_ioctl_enter(s, uarg);
	case WSX_IOC_CHAN_CREATE:
		return wsx_ioctl_chan_create(s, uarg);
	case WSX_IOC_CHAN_CLOSE:
		return wsx_ioctl_chan_close(s, uarg);
	default:
		return -ENOTTY;
	}
}

static __poll_t wsx_session_poll(struct file *file, poll_table *wait)
{
	struct wsx_session *s = file->private_data;
	struct wsx_rings *r;

	/* the rings' records wake s->wq too, set up before or after this */
	poll_wait(file, &s->wq, wait);
	/*
	 * StoreLoad: on the queue before the rings are looked up; pairs with
	 * the cmpxchg that publishes them, so that rings set up meanwhile
	 * are seen here or their setup wakes us (litmus/rings-setup-poll-sb);
	 * their records are read under cq_lock (wsx_rings_poll())
	 */
	smp_mb();
	r = wsx_session_rings(s);
	if (READ_ONCE(s->ndone) || (r && wsx_rings_poll(r)))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static int wsx_open(struct inode *inode, struct file *file)
{
	struct wsx_session *s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);

	if (!s)
		return -ENOMEM;
	s->acct = wsx_account_get(current_uid());
	if (!s->acct) {
		kfree(s);
		return -ENOMEM;
	}
	spin_lock_init(&s->lock);
	INIT_LIST_HEAD(&s->done);
	wsx_uchans_init(&s->chans);
	init_waitqueue_head(&s->wq);
	file->private_data = s;
	return nonseekable_open(inode, file);
}

static int wsx_release(struct inode *inode, struct file *file)
{
	struct wsx_session *s = file->private_data;
	struct wsx_ujob *uj, *tmp;
	struct wsx_rings *r = wsx_session_rings(s);

	spin_lock_irq(&s->lock);
	WRITE_ONCE(s->closing, true);
	spin_unlock_irq(&s->lock);
	/* no M consumes the SQ after this: nothing is delayed past the flush */
	if (r)
		wsx_rings_quiesce(r);
	wsx_timers_flush(&s->closing);	/* delayed items: now, cancelled */
	/*
	 * Every job of ours starts cancelled now; one already running sees
	 * its channels closed: after this none parks on a channel of ours
	 * (a PINGPONG's or PIPELINE's own end of the cancel: ops.c)
	 */
	wsx_uchans_close_all(&s->chans);
	/* and a POLL ends: after this none arms */
	wsx_polls_cancel_all(&s->chans.polls);
	wait_event(s->wq, !READ_ONCE(s->running));
	/* the last done callback wakes us under the lock: let it leave */
	spin_lock_irq(&s->lock);
	spin_unlock_irq(&s->lock);
	list_for_each_entry_safe(uj, tmp, &s->done, node)
		wsx_ujob_free(uj);
	if (r)
		wsx_rings_destroy(r);	/* waits for the rings' jobs */
	wsx_uchans_destroy(&s->chans);	/* no job of ours is left */
	wsx_account_put(s->acct);	/* no M adds to it for us now */
	kfree(s);
	return 0;
}

static const struct file_operations wsx_fops = {
	.owner		= THIS_MODULE,
	.open		= wsx_open,
	.release	= wsx_release,
	.unlocked_ioctl	= wsx_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.poll		= wsx_session_poll,
	.mmap		= wsx_mmap,
	/* no .llseek: nonseekable_open() makes lseek() fail with -ESPIPE */
};

static struct miscdevice wsx_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "wsx",
	.fops	= &wsx_fops,
	.mode	= 0600,
};

int wsx_dev_init(void)
{
	int ret;

	wsx_ujob_cache = KMEM_CACHE(wsx_ujob, 0);
	if (!wsx_ujob_cache)
		return -ENOMEM;
	ret = misc_register(&wsx_misc);
	if (ret)
		kmem_cache_destroy(wsx_ujob_cache);
	return ret;
}

void wsx_dev_exit(void)
{
	misc_deregister(&wsx_misc);
	kmem_cache_destroy(wsx_ujob_cache);
}
