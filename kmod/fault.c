// SPDX-License-Identifier: GPL-2.0
/*
 * wsx fault injection, watermarks and counts (WSX_DEBUG builds only): see
 * fault.h.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>

#include "fault.h"

static const char *const wsx_fault_names[WSX_NR_FAULTS] = {
	[WSX_FAULT_WAKE_AFTER_RELEASE] = "wake_after_release",
	[WSX_FAULT_PARK_BEFORE_IDLE] = "park_before_idle",
	[WSX_FAULT_PARK_BEFORE_RECHECK] = "park_before_recheck",
	[WSX_FAULT_PARK_STILL_SPINNING] = "park_still_spinning",
	[WSX_FAULT_GLOBAL_BATCH_IN_TRANSIT] = "global_batch_in_transit",
	[WSX_FAULT_PICKUP_BEFORE_LOCK] = "pickup_before_lock",
	[WSX_FAULT_POST_BETWEEN_TAILS] = "post_between_tails",
	[WSX_FAULT_ENTER_IN_SQ_LOCK] = "enter_in_sq_lock",
	[WSX_FAULT_CONSUME_AFTER_SUBMIT] = "consume_after_submit",
	[WSX_FAULT_FLUSH_BETWEEN_BATCHES] = "flush_between_batches",
	[WSX_FAULT_BIND_BEFORE_LOCK] = "bind_before_lock",
	[WSX_FAULT_WAKEP_DROP] = "wakep_drop",
	[WSX_FAULT_WAKEP_BEFORE_CLAIM] = "wakep_before_claim",
	[WSX_FAULT_POLL_BEFORE_GIVEBACK] = "poll_before_giveback",
	[WSX_FAULT_RECORDS_OUT] = "records_out",
	[WSX_FAULT_WAIT_BEFORE_TAKE] = "wait_before_take",
	[WSX_FAULT_WAIT_TAKE_LOST] = "wait_take_lost",
};

static u32 wsx_fault_us[WSX_NR_FAULTS];
static atomic_t wsx_fault_hits[WSX_NR_FAULTS];

static const char *const wsx_watermark_names[WSX_NR_WATERMARKS] = {
	[WSX_WM_TLOCK_ITEMS] = "tlock_items",
	[WSX_WM_FIRE_ITEMS] = "fire_items",
};

static atomic_t wsx_watermarks[WSX_NR_WATERMARKS];

static const char *const wsx_count_names[WSX_NR_COUNTS] = {
	[WSX_COUNT_CURSOR_MOVES] = "cursor_moves",
	[WSX_COUNT_BIND_MISSED] = "bind_missed",
	[WSX_COUNT_POLL_LOOKED_AGAIN] = "poll_looked_again",
};

static atomic_t wsx_counts[WSX_NR_COUNTS];

/* Count one pass of @point; any context. */
void wsx_count(enum wsx_count_point point)
{
	atomic_inc(&wsx_counts[point]);
}

/* Note @value for @wm: keep the highest; any context. */
void wsx_watermark(enum wsx_watermark wm, unsigned int value)
{
	int old = atomic_read(&wsx_watermarks[wm]);

	while (old < (int)value &&
	       !atomic_try_cmpxchg(&wsx_watermarks[wm], &old, value))
		;
}

/**
 * wsx_fault - pass the named place @point: busy-wait its delay, if any
 * @point:	the place
 */
void wsx_fault(enum wsx_fault_point point)
{
	u32 us = READ_ONCE(wsx_fault_us[point]);

	if (!us)
		return;
	atomic_inc(&wsx_fault_hits[point]);
	while (us > 1000) {
		mdelay(1);
		us -= 1000;
	}
	udelay(us);
}

/* Has a test set a delay at @point?  (For a caller that prepares it.) */
bool wsx_fault_armed(enum wsx_fault_point point)
{
	return READ_ONCE(wsx_fault_us[point]);
}

/* As wsx_fault(), sleeping: process context only. */
void wsx_fault_sleep(enum wsx_fault_point point)
{
	u32 us = READ_ONCE(wsx_fault_us[point]);

	if (!us)
		return;
	atomic_inc(&wsx_fault_hits[point]);
	usleep_range(us, us + us / 16 + 1);
}

/**
 * wsx_fault_drop - pass the named drop point @point: true when the caller
 * is to skip what follows (its count, set by a test, taken down by one)
 * @point:	the place
 *
 * Context: any.
 */
bool wsx_fault_drop(enum wsx_fault_point point)
{
	u32 left = READ_ONCE(wsx_fault_us[point]);

	do {
		if (!left)
			return false;
	} while (!try_cmpxchg(&wsx_fault_us[point], &left, left - 1));
	atomic_inc(&wsx_fault_hits[point]);
	return true;
}

/*
 * The files of /sys/kernel/debug/wsx/fault/, watermark/ and count/, under
 * @dir (wsx's).
 */
void wsx_fault_debugfs_init(struct dentry *dir)
{
	struct dentry *fault = debugfs_create_dir("fault", dir);
	struct dentry *wm = debugfs_create_dir("watermark", dir);
	struct dentry *count = debugfs_create_dir("count", dir);
	char name[48];
	unsigned int i;

	for (i = 0; i < WSX_NR_WATERMARKS; i++)
		debugfs_create_atomic_t(wsx_watermark_names[i], 0600, wm,
					&wsx_watermarks[i]);
	for (i = 0; i < WSX_NR_COUNTS; i++)
		debugfs_create_atomic_t(wsx_count_names[i], 0600, count,
					&wsx_counts[i]);

	for (i = 0; i < WSX_NR_FAULTS; i++) {
		debugfs_create_u32(wsx_fault_names[i], 0600, fault,
				   &wsx_fault_us[i]);
		snprintf(name, sizeof(name), "%s_hits", wsx_fault_names[i]);
		debugfs_create_atomic_t(name, 0400, fault,
					&wsx_fault_hits[i]);
	}
}
