/* bench_report.c — human table and JSON output of yolort-bench (see bench_report.h). */
#include "bench_report.h"

#include <string.h>

static void stats_line(FILE *f, const char *what, const bench_stats *s, int batch) {
  fprintf(f, "    %-22s min %8.2f  median %8.2f  p90 %8.2f ms", what, s->min, s->median, s->p90);
  if (batch > 1) fprintf(f, "   | per image: median %.2f ms", s->median / batch);
  fputc('\n', f);
}

void bench_print_table(FILE *f, const bench_model_report *m, int show_convs) {
  fprintf(f, "model %s%s\n", m->path, m->converted ? " (converted in memory from ONNX)" : "");
  fprintf(f, "  file %lld bytes (.yrt image %zu), weights %zu, arena %zu bytes, %d nodes (%d int8), load %.1f ms\n",
          m->file_bytes, m->yrt_bytes, m->weight_bytes, m->arena_bytes, m->nodes, m->int8_nodes,
          m->load_ms);
  if (m->synthetic) {
    fprintf(f, "  NOTICE: synthetic model (generated weights): timings are real, detections are meaningless\n");
  }
  for (int i = 0; i < m->n_results; i++) {
    const bench_result *r = &m->results[i];
    fprintf(f, "  %dx%d  threads %d  batch %d%s  (%d warm-up + %d runs; session create %.1f ms)\n",
            r->size_w, r->size_h, r->threads, r->batch,
            r->batch > 1 ? " (batch-1 model run B times per iteration; times are per batch)" : "",
            r->warmup, r->runs, r->session_ms);
    if (r->frame && r->classify) {
      stats_line(f, "frame -> top-5 classes", &r->infer, r->batch);
      stats_line(f, "  of which letterbox", &r->pre, r->batch);
      fprintf(f, "    (yrt_session_classify on the decoded frame; letterbox = yrt_session_set_frame alone)\n");
      fprintf(f, "    top-1 class (last frame): %d\n", r->top1);
    } else if (r->has_e2e && r->classify) {
      stats_line(f, "JPEG decode+letterbox", &r->pre, r->batch);
      stats_line(f, "inference", &r->infer, r->batch);
      stats_line(f, "top-5 classes", &r->post, r->batch);
      stats_line(f, "end to end", &r->total, r->batch);
      fprintf(f, "    top-1 class (last image): %d\n", r->top1);
    } else if (r->frame) {
      stats_line(f, "frame -> detections", &r->infer, r->batch);
      stats_line(f, "  of which letterbox", &r->pre, r->batch);
      fprintf(f, "    (yrt_session_detect on the decoded frame; letterbox = yrt_session_set_frame alone)\n");
      fprintf(f, "    detections (last frame): %d\n", r->n_dets);
    } else if (r->has_e2e) {
      stats_line(f, "JPEG decode+letterbox", &r->pre, r->batch);
      stats_line(f, "inference", &r->infer, r->batch);
      stats_line(f, "decode+NMS", &r->post, r->batch);
      stats_line(f, "end to end", &r->total, r->batch);
      fprintf(f, "    detections (last image): %d\n", r->n_dets);
    } else {
      stats_line(f, "inference", &r->infer, r->batch);
    }
    fprintf(f, "    peak RSS %.1f MiB (ru_maxrss), VmHWM %.1f MiB\n", r->mem.maxrss_kb / 1024.0,
            r->mem.vmhwm_kb / 1024.0);
    if (r->n_kinds > 0) {
      fprintf(f, "    profile (mean of %d runs, sum of nodes %.2f ms):\n", r->runs, r->profile_ms);
      fprintf(f, "      %-24s %6s %10s %7s\n", "kind", "nodes", "ms", "%");
      for (int k = 0; k < r->n_kinds; k++) {
        fprintf(f, "      %-24s %6d %10.3f %6.1f%%\n", r->kinds[k].kind, r->kinds[k].nodes,
                r->kinds[k].ms, r->profile_ms > 0 ? 100.0 * r->kinds[k].ms / r->profile_ms : 0.0);
      }
    }
    if (r->n_top > 0) {
      fprintf(f, "    slowest nodes: %-46s %-16s %8s\n", "name", "kind", "ms");
      for (int k = 0; k < r->n_top; k++)
        fprintf(f, "      %-60.60s %-16s %8.3f\n", r->top[k].name, r->top[k].kind, r->top[k].ms);
    }
    if (show_convs && r->conv_ms && m->convs) {
      double macs = 0, ms = 0;
      fprintf(f, "    convs: %-40s %-22s %9s %8s %8s\n", "name", "in->out k/s/g", "MMAC", "ms", "GMAC/s");
      for (int k = 0; k < m->n_convs; k++) {
        const bench_conv *c = &m->convs[k];
        char shape[64];
        snprintf(shape, sizeof shape, "%dx%dx%d->%d %dx%d/%d/%d", c->h, c->w, c->cin, c->cout,
                 c->kh, c->kw, c->sh, c->groups);
        double t = r->conv_ms[k];
        fprintf(f, "      %-46.46s %-22s %9.2f ", c->name, shape, c->macs * 1e-6);
        if (t > 0) {
          fprintf(f, "%8.3f %8.1f\n", t, c->macs / (t * 1e-3) * 1e-9);
          macs += c->macs;
          ms += t;
        } else {
          fprintf(f, "%8s %8s\n", "-", "-");
        }
      }
      if (ms > 0) fprintf(f, "      all matched convs: %.1f MMAC in %.3f ms = %.1f GMAC/s\n", macs * 1e-6, ms, macs / (ms * 1e-3) * 1e-9);
    }
  }
}

