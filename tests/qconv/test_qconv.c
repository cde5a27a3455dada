/* test_qconv.c — our int8 convolution: scalar reference against a hand-computed case, and every
 * SIMD variant bit-exact against scalar on odd shapes, padding, strides, saturation and LUTs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "yk.h"
#include "yk_qconv.h"

typedef struct rng { uint64_t s; } rng;
static uint32_t rnext(rng *r) {
  r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(r->s >> 33);
}
static int8_t ri8(rng *r) { return (int8_t)(rnext(r) & 0xFF); }

static void hand_case(void **state) {
  (void)state;
  /* 1 pixel, 3x3 kernel over a 1x1 image with pad 1: only the centre tap sees data. */
  int8_t x[4] = {10, -3, 7, 1};
  int8_t w[9 * 4];
  for (int i = 0; i < 36; i++) w[i] = (int8_t)(i - 18);
  int32_t bias[1] = {5};
  float scale[1] = {0.5f};
  yk_qconv c = {.n = 1, .h = 1, .w = 1, .cin = 4, .oh = 1, .ow = 1, .cout = 1, .kh = 3, .kw = 3,
                .sh = 1, .sw = 1, .pad_t = 1, .pad_l = 1, .dh = 1, .dw = 1, .x_zp = 2, .y_zp = -1,
                .weights = w, .bias = bias, .scale = scale};
  assert_int_equal(yk_qconv_init(&c, NULL), 0);
  int8_t y = 0;
  yk_qconv_rows__scalar(&c, x, &y, 0, 1);
  /* centre tap = 4: weights 16..19 - 18 = -2,-1,0,1 */
  int32_t acc = 5 + (10 - 2) * -2 + (-3 - 2) * -1 + (7 - 2) * 0 + (1 - 2) * 1;
  float v = acc * 0.5f;
  assert_int_equal(y, yk_round_half_even(v) - 1);
}

typedef struct qcase {
  int n, h, w, cin, cout, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
  int use_lut, big_scale;
  int x_zp, y_zp; /* 999: random */
  int mr, nz;     /* 0: the blocking init picks (x86-64; on AArch64 only with .only) */
  int only;       /* 0 = every variant the CPU has (see run_qcase), else just this one */
  int x_extra, y_extra; /* pixel strides cin + x_extra / cout + y_extra (views of wider tensors) */
  int f32;              /* float output (out_f32): (float)acc * scale */
} qcase;

/* Scalar reference vs yk_qconv_rows (whatever init picked, or a forced blocking; on AArch64 the
 * NEON and the SDOT variant), rows split unevenly in several calls as threads would. Returns the
 * variant init picked. */
