/* coco_compare.c — the classes whose AP changes most between two evaluations (see coco_map.h):
 * the failure quantization can cause is one class that vanishes while the mean barely moves. */
#include <math.h>
#include <stdlib.h>

#include "coco_map.h"
#include "text_out.h"

int coco_largest_changes(const coco_eval *a, const coco_eval *b, int by_drop, coco_class_change *out, int k) {
  coco_summary sa, sb;
  if (!out || k <= 0 || coco_eval_summary(a, &sa) || coco_eval_summary(b, &sb) || sa.num_classes != sb.num_classes)
    return 0;
  int n = 0;
  for (int c = 0; c < sa.num_classes; c++) {
    coco_class_stats x, y;
    if (coco_eval_class_stats(a, c, &x) || coco_eval_class_stats(b, c, &y) || x.num_gt <= 0) continue;
    const coco_class_change ch = {c, x.num_gt, x.ap50_95, y.ap50_95, x.ap50, y.ap50};
    const double key = by_drop ? x.ap50_95 - y.ap50_95 : fabs(y.ap50_95 - x.ap50_95);
    if (by_drop && !(key > 0)) continue;
    /* insertion into the k best so far (strictly larger key first: ties keep the lower id) */
    int pos = n < k ? n : k;
    while (pos > 0) {
      const coco_class_change *p = &out[pos - 1];
      const double pk = by_drop ? p->ap_a - p->ap_b : fabs(p->ap_b - p->ap_a);
      if (pk >= key) break;
      pos--;
    }
    if (pos >= k) continue;
    for (int i = (n < k ? n : k - 1); i > pos; i--) out[i] = out[i - 1];
    out[pos] = ch;
    if (n < k) n++;
  }
  return n;
}

void coco_print_changes(FILE *f, const char *title, const coco_eval *a, const coco_eval *b, int by_drop, int k,
                        const char *const *names) {
  coco_class_change *v = malloc(sizeof *v * (size_t)(k > 0 ? k : 1));
  const int n = v ? coco_largest_changes(a, b, by_drop, v, k) : 0;
  fprintf(f, "%s\n", title);
  fprintf(f, "  %-16s %6s %8s %8s %8s %8s %8s\n", "class", "gt", "AP50(A)", "AP50(B)", "AP(A)", "AP(B)", "dAP");
  for (int i = 0; i < n; i++) {
    const char *name = names && names[v[i].class_id] ? names[v[i].class_id] : NULL;
    char id[24];
    if (!name || !*name) {
      snprintf(id, sizeof id, "class%d", v[i].class_id);
      name = id;
    }
    char safe[256]; /* a class name from the model: control bytes escaped before the terminal */
    fprintf(f, "  %-16.16s %6d %8.3f %8.3f %8.3f %8.3f %+8.3f\n", term_escape(name, safe, sizeof safe), v[i].num_gt, v[i].ap50_a, v[i].ap50_b,
            v[i].ap_a, v[i].ap_b, v[i].ap_b - v[i].ap_a);
  }
  if (n == 0) fprintf(f, "  (none)\n");
  free(v);
}