void bench_print_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static void json_stats(FILE *f, const char *key, const bench_stats *s) {
  if (!s) { /* not measured in this mode: the key stays, its value null */
    fprintf(f, "\"%s\":null", key);
    return;
  }
  fprintf(f, "\"%s\":{\"min_ms\":%.4f,\"median_ms\":%.4f,\"p90_ms\":%.4f,\"mean_ms\":%.4f}", key,
          s->min, s->median, s->p90, s->mean);
}

static void json_int_or_null(FILE *f, const char *key, int have, long long v) {
  if (have) fprintf(f, ",\"%s\":%lld", key, v);
  else fprintf(f, ",\"%s\":null", key);
}

/* The model's keys, the same in every mode (a table run, --streams). */
static void json_model_head(FILE *f, const bench_model_report *m) {
  fprintf(f, "{\"model\":");
  bench_print_json_string(f, m->path);
  fprintf(f, ",\"model_file_bytes\":%lld,\"converted\":%d,\"yrt_bytes\":%zu,\"weight_bytes\":%zu,"
             "\"arena_bytes\":%zu,\"nodes\":%d,\"int8_nodes\":%d,\"synthetic\":%d,\"load_ms\":%.3f,"
             "\"results\":[",
          m->file_bytes, m->converted, m->yrt_bytes, m->weight_bytes, m->arena_bytes, m->nodes,
          m->int8_nodes, m->synthetic, m->load_ms);
}

void bench_print_json_streams(FILE *f, const bench_model_report *m, int w, int h, int warmup, int runs,
                              const bench_stream_result *r, int n) {
  json_model_head(f, m);
  for (int i = 0; i < n; i++) {
    /* every key a table run writes, null where --streams measures nothing of the kind */
    fprintf(f, "%s{\"mode\":\"streams\",\"width\":%d,\"height\":%d,\"threads\":%d,\"batch\":1,"
               "\"streams\":%d,\"warmup\":%d,\"runs\":%d,\"session_ms\":null,\"end_to_end\":0,\"frame\":0,",
            i ? "," : "", w, h, r[i].threads, r[i].streams, warmup, runs);
    json_stats(f, "inference", &r[i].latency);
    fprintf(f, ",\"pre\":null,\"post\":null,\"total\":null,\"detections\":null,\"top1_class\":null,"
               "\"fps\":%.2f,\"per_image_median_ms\":%.4f,\"peak_rss_kb\":null,\"vmhwm_kb\":null,"
               "\"profile_ms\":null,\"profile\":[],\"top\":[],\"convs\":[]}",
            r[i].fps, r[i].latency.median);
  }
  fprintf(f, "]}");
}

