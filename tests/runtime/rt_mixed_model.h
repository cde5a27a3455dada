/* rt_mixed_model.h — one small .yrt that uses every op (int8 and float paths), for the
 * corruption and threading tests. */
#ifndef RT_MIXED_MODEL_H
#define RT_MIXED_MODEL_H

#include <stddef.h>

/* Serialized model (free with free()); input is f32 NHWC [1,4,4,3]; two outputs. */
void *rt_mixed_model(size_t *size);
/* Deterministic input for it. */
void rt_mixed_input(float *x48);

#endif
