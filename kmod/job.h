/* SPDX-License-Identifier: GPL-2.0 */
/* job.c: the jobs' item counts, for the scheduler (wsx.h has the API). */
#ifndef _WSX_JOB_H
#define _WSX_JOB_H

struct wsx_job;

void wsx_job_add(struct wsx_job *job);
void wsx_job_put(struct wsx_job *job);

#endif /* _WSX_JOB_H */
