/* test_kernels_frame.c — yk_frame_rows (frame -> network input) against a per-pixel reference
 * written here from the definition (source position (d + 0.5) * in/out - 0.5 clamped, 11-bit
 * weights, BT.601 integer conversion after the per-plane resize, 114 padding, table), for every
 * pixel format, odd sizes, strides with slack, up- and down-scaling, both colour ranges and both
 * output types, a general int8 table and a shift table (the byte-add store), planes starting at
 * odd addresses (a crop's origin); and the dispatched, AVX2, AVX-512 and NEON variants bit-exact
 * against the scalar one (AVX-512 skips, saying so, on a CPU without it); a frame stored turned
 * or mirrored (yk_frame_job.oriented) bit-identical to its upright image in every variant. */
#include "kt_common.h"
#include "yk_frame.h"
#include "yk_variants.h"
#include "yt_orient.h"

#define ONE (1 << YK_FRAME_WBITS)

static void ref_tap(int in, int out, int sub, int d, int *s0, int *s1, int *w) {
  const int in_s = (in + sub - 1) / sub;
  double f = ((d + 0.5) * ((double)in / out)) / sub - 0.5;
  int s = (int)floor(f);
  f -= s;
  if (s < 0) s = 0, f = 0;
  if (s >= in_s - 1) s = in_s - 1, f = 0;
  *s0 = s;
  *s1 = s + 1 < in_s ? s + 1 : s;
  *w = (int)lrint(f * ONE);
}

static int ref_sample(const uint8_t *p, size_t stride, int bpp, int c, int x0, int x1, int wx, int y0, int y1,
                      int wy) {
  const uint8_t *r0 = p + (size_t)y0 * stride, *r1 = p + (size_t)y1 * stride;
  const int64_t h0 = r0[x0 * bpp + c] * (ONE - wx) + r0[x1 * bpp + c] * wx;
  const int64_t h1 = r1[x0 * bpp + c] * (ONE - wx) + r1[x1 * bpp + c] * wx;
  return (int)((h0 * (ONE - wy) + h1 * wy + (1 << (2 * YK_FRAME_WBITS - 1))) >> (2 * YK_FRAME_WBITS));
}

static int clamp_shift(int v) {
  v = v < 0 ? 0 : v >> 8;
  return v > 255 ? 255 : v;
}

typedef struct frame_case {
  int fmt, w, h, dst_w, dst_h, slack, full, out_i8;
  int shift_lut; /* 1: lut_i8[v] = v + 37 (mod 256), the byte-add store; 0: a general table */
  /* the model's preprocessing as kernel parameters: B, G, R output; a table per channel (mean /
   * std; the float store's gather by channel, no byte add); a pad level other than 114; top-left
   * placement; 1 = letterbox, 2 = centre crop (the window of a larger resize) */
  int bgr, chan_lut, pad, top_left, crop;
} frame_case;

#if defined(YK_ARCH_X86_64)
static int g_avx512_runs; /* cases the AVX-512 variant ran on */
#endif
static int g_orient; /* run_case also checks every orientation of its frame (check_orientations) */

static void expect_variants_equal(yk_frame_job *j, const uint8_t *want, size_t bytes, uint8_t *fast) {
  yk_isa isa;
  yk_isa_detect(&isa);
  memset(fast, 0x5A, bytes);
  j->dst = fast;
  yk_frame_rows__scalar(j, 0, j->dst_h / 2);
  yk_frame_rows__scalar(j, j->dst_h / 2, j->dst_h);
  assert_memory_equal(want, fast, bytes);
  memset(fast, 0x5A, bytes);
  yk_frame_rows(&isa, j, 0, j->dst_h);
  assert_memory_equal(want, fast, bytes);
#if defined(YK_ARCH_X86_64)
  if (kt_have_avx2()) {
    memset(fast, 0x5A, bytes);
    yk_frame_rows__avx2(j, 0, j->dst_h);
    assert_memory_equal(want, fast, bytes);
  }
  if (isa.avx512) {
    memset(fast, 0x5A, bytes);
    yk_frame_rows__avx512(j, 0, j->dst_h);
    assert_memory_equal(want, fast, bytes);
  }
#endif
#if YK_ARCH_AARCH64 || YK_ARCH_ARMV7
  if (isa.neon) {
    memset(fast, 0x5A, bytes);
    yk_frame_rows__neon(j, 0, j->dst_h);
    assert_memory_equal(want, fast, bytes);
  }
#endif
}

