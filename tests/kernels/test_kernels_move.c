/* test_kernels_move.c — data movement: slice (Split), transpose, gather, concat, nearest resize
 * (also into a channel slice, through an int8 table), against naive per-element references, for
 * 1- and 4-byte elements. */
#include "kt_common.h"

static int64_t numel(const yk_shape *s) {
  int64_t n = 1;
  for (int k = 0; k < s->rank; k++) n *= s->d[k];
  return n;
}

/* decompose a flat index into a multi-index of shape s */
static void unravel(int64_t i, const yk_shape *s, int64_t *idx) {
  for (int k = s->rank - 1; k >= 0; k--) {
    idx[k] = i % s->d[k];
    i /= s->d[k];
  }
}
static int64_t ravel(const int64_t *idx, const yk_shape *s) {
  int64_t o = 0;
  for (int k = 0; k < s->rank; k++) o = o * s->d[k] + idx[k];
  return o;
}

/* x filled with its own flat index (as int32 or low byte) so misplacements show. */
static void *make_iota(int64_t n, size_t es, size_t skew, void **base) {
  uint8_t *p = kt_alloc((size_t)n * es + 1, skew, base);
  assert_non_null(p);
  for (int64_t i = 0; i < n; i++) {
    if (es == 4) {
      int32_t v = (int32_t)(i * 2654435761u);
      memcpy(p + i * 4, &v, 4);
    } else {
      p[i] = (uint8_t)(i * 131 + 7);
    }
  }
  return p;
}

/* ---------------- slice */
typedef struct scase {
  yk_shape x, y;
  int64_t starts[YK_MAX_RANK], steps[YK_MAX_RANK];
} scase;

static const scase scases[] = {
    /* Split of NHWC along C: [1,5,7,48] -> C 16..47 */
    {{4, {1, 5, 7, 48}}, {4, {1, 5, 7, 32}}, {0, 0, 0, 16}, {1, 1, 1, 1}},
    /* Split halves of YOLO's C2f / C3k2: 8, 16, 32, 64 bytes a pixel, and an odd run */
    {{4, {1, 3, 5, 16}}, {4, {1, 3, 5, 8}}, {0, 0, 0, 8}, {1, 1, 1, 1}},
    {{4, {2, 3, 5, 32}}, {4, {2, 3, 5, 16}}, {0, 0, 0, 0}, {1, 1, 1, 1}},
    {{4, {1, 4, 3, 64}}, {4, {1, 4, 3, 32}}, {0, 0, 0, 32}, {1, 1, 1, 1}},
    {{4, {1, 2, 3, 128}}, {4, {1, 2, 3, 64}}, {0, 0, 0, 64}, {1, 1, 1, 1}},
    {{4, {1, 3, 3, 21}}, {4, {1, 3, 3, 13}}, {0, 0, 0, 5}, {1, 1, 1, 1}},
    /* along H: one run */
    {{4, {1, 6, 7, 9}}, {4, {1, 3, 7, 9}}, {0, 3, 0, 0}, {1, 1, 1, 1}},
    /* full copy */
    {{3, {2, 3, 5}}, {3, {2, 3, 5}}, {0, 0, 0}, {1, 1, 1}},
    /* steps and negative steps */
    {{3, {4, 6, 9}}, {3, {2, 3, 4}}, {1, 5, 0}, {2, -2, 2}},
    {{2, {7, 11}}, {2, {7, 11}}, {6, 10}, {-1, -1}},
    {{3, {3, 8, 5}}, {3, {2, 4, 5}}, {0, 1, 0}, {2, 1, 1}},
    {{1, {33}}, {1, {5}}, {30}, {-7}},
    {{6, {2, 1, 3, 2, 2, 5}}, {6, {1, 1, 2, 2, 1, 3}}, {1, 0, 1, 0, 1, 2}, {1, 1, 1, 1, 1, 1}},
};

