/* jpeg_scans.c — count the scans (SOS markers) of a JPEG by walking its marker segments, before
 * libjpeg decodes it. Each progressive scan is a pass over the whole coefficient buffer: a 2.3 MB
 * file with 2112 scans took 34 s to decode (issue 19). O(size), no allocation. */
#include "jpeg_scans.h"

#include <stdint.h>

int yrt_jpeg_count_scans(const uint8_t *p, size_t n, int stop_after) {
  int scans = 0;
  size_t i = 2; /* after SOI */
  while (i + 4 <= n) {
    if (p[i] != 0xFF) return scans; /* not a marker where one must be: libjpeg reports it */
    const uint8_t m = p[i + 1];
    if (m == 0xFF) { /* fill byte */
      i++;
      continue;
    }
    if (m == 0xD9) return scans;               /* EOI */
    if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) { /* TEM, RSTn: no length */
      i += 2;
      continue;
    }
    const size_t len = (size_t)p[i + 2] << 8 | p[i + 3];
    if (len < 2) return scans;
    i += 2 + len;
    if (m != 0xDA) continue;
    if (++scans > stop_after) return scans;
    /* entropy-coded data: up to the next marker that is not a stuffed 0xFF00 or an RSTn */
    while (i + 1 < n && !(p[i] == 0xFF && p[i + 1] != 0x00 && !(p[i + 1] >= 0xD0 && p[i + 1] <= 0xD7))) i++;
  }
  return scans;
}