/* The upright job j (its output `want`) again from the frame stored turned or mirrored in each of
 * the 7 other ways (each plane rewritten here into its own tight buffer, no slack: an over-read
 * shows under ASan): the oriented job reads the same pixels, so every variant's output is
 * bit-identical to the upright one. pw / pb: each plane's width in pixels and bytes per pixel. */
static void check_orientations(const yk_frame_job *j, const int *pw, const int *pb, const size_t *rows,
                               const uint8_t *want, size_t bytes) {
  uint8_t *fast = malloc(bytes);
  assert_non_null(fast);
  for (int o = 1; o < 8; o++) {
    const int rot = o & 3, mir = o >> 2;
    yk_frame_job k = *j;
    k.oriented = 1;
    uint8_t *bufs[3] = {NULL, NULL, NULL};
    for (int p = 0; p < 3; p++) {
      if (!rows[p]) continue;
      const int W = pw[p], H = (int)rows[p], RW = rot & 1 ? H : W, RH = rot & 1 ? W : H;
      const size_t rs = (size_t)RW * (size_t)pb[p];
      bufs[p] = malloc(rs * (size_t)RH);
      assert_non_null(bufs[p]);
      for (int v = 0; v < H; v++)
        for (int u = 0; u < W; u++) {
          int x, y;
          stored_of(rot, mir, W, H, u, v, &x, &y);
          memcpy(bufs[p] + (size_t)y * rs + (size_t)x * (size_t)pb[p],
                 j->plane[p] + (size_t)v * j->stride[p] + (size_t)u * (size_t)pb[p], (size_t)pb[p]);
        }
      int x0, y0, x1, y1, x2, y2;
      stored_of(rot, mir, W, H, 0, 0, &x0, &y0);
      stored_of(rot, mir, W, H, 1, 0, &x1, &y1);
      stored_of(rot, mir, W, H, 0, 1, &x2, &y2);
      k.plane[p] = bufs[p] + (size_t)y0 * rs + (size_t)x0 * (size_t)pb[p];
      k.step_x[p] = (ptrdiff_t)(y1 - y0) * (ptrdiff_t)rs + (ptrdiff_t)(x1 - x0) * pb[p];
      k.step_y[p] = (ptrdiff_t)(y2 - y0) * (ptrdiff_t)rs + (ptrdiff_t)(x2 - x0) * pb[p];
      k.stride[p] = 0; /* unused when oriented */
    }
    expect_variants_equal(&k, want, bytes, fast);
    for (int p = 0; p < 3; p++) free(bufs[p]);
  }
  free(fast);
}