static void test_slice(void **state) {
  (void)state;
  for (size_t t = 0; t < sizeof(scases) / sizeof(scases[0]); t++)
    for (size_t es = 1; es <= 4; es += 3) {
      const scase *sc = &scases[t];
      const int64_t ny = numel(&sc->y);
      void *bx, *by, *br;
      uint8_t *x = make_iota(numel(&sc->x), es, 1, &bx);
      uint8_t *y = kt_alloc((size_t)ny * es, 3, &by), *ref = kt_alloc((size_t)ny * es, 0, &br);
      assert_true(y && ref);
      for (int64_t i = 0; i < ny; i++) {
        int64_t idx[YK_MAX_RANK];
        unravel(i, &sc->y, idx);
        for (int k = 0; k < sc->y.rank; k++) idx[k] = sc->starts[k] + idx[k] * sc->steps[k];
        memcpy(ref + i * es, x + ravel(idx, &sc->x) * es, es);
      }
      yk_slice(x, &sc->x, y, &sc->y, sc->starts, sc->steps, es);
      assert_memory_equal(y, ref, (size_t)ny * es);
      free(bx);
      free(by);
      free(br);
    }
}

/* ---------------- transpose */
typedef struct tcase {
  yk_shape x;
  int perm[YK_MAX_RANK];
} tcase;

static const tcase tcases[] = {
    {{4, {1, 17, 9, 33}}, {0, 2, 3, 1}},  /* NCHW -> NHWC */
    {{4, {1, 9, 5, 33}}, {0, 3, 1, 2}},   /* NHWC -> NCHW */
    {{3, {1, 84, 300}}, {0, 2, 1}},       /* head [1,84,A] -> [1,A,84] */
    {{4, {2, 3, 5, 7}}, {3, 2, 1, 0}},
    {{4, {2, 3, 5, 7}}, {1, 0, 2, 3}},    /* inner axes kept: memcpy runs */
    {{5, {2, 1, 3, 4, 5}}, {2, 0, 4, 1, 3}},
    {{6, {2, 3, 1, 2, 3, 2}}, {5, 3, 1, 0, 2, 4}},
    {{2, {1, 1}}, {1, 0}},
    {{1, {37}}, {0}},
    {{4, {1, 4, 16, 70}}, {0, 2, 1, 3}},  /* DFL reshape/transpose */
    {{3, {2, 45, 77}}, {0, 2, 1}},        /* 8x8 byte blocks, partial tiles and edges */
    {{4, {1, 2, 64, 40}}, {0, 1, 3, 2}},  /* attention: whole tiles */
    {{3, {3, 7, 9}}, {0, 2, 1}},          /* one block and edges */
};

static void test_transpose(void **state) {
  (void)state;
  for (size_t t = 0; t < sizeof(tcases) / sizeof(tcases[0]); t++)
    for (size_t es = 1; es <= 4; es += 3) {
      const tcase *tc = &tcases[t];
      const int64_t n = numel(&tc->x);
      yk_shape sy = {tc->x.rank, {0}};
      for (int k = 0; k < sy.rank; k++) sy.d[k] = tc->x.d[tc->perm[k]];
      void *bx, *by, *br;
      uint8_t *x = make_iota(n, es, 2, &bx);
      uint8_t *y = kt_alloc((size_t)n * es, 1, &by), *ref = kt_alloc((size_t)n * es, 0, &br);
      assert_true(y && ref);
      for (int64_t i = 0; i < n; i++) {
        int64_t iy[YK_MAX_RANK], ix[YK_MAX_RANK];
        unravel(i, &sy, iy);
        for (int k = 0; k < sy.rank; k++) ix[tc->perm[k]] = iy[k];
        memcpy(ref + i * es, x + ravel(ix, &tc->x) * es, es);
      }
      yk_transpose(NULL, x, &tc->x, y, tc->perm, es);
      assert_memory_equal(y, ref, (size_t)n * es);
      yk_isa isa;
      yk_isa_detect(&isa);
      memset(y, 0, (size_t)n * es);
      yk_transpose(&isa, x, &tc->x, y, tc->perm, es);
      assert_memory_equal(y, ref, (size_t)n * es);
      free(bx);
      free(by);
      free(br);
    }
}

