/* ir_preprocess.h — the converter's view of a model's preprocessing (ir_graph.pre, ir.h): the
 * --preprocess SPEC language, the summary line, and the resolved record the .yrt stores. */
#ifndef YOLORT_IR_PREPROCESS_H
#define YOLORT_IR_PREPROCESS_H

#include <stddef.h>

#include "ir.h"
#include "yolort.h"

/* Parse a yolort-convert --preprocess SPEC: comma-separated words, each at most once per kind,
 *   rgb | bgr                      channel order
 *   scale=1/255 | scale=1 | scale=X  level multiplier (X a positive number, or 1/N)
 *   center | centre | topleft      letterbox placement
 *   letterbox | stretch | crop     resize mode
 *   pad=N                          padding level, an integer 0..255
 *   mean=A:B:C  std=A:B:C          per network channel, after scale (std > 0)
 * Unnamed fields keep the Ultralytics default (RGB, 1/255, centred letterbox, pad 114, mean 0,
 * std 1). Fills *out (set = 1, why = "--preprocess"); on a bad word writes a message naming it
 * into msg and returns -1. */
int ir_preprocess_parse(const char *spec, ir_preprocess *out, char *msg, size_t msg_size);

/* A pre (set or not) as the runtime record: unset fields (set == 0, scale 0, std 0) at their
 * defaults. Returns -1 with a message when it holds a value the runtime refuses. */
int ir_preprocess_resolve(const ir_preprocess *pre, yrt_preprocess *out, char *msg, size_t msg_size);

/* "bgr, scale 1, top-left letterbox, pad 114" (mean / std when not 0 / 1). */
void ir_preprocess_describe(const yrt_preprocess *pp, char *buf, size_t size);

#endif
