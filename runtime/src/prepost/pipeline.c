/* pipeline.c — yrt_session_create / yrt_session_free: a session is the executor (../session.c)
 * composed with the pre/post stages (stages.h), each stage's state made once here so that no call
 * of a stage allocates. */
#include <stdlib.h>

#include "mem.h"
#include "stages.h"

void yrt_session_free(yrt_session *s) {
  if (!s) return;
  yrt_stages *g = yrt_stages_of(s);
  if (g) {
    yrt_detect_stage_free(g);
    yrt_frame_state_free(g->frame);
    yrt_free(g);
  }
  yrt_executor_free(s);
}

yrt_status yrt_session_create(const yrt_model *model, const yrt_session_options *opts, yrt_session **out,
                              yrt_error *err) {
  return yrt_session_create_isa(model, opts, NULL, out, err);
}

yrt_status yrt_session_create_isa(const yrt_model *model, const yrt_session_options *opts, const yk_isa *isa,
                                  yrt_session **out, yrt_error *err) {
  yrt_status st = yrt_executor_create(model, opts, isa, out, err); /* checks the arguments, *out = NULL */
  if (st != YRT_OK) return st;
  yrt_session *s = *out;
  yrt_stages *g = yrt_zalloc(s->alloc, 1, sizeof *g);
  if (!g) {
    yrt_executor_free(s);
    *out = NULL;
    return yrt_set_error(err, YRT_ERR_NOMEM, "yrt: out of memory for the session's stages");
  }
  g->detect_node = YRT_NONE;
  s->stages = g;
  if ((st = yrt_frame_state_create(s, err)) != YRT_OK || (st = yrt_detect_stage_create(s, err)) != YRT_OK) {
    yrt_session_free(s);
    *out = NULL;
    return st;
  }
  return YRT_OK;
}
