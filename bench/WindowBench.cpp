//===- WindowBench.cpp - GFLOP/s of nunc's depthwise conv / pooling kernels ===//
//
//   nunc-bench-window [avx2] depthwise|depthwise-int8|depthwise-u8|max|average C H W kernel
//                     stride pad [...]
// prints "kind C H W kernel stride pad GFLOP/s GB/s code-bytes" per shape: median of
// many runs of all tasks of one image on one thread (AVX-512 kernels, or
// the AVX2 ones with `avx2` first), with a bias and a
// clip(0, 6) epilogue for depthwise (as in MobileNet). depthwise-int8: the
// integer-tap kernel on u8 codes, writing u8 codes (AVX-512 VNNI, or with
// `avx2` the AVX-VNNI one, EVEX-encoded on hosts without AVX-VNNI);
// depthwise-u8: the f32-tap kernel on u8 codes, writing u8 codes (a static
// int8 CNN's depthwise conv on targets without the integer kernel).
// FLOPs count 2 per tap of a depthwise conv and 1 per tap of a pool; GB/s
// counts one read of the input and one write of the output.
//
//===----------------------------------------------------------------------===//

#include "Int8DepthwiseKernel.h"
#include "WindowKernel.h"
#include "BenchSupport.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
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
                 "usage: %s depthwise|depthwise-int8|depthwise-u8|max|average C H W kernel stride pad [C H W "
                 "kernel stride pad ...]\n",
                 argv[0]);
    return 2;
  }
  std::string kind = argv[1];
  const bool int8 = kind == "depthwise-int8", u8 = int8 || kind == "depthwise-u8";
  WindowConfig::Kind k = kind == "depthwise" || u8 ? WindowConfig::Depthwise
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
    std::vector<float> x(c.channels * c.height * c.width), y(c.channels * c.outH * c.outW);
    std::vector<float> w(c.channels * c.kernelH * c.kernelW), b(c.channels);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>((i * 7919) % 97) / 97.f - 0.5f;
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>((i * 31) % 13) / 13.f - 0.5f;
    std::optional<Int8DepthwiseKernel::Tables> tables;
    if (u8) {
      // u8 codes in and out, filters on an s8 grid of 1/26 (their steps).
      c.int8 = int8;
      c.inputU8 = c.outputU8 = true;
      c.inputScale = 0.05f;
      c.inputZeroPoint = 3;
      c.outputScale = 0.03f;
      c.evexVnni = isa == Isa::Avx2 && !__builtin_cpu_supports("avxvnni");
      for (size_t i = 0; i < x.size(); ++i)
        reinterpret_cast<uint8_t *>(x.data())[i] = static_cast<uint8_t>(i * 7919 % 251);
      if (int8)
        tables = Int8DepthwiseKernel::tables(c, w, b);
    }
    auto kernel = WindowKernel::generate(c, isa);
    if (!kernel || (int8 && !tables)) {
      std::fprintf(stderr, "shape not supported\n");
      return 1;
    }
    std::vector<char> scratch(WindowKernel::scratchBytes(c, isa) + 64);
    const void *args[] = {x.data(), y.data(), scratch.data(),
                          int8                         ? (const void *)tables->filters.data()
                          : k == WindowConfig::Depthwise ? (const void *)w.data()
                                                         : (const void *)map.data(),
                          int8 ? (const void *)tables->scaleBias.data() : b.data(), nullptr};
    int64_t tasks = WindowKernel::numTasks(c);
    double flops = double(c.channels) * c.outH * c.outW * c.kernelH * c.kernelW *
                   (k == WindowConfig::Depthwise ? 2 : 1);
    double s = nunc_bench::medianSeconds(
        [&](int64_t) {
          for (int64_t t = 0; t < tasks; ++t)
            kernel->function()(args, t, t);
        },
        flops, 50);
    double bytes = (u8 ? 1.0 : 4.0) * (x.size() + y.size());
    std::printf("%s %lld %lld %lld %lld %lld %lld %.1f %.1f %zu\n", argv[1],
                (long long)c.channels, (long long)c.height, (long long)c.width,
                (long long)c.kernelH, (long long)c.strideH, (long long)c.padTop, flops / s / 1e9,
                bytes / s / 1e9, kernel->bytes().size());
  }
  return 0;
}
