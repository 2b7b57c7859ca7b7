//===- WindowBench.cpp - GFLOP/s of nunc's depthwise conv / pooling kernels ===//
//
//   nunc-bench-window [avx2] depthwise|max|average C H W kernel stride pad [...]
// prints "kind C H W kernel stride pad GFLOP/s GB/s code-bytes" per shape: median of
// many runs of all tasks of one image on one thread (AVX-512 kernels, or
// the AVX2 ones with `avx2` first), with a bias and a
// clip(0, 6) epilogue for depthwise (as in MobileNet). FLOPs count 2 per
// tap of a depthwise conv and 1 per tap of a pool; GB/s counts one read of
// the input and one write of the output.
//
//===----------------------------------------------------------------------===//

#include "WindowKernel.h"
#include "BenchSupport.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

int main(int argc, char **argv) {
  Isa isa;
  if (!nunc_bench::takeIsa(argc, argv, isa))
    return 1;
  if (argc < 8 || (argc - 2) % 6 != 0) {
    std::fprintf(stderr,
                 "usage: %s depthwise|max|average C H W kernel stride pad [C H W kernel stride "
                 "pad ...]\n",
                 argv[0]);
    return 2;
  }
  std::string kind = argv[1];
  WindowConfig::Kind k = kind == "depthwise" ? WindowConfig::Depthwise
                         : kind == "max"     ? WindowConfig::Max
                         : kind == "average" ? WindowConfig::Average
                                             : WindowConfig::GlobalAverage;
  if (k == WindowConfig::GlobalAverage) {
    std::fprintf(stderr, "unknown kind %s\n", argv[1]);
    return 2;
  }
  for (int a = 2; a + 6 <= argc; a += 6) {
    WindowConfig c;
    c.kind = k;
    c.channels = std::atoll(argv[a]);
    c.height = std::atoll(argv[a + 1]);
    c.width = std::atoll(argv[a + 2]);
    c.kernelH = c.kernelW = std::atoll(argv[a + 3]);
    c.strideH = c.strideW = std::atoll(argv[a + 4]);
    c.padTop = c.padLeft = c.padBottom = c.padRight = std::atoll(argv[a + 5]);
    c.outH = (c.height + 2 * c.padTop - c.kernelH) / c.strideH + 1;
    c.outW = (c.width + 2 * c.padLeft - c.kernelW) / c.strideW + 1;
    if (k == WindowConfig::Depthwise) {
      c.bias = true;
      c.activation = Activation::fromName("clip", 0.f, 6.f);
    }
    std::vector<float> map;
    if (k == WindowConfig::Average)
      map = WindowKernel::prepareDivisors(c, isa);
    auto kernel = WindowKernel::generate(c, isa);
    if (!kernel) {
      std::fprintf(stderr, "shape not supported\n");
      return 1;
    }
    std::vector<float> x(c.channels * c.height * c.width), y(c.channels * c.outH * c.outW);
    std::vector<float> w(c.channels * c.kernelH * c.kernelW), b(c.channels);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>((i * 7919) % 97) / 97.f - 0.5f;
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>((i * 31) % 13) / 13.f - 0.5f;
    std::vector<char> scratch(WindowKernel::scratchBytes(c, isa) + 64);
    const void *args[] = {x.data(), y.data(), scratch.data(),
                          k == WindowConfig::Depthwise ? (const void *)w.data()
                                                       : (const void *)map.data(),
                          b.data(), nullptr};
    int64_t tasks = WindowKernel::numTasks(c);
    double flops = double(c.channels) * c.outH * c.outW * c.kernelH * c.kernelW *
                   (k == WindowConfig::Depthwise ? 2 : 1);
    double s = nunc_bench::medianSeconds(
        [&](int64_t) {
          for (int64_t t = 0; t < tasks; ++t)
            kernel->function()(args, t, t);
        },
        flops, 50);
    double bytes = 4.0 * (x.size() + y.size());
    std::printf("%s %lld %lld %lld %lld %lld %lld %.1f %.1f %zu\n", argv[1],
                (long long)c.channels, (long long)c.height, (long long)c.width,
                (long long)c.kernelH, (long long)c.strideH, (long long)c.padTop, flops / s / 1e9,
                bytes / s / 1e9, kernel->bytes().size());
  }
  return 0;
}
