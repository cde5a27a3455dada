/* unary_f32_avx2.c — float activations, 8 lanes (AVX2+FMA): the template unary_f32_simd.h. */
#include "exp_f32_avx2_inline.h"
#include "yk_variants.h"
#include "unary_f32_simd.h"
