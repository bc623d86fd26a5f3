// SPDX-License-Identifier: GPL-2.0
/*
 * wsx: the table of work sources, and the scheduler's calls over it (the
 * contract is in source.h).
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/printk.h>

#include "rings.h"
#include "sched.h"
#include "source.h"

/* Moved by each source that lets its users rely on the Ms (the rely). */
static atomic_t wsx_sources_gen = ATOMIC_INIT(0);

/* Every source, in the order an M asks them. */
static const struct wsx_source *const wsx_sources[] = {
	&wsx_rings_source,	/* the SQs of WSX_RING_SQ_PICKUP sessions */
};

/**
 * wsx_sources_check - at module load: every source implements the whole
 * contract
 *
 * Return: 0, or -EINVAL (said in the log) for a source that lacks a call.
 */
int wsx_sources_check(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wsx_sources); i++) {
		const struct wsx_source *src = wsx_sources[i];

		if (!src->name || !src->pending || !src->find || !src->take ||
		    !src->abandon || !src->show) {
			pr_err("work source %u (%s) lacks a call of the contract\n",
			       i, src->name ?: "unnamed");
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * wsx_sources_find - an M about to park: the first source with work
 * @w:		filled with the source and its token when found
 *
 * Return: true when @w holds work for wsx_sources_take(); false when no
 * source has any and each has made sure nobody relies on this M.
 */
bool wsx_sources_find(struct wsx_source_work *w)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wsx_sources); i++) {
		const struct wsx_source *src = wsx_sources[i];

		if (!src->pending())
			continue;
		w->work = src->find();
		if (w->work) {
			w->src = src;
			return true;
		}
	}
	return false;
}

/**
 * wsx_sources_take - consume what wsx_sources_find() found
 * @w:		from wsx_sources_find()
 *
 * The caller has handed spinning on and looks at its queues, then at the
 * sources, again before it parks.
 */
void wsx_sources_take(const struct wsx_source_work *w)
{
	w->src->take(w->work, WSX_SOURCE_BUDGET);
}

/**
 * wsx_sources_abandon - an M whose P goes offline, before it stops: no
 * source relies on it any more
 */
void wsx_sources_abandon(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wsx_sources); i++)
		wsx_sources[i]->abandon();
}

/**
 * wsx_sources_busy - is every P busy?  Racy: a source's cheap look before
 * the rely (source.h)
 *
 * Return: true when no P is idle.
 */
bool wsx_sources_busy(void)
{
	return !atomic_read(&wsx_sched.npidle);
}

/**
 * wsx_sources_rely - a source has published that its users rely on the Ms
 * (source.h, the rely)
 *
 * Return: true when every P is busy: each M looks at the sources before
 * it parks, or sees the generation moved; false when a P is idle: the
 * source must undo the rely and look itself.
 */
bool wsx_sources_rely(void)
{
	/*
	 * fully ordered: the source's state before the move, npidle after
	 * it (litmus/rings-rely-park-sb, rings-rely-note-mp)
	 */
	atomic_inc_return(&wsx_sources_gen);
	return wsx_sources_busy();
}

/**
 * wsx_sources_note - an M, before it asks the sources
 *
 * Return: the generation that wsx_sources_moved() compares with when the
 * M parks.
 */
int wsx_sources_note(void)
{
	/* acquire: pairs with wsx_sources_rely()'s move
	 * (litmus/rings-rely-note-mp)
	 */
	return atomic_read_acquire(&wsx_sources_gen);
}

/**
 * wsx_sources_moved - a parking M, its P counted idle and after a full
 * barrier: did a source let its users rely on the Ms since @note?
 * @note:	from wsx_sources_note() before the M's last look
 *
 * Return: true when the generation moved: the M looks again.
 */
bool wsx_sources_moved(int note)
{
	return atomic_read(&wsx_sources_gen) != note;
}

/**
 * wsx_sources_show - the sources' counters, for the stats' global line
 * @sf:		the stats file
 */
void wsx_sources_show(struct seq_file *sf)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wsx_sources); i++)
		wsx_sources[i]->show(sf);
}
