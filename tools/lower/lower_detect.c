/* lower_detect.c — the fused head nodes of domain "yolort" (rows of the op table, made by the IR
 * passes tools/ir/fuse_*_head.c): DetectDecode (fuse_detect_head.c)
 * -> YRT_OP_DETECT_DECODE, ObjDecode (fuse_obj_head.c) -> YRT_OP_OBJ_DECODE, DetectTopK
 * (fuse_e2e_head.c) -> YRT_OP_DETECT_TOPK, PoseDecode (fuse_pose_head.c) -> YRT_OP_POSE_DECODE,
 * ObbDecode (fuse_obb_head.c) -> YRT_OP_OBB_DECODE.
 * The decodes' logits are read in the form their convs wrote: int8 NHWC stays int8 (the runtime decodes it
 * through tables), float NHWC stays float; nothing is dequantized or transposed first. */
#include <string.h>

#include "lower_internal.h"

/* A logits tensor in the form its conv wrote it: int8 NHWC stays int8, float stays float. */
static int head_input(lw_ctx *c, int irt) {
  const int f32 = c->form[4 * irt + LW_FORM(0, YRT_LAYOUT_NHWC)] >= 0;
  const int i8 = !f32 && c->form[4 * irt + LW_FORM(1, YRT_LAYOUT_NHWC)] >= 0;
  return lw_get(c, irt, i8, YRT_LAYOUT_NHWC);
}

yrt_status lw_lower_detect(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  c->cur = n->name ? n->name : "?";
  if (c->rep) c->rep->n_onnx_nodes++;
  const int ns = (n->n_in - 1) / 2;
  const ir_attr *st = ir_attr_get(n, "strides");
  if (ns < 1 || 2 * ns + 1 != n->n_in || 2 * ns + 1 > YRT_MAX_NODE_IO || !st || st->n_ints != ns)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': malformed DetectDecode", c->cur);
  int in[YRT_MAX_NODE_IO];
  for (int k = 0; k < 2 * ns; k++)
    if ((in[k] = head_input(c, n->in[k])) < 0) return c->status;
  in[2 * ns] = lw_const(c, n->in[2 * ns], 0, YRT_LAYOUT_PLAIN, 1);
  if (in[2 * ns] < 0) return c->status;
  int out = lw_def(c, n->out[0], 0, YRT_LAYOUT_PLAIN);
  if (out < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_DETECT_DECODE, in, 2 * ns + 1, &out, 1);
  if (!nd) return c->status;
  nd->p[YRT_DETECT_P_SCALES] = ns;
  nd->p[YRT_DETECT_P_REG_MAX] = (int32_t)ir_attr_int(n, "reg_max", 0);
  nd->p[YRT_DETECT_P_CLASSES] = (int32_t)ir_attr_int(n, "num_classes", 0);
  nd->p[YRT_DETECT_P_XYXY] = (int32_t)ir_attr_int(n, "xyxy", 0);
  for (int s = 0; s < ns; s++) nd->p[YRT_DETECT_P_STRIDE0 + s] = (int32_t)st->ints[s];
  return YRT_OK;
}

yrt_status lw_lower_obj(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  c->cur = n->name ? n->name : "?";
  if (c->rep) c->rep->n_onnx_nodes++;
  const ir_attr *st = ir_attr_get(n, "strides");
  const int split = (int)ir_attr_int(n, "split", 0), ns = st ? st->n_ints : 0;
  const int n_feat = split ? 2 * ns : ns;
  if (ns < 1 || ns > YRT_OBJ_MAX_SCALES || n->n_in != n_feat + 1 || n_feat + 1 > YRT_MAX_NODE_IO)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': malformed ObjDecode", c->cur);
  int in[YRT_MAX_NODE_IO];
  for (int k = 0; k < n_feat; k++)
    if ((in[k] = head_input(c, n->in[k])) < 0) return c->status;
  if ((in[n_feat] = lw_const(c, n->in[n_feat], 0, YRT_LAYOUT_PLAIN, 1)) < 0) return c->status;
  int out = lw_def(c, n->out[0], 0, YRT_LAYOUT_PLAIN);
  if (out < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_OBJ_DECODE, in, n_feat + 1, &out, 1);
  if (!nd) return c->status;
  nd->p[YRT_OBJ_P_SCALES] = ns;
  nd->p[YRT_OBJ_P_ANCHORS] = (int32_t)ir_attr_int(n, "anchors_per_cell", 0);
  nd->p[YRT_OBJ_P_CLASSES] = (int32_t)ir_attr_int(n, "num_classes", 0);
  nd->p[YRT_OBJ_P_MODE] = (int32_t)ir_attr_int(n, "mode", 0);
  nd->p[YRT_OBJ_P_SPLIT] = split;
  nd->p[YRT_OBJ_P_PER] = (int32_t)ir_attr_int(n, "values_per_anchor", 0); /* 0: 5 + nc */
  for (int s = 0; s < ns; s++) nd->p[YRT_OBJ_P_STRIDE0 + s] = (int32_t)st->ints[s];
  return YRT_OK;
}

