/*
 * yolort.hpp — header-only C++ wrapper over the C API of yolort.h (C++11 and later).
 *
 *   #include <yolort.hpp>
 *
 *   yolort::Model model = yolort::Model::load_file("model.yrt");       // or load_memory
 *   yolort::Session session(model, yolort::session_options(2));         // 2 threads
 *   yrt_frame frame = yolort::nv12_frame(1920, 1080, y, y_stride, uv, uv_stride);
 *   std::vector<yrt_detection> dets;                                    // reused frame to frame
 *   session.detect(frame, dets);                                        // throws yolort::Error
 *   for (const yrt_detection &d : dets) ... d.x0, d.y0, d.x1, d.y1, d.score, d.class_id, d.name
 *
 * What it adds over yolort.h, and nothing else:
 *  - Ownership. Model and Session are move-only RAII handles: the destructor frees (a moved-from
 *    handle is empty and frees nothing). get() / release() and the adopting constructors give
 *    the C handle for calls this wrapper does not cover. The C rules stay: a Session refers to
 *    its Model (destroy sessions first; moving a Model keeps its sessions valid), a Model may be
 *    shared by sessions on several threads, a Session is used by one thread at a time.
 *  - Errors as exceptions (the default, and the only mode): every call whose C function returns
 *    a yrt_status other than YRT_OK throws yolort::Error, a std::runtime_error whose what() is the
 *    C error message (it names what failed: the file, the field) and whose status() is the
 *    yrt_status. Calls that cannot fail are noexcept. Built without exceptions (-fno-exceptions),
 *    an error prints the message to stderr and aborts; use the C API where that is not wanted.
 *  - Spans for buffers: yolort::Span<T>, a pointer + size view (std::span is C++20), made from a
 *    pointer and a count, an array or a std::vector; Span<const float> for outputs (valid until
 *    the next run of the session).
 *
 * The plain C structs (yrt_frame, yrt_detection, yrt_postprocess_params, yrt_session_options,
 * yrt_model_info, yrt_letterbox) are used as they are; session_options(), postprocess_params()
 * and the frame helpers return them initialised (struct_size set, as the C init functions do).
 * As in the C API the per-frame calls allocate nothing, except detect(frame) returning a new vector
 * (detect(frame, vec) keeps vec's capacity: one allocation for the first frame).
 */
#ifndef YOLORT_HPP
#define YOLORT_HPP

#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#if !defined(__cpp_exceptions) && !defined(__EXCEPTIONS)
#include <cstdio>
#include <cstdlib>
#define YOLORT_HPP_NO_EXCEPTIONS 1
#endif

#include "yolort.h"

namespace yolort {

/* ------------------------------------------------------------------ errors */

/* A failed yolort call: what() is the C API's message, status() its yrt_status. */
class Error : public std::runtime_error {
 public:
  Error(yrt_status status, const std::string &message) : std::runtime_error(message), status_(status) {}
  yrt_status status() const noexcept { return status_; }
  /* "YRT_ERR_IO" ... */
  const char *status_name() const noexcept { return yrt_status_name(status_); }

 private:
  yrt_status status_;
};

namespace detail {

[[noreturn]] inline void throw_status(yrt_status status, const char *message) {
  const char *msg = message && message[0] ? message : yrt_status_name(status);
#ifdef YOLORT_HPP_NO_EXCEPTIONS
  std::fprintf(stderr, "yolort: %s (%s)\n", msg, yrt_status_name(status));
  std::abort();
#else
  throw Error(status, msg);
#endif
}

/* An empty message buffer for one C call. */
struct ErrorBuffer {
  yrt_error err;
  ErrorBuffer() noexcept { err.msg[0] = '\0'; }
  yrt_error *get() noexcept { return &err; }
  void throw_if_failed(yrt_status status) const {
    if (status != YRT_OK) throw_status(status, err.msg);
  }
};

inline int clamp_cap(std::size_t n) noexcept { return n > static_cast<std::size_t>(INT_MAX) ? INT_MAX : static_cast<int>(n); }

}  // namespace detail

/* ------------------------------------------------------------------- spans */

/* A pointer + size view of contiguous T (std::span's subset this API needs; C++11). */
template <class T>
class Span {
 public:
  typedef T element_type;
  typedef typename std::remove_const<T>::type value_type;

