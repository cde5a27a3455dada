/* qmatmul_i8_avx512vnni.c — int8 MatMul (yk_qmatmul_i8) with AVX-512 VNNI, bit-exact with
 * yk_qmatmul_i8__scalar (the integer sums are exact; the output stage is the conv's,
 * include/yk_avx512_inline.h).
 *
 * vpdpbusd multiplies u8 by s8 in groups of 4 consecutive k. b's rows k..k+3 for 64 columns are
 * interleaved into those groups (two rounds of unpacks), then flipped to u8 (b + 128), and a's 4
 * bytes of row m are the broadcast s8 operand. With K <= KP a 64-column panel is interleaved once
 * into a stack buffer (K x 64 bytes, no caller scratch) that every row block then reads (12% faster
 * on the attention's shapes than interleaving per row block, which larger K still does):
 *   S = sum_k (b + 128) a  =>  sum (a - za)(b - zb) = S - (128 + zb) ra[m] - za cb[n] + K za zb
 * with ra / cb the row / column sums of a / b (the last two terms per column, computed once per
 * column block; the first per row block). Every step wraps modulo 2^32 and the true sum fits in
 * int32 (K <= YK_QMATMUL_MAX_K), so the result is exact. A k-group past K reads b as 0 and a as
 * 0, contributing nothing.
 *
 * Blocking: MR rows x 64 columns (4 x 6 zmm accumulators); row tails recompute the last valid
 * row (not stored), column tails load and store under a mask. The unpacks put column
 * 16 L + 4 j + e in lane L, element e of zmm j, and the output packs (per 128-bit lane) put it
 * back in order, so no permute is needed on either side. */
#include <immintrin.h>
#include <string.h>

#include "yk_avx512_inline.h"
#include "yk_variants.h"

#define MR YK_QMATMUL_ROWS /* rows per block (6 x 4 zmm sums) */
#define CW 1024 /* columns whose column terms are kept on the stack at once */
#define KP 512  /* up to this K a panel of b is packed once (K x 64 bytes on the stack) */
#define RB 240  /* rows whose row terms are kept on the stack at once (a multiple of MR) */

/* Rows k..k+3 of 64 columns at p (row stride ldb, `rows` of them valid, the rest zero), as
 * vpdpbusd's k-groups: dword e of lane L of q[j] holds column 16 L + 4 j + e. */
static inline __attribute__((always_inline)) void load_group(const int8_t *p, size_t ldb, size_t rows,
                                                             __mmask64 m, __m512i q[4]) {
  const __m512i z = _mm512_setzero_si512();
  const __m512i r0 = _mm512_maskz_loadu_epi8(m, p);
  const __m512i r1 = rows > 1 ? _mm512_maskz_loadu_epi8(m, p + ldb) : z;
  const __m512i r2 = rows > 2 ? _mm512_maskz_loadu_epi8(m, p + 2 * ldb) : z;
  const __m512i r3 = rows > 3 ? _mm512_maskz_loadu_epi8(m, p + 3 * ldb) : z;
  const __m512i t0 = _mm512_unpacklo_epi8(r0, r1), t1 = _mm512_unpackhi_epi8(r0, r1);
  const __m512i t2 = _mm512_unpacklo_epi8(r2, r3), t3 = _mm512_unpackhi_epi8(r2, r3);
  q[0] = _mm512_unpacklo_epi16(t0, t2);
  q[1] = _mm512_unpackhi_epi16(t0, t2);
  q[2] = _mm512_unpacklo_epi16(t1, t3);
  q[3] = _mm512_unpackhi_epi16(t1, t3);
}

/* The 4 bytes of a at p (n of them valid, the rest zero) as one int32. */
static inline int32_t a_dword(const int8_t *p, size_t n) {
  int32_t v = 0;
  memcpy(&v, p, n);
  return v;
}

static inline __mmask64 col_mask(size_t n) { return n >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << n) - 1; }

