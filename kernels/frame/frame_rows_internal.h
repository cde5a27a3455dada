/* frame_rows_internal.h — the pieces a yk_frame_rows variant is made of: one output row is cut
 * into chunks of at most YK_FRAME_CHUNK pixels, each sampled into 8-bit RGB by a per-layout row
 * function, then stored through the table. The row driver (frame_rows_driver.c) is written once;
 * a variant supplies the functions it speeds up and the scalar ones for the rest. */
#ifndef YOLORT_FRAME_ROWS_INTERNAL_H
#define YOLORT_FRAME_ROWS_INTERNAL_H

#include "yk_frame.h"
#include "yk_variants.h"

#define YK_FRAME_CHUNK 64

/* Source rows and vertical weights of one output row. */
typedef struct yk_frame_row {
  const yk_frame_job *j;
  const uint8_t *p0, *p1;           /* plane 0, rows y0 and y1 */
  const uint8_t *u0, *u1, *v0, *v1; /* chroma rows (NV12/NV21: u = the interleaved plane) */
  int wy, wcy;
} yk_frame_row;

/* Pixels [x, x + n) of the resized row into rgb[3n]. */
typedef void (*yk_frame_row_fn)(const yk_frame_row *r, int x, int n, uint8_t *rgb);
/* n RGB pixels through the table into the input at element `at`. */
typedef void (*yk_frame_store_fn)(const yk_frame_job *j, size_t at, const uint8_t *rgb, int n);

typedef struct yk_frame_ops {
  yk_frame_row_fn packed, gray, yuv;
  yk_frame_store_fn store;
} yk_frame_ops;

void yk_frame_drive(const yk_frame_job *j, int r0, int r1, const yk_frame_ops *ops);

/* A packed row's channel reversal: a BGR / BGRA frame into R, G, B output, or an RGB / RGBA frame
 * into B, G, R (j->bgr); both, or neither, keep the order. */
static inline int yk_frame_swap(const yk_frame_job *j) {
  return (j->fmt == YK_PIX_BGR || j->fmt == YK_PIX_BGRA) != (j->bgr != 0);
}

/* A SIMD packed row's inner loop: pixels [0, n) of taps o / wt (row r's rows and weight; src_w
 * pixels readable), 8 at a time while its 8 pixels' loads of 16 bytes from o[k] * bpp stay inside
 * src_w; returns the pixels done. */
typedef int (*yk_frame_packed_body)(const yk_frame_row *r, const int32_t *o, const int16_t *wt, int src_w, int n,
                                    uint8_t *rgb);
/* Pixels [x, x + n) at the row's end, where the loads would leave the row: `body` on a padded
 * copy of their bytes (frame_rows_tail.c). */
void yk_frame_packed_tail(const yk_frame_row *r, int x, int n, uint8_t *rgb, yk_frame_packed_body body);

void yk_frame_row_packed__scalar(const yk_frame_row *r, int x, int n, uint8_t *rgb);
void yk_frame_row_gray__scalar(const yk_frame_row *r, int x, int n, uint8_t *rgb);
void yk_frame_row_yuv__scalar(const yk_frame_row *r, int x, int n, uint8_t *rgb);
void yk_frame_store__scalar(const yk_frame_job *j, size_t at, const uint8_t *rgb, int n);
/* Any layout of an oriented job (j->oriented): pixels gathered through step_x, every variant's
 * driver takes it (a rotated row walks a column of the frame: no contiguous loads to speed up). */
void yk_frame_row_oriented__scalar(const yk_frame_row *r, int x, int n, uint8_t *rgb);
#if defined(YK_ARCH_X86_64)
/* the AVX2 pieces the AVX-512 variant reuses (its tails and stores) */
void yk_frame_row_packed__avx2(const yk_frame_row *r, int x, int n, uint8_t *rgb);
extern const int8_t yk_frame_pair_tab[2][2][16]; /* [bpp - 3][swap]: frame_rows_avx2.c */
int yk_frame_packed_body__avx2(const yk_frame_row *r, const int32_t *o, const int16_t *wt, int src_w, int n,
                               uint8_t *rgb);
void yk_frame_row_packed__avx512(const yk_frame_row *r, int x, int n, uint8_t *rgb);
void yk_frame_row_yuv__avx2(const yk_frame_row *r, int x, int n, uint8_t *rgb);
void yk_frame_store__avx2(const yk_frame_job *j, size_t at, const uint8_t *rgb, int n);
void yk_frame_row_yuv__avx512(const yk_frame_row *r, int x, int n, uint8_t *rgb);
#endif
#if YK_ARCH_AARCH64 || YK_ARCH_ARMV7
void yk_frame_row_packed__neon(const yk_frame_row *r, int x, int n, uint8_t *rgb);
void yk_frame_row_yuv__neon(const yk_frame_row *r, int x, int n, uint8_t *rgb);
void yk_frame_store__neon(const yk_frame_job *j, size_t at, const uint8_t *rgb, int n);
#endif

#endif
