/* api_seq.h — sequences of the public session calls, read from bytes, checked against fresh
 * sessions (issue 40 item 1: "every sequence of the public calls must give the same result as a
 * fresh session"). One interpreter, two drivers: test_api_property.c feeds it seeded random bytes
 * (Release and sanitizer runs), tests/fuzz/fuzz_api_sequence.c feeds it libFuzzer's.
 *
 * The calls: yrt_session_set_frame (five frames of different formats, sizes, strides and crops;
 * refused frames; frames whose every field comes from the bytes, in buffers of exactly the bytes
 * the documented geometry needs), yrt_session_set_input (two inputs; refused counts and indices),
 * yrt_session_run, yrt_session_detect, yrt_session_cancel on the same thread, and a cancel racing
 * a run from a second thread. The state the checks follow: the input in effect (none, a known one,
 * or an unknown one after a hostile frame was accepted: nothing to compare until the next known
 * input) and whether a cancel is pending (no, yes, maybe after a race). Every run's outputs and
 * every detect's detections with a known input must equal, bit for bit, those of a fresh
 * single-threaded session given that input once. */
#ifndef YOLORT_API_SEQ_H
#define YOLORT_API_SEQ_H

#include <stddef.h>
#include <stdint.h>

#include "rel_models.h"
#include "yolort.h"

#define SEQ_FRAMES 5
#define SEQ_FLOATS 2
#define SEQ_INPUTS (SEQ_FRAMES + SEQ_FLOATS) /* ids: frames, then float inputs */
#define SEQ_MAX_OUT 4
#define SEQ_MAX_DETS 64

typedef struct seq_outs {
  int n;
  size_t count[SEQ_MAX_OUT];
  float *data[SEQ_MAX_OUT];
} seq_outs;

typedef struct seq_dets {
  int n;
  yrt_detection d[SEQ_MAX_DETS];
} seq_dets;

/* One model and what fresh sessions computed on it (read-only once made). */
typedef struct seq_world {
  yrt_model *m;
  const char *name;
  size_t nin;
  yrt_frame frame[SEQ_FRAMES];
  uint8_t *pixels[SEQ_FRAMES];
  float *x[SEQ_FLOATS];
  seq_outs ref[SEQ_INPUTS + 1]; /* [SEQ_INPUTS]: no input ever set (the zeroed arena) */
  seq_dets ref_det[SEQ_FRAMES];
} seq_world;

/* Builds the model of kind (rel_models.c) and the references; on error *w is freed. */
yrt_status seq_world_make(seq_world *w, rel_model_kind kind, yrt_error *err);
void seq_world_free(seq_world *w);

/* Runs the calls bytes[0..n) encode on a new session of `threads` threads (2: a pool, taken as
 * given even on one CPU). 0 when every check held; -1 with why, followed by the last calls, in
 * msg. */
int seq_run(const seq_world *w, int threads, const uint8_t *bytes, size_t n, char *msg, size_t cap);

#endif
