/* head_run.h — what the C API runners of the head checks (obb_run.c, pose_run.c) share
 * (head_run.c): the model and a session of 2 threads, the letterboxed inputs ort_vs_yolort dump
 * wrote (DIR/<i>.in.f32) run and postprocessed (conf 0.25, IoU 0.45), a line per detection in
 * DIR/<i>.yrt.txt; and --frame: yrt_session_detect on a JPEG as an RGB frame, upright and stored
 * upside down (orientation 180), the deviation of the second's detections from the first's turned
 * back. A runner supplies what its head adds per detection (rotated boxes, keypoints). */
#ifndef YOLORT_TESTS_HEAD_RUN_H
#define YOLORT_TESTS_HEAD_RUN_H

#include <stdio.h>

#include "yolort.h"

#define HEAD_RUN_MAX_DETS 100 /* per frame, --frame */

typedef struct head_run {
  const char *tool; /* its name, in messages and the usage line */
  /* after loading: print the first line (what the model declares); its ctx set up; 0 or 1 */
  int (*hello)(const yrt_model *m, void *ctx);
  /* detection k of the image just postprocessed: its line (without the newline) into out; 0 or 1
   * on an API failure (printed) */
  int (*line)(yrt_session *s, int k, const yrt_detection *d, FILE *out, void *ctx);
  /* after an image of n detections: what must be refused (one past the last, ...); 0 or 1 */
  int (*past)(yrt_session *s, int n, void *ctx);
  /* --frame: the extras of the n detections of frame `which` (0 upright, 1 upside down); 0 or 1 */
  int (*extras)(yrt_session *s, int n, int which, void *ctx);
  /* --frame: how far detection i's extras in frame 1 are from frame 0's turned back (W x H) */
  double (*dev)(int i, double W, double H, void *ctx);
  int need_some; /* --frame: no detection in either frame counts as a deviation */
  void *ctx;
} head_run;

/* The runner's main: TOOL MODEL DIR N, or TOOL MODEL --frame IMAGE.jpg ("oriented N N dev D");
 * exit status 0, 1 on any API failure, 2 on usage. */
int head_run_main(int argc, char **argv, const head_run *h);

#endif