/* The byte tiles: every variant the CPU has against the scalar one on odd sizes and strides,
 * misaligned, the bytes around the tile untouched. */
static void test_transpose_tiles(void **state) {
  (void)state;
#if YK_ARCH_X86_64
  KT_SKIP_NO_AVX2();
  static const int64_t ms[] = {1, 7, 15, 16, 17, 31, 32, 33, 48, 64};
  kt_rng r = {17};
  for (size_t a = 0; a < sizeof ms / sizeof ms[0]; a++)
    for (size_t b = 0; b < sizeof ms / sizeof ms[0]; b++) {
      const int64_t m = ms[a], n = ms[b], xs = m + (int64_t)(a % 3) * 5, ys = n + (int64_t)(b % 4) * 3;
      void *bx, *by, *bz;
      uint8_t *x = kt_alloc((size_t)(xs * n), a % 7, &bx), *y = kt_alloc((size_t)(ys * m), b % 5, &by);
      uint8_t *z = kt_alloc((size_t)(ys * m), 0, &bz);
      assert_true(x && y && z);
      kt_fill_i8(&r, (int8_t *)x, (size_t)(xs * n));
      memset(y, 0x3C, (size_t)(ys * m));
      memset(z, 0x3C, (size_t)(ys * m));
      yk_transpose_i8_tile__avx2(x, xs, y, ys, m, n);
      yk_transpose_i8_tile__scalar(x, xs, z, ys, m, n);
      assert_memory_equal(y, z, (size_t)(ys * m));
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) assert_int_equal(z[i * ys + j], x[i + j * xs]);
      free(bx), free(by), free(bz);
    }
#else
  skip();
#endif
}

/* The 4-byte tiles: every variant against the scalar one on odd sizes and strides, misaligned
 * by whole elements, NaN / denormal bit patterns moved as bits, the words around the tile
 * untouched. */
static void test_transpose_f32_tiles(void **state) {
  (void)state;
  yk_isa isa_s;
  yk_isa_detect(&isa_s);
  const yk_isa *isa = &isa_s;
  (void)isa; /* the variant rows use it only on x86 */
  const yk_variant all[] = {
#define YK_VARIANT YK_VARIANT_ROW
#include "variants/move.inc"
#undef YK_VARIANT
  };
  yk_variant v[8];
  const size_t nv = kt_variants_of(all, sizeof all / sizeof all[0], "transpose_f32_tile", v);
  static const int64_t ms[] = {1, 3, 7, 8, 9, 15, 16, 17, 33, 80};
  kt_rng r = {29};
  for (size_t a = 0; a < sizeof ms / sizeof ms[0]; a++)
    for (size_t b = 0; b < sizeof ms / sizeof ms[0]; b++) {
      const int64_t m = ms[a], n = ms[b], xs = m + (int64_t)(a % 3) * 5, ys = n + (int64_t)(b % 4) * 3;
      void *bx, *by, *bz;
      uint32_t *x = kt_alloc((size_t)(xs * n) * 4, 4 * (a % 7), &bx), *y = kt_alloc((size_t)(ys * m) * 4, 4 * (b % 5), &by);
      uint32_t *z = kt_alloc((size_t)(ys * m) * 4, 0, &bz);
      assert_true(x && y && z);
      for (int64_t i = 0; i < xs * n; i++) x[i] = kt_u32(&r) ^ (kt_u32(&r) << 16);
      x[0] = 0x7fc01234u; /* a NaN payload */
      x[xs * n - 1] = 0x00000001u; /* a denormal */
      memset(z, 0x3C, (size_t)(ys * m) * 4);
      yk_transpose_f32_tile__scalar(x, xs, z, ys, m, n);
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) assert_int_equal(z[i * ys + j], x[i + j * xs]);
      for (size_t k = 0; k < nv; k++) {
        memset(y, 0x3C, (size_t)(ys * m) * 4);
        ((YK_FN_transpose_f32_tile((*)))v[k].fn)(x, xs, y, ys, m, n);
        assert_memory_equal(y, z, (size_t)(ys * m) * 4);
      }
      free(bx), free(by), free(bz);
    }
}

