/* isa_select.c — each dispatched entry's variant, chosen once from the yk_isa flags (XNNPACK's
 * configs/<kind>-config.c in spirit, without its global state: the choice lives in the yk_isa the
 * session owns). The order is the variant lists' (include/variants/<family>.inc): the first whose
 * condition holds, the scalar reference last. */
#include <string.h>

#include "yk_frame.h"
#include "yk_variants.h"

void yk_isa_select(yk_isa *isa) {
  if (!isa) return;
  memset(&isa->k, 0, sizeof isa->k);
#define YK_VARIANT(e, s, on, cond) on(if (!isa->k.e && (cond)) isa->k.e = yk_##e##__##s;)
#include YK_VARIANT_LISTS
#undef YK_VARIANT
}
