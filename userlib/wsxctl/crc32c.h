/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * Reference CRC32C (Castagnoli, reflected polynomial 0x82F63B78) in
 * userspace, to check what the module computes.
 */
#ifndef WSX_CRC32C_H
#define WSX_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * crc32c - extend a CRC32C over @len bytes at @buf
 * @crc:	0 to start, or the result of the previous call
 *
 * Seeds with ~0 and inverts the result, as the usual crc32c tools print it:
 * crc32c(0, "123456789", 9) == 0xe3069283.  Chaining calls over the pieces
 * of a buffer gives the CRC of the whole buffer.  Thread-safe.
 */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

#endif /* WSX_CRC32C_H */
