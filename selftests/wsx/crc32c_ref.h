/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference CRC32C (Castagnoli, reflected polynomial 0x82f63b78) for the
 * wsx selftests, independent of the kernel's and of libwsx's: slicing by 8
 * over tables built on first use.  crc32c_ref(0, buf, len) is what crc32c
 * tools print, e.g. crc32c_ref(0, "123456789", 9) == 0xe3069283; a running
 * value may be passed back in as @crc to continue over more data.
 */
#ifndef _WSX_CRC32C_REF_H
#define _WSX_CRC32C_REF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CRC32C_REF_POLY	0x82f63b78U

static uint32_t crc32c_ref_tab[8][256];
static int crc32c_ref_ready;

static inline void crc32c_ref_init(void)
{
	uint32_t c;
	int i, k, bit;

	if (crc32c_ref_ready)
		return;
	for (i = 0; i < 256; i++) {
		c = i;
		for (bit = 0; bit < 8; bit++)
			c = (c >> 1) ^ (c & 1 ? CRC32C_REF_POLY : 0);
		crc32c_ref_tab[0][i] = c;
	}
	for (i = 0; i < 256; i++) {
		c = crc32c_ref_tab[0][i];
		for (k = 1; k < 8; k++) {
			c = (c >> 8) ^ crc32c_ref_tab[0][c & 0xff];
			crc32c_ref_tab[k][i] = c;
		}
	}
	crc32c_ref_ready = 1;
}

/* Byte at a time: the obviously right version the fast one is checked by. */
static inline uint32_t crc32c_ref_bytewise(uint32_t crc, const void *buf,
					   size_t len)
{
	const unsigned char *p = buf;

	crc32c_ref_init();
	crc = ~crc;
	while (len--)
		crc = (crc >> 8) ^ crc32c_ref_tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

static inline uint32_t crc32c_ref(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t w;

	crc32c_ref_init();
	crc = ~crc;
	while (len && ((uintptr_t)p & 7)) {
		crc = (crc >> 8) ^ crc32c_ref_tab[0][(crc ^ *p++) & 0xff];
		len--;
	}
	while (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && len >= 8) {
		memcpy(&w, p, 8);
		w ^= crc;
		crc = crc32c_ref_tab[7][w & 0xff] ^
		      crc32c_ref_tab[6][(w >> 8) & 0xff] ^
		      crc32c_ref_tab[5][(w >> 16) & 0xff] ^
		      crc32c_ref_tab[4][(w >> 24) & 0xff] ^
		      crc32c_ref_tab[3][(w >> 32) & 0xff] ^
		      crc32c_ref_tab[2][(w >> 40) & 0xff] ^
		      crc32c_ref_tab[1][(w >> 48) & 0xff] ^
		      crc32c_ref_tab[0][w >> 56];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = (crc >> 8) ^ crc32c_ref_tab[0][(crc ^ *p++) & 0xff];
	return ~crc;
}

#endif /* _WSX_CRC32C_REF_H */
