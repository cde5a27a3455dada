/* file_list.h — sorted list of the image files in a folder, for the calibration and evaluation
 * tools (deterministic order, so results are reproducible). */
#ifndef YOLORT_FILE_LIST_H
#define YOLORT_FILE_LIST_H

#include "yolort.h"

typedef struct file_list {
  char **paths; /* full paths, sorted by name */
  int n;
} file_list;

/* Files in dir whose name ends in one of the extensions (".jpg", ".jpeg", case-insensitive).
 * An unreadable or empty folder is an error naming it. */
yrt_status file_list_images(const char *dir, file_list *out, yrt_error *err);
void file_list_free(file_list *l);

/* "a/b/c.jpg" -> "c" into out (extension dropped). */
void file_stem(const char *path, char *out, size_t cap);

/* One-line progress bar on stderr ("\r[#####.....] 12/200 label  0:41 elapsed, ETA 1:02"), only
 * when stderr is a tty except for the last call (done == total), which ends the line with the
 * total time. start: progress_clock() when the work began (the ETA is the rate so far). */
double progress_clock(void);
void progress_bar(int done, int total, const char *label, double start);

#endif
