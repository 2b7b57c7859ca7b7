#!/usr/bin/env python3
"""Each parallel step of a compiled model, timed on each thread.

Runs the library through `nunc_options.parallel_for` with a fixed split
(thread t takes tasks [n t / T, n (t + 1) / T), no stealing), so that a
step's time on each thread is that thread's share of its tasks: where
profile.py says which kernels take the time, this says how evenly a step's
tasks spread over the threads and how long each thread took its share (a
step whose threads take longer together than the same tasks alone, for
example while the host keeps a VM's vCPUs apart, shows here step by step).
Medians over --runs inferences, in microseconds; steps of a single task
run on the caller without the hook and are not listed.

Usage:
  python3 bench/steps.py mobilenet --quantize int8 [--threads 2] [--runs 200]
  python3 bench/steps.py path/to/model.onnx --shape x=1x64 ... [-- extra nunc compile flags]
"""
import argparse
import collections
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "test", "e2e"))
import harness  # noqa: E402

# By path: `import profile` could be the standard library's module.
_spec = importlib.util.spec_from_file_location("nunc_profile", os.path.join(ROOT, "bench",
                                                                           "profile.py"))
profile = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(profile)

# The hook: a fixed split over `threads` threads; per step the task function
# (the first field of the runtime's argument, relative to main), the task
# count, the wall time and each thread's time on its share.
HOOK = r"""
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#define STEPS_MAX_THREADS 16
#define STEPS_MAX_RECORDS 2000000
static _Atomic unsigned long steps_gen;
static _Atomic int steps_left;
static int64_t steps_n;
static nunc_task_fn steps_fn;
static void *steps_arg;
static int steps_threads;
static double steps_busy[STEPS_MAX_THREADS];
static FILE *steps_out;
static double steps_now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9;
}
static void steps_share(int t) {
  double t0 = steps_now();
  for (int64_t i = steps_n * t / steps_threads; i < steps_n * (t + 1) / steps_threads; ++i)
    steps_fn(steps_arg, i);
  steps_busy[t] = steps_now() - t0;
}
static void *steps_worker(void *p) {
  int t = (int)(intptr_t)p;
  unsigned long seen = 0;
  for (;;) {
    unsigned long g;
    while ((g = atomic_load_explicit(&steps_gen, memory_order_acquire)) == seen)
      __builtin_ia32_pause();
    seen = g;
    steps_share(t);
    atomic_fetch_sub_explicit(&steps_left, 1, memory_order_release);
  }
  return 0;
}
static void steps_pfor(void *user, int64_t n, nunc_task_fn fn, void *arg) {
  (void)user;
  double t0 = steps_now();
  steps_n = n; steps_fn = fn; steps_arg = arg;
  atomic_store(&steps_left, steps_threads - 1);
  atomic_fetch_add_explicit(&steps_gen, 1, memory_order_release);
  steps_share(0);
  while (atomic_load_explicit(&steps_left, memory_order_acquire) > 0)
    __builtin_ia32_pause();
  double wall = steps_now() - t0;
  long task = (long)((uintptr_t)*(void **)arg - (uintptr_t)&main);
  fprintf(steps_out, "%ld %lld %.9f", task, (long long)n, wall);
  for (int t = 0; t < steps_threads; ++t)
    fprintf(steps_out, " %.9f", steps_busy[t]);
  fputc('\n', steps_out);
}
static void steps_start(int threads) {
  steps_threads = threads < 1 ? 1 : threads > STEPS_MAX_THREADS ? STEPS_MAX_THREADS : threads;
  steps_out = fopen(getenv("NUNC_STEPS_OUT"), "w");
  for (int t = 1; t < steps_threads; ++t) {
    pthread_t th;
    pthread_create(&th, 0, steps_worker, (void *)(intptr_t)t);
  }
}
"""