static void run_case(const frame_case *fc, kt_rng *rng) {
  const int yuv = fc->fmt == YK_PIX_NV12 || fc->fmt == YK_PIX_NV21 || fc->fmt == YK_PIX_I420;
  const int bpp = fc->fmt == YK_PIX_RGB || fc->fmt == YK_PIX_BGR ? 3 : fc->fmt == YK_PIX_RGBA || fc->fmt == YK_PIX_BGRA ? 4 : 1;
  const int cw = (fc->w + 1) / 2, ch = (fc->h + 1) / 2;
  size_t stride[3] = {(size_t)fc->w * (size_t)bpp + (size_t)fc->slack, 0, 0};
  size_t rows[3] = {(size_t)fc->h, 0, 0};
  if (yuv) {
    stride[1] = (fc->fmt == YK_PIX_I420 ? (size_t)cw : 2 * (size_t)cw) + (size_t)fc->slack;
    rows[1] = (size_t)ch;
    if (fc->fmt == YK_PIX_I420) stride[2] = (size_t)cw + 3, rows[2] = (size_t)ch;
  }
  uint8_t *planes[3] = {NULL, NULL, NULL}, *bufs[3] = {NULL, NULL, NULL};
  for (int p = 0; p < 3; p++) {
    if (!rows[p]) continue;
    /* the plane starts 1..3 bytes into its buffer, as a crop's origin does */
    const size_t off = (size_t)(1 + (fc->w + p) % 3);
    bufs[p] = malloc(stride[p] * rows[p] + off);
    assert_non_null(bufs[p]);
    planes[p] = bufs[p] + off;
    for (size_t i = 0; i < stride[p] * rows[p]; i++) planes[p][i] = (uint8_t)kt_int(rng, 0, 255);
  }
  /* geometry as the runtime computes it (letterbox rules, or a crop's window), done here
   * independently: the frame resized to fw x fh, its window [ox, ox + nw) x [oy, oy + nh) placed
   * at (pl, pt) */
  int fw, fh, nw, nh, ox = 0, oy = 0, pl = 0, pt = 0;
  if (fc->crop) {
    const double r = fmax((double)fc->dst_w / fc->w, (double)fc->dst_h / fc->h);
    fw = (int)rint(fc->w * r), fh = (int)rint(fc->h * r);
    fw = fw < fc->dst_w ? fc->dst_w : fw, fh = fh < fc->dst_h ? fc->dst_h : fh;
    nw = fc->dst_w, nh = fc->dst_h;
    ox = (int)rint((fw - nw) / 2.0), oy = (int)rint((fh - nh) / 2.0);
  } else {
    const double r = fmin((double)fc->dst_w / fc->w, (double)fc->dst_h / fc->h);
    nw = (int)rint(fc->w * r), nh = (int)rint(fc->h * r);
    nw = nw < 1 ? 1 : nw > fc->dst_w ? fc->dst_w : nw;
    nh = nh < 1 ? 1 : nh > fc->dst_h ? fc->dst_h : nh;
    fw = nw, fh = nh;
    if (!fc->top_left) pl = (fc->dst_w - nw) / 2, pt = (fc->dst_h - nh) / 2;
  }
  const int pad = fc->pad ? fc->pad : YK_FRAME_PAD;

  int32_t *ofs = malloc(sizeof(int32_t) * 2 * (size_t)(fc->dst_w + fc->dst_h));
  int16_t *wt = malloc(sizeof(int16_t) * 2 * (size_t)(fc->dst_w + fc->dst_h));
  int8_t lut_i8[3 * 256];
  float lut_f32[3 * 256];
  for (int c = 0; c < 3; c++)
    for (int v = 0; v < 256; v++) {
      const int k = fc->chan_lut ? c : 0;
      lut_i8[256 * c + v] = fc->shift_lut && !fc->chan_lut ? (int8_t)(uint8_t)(v + 37) : (int8_t)(v / 2 - 100 + 7 * k);
      lut_f32[256 * c + v] = ((float)v / 255.0f - 0.1f * (float)k) / (1.0f + 0.25f * (float)k);
    }
  yk_frame_job j;
  memset(&j, 0, sizeof j);
  j.fmt = fc->fmt;
  j.full_range = fc->full;
  for (int p = 0; p < 3; p++) j.plane[p] = planes[p], j.stride[p] = stride[p];
  j.src_w = fc->w, j.src_h = fc->h, j.dst_w = fc->dst_w, j.dst_h = fc->dst_h;
  j.new_w = nw, j.new_h = nh, j.pad_l = pl, j.pad_t = pt;
  j.x = (yk_frame_axis){ofs, wt};
  j.cx = (yk_frame_axis){ofs + fc->dst_w, wt + fc->dst_w};
  j.y = (yk_frame_axis){ofs + 2 * fc->dst_w, wt + 2 * fc->dst_w};
  j.cy = (yk_frame_axis){ofs + 2 * fc->dst_w + fc->dst_h, wt + 2 * fc->dst_w + fc->dst_h};
  yk_frame_plan_axis_window(fc->w, fw, ox, nw, 1, &j.x);
  yk_frame_plan_axis_window(fc->h, fh, oy, nh, 1, &j.y);
  yk_frame_plan_axis_window(fc->w, fw, ox, nw, 2, &j.cx);
  yk_frame_plan_axis_window(fc->h, fh, oy, nh, 2, &j.cy);
  j.bgr = fc->bgr;
  j.pad = pad;
  j.out_i8 = fc->out_i8;
  j.lut_i8 = lut_i8;
  j.lut_f32 = lut_f32;
  j.lut_shift = yk_frame_lut_shift(lut_i8);
  j.lut_is_shift = j.lut_shift >= 0;
  assert_int_equal(j.lut_is_shift, fc->shift_lut && !fc->chan_lut);
  const size_t n = (size_t)fc->dst_w * (size_t)fc->dst_h * 3, esz = fc->out_i8 ? 1 : 4;
  uint8_t *got = malloc(n * esz), *fast = malloc(n * esz);
  assert_non_null(got);
  assert_non_null(fast);
  memset(got, 0xA5, n * esz);
  j.dst = got;
  /* in two row ranges, as threads would */
  yk_frame_rows__scalar(&j, 0, fc->dst_h / 3);
  yk_frame_rows__scalar(&j, fc->dst_h / 3, fc->dst_h);
  yk_isa isa;
  yk_isa_detect(&isa);
  j.dst = fast;
  yk_frame_rows(&isa, &j, 0, fc->dst_h); /* the variant the dispatcher picks */
  assert_memory_equal(got, fast, n * esz);
#if defined(YK_ARCH_X86_64)
  if (kt_have_avx2()) {
    memset(fast, 0x5A, n * esz);
    yk_frame_rows__avx2(&j, 0, fc->dst_h);
    assert_memory_equal(got, fast, n * esz);
  }
  if (isa.avx512) {
    memset(fast, 0x5A, n * esz);
    yk_frame_rows__avx512(&j, 0, fc->dst_h);
    assert_memory_equal(got, fast, n * esz);
    g_avx512_runs++;
  }
#endif
#if YK_ARCH_AARCH64 || YK_ARCH_ARMV7
  if (isa.neon) {
    memset(fast, 0x5A, n * esz);
    yk_frame_rows__neon(&j, 0, fc->dst_h);
    assert_memory_equal(got, fast, n * esz);
  }
#endif
  if (g_orient) {
    const int pw[3] = {fc->w, cw, cw};
    const int pb[3] = {bpp, fc->fmt == YK_PIX_I420 ? 1 : 2, 1};
    check_orientations(&j, pw, pb, rows, got, n * esz);
  }

  for (int y = 0; y < fc->dst_h; y++)
    for (int x = 0; x < fc->dst_w; x++) {
      int rgb[3] = {pad, pad, pad};
      const int xx = x - pl, yy = y - pt;
      if (xx >= 0 && xx < nw && yy >= 0 && yy < nh) {
        int x0, x1, wx, y0, y1, wy;
        ref_tap(fc->w, fw, 1, xx + ox, &x0, &x1, &wx);
        ref_tap(fc->h, fh, 1, yy + oy, &y0, &y1, &wy);
        if (!yuv) {
          for (int c = 0; c < 3; c++) {
            const int v = ref_sample(planes[0], stride[0], bpp, bpp == 1 ? 0 : c, x0, x1, wx, y0, y1, wy);
            const int swap = fc->fmt == YK_PIX_BGR || fc->fmt == YK_PIX_BGRA;
            rgb[swap ? 2 - c : c] = v;
          }
        } else {
          const int Y = ref_sample(planes[0], stride[0], 1, 0, x0, x1, wx, y0, y1, wy);
          int cx0, cx1, wcx, cy0, cy1, wcy, U, V;
          ref_tap(fc->w, fw, 2, xx + ox, &cx0, &cx1, &wcx);
          ref_tap(fc->h, fh, 2, yy + oy, &cy0, &cy1, &wcy);
          if (fc->fmt == YK_PIX_I420) {
            U = ref_sample(planes[1], stride[1], 1, 0, cx0, cx1, wcx, cy0, cy1, wcy);
            V = ref_sample(planes[2], stride[2], 1, 0, cx0, cx1, wcx, cy0, cy1, wcy);
          } else {
            U = ref_sample(planes[1], stride[1], 2, fc->fmt == YK_PIX_NV12 ? 0 : 1, cx0, cx1, wcx, cy0, cy1, wcy);
            V = ref_sample(planes[1], stride[1], 2, fc->fmt == YK_PIX_NV12 ? 1 : 0, cx0, cx1, wcx, cy0, cy1, wcy);
          }
          const int d = U - 128, e = V - 128;
          if (fc->full) {
            rgb[0] = clamp_shift(256 * Y + 359 * e + 128);
            rgb[1] = clamp_shift(256 * Y - 88 * d - 183 * e + 128);
            rgb[2] = clamp_shift(256 * Y + 454 * d + 128);
          } else {
            rgb[0] = clamp_shift(298 * (Y - 16) + 409 * e + 128);
            rgb[1] = clamp_shift(298 * (Y - 16) - 100 * d - 208 * e + 128);
            rgb[2] = clamp_shift(298 * (Y - 16) + 516 * d + 128);
          }
        }
      }
      if (fc->bgr) {
        const int t = rgb[0];
        rgb[0] = rgb[2], rgb[2] = t;
      }
      for (int c = 0; c < 3; c++) {
        const size_t at = ((size_t)y * (size_t)fc->dst_w + (size_t)x) * 3 + (size_t)c;
        const int li = 256 * c + rgb[c];
        if (fc->out_i8) {
          if (((int8_t *)got)[at] != lut_i8[li])
            fail_msg("fmt %d %dx%d->%dx%d: pixel (%d,%d) ch %d = %d, want %d", fc->fmt, fc->w, fc->h, fc->dst_w,
                     fc->dst_h, x, y, c, ((int8_t *)got)[at], lut_i8[li]);
        } else if (((float *)got)[at] != lut_f32[li]) {
          fail_msg("fmt %d %dx%d->%dx%d: pixel (%d,%d) ch %d = %g, want %g", fc->fmt, fc->w, fc->h, fc->dst_w,
                   fc->dst_h, x, y, c, (double)((float *)got)[at], (double)lut_f32[li]);
        }
      }
    }
  for (int p = 0; p < 3; p++) free(bufs[p]);
  free(ofs);
  free(wt);
  free(got);
  free(fast);
}