/* K za zb - za cb[n] for the 64 columns at b, in the accumulators' lane order. */
static void col_terms(const int8_t *b, size_t ldb, size_t K, __mmask64 m, int32_t za, int32_t zb,
                      __m512i ct[4]) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i cb[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                   _mm512_setzero_si512()};
  for (size_t k = 0; k < K; k += 4) {
    __m512i q[4];
    load_group(b + k * ldb, ldb, K - k, m, q);
    for (int j = 0; j < 4; j++) cb[j] = _mm512_dpbusd_epi32(cb[j], ones, q[j]);
  }
  const __m512i base = _mm512_set1_epi32((int32_t)((uint32_t)K * (uint32_t)za * (uint32_t)zb));
  for (int j = 0; j < 4; j++) ct[j] = _mm512_sub_epi32(base, _mm512_mullo_epi32(cb[j], _mm512_set1_epi32(za)));
}

/* Sum of a[0..K) (int8). */
static inline int32_t row_sum(const int8_t *a, size_t K) {
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i s = _mm512_setzero_si512();
  size_t k = 0;
  for (; k + 64 <= K; k += 64) s = _mm512_dpbusd_epi32(s, ones, _mm512_loadu_si512(a + k));
  if (k < K) s = _mm512_dpbusd_epi32(s, ones, _mm512_maskz_loadu_epi8(col_mask(K - k), a + k));
  return _mm512_reduce_add_epi32(s);
}

typedef struct out_stage {
  __m512 scale, hi;
  __m512i zp16;
} out_stage;

/* The k-group at k of the 64 columns, flipped to u8: from the packed panel pk (PACKED), else
 * interleaved from b's rows here. */
static inline __attribute__((always_inline)) void group(const int8_t *b, size_t ldb, size_t K, size_t k,
                                                        __mmask64 m, const __m512i *pk, const int PACKED,
                                                        __m512i q[4]) {
  if (PACKED) {
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) q[j] = _mm512_load_si512(pk + k + j); /* 4 zmm per 4 k */
    return;
  }
  load_group(b + k * ldb, ldb, K - k < 4 ? K - k : 4, m, q);
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++) q[j] = _mm512_xor_si512(q[j], _mm512_set1_epi8((char)0x80));
}

/* The 64 columns at b (mask m) packed into pk (4 zmm per k-group, flipped to u8, the last group
 * zero-extended) and their column terms, as col_terms. */
static void pack_panel(const int8_t *b, size_t ldb, size_t K, __mmask64 m, int32_t za, int32_t zb,
                       __m512i *pk, __m512i ct[4]) {
  const __m512i ones = _mm512_set1_epi8(1), flip = _mm512_set1_epi8((char)0x80);
  __m512i cb[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                   _mm512_setzero_si512()};
  for (size_t k = 0; k < K; k += 4) {
    __m512i q[4];
    load_group(b + k * ldb, ldb, K - k, m, q);
    for (int j = 0; j < 4; j++) {
      cb[j] = _mm512_dpbusd_epi32(cb[j], ones, q[j]);
      _mm512_store_si512(pk + k + j, _mm512_xor_si512(q[j], flip));
    }
  }
  const __m512i base = _mm512_set1_epi32((int32_t)((uint32_t)K * (uint32_t)za * (uint32_t)zb));
  for (int j = 0; j < 4; j++) ct[j] = _mm512_sub_epi32(base, _mm512_mullo_epi32(cb[j], _mm512_set1_epi32(za)));
}

/* MR rows (ar, the first mr stored) x the 64 columns at b (row stride ldb, mask m; packed in pk
 * when PACKED) into y (row stride ldy). */