  Span() noexcept : data_(nullptr), size_(0) {}
  Span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <std::size_t N>
  Span(T (&array)[N]) noexcept : data_(array), size_(N) {}
  Span(std::vector<value_type> &v) noexcept : data_(v.data()), size_(v.size()) {}
  template <class U = T, class = typename std::enable_if<std::is_const<U>::value>::type>
  Span(const std::vector<value_type> &v) noexcept : data_(v.data()), size_(v.size()) {}
  /* Span<T> -> Span<const T> */
  template <class U, class = typename std::enable_if<std::is_convertible<U (*)[], T (*)[]>::value>::type>
  Span(const Span<U> &other) noexcept : data_(other.data()), size_(other.size()) {}

  T *data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T *begin() const noexcept { return data_; }
  T *end() const noexcept { return data_ + size_; }
  T &operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  T *data_;
  std::size_t size_;
};

/* ---------------------------------------------------------- C structs, set up */

/* yrt_session_options with yrt_session_options_init's defaults and num_threads (0: one per online
 * CPU), isa_cap (NULL: everything the CPU has; else e.g. "avx2", "scalar": read once when the
 * Session is made, so a literal or any string alive until then) and allocator (NULL: libc; the
 * struct is copied by the Session, its user state must outlive the Session). The other members
 * (arena, max_arena_bytes, thread_pool, oversubscribe) are set on the returned struct. */
inline yrt_session_options session_options(int num_threads = 0, const char *isa_cap = nullptr,
                                           const yrt_allocator *allocator = nullptr) noexcept {
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = num_threads;
  o.isa_cap = isa_cap;
  o.allocator = allocator;
  return o;
}

/* yrt_postprocess_params with the defaults (conf 0.25, IoU 0.45, 300 detections). */
inline yrt_postprocess_params postprocess_params() noexcept {
  yrt_postprocess_params p;
  yrt_postprocess_params_init(&p);
  return p;
}

/* A packed frame (RGB888, BGR888, RGBA8888, BGRA8888, GRAY8): one plane, stride bytes per row. */
inline yrt_frame packed_frame(yrt_pixel_format format, int width, int height, const std::uint8_t *data,
                              std::size_t stride) noexcept {
  yrt_frame f;
  yrt_frame_init(&f);
  f.format = format;
  f.width = width;
  f.height = height;
  f.plane[0] = data;
  f.stride[0] = stride;
  return f;
}

/* An NV12 (or, with format YRT_PIX_NV21, NV21) frame: Y plane and interleaved chroma plane. */
inline yrt_frame nv12_frame(int width, int height, const std::uint8_t *y, std::size_t y_stride,
                            const std::uint8_t *uv, std::size_t uv_stride,
                            yrt_pixel_format format = YRT_PIX_NV12) noexcept {
  yrt_frame f = packed_frame(format, width, height, y, y_stride);
  f.plane[1] = uv;
  f.stride[1] = uv_stride;
  return f;
}

/* Version of the linked library ("0.1.0"); YOLORT_VERSION_STRING is the header's. */
inline const char *version() noexcept { return yrt_version(); }

/* ------------------------------------------------------------------- model */

/* An owned yrt_model: immutable after loading, shareable by sessions on several threads. */
class Model {
 public:
  Model() noexcept : m_(nullptr) {}
  /* Takes ownership of a model from yrt_model_load_* (NULL: empty). */
  explicit Model(yrt_model *adopt) noexcept : m_(adopt) {}
  ~Model() { yrt_model_free(m_); }
  Model(Model &&other) noexcept : m_(other.m_) { other.m_ = nullptr; }
  Model &operator=(Model &&other) noexcept {
    if (this != &other) {
      yrt_model_free(m_);
      m_ = other.m_;
      other.m_ = nullptr;
    }
    return *this;
  }
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  /* Map a .yrt file read-only and validate it. Throws Error (YRT_ERR_IO naming the path, ...). */
  static Model load_file(const std::string &path) {
    detail::ErrorBuffer e;
    yrt_model *m = nullptr;
    e.throw_if_failed(yrt_model_load_file(path.c_str(), &m, e.get()));
    return Model(m);
  }
  /* Validate a .yrt image in memory. copy (the default) takes a copy; without it the bytes are
   * used in place: 64-byte aligned, unchanged and alive until the Model is destroyed. allocator:
   * the model's blocks from it (yrt_model_load_memory_with; its user state must outlive the
   * Model), NULL: libc. */
  static Model load_memory(const void *data, std::size_t size, bool copy = true,
                           const yrt_allocator *allocator = nullptr) {
    detail::ErrorBuffer e;
    yrt_model *m = nullptr;
    e.throw_if_failed(yrt_model_load_memory_with(data, size, copy ? 1 : 0, allocator, &m, e.get()));
    return Model(m);
  }

