/*===- runtime.c - thread pool, CPU check and status strings --------------===*
 *
 * Linked into every generated library; depends on libc and pthread only and
 * never allocates (contexts live in caller memory).
 *
 *===----------------------------------------------------------------------===*/
#include "runtime_internal.h"

#include <cpuid.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Weak: several generated libraries each carry a copy; any one will do. */
__attribute__((weak)) const char *nunc_status_str(nunc_status status) {
  switch (status) {
  case NUNC_OK: return "ok";
  case NUNC_ERR_INVALID_ARGUMENT: return "invalid argument";
  case NUNC_ERR_INVALID_INPUT: return "invalid input data";
  case NUNC_ERR_UNSUPPORTED_CPU: return "the CPU lacks features the model was compiled for";
  case NUNC_ERR_THREADS: return "worker threads could not be started";
  case NUNC_ERR_NOT_INITIALIZED: return "the context is not initialized";
  }
  return "unknown status";
}

/*===----------------------------------------------------------------------===*
 * CPU features
 *===----------------------------------------------------------------------===*/

static uint64_t xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

static uint32_t detect_cpu(void) {
  unsigned a, b, c, d;
  uint32_t have = 0;
  if (!__get_cpuid_count(1, 0, &a, &b, &c, &d))
    return 0;
  int osxsave = (c >> 27) & 1;
  int fma = (c >> 12) & 1, f16c = (c >> 29) & 1;
  uint64_t xcr0 = osxsave ? xgetbv0() : 0;
  int ymm = (xcr0 & 0x6) == 0x6, zmm = (xcr0 & 0xe6) == 0xe6;
  int tiles = (xcr0 & 0x60000) == 0x60000;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return 0;
  if (ymm && ((b >> 5) & 1)) have |= NUNC_CPU_AVX2;
  if (ymm && fma) have |= NUNC_CPU_FMA;
  if (ymm && f16c) have |= NUNC_CPU_F16C;
  if (zmm && ((b >> 16) & 1)) have |= NUNC_CPU_AVX512F;
  if (zmm && ((b >> 17) & 1)) have |= NUNC_CPU_AVX512DQ;
  if (zmm && ((b >> 30) & 1)) have |= NUNC_CPU_AVX512BW;
  if (zmm && ((b >> 31) & 1)) have |= NUNC_CPU_AVX512VL;
  if (zmm && ((c >> 11) & 1)) have |= NUNC_CPU_AVX512VNNI;
  if (tiles && ((d >> 24) & 1) && ((d >> 25) & 1)) have |= NUNC_CPU_AMX;
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d) && ymm && ((a >> 4) & 1))
    have |= NUNC_CPU_AVXVNNI;
  return have;
}

static void append(char *buf, size_t size, const char *name) {
  size_t len = strlen(buf);
  if (len && len + 1 < size)
    buf[len++] = ' ', buf[len] = 0;
  for (; *name && len + 1 < size; ++name)
    buf[len++] = *name;
  buf[len < size ? len : size - 1] = 0;
}

nunc_status nunc_rt_check_cpu(uint32_t required, char *missing, size_t size) {
  static const struct { uint32_t bit; const char *name; } names[] = {
      {NUNC_CPU_AVX2, "avx2"}, {NUNC_CPU_FMA, "fma"}, {NUNC_CPU_AVX512F, "avx512f"},
      {NUNC_CPU_AVX512BW, "avx512bw"}, {NUNC_CPU_AVX512VL, "avx512vl"},
      {NUNC_CPU_AVX512DQ, "avx512dq"}, {NUNC_CPU_AVX512VNNI, "avx512vnni"},
      {NUNC_CPU_AVXVNNI, "avxvnni"}, {NUNC_CPU_AMX, "amx"}, {NUNC_CPU_F16C, "f16c"}};
  uint32_t have = detect_cpu();
  /* Pretend the CPU has only these features (hex NUNC_CPU_* bits): lets tests
   * and users check the unsupported-CPU path on any machine. */
  const char *force = getenv("NUNC_CPU_FEATURES_OVERRIDE");
  if (force && *force)
    have &= (uint32_t)strtoul(force, NULL, 16);
  if (missing && size)
    missing[0] = 0;
  uint32_t lacking = required & ~have;
  if ((required & NUNC_CPU_AMX) && !(lacking & NUNC_CPU_AMX)) {
    /* Linux hands out AMX tile state only on request. */
    if (syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) != 0)
      lacking |= NUNC_CPU_AMX;
  }
  if (!lacking)
    return NUNC_OK;
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; ++i)
    if (missing && size && (lacking & names[i].bit))
      append(missing, size, names[i].name);
  return NUNC_ERR_UNSUPPORTED_CPU;
}

/*===----------------------------------------------------------------------===*
 * Thread pool
 *===----------------------------------------------------------------------===*/