static inline __attribute__((always_inline)) void block(const int8_t *const ar[MR], const int8_t *b,
                                                        const __m512i *pk, const int PACKED, size_t ldb,
                                                        size_t ldy, size_t K, __mmask64 m, const __m512i ct[4],
                                                        const int32_t rt[MR], const out_stage *o,
                                                        int8_t *y, size_t mr) {
  __m512i acc[MR][4];
#pragma GCC unroll 8
  for (int r = 0; r < MR; r++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) acc[r][j] = _mm512_add_epi32(ct[j], _mm512_set1_epi32(rt[r]));
  size_t k = 0;
  for (; k + 4 <= K; k += 4) {
    __m512i q[4];
    group(b, ldb, K, k, m, pk, PACKED, q);
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
      const __m512i av = _mm512_set1_epi32(a_dword(ar[r] + k, 4));
#pragma GCC unroll 4
      for (int j = 0; j < 4; j++) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], q[j], av);
    }
  }
  if (k < K) {
    __m512i q[4];
    group(b, ldb, K, k, m, pk, PACKED, q);
#pragma GCC unroll 8
    for (int r = 0; r < MR; r++) {
      const __m512i av = _mm512_set1_epi32(a_dword(ar[r] + k, K - k));
#pragma GCC unroll 4
      for (int j = 0; j < 4; j++) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], q[j], av);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; r++) {
    if ((size_t)r >= mr) break;
    const __m512i v = yk_avx512_pack64(yk_avx512_requant16(acc[r][0], o->scale, o->hi),
                                       yk_avx512_requant16(acc[r][1], o->scale, o->hi),
                                       yk_avx512_requant16(acc[r][2], o->scale, o->hi),
                                       yk_avx512_requant16(acc[r][3], o->scale, o->hi), o->zp16);
    _mm512_mask_storeu_epi8(y + (size_t)r * ldy, m, v);
  }
}

/* Rows [0, M) of one batch: with K <= KP each 64-column panel of b is packed once (pk) and read
 * by every row block; else the row blocks interleave b's rows themselves. Row terms for RB rows
 * at a time (rt). */
static void one_batch(const int8_t *ab, const int8_t *bb, int8_t *yb, size_t M, size_t K, size_t N,
                      size_t ldb, size_t ldy, const yk_qmatmul_params *p, const out_stage *o, __m512i *pk) {
  int32_t rt[RB + MR];
  __m512i ct[CW / 16]; /* 4 per panel of 64 columns */
  for (size_t r0 = 0; r0 < M; r0 += RB) {
    const size_t rn = M - r0 < RB ? M - r0 : RB;
    for (size_t r = 0; r < rn; r++) rt[r] = -(128 + p->b_zp) * row_sum(ab + (r0 + r) * K, K);
    for (size_t r = rn; r < rn + MR; r++) rt[r] = rt[rn - 1]; /* a row tail recomputes the last row */
    for (size_t c0 = 0; c0 < N; c0 += CW) {
      const size_t cn = N - c0 < CW ? N - c0 : CW;
      if (!pk)
        for (size_t j = 0; j < cn; j += 64)
          col_terms(bb + c0 + j, ldb, K, col_mask(cn - j), p->a_zp, p->b_zp, &ct[j / 16]);
      for (size_t j = 0; j < cn; j += 64) {
        const __mmask64 m = col_mask(cn - j);
        if (pk) pack_panel(bb + c0 + j, ldb, K, m, p->a_zp, p->b_zp, pk, &ct[j / 16]);
        for (size_t i0 = 0; i0 < rn; i0 += MR) {
          const size_t mr = rn - i0 < MR ? rn - i0 : MR;
          const int8_t *ar[MR];
          for (size_t r = 0; r < MR; r++) ar[r] = ab + (r0 + i0 + (r < mr ? r : mr - 1)) * K;
          int8_t *yo = yb + (r0 + i0) * ldy + c0 + j;
          if (pk)
            block(ar, bb + c0 + j, pk, 1, ldb, ldy, K, m, &ct[j / 16], rt + i0, o, yo, mr);
          else
            block(ar, bb + c0 + j, NULL, 0, ldb, ldy, K, m, &ct[j / 16], rt + i0, o, yo, mr);
        }
      }
    }
  }
}

void yk_qmatmul_i8__avx512vnni(const int8_t *a, const int8_t *b, int8_t *y, size_t batch,
                               const yk_qmatmul_strides *st, size_t M, size_t K, size_t N,
                               const yk_qmatmul_params *p) {
  if (M == 0 || N == 0) return;
  const out_stage o = {_mm512_set1_ps(p->scale), _mm512_set1_ps((float)(127 - p->y_zp)),
                       _mm512_set1_epi16((short)p->y_zp)};
  __m512i pk[KP]; /* K <= KP: one packed panel, 4 zmm per 4 k */
  for (size_t bt = 0; bt < batch; bt++)
    one_batch(a + bt * st->a_batch, b + bt * st->b_batch, y + bt * st->y_batch, M, K, N, st->ldb, st->ldy, p,
              &o, K <= KP ? pk : NULL);
}