void bench_print_json_model(FILE *f, const bench_model_report *m, int show_convs) {
  json_model_head(f, m);
  for (int i = 0; i < m->n_results; i++) {
    const bench_result *r = &m->results[i];
    /* every key in every mode (null / [] where the mode measures nothing of the kind), so one
     * reader handles a plain, --image, --frame, --profile or --streams run */
    fprintf(f, "%s{\"mode\":\"%s\",\"width\":%d,\"height\":%d,\"threads\":%d,\"batch\":%d,"
               "\"streams\":null,\"warmup\":%d,\"runs\":%d,\"session_ms\":%.3f,\"end_to_end\":%d,\"frame\":%d,",
            i ? "," : "", r->frame ? "frame" : r->has_e2e ? "image" : "inference", r->size_w, r->size_h,
            r->threads, r->batch, r->warmup, r->runs, r->session_ms, r->has_e2e, r->frame ? 1 : 0);
    json_stats(f, "inference", &r->infer);
    fputc(',', f);
    json_stats(f, "pre", r->has_e2e ? &r->pre : NULL);
    fputc(',', f);
    json_stats(f, "post", r->has_e2e ? &r->post : NULL);
    fputc(',', f);
    json_stats(f, "total", r->has_e2e ? &r->total : NULL);
    json_int_or_null(f, "detections", r->has_e2e && !r->classify, r->n_dets);
    json_int_or_null(f, "top1_class", r->has_e2e && r->classify, r->top1);
    const double per_image = (r->has_e2e ? r->total.median : r->infer.median) / r->batch;
    fprintf(f, ",\"fps\":%.2f,\"per_image_median_ms\":%.4f,\"peak_rss_kb\":%ld,\"vmhwm_kb\":%ld",
            per_image > 0 ? 1000.0 / per_image : 0.0, per_image, r->mem.maxrss_kb, r->mem.vmhwm_kb);
    if (r->n_kinds > 0) fprintf(f, ",\"profile_ms\":%.4f", r->profile_ms);
    else fprintf(f, ",\"profile_ms\":null");
    fprintf(f, ",\"profile\":[");
    for (int k = 0; k < r->n_kinds; k++) {
      fprintf(f, "%s{\"kind\":", k ? "," : "");
      bench_print_json_string(f, r->kinds[k].kind);
      fprintf(f, ",\"nodes\":%d,\"ms\":%.4f,\"pct\":%.2f}", r->kinds[k].nodes, r->kinds[k].ms,
              r->profile_ms > 0 ? 100.0 * r->kinds[k].ms / r->profile_ms : 0.0);
    }
    fputc(']', f);
    fprintf(f, ",\"top\":[");
    for (int k = 0; k < r->n_top; k++) {
      fprintf(f, "%s{\"name\":", k ? "," : "");
      bench_print_json_string(f, r->top[k].name);
      fprintf(f, ",\"kind\":");
      bench_print_json_string(f, r->top[k].kind);
      fprintf(f, ",\"ms\":%.4f}", r->top[k].ms);
    }
    fputc(']', f);
    fprintf(f, ",\"convs\":[");
    if (show_convs && r->conv_ms && m->convs) {
      for (int k = 0; k < m->n_convs; k++) {
        const bench_conv *c = &m->convs[k];
        double t = r->conv_ms[k];
        fprintf(f, "%s{\"name\":", k ? "," : "");
        bench_print_json_string(f, c->name);
        fprintf(f, ",\"int8\":%d,\"h\":%d,\"w\":%d,\"cin\":%d,\"cout\":%d,\"k\":%d,\"stride\":%d,"
                   "\"groups\":%d,\"macs\":%.0f,\"ms\":%.4f,\"gmacs\":%.2f}",
                c->int8, c->h, c->w, c->cin, c->cout, c->kh, c->sh, c->groups, c->macs, t,
                t > 0 ? c->macs / (t * 1e-3) * 1e-9 : 0.0);
      }
    }
    fputs("]}", f);
  }
  fprintf(f, "]}");
}