/* dyn: pack with another x_zp and bias, then yk_qconv_set_input the real ones. */
static int run_qcase_ex(rng *r, qcase q, int dyn) {
  yk_isa isa;
  yk_isa_detect(&isa);
  const int oh = (q.h + q.pt + q.pb - q.dh * (q.kh - 1) - 1) / q.sh + 1;
  const int ow = (q.w + q.pl + q.pr - q.dw * (q.kw - 1) - 1) / q.sw + 1;
  const size_t xs = (size_t)(q.cin + q.x_extra), ys = (size_t)(q.cout + q.y_extra);
  size_t nx = (size_t)q.n * q.h * q.w * xs, nw = (size_t)q.cout * q.kh * q.kw * q.cin,
         ny = (size_t)q.n * oh * ow * ys;
  const size_t es = q.f32 ? sizeof(float) : 1; /* bytes per output element */
  int8_t *x = malloc(nx), *wt = malloc(nw), *y0 = malloc(ny * es), *y1 = malloc(ny * es);
  int32_t *bias = malloc(sizeof(int32_t) * q.cout);
  float *scale = malloc(sizeof(float) * q.cout);
  int8_t lut[256];
  assert_non_null(x);
  assert_non_null(wt);
  assert_non_null(y0);
  assert_non_null(y1);
  assert_non_null(bias);
  assert_non_null(scale);
  /* weights: full int8 range; [-127, 127] (symmetric quantization, NEON's paired int16 sums);
   * or the extremes of that, with extreme activations (largest int16 pair sums); or all -128
   * (largest products, which must not be paired) */
  const uint32_t wmode = rnext(r) % 5;
  for (size_t i = 0; i < nx; i++)
    x[i] = wmode == 3 ? (rnext(r) & 1 ? 127 : -128) : wmode == 4 ? -128 : ri8(r);
  for (size_t i = 0; i < nw; i++) {
    wt[i] = ri8(r);
    if (wmode == 2 && wt[i] == -128) wt[i] = -127;
    if (wmode == 3) wt[i] = rnext(r) % 3 ? -127 : 127;
    if (wmode == 4) wt[i] = -128;
  }
  for (int i = 0; i < q.cout; i++) {
    bias[i] = (int32_t)(rnext(r) % 20001) - 10000;
    scale[i] = (q.big_scale ? 0.05f : 0.0005f) * (1.0f + (float)(rnext(r) % 100) / 50.0f);
  }
  if (q.big_scale == 2) scale[0] = 1e9f; /* float overflow of acc * scale */
  for (int i = 0; i < 256; i++) lut[i] = ri8(r);
  yk_qconv c = {.n = q.n, .h = q.h, .w = q.w, .cin = q.cin, .oh = oh, .ow = ow, .cout = q.cout,
                .kh = q.kh, .kw = q.kw, .sh = q.sh, .sw = q.sw, .pad_t = q.pt, .pad_l = q.pl,
                .dh = q.dh, .dw = q.dw,
                .x_zp = q.x_zp == 999 ? (int32_t)(rnext(r) % 256) - 128 : q.x_zp,
                .y_zp = q.y_zp == 999 ? (int32_t)(rnext(r) % 256) - 128 : q.y_zp,
                .weights = wt, .bias = bias, .scale = scale, .lut = q.use_lut && !q.f32 ? lut : NULL,
                .x_stride = q.x_extra ? (int)xs : 0, .y_stride = q.y_extra ? (int)ys : 0, .out_f32 = q.f32, 0};
  assert_int_equal(yk_qconv_init(&c, &isa), 0);
  memset(y0, 0x55, ny * es); /* the channels between strided outputs must stay untouched */
  yk_qconv_rows__scalar(&c, x, y0, 0, q.n * oh);
  if (q.x_extra || q.y_extra) { /* strided scalar == dense scalar on the same channels */
    const size_t npx = (size_t)q.n * q.h * q.w, npy = (size_t)q.n * oh * ow;
    int8_t *xd = malloc(npx * q.cin + 1), *yd = malloc(npy * q.cout * es + 1);
    assert_non_null(xd);
    assert_non_null(yd);
    for (size_t p = 0; p < npx; p++) memcpy(xd + p * q.cin, x + p * xs, (size_t)q.cin);
    yk_qconv d = c;
    d.x_stride = d.y_stride = 0;
    yk_qconv_rows__scalar(&d, xd, yd, 0, q.n * oh);
    for (size_t p = 0; p < npy; p++) {
      if (memcmp(yd + p * q.cout * es, y0 + p * ys * es, (size_t)q.cout * es) != 0)
        fail_msg("strided scalar differs from dense at pixel %zu", p);
      for (size_t k = (size_t)q.cout * es; k < ys * es; k++)
        if (y0[p * ys * es + k] != 0x55) fail_msg("strided scalar wrote byte %zu of pixel %zu", k, p);
    }
    free(xd);
    free(yd);
  }
  int variant = c.variant;
  /* The variants to check: on x86-64 AVX-512 VNNI, AMX and every 256-bit one this CPU has (or
   * just q.only; a forced blocking without q.only is an AVX-512 VNNI one); on AArch64 both NEON
   * ones (SDOT only when the CPU has it), or just q.only. */
  int todo[5], ntodo = 0;
#if YK_ARCH_AARCH64
  if (q.only) {
    if (q.only == YK_QCONV_NEON || isa.neon_dot) todo[ntodo++] = q.only;
  } else if (variant != YK_QCONV_SCALAR) {
    todo[ntodo++] = YK_QCONV_NEON;
    if (isa.neon_dot) todo[ntodo++] = YK_QCONV_NEONDOT;
  }
#elif YK_ARCH_X86_64
  const int vnni512 = isa.avx512vnni && isa.avx512vbmi, amx = vnni512 && isa.amx;
  if (q.only) {
    if ((q.only == YK_QCONV_AVXVNNI && isa.avxvnni) || (q.only == YK_QCONV_AVX2 && isa.avx2) ||
        (q.only == YK_QCONV_AMX && amx) || (q.only == YK_QCONV_AVX512VNNI_PLANAR && vnni512))
      todo[ntodo++] = q.only;
  } else if (q.mr) {
    if (vnni512) todo[ntodo++] = YK_QCONV_AVX512VNNI;
  } else {
    if (vnni512) todo[ntodo++] = YK_QCONV_AVX512VNNI;
    if (vnni512) todo[ntodo++] = YK_QCONV_AVX512VNNI_PLANAR; /* where the shape fits it */
    if (amx) todo[ntodo++] = YK_QCONV_AMX; /* also where init would not pick it */
    if (isa.avxvnni) todo[ntodo++] = YK_QCONV_AVXVNNI;
    if (isa.avx2) todo[ntodo++] = YK_QCONV_AVX2;
  }
#else
  if (variant != YK_QCONV_SCALAR) todo[ntodo++] = variant;
#endif
  for (int t = 0; t < ntodo; t++) {
    c.variant = todo[t];
#if YK_ARCH_X86_64
    if (c.variant == YK_QCONV_AMX) {
      yk_qconv_blocking__amx(c.cout, &c.mr, &c.nz);
      if (q.mr) c.mr = q.mr;
      if (q.nz) c.nz = q.nz;
      c.packed_bytes = yk_qconv_packed_bytes(&c);
      if (!c.packed_bytes) { /* its tile copies would not fit the stack buffers: not AMX's */
        if (q.only) print_message("AMX cannot run cin %d k%dx%d x_stride %d: skipped\n", q.cin, q.kh, q.kw, c.x_stride);
        continue;
      }
    } else if (c.variant == YK_QCONV_AVX512VNNI_PLANAR) {
      yk_qconv_blocking__avx512vnni_planar(c.cout, &c.mr, &c.nz);
      c.packed_bytes = yk_qconv_packed_bytes(&c);
      if (!c.packed_bytes) { /* not a shape it runs (stride, cin, cout, out_f32) */
        if (q.only) fail_msg("the planar kernel does not take cin %d cout %d k%dx%d s%d", q.cin, q.cout, q.kh, q.kw, q.sh);
        continue;
      }
    } else if (c.variant == YK_QCONV_AVX512VNNI) {
      if (q.mr) {
        c.mr = q.mr;
        c.nz = q.nz;
      } else {
        yk_qconv_blocking__avx512vnni(c.cout, &c.mr, &c.nz);
      }
      c.packed_bytes = yk_qconv_packed_bytes(&c);
    } else {
      if (q.mr) {
        c.mr = q.mr;
        c.nz = q.nz;
      } else {
        yk_qconv_blocking__avx2(c.cout, c.variant == YK_QCONV_AVXVNNI, &c.mr, &c.nz);
      }
      c.packed_bytes = yk_qconv_packed_bytes(&c);
    }
    assert_true(c.packed_bytes > 0);
#elif YK_ARCH_AARCH64
    if (q.only && q.mr) {
      c.mr = q.mr;
      c.nz = q.nz;
    } else {
      yk_qconv_blocking__neon(c.cout, c.variant == YK_QCONV_NEONDOT, &c.mr, &c.nz);
    }
    c.packed_bytes = yk_qconv_packed_bytes(&c);
    assert_true(c.packed_bytes > 0);
#endif
    c.packed = NULL;
    void *mem = aligned_alloc(64, (c.packed_bytes + 63) & ~(size_t)63);
    assert_non_null(mem);
    if (dyn) { /* dynamic quantization: only the packed head changes between runs */
      const int32_t real = c.x_zp;
      c.x_zp = real > 0 ? real - 101 : real + 99;
      for (int i = 0; i < q.cout; i++) bias[i] += 5;
      yk_qconv_pack(&c, mem);
      for (int i = 0; i < q.cout; i++) bias[i] -= 5;
      int32_t *wsum = malloc(sizeof(int32_t) * (size_t)q.cout);
      assert_non_null(wsum);
      yk_qconv_weight_sums(&c, wsum);
      yk_qconv_set_input(&c, real, wsum);
      free(wsum);
    } else {
      yk_qconv_pack(&c, mem);
    }
    memset(y1, 0x55, ny * es);
    /* split rows unevenly, as threads would: [0, 1), [1, rows/3), [rows/3, rows) */
    const int rows = q.n * oh, a = rows > 1 ? 1 : rows, b = rows / 3 > a ? rows / 3 : a;
    yk_qconv_rows(&c, x, y1, 0, a);
    yk_qconv_rows(&c, x, y1, a, b);
    yk_qconv_rows(&c, x, y1, b, rows);
    for (size_t i = 0; i < ny; i++) {
      if (memcmp(y0 + i * es, y1 + i * es, es) != 0)
        fail_msg("mismatch at %zu (pixel %zu ch %zu): scalar %d variant%d %d (n%d h%d w%d cin%d "
                 "cout%d k%dx%d s%dx%d pad%d,%d,%d,%d d%dx%d lut%d scale%d mr%d nz%d f32 %d)",
                 i, i / ys, i % ys, y0[i * es], c.variant, y1[i * es], q.n, q.h, q.w, q.cin,
                 q.cout, q.kh, q.kw, q.sh, q.sw, q.pt, q.pl, q.pb, q.pr, q.dh, q.dw, q.use_lut,
                 q.big_scale, c.mr, c.nz, q.f32);
    }
    if (c.variant == YK_QCONV_AMX) { /* also row by row: tiles restart at every row */
      memset(y1, 0x55, ny * es);
      for (int row = 0; row < rows; row++) yk_qconv_rows(&c, x, y1, row, row + 1);
      if (memcmp(y0, y1, ny * es) != 0)
        fail_msg("row by row differs from scalar (variant %d mr %d nz %d)", c.variant, c.mr, c.nz);
    }
    free(mem);
  }
  free(x);
  free(wt);
  free(y0);
  free(y1);
  free(bias);
  free(scale);
  /* AMX, planar or AVX-512 VNNI: init picks per shape among the three, one family here */
  return variant == YK_QCONV_AMX || variant == YK_QCONV_AVX512VNNI_PLANAR ? YK_QCONV_AVX512VNNI : variant;
}

