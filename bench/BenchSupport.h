//===- BenchSupport.h - argument handling shared by the kernel benchmarks -===//

#ifndef NUNC_BENCH_BENCHSUPPORT_H
#define NUNC_BENCH_BENCHSUPPORT_H

#include "nunc/Codegen/Target.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace nunc_bench {

/// Takes an optional leading `avx2` argument (else AVX-512) off argv and
/// checks the CPU has that ISA; prints why not and returns false.
inline bool takeIsa(int &argc, char **&argv, mlir::nunc::Isa &isa) {
  using mlir::nunc::Isa;
  isa = Isa::Avx512;
  if (argc > 1 && std::string(argv[1]) == "avx2") {
    isa = Isa::Avx2;
    --argc;
    ++argv;
  }
  if (isa == Isa::Avx512 ? !__builtin_cpu_supports("avx512f") : !__builtin_cpu_supports("avx2")) {
    std::fprintf(stderr, "this CPU lacks %s\n", isa == Isa::Avx512 ? "AVX-512" : "AVX2");
    return false;
  }
  return true;
}

/// Median time of `once` over enough runs for `ops` operations each (at
/// least `minRuns`), after three warm-up runs. `once(r)` runs the r-th time.
template <typename F> double medianSeconds(F once, double ops, int64_t minRuns = 20) {
  for (int i = 0; i < 3; ++i)
    once(i);
  std::vector<double> times;
  int64_t runs = std::max<int64_t>(minRuns, static_cast<int64_t>(2e9 / ops));
  for (int64_t r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    once(r);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

} // namespace nunc_bench

#endif // NUNC_BENCH_BENCHSUPPORT_H
