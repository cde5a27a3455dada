/* matmul_f32_avx512.c — batched float MatMul with AVX-512: the template matmul_f32_simd.h on 16
 * lanes, 8 rows x 48 columns (24 zmm accumulators), then 8 x 32, then 8 x 16 (masked at the end). */
#include "../unary/vf32_avx512.h"

#define MR 8
#define MM_NV 3
#include "matmul_f32_simd.h"
