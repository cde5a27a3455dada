/* qmatmul_i8_scalar.c — int8 MatMul (yk_qmatmul_i8, QLinearMatMul), the reference of the SIMD
 * variants: exact int32 sums of (a - a_zp) * (b - b_zp), then the conv's output stage
 * (yk_qconv_requant). Written i-k-j over a block of columns so the inner loop streams rows of b
 * (and vectorises); the order of the integer sums does not matter. */
#include "yk_qconv.h"
#include "yk_variants.h"

#define COLS 256 /* columns per block: the int32 row of sums on the stack */

void yk_qmatmul_i8__scalar(const int8_t *a, const int8_t *b, int8_t *y, size_t batch,
                           const yk_qmatmul_strides *st, size_t M, size_t K, size_t N,
                           const yk_qmatmul_params *p) {
  int32_t acc[COLS];
  for (size_t bt = 0; bt < batch; bt++) {
    const int8_t *ab = a + bt * st->a_batch, *bb = b + bt * st->b_batch;
    int8_t *yb = y + bt * st->y_batch;
    for (size_t i = 0; i < M; i++)
      for (size_t j0 = 0; j0 < N; j0 += COLS) {
        const size_t nc = N - j0 < COLS ? N - j0 : COLS;
        for (size_t j = 0; j < nc; j++) acc[j] = 0;
        for (size_t k = 0; k < K; k++) {
          /* both factors fit int16 (|x - zp| <= 255): compilers vectorise the int16 x int16 ->
           * int32 product (pmullw / pmulhw, smlal), not an int32 one on baseline SSE2 */
          const int16_t av = (int16_t)(ab[i * K + k] - p->a_zp);
          const int8_t *br = bb + k * st->ldb + j0;
          for (size_t j = 0; j < nc; j++) acc[j] += av * (int16_t)(br[j] - p->b_zp);
        }
        for (size_t j = 0; j < nc; j++) yb[i * st->ldy + j0 + j] = yk_qconv_requant(acc[j], p->scale, p->y_zp);
      }
  }
}
