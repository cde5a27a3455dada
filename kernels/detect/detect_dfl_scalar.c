/* detect_dfl_scalar.c — the Detect decode's int8 DFL without the max pass (yk_detect_box_no_max
 * scales), the reference: per anchor i and side k, the expected bin under the softmax of the
 * side's r logits, e = t[q + 128] = exp(s * (q - 127)); d[4i + k] = acc * (1 / sum) with
 * sum += e and acc += proj[j] * e in bin order (the four sides side by side: independent chains). */
#include "yk_variants.h"

void yk_detect_dfl_i8__scalar(const int8_t *q, size_t n, int r, const float t[256], const float *proj, float *d) {
  const float *t0 = t + 128;
  for (size_t i = 0; i < n; i++, q += 4 * (size_t)r, d += 4) {
    float sum[4] = {0}, acc[4] = {0};
    for (int j = 0; j < r; j++)
      for (int k = 0; k < 4; k++) {
        const float e = t0[q[k * r + j]];
        sum[k] += e;
        acc[k] += proj[j] * e;
      }
    /* sum >= exp(-80): never 0, never denormal */
    for (int k = 0; k < 4; k++) d[k] = acc[k] * (1.0f / sum[k]);
  }
}
