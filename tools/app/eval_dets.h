/* eval_dets.h — yolort-eval's --from-dets mode: COCO mAP from --dets files instead of a model run.
 *
 *   yolort-eval --from-dets A.dets [--from-dets A2.dets ...] [--compare-dets B.dets ...]
 *               [--bootstrap R [--seed S]] [-q]
 *
 * The images of the --from-dets files, in the order given, make side A (one evaluation pooled over
 * runs of different models on different image sets: e.g. a cross-fold, where each image is scored
 * by a model calibrated without it); --compare-dets likewise side B, which must hold the same
 * images in the same order with the same ground truth (coco_dets_check_paired). The report is
 * yolort-eval --compare's: both mAPs, the difference B - A, the classes that changed most, and with
 * --bootstrap the paired bootstrap over the pooled images (coco_map.h). Classes are numbered
 * (a --dets file has no names). */
#ifndef YOLORT_EVAL_DETS_H
#define YOLORT_EVAL_DETS_H

/* 1 when argv asks for this mode (it has a --from-dets argument). */
int eval_dets_requested(int argc, char **argv);
/* The whole mode: parses argv, prints the report; the process exit code (0, 1 error, 2 usage). */
int eval_dets_main(int argc, char **argv);

#endif
