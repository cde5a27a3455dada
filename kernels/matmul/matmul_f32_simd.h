/* matmul_f32_simd.h — batched float MatMul written once over a vf32 vector (../unary/vf32_*.h),
 * compiled per ISA by matmul_f32_avx2.c (MR 6, tiles of 2 vectors) and matmul_f32_avx512.c (MR 8,
 * tiles of 3 then 2 vectors). Bit-exact with yk_matmul_f32__scalar: each output lane accumulates
 * one fmadd per k in increasing k, starting from 0. Register tile: MR rows x NV vectors, then
 * MR x 1 vector column chunks (masked at the end). Row tails rerun the last valid row (its results
 * are not stored) so there is one kernel. The includer defines MR and MM_NV (the widest tile, 2 or
 * 3 vectors). No include guard. */
#include "yk_variants.h"

#define MM_L ((size_t)YK_VF_LANES)

static inline void YK_VF_FN(mm_rows)(const float *a, size_t K, size_t mr, const float *ar[MR]) {
  for (size_t r = 0; r < MR; r++) ar[r] = a + (r < mr ? r : mr - 1) * K;
}

/* MR x (NV vectors) tile, NV a literal at every call so the accumulators live in registers */
static inline __attribute__((always_inline)) void YK_VF_FN(mm_tile)(const float *a, size_t K, const float *b,
                                                                     size_t N, float *y, size_t mr, const int NV) {
  const float *ar[MR];
  YK_VF_FN(mm_rows)(a, K, mr, ar);
  YK_VF c[MR][3];
  for (int r = 0; r < MR; r++)
    for (int v = 0; v < NV; v++) c[r][v] = YK_VF_ZERO();
  for (size_t k = 0; k < K; k++) {
    YK_VF bv[3];
    for (int v = 0; v < NV; v++) bv[v] = YK_VF_LOAD(b + k * N + MM_L * (size_t)v);
    for (int r = 0; r < MR; r++) {
      const YK_VF av = YK_VF_SET1(ar[r][k]);
      for (int v = 0; v < NV; v++) c[r][v] = YK_VF_FMADD(av, bv[v], c[r][v]);
    }
  }
  for (size_t r = 0; r < mr; r++)
    for (int v = 0; v < NV; v++) YK_VF_STORE(y + r * N + MM_L * (size_t)v, c[r][v]);
}

/* MR x 1 vector, lanes m of it */
static inline void YK_VF_FN(mm_tile_masked)(const float *a, size_t K, const float *b, size_t N, float *y,
                                            size_t mr, YK_VF_MASK m) {
  const float *ar[MR];
  YK_VF_FN(mm_rows)(a, K, mr, ar);
  YK_VF c0[MR];
  for (int r = 0; r < MR; r++) c0[r] = YK_VF_ZERO();
  for (size_t k = 0; k < K; k++) {
    const YK_VF b0 = YK_VF_MASKZ_LOAD(m, b + k * N);
    for (int r = 0; r < MR; r++) c0[r] = YK_VF_FMADD(YK_VF_SET1(ar[r][k]), b0, c0[r]);
  }
  for (size_t r = 0; r < mr; r++) YK_VF_MASK_STORE(y + r * N, m, c0[r]);
}

void YK_VF_FN(yk_matmul_f32_)(const float *a, const float *b, float *y, size_t batch, size_t a_batch_stride,
                              size_t b_batch_stride, size_t M, size_t K, size_t N) {
  if (M == 0 || N == 0) return;
  for (size_t bt = 0; bt < batch; bt++) {
    const float *ab = a + bt * a_batch_stride;
    const float *bb = b + bt * b_batch_stride;
    float *yb = y + bt * M * N;
    /* column panels outside, row blocks inside: a panel of b (K x MM_NV vectors) is fetched from
     * memory once and then reused from cache by every row block */
    size_t j = 0;
#define ROW_BLOCKS(CALL)                       \
  for (size_t i = 0; i < M; i += MR) {         \
    const size_t mr = M - i < MR ? M - i : MR; \
    const float *ai = ab + i * K;              \
    float *yi = yb + i * N;                    \
    CALL;                                      \
  }
#if MM_NV >= 3
    for (; j + 3 * MM_L <= N; j += 3 * MM_L) ROW_BLOCKS(YK_VF_FN(mm_tile)(ai, K, bb + j, N, yi + j, mr, 3))
#endif
    for (; j + 2 * MM_L <= N; j += 2 * MM_L) ROW_BLOCKS(YK_VF_FN(mm_tile)(ai, K, bb + j, N, yi + j, mr, 2))
    for (; j < N; j += MM_L) {
      const YK_VF_MASK m = YK_VF_MASK_FIRST(N - j < MM_L ? N - j : MM_L);
      ROW_BLOCKS(YK_VF_FN(mm_tile_masked)(ai, K, bb + j, N, yi + j, mr, m))
    }
#undef ROW_BLOCKS
  }
}