static int run_qcase(rng *r, qcase q) { return run_qcase_ex(r, q, 0); }

/* The variant a plain cin=4 conv gets on this machine: every shape below must get it too (the
 * SIMD kernels take any cin; only machines without AVX2 or NEON run scalar; AMX counts as
 * AVX-512 VNNI, see run_qcase_ex). */
static int expected_variant(void) {
  rng r = {3};
  qcase q = {1, 3, 3, 4, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 999, 999, 0, 0, 0, 0, 0, 0};
  return run_qcase(&r, q);
}

static void run_case(rng *r, int n, int h, int w, int cin, int cout, int k, int s, int pad,
                     int use_lut, int big_scale) {
  qcase q = {n, h, w, cin, cout, k, k, s, s, pad, pad, pad, pad, 1, 1, use_lut, big_scale,
             999, 999, 0, 0, 0, 0, 0, 0};
  assert_int_equal(run_qcase(r, q), expected_variant());
}

static void vnni_matches_scalar(void **state) {
  (void)state;
  if (expected_variant() == YK_QCONV_SCALAR) print_message("no SIMD variant here: scalar only\n");
  rng r = {42};
  run_case(&r, 1, 7, 9, 4, 1, 3, 1, 1, 0, 0);
  run_case(&r, 1, 7, 9, 4, 17, 3, 2, 1, 1, 0);
  run_case(&r, 2, 5, 6, 8, 33, 1, 1, 0, 0, 1);
  run_case(&r, 1, 11, 13, 12, 80, 3, 1, 1, 1, 1);
  run_case(&r, 1, 9, 9, 16, 64, 3, 2, 1, 1, 0);
  run_case(&r, 1, 8, 8, 32, 130, 1, 1, 0, 1, 0);
  run_case(&r, 1, 6, 5, 20, 48, 5, 1, 2, 0, 1);
  run_case(&r, 1, 20, 20, 64, 128, 3, 1, 1, 1, 0);
}

/* cin not a multiple of 4 (the first conv has 3): kernel-row segments with a zero-weight tail,
 * clipped edges and the over-read guard at the end of the input. */
static void odd_cin(void **state) {
  (void)state;
  rng r = {7};
  static const int cins[] = {1, 2, 3, 5, 6, 7, 9, 13};
  for (int i = 0; i < 8; i++) {
    run_case(&r, 1, 13, 17, cins[i], 16, 3, 2, 1, i & 1, i % 3 == 0);
    run_case(&r, 2, 9, 7, cins[i], 24, 3, 1, 1, (i + 1) & 1, 0);
    run_case(&r, 1, 5, 6, cins[i], 8, 1, 1, 0, 0, 1);
  }
  /* no padding, last pixel's kernel row ends at the last input byte */
  qcase q = {1, 6, 6, 3, 16, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 999, 999, 0, 0, 0, 0, 0, 0};
  assert_int_equal(run_qcase(&r, q), expected_variant());
  q.sh = q.sw = 3;
  assert_int_equal(run_qcase(&r, q), expected_variant());
}

/* cout around every column and block boundary, with every blocking the kernel has. */
static void all_blockings(void **state) {
  (void)state;
  rng r = {99};
  static const int mrnz[][2] = {{16, 1}, {12, 1}, {12, 2}, {8, 1}, {8, 2}, {8, 3}, {6, 1},
                                {6, 2},  {6, 3},  {6, 4},  {5, 1}, {5, 2}, {5, 3}, {5, 4},
                                {5, 5},  {4, 1},  {4, 2},  {4, 3}, {4, 4}};
  static const int couts[] = {1, 8, 15, 16, 17, 32, 40, 48, 63, 64, 65, 80, 96, 130};
  for (int b = 0; b < (int)(sizeof mrnz / sizeof mrnz[0]); b++)
    for (int i = 0; i < (int)(sizeof couts / sizeof couts[0]); i++) {
      qcase q = {1 + (i & 1), 5, 7, 4 * (1 + i % 5), couts[i], 3, 3, 1 + (b & 1), 1 + (b & 1),
                 1, 1, 1, 1, 1, 1, i & 1, (b + i) % 3 == 0, 999, 999, mrnz[b][0], mrnz[b][1], 0, 0, 0, 0};
      assert_int_equal(run_qcase(&r, q), expected_variant());
      q.kh = q.kw = 1;
      q.pt = q.pl = q.pb = q.pr = 0;
      q.sh = q.sw = 1;
      q.cin = 3 + i;
      assert_int_equal(run_qcase(&r, q), expected_variant());
    }
}

/* AArch64: cout around every 4-channel column and block boundary, with every blocking of both
 * NEON variants; 3x3 stride 1/2 and 1x1, cin with and without a dword tail. */