  yrt_model_info info() const {
    yrt_model_info i;
    const yrt_status s = yrt_model_get_info(m_, &i);
    if (s != YRT_OK) detail::throw_status(s, "yrt_model_get_info: no model");
    return i;
  }
  /* Class name of id, NULL when out of range or unnamed (points into the model). */
  const char *class_name(int class_id) const noexcept { return yrt_model_class_name(m_, class_id); }
  /* "detect", "segment", "pose", "classify" or "" (unknown, or an empty Model). */
  const char *task() const noexcept { return yrt_model_task(m_); }
  /* Mask coefficients per detection of a segment model whose masks Session::mask computes, else 0. */
  int mask_channels() const noexcept { return yrt_model_mask_channels(m_); }
  /* Keypoints per detection of a pose model (yrt_model_keypoints), 0 for others. */
  int keypoints() const noexcept { return yrt_model_keypoints(m_, nullptr); }
  /* Whether the model gives rotated boxes (an obb model, yrt_model_rotated). */
  bool rotated() const noexcept { return yrt_model_rotated(m_) != 0; }

  const yrt_model *get() const noexcept { return m_; }
  /* Gives up ownership: the caller frees with yrt_model_free. */
  yrt_model *release() noexcept {
    yrt_model *m = m_;
    m_ = nullptr;
    return m;
  }
  explicit operator bool() const noexcept { return m_ != nullptr; }

 private:
  yrt_model *m_;
};

/* ----------------------------------------------------------------- outputs */

/* An output tensor in logical (ONNX) order, valid until the session's next run. */
class Tensor {
 public:
  explicit Tensor(const yrt_tensor_view &view) noexcept : v_(view) {}
  Span<const float> data() const noexcept { return Span<const float>(v_.data, v_.count); }
  std::size_t size() const noexcept { return v_.count; }
  int rank() const noexcept { return v_.rank; }
  Span<const int> shape() const noexcept { return Span<const int>(v_.dims, static_cast<std::size_t>(v_.rank)); }
  const yrt_tensor_view &c_view() const noexcept { return v_; }

 private:
  yrt_tensor_view v_;
};

/* ----------------------------------------------------------------- session */

/* An owned yrt_session: one thread at a time; the Model must outlive it. */
class Session {
 public:
  Session() noexcept : s_(nullptr) {}
  /* Takes ownership of a session from yrt_session_create (NULL: empty). */
  explicit Session(yrt_session *adopt) noexcept : s_(adopt) {}
  /* Creates the session (all its allocation happens here). Throws Error. */
  explicit Session(const Model &model) : s_(create(model, nullptr)) {}
  Session(const Model &model, const yrt_session_options &options) : s_(create(model, &options)) {}
  ~Session() { yrt_session_free(s_); }
  Session(Session &&other) noexcept : s_(other.s_) { other.s_ = nullptr; }
  Session &operator=(Session &&other) noexcept {
    if (this != &other) {
      yrt_session_free(s_);
      s_ = other.s_;
      other.s_ = nullptr;
    }
    return *this;
  }
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /* Threads the session runs on, the calling thread included (0 for an empty Session). */
  int num_threads() const noexcept { return yrt_session_num_threads(s_); }

  /* Frame to detections (set_frame + run + decode + NMS): at most out.size() detections, sorted
   * by score, boxes in frame pixels. params NULL: the defaults. Returns how many were written. */
  std::size_t detect(const yrt_frame &frame, Span<yrt_detection> out, const yrt_postprocess_params *params = nullptr) {
    detail::ErrorBuffer e;
    int n = 0;
    e.throw_if_failed(yrt_session_detect(s_, &frame, params, out.data(), detail::clamp_cap(out.size()), &n, e.get()));
    return static_cast<std::size_t>(n);
  }
  /* The same into a vector, resized to the detections found (at most params->max_detections,
   * default 300); its capacity is kept, so a vector reused frame to frame allocates once. */
  void detect(const yrt_frame &frame, std::vector<yrt_detection> &out, const yrt_postprocess_params *params = nullptr) {
    const int cap = params && params->max_detections > 0 ? params->max_detections : 300;
    out.resize(static_cast<std::size_t>(cap));
    try_detect_into(frame, out, params);
  }
  std::vector<yrt_detection> detect(const yrt_frame &frame, const yrt_postprocess_params *params = nullptr) {
    std::vector<yrt_detection> out;
    detect(frame, out, params);
    return out;
  }