/* ---------------- gather */
static void test_gather(void **state) {
  (void)state;
  const yk_shape sx = {3, {3, 7, 5}};
  const int32_t idx[] = {0, 6, -1, 3, -7, 2};
  for (int axis = 0; axis < 3; axis++) {
    for (size_t es = 1; es <= 4; es += 3) {
      void *bx, *by;
      uint8_t *x = make_iota(numel(&sx), es, 1, &bx);
      const int64_t dim = sx.d[axis];
      size_t nidx = 0;
      int32_t use[6];
      for (int j = 0; j < 6; j++)
        if (idx[j] < dim && idx[j] >= -dim) use[nidx++] = idx[j];
      yk_shape sy = sx;
      sy.d[axis] = (int64_t)nidx;
      uint8_t *y = kt_alloc((size_t)numel(&sy) * es, 3, &by);
      assert_non_null(y);
      yk_gather(x, &sx, axis, use, nidx, y, es);
      for (int64_t i = 0; i < numel(&sy); i++) {
        int64_t iv[YK_MAX_RANK];
        unravel(i, &sy, iv);
        int64_t v = use[iv[axis]];
        iv[axis] = v < 0 ? v + dim : v;
        assert_memory_equal(y + i * es, x + ravel(iv, &sx) * es, es);
      }
      free(bx);
      free(by);
    }
  }
}

/* ---------------- concat (generic) */
static void test_concat(void **state) {
  (void)state;
  const size_t inner[3] = {4, 0, 9};
  const size_t outer = 5;
  void *b0, *b2, *by;
  float *x0 = make_iota(20, 4, 4, &b0), *x2 = make_iota(45, 4, 8, &b2);
  float *y = kt_alloc(65 * 4, 4, &by);
  assert_non_null(y);
  const void *xs[3] = {x0, NULL, x2};
  yk_concat(xs, inner, 3, outer, y, 4);
  for (size_t o = 0; o < outer; o++) {
    assert_memory_equal(y + o * 13, x0 + o * 4, 16);
    assert_memory_equal(y + o * 13 + 4, x2 + o * 9, 36);
  }
  free(b0);
  free(b2);
  free(by);
}

/* ---------------- resize */
static void test_resize(void **state) {
  (void)state;
  const struct {
    int h, w, c, oh, ow;
    float sh, sw;
  } rc[] = {
      {5, 7, 3, 10, 14, 2.0f, 2.0f}, {4, 4, 33, 12, 8, 3.0f, 2.0f}, {8, 6, 1, 4, 3, 0.5f, 0.5f},
      {3, 5, 2, 4, 7, 1.5f, 1.5f},   {1, 1, 5, 2, 2, 2.0f, 2.0f},
  };
  for (size_t t = 0; t < sizeof(rc) / sizeof(rc[0]); t++)
    for (size_t es = 1; es <= 4; es += 3) {
      const int n = 2, C = rc[t].c;
      void *bx, *by;
      uint8_t *x = make_iota((int64_t)n * rc[t].h * rc[t].w * C, es, 1, &bx);
      const size_t ny = (size_t)n * rc[t].oh * rc[t].ow * C;
      uint8_t *y = kt_alloc(ny * es, 5, &by);
      assert_non_null(y);
      yk_resize_nearest_nhwc(x, n, rc[t].h, rc[t].w, C, y, rc[t].oh, rc[t].ow, rc[t].sh, rc[t].sw, es);
      for (int b = 0; b < n; b++)
        for (int oy = 0; oy < rc[t].oh; oy++)
          for (int ox = 0; ox < rc[t].ow; ox++) {
            int iy = (int)floor(oy / (double)rc[t].sh), ix = (int)floor(ox / (double)rc[t].sw);
            if (iy > rc[t].h - 1) iy = rc[t].h - 1;
            if (ix > rc[t].w - 1) ix = rc[t].w - 1;
            assert_memory_equal(y + (((size_t)b * rc[t].oh + oy) * rc[t].ow + ox) * C * es,
                                x + (((size_t)b * rc[t].h + iy) * rc[t].w + ix) * C * es, C * es);
          }
      free(bx);
      free(by);
    }
}

