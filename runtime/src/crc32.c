/* crc32.c — IEEE CRC-32, table-driven. The table is built on the stack per call (1 KiB, a few
 * microseconds) so there is no global mutable state and no hand-typed constant table. */
#include "crc32.h"

uint32_t yrt_crc32(uint32_t crc, const void *data, size_t n) {
  uint32_t table[256];
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = (c & 1u) ? (0xEDB88320u ^ (c >> 1)) : (c >> 1);
    table[i] = c;
  }
  const uint8_t *p = (const uint8_t *)data;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}
