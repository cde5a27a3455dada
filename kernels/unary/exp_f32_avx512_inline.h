/* exp_f32_avx512_inline.h — exp, exp_neg and sigmoid on the 16-lane AVX-512 vector: the
 * template exp_f32_simd.h over vf32_avx512.h (yk_exp_f32_avx512, yk_exp_neg_f32_avx512, yk_sigmoid_f32_avx512),
 * bit-exact with exp_f32_inline.h. Include only from files compiled for that ISA. */
#ifndef YOLORT_EXP_F32_AVX512_INLINE_H
#define YOLORT_EXP_F32_AVX512_INLINE_H

#include "exp_f32_inline.h"
#include "vf32_avx512.h"
#include "exp_f32_simd.h"

#endif /* YOLORT_EXP_F32_AVX512_INLINE_H */
