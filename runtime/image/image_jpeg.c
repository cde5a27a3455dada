/* image_jpeg.c — JPEG decode/encode for yrt_image through libjpeg-turbo's TurboJPEG API.
 * Decoding uses the library defaults (accurate integer IDCT, fancy upsampling), which is what
 * PIL does, so decoded pixels match the reference pre-processing. EXIF orientation is ignored
 * (as PIL's Image.open does). Any libjpeg warning (truncated or corrupt data) is an error:
 * silently returning a half-grey image would poison accuracy numbers. */
#include "yolort_image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>

#include "jpeg_scans.h"
#include "open_regular.h"

/* Adobe CMYK JPEGs store inverted values, so C*K/255 is the red intensity
 * (libjpeg-turbo's own cmyk_to_rgb convention). */
static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, size_t pixels) {
  for (size_t i = 0; i < pixels; i++) {
    unsigned k = cmyk[4 * i + 3];
    for (int c = 0; c < 3; c++) rgb[3 * i + c] = (uint8_t)((cmyk[4 * i + c] * k + 127) / 255);
  }
}

yrt_status yrt_image_decode_jpeg(const void *data, size_t size, yrt_image *out, yrt_error *err) {
  return yrt_image_decode_jpeg_limited(data, size, NULL, out, err);
}

yrt_status yrt_image_decode_jpeg_limited(const void *data, size_t size, const yrt_jpeg_limits *limits,
                                         yrt_image *out, yrt_error *err) {
  if (!out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_image_decode_jpeg: out is NULL");
  out->w = out->h = 0;
  out->rgb = NULL;
  if (!data && size) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_image_decode_jpeg: data is NULL");
  if (size < 4) return yrt_set_error(err, YRT_ERR_FORMAT, "JPEG: %zu bytes is too short to be a JPEG", size);
  if (size > (size_t)0x7fffffff)
    return yrt_set_error(err, YRT_ERR_FORMAT, "JPEG: %zu bytes is larger than supported", size);

  if (limits && (limits->max_side < 0 || limits->max_scans < 0))
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_image_decode_jpeg: negative limit (side %d, scans %d)",
                         limits->max_side, limits->max_scans);
  const int max_side = limits && limits->max_side ? limits->max_side : YRT_JPEG_DEFAULT_MAX_SIDE;
  const uint64_t max_pixels = limits && limits->max_pixels ? limits->max_pixels : YRT_JPEG_DEFAULT_MAX_PIXELS;
  const int max_scans = limits && limits->max_scans ? limits->max_scans : YRT_JPEG_DEFAULT_MAX_SCANS;

  tjhandle tj = tjInitDecompress();
  if (!tj) return yrt_set_error(err, YRT_ERR_NOMEM, "JPEG: tjInitDecompress failed: %s", tjGetErrorStr2(NULL));

  yrt_status st = YRT_OK;
  uint8_t *rgb = NULL, *cmyk = NULL;
  int w = 0, h = 0, subsamp = 0, colorspace = 0;
  const unsigned char *buf = (const unsigned char *)data;
  if (tjDecompressHeader3(tj, buf, (unsigned long)size, &w, &h, &subsamp, &colorspace) != 0) {
    st = yrt_set_error(err, YRT_ERR_FORMAT, "JPEG header: %s", tjGetErrorStr2(tj));
    goto done;
  }
  if (w <= 0 || h <= 0) {
    st = yrt_set_error(err, YRT_ERR_FORMAT, "JPEG header: no frame size (%dx%d); truncated or not a baseline/progressive JPEG", w, h);
    goto done;
  }
  if (w > max_side || h > max_side || (uint64_t)w * (uint64_t)h > max_pixels) {
    st = yrt_set_error(err, YRT_ERR_FORMAT,
                       "JPEG: image size %dx%d is over the limit (%d per side, %llu pixels; yrt_jpeg_limits)", w, h,
                       max_side, (unsigned long long)max_pixels);
    goto done;
  }
  const int scans = yrt_jpeg_count_scans(buf, size, max_scans);
  if (scans > max_scans) {
    st = yrt_set_error(err, YRT_ERR_FORMAT, "JPEG: more than %d scans (yrt_jpeg_limits); decoding cost grows with each",
                       max_scans);
    goto done;
  }
  size_t pixels = (size_t)w * (size_t)h;
  rgb = (uint8_t *)malloc(pixels * 3);
  if (!rgb) {
    st = yrt_set_error(err, YRT_ERR_NOMEM, "JPEG: cannot allocate %dx%d RGB image", w, h);
    goto done;
  }
  int is_cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
  if (is_cmyk) {
    /* libjpeg-turbo cannot convert CMYK to RGB itself. */
    cmyk = (uint8_t *)malloc(pixels * 4);
    if (!cmyk) {
      st = yrt_set_error(err, YRT_ERR_NOMEM, "JPEG: cannot allocate %dx%d CMYK buffer", w, h);
      goto done;
    }
  }
  /* STOPONWARNING: a truncated stream is a failure, not a grey tail. */
  if (tjDecompress2(tj, buf, (unsigned long)size, is_cmyk ? cmyk : rgb, w, 0, h,
                    is_cmyk ? TJPF_CMYK : TJPF_RGB, TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0) {
    st = yrt_set_error(err, YRT_ERR_FORMAT, "JPEG data (%dx%d): %s", w, h, tjGetErrorStr2(tj));
    goto done;
  }
  if (is_cmyk) cmyk_to_rgb(cmyk, rgb, pixels);
  out->w = w;
  out->h = h;
  out->rgb = rgb;
  rgb = NULL;
done:
  free(cmyk);
  free(rgb);
  tjDestroy(tj);
  return st;
}

yrt_status yrt_image_load_jpeg(const char *path, yrt_image *out, yrt_error *err) {
  return yrt_image_load_jpeg_limited(path, NULL, out, err);
}

yrt_status yrt_image_load_jpeg_limited(const char *path, const yrt_jpeg_limits *limits, yrt_image *out,
                                       yrt_error *err) {
  if (!path || !out) return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_image_load_jpeg: NULL argument");
  out->w = out->h = 0;
  out->rgb = NULL;
  /* a directory opens, then reads fail; a FIFO blocks open() itself: regular files only */
  FILE *f = yrt_fopen_regular(path, "image", "rb", err);
  if (!f) return YRT_ERR_IO;
  yrt_status st = YRT_OK;
  uint8_t *data = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
    st = yrt_set_error(err, YRT_ERR_IO, "%s: cannot determine file size", path);
    goto done;
  }
  if (n > 0x7fffffffL) {
    st = yrt_set_error(err, YRT_ERR_FORMAT, "%s: %ld bytes is too large for a JPEG", path, n);
    goto done;
  }
  data = (uint8_t *)malloc(n > 0 ? (size_t)n : 1);
  if (!data) {
    st = yrt_set_error(err, YRT_ERR_NOMEM, "%s: cannot allocate %ld bytes", path, n);
    goto done;
  }
  if (n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n) {
    st = yrt_set_error(err, YRT_ERR_IO, "%s: read failed", path);
    goto done;
  }
  st = yrt_image_decode_jpeg_limited(data, (size_t)n, limits, out, err);
  if (st != YRT_OK && err) {
    /* Prefix the file name: the decoder does not know it. */
    char tmp[sizeof err->msg];
    memcpy(tmp, err->msg, sizeof tmp);
    yrt_set_error(err, st, "%s: %s", path, tmp);
  }
done:
  free(data);
  fclose(f);
  return st;
}