static void arm_blockings(void **state) {
  (void)state;
#if YK_ARCH_AARCH64
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.neon_dot) print_message("no dot product on this CPU: NEON variant only\n");
  rng r = {77};
  static const int blk[][3] = {
      {YK_QCONV_NEON, 8, 1},    {YK_QCONV_NEON, 4, 1},    {YK_QCONV_NEON, 4, 2},
      {YK_QCONV_NEONDOT, 8, 1}, {YK_QCONV_NEONDOT, 8, 2}, {YK_QCONV_NEONDOT, 6, 1},
      {YK_QCONV_NEONDOT, 6, 2}, {YK_QCONV_NEONDOT, 6, 3}, {YK_QCONV_NEONDOT, 4, 1},
      {YK_QCONV_NEONDOT, 4, 2}, {YK_QCONV_NEONDOT, 4, 3}, {YK_QCONV_NEONDOT, 4, 4}};
  static const int couts[] = {1, 3, 4, 5, 8, 12, 15, 16, 17, 20, 24, 28, 33, 64, 80};
  for (int b = 0; b < (int)(sizeof blk / sizeof blk[0]); b++)
    for (int i = 0; i < (int)(sizeof couts / sizeof couts[0]); i++) {
      qcase q = {1 + (i & 1), 5, 7, 1 + (i * 3) % 17, couts[i], 3, 3, 1 + (b & 1), 1 + (b & 1),
                 1, 1, 1, 1, 1, 1, i & 1, (b + i) % 3 == 0, 999, 999, blk[b][1], blk[b][2],
                 blk[b][0], 0, 0, 0};
      run_qcase(&r, q);
      q.kh = q.kw = 1;
      q.pt = q.pl = q.pb = q.pr = 0;
      q.sh = q.sw = 1 + (i % 3 == 0);
      q.cin = 3 + i;
      run_qcase(&r, q);
    }
#else
  print_message("not AArch64: nothing to check\n");
#endif
}

/* x86-64: cout around every 8-channel column and block boundary, with every blocking of the
 * AVX-VNNI and AVX2 variants (run when this CPU has them; init prefers AVX-512 VNNI). */
static void x86_256_blockings(void **state) {
  (void)state;
#if YK_ARCH_X86_64
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.avxvnni) print_message("no AVX-VNNI on this CPU: AVX2 variant only\n");
  rng r = {55};
  static const int mrnz[][2] = {{12, 1}, {8, 1}, {6, 1}, {6, 2}, {4, 1}, {4, 2}, {4, 3}};
  static const int couts[] = {1, 3, 7, 8, 9, 15, 16, 17, 23, 24, 25, 40, 47, 48, 49, 64, 72, 80};
  for (int v = 0; v < 2; v++)
    for (int b = 0; b < (int)(sizeof mrnz / sizeof mrnz[0]); b++)
      for (int i = 0; i < (int)(sizeof couts / sizeof couts[0]); i++) {
        qcase q = {1 + (i & 1), 5, 7, 1 + (i * 3) % 17, couts[i], 3, 3, 1 + (b & 1), 1 + (b & 1),
                   1, 1, 1, 1, 1, 1, i & 1, (b + i) % 3 == 0, 999, 999, mrnz[b][0], mrnz[b][1],
                   v ? YK_QCONV_AVX2 : YK_QCONV_AVXVNNI, 0, 0, 0};
        run_qcase(&r, q);
        q.kh = q.kw = 1;
        q.pt = q.pl = q.pb = q.pr = 0;
        q.sh = q.sw = 1 + (i % 3 == 0);
        q.cin = 3 + i;
        run_qcase(&r, q);
      }
#else
  print_message("not x86-64: nothing to check\n");
#endif
}

/* Asymmetric kernels and padding, dilation (one segment per tap), extreme zero points, overflowing
 * scales, a cin too wide for the stack copies of kernel rows, batches. */
