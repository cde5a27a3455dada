/* onnx_wire_check.c — a bounded, iterative pre-scan of protobuf wire bytes before protobuf-c
 * unpacks them. protobuf-c's unpack recurses once per nested message with no limit: a 34.5 KB ONNX
 * whose TypeProto nests 5000 deep overflowed the stack of yolort-convert and yolort-detect
 * (issue 19). This walk keeps its own stack of (message type, end offset), follows the generated
 * descriptors to know which length-delimited fields are messages, and refuses nesting deeper
 * than ONNX_MAX_NESTING or a field that runs past its parent. */
#include "onnx_wire_check.h"

#include <stdint.h>

static int read_varint(const uint8_t *p, size_t end, size_t *pos, uint64_t *v) {
  uint64_t r = 0;
  for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
    const uint8_t b = p[(*pos)++];
    r |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = r;
      return 0;
    }
  }
  return -1;
}

yrt_status onnx_wire_check(const void *data, size_t size, const ProtobufCMessageDescriptor *root,
                           yrt_error *err) {
  const uint8_t *p = data;
  struct {
    const ProtobufCMessageDescriptor *desc;
    size_t end;
  } stack[ONNX_MAX_NESTING + 1];
  int depth = 0;
  stack[0].desc = root;
  stack[0].end = size;
  size_t pos = 0;
  while (depth >= 0) {
    if (pos == stack[depth].end) {
      depth--;
      continue;
    }
    const size_t end = stack[depth].end;
    uint64_t tag, len;
    if (read_varint(p, end, &pos, &tag))
      return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: malformed field tag at byte %zu", pos);
    const unsigned wire = (unsigned)(tag & 7);
    const uint64_t number = tag >> 3;
    switch (wire) {
      case 0:
        if (read_varint(p, end, &pos, &len))
          return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: malformed varint at byte %zu", pos);
        break;
      case 1:
      case 5: {
        const size_t w = wire == 1 ? 8 : 4;
        if (end - pos < w)
          return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: field %llu runs past its message at byte %zu",
                               (unsigned long long)number, pos);
        pos += w;
        break;
      }
      case 2: {
        if (read_varint(p, end, &pos, &len) || len > end - pos)
          return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: field %llu runs past its message at byte %zu",
                               (unsigned long long)number, pos);
        const ProtobufCFieldDescriptor *f =
            number <= UINT32_MAX && stack[depth].desc
                ? protobuf_c_message_descriptor_get_field(stack[depth].desc, (unsigned)number)
                : NULL;
        if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
          if (depth == ONNX_MAX_NESTING)
            return yrt_set_error(err, YRT_ERR_FORMAT,
                                 "onnx: messages nested deeper than %d levels (at byte %zu, in %s); real "
                                 "models nest under 20",
                                 ONNX_MAX_NESTING, pos, stack[depth].desc->name);
          depth++;
          stack[depth].desc = f->descriptor;
          stack[depth].end = pos + (size_t)len;
        } else {
          pos += (size_t)len;
        }
        break;
      }
      default:
        return yrt_set_error(err, YRT_ERR_FORMAT, "onnx: wire type %u (field %llu) at byte %zu is not protobuf 3",
                             wire, (unsigned long long)number, pos);
    }
  }
  return YRT_OK;
}
