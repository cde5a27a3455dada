/* yrt_writer.c — serialise the lowered graph as a .yrt image (yolort_format.h): header, section
 * table, STRINGS, TENSORS, NODES, WEIGHTS (each constant and scale array 64-byte aligned),
 * PLAN, META. The framing (layout, section table, header, CRC) is the format module's
 * (yrt_file_plan / yrt_file_finish in runtime/src/yrt_format.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir_preprocess.h"
#include "lower_internal.h"

static uint64_t align64(uint64_t x) { return (x + 63u) & ~(uint64_t)63u; }

typedef struct strtab {
  char *buf;
  size_t len, cap;
} strtab;

/* Append s (NUL-terminated); returns its offset, or UINT32_MAX on NOMEM. */
static uint32_t str_add(strtab *st, const char *s) {
  if (!s || !*s) return 0; /* offset 0 holds "" */
  size_t n = strlen(s) + 1;
  if (st->len + n > st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 4096;
    while (cap < st->len + n) cap *= 2;
    char *b = realloc(st->buf, cap);
    if (!b) return UINT32_MAX;
    st->buf = b;
    st->cap = cap;
  }
  memcpy(st->buf + st->len, s, n);
  uint32_t off = (uint32_t)st->len;
  st->len += n;
  return off;
}

/* The class count: the fused head's (and its strides), else the metadata names' when output0
 * has room for them, else output0's rows after the 4 box rows less a segment model's mask
 * coefficients (one per channel of output 1, the prototypes). Never more than YRT_MAX_CLASSES. */
uint32_t lw_class_count(const lw_ctx *c, size_t n_names, uint32_t strides[4]) {
  for (int i = 0; i < c->nn; i++) /* an end-to-end output [1, K, 6]: the selection's nc */
    if (c->n_outputs > 0 && c->n[i].op == YRT_OP_DETECT_TOPK && c->n[i].out[0] == c->outputs[0])
      return (uint32_t)c->n[i].p[0];
  for (int i = 0; i < c->nn; i++) {
    const lw_node *n = &c->n[i];
    if (n->op != YRT_OP_DETECT_DECODE) continue;
    for (int s = 0; s < n->p[YRT_DETECT_P_SCALES] && s < 3; s++) strides[s] = (uint32_t)n->p[YRT_DETECT_P_STRIDE0 + s];
    return (uint32_t)n->p[YRT_DETECT_P_CLASSES];
  }
  for (int i = 0; i < c->nn; i++) /* an objectness head's (keypoint rows may follow its scores) */
    if (c->n[i].op == YRT_OP_OBJ_DECODE) return (uint32_t)c->n[i].p[YRT_OBJ_P_CLASSES];
  if (c->n_outputs < 1) return 0;
  const lw_tensor *o = &c->t[c->outputs[0]];
  if (c->g->task && strcmp(c->g->task, "classify") == 0) { /* [1, nc] (lw_classify_recognise) */
    int64_t nc = 1;
    for (int d = 0; d < o->rank; d++) nc *= o->dims[d];
    return nc >= 1 && nc <= YRT_MAX_CLASSES ? (uint32_t)nc : 0;
  }
  if (o->rank != 3 || o->dims[1] <= 4) return 0;
  int64_t rows = o->dims[1] - 4;
  const ir_graph *g = c->g;
  const int segment = g->task && strcmp(g->task, "segment") == 0;
  /* names decide only when the rows are theirs (a segment model without its prototypes output:
   * fewer names than rows); a list of the wrong length made a 1-class file of an 80-class head */
  if (n_names > 0 && ((int64_t)n_names == rows || (segment && (int64_t)n_names < rows)))
    return n_names <= YRT_MAX_CLASSES ? (uint32_t)n_names : 0;
  if (segment && c->n_outputs > 1) {
    const lw_tensor *p = &c->t[c->outputs[1]];
    if (p->rank == 4) rows -= p->layout == YRT_LAYOUT_NHWC ? p->dims[3] : p->dims[1];
  }
  return rows >= 1 && rows <= YRT_MAX_CLASSES ? (uint32_t)rows : 0;
}

/* output0's rows against the class count, as the loader checks them (model_load.c
 * check_meta_classes): 4 + nc, or more for a segment model's mask coefficients. A segment head
 * without its task recorded was decoded with its 32 mask coefficients as classes 80..111. */
