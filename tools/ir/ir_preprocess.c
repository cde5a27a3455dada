/* ir_preprocess.c — --preprocess SPEC parsing, resolution to the runtime record, description
 * (ir_preprocess.h). */
#include "ir_preprocess.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *msg, size_t n, const char *fmt, const char *word) {
  if (msg && n) snprintf(msg, n, fmt, word);
  return -1;
}

/* A positive finite number, or 1/N. */
static int parse_scale(const char *s, float *out) {
  char *end;
  double v;
  if (strncmp(s, "1/", 2) == 0) {
    double d = strtod(s + 2, &end);
    if (end == s + 2 || *end || !(d > 0) || !isfinite(d)) return -1;
    v = 1.0 / d;
  } else {
    v = strtod(s, &end);
    if (end == s || *end) return -1;
  }
  if (!(v > 0) || !isfinite(v) || !isfinite((float)v) || (float)v <= 0.0f) return -1;
  *out = (float)v;
  return 0;
}

/* A:B:C of finite numbers. */
static int parse_triple(const char *s, float v[3]) {
  for (int c = 0; c < 3; c++) {
    char *end;
    double d = strtod(s, &end);
    if (end == s || !isfinite(d) || !isfinite((float)d)) return -1;
    v[c] = (float)d;
    if (c < 2 && *end != ':') return -1;
    if (c == 2 && *end) return -1;
    s = end + 1;
  }
  return 0;
}

int ir_preprocess_parse(const char *spec, ir_preprocess *out, char *msg, size_t msg_size) {
  ir_preprocess p;
  memset(&p, 0, sizeof p);
  p.scale = 1.0f / 255.0f;
  p.pad = 114.0f;
  for (int c = 0; c < 3; c++) p.std[c] = 1.0f;
  if (!spec || !*spec) return fail(msg, msg_size, "--preprocess: empty SPEC%s", "");
  char buf[512];
  if (strlen(spec) >= sizeof buf) return fail(msg, msg_size, "--preprocess: SPEC longer than 511 characters%s", "");
  strcpy(buf, spec);
  /* each kind of word at most once: order, scale, placement, mode, pad, mean, std */
  int seen[7] = {0};
  for (char *w = buf, *next; w; w = next) {
    next = strchr(w, ',');
    if (next) *next++ = '\0';
    int kind;
    if (!strcmp(w, "rgb") || !strcmp(w, "bgr")) {
      kind = 0;
      p.bgr = w[0] == 'b';
    } else if (!strncmp(w, "scale=", 6)) {
      kind = 1;
      if (parse_scale(w + 6, &p.scale))
        return fail(msg, msg_size, "--preprocess: '%s': scale is a positive number or 1/N (1/255, 1)", w);
    } else if (!strcmp(w, "center") || !strcmp(w, "centre") || !strcmp(w, "topleft") || !strcmp(w, "top-left")) {
      kind = 2;
      p.top_left = w[0] == 't';
    } else if (!strcmp(w, "letterbox") || !strcmp(w, "stretch") || !strcmp(w, "crop")) {
      kind = 3;
      p.resize = w[0] == 'l' ? IR_RESIZE_LETTERBOX : w[0] == 's' ? IR_RESIZE_STRETCH : IR_RESIZE_CROP;
    } else if (!strncmp(w, "pad=", 4)) {
      kind = 4;
      char *end;
      long v = strtol(w + 4, &end, 10);
      if (end == w + 4 || *end || v < 0 || v > 255)
        return fail(msg, msg_size, "--preprocess: '%s': pad is an integer level 0..255", w);
      p.pad = (float)v;
    } else if (!strncmp(w, "mean=", 5)) {
      kind = 5;
      if (parse_triple(w + 5, p.mean))
        return fail(msg, msg_size, "--preprocess: '%s': mean is three finite numbers A:B:C", w);
    } else if (!strncmp(w, "std=", 4)) {
      kind = 6;
      if (parse_triple(w + 4, p.std) || !(p.std[0] > 0) || !(p.std[1] > 0) || !(p.std[2] > 0))
        return fail(msg, msg_size, "--preprocess: '%s': std is three positive numbers A:B:C", w);
    } else {
      return fail(msg, msg_size,
                  "--preprocess: unknown word '%s' (rgb, bgr, scale=X, center, topleft, letterbox, stretch, crop, "
                  "pad=N, mean=A:B:C, std=A:B:C)",
                  w);
    }
    if (seen[kind]++) return fail(msg, msg_size, "--preprocess: '%s' contradicts or repeats an earlier word", w);
  }
  p.set = 1;
  snprintf(p.why, sizeof p.why, "--preprocess");
  *out = p;
  return 0;
}

int ir_preprocess_resolve(const ir_preprocess *pre, yrt_preprocess *out, char *msg, size_t msg_size) {
  yrt_preprocess_default(out);
  if (!pre->set) return 0;
  out->bgr = pre->bgr != 0;
  out->top_left = pre->top_left != 0;
  out->resize = pre->resize;
  out->pad = pre->pad;
  if (pre->scale != 0.0f) out->scale = pre->scale;
  for (int c = 0; c < 3; c++) {
    out->mean[c] = pre->mean[c];
    if (pre->std[c] != 0.0f) out->std[c] = pre->std[c]; /* 0: not decided, 1 */
  }
  char what[64] = "";
  if (out->resize < IR_RESIZE_LETTERBOX || out->resize > IR_RESIZE_CROP) snprintf(what, sizeof what, "resize mode %d", out->resize);
  else if (!(out->pad >= 0.0f && out->pad <= 255.0f) || out->pad != floorf(out->pad)) snprintf(what, sizeof what, "pad %g", (double)out->pad);
  else if (!isfinite(out->scale) || !(out->scale > 0.0f)) snprintf(what, sizeof what, "scale %g", (double)out->scale);
  for (int c = 0; c < 3 && !what[0]; c++)
    if (!isfinite(out->mean[c]) || !isfinite(out->std[c]) || !(out->std[c] > 0.0f))
      snprintf(what, sizeof what, "mean/std[%d] %g/%g", c, (double)out->mean[c], (double)out->std[c]);
  if (what[0]) {
    if (msg && msg_size) snprintf(msg, msg_size, "convert: preprocessing (%s) has %s", pre->why[0] ? pre->why : "?", what);
    return -1;
  }
  return 0;
}

void ir_preprocess_describe(const yrt_preprocess *pp, char *buf, size_t size) {
  char scale[32];
  if (pp->scale == 1.0f / 255.0f) snprintf(scale, sizeof scale, "1/255");
  else snprintf(scale, sizeof scale, "%g", (double)pp->scale);
  const char *mode = pp->resize == YRT_RESIZE_STRETCH ? "stretch"
                     : pp->resize == YRT_RESIZE_CROP  ? "shorter side + centre crop"
                     : pp->top_left                   ? "top-left letterbox"
                                                      : "centred letterbox";
  int n = snprintf(buf, size, "%s, scale %s, %s, pad %d", pp->bgr ? "BGR" : "RGB", scale, mode, (int)pp->pad);
  if (n < 0 || (size_t)n >= size) return;
  if (pp->mean[0] != 0.0f || pp->mean[1] != 0.0f || pp->mean[2] != 0.0f || pp->std[0] != 1.0f || pp->std[1] != 1.0f ||
      pp->std[2] != 1.0f)
    snprintf(buf + n, size - (size_t)n, ", mean %g:%g:%g, std %g:%g:%g", (double)pp->mean[0], (double)pp->mean[1],
             (double)pp->mean[2], (double)pp->std[0], (double)pp->std[1], (double)pp->std[2]);
}
