/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx fault injection: named delays at named places, for tests that must
 * widen a race window the normal schedule almost never opens.  They exist
 * only in a module built with WSX_DEBUG=1 (make WSX_DEBUG=1, the debug
 * kernels' builds of `make check-debug`); in a release build wsx_fault() is
 * an empty inline and no debugfs file exists.
 *
 * /sys/kernel/debug/wsx/fault/<name>: microseconds to busy-wait at that
 * place (0, the default: none); usable in any context, atomic included.
 * wsx_fault_sleep() sleeps instead, in process context, for a place that
 * stands for a wait that sleeps (a busy-wait there would also hold off
 * stop_machine(), so a CPU offline, by itself).  A drop point
 * (wsx_fault_drop()) skips what follows it instead: its value is the number
 * of passes still to skip.
 * /sys/kernel/debug/wsx/fault/<name>_hits: times the place was passed with
 * a delay set.
 *
 * Watermarks and counts, in the same builds only: the most a bounded loop
 * did in one go, and how often a rare path ran, so that a test asserts a
 * bound, or that it reached the path, as a count (a count carries over to
 * hardware; a time would not).  /sys/kernel/debug/wsx/watermark/<name>:
 * the highest value noted, /sys/kernel/debug/wsx/count/<name>: the times
 * counted, each since a test wrote 0 there.
 */
#ifndef _WSX_FAULT_H
#define _WSX_FAULT_H

#include <linux/dcache.h>

enum wsx_fault_point {
	/* wsx_m_wake(): between the store-release of woken and wake_up() */
	WSX_FAULT_WAKE_AFTER_RELEASE,
	/*
	 * wsx_m_park(), both sleeping (the M preempted there; a busy-wait
	 * would also keep the monitor's work off the M's CPU): between
	 * finding no work and making the P idle, and between making the P
	 * idle and the recheck
	 */
	WSX_FAULT_PARK_BEFORE_IDLE,
	WSX_FAULT_PARK_BEFORE_RECHECK,
	/* wsx_m_park(), sleeping: a spinning M that found nothing, still
	 * counted in nmspinning (queuers rely on it and wake nobody)
	 */
	WSX_FAULT_PARK_STILL_SPINNING,
	/* wsx_gq_get(), sleeping: a batch of two or more taken from a global
	 * queue, not yet in the P's runq (nowhere a parker looks)
	 */
	WSX_FAULT_GLOBAL_BATCH_IN_TRANSIT,
	/* wsx_rings_pickup_one(): between the walk and taking sq_lock */
	WSX_FAULT_PICKUP_BEFORE_LOCK,
	/* wsx_rings_post(): between the shared CQ tail and cq_tail_k */
	WSX_FAULT_POST_BETWEEN_TAILS,
	/* wsx_rings_consume() for ENTER: inside the hold of sq_lock (stands
	 * for a pin of the user's pages that takes as long as they fault)
	 */
	WSX_FAULT_ENTER_IN_SQ_LOCK,
	/* wsx_rings_consume() for ENTER, sleeping (so that the submitter's
	 * CPU runs the job too): after an entry's job is queued, before the
	 * next entry is copied (its record may be posted meanwhile)
	 */
	WSX_FAULT_CONSUME_AFTER_SUBMIT,
	/* wsx_timers_flush_p(), sleeping: between two holds of a P's tlock
	 * (the cursor kept while due items may be popped)
	 */
	WSX_FAULT_FLUSH_BETWEEN_BATCHES,
	/* wsx_m_bind(), sleeping: between its racy look at the CPU and the
	 * hotplug lock (where a bind without the lock would bind)
	 */
	WSX_FAULT_BIND_BEFORE_LOCK,
	/*
	 * __wsx_wakep(), a drop (wsx_fault_drop()): its value is the number
	 * of wakeups to skip, each as if every P were busy
	 */
	WSX_FAULT_WAKEP_DROP,
	/*
	 * __wsx_wakep(), a busy-wait (it runs in any context): after its
	 * test that an M may be needed, before it claims an idle P (where a
	 * reservation of nmspinning, N4 of models/README.md, would be held)
	 */
	WSX_FAULT_WAKEP_BEFORE_CLAIM,
	/* wsx_poll_own(): a POLL's owner found no event, before it gives its
	 * ownership back (a wake there counts while it looks)
	 */
	WSX_FAULT_POLL_BEFORE_GIVEBACK,
	/* wsx_records_copy(), sleeping: a WAIT's records taken from the
	 * session, not yet copied (a copy that faults puts them back)
	 */
	WSX_FAULT_RECORDS_OUT,
	/* wsx_ioctl_wait(), sleeping: between wsx_wait_ready() and the
	 * take (another WAIT may take the records seen ready first)
	 */
	WSX_FAULT_WAIT_BEFORE_TAKE,
	/*
	 * wsx_records_copy(), a drop: the number of takes to refuse with
	 * -EAGAIN as if another WAIT had taken the records (they stay, so
	 * the WAIT sees them ready again, and loses again)
	 */
	WSX_FAULT_WAIT_TAKE_LOST,
	WSX_NR_FAULTS,
};

enum wsx_watermark {
	/* timers.c: delayed items looked at or taken in one hold of a tlock */
	WSX_WM_TLOCK_ITEMS,
	/* wsx_timers_fire(): due items one run of a P's hrtimer queued */
	WSX_WM_FIRE_ITEMS,
	WSX_NR_WATERMARKS,
};

enum wsx_count_point {
	/* wsx_timers_take(): a pop took a paused flush's cursor item */
	WSX_COUNT_CURSOR_MOVES,
	/* wsx_m_bind(): the M was not on the CPU it bound itself to */
	WSX_COUNT_BIND_MISSED,
	/* wsx_poll_own(): a wake or a cancel counted while the owner looked */
	WSX_COUNT_POLL_LOOKED_AGAIN,
	WSX_NR_COUNTS,
};

#ifdef WSX_DEBUG
void wsx_watermark(enum wsx_watermark wm, unsigned int value);
void wsx_count(enum wsx_count_point point);
void wsx_fault(enum wsx_fault_point point);
void wsx_fault_sleep(enum wsx_fault_point point);
bool wsx_fault_armed(enum wsx_fault_point point);
bool wsx_fault_drop(enum wsx_fault_point point);
void wsx_fault_debugfs_init(struct dentry *dir);
#else
static inline void wsx_watermark(enum wsx_watermark wm, unsigned int value) { }
static inline void wsx_count(enum wsx_count_point point) { }
static inline void wsx_fault(enum wsx_fault_point point) { }
static inline void wsx_fault_sleep(enum wsx_fault_point point) { }
static inline bool wsx_fault_armed(enum wsx_fault_point point) { return false; }
static inline bool wsx_fault_drop(enum wsx_fault_point point) { return false; }
static inline void wsx_fault_debugfs_init(struct dentry *dir) { }
#endif

#endif /* _WSX_FAULT_H */