static yrt_status check_class_rows(lw_ctx *c, uint32_t nc, uint32_t flags) {
  if (c->n_outputs < 1 || nc == 0 || (flags & YRT_FLAG_END2END)) return YRT_OK;
  const lw_tensor *o = &c->t[c->outputs[0]];
  if (o->rank != 3 || o->dims[0] != 1 || o->dims[1] <= 4 || o->layout == YRT_LAYOUT_NHWC) return YRT_OK;
  const int64_t rows = o->dims[1];
  const int segment = c->g->task && strcmp(c->g->task, "segment") == 0;
  if (segment && rows > 4 + (int64_t)nc && c->n_outputs > 1) {
    /* the rows past the scores are mask coefficients, one per prototype of output1: nothing
     * else is read as masks (the loader checks the same, yrt_segment_check_model) */
    const lw_tensor *p = &c->t[c->outputs[1]];
    const int64_t nm = p->rank != 4 ? -1 : p->layout == YRT_LAYOUT_NHWC ? p->dims[3] : p->dims[1];
    if (rows == 4 + (int64_t)nc + nm) return YRT_OK;
    return lw_err(c, YRT_ERR_UNSUPPORTED,
                  "convert: segment head: output0 '%s' has %lld rows, not 4 + %u classes + %lld mask coefficients "
                  "(one per prototype of output1 '%s'): refused, never read as classes or masks",
                  o->name ? o->name : "?", (long long)rows, (unsigned)nc, (long long)nm, p->name ? p->name : "?");
  }
  if (rows == 4 + (int64_t)nc || (segment && rows > 4 + (int64_t)nc)) return YRT_OK;
  for (int i = 0; i < c->nn; i++) /* an obb model: its rotated decode's angle row follows the scores */
    if (c->n[i].op == YRT_OP_OBB_DECODE && rows == 5 + (int64_t)nc) return YRT_OK;
  for (int i = 0; i < c->nn; i++) /* a pose model: its keypoint decode's rows follow the scores */
    if (c->n[i].op == YRT_OP_POSE_DECODE &&
        rows == 4 + (int64_t)nc + (int64_t)c->n[i].p[YRT_POSE_P_KPTS] * c->n[i].p[YRT_POSE_P_DIMS])
      return YRT_OK;
  return lw_err(c, YRT_ERR_UNSUPPORTED,
                "convert: output0 '%s' has %lld rows, not 4 + %u classes%s", o->name ? o->name : "?",
                (long long)rows, (unsigned)nc,
                segment ? "" : " (rows past the scores, e.g. mask coefficients, need the task 'segment' in the metadata)");
}

