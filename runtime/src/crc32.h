/* crc32.h — IEEE CRC-32 (zlib polynomial), used to check .yrt files. Internal to libyolort,
 * but linkable by tools and tests that write .yrt files. */
#ifndef YOLORT_CRC32_H
#define YOLORT_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continue a CRC: start with crc = 0; yrt_crc32(0, "123456789", 9) == 0xCBF43926. */
uint32_t yrt_crc32(uint32_t crc, const void *data, size_t n);

#endif