yrt_status lw_lower_e2e(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  c->cur = n->name ? n->name : "?";
  if (c->rep) c->rep->n_onnx_nodes++;
  if (n->n_in != 1 || n->n_out != 1) return lw_err(c, YRT_ERR_FORMAT, "node '%s': malformed DetectTopK", c->cur);
  int x = lw_get(c, n->in[0], 0, YRT_LAYOUT_PLAIN);
  if (x < 0) return c->status;
  int y = lw_def(c, n->out[0], 0, YRT_LAYOUT_PLAIN);
  if (y < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_DETECT_TOPK, &x, 1, &y, 1);
  if (!nd) return c->status;
  nd->p[0] = (int32_t)ir_attr_int(n, "nc", 0);
  nd->p[1] = (int32_t)ir_attr_int(n, "k", 0);
  nd->p[2] = (int32_t)ir_attr_int(n, "ne", 0); /* extra rows carried (pose / segment / obb); 0 in older files */
  return YRT_OK;
}

yrt_status lw_lower_pose(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  c->cur = n->name ? n->name : "?";
  if (c->rep) c->rep->n_onnx_nodes++;
  const ir_attr *st = ir_attr_get(n, "strides");
  const int ns = n->n_in - 1; /* the maps, then the detection rows */
  const int form = (int)ir_attr_int(n, "form", YRT_POSE_ULTRALYTICS);
  if (ns < 1 || ns > (form ? YRT_OBJ_MAX_SCALES : 3) || !st || st->n_ints != ns || n->n_out != 1)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': malformed PoseDecode", c->cur);
  int in[YRT_OBJ_MAX_SCALES + 1];
  for (int k = 0; k < ns; k++)
    if ((in[k] = head_input(c, n->in[k])) < 0) return c->status;
  if ((in[ns] = lw_get(c, n->in[ns], 0, YRT_LAYOUT_PLAIN)) < 0) return c->status;
  int out = lw_def(c, n->out[0], 0, YRT_LAYOUT_PLAIN);
  if (out < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_POSE_DECODE, in, ns + 1, &out, 1);
  if (!nd) return c->status;
  nd->p[YRT_POSE_P_SCALES] = ns;
  nd->p[YRT_POSE_P_KPTS] = (int32_t)ir_attr_int(n, "num_keypoints", 0);
  nd->p[YRT_POSE_P_DIMS] = (int32_t)ir_attr_int(n, "dims", 0);
  for (int s = 0; s < ns; s++) nd->p[YRT_POSE_P_STRIDE0 + s] = (int32_t)st->ints[s];
  nd->p[YRT_POSE_P_FORM] = form;
  if (form == YRT_POSE_ANCHOR) { /* a YOLO-Pose head's anchor vectors (fuse_obj_head.c) */
    nd->p[YRT_POSE_P_ANCHORS] = (int32_t)ir_attr_int(n, "anchors_per_cell", 0);
    nd->p[YRT_POSE_P_PER] = (int32_t)ir_attr_int(n, "values_per_anchor", 0);
    nd->p[YRT_POSE_P_FIRST] = (int32_t)ir_attr_int(n, "first_keypoint_value", 0);
  }
  return YRT_OK;
}

yrt_status lw_lower_obb(lw_ctx *c, int ni) {
  const ir_node *n = &c->g->nodes[ni];
  c->cur = n->name ? n->name : "?";
  if (c->rep) c->rep->n_onnx_nodes++;
  const ir_attr *st = ir_attr_get(n, "strides");
  const int ns = n->n_in - 1; /* the angle maps, then the detection rows */
  if (ns < 1 || ns > 3 || !st || st->n_ints != ns || n->n_out != 1)
    return lw_err(c, YRT_ERR_FORMAT, "node '%s': malformed ObbDecode", c->cur);
  int in[4];
  for (int k = 0; k < ns; k++)
    if ((in[k] = head_input(c, n->in[k])) < 0) return c->status;
  if ((in[ns] = lw_get(c, n->in[ns], 0, YRT_LAYOUT_PLAIN)) < 0) return c->status;
  int out = lw_def(c, n->out[0], 0, YRT_LAYOUT_PLAIN);
  if (out < 0) return c->status;
  lw_node *nd = lw_add_node(c, YRT_OP_OBB_DECODE, in, ns + 1, &out, 1);
  if (!nd) return c->status;
  nd->p[YRT_OBB_P_SCALES] = ns;
  for (int s = 0; s < ns; s++) nd->p[YRT_OBB_P_STRIDE0 + s] = (int32_t)st->ints[s];
  nd->p[YRT_OBB_P_FORM] = ir_attr_int(n, "angle_raw", 0) == 1 ? YRT_OBB_RAW : YRT_OBB_SIGMOID;
  return YRT_OK;
}
