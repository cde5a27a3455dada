/* class_names.c — class names for yolort-convert --names (class_names.h). */
#include "class_names.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "open_regular.h"

const char *const class_names_coco =
    "person\nbicycle\ncar\nmotorcycle\nairplane\nbus\ntrain\ntruck\nboat\ntraffic light\nfire hydrant\n"
    "stop sign\nparking meter\nbench\nbird\ncat\ndog\nhorse\nsheep\ncow\nelephant\nbear\nzebra\ngiraffe\n"
    "backpack\numbrella\nhandbag\ntie\nsuitcase\nfrisbee\nskis\nsnowboard\nsports ball\nkite\nbaseball bat\n"
    "baseball glove\nskateboard\nsurfboard\ntennis racket\nbottle\nwine glass\ncup\nfork\nknife\nspoon\nbowl\n"
    "banana\napple\nsandwich\norange\nbroccoli\ncarrot\nhot dog\npizza\ndonut\ncake\nchair\ncouch\n"
    "potted plant\nbed\ndining table\ntoilet\ntv\nlaptop\nmouse\nremote\nkeyboard\ncell phone\nmicrowave\n"
    "oven\ntoaster\nsink\nrefrigerator\nbook\nclock\nvase\nscissors\nteddy bear\nhair drier\ntoothbrush";

#define NAME_MAX_BYTES 255 /* one name; a longer line is not a list of names */

__attribute__((format(printf, 3, 4))) static int fail(char *msg, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, cap, fmt, ap);
  va_end(ap);
  return -1;
}

int class_names_load(const char *arg, size_t max, char **out, char *msg, size_t cap) {
  *out = NULL;
  if (strcmp(arg, "coco") == 0) {
    *out = strdup(class_names_coco);
    return *out ? 0 : fail(msg, cap, "--names %s: out of memory", arg);
  }
  yrt_error err = {{0}};
  FILE *f = yrt_fopen_regular(arg, "--names", "r", &err);
  if (!f) {
    snprintf(msg, cap, "%s (want a file of one class name per line, or 'coco')", err.msg);
    return -1;
  }
  size_t n = 0, len = 0, blank_at = 0, line = 0, room = 256;
  char *names = malloc(room), buf[NAME_MAX_BYTES + 3];
  int rc = 0;
  while (names && fgets(buf, sizeof buf, f)) {
    line++;
    size_t k = strlen(buf);
    if (k == sizeof buf - 1 && buf[k - 1] != '\n' && !feof(f)) {
      rc = fail(msg, cap, "--names %s: line %zu is longer than 255 bytes: not a class name", arg, line);
      break;
    }
    char *s = buf;
    if (line == 1 && k >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) s += 3, k -= 3; /* a UTF-8 BOM */
    while (k > 0 && (s[k - 1] == '\n' || s[k - 1] == '\r' || s[k - 1] == ' ' || s[k - 1] == '\t')) s[--k] = '\0';
    while (*s == ' ' || *s == '\t') s++, k--;
    if (k == 0) { /* blank: only at the end */
      if (!blank_at) blank_at = line;
      continue;
    }
    if (blank_at) {
      rc = fail(msg, cap, "--names %s: line %zu is blank (one class name per line, none empty)", arg, blank_at);
      break;
    }
    if (++n > max) {
      rc = fail(msg, cap, "--names %s: more than %zu names", arg, max);
      break;
    }
    if (len + k + 2 > room) {
      char *t = realloc(names, (room = 2 * (len + k + 2)));
      if (!t) {
        free(names);
        names = NULL;
        break;
      }
      names = t;
    }
    if (n > 1) names[len++] = '\n';
    memcpy(names + len, s, k);
    len += k;
  }
  const int err_read = ferror(f);
  fclose(f);
  if (!names) return fail(msg, cap, "--names %s: out of memory", arg);
  if (rc == 0 && err_read) rc = fail(msg, cap, "--names %s: read error", arg);
  if (rc == 0 && n == 0) rc = fail(msg, cap, "--names %s: no names in the file", arg);
  if (rc != 0) {
    free(names);
    return rc;
  }
  names[len] = '\0';
  *out = names;
  return 0;
}