static void test_every_format(void **state) {
  (void)state;
  kt_rng rng = {0x5eed1234ull};
  static const int sizes[][4] = {{37, 23, 16, 16}, {5, 3, 32, 32}, {64, 48, 64, 48}, {121, 67, 40, 24},
                                 {1, 1, 8, 8},    {2, 9, 15, 17}, {203, 101, 64, 64}, {197, 113, 96, 64}, {33, 17, 99, 51}};
  for (int fmt = YK_PIX_RGB; fmt <= YK_PIX_GRAY; fmt++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int variant = 0; variant < 2; variant++) {
        frame_case fc = {fmt, sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3], 7 * variant + 1, variant,
                         variant ^ (int)(s & 1), (int)(s % 3 == 1), 0, 0, 0, 0, 0};
        run_case(&fc, &rng);
      }
}

/* Frames wide enough for whole 16-pixel SIMD groups and several 64-pixel chunks (down- and
 * up-scaling, the shift table), packed and YUV layouts: the 1:1 row (every tap on a source
 * pixel, the vector loop's loads ending at the row's last bytes), odd output widths whose last
 * group and the pixels near the row's end go to the scalar tail, a ~6x and a ~2x downscale, a 3x
 * upscale (every third row on a source row: wy = 0 with mixed wx), exact 6x and 3x downscales
 * (every weight 0). */
