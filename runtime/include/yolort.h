/*
 * yolort.h — public C API of the yolort runtime.
 *
 * Life cycle:  yrt_model_load_*  ->  yrt_session_create  ->  (fill input, yrt_session_run,
 * read outputs)*  ->  yrt_session_free  ->  yrt_model_free.
 *
 * Plain C (C99 and later) and C++ (C++11 and later) both compile this header cleanly with
 * -Wall -Wextra -Werror -pedantic; yolort.hpp is a header-only C++ wrapper over it.
 *
 * Conventions:
 *  - Every fallible call returns yrt_status and, when err != NULL, writes a message
 *    naming what failed and where into err->msg. No global mutable state.
 *  - A model is immutable after load and may be shared by sessions on several threads;
 *    a session is used by one thread at a time.
 *  - yrt_session_run never allocates.
 */
#ifndef YOLORT_H
#define YOLORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h> /* memset, in the inline init helpers */

#include "yolort_version.h"

/* Marks the public API: the only symbols a shared libyolort exports (it is built with
 * -fvisibility=hidden). */
#if defined(__GNUC__) || defined(__clang__)
#define YRT_API __attribute__((visibility("default")))
#else
#define YRT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum yrt_status {
  YRT_OK = 0,
  YRT_ERR_INVALID_ARG = 1, /* NULL pointer, out-of-range argument */
  YRT_ERR_IO = 2,          /* file could not be opened / read / written */
  YRT_ERR_FORMAT = 3,      /* malformed .yrt, ONNX or JPEG */
  YRT_ERR_UNSUPPORTED = 4, /* valid input we do not handle (op, attribute, dtype) */
  YRT_ERR_NOMEM = 5,
  YRT_ERR_BACKEND = 6,     /* XNNPACK / pthreadpool failure */
  YRT_ERR_SHAPE = 7,       /* shapes do not agree */
  YRT_ERR_CANCELLED = 8,   /* yrt_session_cancel stopped the run */
} yrt_status;

/* Caller-provided message buffer. */
typedef struct yrt_error {
  char msg[512];
} yrt_error;

/* Static name of a status ("YRT_ERR_FORMAT"). */
YRT_API const char *yrt_status_name(yrt_status s);