static void odd_geometry(void **state) {
  (void)state;
  rng r = {1234};
  /*         n  h   w   cin cout kh kw sh sw pt pl pb pr dh dw lut big xzp ypz mr nz */
  qcase cases[] = {
      {1, 9, 11, 8, 20, 1, 3, 1, 2, 0, 1, 0, 2, 1, 1, 1, 0, 999, 999, 0, 0, 0, 0, 0, 0},
      {1, 10, 7, 12, 33, 3, 1, 2, 1, 2, 0, 1, 0, 1, 1, 0, 1, 999, 999, 0, 0, 0, 0, 0, 0},
      {2, 9, 9, 16, 17, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 0, 999, 999, 0, 0, 0, 0, 0, 0},
      {1, 8, 10, 6, 16, 3, 3, 1, 1, 1, 2, 1, 2, 1, 2, 0, 0, 999, 999, 0, 0, 0, 0, 0, 0},
      {1, 7, 7, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 999, 999, 0, 0, 0, 0, 0, 0},
      {1, 7, 7, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, -128, 127, 0, 0, 0, 0, 0, 0},
      {1, 7, 7, 16, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 127, -128, 0, 0, 0, 0, 0, 0},
      {1, 4, 5, 1200, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 999, 999, 0, 0, 0, 0, 0, 0},
      {3, 3, 4, 24, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0, 0, 0, 0, 0},
      {1, 1, 1, 4, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 999, 999, 0, 0, 0, 0, 0, 0},
      {1, 2, 3, 3, 5, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 999, 999, 0, 0, 0, 0, 0, 0},
      {1, 4, 300, 16, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 999, 999, 0, 0, 0, 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_int_equal(run_qcase(&r, cases[i]), expected_variant());
}

/* The dispatch as the runtime uses it (yk_qconv_init on a yk_isa): a small YOLO11n-like chain of
 * convs (3x3 stride 2 stem over 3 channels, 1x1, 3x3, odd cout, SiLU-like LUTs), each layer
 * fed with the previous one's output, run with this CPU's yk_isa and with copies that hide AMX,
 * AVX-512, then AVX-VNNI, then AVX2 (and AVX-512 without VNNI: our AVX2 variant; that the
 * runtime prefers XNNPACK there is its own choice): every variant init picks must give the
 * same bytes. The
 * session API has no way to mask ISA flags, so this is the "whole model" check at kernel level. */
static void masked_isa_chain(void **state) {
  (void)state;
  typedef struct layer { int cin, cout, k, s; } layer;
  static const layer net[] = {{3, 16, 3, 2},  {16, 32, 3, 2}, {32, 32, 1, 1}, {32, 24, 3, 1},
                              {24, 64, 3, 2}, {64, 40, 1, 1}, {40, 80, 3, 1}, {80, 17, 1, 1}};
  enum { NL = sizeof net / sizeof net[0], H0 = 38, MAXB = 38 * 38 * 80 };
  yk_isa host;
  yk_isa_detect(&host);
  yk_isa isas[6];
  int expect[6], nisa = 0;
  isas[nisa] = host, expect[nisa++] = -1; /* whatever init picks with everything */
  yk_isa m = host;
  m.amx = 0; /* AMX hidden: AVX-512 VNNI for every layer */
  if (host.amx) isas[nisa] = m, expect[nisa++] = host.avx512vnni && host.avx512vbmi ? YK_QCONV_AVX512VNNI : -1;
  m.avx512 = m.avx512vnni = m.avx512vbmi = 0;
  if (host.avxvnni) isas[nisa] = m, expect[nisa++] = YK_QCONV_AVXVNNI;
  m.avxvnni = 0;
  if (host.avx2) isas[nisa] = m, expect[nisa++] = YK_QCONV_AVX2;
  m.avx512 = host.avx512;
  /* AVX-512 without VNNI: init picks our 256-bit AVX2 variant */
  if (host.avx512) isas[nisa] = m, expect[nisa++] = YK_QCONV_AVX2;
  memset(&m, 0, sizeof m);
  isas[nisa] = m, expect[nisa++] = YK_QCONV_SCALAR;
  rng r = {2024};
  int8_t *wts[NL], lut[256];
  int32_t *bias[NL];
  float *scale[NL];
  for (int l = 0; l < NL; l++) {
    const size_t nw = (size_t)net[l].cout * net[l].k * net[l].k * net[l].cin;
    wts[l] = malloc(nw);
    bias[l] = malloc(sizeof(int32_t) * net[l].cout);
    scale[l] = malloc(sizeof(float) * net[l].cout);
    assert_non_null(wts[l]);
    assert_non_null(bias[l]);
    assert_non_null(scale[l]);
    for (size_t i = 0; i < nw; i++) wts[l][i] = ri8(&r);
    for (int i = 0; i < net[l].cout; i++) {
      bias[l][i] = (int32_t)(rnext(&r) % 4001) - 2000;
      scale[l][i] = 0.0004f * (1.0f + (float)(rnext(&r) % 100) / 25.0f);
    }
  }
  for (int i = 0; i < 256; i++) lut[i] = (int8_t)(i < 128 ? (i - 128) / 8 : i - 128); /* SiLU-ish */
  int8_t *out[6], *buf0 = malloc(MAXB), *buf1 = malloc(MAXB);
  int amx_layers = 0;
  assert_non_null(buf0);
  assert_non_null(buf1);
  size_t nout = 0;
  for (int v = 0; v < nisa; v++) {
    int h = H0, w = H0;
    for (size_t i = 0; i < (size_t)h * w * 3; i++) buf0[i] = (int8_t)((i * 37 + 11) & 0xFF);
    int8_t *src = buf0, *dst = buf1;
    for (int l = 0; l < NL; l++) {
      const int k = net[l].k, s = net[l].s, p = k / 2;
      const int oh = (h + 2 * p - k) / s + 1, ow = (w + 2 * p - k) / s + 1;
      yk_qconv c = {.n = 1, .h = h, .w = w, .cin = net[l].cin, .oh = oh, .ow = ow,
                    .cout = net[l].cout, .kh = k, .kw = k, .sh = s, .sw = s, .pad_t = p,
                    .pad_l = p, .dh = 1, .dw = 1, .x_zp = l ? -100 : 3, .y_zp = -100,
                    .weights = wts[l], .bias = bias[l], .scale = scale[l],
                    .lut = l % 3 != 2 ? lut : NULL};
      assert_int_equal(yk_qconv_init(&c, &isas[v]), 0);
      amx_layers += v == 0 && c.variant == YK_QCONV_AMX;
      if (expect[v] >= 0 && c.variant != expect[v])
        fail_msg("layer %d: yk_isa mask %d picked variant %d, expected %d", l, v, c.variant,
                 expect[v]);
      void *mem = NULL;
      if (c.packed_bytes) {
        mem = aligned_alloc(64, (c.packed_bytes + 63) & ~(size_t)63);
        assert_non_null(mem);
        yk_qconv_pack(&c, mem);
      }
      yk_qconv_rows(&c, src, dst, 0, oh / 3);
      yk_qconv_rows(&c, src, dst, oh / 3, oh);
      free(mem);
      int8_t *t = src;
      src = dst, dst = t, h = oh, w = ow;
    }
    nout = (size_t)h * w * net[NL - 1].cout;
    out[v] = malloc(nout);
    assert_non_null(out[v]);
    memcpy(out[v], src, nout);
  }
  for (int v = 1; v < nisa; v++)
    for (size_t i = 0; i < nout; i++)
      if (out[v][i] != out[0][i])
        fail_msg("chain output %zu: mask %d (variant %d) gives %d, host yk_isa %d", i, v,
                 expect[v], out[v][i], out[0][i]);
  /* with AMX, init takes it where the K padding is small (3x3 over 16 or more channels) */
  if (host.amx && host.avx512vnni && host.avx512vbmi && amx_layers < 4)
    fail_msg("AMX picked for %d layers of the chain, expected 4 or more", amx_layers);
  /* the output is not degenerate (all one value would hide a wrong chain) */
  int distinct = 0;
  for (size_t i = 1; i < nout; i++) distinct |= out[0][i] != out[0][0];
  assert_true(distinct);
  for (int v = 0; v < nisa; v++) free(out[v]);
  for (int l = 0; l < NL; l++) free(wts[l]), free(bias[l]), free(scale[l]);
  free(buf0);
  free(buf1);
}

/* Views: the input a channel range of a wider tensor (x_stride > cin, neighbours random) and the
 * output written into one (y_stride > cout, the other channels untouched), as the runtime runs a
 * conv reading a Split half or writing into a Concat's buffer. Every variant against scalar,
 * scalar against the dense run; kernel-row segments give way to per-tap ones on strided input. */
static void strided_views(void **state) {
  (void)state;
  rng r = {31337};
  /*          n  h   w  cin cout kh kw sh sw pt pl pb pr dh dw lut big xzp yzp mr nz only xe ye */
  qcase cases[] = {
      {1, 9, 11, 16, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0, 0, 16, 64, 0},
      {1, 8, 8, 32, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1, 999, 999, 0, 0, 0, 32, 0, 0},
      {1, 7, 9, 8, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0, 0, 0, 40, 0},
      {2, 5, 6, 3, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 999, 999, 0, 0, 0, 5, 3, 0},
      {1, 6, 6, 5, 9, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 999, 999, 0, 0, 0, 1, 7, 0},
      {1, 10, 7, 12, 33, 3, 1, 2, 1, 2, 0, 1, 0, 1, 1, 0, 2, 999, 999, 0, 0, 0, 20, 31, 0},
      {1, 9, 9, 16, 17, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 0, 999, 999, 0, 0, 0, 48, 15, 0},
      {1, 20, 20, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0, 0, 64, 128, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_int_equal(run_qcase(&r, cases[i]), expected_variant());
#if YK_ARCH_X86_64
  for (int v = 0; v < 2; v++)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      qcase q = cases[i];
      q.only = v ? YK_QCONV_AVX2 : YK_QCONV_AVXVNNI;
      run_qcase(&r, q);
    }
#elif YK_ARCH_AARCH64
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    qcase q = cases[i];
    q.only = YK_QCONV_NEON;
    run_qcase(&r, q);
  }
#endif
}

/* Float output (out_f32, the head's last convs): every variant bit-exact against scalar, on
 * every blocking, odd cout / cin, strides, saturating accumulators, strided outputs. */
static void float_output(void **state) {
  (void)state;
  rng r = {4242};
  static const int couts[] = {1, 3, 7, 8, 9, 16, 17, 33, 64, 65, 80};
  for (int i = 0; i < (int)(sizeof couts / sizeof couts[0]); i++) {
    qcase q = {1 + (i & 1), 7, 9, 1 + (i * 5) % 19, couts[i], 3, 3, 1 + (i % 3 == 0), 1 + (i % 3 == 0),
               1, 1, 1, 1, 1, 1, 0, i % 3, 999, 999, 0, 0, 0, 0, i % 4 == 1 ? 5 : 0, 1};
    assert_int_equal(run_qcase(&r, q), expected_variant());
    q.kh = q.kw = 1;
    q.pt = q.pl = q.pb = q.pr = 0;
    q.cin = 64 + i;
    assert_int_equal(run_qcase(&r, q), expected_variant());
#if YK_ARCH_X86_64
    q.only = YK_QCONV_AVXVNNI;
    run_qcase(&r, q);
    q.only = YK_QCONV_AVX2;
    run_qcase(&r, q);
#elif YK_ARCH_AARCH64
    q.only = YK_QCONV_NEON;
    run_qcase(&r, q);
#endif
  }
#if YK_ARCH_X86_64
  static const int mrnz[][2] = {{16, 1}, {12, 2}, {8, 3}, {6, 4}, {5, 5}, {4, 4}};
  for (int b = 0; b < 6; b++) {
    qcase q = {1, 5, 7, 12, 16 * mrnz[b][1] + 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 999, 999,
               mrnz[b][0], mrnz[b][1], 0, 0, 0, 1};
    assert_int_equal(run_qcase(&r, q), expected_variant());
  }
#endif
}

/* yk_qconv_set_input after pack == packing with those parameters (float and int8 outputs, with
 * padding so the padding row matters, every variant). */
static void dynamic_input(void **state) {
  (void)state;
  rng r = {777};
  static const int couts[] = {1, 5, 16, 17, 40, 65};
  for (int i = 0; i < (int)(sizeof couts / sizeof couts[0]); i++) {
    qcase q = {1, 6, 7, 3 + i * 7, couts[i], 3, 3, 1 + (i & 1), 1 + (i & 1), 1, 1, 1, 1, 1, 1,
               0, 0, 999, 999, 0, 0, 0, 0, 0, i & 1};
    run_qcase_ex(&r, q, 1);
#if YK_ARCH_X86_64
    q.only = YK_QCONV_AVXVNNI;
    run_qcase_ex(&r, q, 1);
    q.only = YK_QCONV_AVX2;
    run_qcase_ex(&r, q, 1);
#elif YK_ARCH_AARCH64
    q.only = YK_QCONV_NEON;
    run_qcase_ex(&r, q, 1);
#endif
  }
}

/* The AVX2 kernel's widened tiles (3+ columns of 8 channels, the tile's pixels widened to int16
 * once into a 32 KiB stack buffer): segments whose bytes end 4, 8 or 12 past a 16-byte chunk
 * (every cin % 16), kernel rows and single taps (dilation, strided input), short tiles at the
 * end of a row range, and K on both sides of the buffer's limit (6 pixels x K int16, K rounded
 * to 16: 3x3 cin 300 and 301 fit, 302 and 304 run the shift kernel); every blocking's last
 * block; saturating values come from run_qcase's value modes. */
static void avx2_widened_tiles(void **state) {
  (void)state;
#if YK_ARCH_X86_64
  rng r = {2718};
  static const int cins[] = {1, 2, 3, 4, 5, 7, 8, 12, 13, 16, 20, 24, 28, 31, 32, 33, 48, 67};
  static const int couts[] = {17, 24, 33, 40, 64};
  for (int i = 0; i < (int)(sizeof cins / sizeof cins[0]); i++) {
    /*          n  h  w  cin      cout              kh kw sh sw pt pl pb pr dh dw lut big */
    qcase q = {1, 5, 6 + i % 3, cins[i], couts[i % 5], 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, i & 1, i % 3,
               999, 999, 0, 0, YK_QCONV_AVX2, 0, 0, 0};
    run_qcase(&r, q);
    q.dh = q.dw = 2; /* one segment per tap */
    q.pt = q.pl = q.pb = q.pr = 2;
    run_qcase(&r, q);
    q.dh = q.dw = 1;
    q.kh = q.kw = 1, q.pt = q.pl = q.pb = q.pr = 0, q.sh = q.sw = 2;
    run_qcase(&r, q);
    q.kh = 1, q.kw = 3, q.sh = q.sw = 1, q.pl = q.pr = 1, q.x_extra = 3; /* strided input */
    run_qcase(&r, q);
  }
  static const int mrnz[][2] = {{12, 1}, {8, 1}, {6, 1}, {6, 2}, {4, 1}, {4, 2}, {4, 3}};
  for (int b = 0; b < (int)(sizeof mrnz / sizeof mrnz[0]); b++) {
    qcase q = {2, 3, 5, 13, 41, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, b & 1, 1, 999, 999, mrnz[b][0],
               mrnz[b][1], YK_QCONV_AVX2, 0, 0, b % 3 == 2};
    run_qcase(&r, q);
  }
  static const int edge[] = {300, 301, 302, 304}; /* the buffer's limit, both sides */
  for (int i = 0; i < 4; i++) {
    qcase q = {1, 3, 4, edge[i], 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0,
               YK_QCONV_AVX2, 0, 0, 0};
    run_qcase(&r, q);
  }
#else
  print_message("not x86-64: nothing to check\n");
#endif
}

/* AMX (when the CPU has it and the kernel grants the tile state, else skipped): bit-exact
 * against scalar on odd cin / cout around the 16-channel columns and 64-byte K chunks, 1x1 and
 * 3x3, strides 1 and 2, padding, widths giving direct (evenly spaced) and copied A tiles, every
 * NZ, channel-range views, float output, LUTs, saturating values (run_qcase's value modes and
 * extreme zero points) and dynamic input. */
#if YK_ARCH_X86_64
/* Ends the test as skipped where AMX-INT8 (with the AVX-512 output stage) cannot run. */
static void skip_without_amx(void) {
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.amx || !isa.avx512vnni || !isa.avx512vbmi) {
    print_message("no AMX-INT8 here (CPU, kernel permission or valgrind): skipped\n");
    skip();
  }
}
#endif

/* The planar AVX-512 VNNI kernel (output pixels in the lanes, where the CPU has VNNI + VBMI,
 * else skipped): bit-exact against scalar on every shape it takes — cin 4..64 in steps of 4,
 * cout 1..32 around its 8- and 16-channel blocks, kernels 1x1 / 3x3 / 5x5 / 1x3 / 3x1 with every
 * left padding it allows, widths around its 16- and 32-pixel blocks (1 pixel up to 70), batches,
 * channel-range views in and out, LUTs, saturating values (run_qcase's value modes, extreme zero
 * points, a float-overflowing scale) and dynamic input; rows split as threads split them. */
static void planar_matches_scalar(void **state) {
  (void)state;
#if YK_ARCH_X86_64
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.avx512vnni || !isa.avx512vbmi) {
    print_message("no AVX-512 VNNI + VBMI here: skipped\n");
    skip();
  }
  rng r = {1601};
  static const int cins[] = {4, 8, 12, 16, 20, 32, 64};
  static const int couts[] = {1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32};
  static const int widths[] = {1, 5, 15, 16, 17, 31, 32, 33, 47, 70, 160};
  static const int ks[][2] = {{3, 3}, {1, 1}, {5, 5}, {1, 3}, {3, 1}};
  int i = 0;
  for (int ci = 0; ci < 7; ci++)
    for (int co = 0; co < 11; co++, i++) {
      const int kh = ks[i % 5][0], kw = ks[i % 5][1], w = widths[i % 11];
      const int pt = (i / 5) % kh, pl = (i / 3) % kw, pb = kh - 1 - pt, pr = (i / 7) % kw;
      /*          n               h          w  cin       cout       kh  kw sh sw pt  pl  pb  pr dh dw */
      qcase q = {1 + (i % 6 == 0), 2 + i % 5, w, cins[ci], couts[co], kh, kw, 1, 1, pt, pl, pb, pr, 1, 1,
                 i & 1, i % 3, 999, 999, 0, 0, YK_QCONV_AVX512VNNI_PLANAR, 0, 0, 0};
      if (w + pl + pr < kw) q.pr = kw - w - pl; /* at least one output column */
      run_qcase(&r, q);
      q.x_extra = 4 * (1 + i % 3), q.y_extra = i % 7; /* views of wider tensors */
      run_qcase(&r, q);
      q.x_extra = q.y_extra = 0, q.use_lut = 1;
      q.x_zp = i & 1 ? -128 : 127, q.y_zp = i & 1 ? 127 : -128;
      run_qcase_ex(&r, q, 1);
    }
  /* the narrow layers of YOLO11n-640 at full size, as init picks them */
  qcase yolo[] = {{1, 160, 160, 16, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0, 0, 0, 0, 0},
                  {1, 160, 160, 8, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0, 0, 0, 0, 0},
                  {1, 80, 80, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0, 0, 0, 0, 0}};
  for (int k = 0; k < 3; k++) {
    yolo[k].only = YK_QCONV_AVX512VNNI_PLANAR;
    run_qcase(&r, yolo[k]);
  }
#endif
}

