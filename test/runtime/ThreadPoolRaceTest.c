/*===- ThreadPoolRaceTest.c - the runtime's thread pool under ThreadSanitizer -===*
 *
 * Built with -fsanitize=thread together with runtime.c. Timing-based tests
 * (RuntimeTest's ThreadPool) catch a race only when the threads happen to
 * collide; ThreadSanitizer reports any unsynchronized pair of accesses
 * whether or not they collided in this run (it found a plain increment of
 * busy_workers racing with a worker's atomic decrement, which once left CI
 * waiting for ever). Tasks write their slot plainly and the caller reads it
 * plainly after the region: the pool itself must order those accesses. The
 * same holds for the scratch slot each call is given: two calls running at
 * once never share one, so plain writes to it do not race.
 *
 *===----------------------------------------------------------------------===*/
#include "runtime_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  int runs[16];
  int tasks;         /* n of the region */
  int scratch[16];   /* per slot, written plainly */
  int busy[16];      /* per slot, atomic: a call is using it */
  int bad_slot;      /* atomic: a slot out of range, or shared at once */
} region;

static int32_t count_run(const void *const *args, int64_t i, int64_t slot) {
  region *r;
  memcpy(&r, &args[0], sizeof r); /* the region is written: not const */
  ++r->runs[i];
  if (slot < 0 || slot >= r->tasks) {
    __atomic_store_n(&r->bad_slot, 1, __ATOMIC_RELAXED);
    return 0;
  }
  if (__atomic_exchange_n(&r->busy[slot], 1, __ATOMIC_ACQUIRE))
    __atomic_store_n(&r->bad_slot, 2, __ATOMIC_RELAXED);
  for (int k = 0; k < 50; ++k) /* some work on the slot's scratch */
    r->scratch[slot] += k;
  __atomic_store_n(&r->busy[slot], 0, __ATOMIC_RELEASE);
  return 0;
}

static int32_t fail_odd(const void *const *args, int64_t i, int64_t slot) {
  (void)args;
  (void)slot;
  return i % 2 ? 7 : 0;
}

int main(void) {
  static unsigned char weights[64] __attribute__((aligned(64)));
  static nunc_rt_ctx ctx;
  const int thread_counts[] = {2, 3, 8};
  for (unsigned t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; ++t) {
    nunc_options opt = {0};
    opt.num_threads = thread_counts[t];
    if (nunc_rt_init(&ctx, NULL, 0, weights, &opt, 0) != NUNC_OK) {
      fprintf(stderr, "init failed\n");
      return 1;
    }
    /* Small and large regions alternate, so that workers wake late for
     * regions the caller already finished alone. */
    for (int r = 0; r < 3000; ++r) {
      int n = r % 2 ? 2 : 16;
      region reg = {{0}};
      reg.tasks = n;
      const void *args[] = {&reg};
      if (nunc_rt_parallel(&ctx, n, count_run, args) != 0) {
        fprintf(stderr, "a task reported an error\n");
        return 1;
      }
      if (reg.bad_slot) {
        fprintf(stderr, "%d threads, region %d: a scratch slot %s\n", thread_counts[t], r,
                reg.bad_slot == 1 ? "out of range" : "used by two calls at once");
        return 1;
      }
      for (int i = 0; i < 16; ++i)
        if (reg.runs[i] != (i < n)) {
          fprintf(stderr, "%d threads, region %d: task %d ran %d times\n", thread_counts[t], r,
                  i, reg.runs[i]);
          return 1;
        }
    }
    if (nunc_rt_parallel(&ctx, 16, fail_odd, NULL) != 7) {
      fprintf(stderr, "a task's error was lost\n");
      return 1;
    }
    nunc_rt_destroy(&ctx);
  }
  return 0;
}
