/* model_validate_views.c — tensor views (yrt_tensor_rec.view_holder): each view lies inside its
 * holder with the holder's layout, dtype and quantization, and only nodes whose kernels take a
 * pixel stride touch one: int8 CONV2D with groups 1 reads (input 0) and writes views, an int8
 * BINARY on same-shape [1, H, W, C] tensors reads and writes them (yk_binary_i8_pixels), an int8
 * RESIZE_NEAREST of batch 1 writes them (a Concat's upsampled input), SLICE
 * reads them (the session slices the holder instead) or is an in-place no-op, and a CONCAT reads
 * the views of its own output at their slots (nothing to copy). Everything else sees dense
 * tensors. */
#include "model_internal.h"
#include "op_def.h"

static yrt_status check_view_tensor(const yrt_model *m, uint32_t i, yrt_error *err) {
  const yrt_tensor_rec *t = &m->tensors[i];
  const char *name = yrt_model_string(m, t->name);
  if (!t->view_holder) {
    if (t->view_channel != 0)
      return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': view_channel %u without a holder",
                           (unsigned)i, name, (unsigned)t->view_channel);
    return YRT_OK;
  }
  const uint32_t hi = t->view_holder - 1;
  if (hi >= m->n_tensors || hi == i)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': view holder %u is not another tensor",
                         (unsigned)i, name, (unsigned)hi);
  const yrt_tensor_rec *h = &m->tensors[hi];
  if (t->kind != YRT_TENSOR_ACT || h->kind != YRT_TENSOR_ACT || h->view_holder)
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "yrt: tensor %u '%s': a view and its holder %u must be activations, the holder "
                         "not itself a view",
                         (unsigned)i, name, (unsigned)hi);
  if (t->dtype != YRT_I8 || h->dtype != YRT_I8 || t->layout != YRT_LAYOUT_NHWC || h->layout != YRT_LAYOUT_NHWC)
    return yrt_set_error(err, YRT_ERR_UNSUPPORTED, "yrt: tensor %u '%s': views are int8 NHWC only", (unsigned)i,
                         name);
  if (t->scale != h->scale || t->zero_point != h->zero_point || t->n_scales > 1 || h->n_scales > 1)
    return yrt_set_error(err, YRT_ERR_FORMAT, "yrt: tensor %u '%s': quantization differs from its holder %u",
                         (unsigned)i, name, (unsigned)hi);
  for (int d = 0; d < 3; d++)
    if (t->dims[d] != h->dims[d])
      return yrt_set_error(err, YRT_ERR_SHAPE, "yrt: tensor %u '%s': dim %d is %d, holder %u has %d", (unsigned)i,
                           name, d, (int)t->dims[d], (unsigned)hi, (int)h->dims[d]);
  /* dims are validated <= 2^24, so the sum cannot wrap */
  if ((uint64_t)t->view_channel + (uint64_t)t->dims[3] > (uint64_t)h->dims[3] ||
      t->offset != h->offset + t->view_channel)
    return yrt_set_error(err, YRT_ERR_FORMAT,
                         "yrt: tensor %u '%s': channels [%u, +%d) at offset %llu do not lie in holder %u "
                         "(%d channels at %llu)",
                         (unsigned)i, name, (unsigned)t->view_channel, (int)t->dims[3],
                         (unsigned long long)t->offset, (unsigned)hi, (int)h->dims[3],
                         (unsigned long long)h->offset);
  return YRT_OK;
}

static yrt_status check_view_node(const yrt_model *m, uint32_t i, yrt_error *err) {
  const yrt_node_rec *n = &m->nodes[i];
  const char *name = yrt_model_string(m, n->name);
  const yrt_op_def *d = yrt_op_lookup(m->ops, n->op); /* each kind says which views it takes */
  for (uint32_t k = 0; k < n->n_in; k++) {
    if (n->in[k] == YRT_NONE || !yrt_is_view(&m->tensors[n->in[k]])) continue;
    if (!d || !d->view_in || !d->view_in(m, n, k))
      return yrt_set_error(err, YRT_ERR_FORMAT,
                           "yrt: node %u '%.64s' reads view tensor %u as input %u: only int8 convs (groups "
                           "1), same-shape int8 binaries, slices and the holder's own concat read views",
                           (unsigned)i, name, (unsigned)n->in[k], (unsigned)k);
  }
  if (!yrt_is_view(&m->tensors[n->out[0]])) return YRT_OK;
  if (d && d->view_out && d->view_out(m, n)) return YRT_OK;
  return yrt_set_error(err, YRT_ERR_FORMAT,
                       "yrt: node %u '%.64s' writes view tensor %u: only int8 convs (groups 1, not reading "
                       "the same holder), same-shape int8 binaries, int8 nearest resizes of batch 1 and "
                       "in-place slices write views",
                       (unsigned)i, name, (unsigned)n->out[0]);
}

yrt_status yrt_validate_views(const yrt_model *m, yrt_error *err) {
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    yrt_status st = check_view_tensor(m, i, err);
    if (st != YRT_OK) return st;
  }
  for (uint32_t i = 0; i < m->n_nodes; i++) {
    yrt_status st = check_view_node(m, i, err);
    if (st != YRT_OK) return st;
  }
  return YRT_OK;
}
