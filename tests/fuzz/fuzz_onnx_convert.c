/* fuzz_onnx_convert.c — libFuzzer target: hostile ONNX bytes through onnx_read_memory and the whole
 * converter (yrt_convert_graph: folding, shape inference, QDQ, lowering, memory plan, writer).
 * Whatever the converter writes must load (the runtime validator is the second line of defence,
 * but a converter that writes files its own runtime rejects is a bug), and is run once when cheap.
 * fuzz_onnx_values runs the same on value-level mutations of valid models. */
#include "fuzz_convert.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_convert_and_run(data, size);
  return 0;
}