yrt_status yrt_image_encode_jpeg(const yrt_image *img, int quality, void **out, size_t *size, yrt_error *err) {
  if (out) *out = NULL;
  if (size) *size = 0;
  if (!img || !img->rgb || img->w <= 0 || img->h <= 0 || !out || !size)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_image_encode_jpeg: invalid image or NULL result");
  if (quality < 1 || quality > 100)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_image_encode_jpeg: quality %d not in 1..100", quality);
  /* the worst case up front, so the buffer is ours (malloc) and TurboJPEG never reallocates it */
  const unsigned long cap = tjBufSize(img->w, img->h, TJSAMP_420);
  if (cap == (unsigned long)-1 || cap == 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_image_encode_jpeg: %dx%d is too large to encode", img->w,
                         img->h);
  unsigned char *jpeg = malloc(cap);
  if (!jpeg) return yrt_set_error(err, YRT_ERR_NOMEM, "JPEG: cannot allocate %lu bytes to encode %dx%d", cap, img->w,
                                  img->h);
  tjhandle tj = tjInitCompress();
  if (!tj) {
    free(jpeg);
    return yrt_set_error(err, YRT_ERR_NOMEM, "JPEG: tjInitCompress failed: %s", tjGetErrorStr2(NULL));
  }
  unsigned long jsize = cap;
  yrt_status st = YRT_OK;
  if (tjCompress2(tj, img->rgb, img->w, 0, img->h, TJPF_RGB, &jpeg, &jsize, TJSAMP_420, quality, TJFLAG_NOREALLOC) !=
      0) {
    st = yrt_set_error(err, YRT_ERR_FORMAT, "JPEG encode of %dx%d failed: %s", img->w, img->h, tjGetErrorStr2(tj));
    free(jpeg);
  } else {
    *out = jpeg;
    *size = jsize;
  }
  tjDestroy(tj);
  return st;
}

yrt_status yrt_image_save_jpeg(const yrt_image *img, const char *path, int quality, yrt_error *err) {
  if (!img || !path || !img->rgb || img->w <= 0 || img->h <= 0)
    return yrt_set_error(err, YRT_ERR_INVALID_ARG, "yrt_image_save_jpeg: invalid image or path");
  void *jpeg = NULL;
  size_t jsize = 0;
  yrt_status st = yrt_image_encode_jpeg(img, quality, &jpeg, &jsize, err);
  if (st != YRT_OK) {
    if (err) { /* name the file: the encoder does not know it */
      char tmp[sizeof err->msg];
      memcpy(tmp, err->msg, sizeof tmp);
      yrt_set_error(err, st, "%s: %s", path, tmp);
    }
    return st;
  }
  FILE *f = fopen(path, "wb");
  if (!f) {
    st = yrt_set_error(err, YRT_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
  } else {
    size_t wr = fwrite(jpeg, 1, jsize, f);
    int cl = fclose(f);
    if (wr != jsize || cl != 0) st = yrt_set_error(err, YRT_ERR_IO, "%s: write failed", path);
  }
  free(jpeg);
  return st;
}

void yrt_image_free(yrt_image *img) {
  if (!img) return;
  free(img->rgb);
  img->rgb = NULL;
  img->w = img->h = 0;
}
