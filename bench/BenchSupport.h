//===- BenchSupport.h - argument handling shared by the kernel benchmarks -===//

#ifndef NUNC_BENCH_BENCHSUPPORT_H
#define NUNC_BENCH_BENCHSUPPORT_H

#include "nunc/Codegen/Target.h"

#include <cstdio>
#include <string>

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

} // namespace nunc_bench

#endif // NUNC_BENCH_BENCHSUPPORT_H
