/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxctl: what the command files share.
 */
#ifndef WSXCTL_H
#define WSXCTL_H

#include <stdbool.h>
#include <stdint.h>

#include <wsx/libwsx.h>

#define EXIT_USAGE	2

struct cmd {
	const char *name;
	int (*fn)(const struct cmd *cmd, int argc, char **argv);
	const char *summary;
	const char *help;	/* --help text, without the exit status part */
};

int cmd_run(const struct cmd *cmd, int argc, char **argv);
int cmd_crc32c(const struct cmd *cmd, int argc, char **argv);
extern const char run_help[];
extern const char crc32c_help[];
int cmd_top(const struct cmd *cmd, int argc, char **argv);
int cmd_trace(const struct cmd *cmd, int argc, char **argv);
extern const char top_help[];
extern const char trace_help[];

/* "wsxctl: WHAT: strerror (ENAME)" on stderr; returns EXIT_FAILURE. */
int report(const char *what, int err);

/*
 * report() of a debugfs read, then what to do when debugfs is unmounted,
 * locked down, root only or the module not loaded; EXIT_FAILURE.
 */
int report_debugfs(const char *what, int err);

/* "wsxctl CMD: message" and a hint on stderr; returns EXIT_USAGE. */
int usage_error(const struct cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The end of every command's getopt_long() loop: prints the help for 'h'
 * and a usage error for '?' and ':'.  Returns the exit code.
 */
int common_option(const struct cmd *cmd, int c, char **argv);

/* Decimal number 0..@max; 0 or -EINVAL. */
int parse_number(const char *s, uint64_t max, uint64_t *val);

/* wsx_open() that reports its failure; 0 or EXIT_FAILURE. */
int open_device(struct wsx **w);

/*
 * Submits @count items made by @fill, in submissions of @batch, and reaps
 * their completions, handing each to @complete, until @count records came
 * back: through the session's rings, or with @ioctl (or on a module
 * without rings) through WSX_IOC_SUBMIT and WSX_IOC_WAIT, reaping before
 * submitting again on -EAGAIN.
 *
 * With @all_in set, the items end only after it ran (POLL items wait for
 * what it does): it is called once, when all @count items are in the
 * module and before any wait for a record, so they must all be in flight
 * at once: the CQ gets at least @count entries, and a submission that
 * meets a limit (-EAGAIN, or -EBUSY from a full CQ) fails with that error
 * instead of waiting for records.
 */
struct job {
	struct wsx *w;
	uint64_t count;
	unsigned int batch;
	bool ioctl;
	bool pickup;		/* rings in WSX_RING_SQ_PICKUP mode */
	void (*fill)(struct wsx_req *item, uint64_t index, void *ctx);
	void (*complete)(const struct wsx_completion *rec, void *ctx);
	void (*all_in)(void *ctx);
	void *ctx;
	uint64_t elapsed_ns;	/* out: first submission to last record */
	int err;		/* out: the submission error run_job()
				   reported, or 0 */
	int ring_err;		/* out: the ring setup's error it reported */
};

/* Runs @job; 0, or EXIT_FAILURE after reporting the error. */
int run_job(struct job *job);

#endif /* WSXCTL_H */
