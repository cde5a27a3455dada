/* unary_f32_avx512.c — float activations, 16 lanes (AVX-512 F): the template unary_f32_simd.h. */
#include "exp_f32_avx512_inline.h"
#include "yk_variants.h"
#include "unary_f32_simd.h"
