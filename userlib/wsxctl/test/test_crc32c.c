/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * The userspace CRC32C reference against known vectors.
 */
#include <string.h>

#include "../crc32c.h"
#include "ktap.h"

static const struct {
	const char *data;
	size_t len;
	uint32_t crc;
} vectors[] = {
	{ "", 0, 0x00000000 },
	{ "a", 1, 0xc1d04330 },
	{ "abc", 3, 0x364b3fb7 },
	{ "123456789", 9, 0xe3069283 },
	{ "The quick brown fox jumps over the lazy dog", 43, 0x22620404 },
};

/* RFC 3720 (iSCSI) B.4: 32 bytes of zeros, of 0xff, ascending. */
static void check_rfc3720(void)
{
	unsigned char buf[32];
	int i;

	memset(buf, 0, sizeof(buf));
	KTAP_EQ(crc32c(0, buf, sizeof(buf)), 0x8a9136aa, "32 zero bytes");
	memset(buf, 0xff, sizeof(buf));
	KTAP_EQ(crc32c(0, buf, sizeof(buf)), 0x62a8ab43, "32 0xff bytes");
	for (i = 0; i < 32; i++)
		buf[i] = i;
	KTAP_EQ(crc32c(0, buf, sizeof(buf)), 0x46dd794e, "32 ascending bytes");
}

int main(void)
{
	uint32_t crc;
	size_t i;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		KTAP_EQ(crc32c(0, vectors[i].data, vectors[i].len),
			vectors[i].crc, "crc32c(\"%s\")", vectors[i].data);
	check_rfc3720();
	crc = crc32c(0, "1234", 4);
	crc = crc32c(crc, "56789", 5);
	KTAP_EQ(crc, 0xe3069283, "chained calls equal one call");
	return ktap_done();
}
