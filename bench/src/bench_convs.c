/* bench_convs.c — list the conv layers of a .yrt from its raw records (see bench_convs.h). */
#include "bench_convs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "yolort_format.h"

/* The image's sections through the format module (header, CRC and section table checked). */
static int find_sections(const void *data, size_t size, yrt_file_view *v, char *msg, size_t cap) {
  yrt_error err;
  if (yrt_file_open(data, size, v, &err) != YRT_OK) {
    snprintf(msg, cap, "%s", err.msg);
    return -1;
  }
  return 0;
}

static void copy_string(const yrt_file_view *v, uint32_t off, char *dst, size_t cap) {
  dst[0] = '\0';
  if (!v->strings || off >= v->strings_size) return;
  size_t i = 0;
  while (i + 1 < cap && off + i < v->strings_size && v->strings[off + i]) {
    char ch = (char)v->strings[off + i];
    dst[i++] = (ch == ' ' || ch == '\t' || ch == '\n') ? '_' : ch; /* one token in text form */
  }
  dst[i] = '\0';
}

static int get_tensor(const yrt_file_view *v, uint32_t id, yrt_tensor_rec *t) {
  if (id >= v->n_tensors) return -1;
  yrt_file_tensor(v, id, t); /* any version's record, widened */
  return 0;
}

int bench_yrt_convs(const void *data, size_t size, bench_conv **out, int *n, char *msg,
                    size_t cap) {
  yrt_file_view v;
  *out = NULL;
  *n = 0;
  if (find_sections(data, size, &v, msg, cap) != 0) return -1;
  bench_conv *list = calloc(v.n_nodes ? v.n_nodes : 1, sizeof *list);
  if (!list) {
    snprintf(msg, cap, ".yrt: out of memory for %u nodes", (unsigned)v.n_nodes);
    return -1;
  }
  int count = 0;
  for (size_t i = 0; i < (size_t)v.n_nodes; i++) {
    yrt_node_rec nd;
    memcpy(&nd, v.nodes + i, sizeof nd);
    if (nd.op != YRT_OP_CONV2D) continue;
    yrt_tensor_rec x, w, y;
    if (nd.n_in < 2 || nd.n_out < 1 || get_tensor(&v, nd.in[0], &x) || get_tensor(&v, nd.in[1], &w) ||
        get_tensor(&v, nd.out[0], &y) || x.rank != 4 || w.rank != 4 || y.rank != 4) {
      snprintf(msg, cap, ".yrt: conv node %zu has bad inputs/outputs", i);
      free(list);
      return -1;
    }
    bench_conv *c = &list[count++];
    copy_string(&v, nd.name, c->name, sizeof c->name);
    if (!c->name[0]) snprintf(c->name, sizeof c->name, "node%zu", i);
    c->node = (int)i;
    c->int8 = y.dtype == YRT_I8;
    c->n = x.dims[0];
    c->h = x.dims[1];
    c->w = x.dims[2];
    c->cin = x.dims[3];
    c->ho = y.dims[1];
    c->wo = y.dims[2];
    c->cout = y.dims[3];
    c->kh = nd.p[YRT_CONV_P_KH];
    c->kw = nd.p[YRT_CONV_P_KW];
    c->sh = nd.p[YRT_CONV_P_SH];
    c->sw = nd.p[YRT_CONV_P_SW];
    c->pt = nd.p[YRT_CONV_P_PAD_T];
    c->pl = nd.p[YRT_CONV_P_PAD_L];
    c->pb = nd.p[YRT_CONV_P_PAD_B];
    c->pr = nd.p[YRT_CONV_P_PAD_R];
    c->dh = nd.p[YRT_CONV_P_DH];
    c->dw = nd.p[YRT_CONV_P_DW];
    c->groups = nd.p[YRT_CONV_P_GROUPS] > 0 ? nd.p[YRT_CONV_P_GROUPS] : 1;
    c->macs = (double)c->n * c->ho * c->wo * c->cout * c->kh * c->kw * ((double)c->cin / c->groups);
  }
  *out = list;
  *n = count;
  return 0;
}

void bench_convs_write(FILE *f, const bench_conv *c, int n) {
  fprintf(f, "# name node int8 n h w cin ho wo cout kh kw sh sw pt pl pb pr dh dw groups\n");
  for (int i = 0; i < n; i++) {
    fprintf(f, "%s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d\n", c[i].name,
            c[i].node, c[i].int8, c[i].n, c[i].h, c[i].w, c[i].cin, c[i].ho, c[i].wo, c[i].cout,
            c[i].kh, c[i].kw, c[i].sh, c[i].sw, c[i].pt, c[i].pl, c[i].pb, c[i].pr, c[i].dh,
            c[i].dw, c[i].groups);
  }
}

static int read_text(FILE *f, const char *path, bench_conv **out, int *n, char *msg, size_t cap) {
  int alloc = 64, count = 0;
  bench_conv *list = calloc((size_t)alloc, sizeof *list);
  if (!list) {
    snprintf(msg, cap, "%s: out of memory", path);
    return -1;
  }
  char line[512];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '#' || line[0] == '\n') continue;
    if (count == alloc) {
      bench_conv *grown = realloc(list, (size_t)alloc * 2 * sizeof *list);
      if (!grown) {
        free(list);
        snprintf(msg, cap, "%s: out of memory", path);
        return -1;
      }
      list = grown;
      alloc *= 2;
    }
    bench_conv *c = &list[count];
    memset(c, 0, sizeof *c);
    int k = sscanf(line, "%127s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d",
                   c->name, &c->node, &c->int8, &c->n, &c->h, &c->w, &c->cin, &c->ho, &c->wo,
                   &c->cout, &c->kh, &c->kw, &c->sh, &c->sw, &c->pt, &c->pl, &c->pb, &c->pr,
                   &c->dh, &c->dw, &c->groups);
    if (k != 21 || c->n < 1 || c->h < 1 || c->w < 1 || c->cin < 1 || c->cout < 1 || c->kh < 1 ||
        c->kw < 1 || c->sh < 1 || c->sw < 1 || c->dh < 1 || c->dw < 1 || c->groups < 1 ||
        c->ho < 1 || c->wo < 1 || c->cin % c->groups || c->cout % c->groups) {
      snprintf(msg, cap, "%s:%d: expected 21 valid fields (see the # header)", path, lineno);
      free(list);
      return -1;
    }
    c->macs = (double)c->n * c->ho * c->wo * c->cout * c->kh * c->kw * ((double)c->cin / c->groups);
    count++;
  }
  *out = list;
  *n = count;
  return 0;
}

int bench_convs_load(const char *path, bench_conv **out, int *n, char *msg, size_t cap) {
  void *data;
  size_t size;
  *out = NULL;
  *n = 0;
  if (bench_read_file(path, &data, &size, msg, cap) != 0) return -1;
  uint32_t magic = 0;
  if (size >= 4) memcpy(&magic, data, 4);
  int rc;
  if (magic == YRT_MAGIC) {
    rc = bench_yrt_convs(data, size, out, n, msg, cap);
  } else {
    FILE *f = fmemopen(data, size, "r");
    if (!f) {
      snprintf(msg, cap, "%s: cannot read as text", path);
      rc = -1;
    } else {
      rc = read_text(f, path, out, n, msg, cap);
      fclose(f);
    }
  }
  free(data);
  return rc;
}