yrt_status lw_write(lw_ctx *c, const char *source, uint32_t flags, void **out, size_t *size,
                    uint64_t *weight_bytes) {
  ir_graph *g = c->g;
  strtab st = {0};
  uint32_t *tname = calloc((size_t)c->nt + 1, sizeof(uint32_t));
  uint32_t *nname = calloc((size_t)c->nn + 1, sizeof(uint32_t));
  uint64_t *woff = calloc((size_t)c->nt + 1, sizeof(uint64_t)); /* data offsets */
  uint64_t *soff = calloc((size_t)c->nt + 1, sizeof(uint64_t)); /* scale offsets */
  uint8_t *img = NULL;
  yrt_status ret = YRT_OK;
  if (!tname || !nname || !woff || !soff || str_add(&st, "x") == UINT32_MAX) goto nomem;
  st.len = 0;
  st.buf[st.len++] = '\0';
  for (int i = 0; i < c->nt; i++)
    if ((tname[i] = str_add(&st, c->t[i].name)) == UINT32_MAX) goto nomem;
  for (int i = 0; i < c->nn; i++)
    if ((nname[i] = str_add(&st, c->n[i].name)) == UINT32_MAX) goto nomem;
  uint32_t names_off = str_add(&st, g->class_names ? g->class_names : "");
  uint32_t task_off = str_add(&st, g->task ? g->task : "");
  uint32_t source_off = str_add(&st, source ? source : "onnx");
  if (names_off == UINT32_MAX || source_off == UINT32_MAX) goto nomem;
  /* the preprocessing (ir_graph.pre; unset: the default): META's flags, pad and scale, and the
   * mean / std record after META when they are not 0 / 1 */
  yrt_preprocess pre;
  char pre_msg[160];
  if (ir_preprocess_resolve(&g->pre, &pre, pre_msg, sizeof pre_msg) != 0) {
    ret = lw_err(c, YRT_ERR_UNSUPPORTED, "%s", pre_msg);
    goto done;
  }
  int mean_std = 0;
  for (int k = 0; k < 3; k++) mean_std |= pre.mean[k] != 0.0f || pre.std[k] != 1.0f;

  /* weights layout */
  uint64_t wsz = 0;
  for (int i = 0; i < c->nt; i++) {
    const lw_tensor *t = &c->t[i];
    if (t->kind == YRT_TENSOR_CONST) {
      woff[i] = wsz;
      wsz = align64(wsz + t->nbytes);
    }
    if (t->n_scales > 1) {
      soff[i] = wsz;
      wsz = align64(wsz + 4u * (uint64_t)t->n_scales);
    }
  }
  *weight_bytes = wsz;

  /* file layout (the format module: header, section table, sections in kind order) */
  uint64_t sec_size[YRT_SEC_COUNT_] = {0};
  sec_size[YRT_SEC_STRINGS] = st.len;
  sec_size[YRT_SEC_TENSORS] = sizeof(yrt_tensor_rec) * (uint64_t)c->nt;
  sec_size[YRT_SEC_NODES] = sizeof(yrt_node_rec) * (uint64_t)c->nn;
  sec_size[YRT_SEC_WEIGHTS] = wsz;
  sec_size[YRT_SEC_PLAN] = sizeof(yrt_plan_rec) + 4u * (uint64_t)(c->n_inputs + c->n_outputs);
  sec_size[YRT_SEC_META] = sizeof(yrt_meta_rec) + (mean_std ? sizeof(yrt_meta_norm_rec) : 0);
  yrt_file_layout lay;
  yrt_file_plan(sec_size, &lay);
  const uint64_t *sec_off = lay.offset;
  uint64_t total = lay.total;
  if (posix_memalign((void **)&img, YRT_ALIGN, (size_t)total) != 0 || !img) {
    img = NULL;
    goto nomem;
  }
  memset(img, 0, (size_t)total);
  memcpy(img + sec_off[YRT_SEC_STRINGS], st.buf, st.len);

  uint8_t *wbase = img + sec_off[YRT_SEC_WEIGHTS];
  for (int i = 0; i < c->nt; i++) {
    const lw_tensor *t = &c->t[i];
    yrt_tensor_rec r;
    memset(&r, 0, sizeof r);
    r.name = tname[i];
    r.dtype = t->dtype;
    r.kind = t->kind;
    r.layout = t->layout;
    r.rank = (uint32_t)t->rank;
    for (int k = 0; k < YRT_MAX_RANK; k++) r.dims[k] = k < t->rank ? (int32_t)t->dims[k] : 1;
    r.offset = t->kind == YRT_TENSOR_CONST ? woff[i] : t->offset;
    r.nbytes = t->nbytes;
    r.scale = t->scale;
    r.zero_point = t->zp;
    r.q_axis = (uint32_t)t->q_axis;
    r.n_scales = t->n_scales > 1 ? (uint32_t)t->n_scales : 0;
    r.scales_offset = t->n_scales > 1 ? soff[i] : 0;
    r.view_holder = (uint32_t)t->view_holder;
    r.view_channel = (uint32_t)t->view_ch;
    memcpy(img + sec_off[YRT_SEC_TENSORS] + (size_t)i * sizeof r, &r, sizeof r);
    if (t->kind == YRT_TENSOR_CONST && t->nbytes) memcpy(wbase + woff[i], t->data, t->nbytes);
    if (t->n_scales > 1) memcpy(wbase + soff[i], t->scales, 4u * (size_t)t->n_scales);
  }
  for (int i = 0; i < c->nn; i++) {
    const lw_node *n = &c->n[i];
    yrt_node_rec r;
    memset(&r, 0, sizeof r);
    r.op = n->op;
    r.name = nname[i];
    r.n_in = (uint32_t)n->n_in;
    r.n_out = (uint32_t)n->n_out;
    for (int k = 0; k < YRT_MAX_NODE_IO; k++) {
      r.in[k] = k < n->n_in && n->in[k] >= 0 ? (uint32_t)n->in[k] : YRT_NONE;
      r.out[k] = k < n->n_out && n->out[k] >= 0 ? (uint32_t)n->out[k] : YRT_NONE;
    }
    memcpy(r.p, n->p, sizeof r.p);
    memcpy(r.f, n->f, sizeof r.f);
    memcpy(img + sec_off[YRT_SEC_NODES] + (size_t)i * sizeof r, &r, sizeof r);
  }
  {
    yrt_plan_rec p;
    memset(&p, 0, sizeof p);
    p.arena_bytes = c->arena_bytes;
    p.n_inputs = (uint32_t)c->n_inputs;
    p.n_outputs = (uint32_t)c->n_outputs;
    uint8_t *q = img + sec_off[YRT_SEC_PLAN];
    memcpy(q, &p, sizeof p);
    q += sizeof p;
    for (int i = 0; i < c->n_inputs; i++, q += 4) {
      uint32_t v = (uint32_t)c->inputs[i];
      memcpy(q, &v, 4);
    }
    for (int i = 0; i < c->n_outputs; i++, q += 4) {
      uint32_t v = (uint32_t)c->outputs[i];
      memcpy(q, &v, 4);
    }
  }
  {
    yrt_meta_rec m;
    memset(&m, 0, sizeof m);
    if (c->n_inputs > 0) {
      const lw_tensor *in = &c->t[c->inputs[0]];
      const int nhwc = in->layout == YRT_LAYOUT_NHWC; /* stored NHWC: dims {N, H, W, C} */
      /* Only a float 3-channel input is an RGB image: the letterbox writes H*W*3 floats into it
       * (a 1-channel model overflowed the arena, issue 19). The loader checks the same rule. */
      if (in->rank == 4 && in->dtype == YRT_F32 && in->dims[nhwc ? 3 : 1] == 3) {
        m.input_h = (uint32_t)in->dims[nhwc ? 1 : 2];
        m.input_w = (uint32_t)in->dims[nhwc ? 2 : 3];
      }
    }
    /* What the loader accepts (runtime/src/model_load.c check_meta_input): no image input: 1x1. */
    if (m.input_w == 0 && m.input_h == 0) m.input_w = m.input_h = 1;
    if (m.input_w < 1 || m.input_w > 65536 || m.input_h < 1 || m.input_h > 65536) {
      ret = lw_err(c, YRT_ERR_UNSUPPORTED, "convert: input size %lldx%lld is outside 1..65536",
                   (long long)(int32_t)m.input_w, (long long)(int32_t)m.input_h);
      goto done;
    }
    /* Class names that do not match the class count are dropped (numbered classes). */
    size_t len = g->class_names ? strlen(g->class_names) : 0, n_names = len ? 1 : 0;
    if (len > 0 && g->class_names[len - 1] == '\n') len--;
    for (size_t i = 0; i < len; i++) n_names += g->class_names[i] == '\n';
    m.num_classes = lw_class_count(c, n_names, m.strides);
    if ((ret = check_class_rows(c, m.num_classes, flags)) != YRT_OK) goto done;
    if (!m.strides[0]) {
      m.strides[0] = 8;
      m.strides[1] = 16;
      m.strides[2] = 32;
    }
    m.task = task_off;
    m.class_names = names_off == 0 || n_names == m.num_classes ? names_off : 0;
    m.pad_value = pre.pad;
    m.norm_scale = pre.scale;
    m.preprocess = (pre.bgr ? YRT_PRE_BGR : 0u) | (pre.top_left ? YRT_PRE_TOP_LEFT : 0u) |
                   ((uint32_t)pre.resize << YRT_PRE_RESIZE_SHIFT) | (mean_std ? YRT_PRE_MEAN_STD : 0u);
    if (g->nms.set) { /* the export's own NMS, cut off (cut_graph_nms.c): the model's defaults */
      m.nms_flags = YRT_NMS_SET | (g->nms.class_aware ? 0u : (uint32_t)YRT_NMS_CLASS_AGNOSTIC) |
                    (g->nms.max_det > 0 && g->nms.max_det <= (int)YRT_NMS_MAX_DET_MASK ? (uint32_t)g->nms.max_det : 0u);
      m.nms_iou = g->nms.iou > 0 && g->nms.iou <= 1 ? (float)g->nms.iou : 0.0f;
      m.nms_conf = g->nms.conf >= 0 && g->nms.conf < 1 ? (float)g->nms.conf : 0.0f;
    }
    m.source = source_off;
    memcpy(img + sec_off[YRT_SEC_META], &m, sizeof m);
    if (mean_std) {
      yrt_meta_norm_rec nr;
      memset(&nr, 0, sizeof nr);
      for (int k = 0; k < 3; k++) nr.mean[k] = pre.mean[k], nr.std[k] = pre.std[k];
      memcpy(img + sec_off[YRT_SEC_META] + sizeof m, &nr, sizeof nr);
    }
  }
  yrt_file_finish(img, &lay, flags);
  *out = img;
  *size = (size_t)total;
  img = NULL;
  goto done;
nomem:
  ret = lw_err(c, YRT_ERR_NOMEM, "convert: out of memory writing .yrt");
done:
  free(img);
  free(st.buf);
  free(tname);
  free(nname);
  free(woff);
  free(soff);
  return ret;
}
