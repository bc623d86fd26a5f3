/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsx: who the executor worked for (account.c).
 */
#ifndef _WSX_ACCOUNT_H
#define _WSX_ACCOUNT_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct seq_file;

struct wsx_account;

struct wsx_account *wsx_account_get(kuid_t uid);
void wsx_account_put(struct wsx_account *acct);
void wsx_account_item(struct wsx_account *acct, u64 cpu_ns);
void wsx_accounts_show(struct seq_file *sf);
void wsx_accounts_reset(void);
void wsx_accounts_exit(void);

#endif /* _WSX_ACCOUNT_H */