/* Write a formatted message into err (if non-NULL) and return s. */
YRT_API yrt_status yrt_set_error(yrt_error *err, yrt_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Version of the library linked ("0.1.0"); YOLORT_VERSION_STRING is the header's. */
YRT_API const char *yrt_version(void);

/* ------------------------------------------------------------------ model */

typedef struct yrt_model yrt_model;

/* Read a .yrt file into memory the model owns and validate it. Memory: one copy of the file
 * (its size, e.g. 2.7 MiB for yolo11n; conv weights are packed again per model by the first
 * session). The file may be replaced, rewritten or truncated (cp over it) while the model is in
 * use: nothing reads it after this call. Only a regular file is opened (a FIFO or a device is
 * refused without blocking). */
YRT_API yrt_status yrt_model_load_file(const char *path, yrt_model **out, yrt_error *err);

/* The same through a read-only private mapping (no copy: the weights stay clean, evictable pages
 * of the page cache, shared with other processes mapping the file). Contract: the file must not
 * be truncated or written in place until yrt_model_free — truncating it (cp over it) raises
 * SIGBUS in the next yrt_session_create or run, and bytes written in place bypass the
 * validation. Replace a mapped model by writing a new file and rename()ing it over the old path
 * (the mapping keeps the old inode), as the yolort tools write every output. */
YRT_API yrt_status yrt_model_load_file_mapped(const char *path, yrt_model **out, yrt_error *err);

/* Validate a .yrt image in memory. With copy == 0 the buffer is used in place and must stay
 * valid (and unchanged) until yrt_model_free; it must be YRT_ALIGN (64) byte aligned. */
YRT_API yrt_status yrt_model_load_memory(const void *data, size_t size, int copy, yrt_model **out,
                                 yrt_error *err);

/* Caller memory for everything the runtime allocates (docs/embedding.md, "Memory budget"). alloc
 * returns size bytes aligned to align (a power of two, 64 today) or NULL; free gets a block of
 * alloc back with the size it was asked for. user is passed to both. The runtime copies the struct;
 * user must stay valid until the last block is freed (yrt_model_free / yrt_session_free). Given
 * to a model load and to yrt_session_create (yrt_session_options.allocator), a model load + session
 * create calls no libc allocator at all: the model's blocks (its copy of the file, class names,
 * the packed weights its first session makes and shares) come from the load's allocator, the
 * session's (its struct, per-node state, tables, stage buffers, the arena unless opts.arena)
 * from the session's. Not covered: a session's worker threads (num_threads > 1: pthread_create
 * maps their stacks and the C library keeps per-thread records) — use num_threads = 1 for a
 * budget with no other memory. A session
 * given an allocator never uses XNNPACK (its operators allocate on their own): its convs run on
 * our kernels or the portable reference. */
typedef struct yrt_allocator {
  void *(*alloc)(void *user, size_t size, size_t align);
  void (*free)(void *user, void *ptr, size_t size);
  void *user;
} yrt_allocator;

/* yrt_model_load_memory with the model's blocks from alloc (NULL: libc, as yrt_model_load_memory).
 * With copy == 0 and an allocator the model allocates only its own small records (see
 * yrt_session_memory.model_bytes): the weights stay in data, which may be read-only (a PROT_READ
 * mapping, flash). */
YRT_API yrt_status yrt_model_load_memory_with(const void *data, size_t size, int copy, const yrt_allocator *alloc,
                                      yrt_model **out, yrt_error *err);

YRT_API void yrt_model_free(yrt_model *model);

/* Growable (fields only ever added at the end): see yrt_model_get_info_sized. */
typedef struct yrt_model_info {
  int input_w, input_h;     /* network input size (letterbox target) */
  int num_classes;
  int num_inputs, num_outputs;
  int num_nodes, num_tensors;
  int num_int8_nodes;       /* nodes with int8 output */
  int synthetic;            /* 1: generated weights, detections are meaningless */
  int end2end;              /* 1: output 0 is [1, K, 6 (+ extra)] final detections (yrt_postprocess_e2e) */
  size_t arena_bytes;       /* activation memory a session needs */
  size_t weight_bytes;
  size_t file_bytes;
} yrt_model_info;

/* Growable output structs (yrt_model_info, yrt_tensor_view, yrt_session_memory): each new field
 * goes at the end. A *_sized call takes the caller's sizeof: the library writes the fields it
 * knows that fit and zeroes the rest of the caller's struct (fields of a newer header read as 0,
 * "not reported"); a size below the struct's first version, or over YRT_STRUCT_SIZE_MAX, is
 * YRT_ERR_INVALID_ARG. The plain names are inline wrappers passing sizeof *out, so a program
 * passes the size of the header it was compiled against without writing it; the library also
 * exports the plain names (for programs linked before this), which write the first version. */
#define YRT_STRUCT_SIZE_MAX 4096

YRT_API yrt_status yrt_model_get_info_sized(const yrt_model *model, yrt_model_info *info, size_t info_size);
#ifdef YOLORT_BUILDING_LIBRARY
YRT_API yrt_status yrt_model_get_info(const yrt_model *model, yrt_model_info *info);
#else
static inline yrt_status yrt_model_get_info(const yrt_model *model, yrt_model_info *info) {
  return yrt_model_get_info_sized(model, info, sizeof *info);
}
#endif

/* Class name for id, or NULL when out of range / unnamed. */
YRT_API const char *yrt_model_class_name(const yrt_model *model, int class_id);

/* The model's task from its Ultralytics metadata: "detect", "segment" (output 0 then carries
 * the mask coefficients after the class scores, output 1 the mask prototypes), "pose" (output 0
 * carries the decoded keypoints after the class scores: yrt_model_keypoints), "obb" (rotated
 * boxes: output 0 carries the angle after the class scores, yrt_model_rotated), "classify"
 * (output 0 is [1, num_classes]: yrt_session_classify) or "" when the export did not record it.
 * Never NULL (model NULL -> ""). */
YRT_API const char *yrt_model_task(const yrt_model *model);

/* How an image becomes the network input (the model's own, stored in the .yrt: yolort-convert
 * --preprocess, a recognised family or the export's metadata). Network channel c of a pixel
 * whose 8-bit level (in channel order R, G, B, or B, G, R with bgr) is v gets
 * (v * scale - mean[c]) / std[c] (scale 1/255 computes v / 255, bit for bit as before). */
typedef enum yrt_resize_mode {
  YRT_RESIZE_LETTERBOX = 0, /* keep the aspect, pad to the input (Ultralytics detect) */
  YRT_RESIZE_STRETCH = 1,   /* both axes to the input, aspect not kept (yrt_letterbox.ratio_y) */
  YRT_RESIZE_CROP = 2,      /* shorter side to the input, centre crop (Ultralytics classify) */
} yrt_resize_mode;

typedef struct yrt_preprocess {
  int bgr;          /* 1: network channels B, G, R */
  int top_left;     /* 1: letterboxed image at the top-left (padding right and bottom), else centred */
  int resize;       /* yrt_resize_mode */
  float pad;        /* padding level, an integer in 0..255 (114) */
  float scale;      /* level multiplier, 1/255 or 1 */
  float mean[3];    /* per network channel, after scale (0) */
  float std[3];     /* per network channel, > 0 (1) */
} yrt_preprocess;

/* The default: RGB, v / 255, centred letterbox padded with 114 (Ultralytics detect exports). */
static inline void yrt_preprocess_default(yrt_preprocess *p) {
  int c;
  p->bgr = 0;
  p->top_left = 0;
  p->resize = YRT_RESIZE_LETTERBOX;
  p->pad = 114.0f;
  p->scale = 1.0f / 255.0f;
  for (c = 0; c < 3; c++) {
    p->mean[c] = 0.0f;
    p->std[c] = 1.0f;
  }
}

/* The model's preprocessing (older files: the default). */
YRT_API yrt_status yrt_model_get_preprocess(const yrt_model *model, yrt_preprocess *pp);

/* ---------------------------------------------------------------- session */

typedef struct yrt_session yrt_session;

/* The most threads a session accepts (more is refused with YRT_ERR_INVALID_ARG: a pool of
 * thousands of threads can block in pthreadpool_create, and threads beyond the cores only slow
 * a run down; the CLIs also cap --threads at the online CPUs). */
#define YRT_MAX_THREADS 256

/* YRT_STRUCT_SIZE_MAX (above) is also the most a struct_size field (yrt_session_options,
 * yrt_frame, yrt_postprocess_params) may say: these structs will never grow past it, so a larger
 * value is garbage (an uninitialised field) and is refused with YRT_ERR_INVALID_ARG naming the
 * struct and the size; no byte of the caller's struct past this library's sizeof is read then. */

typedef struct yrt_session_options {
  /* Threads that run the session's nodes, the calling thread included. 0 (the default, also with
   * opts NULL): one per online CPU this process may run on (its affinity mask); 1: the calling
   * thread only; N > 1: min(N, online CPUs) unless oversubscribe is set. More threads than cores
   * never help: a pool thread waiting for a core holds up every parallel node. At most
   * YRT_MAX_THREADS. yrt_session_num_threads tells what was chosen. */
  int num_threads;
  void *arena;      /* optional caller memory of >= info.arena_bytes, 64-byte aligned; zeroed
                       once by yrt_session_create */
  size_t arena_bytes;
  size_t max_arena_bytes; /* 0: no cap; else a model whose arena (info.arena_bytes) is larger is
                             refused with YRT_ERR_NOMEM before anything is allocated */
  /* Growth without breaking callers: sizeof(yrt_session_options) as the caller was compiled,
   * set by yrt_session_options_init. Fields after this one are read only when struct_size covers
   * them; 0 (an initializer that leaves it out, e.g. {.num_threads = 2}) means the four fields
   * above only. A struct_size beyond what this library knows is accepted when the unknown bytes
   * are zero, else refused (YRT_ERR_INVALID_ARG: the program was built for a newer yolort); one
   * over YRT_STRUCT_SIZE_MAX is refused as garbage before any byte past this library's struct is
   * read. */
  size_t struct_size;
  /* A thread pool of the caller's (a pthreadpool_t from pthreadpool_create) used instead of a
   * session-owned one: sessions given the same pool share its threads (their parallel parts
   * take turns on it), so N sessions on a 2-core SoC need not make N pools. The session never
   * destroys it: free the sessions first. NULL: num_threads decides. Set with num_threads > 1 is
   * YRT_ERR_INVALID_ARG (one or the other), and so is any pool in a build without pthreadpool
   * (YOLORT_PTHREADPOOL=OFF, the default with YOLORT_XNNPACK=OFF). */
  struct pthreadpool *thread_pool;
  /* 1: take num_threads as given even above the online CPUs (e.g. a scheduler that will pin the
   * threads itself); 0 (default): capped at the online CPUs. */
  int oversubscribe;
  /* Every block of the session from this allocator (yrt_allocator above; copied), NULL: libc. */
  const yrt_allocator *allocator;
  /* Hide the CPU's ISAs above this level from our kernels, read once here: x86-64 "avx2" <
   * "avxvnni" < "avx512" (no VNNI) < "avx512vnni" < "amx", ARM "neon" < "neondot", or "scalar".
   * E.g. "avx2" runs an AVX2-only CPU's variants on a VNNI one, to measure that path against the
   * AVX2 floor of the same machine (yolort-bench --isa). XNNPACK's operators keep the CPU's best.
   * NULL (default): everything the CPU has. Another name: YRT_ERR_INVALID_ARG. */
  const char *isa_cap;
} yrt_session_options;

/* Zeroes o (defaults: one thread per online CPU, own arena, no cap) and sets o->struct_size. Inline so
 * that the size recorded is the caller's. */
static inline void yrt_session_options_init(yrt_session_options *o) {
  memset(o, 0, sizeof *o); /* not `= {0}`: -Wmissing-field-initializers, and in C++ an error */
  o->struct_size = sizeof *o;
}

/* Creates kernels once (XNNPACK operators, packed weights). Our int8 kernels' packed weights are
 * made once per model, by its first session, and shared by the others (free the sessions before
 * the model). opts may be NULL. */
YRT_API yrt_status yrt_session_create(const yrt_model *model, const yrt_session_options *opts,
                              yrt_session **out, yrt_error *err);
YRT_API void yrt_session_free(yrt_session *s);

/* Every byte a session takes, measured (growable: see yrt_model_get_info_sized). */
typedef struct yrt_session_memory {
  size_t session_bytes;  /* the most the session's allocator holds at once during yrt_session_create
                            (its high-water mark: block headers, per-node state, tables, stage
                            buffers, the thread pool's records, the arena unless opts.arena) */
  size_t session_blocks; /* blocks it holds after create */
  size_t model_bytes;    /* what the model's allocator holds once a session exists: the model's
                            own records (and its copy of the file, if it made one) + packed weights */
  size_t shared_bytes;   /* of model_bytes, made by this query's session: the packed weights a
                            model's first session makes (0 when another session made them) */
  size_t arena_bytes;    /* info.arena_bytes (inside session_bytes unless opts.arena) */
  size_t in_place_bytes; /* packed conv weights the session reads in place from the model's bytes
                            (a .yrt packed for this CPU's kernels: yolort-convert --target), not
                            copied nor counted above */
} yrt_session_memory;

/* Creates a session as yrt_session_create(model, opts) would, with a counting wrapper around
 * opts->allocator (libc when none), reports what it took and frees it. Without an allocator in
 * opts it measures the session as if given one (no XNNPACK: see yrt_allocator). The first session of a
 * model makes the model's packed weights (through the model's allocator): this query may be that
 * session, then they stay for the next ones (shared_bytes says so). Give an allocator of exactly
 * session_bytes to yrt_session_create with the same options and it is enough. With opts->arena the
 * query's session zeroes that arena as any session does: do not run it while a session uses it. */
YRT_API yrt_status yrt_session_memory_need_sized(const yrt_model *model, const yrt_session_options *opts,
                                         yrt_session_memory *mem, size_t mem_size, yrt_error *err);
static inline yrt_status yrt_session_memory_need(const yrt_model *model, const yrt_session_options *opts,
                                                 yrt_session_memory *mem, yrt_error *err) {
  return yrt_session_memory_need_sized(model, opts, mem, sizeof *mem, err);
}

/* Threads the session's parallel nodes run on, the calling thread included (1: no pool; with a
 * caller's thread_pool, that pool's count). 0 for s NULL. */
YRT_API int yrt_session_num_threads(const yrt_session *s);

/* A view of a float tensor in LOGICAL (ONNX) order. Growable (fields only ever added at the end):
 * see yrt_model_get_info_sized. */
typedef struct yrt_tensor_view {
  float *data;
  int rank;
  int dims[6];
  size_t count;
} yrt_tensor_view;

/* Copy a logical NCHW float input [1,3,H,W] into the session. Refused (a wrong count): the
 * input set before, a frame included, stays in effect. */
YRT_API yrt_status yrt_session_set_input(yrt_session *s, int index, const float *nchw, size_t count,
                                 yrt_error *err);
/* Direct pointer to input `index` stored NHWC float [1,H,W,3] (write in place, e.g. by
 * yrt_letterbox). NULL if out of range. */
YRT_API float *yrt_session_input_nhwc(yrt_session *s, int index);
/* Number of floats of input `index` (0 if out of range or not NHWC float): the size to check
 * before writing through yrt_session_input_nhwc. */
YRT_API size_t yrt_session_input_count(const yrt_session *s, int index);

YRT_API yrt_status yrt_session_run(yrt_session *s, yrt_error *err);

/* Ask the session's current (or next) run to stop: the executor checks between nodes and returns
 * YRT_ERR_CANCELLED (outputs are then incomplete). Safe to call from any thread, e.g. a watchdog
 * or a UI thread while another thread is inside yrt_session_run / yrt_session_detect; the
 * request is consumed by the run it stops. */
YRT_API void yrt_session_cancel(yrt_session *s);

/* Output `index` in logical order, valid until the next run. */
YRT_API yrt_status yrt_session_output_sized(yrt_session *s, int index, yrt_tensor_view *view, size_t view_size,
                                            yrt_error *err);
#ifdef YOLORT_BUILDING_LIBRARY
YRT_API yrt_status yrt_session_output(yrt_session *s, int index, yrt_tensor_view *view, yrt_error *err);
#else
static inline yrt_status yrt_session_output(yrt_session *s, int index, yrt_tensor_view *view, yrt_error *err) {
  return yrt_session_output_sized(s, index, view, sizeof *view, err); /* growable: see yrt_model_get_info */
}
#endif

/* Per-node wall time of the last run in nanoseconds, when profiling is enabled. After a
 * yrt_session_detect that decoded threshold-aware, the slot of output0's decode node holds that
 * call's decode + NMS time. */
YRT_API void yrt_session_set_profiling(yrt_session *s, int enable);
/* Fills ns[i] for node i, up to n; returns the node count. */
YRT_API int yrt_session_node_times(const yrt_session *s, uint64_t *ns, int n);
/* Op name of node i ("conv2d.i8", "concat.f32"...), NULL if out of range. */
YRT_API const char *yrt_session_node_kind(const yrt_session *s, int i);
/* ONNX node name of node i. */
YRT_API const char *yrt_session_node_name(const yrt_session *s, int i);

/* ------------------------------------------------------- pre-processing */

/* 8-bit RGB image, rows packed (stride = 3 * w). */
typedef struct yrt_image {
  int w, h;
  uint8_t *rgb;
} yrt_image;

/* JPEG decode and encode live in the optional image library: yolort_image.h. */

/* How an image was placed into the network input. Growable (fields only ever added at the end):
 * the calls that fill one (yrt_letterbox_f32, yrt_preprocess_f32, yrt_session_set_frame) and read
 * one (yrt_postprocess, yrt_postprocess_e2e, yrt_session_postprocess) take the caller's sizeof
 * through their *_sized form, as yrt_model_get_info_sized; a read one's bytes past what this
 * library knows must be zero (YRT_ERR_INVALID_ARG: built for a newer yolort). */
typedef struct yrt_letterbox {
  float ratio;            /* scale applied to the source image */
  float pad_left, pad_top;
  int src_w, src_h;
  int dst_w, dst_h;
  float offset_x, offset_y; /* added to mapped boxes (a frame's crop origin), else 0 */
  float ratio_y;          /* vertical scale when it differs (YRT_RESIZE_STRETCH); 0: ratio */
} yrt_letterbox;

/* Resize keeping aspect (bilinear, antialiased like PIL when shrinking), pad with 114, centre,
 * scale to [0,1], write NHWC float [dst_h][dst_w][3]. dst_count is how many floats dst_nhwc
 * holds: fewer than dst_w * dst_h * 3 is YRT_ERR_INVALID_ARG (nothing written). For a session's
 * input pass yrt_session_input_nhwc and yrt_session_input_count. scratch must hold
 * yrt_letterbox_scratch_bytes(...) bytes (no allocation here). Sides (source and destination)
 * are 1..65536: larger images are refused with YRT_ERR_INVALID_ARG before any memory is touched,
 * and yrt_letterbox_scratch_bytes returns 0 for them (and for sides < 1). */
YRT_API size_t yrt_letterbox_scratch_bytes(int src_w, int src_h, int dst_w, int dst_h);
YRT_API yrt_status yrt_letterbox_f32_sized(const yrt_image *img, int dst_w, int dst_h, float *dst_nhwc,
                                           size_t dst_count, void *scratch, yrt_letterbox *lb, size_t lb_size,
                                           yrt_error *err);
#ifdef YOLORT_BUILDING_LIBRARY
YRT_API yrt_status yrt_letterbox_f32(const yrt_image *img, int dst_w, int dst_h, float *dst_nhwc, size_t dst_count,
                                     void *scratch, yrt_letterbox *lb, yrt_error *err);
#else
static inline yrt_status yrt_letterbox_f32(const yrt_image *img, int dst_w, int dst_h, float *dst_nhwc,
                                           size_t dst_count, void *scratch, yrt_letterbox *lb, yrt_error *err) {
  return yrt_letterbox_f32_sized(img, dst_w, dst_h, dst_nhwc, dst_count, scratch, lb, sizeof *lb, err);
}
#endif
/* The same with a model's preprocessing (yrt_model_get_preprocess; NULL: the default, which is
 * yrt_letterbox_f32): channel order, scale, mean / std, placement, pad, letterbox / stretch /
 * centre crop. lb then maps boxes back for any of them (crop: negative pads). Scratch:
 * yrt_letterbox_scratch_bytes, which covers every mode. Refuses a pp the loader would refuse. */
YRT_API yrt_status yrt_preprocess_f32_sized(const yrt_image *img, const yrt_preprocess *pp, int dst_w, int dst_h,
                                            float *dst_nhwc, size_t dst_count, void *scratch, yrt_letterbox *lb,
                                            size_t lb_size, yrt_error *err);
#ifdef YOLORT_BUILDING_LIBRARY
YRT_API yrt_status yrt_preprocess_f32(const yrt_image *img, const yrt_preprocess *pp, int dst_w, int dst_h,
                                      float *dst_nhwc, size_t dst_count, void *scratch, yrt_letterbox *lb,
                                      yrt_error *err);
#else
static inline yrt_status yrt_preprocess_f32(const yrt_image *img, const yrt_preprocess *pp, int dst_w, int dst_h,
                                            float *dst_nhwc, size_t dst_count, void *scratch, yrt_letterbox *lb,
                                            yrt_error *err) {
  return yrt_preprocess_f32_sized(img, pp, dst_w, dst_h, dst_nhwc, dst_count, scratch, lb, sizeof *lb, err);
}
#endif

/* --------------------------------------------------------- camera frames */

/* Pixel layouts a frame may have. Planes: packed formats use plane[0]; NV12 / NV21 use plane[0] =
 * Y and plane[1] = interleaved UV (NV12) or VU (NV21) at half resolution; I420 uses Y, U, V. */
typedef enum yrt_pixel_format {
  YRT_PIX_RGB888 = 1, /* R, G, B bytes */
  YRT_PIX_BGR888 = 2,
  YRT_PIX_RGBA8888 = 3, /* R, G, B, A bytes (alpha ignored) */
  YRT_PIX_BGRA8888 = 4,
  YRT_PIX_NV12 = 5,
  YRT_PIX_NV21 = 6,
  YRT_PIX_I420 = 7,
  YRT_PIX_GRAY8 = 8, /* luminance, used for all three channels */
} yrt_pixel_format;

/* YUV -> RGB matrix of the YUV formats. */
typedef enum yrt_color_range {
  YRT_COLOR_BT601_LIMITED = 0, /* video range Y 16..235 (camera ISPs, default) */
  YRT_COLOR_BT601_FULL = 1,    /* full range (JPEG / JFIF) */
} yrt_color_range;

/* A frame as the camera delivers it; nothing is copied. Widths and heights of YUV 4:2:0 frames
 * may be odd (chroma covers ceil(w/2) x ceil(h/2)); crops of them start on even coordinates. */
typedef struct yrt_frame {
  yrt_pixel_format format;
  int width, height;        /* pixels of plane 0 */
  const uint8_t *plane[3];  /* see yrt_pixel_format */
  size_t stride[3];         /* bytes from one row of a plane to the next: at least a row's
                               bytes, at most 2^30 (YRT_ERR_INVALID_ARG naming stride[i]) */
  yrt_color_range color;
  int crop_x, crop_y;       /* region of interest; crop_w == 0 or crop_h == 0: the whole frame */
  int crop_w, crop_h;
  /* Growth without breaking callers, as yrt_session_options: sizeof(yrt_frame) as the caller was
   * compiled (yrt_frame_init sets it); 0 (memset or an initializer that leaves it out) means the
   * fields above; later fields go after it, their zero meaning their default. Over
   * YRT_STRUCT_SIZE_MAX: YRT_ERR_INVALID_ARG (garbage), nothing read past this library's struct. */
  size_t struct_size;
  /* Bytes the caller owns at plane[i] (0: not given, not checked, as for callers built before this
   * field). Give them: that is how a short buffer is caught. A plane shorter than its rows need,
   * stride[i] x (rows - 1) + one row's bytes (rows: height, or (height + 1) / 2 for 4:2:0 chroma;
   * a row: width x bytes per pixel, or the chroma row of ceil(width / 2) samples), is refused with
   * YRT_ERR_INVALID_ARG naming the plane and both sizes: the textbook w * h * 3 / 2 NV12 buffer of
   * an odd height is one chroma row short. */
  size_t plane_bytes[3];
  /* How the stored frame is made upright (a sensor mounted sideways or upside down, a selfie
   * camera): yrt_orientation, a turn clockwise plus optionally YRT_ORIENT_MIRROR. The letterbox
   * samples the upright image while reading the planes (no extra pass, no copy), so the network
   * sees the scene upright. crop_* stay in the stored frame's pixels. Boxes: yrt_session_detect
   * gives them in the stored frame's pixels (the coordinates of plane[0], crop offset included);
   * yrt_session_set_frame's lb maps to the upright crop's pixels, which yrt_frame_map_detections
   * turns into the stored frame's. A 4:2:0 frame whose crop has an odd side along an axis the
   * orientation reverses is refused (its chroma would sit half a sample off). */
  int orientation;
} yrt_frame;

/* yrt_frame.orientation: turn the stored frame clockwise by this much, then (| YRT_ORIENT_MIRROR)
 * mirror it left-right, to get the upright image. EXIF orientation 1..8 are 0, MIRROR, 180,
 * 180 | MIRROR, 90 | MIRROR, 90, 270 | MIRROR, 270. */
typedef enum yrt_orientation {
  YRT_ORIENT_UPRIGHT = 0,
  YRT_ORIENT_90 = 1,
  YRT_ORIENT_180 = 2,
  YRT_ORIENT_270 = 3,
  YRT_ORIENT_MIRROR = 4,
} yrt_orientation;

/* Zeroes f (no crop, BT.601 limited range) and records the caller's sizeof in struct_size. */
static inline void yrt_frame_init(yrt_frame *f) {
  memset(f, 0, sizeof *f);
  f->struct_size = sizeof *f;
}

/* Letterbox the frame (or its crop) straight into the session's input: colour conversion,
 * bilinear resize (OpenCV INTER_LINEAR geometry, 11-bit fixed-point weights), padding and
 * placement, channel order and the input's scaling/normalisation/quantization as the model's
 * yrt_preprocess says (default: padding 114, centred as Ultralytics does, RGB / 255) in one pass
 * over the output rows, threaded over the session's pool; no intermediate image, no allocation.
 * lb (may be NULL) receives the placement; its boxes map back to frame pixels (crop offset
 * included). The frame stays the input until another input call succeeds: every run after it
 * (and after a refused yrt_session_set_input) computes on this frame, bit-identical to a fresh
 * session's run. */
YRT_API yrt_status yrt_session_set_frame_sized(yrt_session *s, const yrt_frame *frame, yrt_letterbox *lb,
                                               size_t lb_size, yrt_error *err);
#ifdef YOLORT_BUILDING_LIBRARY
YRT_API yrt_status yrt_session_set_frame(yrt_session *s, const yrt_frame *frame, yrt_letterbox *lb, yrt_error *err);
#else
static inline yrt_status yrt_session_set_frame(yrt_session *s, const yrt_frame *frame, yrt_letterbox *lb,
                                               yrt_error *err) {
  return yrt_session_set_frame_sized(s, frame, lb, sizeof *lb, err);
}
#endif

/* ------------------------------------------------------ post-processing */
/* (yrt_detection and yrt_postprocess_params below; yrt_session_detect at the end.) */

typedef struct yrt_detection {
  float x0, y0, x1, y1; /* in source-image pixels */
  float score;
  int class_id;
  const char *name; /* class name from the model (yrt_session_detect), NULL when unnamed */
} yrt_detection;

/* Boxes in the upright crop's pixels (yrt_postprocess through yrt_session_set_frame's lb, for an
 * oriented frame) into the stored frame's pixels: the turn and mirror undone, the crop offset
 * added. Nothing to do for an upright frame (its lb already maps to frame pixels). Refuses a
 * frame yrt_session_set_frame would refuse for its struct_size or orientation. */
YRT_API yrt_status yrt_frame_map_detections(const yrt_frame *frame, yrt_detection *dets, int n, yrt_error *err);

typedef struct yrt_postprocess_params {
  float conf_threshold; /* default 0.25 */
  float iou_threshold;  /* default 0.45 (0.7 for mAP evaluation) */
  int max_detections;   /* default 300 */
  int class_agnostic;   /* 0: class-aware NMS */
  const int *classes;   /* keep only anchors whose best class is one of these (NULL: all) */
  int num_classes;      /* entries in classes */
  /* Growth without breaking callers, as yrt_session_options: sizeof(yrt_postprocess_params) as
   * the caller was compiled, set by yrt_postprocess_params_init / yrt_postprocess_defaults. 0
   * (an initializer that leaves it out) means the six fields above; fields added later go after
   * this one, their zero meaning their default; a larger struct than this library knows is
   * accepted when the unknown bytes are zero, else YRT_ERR_INVALID_ARG; over YRT_STRUCT_SIZE_MAX
   * also (garbage), nothing read past this library's struct. */
  size_t struct_size;
  /* Per-class confidence thresholds (NULL, the default: conf_threshold for every class). Given,
   * class_conf[c] replaces conf_threshold for class c, applied before NMS to each anchor's best
   * class (one label per anchor, as with conf_threshold); num_class_conf must equal the model's
   * class count (else YRT_ERR_INVALID_ARG naming both), no entry NaN. E.g. 0.6 for "person" and
   * 0.3 for the rest. The threshold-aware decode of yrt_session_detect skips the anchors that
   * cannot pass the lowest of them. */
  const float *class_conf;
  int num_class_conf;
} yrt_postprocess_params;

/* Writes the defaults into the fields up to and including struct_size (set to the size of those
 * fields, the struct's first version: later fields such as class_conf are then not read, so set
 * them after yrt_postprocess_params_init instead). Later versions keep writing exactly these
 * bytes, so a program compiled against any header stays within its struct. */
YRT_API void yrt_postprocess_defaults(yrt_postprocess_params *p);

/* The model's own defaults: yrt_postprocess_defaults, then the thresholds, count and per-class
 * mode of the NMS the export did itself where it recorded one (an Ultralytics nms=True export,
 * whose NMS the converter replaced by yolort's). yrt_session_detect uses them for params NULL.
 * Writes the same bytes as yrt_postprocess_defaults (set struct_size yourself, or call
 * yrt_postprocess_params_init first). YRT_ERR_INVALID_ARG on NULL. */
YRT_API yrt_status yrt_model_postprocess_defaults(const yrt_model *model, yrt_postprocess_params *p);

/* Zeroes p (every later field at its default), writes the defaults, and records the caller's
 * sizeof in struct_size. Inline so that the size is the caller's. */
static inline void yrt_postprocess_params_init(yrt_postprocess_params *p) {
  memset(p, 0, sizeof *p);
  yrt_postprocess_defaults(p);
  p->struct_size = sizeof *p;
}

/* Scratch bytes for yrt_postprocess with this many anchors. */
YRT_API size_t yrt_postprocess_scratch_bytes(int num_anchors, int max_detections);

/* output0 is logical [1, 4 + num_classes, num_anchors] (cx, cy, w, h in input pixels, then
 * class scores). Writes at most cap detections sorted by score; boxes mapped back through lb
 * (NULL lb: input pixels). */
YRT_API yrt_status yrt_postprocess_sized(const float *output0, int num_classes, int num_anchors,
                                         const yrt_letterbox *lb, size_t lb_size, const yrt_postprocess_params *params,
                                         void *scratch, yrt_detection *dets, int cap, int *n_dets, yrt_error *err);
#ifdef YOLORT_BUILDING_LIBRARY
YRT_API yrt_status yrt_postprocess(const float *output0, int num_classes, int num_anchors, const yrt_letterbox *lb,
                                   const yrt_postprocess_params *params, void *scratch, yrt_detection *dets, int cap,
                                   int *n_dets, yrt_error *err);
#else
static inline yrt_status yrt_postprocess(const float *output0, int num_classes, int num_anchors,
                                         const yrt_letterbox *lb, const yrt_postprocess_params *params, void *scratch,
                                         yrt_detection *dets, int cap, int *n_dets, yrt_error *err) {
  return yrt_postprocess_sized(output0, num_classes, num_anchors, lb, sizeof *lb, params, scratch, dets, cap, n_dets,
                               err);
}
#endif

/* An end-to-end (NMS-free) model's output (yrt_model_info.end2end): dets6 is [k][6] rows x1, y1,
 * x2, y2 (input pixels), score, class, sorted by score. Keeps rows with score > conf and a class
 * in [0, num_classes), at most min(max_detections, cap), mapped back through lb (NULL: input
 * pixels). No NMS (the model already made its choice); iou_threshold is ignored. */
YRT_API yrt_status yrt_postprocess_e2e_sized(const float *dets6, int k, int num_classes, const yrt_letterbox *lb,
                                             size_t lb_size, const yrt_postprocess_params *params, yrt_detection *dets,
                                             int cap, int *n_dets, yrt_error *err);
#ifdef YOLORT_BUILDING_LIBRARY
YRT_API yrt_status yrt_postprocess_e2e(const float *dets6, int k, int num_classes, const yrt_letterbox *lb,
                                       const yrt_postprocess_params *params, yrt_detection *dets, int cap, int *n_dets,
                                       yrt_error *err);
#else
static inline yrt_status yrt_postprocess_e2e(const float *dets6, int k, int num_classes, const yrt_letterbox *lb,
                                             const yrt_postprocess_params *params, yrt_detection *dets, int cap,
                                             int *n_dets, yrt_error *err) {
  return yrt_postprocess_e2e_sized(dets6, k, num_classes, lb, sizeof *lb, params, dets, cap, n_dets, err);
}
#endif

/* ------------------------------------------------------ frame to boxes */

/* One call from a camera frame to detections: yrt_session_set_frame, yrt_session_run, decode of
 * output0 [1, 4 + classes, anchors] and NMS with params (NULL: yrt_model_postprocess_defaults). Writes
 * at most cap detections sorted by score, boxes in frame pixels, each with its class name. The
 * session keeps the scratch memory (made at creation): nothing is allocated. When output0 comes
 * from the fused decode node, thresholds apply inside the decode: anchors whose best class score
 * cannot pass conf_threshold get no DFL / sigmoid work (same detections as decoding them all);
 * output0 read afterwards then holds only those anchors, packed: call yrt_session_run for the
 * whole tensor (evaluation). YRT_ERR_UNSUPPORTED when the model has no image input or its output0
 * is not a detection tensor. */
YRT_API yrt_status yrt_session_detect(yrt_session *s, const yrt_frame *frame, const yrt_postprocess_params *params,
                                      yrt_detection *dets, int cap, int *n_dets, yrt_error *err);

/* ------------------------------------------------------ instance masks */

/* Mask coefficients per detection (nm) of a segment model (task "segment": output 0
 * [1, 4 + classes + nm, anchors], output 1 the prototypes [1, nm, H / 4, W / 4]) whose masks
 * yrt_session_mask computes; 0 for any other model. */
YRT_API int yrt_model_mask_channels(const yrt_model *model);

/* The binary mask of detection det_index (0-based, in the order written) of the last
 * yrt_session_detect on this session, at the image's resolution: out gets height rows of width
 * bytes, stride bytes apart (stride >= width), 1 on the instance, 0 elsewhere. width and height
 * are the frame's (its crop's, when one was given; pixel (0, 0) is the crop's origin). As
 * Ultralytics with retina_masks=True (process_mask_native): the detection's coefficients x the
 * prototypes, the letterbox padding cut off, bilinearly resized to the image, cropped to the
 * box, sigmoid > 0.5. Computed on call, only for the detections asked for; nothing is allocated.
 * YRT_ERR_UNSUPPORTED for a model without masks (yrt_model_mask_channels 0) or before any
 * yrt_session_detect; YRT_ERR_INVALID_ARG for an index out of range or another size. Valid until
 * the session's next run. */
YRT_API yrt_status yrt_session_mask(yrt_session *s, int det_index, uint8_t *out, int width, int height,
                                    size_t stride, yrt_error *err);
/* ------------------------------------------------------ keypoints (pose) */

/* One keypoint of a detection, in source-image pixels as the boxes (letterbox undone, clipped to
 * the image). score: the keypoint's visibility (sigmoid) when the model gives one, else 1. */
typedef struct yrt_keypoint {
  float x, y, score;
} yrt_keypoint;

/* Keypoints per detection of a pose model (task "pose": output 0's rows after the class scores
 * are the decoded keypoints, x, y (, visibility) each), e.g. 17 for COCO; *dims (may be NULL)
 * receives the values per keypoint (2 or 3). 0 (and *dims 0) for any other model or NULL. */
YRT_API int yrt_model_keypoints(const yrt_model *model, int *dims);

/* Decode + NMS of the last run's output 0 for a caller that wrote the input itself
 * (yrt_preprocess_f32 + yrt_session_set_input, or yrt_session_set_frame), lb the placement it
 * used (NULL: input pixels): what yrt_session_detect does after its run, with the session's
 * scratch (no allocation), and it keeps what yrt_session_keypoints reads. params NULL: the
 * model's defaults. YRT_ERR_UNSUPPORTED when output 0 is not a detection tensor. */
YRT_API yrt_status yrt_session_postprocess_sized(yrt_session *s, const yrt_letterbox *lb, size_t lb_size,
                                                 const yrt_postprocess_params *params, yrt_detection *dets, int cap,
                                                 int *n_dets, yrt_error *err);
#ifdef YOLORT_BUILDING_LIBRARY
YRT_API yrt_status yrt_session_postprocess(yrt_session *s, const yrt_letterbox *lb,
                                           const yrt_postprocess_params *params, yrt_detection *dets, int cap,
                                           int *n_dets, yrt_error *err);
#else
static inline yrt_status yrt_session_postprocess(yrt_session *s, const yrt_letterbox *lb,
                                                 const yrt_postprocess_params *params, yrt_detection *dets, int cap,
                                                 int *n_dets, yrt_error *err) {
  return yrt_session_postprocess_sized(s, lb, sizeof *lb, params, dets, cap, n_dets, err);
}
#endif

/* The keypoints of detection det_index (0 .. n_dets - 1) of the last yrt_session_detect or
 * yrt_session_postprocess on s, decoded from that run's output (valid until the next run), in
 * the model's keypoint order (COCO: nose, eyes, ears, shoulders, elbows, wrists, hips, knees,
 * ankles). Writes yrt_model_keypoints(model) entries into out (capacity at least that) and their
 * count into *count. A model without keypoints: YRT_OK, *count = 0. YRT_ERR_INVALID_ARG for a
 * det_index that the last call did not return, or a capacity too small. Nothing is allocated. */
YRT_API yrt_status yrt_session_keypoints(yrt_session *s, int det_index, yrt_keypoint *out, int capacity, int *count,
                                         yrt_error *err);

/* ------------------------------------------------------ rotated boxes (obb) */

/* A detection's rotated box, in source-image pixels (letterbox undone, an oriented frame turned
 * back; not clipped: a rotated box may reach past the image). Fields are only ever appended:
 * callers pass sizeof their struct to yrt_session_rbox, which writes that many bytes. */
typedef struct yrt_rbox {
  float cx, cy, w, h;  /* centre, and the sides along angle (w) and across it (h) */
  float angle;         /* radians, in [0, pi/2) (Ultralytics regularize_rboxes: w, h swapped when
                          the model's angle mod pi was >= pi/2), clockwise in image axes (y down) */
  float corners[4][2]; /* x, y of the four corners: Ultralytics xywhr2xyxyxyxy's order
                          (centre + wvec + hvec, + wvec - hvec, - wvec - hvec, - wvec + hvec) */
} yrt_rbox;

/* 1 for a model with rotated boxes (task "obb": output 0 is [1, 4 + classes + 1, anchors], cx, cy,
 * w, h, the class scores, then the angle in radians, written by the fused OBB decode), else 0.
 * For such a model yrt_session_detect / yrt_session_postprocess run the rotated NMS (probabilistic
 * IoU, as Ultralytics nms_rotated), each yrt_detection's x0..y1 is the rotated box's enclosing
 * axis-aligned box (clipped to the image) and yrt_session_rbox gives the rotated box. The plain
 * yrt_postprocess ignores the angle row: use the session's calls for such a model. */
YRT_API int yrt_model_rotated(const yrt_model *model);

/* The rotated box of detection det_index (0 .. n_dets - 1) of the last yrt_session_detect or
 * yrt_session_postprocess on s, from that run's output (valid until the next run). Writes
 * min(out_size, sizeof(yrt_rbox)) bytes into out (pass sizeof *out). YRT_ERR_UNSUPPORTED for a
 * model without rotated boxes; YRT_ERR_INVALID_ARG for a det_index the last call did not return
 * or an out_size below 20 bytes (cx .. angle). Nothing is allocated. */
YRT_API yrt_status yrt_session_rbox(yrt_session *s, int det_index, yrt_rbox *out, size_t out_size, yrt_error *err);

/* ------------------------------------------------------ classification */

/* One class of a classifier's answer (a model whose yrt_model_task is "classify": output 0 holds
 * info.num_classes scores, [1, nc]). */
typedef struct yrt_class_prob {
  int class_id;
  float prob;       /* probability in [0, 1]: output 0 as it is when the graph ends in a Softmax,
                       else the softmax of its logits (recorded by the converter) */
  const char *name; /* class name from the model, NULL when unnamed */
} yrt_class_prob;

/* One call from a camera frame to the top_k classes: yrt_session_set_frame (the frame path's
 * input step, as yrt_session_detect), yrt_session_run, then yrt_session_classify_output. Writes
 * min(top_k, cap, classes) entries sorted by probability (ties: lower class id first) into out,
 * their count into *n. Nothing is allocated. YRT_ERR_UNSUPPORTED (naming the task) when the
 * model is not a classifier: a detector's output is boxes (yrt_session_detect). */
YRT_API yrt_status yrt_session_classify(yrt_session *s, const yrt_frame *frame, int top_k, yrt_class_prob *out,
                                        int cap, int *n, yrt_error *err);

/* The top_k classes of output 0 after a yrt_session_run whose input the caller wrote
 * (yrt_session_set_input, yrt_session_input_nhwc, yrt_session_set_frame); same results and
 * errors as yrt_session_classify. top_k >= 1; NaN scores are never listed. */
YRT_API yrt_status yrt_session_classify_output(yrt_session *s, int top_k, yrt_class_prob *out, int cap, int *n,
                                               yrt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* YOLORT_H */
