/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * wsxctl crc32c: checksum files with one CRC32C item each.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"
#include "wsxctl.h"

#define BATCH		64
#define CHUNK_MIN	4096U	/* the module's smallest chunk */

const char crc32c_help[] =
	"Usage: wsxctl crc32c [OPTIONS] FILE...\n"
	"\n"
	"Compute the CRC32C (Castagnoli) of each FILE on the executor, one\n"
	"item per file split in chunk items, and print '<8 hex digits>  FILE'\n"
	"lines like the common crc32c tools.  Empty files are summed here.\n"
	"\n"
	"Options:\n"
	"  -c, --chunk BYTES  bytes per chunk, 4096..2^30 (default: the\n"
	"                     module's, 64 KiB)\n"
	"  -v, --verify       also sum in userspace; a difference is an error\n"
	"  -h, --help         print this help\n";

struct crc_file {
	const char *name;
	void *buf;
	size_t len;
	bool mapped;
	int err;		/* loading error or item status */
	bool done;
	uint64_t crc;
};

struct crc_run {
	struct crc_file *files;
	unsigned int nfiles;
	unsigned int *todo;	/* indexes of the files to submit */
	uint64_t chunk;
	uint64_t bogus;
};

/* Reads a file that cannot be mapped (a pipe, a tty) to its end. */
static int read_stream(int fd, struct crc_file *f)
{
	size_t size = 0;
	ssize_t n;
	char *p;

	for (;;) {
		if (f->len == size) {
			if (size > WSX_CRC32C_MAX_LEN)
				return -EFBIG;
			size = size ? size * 2 : 65536;
			p = realloc(f->buf, size);
			if (!p)
				return -ENOMEM;
			f->buf = p;
		}
		n = read(fd, (char *)f->buf + f->len, size - f->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return f->len > WSX_CRC32C_MAX_LEN ? -EFBIG : 0;
		f->len += n;
	}
}

static int map_file(int fd, const struct stat *st, struct crc_file *f)
{
	if ((uint64_t)st->st_size > WSX_CRC32C_MAX_LEN)
		return -EFBIG;
	f->len = st->st_size;
	if (!f->len)
		return 0;
	f->buf = mmap(NULL, f->len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (f->buf == MAP_FAILED) {
		f->buf = NULL;
		return -errno;
	}
	f->mapped = true;
	return 0;
}

static int load_file(struct crc_file *f)
{
	struct stat st;
	int fd, ret;

	fd = open(f->name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		ret = -errno;
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (S_ISREG(st.st_mode))
		ret = map_file(fd, &st, f);
	else
		ret = read_stream(fd, f);
	close(fd);
	return ret;
}

static void unload_file(struct crc_file *f)
{
	if (f->mapped)
		munmap(f->buf, f->len);
	else
		free(f->buf);
}

static void fill_crc_item(struct wsx_req *item, uint64_t index, void *ctx)
{
	const struct crc_run *cr = ctx;
	unsigned int i = cr->todo[index];

	wsx_item_crc32c(item, cr->files[i].buf, cr->files[i].len, cr->chunk, i);
}

static void complete_crc_item(const struct wsx_completion *rec, void *ctx)
{
	struct crc_run *cr = ctx;
	struct crc_file *f;

	if (rec->user_data >= cr->nfiles ||
	    cr->files[rec->user_data].done || cr->files[rec->user_data].err) {
		cr->bogus++;
		return;
	}
	f = &cr->files[rec->user_data];
	f->done = true;
	f->err = rec->status;
	f->crc = rec->result;
}

/*
 * Loads the files, sums the empty ones (the module takes no empty buffer)
 * and lists the others in @cr->todo; returns how many it listed.
 */
static unsigned int load_files(struct crc_run *cr)
{
	struct crc_file *f;
	unsigned int i, n = 0;

	for (i = 0; i < cr->nfiles; i++) {
		f = &cr->files[i];
		f->err = load_file(f);
		if (f->err)
			continue;
		if (f->len) {
			cr->todo[n++] = i;
		} else {
			f->crc = crc32c(0, f->buf, 0);
			f->done = true;
		}
	}
	return n;
}

/* Prints one file's line; false if the file failed. */
static bool print_sum(const struct crc_file *f, bool verify)
{
	uint64_t want;

	if (f->err) {
		report(f->name, f->err);
		return false;
	}
	if (verify) {
		want = crc32c(0, f->buf, f->len);
		if (want != f->crc) {
			fprintf(stderr, "wsxctl: %s: module says %08llx, "
				"userspace %08llx\n", f->name,
				(unsigned long long)f->crc,
				(unsigned long long)want);
			return false;
		}
	}
	printf("%08llx  %s\n", (unsigned long long)f->crc, f->name);
	return true;
}

static int sum_files(struct crc_run *cr, bool verify)
{
	struct job job = {
		.batch = BATCH, .ctx = cr,
		.fill = fill_crc_item, .complete = complete_crc_item,
	};
	bool ok = true;
	unsigned int i;
	int ret;

	job.count = load_files(cr);
	if (job.count) {
		if (open_device(&job.w))
			return EXIT_FAILURE;
		ret = run_job(&job);
		wsx_close(job.w);
		if (ret)
			return ret;
	}
	for (i = 0; i < cr->nfiles; i++)
		ok &= print_sum(&cr->files[i], verify);
	if (cr->bogus) {
		fprintf(stderr, "wsxctl: %llu bogus completion records\n",
			(unsigned long long)cr->bogus);
		ok = false;
	}
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

int cmd_crc32c(const struct cmd *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "chunk", required_argument, NULL, 'c' },
		{ "verify", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct crc_run cr = { 0 };
	bool verify = false;
	unsigned int i;
	int c, ret;

	while ((c = getopt_long(argc, argv, ":c:vh", longopts, NULL)) != -1) {
		if (c == 'v')
			verify = true;
		else if (c != 'c')
			return common_option(cmd, c, argv);
		else if (parse_number(optarg, WSX_CRC32C_MAX_LEN, &cr.chunk) ||
			 cr.chunk < CHUNK_MIN)
			return usage_error(cmd, "bad --chunk '%s': bytes %u..%llu (2^30)",
					   optarg, CHUNK_MIN, WSX_CRC32C_MAX_LEN);
	}
	if (optind == argc)
		return usage_error(cmd, "no FILE given");
	cr.nfiles = argc - optind;
	cr.files = calloc(cr.nfiles, sizeof(*cr.files));
	cr.todo = calloc(cr.nfiles, sizeof(*cr.todo));
	if (!cr.files || !cr.todo) {
		ret = report("crc32c", -ENOMEM);
		goto out;
	}
	for (i = 0; i < cr.nfiles; i++)
		cr.files[i].name = argv[optind + i];
	ret = sum_files(&cr, verify);
	for (i = 0; i < cr.nfiles; i++)
		unload_file(&cr.files[i]);
out:
	free(cr.files);
	free(cr.todo);
	return ret;
}
