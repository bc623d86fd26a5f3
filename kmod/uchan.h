/* SPDX-License-Identifier: GPL-2.0 */
/* uchan.c: the channels a /dev/wsx session owns, by id. */
#ifndef _WSX_UCHAN_H
#define _WSX_UCHAN_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "poll.h"

struct wsx_chan;

/**
 * struct wsx_uchans - a session's channels
 * @xa:		id -> struct wsx_chan; ids from 1, never erased while the
 *		session lives, so a looked-up channel stays valid for as
 *		long as any of the session's jobs runs
 * @parked:	the session's items parked on its channels now, and its
 *		POLL items armed, at most max_parked but for a parameter
 *		lowered meanwhile
 * @polls:	its POLL items armed (poll.c), which count in @parked
 */
struct wsx_uchans {
	struct xarray xa;
	atomic_t parked;
	struct wsx_polls polls;
};

extern unsigned int wsx_max_chans;
extern unsigned int wsx_max_chan_cap;
extern unsigned int wsx_max_parked;

void wsx_uchans_init(struct wsx_uchans *u);
int wsx_uchan_create(struct wsx_uchans *u, u32 cap, u32 *id);
int wsx_uchan_close(struct wsx_uchans *u, u32 id);
struct wsx_chan *wsx_uchan_find(struct wsx_uchans *u, u64 id);
int wsx_uchans_park_get(struct wsx_uchans *u);
void wsx_uchans_park_put(struct wsx_uchans *u);
void wsx_uchans_close_all(struct wsx_uchans *u);
void wsx_uchans_destroy(struct wsx_uchans *u);

#endif /* _WSX_UCHAN_H */
