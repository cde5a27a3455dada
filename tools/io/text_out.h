/* text_out.h — strings and numbers from files (class names, paths, scores) written where they
 * must stay well formed: JSON that is always valid (escapes, U+FFFD for invalid UTF-8, null for a
 * non-finite number) and terminal text where a name's control bytes cannot move the cursor,
 * clear the screen or retitle the window (issue 40). */
#ifndef YOLORT_TEXT_OUT_H
#define YOLORT_TEXT_OUT_H

#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at p (1..4; overlongs, surrogates and code points past
 * U+10FFFF are invalid), 0 when the byte at p starts none. p[0] must not be NUL. */
int utf8_seq_len(const unsigned char *p);

/* s as a JSON string, quotes included: '"', '\\' and control characters escaped, each byte of
 * invalid UTF-8 replaced by U+FFFD. NULL writes null. */
void json_put_string(FILE *f, const char *s);

/* v with printf format fmt (one double conversion), or null when v is NaN or infinite (JSON has
 * no such numbers). */
void json_put_number(FILE *f, const char *fmt, double v);

/* s for a terminal into buf (cap bytes, always NUL-terminated; cut at a whole escape): C0 and C1
 * control characters, DEL and invalid UTF-8 bytes become \xHH (C1: \u00HH), the rest stays. Returns
 * buf; NULL s gives "". */
const char *term_escape(const char *s, char *buf, size_t cap);

#endif