static void amx_matches_scalar(void **state) {
  (void)state;
#if YK_ARCH_X86_64
  skip_without_amx();
  rng r = {8086};
  static const int cins[] = {3, 5, 17, 64, 80, 130};
  static const int couts[] = {1, 15, 16, 17, 33, 80, 130};
  int i = 0;
  for (int ci = 0; ci < 6; ci++)
    for (int co = 0; co < 7; co++, i++) {
      const int k = 1 + 2 * (i & 1), st = 1 + (i % 3 == 2), p = k / 2;
      /*          n  h  w                    cin       cout       kh kw sh  sw pt pl pb pr dh dw */
      qcase q = {1 + (i % 5 == 0), 6, i % 4 == 3 ? 40 : 9 + i % 3, cins[ci], couts[co], k, k, st, st,
                 p, p, p, p, 1, 1, i & 2 ? 1 : 0, i % 3, 999, 999, 0, 0, YK_QCONV_AMX, 0, 0, 0};
      run_qcase(&r, q);
      q.kh = q.kw = 4 - k; /* the other kernel size */
      q.pt = q.pl = q.pb = q.pr = q.kh / 2;
      q.f32 = i % 4 == 1;
      run_qcase(&r, q);
      q.x_extra = 3 + i % 5, q.y_extra = i % 7; /* views of wider tensors: per-tap segments */
      run_qcase(&r, q);
      q.x_extra = q.y_extra = 0, q.f32 = 0, q.use_lut = 1;
      q.x_zp = i & 1 ? -128 : 127, q.y_zp = i & 1 ? 127 : -128;
      run_qcase_ex(&r, q, 1);
    }
  /* every NZ with a narrower last block; long rows of direct tiles; asymmetric padding */
  for (int nz = 1; nz <= 6; nz++) {
    qcase q = {1, 5, 37, 64, 16 * nz * 2 + 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, nz & 1, nz % 3,
               999, 999, 16, nz, YK_QCONV_AMX, 0, 0, nz == 4};
    run_qcase(&r, q);
    q.kh = q.kw = 1, q.pt = q.pl = q.pb = q.pr = 0, q.cin = 128 + nz;
    run_qcase(&r, q);
  }
  qcase edge[] = {
      /* the last pixel's padded kernel row ends past the input: copied, not read in place */
      {1, 6, 33, 64, 32, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 999, 999, 0, 0, YK_QCONV_AMX, 0, 0, 0},
      {1, 3, 20, 48, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 999, 999, 0, 0, YK_QCONV_AMX, 0, 0, 0},
      /* dilation (one segment per tap), wide padding, one output pixel, a long 1x1 row */
      {2, 9, 9, 32, 40, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, 1, 999, 999, 0, 0, YK_QCONV_AMX, 0, 0, 0},
      {1, 1, 1, 96, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2, 999, 999, 0, 0, YK_QCONV_AMX, 0, 0, 0},
      {1, 2, 300, 64, 17, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 999, 999, 0, 0, YK_QCONV_AMX, 0, 0, 0},
      /* the largest K its tile copies take: 3x3 over 256 channels, one segment per tap */
      {1, 5, 21, 256, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0, 999, 999, 0, 0, YK_QCONV_AMX, 0, 0, 0},
  };
  for (size_t e = 0; e < sizeof edge / sizeof edge[0]; e++) run_qcase(&r, edge[e]);
  /* 32-pixel tiles (one or two columns): rows wide enough for interior tiles (the driver's
   * first-pixel-only way) and not multiples of 16 or 32, so tiles cross rows, end short or
   * start mid-row (run_qcase also calls AMX row by row); 1x1 and 3x3, stride 2, channel-range views, float
   * output, LUT, dynamic input; the 16-pixel blocking of the same shapes. */
  static const int ws[] = {64, 70, 97, 160};
  static const int cos[] = {1, 8, 16, 17, 32};
  for (int i = 0; i < 20; i++) {
    const int k = i & 1 ? 3 : 1, st = 1 + (i % 5 == 4), p = k / 2;
    qcase q = {1 + (i % 7 == 3), 3 + i % 4, ws[i % 4], (int[]){3, 8, 16, 17, 32, 48}[i % 6],
               cos[i % 5], k, k, st, st, p, p, p, p, 1, 1, i % 3 == 0, i % 3, 999, 999, 0, 0,
               YK_QCONV_AMX, 0, 0, 0};
    run_qcase(&r, q);
    q.mr = 16;
    run_qcase(&r, q);
    q.mr = 0;
    q.x_extra = 1 + i % 4, q.y_extra = i % 3, q.f32 = i % 4 == 2, q.use_lut = q.use_lut && !q.f32;
    run_qcase(&r, q);
    q.x_extra = q.y_extra = 0, q.f32 = 0;
    run_qcase_ex(&r, q, 1);
  }
#else
  print_message("not x86-64: nothing to check\n");
#endif
}

