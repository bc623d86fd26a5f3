/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Reference CRC32C, one table lookup per byte.
 */
#include "crc32c.h"

#define CRC32C_POLY	0x82f63b78U

static uint32_t crc32c_table[256];

/* Filled before main(), so that crc32c() only reads it. */
__attribute__((constructor))
static void crc32c_init_table(void)
{
	uint32_t c;
	int i, bit;

	for (i = 0; i < 256; i++) {
		c = i;
		for (bit = 0; bit < 8; bit++)
			c = (c >> 1) ^ (c & 1 ? CRC32C_POLY : 0);
		crc32c_table[i] = c;
	}
}

uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--)
		crc = (crc >> 8) ^ crc32c_table[(crc ^ *p++) & 0xff];
	return ~crc;
}