def steps_driver(out_dir):
    """The harness's driver for the library in out_dir, through the hook."""
    exe, manifest = harness.build(out_dir)
    src = os.path.join(out_dir, "driver.c")
    text = open(src).read()
    text = text.replace("int main(int argc, char **argv) {",
                        "int main(int argc, char **argv);\n" + HOOK +
                        "int main(int argc, char **argv) {", 1)
    text = text.replace("opt.num_threads = threads;",
                        "opt.parallel_for = steps_pfor; steps_start(threads);", 1)
    steps_src = os.path.join(out_dir, "steps_driver.c")
    with open(steps_src, "w") as f:
        f.write(text)
    steps_exe = os.path.join(out_dir, "steps_driver")
    name = manifest["name"]
    subprocess.run(["gcc", "-O2", "-std=gnu11", "-o", steps_exe, steps_src, "-I", out_dir,
                    os.path.join(out_dir, f"lib{name}.a"), "-lpthread"], check=True)
    return steps_exe, manifest


def symbols(exe):
    """Address (relative to main) -> symbol name, from nm."""
    table = {}
    main = None
    for line in subprocess.run(["nm", exe], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            table[int(parts[0], 16)] = parts[2]
            if parts[2] == "main":
                main = int(parts[0], 16)
    return {addr - main: sym for addr, sym in table.items()}


def describe(sym, manifest):
    m = re.match(re.escape(manifest["name"]) + r"_k(\d+)(?:_(\w+))?$", sym or "")
    if not m:
        return sym or "?"
    kernel = manifest["kernels"][int(m.group(1))]["kernel"]
    return f"{m.group(2)} (before k{m.group(1)})" if m.group(2) else f"k{m.group(1)} {kernel}"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    profile.add_model_arguments(p)
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--runs", type=int, default=200)
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    nunc = os.path.join(args.build, "bin", "nunc")
    with tempfile.TemporaryDirectory(prefix="nunc-steps-") as work:
        path, pins, feeds = profile.prepared_model(args.model, work, args.batch, args.seq,
                                                   args.shape)
        target = args.target or ("x86_64-avx512vnni" if args.quantize else "native")
        quant = ["--quantize", args.quantize] if args.quantize else []
        out = os.path.join(work, "out")
        r = subprocess.run([nunc, "compile", path, "--target", target, *pins, *quant, *extra,
                            "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(r.stderr)
        exe, manifest = steps_driver(out)
        if feeds is None:
            feeds = profile.manifest_feeds(manifest)
        log = os.path.join(work, "steps.txt")
        os.environ["NUNC_STEPS_OUT"] = log
        outs, _, text = harness.run(exe, manifest, feeds, os.path.join(work, "run"),
                                    threads=args.threads, repeat=args.runs)
        if outs is None:
            sys.exit(text)
        rows = [line.split() for line in open(log)]
        per_run, rest = divmod(len(rows), args.runs)
        if rest or not per_run:
            sys.exit(f"{len(rows)} steps over {args.runs} runs: not the same steps each run")
        names = symbols(exe)
        steps = collections.defaultdict(list)
        for i, row in enumerate(rows):
            steps[i % per_run].append(row)
        print(f"{os.path.basename(path)} {target} {' '.join(pins + quant + extra)}: "
              f"{args.threads} threads, fixed split, medians of {args.runs} runs (us)")
        print(f"{'step':>4} {'tasks':>5} {'wall':>8}  " +
              " ".join(f"{'thread ' + str(t):>9}" for t in range(args.threads)) + "  kernel")
        total = 0.0
        for k in range(per_run):
            runs = np.array([[float(v) for v in row[2:]] for row in steps[k]]) * 1e6
            med = np.median(runs, axis=0)
            total += med[0]
            row = steps[k][0]
            print(f"{k:4d} {row[1]:>5} {med[0]:8.1f}  " +
                  " ".join(f"{v:9.1f}" for v in med[1:]) + "  " +
                  describe(names.get(int(row[0])), manifest))
        print(f"sum of the steps' medians: {total:.1f} us")


if __name__ == "__main__":
    main()
