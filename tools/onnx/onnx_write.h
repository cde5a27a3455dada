/* onnx_write.h — build, edit and serialise ONNX models in memory (protobuf-c structures).
 *
 * Ownership: every Onnx__ModelProto handled here — whether made by onnx_model_new or loaded by
 * onnx_model_load_* — is a tree of separately malloc'ed pieces, exactly what protobuf-c's unpack
 * produces. So one call, onnx_model_free (= onnx__model_proto__free_unpacked(m, NULL)), frees it
 * all, including anything appended with these functions. When editing by hand, allocate every
 * string/array/sub-message with malloc and grow repeated fields with realloc.
 * Pointers returned for nodes stay valid until the next add/insert/remove on the same model.
 *
 * Used by the tests (tiny models) and by yolort-quantize (float ONNX -> QDQ ONNX). */
#ifndef YOLORT_ONNX_WRITE_H
#define YOLORT_ONNX_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "onnx.pb-c.h"

/* Empty model: ir_version 8, producer "yolort", default-domain opset `opset`, empty graph. */
Onnx__ModelProto *onnx_model_new(int64_t opset);
void onnx_model_free(Onnx__ModelProto *m);
yrt_status onnx_model_load_file(const char *path, Onnx__ModelProto **out, yrt_error *err);
yrt_status onnx_model_load_memory(const void *data, size_t size, Onnx__ModelProto **out,
                                  yrt_error *err);
/* Serialise: *bytes is malloc'ed (caller frees). */
yrt_status onnx_model_pack(const Onnx__ModelProto *m, uint8_t **bytes, size_t *size,
                           yrt_error *err);
yrt_status onnx_model_write_file(const Onnx__ModelProto *m, const char *path, yrt_error *err);

/* All int-returning functions below: 0 on success, -1 on bad argument or out of memory. */

/* Set the default-domain opset (adds the entry if missing). */
int onnx_model_set_opset(Onnx__ModelProto *m, int64_t opset);
/* Same for any domain ("" or "ai.onnx": the default one). */
int onnx_model_set_opset_domain(Onnx__ModelProto *m, const char *domain, int64_t opset);
/* Add or replace a metadata_props entry. */
int onnx_model_set_metadata(Onnx__ModelProto *m, const char *key, const char *value);
/* Graph input/output with element type and shape; dims < 0 are written as dim_param "N";
 * rank < 0 writes no shape at all. */
int onnx_model_add_input(Onnx__ModelProto *m, const char *name, ir_dtype dtype, int rank,
                         const int64_t *dims);
int onnx_model_add_output(Onnx__ModelProto *m, const char *name, ir_dtype dtype, int rank,
                          const int64_t *dims);

/* New TensorProto holding numel(dims) elements of `data` in dtype's C type (float, uint8_t,
 * int8_t, int32_t, int64_t, double; bool as uint8_t). raw != 0 stores raw_data; raw == 0 uses
 * the typed field (float_data / int32_data for I32,I8,U8,BOOL / int64_data / double_data).
 * Free with onnx__tensor_proto__free_unpacked(t, NULL) unless handed to a model/attribute. */
Onnx__TensorProto *onnx_tensor_new(const char *name, ir_dtype dtype, int rank,
                                   const int64_t *dims, const void *data, int raw);
/* Initializer (raw_data). _ex chooses raw or typed storage as above. */
int onnx_model_add_initializer(Onnx__ModelProto *m, const char *name, ir_dtype dtype, int rank,
                               const int64_t *dims, const void *data);
int onnx_model_add_initializer_ex(Onnx__ModelProto *m, const char *name, ir_dtype dtype,
                                  int rank, const int64_t *dims, const void *data, int raw);
Onnx__TensorProto *onnx_model_find_initializer(const Onnx__ModelProto *m, const char *name);
/* Remove (and free) the initializer called name; 0 if removed, -1 if absent. */
int onnx_model_remove_initializer(Onnx__ModelProto *m, const char *name);

/* Append a node (inputs may contain "" for omitted optional inputs). NULL on failure. */
Onnx__NodeProto *onnx_model_add_node(Onnx__ModelProto *m, const char *op_type, const char *name,
                                     const char *const *in, int n_in, const char *const *out,
                                     int n_out);
/* Same, inserted at position pos of graph.node (0..n_node; keeps topological order). */
Onnx__NodeProto *onnx_model_insert_node(Onnx__ModelProto *m, int pos, const char *op_type,
                                        const char *name, const char *const *in, int n_in,
                                        const char *const *out, int n_out);
/* Index of the node called name in graph.node, -1 if absent. */
int onnx_model_find_node(const Onnx__ModelProto *m, const char *name);
int onnx_node_set_domain(Onnx__NodeProto *n, const char *domain);
/* Replace input i, or append when i == n_input. */
int onnx_node_set_input(Onnx__NodeProto *n, int i, const char *name);
int onnx_node_attr_int(Onnx__NodeProto *n, const char *name, int64_t v);
int onnx_node_attr_float(Onnx__NodeProto *n, const char *name, float v);
int onnx_node_attr_string(Onnx__NodeProto *n, const char *name, const char *v);
int onnx_node_attr_ints(Onnx__NodeProto *n, const char *name, const int64_t *v, int count);
int onnx_node_attr_floats(Onnx__NodeProto *n, const char *name, const float *v, int count);
/* Takes ownership of t (also on failure). */
int onnx_node_attr_tensor(Onnx__NodeProto *n, const char *name, Onnx__TensorProto *t);

/* The live part of an IR graph as an ONNX model (tools/onnx/onnx_from_ir.c): its nodes in
 * topological order with their attributes (IR-internal ones, named "yolort.*", dropped), every
 * constant a live node reads (or a graph output is) as an initializer, inputs and outputs with
 * their known shapes. ir_version, opset imports and metadata_props are copied from `like` when
 * given (else opset = g->opset). Used by yolort-quantize to write the float graph it recovered
 * from a quantized export (quant/float_recover.h). */
yrt_status onnx_model_from_ir(const ir_graph *g, const Onnx__ModelProto *like, Onnx__ModelProto **out,
                              yrt_error *err);

#endif