/* One image's rows into a channel slice of a wider tensor (a Concat's view: pixels ys apart), with
 * and without an int8 table, in two row ranges as two threads would split it; the other channels
 * keep their fill. */
static void test_resize_rows_view_lut(void **state) {
  (void)state;
  yk_isa isa;
  yk_isa_detect(&isa);
  kt_rng r = {0x7e517ULL};
  int8_t lut[256];
  kt_fill_i8(&r, lut, 256);
  const struct {
    int h, w, c, oh, ow, pad;
    float sh, sw;
  } rc[] = {{5, 7, 3, 10, 14, 5, 2.0f, 2.0f}, {4, 4, 128, 8, 8, 64, 2.0f, 2.0f}, {3, 5, 65, 4, 7, 1, 1.5f, 1.5f},
            {8, 6, 17, 4, 3, 0, 0.5f, 0.5f}, {1, 1, 5, 2, 2, 3, 2.0f, 2.0f}};
  for (size_t t = 0; t < sizeof(rc) / sizeof(rc[0]); t++)
    for (int with_lut = 0; with_lut < 2; with_lut++)
      for (int es = 1; es <= 4; es += 3) {
        if (with_lut && es != 1) continue;
        const int C = rc[t].c;
        const size_t ys = (size_t)C + (size_t)rc[t].pad, ny = (size_t)rc[t].oh * rc[t].ow * ys * (size_t)es;
        void *bx, *by;
        uint8_t *x = make_iota((int64_t)rc[t].h * rc[t].w * C, (size_t)es, 3, &bx);
        uint8_t *y = kt_alloc(ny, 1, &by);
        assert_non_null(y);
        memset(y, 0xA5, ny);
        const int mid = rc[t].oh / 2 + 1;
        for (int part = 0; part < 2; part++)
          yk_resize_nearest_nhwc_rows(&isa, x, rc[t].h, rc[t].w, C, y, ys, rc[t].oh, rc[t].ow, rc[t].sh, rc[t].sw,
                                      (size_t)es, with_lut ? lut : NULL, part ? mid : 0, part ? rc[t].oh : mid);
        for (int oy = 0; oy < rc[t].oh; oy++)
          for (int ox = 0; ox < rc[t].ow; ox++) {
            int iy = (int)floor(oy / (double)rc[t].sh), ix = (int)floor(ox / (double)rc[t].sw);
            if (iy > rc[t].h - 1) iy = rc[t].h - 1;
            if (ix > rc[t].w - 1) ix = rc[t].w - 1;
            const uint8_t *o = y + ((size_t)oy * rc[t].ow + ox) * ys * (size_t)es;
            const uint8_t *in = x + ((size_t)iy * rc[t].w + ix) * (size_t)C * (size_t)es;
            for (int k = 0; k < C * es; k++)
              assert_int_equal(o[k], with_lut ? (uint8_t)lut[(int8_t)in[k] + 128] : in[k]);
            for (size_t k = (size_t)C * es; k < ys * (size_t)es; k++) assert_int_equal(o[k], 0xA5);
          }
        free(bx);
        free(by);
      }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slice),  cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_transpose_tiles), cmocka_unit_test(test_transpose_f32_tiles),
      cmocka_unit_test(test_gather),
      cmocka_unit_test(test_concat), cmocka_unit_test(test_resize), cmocka_unit_test(test_resize_rows_view_lut),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
