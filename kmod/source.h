/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work sources: work that reaches the scheduler other than through its
 * queues, which an M with nothing to run looks for before it parks.
 *
 * Go's scheduler knows its network poller only through a contract: in
 * findRunnable, after the run queues and stealing came up empty, a cheap
 * test of whether anything waits on the poller, then a poll that returns
 * the work it found.  wsx's scheduler knows its sources the same way and
 * nothing else of them: sched.c names no ring, session or op.  The
 * sources are the table of source.c, fixed at build time (as io_uring's
 * op table is) and checked when the module loads; each is a struct
 * wsx_source, and the scheduler owns the contract below.
 *
 * The contract.  An M that holds a P, found its queues empty and
 * stealing fruitless, and is about to park, calls for each source:
 *
 *   pending()  a cheap, racy guard: false only when find() would find
 *              nothing and nobody relies on an M to look (it costs
 *              nothing when a source has no users).
 *   find()     look for work, without sleeping and without waiting for
 *              anything a user controls (a lock a user can hold: try it,
 *              never sleep on it).  Returns a token for take(), holding
 *              whatever reference take() needs, or NULL when the source
 *              has nothing and has made sure that whoever feeds it later
 *              either wakes an M or comes itself (the rings: the
 *              WSX_SQ_NEED_ENTER announce).  find() may announce so; a
 *              NULL lets the M park.
 *   take()     consume the work find() found, at most @budget units, in
 *              process context (it may cond_resched(); it may sleep only
 *              on what no user holds long), queueing items through the
 *              usual submission paths, which wake Ms as any submission
 *              does.  The M has handed spinning on before (so those
 *              wakeups are not swallowed) and comes back to its queues,
 *              then to find() again, before it parks: a source may rely
 *              on that second look.
 *   abandon()  the M's P is going offline; it will not look again and
 *              cannot hand the look on (no P idle may be left to wake).
 *              The source makes sure nobody relies on this M any more
 *              (the rings: the flag set on each ring for which no other M
 *              or lock holder is responsible), consuming what it must,
 *              bounded by what the source holds when abandon() starts,
 *              never by how fast its users feed it.
 *   show()     print the source's counters on the stats' global line, each
 *              as " <name>_<key>=<value>" (wsx(4), the stats file).
 *
 * The rely.  A source may let its users rely on the Ms without calling
 * in (the rings: an ENTER clears WSX_SQ_NEED_ENTER while every P is busy,
 * so that the user's next entries need no ENTER; issue 20, finding 7),
 * since every M asks the sources before it parks.  An M between its look
 * and its park would miss it, so: the source publishes that state (the
 * flag cleared), then calls wsx_sources_rely(), which moves the sources'
 * generation (fully ordered) and then says whether every P is busy; when
 * one is idle, the source undoes it (the flag set again, a full barrier)
 * and looks itself at what came meanwhile.  Each M notes the generation
 * before it asks the sources (wsx_sources_note(), an acquire: the state
 * published before a move it sees is seen by its look), and, parking,
 * after its P is counted idle and a full barrier, looks again when the
 * generation moved (wsx_sources_moved()).  Store buffering: either the
 * source sees the P idle or the parker sees the move
 * (litmus/rings-rely-park-sb, litmus/rings-rely-note-mp;
 * models/sqpickup.pml, -DRELY).  wsx_sources_busy() is a cheap look
 * first: a source does not publish, nor move the generation (which sends
 * parkers back to look), when a P is idle already.
 *
 * Fairness among a source's users is the source's (the rings serve the
 * least recently served first); the sources are asked in table order.
 */
#ifndef _WSX_SOURCE_H
#define _WSX_SOURCE_H

#include <linux/types.h>

struct seq_file;

/* Most units a take() consumes at once (entries of a ring). */
#define WSX_SOURCE_BUDGET	256

struct wsx_source {
	const char *name;
	bool (*pending)(void);
	void *(*find)(void);
	void (*take)(void *work, unsigned int budget);
	void (*abandon)(void);
	void (*show)(struct seq_file *sf);
};

/* What wsx_sources_find() found: a source and its token. */
struct wsx_source_work {
	const struct wsx_source *src;
	void *work;
};

int wsx_sources_check(void);
bool wsx_sources_find(struct wsx_source_work *w);
void wsx_sources_take(const struct wsx_source_work *w);
void wsx_sources_abandon(void);
void wsx_sources_show(struct seq_file *sf);
bool wsx_sources_busy(void);
bool wsx_sources_rely(void);
int wsx_sources_note(void);
bool wsx_sources_moved(int note);

#endif /* _WSX_SOURCE_H */
