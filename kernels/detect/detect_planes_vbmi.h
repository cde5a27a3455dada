/* detect_planes_vbmi.h — a 256-entry float table indexed by int8 (t[q + 128]) looked up for the
 * 4 bytes of each of 16 dwords at once with AVX-512 VBMI: the table as four byte planes, each a
 * 256-byte table through vpermi2b (lut/lut_vbmi.h), so a lookup is exact whatever the values
 * (the table's bits are copied, as the scalar t[q + 128] does); vpermt2b pairs planes 0/1 and 2/3
 * into words ordered so that one vpunpck{l,h}wd per byte position gives the 16 floats of the
 * dwords in order. Used by the detect decode's class scores and DFL (the gathered dword is 4
 * consecutive int8 of one anchor). Include only from *_avx512vbmi.c files. */
#ifndef YOLORT_DETECT_PLANES_VBMI_H
#define YOLORT_DETECT_PLANES_VBMI_H

#include <string.h>

#include "../lut/lut_vbmi.h"

typedef struct yk_planes4 {
  yk_lut4 l[4];
  __m512i lo, hi; /* the word pairings of bytes 0, 1 and of bytes 2, 3 */
} yk_planes4;

/* Output byte p of the word pairing for bytes k0, k0 + 1 of each dword: lane L = p / 16 holds
 * words (byte k0 of dwords 4L..4L+3) then (byte k0 + 1 of them); byte h of a word comes from the
 * first (h = 0) or second (h = 1, + 64) plane; byte k of dword i is byte 4i + k. */
static inline __m512i yk_planes4_pairing(int k0) {
  uint8_t ix[64];
  for (int p = 0; p < 64; p++) {
    const int lane = p / 16, w = (p % 16) / 2, h = p % 2;
    const int k = k0 + w / 4, i = 4 * lane + w % 4;
    ix[p] = (uint8_t)(4 * i + k + 64 * h);
  }
  return _mm512_loadu_si512((const void *)ix);
}

static inline void yk_planes4_init(yk_planes4 *p, const float t[256]) {
  /* plane b, indexed by the raw byte r of q: byte b of t[(int8_t)r + 128] = t[r ^ 0x80] */
  int8_t planes[4][256];
  for (int r = 0; r < 256; r++) {
    uint8_t b[4];
    memcpy(b, &t[r ^ 0x80], 4);
    for (int k = 0; k < 4; k++) planes[k][r] = (int8_t)b[k];
  }
  for (int k = 0; k < 4; k++) p->l[k] = yk_lut4_load(planes[k]);
  p->lo = yk_planes4_pairing(0);
  p->hi = yk_planes4_pairing(2);
}

/* f[k] lane i = t[(int8_t)byte k of dword i of v + 128], k = 0..3. */
static inline void yk_planes4_lookup(const yk_planes4 *p, __m512i v, __m512i f[4]) {
  const __m512i p0 = yk_lut4_lookup(&p->l[0], v), p1 = yk_lut4_lookup(&p->l[1], v);
  const __m512i p2 = yk_lut4_lookup(&p->l[2], v), p3 = yk_lut4_lookup(&p->l[3], v);
  const __m512i w01l = _mm512_permutex2var_epi8(p0, p->lo, p1), w23l = _mm512_permutex2var_epi8(p2, p->lo, p3);
  const __m512i w01h = _mm512_permutex2var_epi8(p0, p->hi, p1), w23h = _mm512_permutex2var_epi8(p2, p->hi, p3);
  f[0] = _mm512_unpacklo_epi16(w01l, w23l);
  f[1] = _mm512_unpackhi_epi16(w01l, w23l);
  f[2] = _mm512_unpacklo_epi16(w01h, w23h);
  f[3] = _mm512_unpackhi_epi16(w01h, w23h);
}

#endif
