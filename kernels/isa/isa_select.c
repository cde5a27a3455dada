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

/* The ISA levels a cap may name, lowest first, and the flags each one keeps. A cap clears every
 * flag of the levels above it, so a session measures (or runs) a smaller CPU's variants on a
 * larger one; flags the CPU never had stay cleared. */
int yk_isa_cap(yk_isa *isa, const char *name) {
  if (!isa || !name) return -1;
  if (!strcmp(name, "scalar")) {
    memset(isa, 0, sizeof *isa); /* no flag, no variant: the scalar references */
    return 0;
  }
#if YK_ARCH_X86_64
  /* amx > avx512vnni > avx512 (F/BW/VL/VBMI, no dot product) > avxvnni > avx2 */
  static const char *const names[] = {"avx2", "avxvnni", "avx512", "avx512vnni", "amx"};
  int lvl = -1;
  for (int i = 0; i < 5; i++)
    if (!strcmp(name, names[i])) lvl = i;
  if (lvl < 0) return -1;
  if (lvl < 4) isa->amx = 0;
  if (lvl < 3) isa->avx512vnni = 0;
  if (lvl == 2 || lvl < 1) isa->avxvnni = 0; /* "avx512": AVX-512 without any VNNI */
  if (lvl < 2) isa->avx512 = isa->avx512vbmi = 0;
#elif YK_ARCH_AARCH64 || YK_ARCH_ARMV7
  if (!strcmp(name, "neon")) isa->neon_dot = 0;
  else if (strcmp(name, "neondot") != 0) return -1;
#else
  return -1;
#endif
  yk_isa_select(isa); /* every entry's variant follows the cleared flags */
  return 0;
}
