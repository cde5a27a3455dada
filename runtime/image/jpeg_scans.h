/* jpeg_scans.h — scan count of a JPEG stream (jpeg_scans.c). */
#ifndef YOLORT_JPEG_SCANS_H
#define YOLORT_JPEG_SCANS_H

#include <stddef.h>
#include <stdint.h>

/* SOS markers in the stream p[0, n) (which starts with SOI); stops counting once past
 * stop_after. A malformed stream ends the count early (the decoder reports it). */
int yrt_jpeg_count_scans(const uint8_t *p, size_t n, int stop_after);

#endif
