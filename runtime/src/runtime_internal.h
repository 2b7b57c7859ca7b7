/*===- runtime_internal.h - what generated code calls in the runtime ------===*
 *
 * The glue nunc generates for a model calls these. They are compiled once
 * into object files that `nunc compile` copies into every lib<model>.a with
 * the `nunc_rt_` prefix renamed to `<model>_rt_`, so libraries made by
 * different nunc versions link into one program without clashing.
 *
 *===----------------------------------------------------------------------===*/
#ifndef NUNC_RUNTIME_INTERNAL_H
#define NUNC_RUNTIME_INTERNAL_H

#include "nunc/runtime.h"

#include <pthread.h>

/* A kernel task: computes part `i` of one step. Returns 0, or a nonzero
 * code when the data is bad (an index out of range). `slot` names the block
 * of the step's per-task scratch the call may use: below the region's task
 * count, and never the same for two calls running at once. It is the
 * calling thread's index when the pool has no more threads than the region
 * has tasks (so a thread reuses one block, warm in its caches, instead of
 * writing a fresh one per task), else i. */
typedef int32_t (*nunc_rt_task)(const void *const *args, int64_t i, int64_t slot);

/* The tasks of a region are cut into one contiguous block per thread: each
 * thread runs its own block first, in order, then takes what is left of the
 * others'. Claims on one's own block stay in one's own cache line, and a
 * thread tends to get the same part of consecutive steps (the same band of
 * positions), so it reads what it wrote. */
typedef struct nunc_rt_block {
  int64_t next; /* next task to claim (atomic) */
  int64_t end;
} __attribute__((aligned(64))) nunc_rt_block;

struct nunc_rt_pool;
typedef struct nunc_rt_worker {
  struct nunc_rt_pool *pool;
  int index; /* 1 .. num_threads - 1; the caller is 0 */
} nunc_rt_worker;

typedef struct nunc_rt_pool {
  pthread_mutex_t mutex;
  pthread_cond_t wake, done;
  pthread_t threads[NUNC_MAX_THREADS];
  int num_threads; /* incl. the caller */
  int started;     /* workers running */
  int shutdown;
  uint64_t generation;   /* bumped per parallel region */
  /* the current region */
  nunc_rt_task task;
  const void *const *args;
  int64_t finished;      /* tasks done (atomic; each thread adds its count once) */
  int32_t error;         /* first nonzero task result (atomic) */
  int busy_workers;      /* workers inside the region */
  int open;              /* workers may still enter the region */
  nunc_parallel_for_fn user_parallel_for;
  void *user;
  nunc_rt_worker workers[NUNC_MAX_THREADS];
  nunc_rt_block blocks[NUNC_MAX_THREADS];
} nunc_rt_pool;

/* The context behind every generated <model>_ctx. Generated code reads the
 * first four fields at fixed offsets (0, 8, 16, 24); runtime.c checks them. */
typedef struct nunc_rt_ctx {
  uint64_t magic;
  unsigned char *workspace;
  const unsigned char *weights;
  const char *error_detail; /* why the last call failed, or NULL */
  char detail[256];         /* storage for error_detail */
  nunc_rt_pool pool;
  int64_t item_slots;       /* workspaces of one item each that fit the workspace */
} nunc_rt_ctx;

/* Bytes of the opaque context type in generated headers. */
#define NUNC_RT_CTX_BYTES 12288 /* kRuntimeContextBytes in nunc/Codegen/CompileModel.h */

#define NUNC_RT_MAGIC 0x6e756e63636f6e74ull /* "nunccont" */

/* Feature bits the generated code asks for. */
enum {
  NUNC_CPU_AVX2 = 1u << 0, NUNC_CPU_FMA = 1u << 1, NUNC_CPU_AVX512F = 1u << 2,
  NUNC_CPU_AVX512BW = 1u << 3, NUNC_CPU_AVX512VL = 1u << 4, NUNC_CPU_AVX512DQ = 1u << 5,
  NUNC_CPU_AVX512VNNI = 1u << 6, NUNC_CPU_AVXVNNI = 1u << 7, NUNC_CPU_AMX = 1u << 8,
  NUNC_CPU_F16C = 1u << 9
};

/* Checks the CPU (and the OS's register state support) for `required`. On a
 * miss, writes the missing features' names to `missing` and returns
 * NUNC_ERR_UNSUPPORTED_CPU. AMX also asks the kernel for tile permission. */
nunc_status nunc_rt_check_cpu(uint32_t required, char *missing, size_t missing_size);

/* Checks the arguments and the CPU, then starts the worker threads. The
 * workspace must be 64-byte aligned when workspace_size > 0; so must
 * external weights. */
nunc_status nunc_rt_init(nunc_rt_ctx *ctx, void *workspace, size_t workspace_size,
                         const void *weights, const nunc_options *options,
                         uint32_t required_features);
/* Runs task(args, i, slot) for i in [0, n) on the pool; returns the first
 * error. */
int32_t nunc_rt_parallel(nunc_rt_ctx *ctx, int64_t n, nunc_rt_task task,
                         const void *const *args);
/* The same on the calling thread alone: the steps of an item that runs
 * beside other items, each on its own thread. */
int32_t nunc_rt_serial(nunc_rt_ctx *ctx, int64_t n, nunc_rt_task task,
                       const void *const *args);
/* How many items of a split batch may run at once: the whole workspaces
 * of workspace_size bytes in options->workspace_bytes, at most the threads. */
int64_t nunc_rt_item_slots(const nunc_rt_ctx *ctx);
void nunc_rt_destroy(nunc_rt_ctx *ctx);

#endif /* NUNC_RUNTIME_INTERNAL_H */
