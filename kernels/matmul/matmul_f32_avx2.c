/* matmul_f32_avx2.c — batched float MatMul with AVX2+FMA: the template matmul_f32_simd.h on 8
 * lanes, 6 rows x 16 columns (12 ymm accumulators), then 6 x 8 column chunks (vmaskmovps). */
#include "../unary/vf32_avx2.h"

#define MR 6
#define MM_NV 2
#include "matmul_f32_simd.h"
