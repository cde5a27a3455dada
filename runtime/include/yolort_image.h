/*
 * yolort_image.h — the optional image library (libyolort_image, CMake target yolort::image,
 * pkg-config yolort-image): JPEG decode/encode through libjpeg-turbo and drawing detections.
 * The runtime (yolort.h) needs neither: camera frames go in through yrt_frame.
 */
#ifndef YOLORT_IMAGE_H
#define YOLORT_IMAGE_H

#include "yolort.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a JPEG may cost before decoding starts (checked from the header and markers, so a
 * hostile file is refused early with YRT_ERR_FORMAT naming the limit). A progressive scan is a
 * pass over the whole image: scans x pixels is the decode time, and a progressive image keeps a
 * coefficient buffer of about 2 bytes per sample. 0 in a field means its default. */
#define YRT_JPEG_DEFAULT_MAX_SIDE 16384
#define YRT_JPEG_DEFAULT_MAX_PIXELS (UINT64_C(50) << 20) /* 50 Mpx: 8192x6144, 48 MP phones */
#define YRT_JPEG_DEFAULT_MAX_SCANS 64 /* libjpeg's progressive scripts use about 10 */
typedef struct yrt_jpeg_limits {
  int max_side;        /* width and height */
  uint64_t max_pixels; /* width * height */
  int max_scans;       /* SOS markers (1 for a baseline JPEG) */
} yrt_jpeg_limits;

/* Decode a JPEG (libjpeg-turbo) into a new RGB image. Corrupt data, or an image over the default
 * limits above -> YRT_ERR_FORMAT. */
YRT_API yrt_status yrt_image_decode_jpeg(const void *data, size_t size, yrt_image *out, yrt_error *err);
YRT_API yrt_status yrt_image_load_jpeg(const char *path, yrt_image *out, yrt_error *err);
/* The same with the caller's limits (NULL = defaults). */
YRT_API yrt_status yrt_image_decode_jpeg_limited(const void *data, size_t size,
                                                 const yrt_jpeg_limits *limits, yrt_image *out,
                                                 yrt_error *err);
YRT_API yrt_status yrt_image_load_jpeg_limited(const char *path, const yrt_jpeg_limits *limits,
                                               yrt_image *out, yrt_error *err);
YRT_API yrt_status yrt_image_save_jpeg(const yrt_image *img, const char *path, int quality, yrt_error *err);
/* Encode to memory (quality 1..100, 4:2:0): *out is a malloc()ed buffer of *size bytes the caller
 * free()s. For writers that must not leave a half-written file (yolort-detect -o: a temporary
 * file + rename()); yrt_image_save_jpeg is this plus a plain write to path. */
YRT_API yrt_status yrt_image_encode_jpeg(const yrt_image *img, int quality, void **out, size_t *size,
                                         yrt_error *err);
/* Frees an image made by the decoders above (img->rgb) and zeroes it. */
YRT_API void yrt_image_free(yrt_image *img);

/* Draw boxes onto img (2 px outline, one colour per class) with the class name (the class id when
 * unnamed) and score on a tag, "person 0.87", in a 5x7 font scaled with the image (2x at 640 px,
 * 3x at 1280) so it stays readable; non-ASCII bytes of a name show as '?'. */
YRT_API void yrt_draw_detections(yrt_image *img, const yrt_detection *dets, int n);
/* Blend a binary mask (img->h rows of img->w bytes, stride apart; non-zero = on, e.g.
 * yrt_session_mask) into the image: half the class's box colour, half the image. */
YRT_API void yrt_draw_mask(yrt_image *img, const uint8_t *mask, size_t stride, int class_id);
/* Draw one detection's n keypoints (yrt_session_keypoints) onto img: a dot each, and for 17
 * (COCO) the skeleton's limbs between them; keypoints scoring below min_score are left out
 * (Ultralytics draws those over 0.5). */
YRT_API void yrt_draw_keypoints(yrt_image *img, const yrt_keypoint *kpts, int n, float min_score);
/* Draw one rotated box (yrt_session_rbox) onto img: its four sides 2 px wide in the class's
 * colour, the class id on a tag at its first corner; clipped to the image. */
YRT_API void yrt_draw_rbox(yrt_image *img, const yrt_rbox *r, int class_id);

#ifdef __cplusplus
}
#endif
#endif /* YOLORT_IMAGE_H */
