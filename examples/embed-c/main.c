/* Runs the MiniLM-shaped model compiled by nunc: no Python, no runtime
 * beyond libc and pthread, a fixed workspace allocated once. Prints the
 * first outputs and the time from process start to the first result. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "minilm.h"

#ifndef THREADS
#define THREADS 1
#endif

int main(void) {
  static minilm_ctx ctx;
  void *workspace = aligned_alloc(64, (MINILM_WORKSPACE_SIZE + 63) / 64 * 64);
  nunc_options options = {.num_threads = THREADS};
  nunc_status status = minilm_init(&ctx, workspace, &options);
  if (status != NUNC_OK) {
    fprintf(stderr, "init: %s (%s)\n", nunc_status_str(status),
            minilm_error_detail(&ctx) ? minilm_error_detail(&ctx) : "");
    return 1;
  }
  /* A sentence of 128 tokens: [CLS] ... [SEP] with a few padding positions. */
  static int64_t ids[128], mask[128], types[128];
  for (int i = 0; i < 128; ++i) {
    ids[i] = i == 0 ? 101 : i == 119 ? 102 : i > 119 ? 0 : 1000 + (i * 37) % 20000;
    mask[i] = i <= 119;
    types[i] = 0;
  }
  static float hidden[128 * 384];
  status = minilm_run(&ctx, ids, mask, types, hidden);
  if (status != NUNC_OK) {
    fprintf(stderr, "run: %s (%s)\n", nunc_status_str(status), minilm_error_detail(&ctx));
    return 2;
  }
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  printf("last_hidden_state[0, 0, 0:4] = %.5f %.5f %.5f %.5f\n", hidden[0], hidden[1],
         hidden[2], hidden[3]);
  printf("first result at monotonic %.6f s\n", now.tv_sec + now.tv_nsec * 1e-9);
  minilm_destroy(&ctx);
  free(workspace);
  return 0;
}
