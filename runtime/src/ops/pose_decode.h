/* pose_decode.h — YRT_OP_POSE_DECODE's row functions (pose_decode.c), for op_table.c. */
#ifndef YOLORT_OPS_POSE_DECODE_H
#define YOLORT_OPS_POSE_DECODE_H

#include "op_def.h"
#include "yk_pose.h"

yrt_status yrt_check_pose_decode(const yrt_node_check *v);
yrt_status yrt_prepare_pose_decode(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_pose_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_pose_decode(yrt_exec *e);
int yrt_pose_decode_keypoints(const yrt_node_rec *n, int *dims);
/* A decode's per-scale maps (pose keypoints, obb angles): in[0..ns) of prepared node e as the
 * kernels read them, strides[k] pixels, an int8 map through its table deq[k] (made here);
 * returns the anchors of all scales (na per cell: a YOLO-Pose head's anchor form, else 1). ns validated on load (at most YK_POSE_MAX_SCALES). */
size_t yrt_decode_maps_prepare(const yrt_model *m, const yrt_exec *e, int ns, int na, const int32_t *strides,
                               yk_pose_scale *s, float (*deq)[256]);

#endif