static void test_wide_rows(void **state) {
  (void)state;
  kt_rng rng = {77};
  static const int sizes[][4] = {{333, 190, 96, 96}, {161, 91, 160, 160}, {96, 54, 203, 128},
                                 {320, 240, 320, 320}, {1283, 721, 211, 160}, {257, 131, 131, 99},
                                 {100, 60, 300, 300},  {1284, 720, 214, 214}, {963, 543, 321, 321}};
  for (int fmt = YK_PIX_RGB; fmt <= YK_PIX_I420; fmt++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      frame_case fc = {fmt, sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3], (int)s * 5, (int)(s & 1),
                       (int)(s != 2), (int)(s % 3 != 1), 0, 0, 0, 0, 0};
      run_case(&fc, &rng);
    }
}

/* The model's preprocessing as kernel parameters, every layout, odd sizes (SIMD groups, chunk
 * ends and the scalar tails), both outputs: B, G, R output (packed frames swap in their pshufb /
 * table controls, YUV rows trade R and B before the interleave), per-channel tables (mean / std:
 * the float store's gather by channel, the int8 store without the byte add), a pad level of
 * 7, top-left placement and a centre crop's window (yk_frame_plan_axis_window), each bit-exact
 * against the reference and the scalar variant. */
static void test_preprocess_params(void **state) {
  (void)state;
  kt_rng rng = {0xb9e};
  static const int sizes[][4] = {{37, 23, 16, 16}, {161, 91, 96, 64}, {333, 190, 97, 97}, {5, 3, 31, 17},
                                 {96, 54, 203, 128}, {203, 101, 64, 64}};
  for (int fmt = YK_PIX_RGB; fmt <= YK_PIX_GRAY; fmt++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int v = 0; v < 4; v++) {
        frame_case fc = {fmt, sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3], (int)s * 3, v & 1, (v >> 1) & 1,
                         (int)(s & 1), /* bgr */ v != 3, /* chan_lut */ (v + (int)s) & 1, /* pad */ v == 2 ? 7 : 0,
                         /* top_left */ v == 1 || v == 3, /* crop */ v == 2 || (s == 3 && v == 0)};
        run_case(&fc, &rng);
      }
}

