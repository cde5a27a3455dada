/* frame_yuv_simd.h — the x86 YUV row (NV12, NV21, I420) of yk_frame_rows written once over an
 * int32 vector, compiled by frame_rows_avx2.c (8 pixels) and frame_rows_avx512.c (16 pixels),
 * bit-exact to frame_rows_scalar.c: 32-bit gathers fetch both horizontal taps of a pixel, vpmaddwd
 * applies the 11-bit weights exactly, int32 vertical pass and BT.601 conversion; the includer's
 * FV_STORE_RGB(R, G, B, out) interleaves the 0..255 lanes into RGB bytes. Pixels whose 4-byte
 * gathers would leave the row go to FV_YUV_REST (a narrower row).
 * The includer defines FV (__m256i / __m512i), FV_LANES, FV_FN(name), FV_SET1, FV_ZERO, FV_ADD,
 * FV_SUB, FV_MULLO, FV_SRAI, FV_SLLI, FV_SRLI, FV_AND, FV_OR, FV_MAX, FV_MIN (int32), FV_MADD16
 * (vpmaddwd), FV_LOAD (int32 run), FV_LOAD_W16 (int16 run widened), FV_GATHER(row, ofs) (dwords
 * at byte offsets), WB / ONE (the weights' bits and 1.0). No include guard. */
/* (a, b) bytes of each 32-bit lane at byte positions lo, hi -> int16 pair a | b << 16. */
static inline FV FV_FN(pair)(FV g, int lo, int hi) {
  const FV ff = FV_SET1(0xFF);
  const FV a = FV_AND(FV_SRLI(g, 8 * lo), ff);
  const FV b = FV_AND(FV_SRLI(g, 8 * hi), ff);
  return FV_OR(a, FV_SLLI(b, 16));
}

/* Vertical pass of two horizontal results (each < 2^19) with weight wy, rounded to 8 bits. */
static inline FV FV_FN(vert)(FV h0, FV h1, int wy) {
  const FV s = FV_ADD(FV_MULLO(h0, FV_SET1(ONE - wy)), FV_MULLO(h1, FV_SET1(wy)));
  return FV_SRAI(FV_ADD(s, FV_SET1(1 << (2 * WB - 1))), 2 * WB);
}

static inline FV FV_FN(clamp8)(FV v) { return FV_MIN(FV_SRAI(FV_MAX(v, FV_ZERO()), 8), FV_SET1(255)); }

/* Weight pairs (ONE - w, w) of FV_LANES pixels. */
static inline FV FV_FN(weights)(const int16_t *wt) {
  const FV w = FV_LOAD_W16(wt);
  return FV_OR(FV_SUB(FV_SET1(ONE), w), FV_SLLI(w, 16));
}

/* Horizontal pass of taps g (bytes lo, hi of each gathered dword). */
static inline FV FV_FN(hpass)(FV g, int lo, int hi, FV w) { return FV_MADD16(FV_FN(pair)(g, lo, hi), w); }

void FV_FN(yk_frame_row_yuv_)(const yk_frame_row *r, int x, int n, uint8_t *rgb) {
  const yk_frame_job *j = r->j;
  const int cw = (j->src_w + 1) / 2, fmt = j->fmt, i420 = fmt == YK_PIX_I420, full = j->full_range;
  /* 4-byte gathers stay inside the row: luma tap + 3 < src_w, chroma (NV: 2 * tap + 3 < 2 * cw) */
  const int cmax = i420 ? cw - 3 : cw - 1;
  const int L = FV_LANES;
  int i = 0;
  for (; i + L <= n && j->x.ofs[x + i + L - 1] + 3 < j->src_w && j->cx.ofs[x + i + L - 1] < cmax; i += L) {
    const FV ofs = FV_LOAD(j->x.ofs + x + i);
    const FV w = FV_FN(weights)(j->x.wt + x + i);
    const FV h0 = FV_FN(hpass)(FV_GATHER(r->p0, ofs), 0, 1, w);
    /* wy = 0 (the row on a luma row: 1:1, integer downscales): (h0 * ONE + 2^21) >> 22 = (h0 + 2^10) >> 11;
     * a branch, not a select: the second row's gather is skipped */
    FV y;
    if (r->wy == 0)
      y = FV_SRAI(FV_ADD(h0, FV_SET1(1 << (WB - 1))), WB);
    else
      y = FV_FN(vert)(h0, FV_FN(hpass)(FV_GATHER(r->p1, ofs), 0, 1, w), r->wy);
    const FV cofs = FV_LOAD(j->cx.ofs + x + i);
    const FV wc = FV_FN(weights)(j->cx.wt + x + i);
    FV u, v;
    if (i420) {
      u = FV_FN(vert)(FV_FN(hpass)(FV_GATHER(r->u0, cofs), 0, 1, wc), FV_FN(hpass)(FV_GATHER(r->u1, cofs), 0, 1, wc),
                      r->wcy);
      v = FV_FN(vert)(FV_FN(hpass)(FV_GATHER(r->v0, cofs), 0, 1, wc), FV_FN(hpass)(FV_GATHER(r->v1, cofs), 0, 1, wc),
                      r->wcy);
    } else { /* one gather per row holds both chroma channels */
      const FV c2 = FV_ADD(cofs, cofs);
      const FV a0 = FV_GATHER(r->u0, c2), a1 = FV_GATHER(r->u1, c2);
      const FV first = FV_FN(vert)(FV_FN(hpass)(a0, 0, 2, wc), FV_FN(hpass)(a1, 0, 2, wc), r->wcy);
      const FV second = FV_FN(vert)(FV_FN(hpass)(a0, 1, 3, wc), FV_FN(hpass)(a1, 1, 3, wc), r->wcy);
      u = fmt == YK_PIX_NV12 ? first : second;
      v = fmt == YK_PIX_NV12 ? second : first;
    }
    const FV d = FV_SUB(u, FV_SET1(128)), e = FV_SUB(v, FV_SET1(128));
    const FV c = full ? FV_ADD(FV_SLLI(y, 8), FV_SET1(128))
                      : FV_ADD(FV_MULLO(FV_SUB(y, FV_SET1(16)), FV_SET1(298)), FV_SET1(128));
    const FV R = FV_FN(clamp8)(FV_ADD(c, FV_MULLO(e, FV_SET1(full ? 359 : 409))));
    const FV G = FV_FN(clamp8)(
        FV_SUB(FV_SUB(c, FV_MULLO(d, FV_SET1(full ? 88 : 100))), FV_MULLO(e, FV_SET1(full ? 183 : 208))));
    const FV B = FV_FN(clamp8)(FV_ADD(c, FV_MULLO(d, FV_SET1(full ? 454 : 516))));
    /* B, G, R output (j->bgr): the two outer channels trade places */
    FV_STORE_RGB(j->bgr ? B : R, G, j->bgr ? R : B, rgb + 3 * i);
  }
  if (i < n) FV_YUV_REST(r, x + i, n - i, rgb + 3 * i);
}
