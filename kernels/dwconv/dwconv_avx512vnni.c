/* dwconv_avx512vnni.c — the AVX-512 depthwise 3x3 rows kernel with vpdpwssd
 * (multiply-add of int16 pairs fused with the int32 accumulate); see dwconv_avx512.h. */
#define DW_FN yk_dwconv_rows__avx512vnni
#define DW_VNNI 1
#include "dwconv_avx512.h"
