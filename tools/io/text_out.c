/* text_out.c — see text_out.h. */
#include "text_out.h"

#include <math.h>
#include <string.h>

int utf8_seq_len(const unsigned char *p) {
  const unsigned c = p[0];
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0)) return 0; /* overlong, surrogate */
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if ((p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
    if ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90)) return 0; /* overlong, > U+10FFFF */
    return 4;
  }
  return 0;
}

void json_put_string(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    const int n = utf8_seq_len(p);
    if (n == 0) {
      fputs("\\ufffd", f);
      p++;
    } else if (*p == '"' || *p == '\\') {
      fputc('\\', f);
      fputc(*p++, f);
    } else if (*p < 0x20 || *p == 0x7f) {
      fprintf(f, "\\u%04x", *p++);
    } else {
      fwrite(p, 1, (size_t)n, f);
      p += n;
    }
  }
  fputc('"', f);
}

void json_put_number(FILE *f, const char *fmt, double v) {
  if (!isfinite(v)) fputs("null", f);
  else fprintf(f, fmt, v);
}

const char *term_escape(const char *s, char *buf, size_t cap) {
  if (!buf || cap == 0) return "";
  size_t o = 0;
  buf[0] = '\0';
  if (!s) return buf;
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    const int n = utf8_seq_len(p);
    char e[8];
    size_t k;
    if (n == 0 || *p < 0x20 || *p == 0x7f) { /* invalid byte, C0 control, DEL */
      snprintf(e, sizeof e, "\\x%02x", *p);
      k = 4;
      p++;
    } else if (n == 2 && p[0] == 0xC2 && p[1] < 0xA0) { /* C1 control U+0080..U+009F */
      snprintf(e, sizeof e, "\\u%04x", p[1]);
      k = 6;
      p += 2;
    } else {
      if (o + (size_t)n >= cap) break;
      memcpy(buf + o, p, (size_t)n);
      o += (size_t)n;
      p += n;
      continue;
    }
    if (o + k >= cap) break;
    memcpy(buf + o, e, k);
    o += k;
  }
  buf[o] = '\0';
  return buf;
}
