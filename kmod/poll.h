/* SPDX-License-Identifier: GPL-2.0 */
/* poll.c: the netpoller, items that wait for a file without an M. */
#ifndef _WSX_POLL_H
#define _WSX_POLL_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct wsx_item;
struct wsx_poll;
struct wsx_uchans;

/**
 * struct wsx_polls - a session's POLL items that are armed
 * @lock:	protects the two lists and @closing; a canceller holds it
 *		while it touches an item (models/netpoll.pml, slock)
 * @armed:	items armed and not yet cancelled
 * @cancelled:	items wsx_polls_cancel_all() cancelled that have not
 *		ended yet
 * @closing:	set by wsx_polls_cancel_all(): nothing arms after it
 */
struct wsx_polls {
	spinlock_t lock;		/* see above */
	struct list_head armed;
	struct list_head cancelled;
	bool closing;
};

void wsx_polls_init(struct wsx_polls *ps);
void wsx_polls_cancel_all(struct wsx_polls *ps);

int wsx_poll_check(u64 events, u64 timeout_ns);
struct wsx_poll *wsx_poll_create(u64 fd, u64 events, u64 timeout_ns,
				 struct wsx_uchans *chans);
int wsx_poll_run(struct wsx_poll *poll, struct wsx_item *item, u64 *revents);
void wsx_poll_free(struct wsx_poll *poll);
long wsx_polls_waiting(void);

#endif /* _WSX_POLL_H */
