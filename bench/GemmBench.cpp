//===- GemmBench.cpp - GFLOP/s of nunc's GEMM kernel on given shapes ------===//
//
//   nunc-bench-gemm avx512|avx2 M N K [M N K ...]
// prints "M N K GFLOP/s" per shape: median of many runs of all column-panel
// tasks on one thread, the kernel with a bias epilogue (as in the models).
//
//===----------------------------------------------------------------------===//

#include "GemmKernel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

int main(int argc, char **argv) {
  if (argc < 5 || (argc - 2) % 3) {
    std::fprintf(stderr, "usage: %s avx512|avx2 M N K [M N K ...]\n", argv[0]);
    return 2;
  }
  Isa isa = std::strcmp(argv[1], "avx2") == 0 ? Isa::Avx2 : Isa::Avx512;
  for (int a = 2; a + 2 < argc; a += 3) {
    int64_t m = std::atoll(argv[a]), n = std::atoll(argv[a + 1]), k = std::atoll(argv[a + 2]);
    std::vector<float> x(m * k, 0.5f), w(k * n, 0.25f), b(n, 0.f), c(m * n);
    GemmConfig cfg;
    cfg.m = m;
    cfg.n = n;
    cfg.k = k;
    cfg.lda = k;
    cfg.ldc = n;
    cfg.ldr = n;
    cfg.bias = true;
    std::vector<float> pw = GemmKernel::packWeights(w.data(), k, n, isa);
    std::vector<float> pb = GemmKernel::packBias(b.data(), n, isa);
    auto kernel = GemmKernel::generate(cfg, isa);
    if (!kernel)
      return 1;
    const void *args[] = {x.data(), pw.data(), pb.data(), x.data(), c.data()};
    int64_t tasks = GemmKernel::numPanels(n, isa);
    auto once = [&] {
      for (int64_t t = 0; t < tasks; ++t)
        kernel->function()(args, t);
    };
    for (int i = 0; i < 3; ++i)
      once();
    std::vector<double> times;
    int runs = std::max<int64_t>(20, 2e9 / (2.0 * m * n * k));
    for (int r = 0; r < runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      once();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(times.begin(), times.end());
    double median = times[times.size() / 2];
    std::printf("%ld %ld %ld %.1f\n", m, n, k, 2.0 * m * n * k / median / 1e9);
  }
  return 0;
}