/* One step of a spin wait. Every 64th step gives the core away: when the
 * thread being waited for shares this core (more threads than free cores:
 * another process, or the hypervisor holding a vCPU), a pure `pause` spin
 * burns the time slice it needs (measured: 2 threads on one core ran
 * MiniLM 1.75x slower than 1 thread; with the yield, as fast). With a core
 * to itself, sched_yield returns at once. */
static inline void relax(unsigned spin) {
  if ((spin & 63) == 63)
    sched_yield();
  else
    __builtin_ia32_pause();
}

static void run_tasks(nunc_rt_pool *pool, nunc_rt_task task, const void *const *args,
                      int self) {
  int64_t done = 0;
  int threads = pool->num_threads;
  /* The threads' indices are distinct slots below the task count when
   * there are no more threads than tasks (nunc_rt_task). */
  int by_thread = threads <= pool->blocks[threads - 1].end;
  for (int k = 0; k < threads; ++k) {
    nunc_rt_block *block = &pool->blocks[(self + k) % threads];
    int64_t end = block->end, i;
    while ((i = __atomic_fetch_add(&block->next, 1, __ATOMIC_RELAXED)) < end) {
      int32_t err = task(args, i, by_thread ? self : i);
      if (err) {
        int32_t zero = 0;
        __atomic_compare_exchange_n(&pool->error, &zero, err, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
      }
      ++done;
    }
  }
  if (done)
    __atomic_fetch_add(&pool->finished, done, __ATOMIC_RELEASE);
}

static void *worker_main(void *arg) {
  nunc_rt_pool *pool = ((nunc_rt_worker *)arg)->pool;
  int self = ((nunc_rt_worker *)arg)->index;
  uint64_t seen = 0;
  for (;;) {
    /* Spin a little first: regions come in quick succession while a model
     * runs, and a futex wake costs more than a short spin. */
    for (int spin = 0; spin < 20000; ++spin) {
      if (__atomic_load_n(&pool->generation, __ATOMIC_ACQUIRE) != seen ||
          __atomic_load_n(&pool->shutdown, __ATOMIC_ACQUIRE))
        break;
      relax(spin);
    }
    pthread_mutex_lock(&pool->mutex);
    while (pool->generation == seen && !pool->shutdown)
      pthread_cond_wait(&pool->wake, &pool->mutex);
    if (pool->shutdown) {
      pthread_mutex_unlock(&pool->mutex);
      return NULL;
    }
    /* Enter the region under the mutex: its fields are consistent here. A
     * region the caller already closed (it ran every task itself before
     * this worker woke) is skipped: its task indices are being reused. */
    seen = pool->generation;
    if (!pool->open) {
      pthread_mutex_unlock(&pool->mutex);
      continue;
    }
    nunc_rt_task task = pool->task;
    const void *const *args = pool->args;
    /* Atomic although under the mutex: a worker leaving the region
     * decrements it without the mutex, and a plain increment racing with
     * that decrement could lose it and leave the caller waiting for ever. */
    __atomic_fetch_add(&pool->busy_workers, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&pool->mutex);
    run_tasks(pool, task, args, self);
    __atomic_fetch_sub(&pool->busy_workers, 1, __ATOMIC_RELEASE);
  }
}

_Static_assert(sizeof(nunc_rt_ctx) <= NUNC_RT_CTX_BYTES, "context too large");
_Static_assert(offsetof(nunc_rt_ctx, workspace) == 8 && offsetof(nunc_rt_ctx, weights) == 16 &&
                   offsetof(nunc_rt_ctx, error_detail) == 24,
               "generated code reads these fields at fixed offsets");

static nunc_status fail(nunc_rt_ctx *ctx, nunc_status status, const char *what) {
  size_t n = strlen(what);
  if (n >= sizeof ctx->detail)
    n = sizeof ctx->detail - 1;
  memcpy(ctx->detail, what, n);
  ctx->detail[n] = 0;
  ctx->error_detail = ctx->detail;
  return status;
}

nunc_status nunc_rt_init(nunc_rt_ctx *ctx, void *workspace, size_t workspace_size,
                         const void *weights, const nunc_options *options,
                         uint32_t required_features) {
  if (!ctx)
    return NUNC_ERR_INVALID_ARGUMENT;
  memset(ctx, 0, sizeof *ctx);
  if (workspace_size && (!workspace || ((uintptr_t)workspace & 63)))
    return fail(ctx, NUNC_ERR_INVALID_ARGUMENT,
                "the workspace must be a 64-byte aligned buffer of <model>_workspace_size() bytes");
  if (!weights || ((uintptr_t)weights & 63))
    return fail(ctx, NUNC_ERR_INVALID_ARGUMENT, "the weights must be 64-byte aligned");
  if (options && options->num_threads < 0)
    return fail(ctx, NUNC_ERR_INVALID_ARGUMENT, "num_threads must not be negative");
  char missing[160];
  if (nunc_rt_check_cpu(required_features, missing, sizeof missing) != NUNC_OK) {
    char msg[224] = "the CPU lacks: ";
    strncat(msg, missing, sizeof msg - strlen(msg) - 1);
    return fail(ctx, NUNC_ERR_UNSUPPORTED_CPU, msg);
  }
  ctx->workspace = (unsigned char *)workspace;
  ctx->weights = (const unsigned char *)weights;
  nunc_rt_pool *pool = &ctx->pool;
  int threads = options ? options->num_threads : 1;
  if (threads < 1)
    threads = 1;
  if (threads > NUNC_MAX_THREADS)
    threads = NUNC_MAX_THREADS;
  pool->num_threads = threads;
  if (options && options->parallel_for) {
    pool->user_parallel_for = options->parallel_for;
    pool->user = options->parallel_for_user;
    pool->num_threads = 1;
  }
  if (pool->num_threads > 1) {
    if (pthread_mutex_init(&pool->mutex, NULL) || pthread_cond_init(&pool->wake, NULL) ||
        pthread_cond_init(&pool->done, NULL))
      return NUNC_ERR_THREADS;
    for (int t = 1; t < pool->num_threads; ++t) {
      pool->workers[t].pool = pool;
      pool->workers[t].index = t;
      if (pthread_create(&pool->threads[t], NULL, worker_main, &pool->workers[t])) {
        nunc_rt_destroy(ctx);
        return NUNC_ERR_THREADS;
      }
      pool->started = t;
    }
  }
  ctx->item_slots = 1;
  if (options && workspace_size && options->workspace_bytes / workspace_size > 1) {
    size_t slots = options->workspace_bytes / workspace_size;
    ctx->item_slots = slots < (size_t)pool->num_threads ? (int64_t)slots : pool->num_threads;
  }
  ctx->magic = NUNC_RT_MAGIC;
  return NUNC_OK;
}

int64_t nunc_rt_item_slots(const nunc_rt_ctx *ctx) { return ctx->item_slots; }

typedef struct user_region {
  nunc_rt_task task;
  const void *const *args;
  int32_t error;
} user_region;

static void user_trampoline(void *arg, int64_t i) {
  user_region *r = (user_region *)arg;
  int32_t err = r->task(r->args, i, i); /* the user's threads: a slot per task */
  if (err) {
    int32_t zero = 0;
    __atomic_compare_exchange_n(&r->error, &zero, err, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
  }
}

int32_t nunc_rt_serial(nunc_rt_ctx *ctx, int64_t n, nunc_rt_task task,
                       const void *const *args) {
  (void)ctx;
  int32_t first = 0;
  for (int64_t i = 0; i < n; ++i) {
    int32_t err = task(args, i, 0);
    if (err && !first)
      first = err;
  }
  return first;
}

int32_t nunc_rt_parallel(nunc_rt_ctx *ctx, int64_t n, nunc_rt_task task,
                         const void *const *args) {
  nunc_rt_pool *pool = &ctx->pool;
  if (n <= 0)
    return 0;
  if (pool->user_parallel_for && n > 1) {
    user_region r = {task, args, 0};
    pool->user_parallel_for(pool->user, n, user_trampoline, &r);
    return r.error;
  }
  if (pool->num_threads <= 1 || n == 1)
    return nunc_rt_serial(ctx, n, task, args);
  pthread_mutex_lock(&pool->mutex);
  pool->task = task;
  pool->args = args;
  for (int t = 0; t < pool->num_threads; ++t) {
    pool->blocks[t].next = n * t / pool->num_threads;
    pool->blocks[t].end = n * (t + 1) / pool->num_threads;
  }
  pool->finished = 0;
  pool->error = 0;
  pool->open = 1;
  __atomic_add_fetch(&pool->generation, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
  run_tasks(pool, task, args, 0);
  /* Close the region: a worker entering from now on skips it, and every
   * worker that entered counts in busy_workers. Then wait for the
   * stragglers, and for every worker to leave the region before its fields
   * can be reused. */
  pthread_mutex_lock(&pool->mutex);
  pool->open = 0;
  pthread_mutex_unlock(&pool->mutex);
  for (unsigned spin = 0; __atomic_load_n(&pool->finished, __ATOMIC_ACQUIRE) < n ||
                         __atomic_load_n(&pool->busy_workers, __ATOMIC_ACQUIRE) > 0;
       ++spin)
    relax(spin);
  return __atomic_load_n(&pool->error, __ATOMIC_RELAXED);
}

void nunc_rt_destroy(nunc_rt_ctx *ctx) {
  if (!ctx)
    return;
  nunc_rt_pool *pool = &ctx->pool;
  if (pool->started > 0) {
    pthread_mutex_lock(&pool->mutex);
    __atomic_store_n(&pool->shutdown, 1, __ATOMIC_RELEASE); /* spinning workers read it */
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mutex);
    for (int t = 1; t <= pool->started; ++t)
      pthread_join(pool->threads[t], NULL);
  }
  if (pool->num_threads > 1) {
    pthread_mutex_destroy(&pool->mutex);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
  }
  ctx->magic = 0;
}