  /* The binary mask of detection det_index of the last detect() (a segment model: yolort.h
   * yrt_session_mask): height rows of width bytes, stride apart, at the frame's size. */
  void mask(int det_index, Span<std::uint8_t> out, int width, int height, std::size_t stride) {
    detail::ErrorBuffer e;
    if (height > 0 && stride >= static_cast<std::size_t>(width) &&
        out.size() < (static_cast<std::size_t>(height) - 1) * stride + static_cast<std::size_t>(width))
      detail::throw_status(YRT_ERR_INVALID_ARG, "yrt_session_mask: the span is smaller than height rows of stride");
    e.throw_if_failed(yrt_session_mask(s_, det_index, out.data(), width, height, stride, e.get()));
  }

  /* A pose model's keypoints of detection i of the last detect (yrt_session_keypoints), in image
   * pixels: out resized to the model's keypoint count (0 for a model without keypoints); a
   * vector reused detection to detection allocates once. */
  void keypoints(int i, std::vector<yrt_keypoint> &out) {
    detail::ErrorBuffer e;
    out.resize(1024); /* the most keypoints a model has (POSE_DECODE's bound) */
    int n = 0;
    e.throw_if_failed(yrt_session_keypoints(s_, i, out.data(), static_cast<int>(out.size()), &n, e.get()));
    out.resize(static_cast<std::size_t>(n));
  }

  /* An obb model's rotated box of detection i of the last detect (yrt_session_rbox), in image
   * pixels; a model without rotated boxes throws YRT_ERR_UNSUPPORTED. */
  yrt_rbox rbox(int i) {
    detail::ErrorBuffer e;
    yrt_rbox r;
    e.throw_if_failed(yrt_session_rbox(s_, i, &r, sizeof r, e.get()));
    return r;
  }

  /* Letterbox the frame into the input (yrt_session_set_frame); returns the placement. */
  yrt_letterbox set_frame(const yrt_frame &frame) {
    detail::ErrorBuffer e;
    yrt_letterbox lb;
    e.throw_if_failed(yrt_session_set_frame(s_, &frame, &lb, e.get()));
    return lb;
  }
  /* Copy a logical NCHW float input [1,3,H,W]. */
  void set_input(int index, Span<const float> nchw) {
    detail::ErrorBuffer e;
    e.throw_if_failed(yrt_session_set_input(s_, index, nchw.data(), nchw.size(), e.get()));
  }
  /* Input `index` stored NHWC float, to write in place; empty when out of range / not float. */
  Span<float> input_nhwc(int index) noexcept {
    float *p = yrt_session_input_nhwc(s_, index);
    return p ? Span<float>(p, yrt_session_input_count(s_, index)) : Span<float>();
  }
  void run() {
    detail::ErrorBuffer e;
    e.throw_if_failed(yrt_session_run(s_, e.get()));
  }
  /* Output `index` in logical order (after yrt_session_detect: see yolort.h). */
  Tensor output(int index) {
    detail::ErrorBuffer e;
    yrt_tensor_view v;
    e.throw_if_failed(yrt_session_output(s_, index, &v, e.get()));
    return Tensor(v);
  }
  /* Stop the current (or next) run: it throws Error with YRT_ERR_CANCELLED. Any thread. */
  void cancel() noexcept { yrt_session_cancel(s_); }

  void set_profiling(bool enable) noexcept { yrt_session_set_profiling(s_, enable ? 1 : 0); }
  /* Per-node wall time of the last run, ns (profiling on). */
  std::vector<std::uint64_t> node_times() const {
    std::vector<std::uint64_t> ns(static_cast<std::size_t>(yrt_session_node_times(s_, nullptr, 0)));
    if (!ns.empty()) yrt_session_node_times(s_, ns.data(), static_cast<int>(ns.size()));
    return ns;
  }

  yrt_session *get() const noexcept { return s_; }
  /* Gives up ownership: the caller frees with yrt_session_free. */
  yrt_session *release() noexcept {
    yrt_session *s = s_;
    s_ = nullptr;
    return s;
  }
  explicit operator bool() const noexcept { return s_ != nullptr; }

 private:
  static yrt_session *create(const Model &model, const yrt_session_options *options) {
    detail::ErrorBuffer e;
    yrt_session *s = nullptr;
    e.throw_if_failed(yrt_session_create(model.get(), options, &s, e.get()));
    return s;
  }
  void try_detect_into(const yrt_frame &frame, std::vector<yrt_detection> &out, const yrt_postprocess_params *params) {
    std::size_t n = 0;
#ifndef YOLORT_HPP_NO_EXCEPTIONS
    try {
      n = detect(frame, Span<yrt_detection>(out), params);
    } catch (...) {
      out.clear();
      throw;
    }
#else
    n = detect(frame, Span<yrt_detection>(out), params);
#endif
    out.resize(n);
  }

  yrt_session *s_;
};

}  // namespace yolort

#endif /* YOLORT_HPP */
