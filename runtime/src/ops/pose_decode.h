/* pose_decode.h — YRT_OP_POSE_DECODE's row functions (pose_decode.c), for op_table.c. */
#ifndef YOLORT_OPS_POSE_DECODE_H
#define YOLORT_OPS_POSE_DECODE_H

#include "op_def.h"

yrt_status yrt_check_pose_decode(const yrt_node_check *v);
yrt_status yrt_prepare_pose_decode(yrt_session *s, yrt_exec *e, yrt_error *err);
yrt_status yrt_run_pose_decode(const yrt_session *s, const yrt_exec *e, yrt_error *err);
void yrt_release_pose_decode(yrt_exec *e);
int yrt_pose_decode_keypoints(const yrt_node_rec *n, int *dims);

#endif