/* AMX's ring of padded input rows (kernel-row segments, cout <= 32: every tile read in place,
 * tiles per output row): rows whose last tile is 32 pixels, 16 or fewer (the 16-pixel kernel),
 * asymmetric and wide padding, 2x3 / 3x5 / 5x5 kernels, stride 2 and 3, two images (the ring's
 * rows are per image), saturating scales and extreme zero points, float output, dynamic input,
 * and a row too long for the ring (the driver's way). */
static void amx_ring_rows(void **state) {
  (void)state;
#if YK_ARCH_X86_64
  skip_without_amx();
  rng r = {160};
  static const int ws[] = {160, 17, 33, 48, 49, 80, 7, 31};
  static const int cins[] = {16, 8, 3, 4, 17, 32};
  static const int couts[] = {8, 16, 1, 24, 32, 9};
  for (int i = 0; i < 24; i++) {
    const int kh = (int[]){3, 2, 3, 5}[i % 4], kw = (int[]){3, 3, 5, 5}[i % 4];
    const int st = 1 + (i % 5 == 2) + 2 * (i % 7 == 6);
    const int pt = i % 3 == 0 ? kh / 2 : i % 3 < kh ? i % 3 : kh - 1, pl = i % 4 == 1 ? 0 : kw / 2;
    /*          n             h         w          cin          cout          kh  kw  sh  sw */
    qcase q = {1 + (i % 3 == 1), 4 + i % 5, ws[i % 8], cins[i % 6], couts[i % 6], kh, kw, st, st,
               /* pt pl pb          pr         dh dw lut        big_scale */
               pt, pl, kh - 1 - pt, i % 2 ? kw - 1 : 0, 1, 1, i % 3 == 0, i % 4 == 3 ? 2 : i % 2,
               i % 6 == 5 ? -128 : i % 6 == 4 ? 127 : 999, i % 5 == 0 ? -128 : 999, 0, 0,
               YK_QCONV_AMX, 0, 0, 0};
    run_qcase(&r, q);
    q.use_lut = 0, q.f32 = 1;
    run_qcase(&r, q);
    q.f32 = 0, q.use_lut = 1;
    run_qcase_ex(&r, q, 1);
  }
  /* cout <= 8 (AMX's two-pixels-a-zmm output stage): dense rows ending mid-group of 8 pixels,
   * strided output, LUT, saturating scales */
  static const int ws8[] = {3, 5, 11, 19, 29, 45};
  for (int i = 0; i < 12; i++) {
    qcase q = {1 + (i == 7), 3, ws8[i % 6], i & 1 ? 8 : 16, i % 3 ? 8 : 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
               i % 4 == 1, i % 3, 999, 999, 0, 0, YK_QCONV_AMX, 0, i % 5 == 4 ? 3 : 0, 0};
    run_qcase(&r, q);
  }
  /* 16-pixel tiles (cout > 32, NZ 3..6 with a narrower last block), stride 1: the ring too (any
   * row length; amx_matches_scalar's rows of 37 and 70 as well); stride 2 and a channel-range
   * input: the driver's */
  static const int co16[] = {33, 48, 80, 100, 130, 64};
  for (int i = 0; i < 6; i++) {
    const int k = i == 4 ? 5 : 3;
    qcase q = {1 + (i == 2), 3 + i % 3, (int[]){16, 32, 80, 48, 64, 40}[i], (int[]){64, 16, 8, 32, 40, 24}[i],
               co16[i], k, k, 1 + (i == 3), 1 + (i == 3), k / 2, k / 2, k / 2, k / 2, 1, 1, i & 1, i % 3,
               999, 999, 0, 0, YK_QCONV_AMX, 0, i == 5 ? 3 : 0, i == 1};
    run_qcase(&r, q);
    run_qcase_ex(&r, q, 1);
  }
  /* a 3x3 over 64 channels of rows too long for the ring: the driver's tiles */
  qcase big = {1, 4, 300, 64, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 999, 999, 0, 0, YK_QCONV_AMX, 0, 0, 0};
  run_qcase(&r, big);
#else
  print_message("not x86-64: nothing to check\n");
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hand_case),
      cmocka_unit_test(vnni_matches_scalar),
      cmocka_unit_test(odd_cin),
      cmocka_unit_test(all_blockings),
      cmocka_unit_test(odd_geometry),
      cmocka_unit_test(arm_blockings),
      cmocka_unit_test(x86_256_blockings),
      cmocka_unit_test(masked_isa_chain),
      cmocka_unit_test(strided_views),
      cmocka_unit_test(float_output),
      cmocka_unit_test(dynamic_input),
      cmocka_unit_test(avx2_widened_tiles),
      cmocka_unit_test(planar_matches_scalar),
      cmocka_unit_test(amx_matches_scalar),
      cmocka_unit_test(amx_ring_rows),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
