//===- MallocCounter.cpp - counts heap allocations while armed ------------===//
//
// Interposes malloc and friends for this test program (glibc lets an
// executable define them) so a test can prove that running a model does not
// allocate.
//
//===----------------------------------------------------------------------===//

#include "MallocCounter.h"

#include <atomic>
#include <cstddef>

extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
}

static std::atomic<bool> armed{false};
static std::atomic<long> count{0};

void mallocCounterArm() {
  count = 0;
  armed = true;
}
long mallocCounterDisarm() {
  armed = false;
  return count;
}

static void note() {
  if (armed.load(std::memory_order_relaxed))
    count.fetch_add(1, std::memory_order_relaxed);
}

extern "C" {
void *malloc(size_t n) {
  note();
  return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) {
  note();
  return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n) {
  note();
  return __libc_realloc(p, n);
}
void *aligned_alloc(size_t align, size_t n) {
  note();
  return __libc_memalign(align, n);
}
int posix_memalign(void **p, size_t align, size_t n) {
  note();
  *p = __libc_memalign(align, n);
  return *p ? 0 : 12;
}
void free(void *p) { __libc_free(p); }
}
