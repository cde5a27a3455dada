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
  fprintf(f, "\"%s\":{\"min_ms\":%.4f,\"median_ms\":%.4f,\"p90_ms\":%.4f,\"mean_ms\":%.4f}", key,
          s->min, s->median, s->p90, s->mean);
}

void bench_print_json_model(FILE *f, const bench_model_report *m, int show_convs) {
  fprintf(f, "{\"model\":");
  bench_print_json_string(f, m->path);
  fprintf(f, ",\"model_file_bytes\":%lld,\"converted\":%d,\"yrt_bytes\":%zu,\"weight_bytes\":%zu,"
             "\"arena_bytes\":%zu,\"nodes\":%d,\"int8_nodes\":%d,\"synthetic\":%d,\"load_ms\":%.3f,"
             "\"results\":[",
          m->file_bytes, m->converted, m->yrt_bytes, m->weight_bytes, m->arena_bytes, m->nodes,
          m->int8_nodes, m->synthetic, m->load_ms);
  for (int i = 0; i < m->n_results; i++) {
    const bench_result *r = &m->results[i];
    fprintf(f, "%s{\"width\":%d,\"height\":%d,\"threads\":%d,\"batch\":%d,\"warmup\":%d,\"runs\":%d,"
               "\"session_ms\":%.3f,\"end_to_end\":%d,",
            i ? "," : "", r->size_w, r->size_h, r->threads, r->batch, r->warmup, r->runs,
            r->session_ms, r->has_e2e);
    if (r->frame) fprintf(f, "\"frame\":1,");
    json_stats(f, "inference", &r->infer);
    if (r->has_e2e) {
      fputc(',', f);
      json_stats(f, "pre", &r->pre);
      fputc(',', f);
      json_stats(f, "post", &r->post);
      fputc(',', f);
      json_stats(f, "total", &r->total);
      if (r->classify) fprintf(f, ",\"top1_class\":%d", r->top1);
      else fprintf(f, ",\"detections\":%d", r->n_dets);
    }
    fprintf(f, ",\"per_image_median_ms\":%.4f,\"peak_rss_kb\":%ld,\"vmhwm_kb\":%ld",
            (r->has_e2e ? r->total.median : r->infer.median) / r->batch, r->mem.maxrss_kb,
            r->mem.vmhwm_kb);
    if (r->n_kinds > 0) {
      fprintf(f, ",\"profile_ms\":%.4f,\"profile\":[", r->profile_ms);
      for (int k = 0; k < r->n_kinds; k++) {
        fprintf(f, "%s{\"kind\":", k ? "," : "");
        bench_print_json_string(f, r->kinds[k].kind);
        fprintf(f, ",\"nodes\":%d,\"ms\":%.4f,\"pct\":%.2f}", r->kinds[k].nodes, r->kinds[k].ms,
                r->profile_ms > 0 ? 100.0 * r->kinds[k].ms / r->profile_ms : 0.0);
      }
      fputc(']', f);
    }
    if (r->n_top > 0) {
      fprintf(f, ",\"top\":[");
      for (int k = 0; k < r->n_top; k++) {
        fprintf(f, "%s{\"name\":", k ? "," : "");
        bench_print_json_string(f, r->top[k].name);
        fprintf(f, ",\"kind\":");
        bench_print_json_string(f, r->top[k].kind);
        fprintf(f, ",\"ms\":%.4f}", r->top[k].ms);
      }
      fputc(']', f);
    }
    if (show_convs && r->conv_ms && m->convs) {
      fprintf(f, ",\"convs\":[");
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
      fputc(']', f);
    }
    fputc('}', f);
  }
  fprintf(f, "]}");
}
