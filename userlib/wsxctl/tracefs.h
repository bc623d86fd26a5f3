/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * tracefs: the few file operations `wsxctl trace` needs on the kernel's
 * tracing directory.  Every function returns 0 (or a length) or -errno.
 */
#ifndef WSX_TRACEFS_H
#define WSX_TRACEFS_H

#include <stddef.h>

/*
 * Finds the tracing directory: $WSX_TRACEFS if set, else /sys/kernel/tracing
 * or /sys/kernel/debug/tracing, whichever holds a "trace" file.  -ENOENT if
 * none does.
 */
int tracefs_find(char *dir, size_t len);

/* Writes @val to DIR/FILE (truncating it); 0 or -errno. */
int tracefs_write(const char *dir, const char *file, const char *val);

/*
 * Reads DIR/FILE whole into *@text (malloc'ed, NUL-terminated); returns its
 * length or -errno.
 */
long tracefs_read(const char *dir, const char *file, char **text);

/* Reads a one-line file, without its newline, into @buf; 0 or -errno. */
int tracefs_read_line(const char *dir, const char *file, char *buf,
		      size_t len);

/*
 * The selected entry of a "[x] y z" style file (trace_clock) into @buf,
 * without brackets; 0 or -errno.
 */
int tracefs_selected(const char *dir, const char *file, char *buf,
		     size_t len);

#endif /* WSX_TRACEFS_H */
