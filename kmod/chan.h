/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chan.c, as the module's own files use it: its in-kernel API (channels,
 * select) is in wsx.h.
 */
#ifndef _WSX_CHAN_H
#define _WSX_CHAN_H

long wsx_chans_count(void);

#endif /* _WSX_CHAN_H */
