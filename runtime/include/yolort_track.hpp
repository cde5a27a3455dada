/*
 * yolort_track.hpp — header-only C++ wrapper of yolort_track.h (C++11 and later), in the style of
 * yolort.hpp (same Error, Span and ownership rules).
 *
 *   yolort::Tracker tracker(300);                      // capacity; memory allocated once here
 *   std::vector<yrt_track> tracks;                     // reused frame to frame
 *   session.detect(frame, dets);
 *   tracker.update(dets, tracks);                      // stable ids: tracks[i].id
 *
 * update(dets, vec) resizes vec to the tracks of this frame within its capacity (reserve
 * tracker.capacity() once: no allocation afterwards); update(dets, span) writes into the caller's
 * array and returns the count.
 */
#ifndef YOLORT_TRACK_HPP
#define YOLORT_TRACK_HPP

#include "yolort.hpp"
#include "yolort_track.h"

namespace yolort {

/* yrt_tracker_params with yrt_tracker_params_init's defaults. */
inline yrt_tracker_params tracker_params() noexcept {
  yrt_tracker_params p;
  yrt_tracker_params_init(&p);
  return p;
}

/* A yrt_tracker: move-only, freed by its destructor. */
class Tracker {
 public:
  explicit Tracker(int capacity = 300, const yrt_tracker_params &params = tracker_params()) : capacity_(capacity) {
    detail::ErrorBuffer e;
    e.throw_if_failed(yrt_tracker_create(&params, capacity, nullptr, 0, &t_, e.get()));
  }
  ~Tracker() { yrt_tracker_free(t_); }
  Tracker(Tracker &&o) noexcept : t_(o.t_), capacity_(o.capacity_) { o.t_ = nullptr; }
  Tracker &operator=(Tracker &&o) noexcept {
    if (this != &o) {
      yrt_tracker_free(t_);
      t_ = o.t_;
      capacity_ = o.capacity_;
      o.t_ = nullptr;
    }
    return *this;
  }
  Tracker(const Tracker &) = delete;
  Tracker &operator=(const Tracker &) = delete;

  yrt_tracker *get() const noexcept { return t_; }
  int capacity() const noexcept { return capacity_; }
  /* A new video: every track forgotten, ids continue. */
  void reset() noexcept { yrt_tracker_reset(t_); }

  /* The confirmed tracks matched in this frame into out (at most out.size()); returns their count. */
  std::size_t update(Span<const yrt_detection> dets, Span<yrt_track> out) {
    detail::ErrorBuffer e;
    int n = 0;
    e.throw_if_failed(yrt_tracker_update(t_, dets.data(), detail::clamp_cap(dets.size()), out.data(),
                                         detail::clamp_cap(out.size()), &n, e.get()));
    return static_cast<std::size_t>(n);
  }
  /* The same into a vector (resized to the count; sized to the capacity first, once). */
  void update(Span<const yrt_detection> dets, std::vector<yrt_track> &out) {
    if (out.size() < static_cast<std::size_t>(capacity_)) out.resize(static_cast<std::size_t>(capacity_));
    out.resize(update(dets, Span<yrt_track>(out.data(), out.size())));
  }

 private:
  yrt_tracker *t_ = nullptr;
  int capacity_;
};

}  // namespace yolort
#endif /* YOLORT_TRACK_HPP */
