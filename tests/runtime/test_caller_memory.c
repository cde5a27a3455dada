/* test_caller_memory.c — issue 38 item 3: a model loaded from a read-only mapping and a session
 * created with caller memory (yrt_allocator) call no libc allocator in load + create + 10 runs;
 * yrt_session_memory_need's figures equal what the allocators were asked for (their high-water
 * marks); the outputs are those of the default path; every allocation failure on the way is
 * refused with YRT_ERR_NOMEM and leaves nothing allocated.
 *
 * libc's allocator is interposed here (malloc & co. forwarding to glibc's __libc_* entry points)
 * and counted while `counting` is set. Under a sanitizer, which owns malloc, that count is left
 * out and the rest still runs. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "convert.h"
#include "pack_target.h"
#include "test_data.h"
#include "yolort.h"
#include "yolort_format.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define YT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define YT_SANITIZED 1
#endif
#if defined(__GLIBC__) && !defined(YT_SANITIZED)
#define YT_COUNT_LIBC 1
#endif

/* ---------------------------------------------------------------- libc's allocator, counted */
#if YT_COUNT_LIBC
static atomic_int counting;     /* test-only: interposition has no other place for it */
static atomic_long libc_calls;
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);
static void seen(void) {
  if (atomic_load(&counting)) atomic_fetch_add(&libc_calls, 1);
}
void *malloc(size_t n) {
  seen();
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t k) {
  seen();
  return __libc_calloc(n, k);
}
void *realloc(void *p, size_t n) {
  seen();
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t a, size_t n) {
  seen();
  return __libc_memalign(a, n);
}
void *memalign(size_t a, size_t n) {
  seen();
  return __libc_memalign(a, n);
}
int posix_memalign(void **p, size_t a, size_t n) {
  seen();
  *p = __libc_memalign(a, n);
  return *p ? 0 : 12; /* ENOMEM */
}
void free(void *p) { __libc_free(p); }
static void count_libc(int on) {
  if (on) atomic_store(&libc_calls, 0);
  atomic_store(&counting, on);
}
static long libc_allocations(void) { return atomic_load(&libc_calls); }
#else
static void count_libc(int on) { (void)on; }
static long libc_allocations(void) { return 0; }
#endif

/* ---------------------------------------------------------------- the caller's memory */
/* A bump allocator over one region mapped before the counted part (no libc allocation behind it);
 * free only counts. fail_at: the n-th alloc (1-based) returns NULL, 0 never. */
typedef struct pool {
  uint8_t *base;
  size_t cap, used;
  size_t live, high, blocks, calls, fail_at;
} pool;

static void *pool_alloc(void *user, size_t size, size_t align) {
  pool *p = user;
  if (++p->calls == p->fail_at) return NULL;
  const size_t at = (p->used + align - 1) / align * align;
  if (at > p->cap || size > p->cap - at) return NULL;
  p->used = at + size;
  p->live += size;
  p->blocks++;
  if (p->live > p->high) p->high = p->live;
  return p->base + at;
}

static void pool_free(void *user, void *ptr, size_t size) {
  pool *p = user;
  assert_non_null(ptr);
  assert_true(p->live >= size);
  p->live -= size;
  p->blocks--;
}

static void pool_reset(pool *p, size_t fail_at) {
  p->used = p->live = p->high = p->blocks = p->calls = 0;
  p->fail_at = fail_at;
}

enum { POOL_BYTES = 64 << 20, RUNS = 10 };

typedef struct fixture {
  void *yrt;       /* the portable .yrt image (the converter's) */
  size_t yrt_size;
  const void *map; /* the same bytes mapped PROT_READ from a file */
  void *packed;    /* packed for this CPU (yolort-convert --target native) */
  size_t packed_size;
  const void *packed_map;
  float *in;
  size_t in_n;
  float *ref;      /* output 0 of the default path */
  size_t ref_n;
  pool mp, sp;     /* the model's and the session's memory */
} fixture;

static void fill(float *x, size_t n) {
  uint32_t v = 12345u;
  for (size_t i = 0; i < n; i++) {
    v = v * 1664525u + 1013904223u;
    x[i] = (float)(v >> 24) / 255.0f;
  }
}

