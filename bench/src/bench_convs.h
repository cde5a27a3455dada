/* bench_convs.h — the convolution layers of a .yrt, read straight from its records
 * (yolort_format.h), so yolort-bench can report GMAC/s per conv and the XNNPACK peer
 * (bench/peers/xnnpack) can time the same shapes. Header-only dependency on the format;
 * every offset is bounds-checked, a bad file gives an error message, never a crash. */
#ifndef BENCH_CONVS_H
#define BENCH_CONVS_H

#include <stddef.h>
#include <stdio.h>

typedef struct bench_conv {
  char name[128];
  int node;       /* index in the .yrt node table */
  int int8;       /* 1: int8 conv (qc8), 0: f32 */
  int n, h, w, cin;
  int ho, wo, cout;
  int kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, groups;
  double macs;    /* n*ho*wo*cout*kh*kw*cin/groups */
} bench_conv;

/* Lists the CONV2D nodes of a .yrt image. *out is malloc'ed (free it); *n may be 0.
 * Returns 0, or -1 with a message in msg. */
int bench_yrt_convs(const void *data, size_t size, bench_conv **out, int *n, char *msg,
                    size_t cap);

/* Same, from a file path: a .yrt, or a text file written by bench_convs_write. */
int bench_convs_load(const char *path, bench_conv **out, int *n, char *msg, size_t cap);

/* Text form, one conv per line (a '#' header line names the columns). */
void bench_convs_write(FILE *f, const bench_conv *c, int n);

#endif
