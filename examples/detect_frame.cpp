// detect_frame.cpp — detect_frame.c through the C++ wrapper yolort.hpp: load a model, detect the
// objects of one NV12 camera frame, print them (the same lines as detect_frame.c). Errors are
// yolort::Error exceptions carrying the C message and status.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "yolort.hpp"

int main(int argc, char **argv) {
  if (argc != 5) return std::fprintf(stderr, "usage: detect_frame_cpp MODEL.yrt FRAME.nv12 WIDTH HEIGHT\n"), 2;
  const int w = std::atoi(argv[3]), h = std::atoi(argv[4]);
  std::ifstream in(argv[2], std::ios::binary);
  const std::vector<std::uint8_t> nv12((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t y_size = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  if (w < 1 || h < 1 || nv12.size() < y_size + 2 * static_cast<std::size_t>((w + 1) / 2) * static_cast<std::size_t>((h + 1) / 2))
    return std::fprintf(stderr, "cannot read %s\n", argv[2]), 1;
  try {
    const yolort::Model model = yolort::Model::load_file(argv[1]);
    yolort::Session session(model);  // default options: one thread per online CPU
    const yrt_frame frame = yolort::nv12_frame(w, h, nv12.data(), static_cast<std::size_t>(w), nv12.data() + y_size,
                                               2 * static_cast<std::size_t>((w + 1) / 2));
    for (const yrt_detection &d : session.detect(frame))
      std::printf("%-12s %.2f  [%.0f, %.0f, %.0f, %.0f]\n", d.name ? d.name : "?", static_cast<double>(d.score),
                  static_cast<double>(d.x0), static_cast<double>(d.y0), static_cast<double>(d.x1),
                  static_cast<double>(d.y1));
  } catch (const yolort::Error &e) {
    return std::fprintf(stderr, "detect_frame_cpp: %s (%s)\n", e.what(), e.status_name()), 1;
  }
  return 0;
}
