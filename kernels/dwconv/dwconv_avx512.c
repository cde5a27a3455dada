/* dwconv_avx512.c — depthwise 3x3 int8 over output rows, AVX-512 BW, 32 channels
 * per block (see yk_dwconv.h for the packed layout, dwconv_avx512.h for the code). */
#define DW_FN yk_dwconv_rows__avx512
#define DW_VNNI 0
#include "dwconv_avx512.h"
