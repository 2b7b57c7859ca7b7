/*===- nunc/runtime.h - types shared by every nunc-generated library -----===*
 *
 * Every generated <model>.h carries a copy of this header (under the same
 * include guard), so a program includes only its models' headers. Plain C99,
 * no dependencies.
 *
 *===----------------------------------------------------------------------===*/
#ifndef NUNC_RUNTIME_H
#define NUNC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nunc_status {
  NUNC_OK = 0,
  NUNC_ERR_INVALID_ARGUMENT = 1, /* a null pointer, a misaligned buffer, bad options */
  NUNC_ERR_INVALID_INPUT = 2,    /* input data out of range (e.g. a token id) */
  NUNC_ERR_UNSUPPORTED_CPU = 3,  /* the CPU lacks an ISA feature the model was compiled for */
  NUNC_ERR_THREADS = 4,          /* worker threads could not be started */
  NUNC_ERR_NOT_INITIALIZED = 5   /* run or destroy on a context init did not set up */
} nunc_status;

/* A caller-supplied parallel-for: run fn(arg, i) for every i in [0, n), in
 * any order and on any threads, and return when all are done. */
typedef void (*nunc_task_fn)(void *arg, int64_t i);
typedef void (*nunc_parallel_for_fn)(void *user, int64_t n, nunc_task_fn fn, void *arg);

typedef struct nunc_options {
  int num_threads;                   /* worker count incl. the caller; 0 or 1: run on the caller */
  nunc_parallel_for_fn parallel_for; /* optional: use the caller's threads instead */
  void *parallel_for_user;           /* passed back to parallel_for */
  /* Optional: the workspace's size when it is larger than <name>_workspace_size().
   * A library that runs its batch one item at a time (<NAME>_BATCH_ITEMS > 1)
   * then runs up to workspace_bytes / <name>_workspace_size() items at once
   * (at most num_threads), each on one thread in its own part of the workspace,
   * instead of every thread on one item. 0: the minimum size. */
  size_t workspace_bytes;
} nunc_options;

typedef enum nunc_dtype {
  NUNC_FLOAT32 = 1, NUNC_UINT8 = 2, NUNC_INT8 = 3, NUNC_UINT16 = 4, NUNC_INT16 = 5,
  NUNC_INT32 = 6, NUNC_INT64 = 7, NUNC_BOOL = 9, NUNC_FLOAT16 = 10, NUNC_FLOAT64 = 11,
  NUNC_UINT32 = 12, NUNC_UINT64 = 13, NUNC_BFLOAT16 = 16
} nunc_dtype; /* the values of ONNX's TensorProto.DataType */

typedef struct nunc_io_desc {
  const char *name;
  nunc_dtype dtype;
  int rank;
  const int64_t *shape;
  size_t bytes;
} nunc_io_desc;

/* Worker threads a context can use at most. */
#define NUNC_MAX_THREADS 64

/* "NUNC_OK", "invalid input", ... */
const char *nunc_status_str(nunc_status status);

#ifdef __cplusplus
}
#endif
#endif /* NUNC_RUNTIME_H */
