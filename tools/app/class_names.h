/* class_names.h — class names for yolort-convert --names: a file of one name per line, or the
 * word "coco" for the 80 COCO names (YOLOv5-Lite, YOLOX and legacy exports carry none). The
 * result is '\n'-separated, as the ONNX metadata's names are kept (ir_graph.class_names) and the
 * .yrt stores them (META class_names). */
#ifndef YOLORT_CLASS_NAMES_H
#define YOLORT_CLASS_NAMES_H

#include <stddef.h>

/* The 80 COCO names in class order, '\n'-separated (no trailing newline). */
extern const char *const class_names_coco;

/* *out = malloc'ed '\n'-separated names of arg ("coco", or a file: one name per line, '\r' and
 * surrounding blanks dropped, blank lines at the end ignored). 0 ok; -1 with a message naming the
 * file and the line (unreadable, empty, a blank or over-long name inside, more than max names). */
int class_names_load(const char *arg, size_t max, char **out, char *msg, size_t cap);

#endif
