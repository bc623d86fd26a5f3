/* SPDX-License-Identifier: GPL-2.0 */
/* rings.c: the submission and completion rings a session shares. */
#ifndef _WSX_RINGS_H
#define _WSX_RINGS_H

#include <linux/types.h>
#include <linux/wait.h>

struct vm_area_struct;
struct wsx_account;
struct wsx_enter;
struct wsx_ring_setup;
struct wsx_rings;
struct wsx_source;
struct wsx_uchans;

extern unsigned int wsx_ring_max_entries;
/* The pick-up of WSX_RING_SQ_PICKUP sessions, for source.c's table */
extern const struct wsx_source wsx_rings_source;
struct wsx_rings *wsx_rings_create(struct wsx_ring_setup *setup,
				   const bool *cancel,
				   wait_queue_head_t *poll_wq,
				   struct wsx_account *acct,
				   struct wsx_uchans *chans);
void wsx_rings_quiesce(struct wsx_rings *r);
void wsx_rings_destroy(struct wsx_rings *r);
long wsx_rings_enter(struct wsx_rings *r, struct wsx_enter *e);
int wsx_rings_mmap(struct wsx_rings *r, struct vm_area_struct *vma);
bool wsx_rings_poll(struct wsx_rings *r);

#endif /* _WSX_RINGS_H */
