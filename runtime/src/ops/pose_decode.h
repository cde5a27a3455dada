/* pose_decode.h — YRT_OP_POSE_DECODE's row functions (pose_decode.c), for op_table.c. */
#ifndef YOLORT_OPS_POSE_DECODE_H
#define YOLORT_OPS_POSE_DECODE_H

#include "op_def.h"
#include "session_par.h"
#include "yk_pose.h"

yrt_status yrt_check_pose_decode(const yrt_node_check *v);
yrt_status yrt_prepare_pose_decode(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_pose_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_pose_decode(yrt_exec *e);
int yrt_pose_decode_keypoints(const yrt_node_rec *n, int *dims);
/* The shape the map decodes (pose keypoints, obb angles) share: their int8 maps' tables, the
 * detection rows whose scores say which anchors can pass, the anchors and their split. */
typedef struct yrt_decode_maps {
  float deq[YK_POSE_MAX_SCALES][256]; /* per int8 map */
  const float *rows;                  /* the detection rows [4 + nc][N], NULL: always every anchor */
  int nc;
  size_t n_anchors, chunk;
} yrt_decode_maps;

/* What a map decode's range function gets: the node, and the score an anchor must pass (NaN:
 * every anchor). */
typedef struct yrt_decode_ctx {
  const yrt_exec *e;
  float conf;
} yrt_decode_ctx;

/* Prepares dm for node e: in[0..ns) as the kernels read them into s[] (strides[k] pixels, an int8
 * map through its table dm->deq[k], na anchors per cell: a YOLO-Pose head's anchor form, else 1),
 * in[ns] as the detection rows when the node has them. ns validated on load (at most
 * YK_POSE_MAX_SCALES). */
void yrt_decode_maps_prepare(yrt_decode_maps *dm, const yrt_session *ses, const yrt_exec *e, int ns, int na,
                             const int32_t *strides, yk_pose_scale *s);
/* Runs fn over the anchors of node e, on the pool when it pays; the conf of yrt_session_detect
 * when the node has the detection rows (only anchors whose best score passes it can become
 * detections: the decode + NMS after it takes exactly these). */
yrt_status yrt_decode_maps_run(const yrt_session *s, const yrt_exec *e, const yrt_decode_maps *dm, yrt_range_fn fn);
/* The load checks they share: map s's stride p[stride_at] and dtype (f32 or i8); the detection
 * rows in[at], f32 [1, 4 + classes, n_anchors]. */
yrt_status yrt_check_decode_map(const yrt_node_check *v, int32_t s, int stride_at);
yrt_status yrt_check_detection_rows(const yrt_node_check *v, int32_t at, int64_t n_anchors);

#endif