static void run_out(yrt_session *s, const fixture *f, yrt_tensor_view *v) {
  yrt_error err;
  for (int r = 0; r < RUNS; r++) {
    if (yrt_session_set_input(s, 0, f->in, f->in_n, &err) != YRT_OK) fail_msg("set_input: %s", err.msg);
    if (yrt_session_run(s, &err) != YRT_OK) fail_msg("run: %s", err.msg);
  }
  if (yrt_session_output(s, 0, v, &err) != YRT_OK) fail_msg("output: %s", err.msg);
}

static const void *map_readonly(const void *bytes, size_t n) {
  char path[] = "/tmp/yrt_caller_memXXXXXX";
  const int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bytes, n), (ssize_t)n);
  void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  unlink(path);
  assert_true(m != MAP_FAILED);
  return m;
}

/* Group setup; without the data each test skips (or fails under CI=true: need_data). */
static int setup(void **state) {
  char path[4096];
  *state = NULL;
  if (!yt_data_path(path, sizeof path, "models/yolo11n-320.qdq.onnx")) return 0;
  fixture *f = calloc(1, sizeof *f);
  yrt_error err;
  if (yrt_convert_onnx_file(path, NULL, &f->yrt, &f->yrt_size, NULL, &err) != YRT_OK) fail_msg("convert: %s", err.msg);
  f->map = map_readonly(f->yrt, f->yrt_size);
  f->packed = malloc(f->yrt_size);
  memcpy(f->packed, f->yrt, f->yrt_size);
  f->packed_size = f->yrt_size;
  const yrt_status pst = pack_target_apply("native", &f->packed, &f->packed_size, &err);
  if (pst == YRT_ERR_UNSUPPORTED) { /* a CPU without a packed target (ARMv7): the packed tests skip */
    print_message("no packed target on this CPU: %s\n", err.msg);
    free(f->packed);
    f->packed = NULL;
  } else if (pst != YRT_OK) {
    fail_msg("--target native: %s", err.msg);
  } else {
    f->packed_map = map_readonly(f->packed, f->packed_size);
  }
  yrt_model *m = NULL;
  if (yrt_model_load_memory(f->yrt, f->yrt_size, 0, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  yrt_model_info info;
  assert_int_equal(yrt_model_get_info(m, &info), YRT_OK);
  f->in_n = (size_t)3 * (size_t)info.input_w * (size_t)info.input_h;
  f->in = malloc(f->in_n * sizeof *f->in);
  fill(f->in, f->in_n);
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  yrt_session *s = NULL;
  if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("create: %s", err.msg);
  yrt_tensor_view v;
  run_out(s, f, &v);
  f->ref_n = v.count;
  f->ref = malloc(v.count * sizeof *f->ref);
  memcpy(f->ref, v.data, v.count * sizeof *f->ref);
  yrt_session_free(s);
  yrt_model_free(m);
  for (pool *p = &f->mp; p <= &f->sp; p++) {
    p->base = mmap(NULL, POOL_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p->base != MAP_FAILED);
    p->cap = POOL_BYTES;
  }
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  if (!f) return 0;
  munmap((void *)(uintptr_t)f->map, f->yrt_size);
  if (f->packed) munmap((void *)(uintptr_t)f->packed_map, f->packed_size);
  free(f->packed);
  munmap(f->mp.base, POOL_BYTES);
  munmap(f->sp.base, POOL_BYTES);
  free(f->yrt);
  free(f->in);
  free(f->ref);
  free(f);
  return 0;
}

/* Load + need + create + 10 runs from caller memory, the model bytes read-only in place; packed:
 * the file's conv weights are used in place (none packed into the model's memory). */
static void check_budget(fixture *f, const void *image, size_t size, int packed) {
  const yrt_allocator ma = {pool_alloc, pool_free, &f->mp}, sa = {pool_alloc, pool_free, &f->sp};
  pool_reset(&f->mp, 0);
  pool_reset(&f->sp, 0);
  yrt_error err;
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  o.allocator = &sa;
  count_libc(1);
  yrt_model *m = NULL;
  yrt_status st = yrt_model_load_memory_with(image, size, 0, &ma, &m, &err);
  const size_t model_after_load = f->mp.live;
  yrt_session_memory need;
  memset(&need, 0xff, sizeof need);
  if (st == YRT_OK) st = yrt_session_memory_need(m, &o, &need, &err);
  const size_t query_high = f->sp.high, query_live = f->sp.live;
  pool_reset(&f->sp, 0);
  yrt_session *s = NULL;
  if (st == YRT_OK) st = yrt_session_create(m, &o, &s, &err);
  yrt_tensor_view v = {0};
  if (st == YRT_OK) run_out(s, f, &v);
  count_libc(0);
  if (st != YRT_OK) fail_msg("caller memory: %s", err.msg);
  print_message("%s (%zu bytes): model %zu bytes after load, %zu with packed weights (%zu shared); session: "
                "%zu bytes in %zu blocks (arena %zu), %zu bytes of weights in place; libc allocations: %ld\n",
                packed ? "packed" : "portable", size, model_after_load, f->mp.live, need.shared_bytes,
                need.session_bytes, need.session_blocks, need.arena_bytes, need.in_place_bytes, libc_allocations());
  if (packed) {
    assert_true(need.in_place_bytes > 0);
    assert_int_equal(need.shared_bytes, 0);
  } else {
    assert_int_equal(need.in_place_bytes, 0);
    assert_true(need.shared_bytes > 0);
  }
  assert_int_equal(libc_allocations(), 0);
  assert_int_equal(query_live, 0);                    /* the query's session freed every block */
  assert_int_equal(query_high, need.session_bytes);   /* its figure is what it took */
  assert_int_equal(f->sp.high, need.session_bytes);   /* and what the real session takes */
  assert_int_equal(f->sp.live, need.session_bytes);   /* all kept: nothing is freed on the way */
  assert_int_equal(f->sp.blocks, need.session_blocks);
  assert_int_equal(f->mp.live, need.model_bytes);
  assert_int_equal(need.model_bytes - need.shared_bytes, model_after_load);
  assert_true(need.session_bytes >= need.arena_bytes);
  assert_int_equal(v.count, f->ref_n);
  assert_memory_equal(v.data, f->ref, f->ref_n * sizeof *f->ref);
  /* a second session: its own bytes again, the packed weights shared */
  yrt_session_memory again;
  assert_int_equal(yrt_session_memory_need(m, &o, &again, &err), YRT_OK);
  assert_int_equal(again.session_bytes, need.session_bytes);
  assert_int_equal(again.shared_bytes, 0);
  yrt_session_free(s);
  assert_int_equal(f->sp.live, 0);
  yrt_model_free(m);
  assert_int_equal(f->mp.live, 0);
  assert_int_equal(f->mp.blocks, 0);
}

static fixture *need_data(void **state) {
  char path[4096];
  YT_REQUIRE_DATA(path, "models/yolo11n-320.qdq.onnx");
  assert_non_null(*state);
  return *state;
}

/* The fixture, when this CPU has a packed target (else the test skips). */
static fixture *need_packed(void **state) {
  fixture *f = need_data(state);
  if (!f->packed) skip();
  return f;
}

static void test_portable_readonly(void **state) {
  fixture *f = need_data(state);
  check_budget(f, f->map, f->yrt_size, 0);
}

static void test_packed_readonly(void **state) {
  fixture *f = need_packed(state);
  check_budget(f, f->packed_map, f->packed_size, 1);
}

/* A copy of the packed image (64-aligned) and its PACKED section's header and records. */
typedef struct packed_copy {
  uint8_t *img;
  yrt_packed_hdr *h;
  yrt_packed_rec *r;
} packed_copy;

static packed_copy copy_packed(const fixture *f) {
  packed_copy c;
  c.img = aligned_alloc(64, (f->packed_size + 63) / 64 * 64);
  memcpy(c.img, f->packed, f->packed_size);
  yrt_file_view im;
  assert_int_equal(yrt_file_open(c.img, f->packed_size, &im, NULL), YRT_OK);
  assert_non_null(im.packed);
  assert_true(im.packed->n_entries > 2);
  c.h = (yrt_packed_hdr *)(uintptr_t)im.packed;
  c.r = (yrt_packed_rec *)(uintptr_t)im.packed_recs;
  return c;
}

/* Loads the edited copy (resealed); returns its status, the message in err. */
static yrt_status load_edited(const fixture *f, packed_copy *c, size_t size, yrt_error *err) {
  yrt_file_seal(c->img, size);
  yrt_model *m = NULL;
  const yrt_status st = yrt_model_load_memory(c->img, size, 0, &m, err);
  yrt_model_free(m);
  (void)f;
  return st;
}

/* Hostile PACKED sections: refused naming what is wrong, never read out of bounds. */
static void test_packed_hostile(void **state) {
  fixture *f = need_packed(state);
  yrt_error err;
  packed_copy c = copy_packed(f);
  const uint32_t n = c.h->n_entries;
  c.h->target = 99;
  assert_int_equal(load_edited(f, &c, f->packed_size, &err), YRT_ERR_UNSUPPORTED);
  assert_non_null(strstr(err.msg, "PACKED target 99"));
  free(c.img);

  c = copy_packed(f);
  c.h->n_entries = 0x7fffffffu; /* more records than the section holds */
  assert_int_equal(load_edited(f, &c, f->packed_size, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "records but its"));
  free(c.img);

  c = copy_packed(f);
  c.r[1].offset += 8; /* a misaligned block */
  assert_int_equal(load_edited(f, &c, f->packed_size, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "PACKED record 1"));
  free(c.img);

  c = copy_packed(f);
  c.r[n - 1].size = (uint64_t)1 << 40; /* a block past the section */
  assert_int_equal(load_edited(f, &c, f->packed_size, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "outside the section"));
  free(c.img);

  c = copy_packed(f);
  c.r[n - 1].node = 1u << 20; /* a node the model does not have */
  assert_int_equal(load_edited(f, &c, f->packed_size, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "names node"));
  free(c.img);

  c = copy_packed(f);
  c.r[1].node = c.r[0].node; /* records out of order */
  assert_int_equal(load_edited(f, &c, f->packed_size, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "strictly increasing"));
  free(c.img);

  c = copy_packed(f);
  ((yrt_file_header *)(void *)c.img)->flags &= ~(uint32_t)YRT_FLAG_PACKED; /* section without its flag */
  assert_int_equal(load_edited(f, &c, f->packed_size, &err), YRT_ERR_FORMAT);
  assert_non_null(strstr(err.msg, "flag PACKED"));
  free(c.img);

  c = copy_packed(f); /* truncated: the header's size no longer the buffer's */
  yrt_model *m = NULL;
  assert_int_equal(yrt_model_load_memory(c.img, f->packed_size - 64, 0, &m, &err), YRT_ERR_FORMAT);
  free(c.img);
}

/* Blocks that do not fit this CPU's kernels are not used: one record with another layout, or the
 * whole file for another target: packed again as for a portable file, outputs unchanged. */
static void test_packed_mismatch(void **state) {
  fixture *f = need_packed(state);
  const yrt_allocator sa = {pool_alloc, pool_free, &f->sp};
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  o.allocator = &sa;
  yrt_error err;
  for (int whole = 0; whole < 2; whole++) {
    packed_copy c = copy_packed(f);
    const uint32_t target = c.h->target;
    if (whole) c.h->target = target == YRT_PACK_X86_AVX2 ? YRT_PACK_X86_AVX512VNNI : YRT_PACK_X86_AVX2;
    else c.r[0].mr += 1;
    yrt_file_seal(c.img, f->packed_size);
    yrt_model *m = NULL;
    if (yrt_model_load_memory(c.img, f->packed_size, 0, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
    yrt_session_memory need;
    assert_int_equal(yrt_session_memory_need(m, &o, &need, &err), YRT_OK);
    print_message("%s: %zu bytes in place, %zu packed again\n", whole ? "another target" : "one record's layout",
                  need.in_place_bytes, need.shared_bytes);
    if (whole) {
      assert_int_equal(need.in_place_bytes, 0);
    } else {
      assert_true(need.in_place_bytes > 0);
      assert_int_equal(need.shared_bytes, c.r[0].size + 64); /* one block and its header (mem.h) */
    }
    pool_reset(&f->sp, 0);
    yrt_session *s = NULL;
    if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("create: %s", err.msg);
    yrt_tensor_view v;
    run_out(s, f, &v);
    assert_int_equal(v.count, f->ref_n);
    assert_memory_equal(v.data, f->ref, f->ref_n * sizeof *f->ref);
    yrt_session_free(s);
    yrt_model_free(m);
    free(c.img);
  }
}

/* Two threads: the pool's records come from the allocator too and are in the need (the threads'
 * stacks are the C library's, yolort.h); outputs unchanged. */
static void test_two_threads(void **state) {
  fixture *f = need_data(state);
  const yrt_allocator sa = {pool_alloc, pool_free, &f->sp};
  yrt_error err;
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 2;
  o.oversubscribe = 1; /* two even on a one-CPU runner */
  o.allocator = &sa;
  yrt_model *m = NULL;
  if (yrt_model_load_memory(f->map, f->yrt_size, 0, &m, &err) != YRT_OK) fail_msg("load: %s", err.msg);
  yrt_session_memory need;
  pool_reset(&f->sp, 0);
  assert_int_equal(yrt_session_memory_need(m, &o, &need, &err), YRT_OK);
  pool_reset(&f->sp, 0);
  yrt_session *s = NULL;
  if (yrt_session_create(m, &o, &s, &err) != YRT_OK) fail_msg("create: %s", err.msg);
  assert_int_equal(yrt_session_num_threads(s), 2);
  assert_int_equal(f->sp.high, need.session_bytes);
  yrt_tensor_view v;
  run_out(s, f, &v);
  assert_memory_equal(v.data, f->ref, f->ref_n * sizeof *f->ref);
  yrt_session_free(s);
  assert_int_equal(f->sp.live, 0);
  yrt_model_free(m);
}

/* The session's n-th allocation fails, for n over all of them (every 5th, and the last few): each
 * is YRT_ERR_NOMEM with nothing left allocated; the model's packed weights failing likewise. */
static void test_allocation_failures(void **state) {
  fixture *f = need_data(state);
  const yrt_allocator ma = {pool_alloc, pool_free, &f->mp}, sa = {pool_alloc, pool_free, &f->sp};
  yrt_error err;
  yrt_session_options o;
  yrt_session_options_init(&o);
  o.num_threads = 1;
  o.allocator = &sa;
  for (int model_fail = 0; model_fail < 2; model_fail++) {
    pool_reset(&f->mp, 0);
    yrt_model *m = NULL;
    assert_int_equal(yrt_model_load_memory_with(f->map, f->yrt_size, 0, &ma, &m, &err), YRT_OK);
    const size_t load_calls = f->mp.calls;
    pool_reset(&f->sp, 0);
    yrt_session *s = NULL;
    if (model_fail) f->mp.fail_at = load_calls + 3; /* the third packed conv */
    yrt_status st = yrt_session_create(m, &o, &s, &err);
    if (model_fail) {
      assert_int_equal(st, YRT_ERR_NOMEM);
      assert_null(s);
      assert_int_equal(f->sp.live, 0);
      yrt_model_free(m);
      assert_int_equal(f->mp.live, 0);
      continue;
    }
    assert_int_equal(st, YRT_OK);
    const size_t calls = f->sp.calls;
    yrt_session_free(s);
    for (size_t k = 1; k <= calls; k += (k + 4 < calls ? 5 : 1)) {
      pool_reset(&f->sp, k);
      s = NULL;
      st = yrt_session_create(m, &o, &s, &err);
      if (st != YRT_ERR_NOMEM) fail_msg("allocation %zu of %zu failing gave %d: %s", k, calls, (int)st, err.msg);
      assert_null(s);
      if (f->sp.live != 0) fail_msg("allocation %zu of %zu failing left %zu bytes allocated", k, calls, f->sp.live);
    }
    yrt_model_free(m);
    assert_int_equal(f->mp.live, 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_portable_readonly),
      cmocka_unit_test(test_packed_readonly),
      cmocka_unit_test(test_packed_hostile),
      cmocka_unit_test(test_packed_mismatch),
      cmocka_unit_test(test_two_threads),
      cmocka_unit_test(test_allocation_failures),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