/* Runs last: the AVX-512 variant was compared on every case above, or is skipped explicitly
 * (compiled with its target flags, but this CPU cannot run it). */
static void test_avx512_variant(void **state) {
  (void)state;
#if defined(YK_ARCH_X86_64)
  yk_isa isa;
  yk_isa_detect(&isa);
  if (!isa.avx512) {
    print_message("no AVX-512 on this CPU: yk_frame_rows__avx512 compiled but not run\n");
    skip();
  }
  assert_true(g_avx512_runs > 0);
#else
  print_message("not x86-64: no AVX-512 variant\n");
  skip();
#endif
}

/* Rotated (90 / 180 / 270 clockwise) and mirrored frames read as their upright image: every
 * layout, odd sizes (1-pixel sides, SIMD group and chunk ends), down- and up-scaling, a crop's
 * window and top-left placement, both outputs; each orientation bit-identical to the upright
 * frame in the scalar, dispatched, AVX2, AVX-512 and NEON variants. */
static void test_orientations(void **state) {
  (void)state;
  kt_rng rng = {0x0417};
  static const int sizes[][4] = {{37, 23, 16, 16}, {1, 1, 8, 8}, {2, 9, 15, 17}, {161, 91, 96, 64},
                                 {96, 54, 203, 128}, {5, 3, 31, 17}};
  g_orient = 1;
  for (int fmt = YK_PIX_RGB; fmt <= YK_PIX_GRAY; fmt++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      frame_case fc = {fmt, sizes[s][0], sizes[s][1], sizes[s][2], sizes[s][3], (int)s, (int)(s & 1),
                       (int)(s % 3 != 0), (int)(s == 3), (int)(s == 4), (int)(s == 5), 0,
                       /* top_left */ (int)(s == 2), /* crop */ (int)(s == 3)};
      run_case(&fc, &rng);
    }
  g_orient = 0;
}

/* Saturating colours: extreme Y/U/V combinations clamp instead of wrapping. */
static void test_saturation(void **state) {
  (void)state;
  kt_rng rng = {42};
  for (int full = 0; full < 2; full++) {
    frame_case fc = {YK_PIX_NV12, 9, 7, 9, 7, 0, full, 1, full, 0, 0, 0, 0, 0};
    run_case(&fc, &rng); /* random bytes already reach both ends of every channel */
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_format),
      cmocka_unit_test(test_saturation),
      cmocka_unit_test(test_wide_rows),
      cmocka_unit_test(test_preprocess_params),
      cmocka_unit_test(test_orientations),
      cmocka_unit_test(test_avx512_variant),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
