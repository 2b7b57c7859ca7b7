//===- GemmBench.cpp - GFLOP/s of nunc's GEMM kernel on given shapes ------===//
//
//   nunc-bench-gemm avx512|avx2|vnni|avxvnni|amx|int8avx2[+gelu|+qdqgelu][+u8][+cold] M N K [M N K ...]
// prints "M N K GFLOP/s" (GOP/s for the int8 kernels) per shape: median
// of many runs of all column-panel tasks on one thread, the kernel with a
// bias epilogue (as in the models; int8 with per-row dynamic activations).
// The int8 kernels take epilogue variants to measure their cost: +gelu
// (FFN1's activation), +qdqgelu (a QDQ model's FFN1: the grid before GELU
// and the three inside it), +u8 (static activations, u8 output); vnni+conv
// (avxvnni+conv, int8avx2+conv; +rows: broadcast row constants; +onestep:
// u8 output by one-step requantization, Int8GemmConfig::oneStep) runs the
// convolution form (M output channels x N positions x K, one image);
// avxvnni EVEX-encodes its VNNI instructions on hosts without AVX-VNNI (as
// x86_64-avxvnni-evex);
// avx512+conv takes M C S: the f32 convolution GEMM that builds its own
// panels (GemmConfig::im2col), M output channels of a 3x3 convolution with
// padding 1 over C channels of S x S, +bias relu (ResNet's body);
// avx512+winograd the same convolution by the Winograd kernel, in GFLOP/s of
// the direct convolution's count.
// +cold (f32 and the int8 linear form) rotates over copies of the packed
// weights, 96 MB in all, so each run reads its weights from beyond L2, as a
// model does whose layers each touch their weights once per inference.
//
//===----------------------------------------------------------------------===//

#include "GemmKernel.h"
#include "BenchSupport.h"
#include "Int8GemmKernel.h"
#include "WinogradKernel.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

/// AVX-VNNI kernels EVEX-encoded (hosts with AVX-512 VNNI but no AVX-VNNI,
/// as the x86_64-avxvnni-evex target).
bool evexVnni = false;

/// GOP/s of the int8 kernel for `cfg` running all `tasks` on `args`; with
/// several `weights`, run r reads weights[r % size] as argument 1.
double int8KernelGops(Int8GemmConfig cfg, const void **args, int64_t tasks,
                      const std::vector<const void *> &weights = {}) {
  cfg.evexVnni = evexVnni && cfg.isa == Int8Isa::AvxVnni;
  auto kernel = Int8GemmKernel::generate(cfg);
  if (!kernel)
    return 0;
  double ops = 2.0 * cfg.m * cfg.n * cfg.k;
  double s = nunc_bench::medianSeconds(
      [&](int r) {
        if (!weights.empty())
          args[1] = weights[r % weights.size()];
        for (int64_t t = 0; t < tasks; ++t)
          kernel->function()(args, t, t);
      },
      ops);
  return ops / s / 1e9;
}

double int8ConvGops(int64_t m, int64_t n, int64_t k, Int8Isa isa, bool u8, bool rows,
                    bool oneStep) {
  int64_t nr = Int8GemmKernel::panelWidth(isa), panels = Int8GemmKernel::numPanels(n, isa);
  // Weight rows and panels with slack past K rounded up (the kernels read
  // whole groups of 4 or 64 bytes).
  const int64_t kRounded = (k + 63) / 64 * 64;
  std::vector<int8_t> w((m * kRounded + 4096) * Int8ConvGemm::weightBytes(isa), -2);
  std::vector<uint8_t> panelBytes((panels + 1) * kRounded * nr, 3);
  std::vector<uint32_t> rowBlock(m * 24, 0), input(2, 0);
  std::vector<float> c(m * n);
  Int8GemmConfig cfg;
  cfg.m = m;
  cfg.n = n;
  cfg.k = k;
  cfg.lda = k * Int8ConvGemm::weightBytes(isa);
  cfg.ldc = cfg.ldr = n;
  cfg.bias = true;
  cfg.activation = Activation::fromName("relu", 0, 0);
  cfg.isa = isa;
  cfg.convolution = true;
  if (u8 || oneStep)
    cfg.u8Output = Int8GemmConfig::U8Output{0.05f, 100};
  if (oneStep) {
    // Bias and scale folded into the rows, the Relu as the codes' bounds.
    cfg.oneStep = Int8GemmConfig::OneStep{100, 255};
    cfg.bias = false;
    cfg.activation = Activation();
  }
  cfg.broadcastRows = rows;
  // Joined tail columns (49 = 48 + 1 positions) need each task slot's
  // transposed-tail buffer (argument [7]); the bench's slot is the task.
  std::vector<uint8_t> tails(Int8ConvGemm::numTasks(cfg) * Int8ConvGemm::tailBytes(cfg) + 1);
  const void *args[] = {w.data(), panelBytes.data(), rowBlock.data(), input.data(), c.data(),
                        c.data(), nullptr, tails.data()};
  return int8KernelGops(cfg, args, Int8ConvGemm::numTasks(cfg));
}

double int8Gops(int64_t m, int64_t n, int64_t k, Int8Isa isa, bool gelu, bool qdqGelu, bool u8,
                bool cold) {
  int64_t lda = Int8GemmKernel::rowBytes(k, isa);
  std::vector<uint8_t> x(m * lda, 3);
  std::vector<int8_t> w(k * n, -2);
  std::vector<int32_t> sums(n, 0);
  std::vector<float> scales(n, 0.01f), bias(n, 0.f), c(m * n);
  std::vector<uint32_t> rows(2 * m, 0);
  std::vector<int8_t> pw = Int8GemmKernel::packWeights(w.data(), k, n, isa);
  const Int8GemmConfig::U8Output grid{0.05f, 100};
  std::vector<uint32_t> cols = Int8GemmKernel::packColumns(
      sums.data(), scales.data(), bias.data(), n, isa,
      Int8GemmKernel::compensatesWithWordPairs(isa, /*perRowA=*/!u8, k), nullptr, nullptr,
      u8 ? &grid : nullptr);
  Int8GemmConfig cfg;
  cfg.m = m;
  cfg.n = n;
  cfg.k = k;
  cfg.lda = lda;
  cfg.ldc = cfg.ldr = n;
  cfg.perRowA = !u8;
  cfg.bias = true;
  cfg.isa = isa;
  if (gelu || qdqGelu)
    cfg.activation = Activation::fromName("gelu", 0, 0);
  if (qdqGelu) {
    // Grids as onnxruntime's quantize_static calibrates them on MiniLM's FFN1.
    cfg.activationInput = Activation::fakeQuant(0.047f, -172, 83);
    cfg.activation.erfGrid = {2.f / 255, -128, 127};
    cfg.activation.sumGrid = {2.f / 255, 0, 255};
    cfg.activation.productGrid = {0.036f, -10, 245};
  }
  if (u8)
    cfg.u8Output = grid;
  const void *args[] = {x.data(), pw.data(), cols.data(), rows.data(), c.data(), c.data()};
  std::vector<std::vector<int8_t>> copies;
  std::vector<const void *> weights;
  if (cold) {
    copies.assign(std::max<size_t>(2, (96u << 20) / pw.size()), pw);
    for (auto &copy : copies)
      weights.push_back(copy.data());
  }
  return int8KernelGops(cfg, args, Int8GemmKernel::numTasks(cfg), weights);
}

/// GFLOP/s of `ops` floating-point operations done by running all `tasks`
/// of `kernel` on `args` (median of many runs).
double tasksGflops(const JitKernel &kernel, const void **args, int64_t tasks, double ops) {
  double median = nunc_bench::medianSeconds(
      [&](int) {
        for (int64_t t = 0; t < tasks; ++t)
          kernel.function()(args, t, t);
      },
      ops);
  return ops / median / 1e9;
}

/// GFLOP/s of the f32 convolution GEMM building its panels from the padded
/// planes (the padding pass runs once, outside the timing).
double f32ConvGflops(int64_t m, int64_t channels, int64_t side) {
  const Isa isa = Isa::Avx512;
  Im2colConfig ic;
  ic.channels = channels;
  ic.height = ic.width = side;
  ic.kernelH = ic.kernelW = 3;
  ic.padTop = ic.padLeft = 1;
  ic.outH = ic.outW = side;
  ic.panelWidth = GemmKernel::panelWidth(isa);
  if (!PanelIm2col::supports(ic, isa))
    return 0;
  GemmConfig cfg;
  cfg.m = m;
  cfg.n = side * side;
  cfg.k = channels * 9;
  cfg.lda = cfg.k;
  cfg.ldc = cfg.ldr = cfg.n;
  cfg.bias = cfg.rowBias = true;
  cfg.activation = Activation::fromName("relu", 0, 0);
  cfg.im2col = ic;
  auto padding = PanelIm2col::generatePadding(ic);
  auto kernel = GemmKernel::generate(cfg, isa);
  if (!padding || !kernel)
    return 0;
  // With row chunks argument [1] is the im2col, packed before (not timed).
  const bool packed = !GemmKernel::im2colSplit(cfg).packPerItem;
  std::vector<float> in(channels * side * side, 0.5f), a(m * cfg.k, 0.25f), bias(m, 0.f),
      c(m * cfg.n), planes(PanelIm2col::planesBytes(ic) / 4),
      panels(packed ? GemmKernel::numPanels(cfg.n, isa) * cfg.k * ic.panelWidth : 0, 0.5f),
      buffers(GemmKernel::panelBufferBytes(cfg, isa) / 4);
  const void *padArgs[] = {in.data(), planes.data()};
  for (int64_t t = 0; t < PanelIm2col::paddingTasks(ic); ++t)
    padding->function()(padArgs, t, 0);
  const void *args[] = {a.data(),  packed ? panels.data() : planes.data(), bias.data(), c.data(),
                        c.data(), buffers.data()};
  return tasksGflops(*kernel, args, GemmKernel::numTasks(cfg, isa), 2.0 * m * cfg.n * cfg.k);
}

/// The same convolution by the Winograd kernel: GFLOP/s of the direct
/// convolution's count (2 M C S^2 9), so that it compares with f32ConvGflops.
double winogradGflops(int64_t m, int64_t channels, int64_t side) {
  WinogradConfig wc;
  wc.channels = channels;
  wc.outChannels = m;
  wc.height = wc.width = side;
  wc.bias = true;
  wc.activation = Activation::fromName("relu", 0, 0);
  if (!WinogradKernel::supports(wc, Isa::Avx512))
    return 0;
  const Im2colConfig ic = WinogradKernel::paddingConfig(wc);
  auto padding = PanelIm2col::generatePadding(ic);
  auto kernel = WinogradKernel::generate(wc, Isa::Avx512);
  if (!padding || !kernel)
    return 0;
  std::vector<float> in(channels * side * side, 0.5f), w(m * channels * 9, 0.25f),
      bias(m, 0.f), c(m * side * side), planes(PanelIm2col::planesBytes(ic) / 4);
  const int64_t tasks = WinogradKernel::numTasks(wc);
  std::vector<float> u = WinogradKernel::transformWeights(w.data(), m, channels),
                     buffers(tasks * WinogradKernel::bufferBytes(wc) / 4 + 16);
  const void *padArgs[] = {in.data(), planes.data()};
  for (int64_t t = 0; t < PanelIm2col::paddingTasks(ic); ++t)
    padding->function()(padArgs, t, 0);
  // The buffers 64-byte aligned, as the memory plan places them.
  auto *aligned = reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(buffers.data()) + 63) &
                                            ~uintptr_t(63));
  const void *args[] = {u.data(), planes.data(), bias.data(), c.data(), c.data(), aligned};
  return tasksGflops(*kernel, args, tasks, 2.0 * m * side * side * channels * 9);
}

int main(int argc, char **argv) {
  if (argc < 5 || (argc - 2) % 3) {
    std::fprintf(stderr,
                 "usage: %s avx512|avx2|vnni|avxvnni|amx|int8avx2[+options] M N K [M N K ...]\n"
                 "       %s avx512+conv|avx512+winograd M C S [M C S ...]\n",
                 argv[0], argv[0]);
    return 2;
  }
  std::string kind = argv[1];
  auto option = [&](const std::string &suffix) {
    size_t at = kind.find(suffix);
    if (at == std::string::npos)
      return false;
    kind.erase(at, suffix.size());
    return true;
  };
  bool qdqGelu = option("+qdqgelu"), gelu = option("+gelu"), u8 = option("+u8"), conv = option("+conv"),
       rows = option("+rows"), oneStep = option("+onestep"),
       winograd = option("+winograd"), cold = option("+cold");
  Isa isa = kind == "avx2" ? Isa::Avx2 : Isa::Avx512;
  if (conv && (kind == "avx2" || kind == "amx")) {
    std::fprintf(stderr, "+conv: avx512, vnni, avxvnni or int8avx2 only\n");
    return 2;
  }
  std::optional<Int8Isa> int8;
  if (kind == "vnni")
    int8 = Int8Isa::Avx512Vnni;
  else if (kind == "avxvnni") {
    int8 = Int8Isa::AvxVnni;
    evexVnni = !__builtin_cpu_supports("avxvnni");
  }
  else if (kind == "amx")
    int8 = Int8Isa::Amx;
  else if (kind == "int8avx2")
    int8 = Int8Isa::Avx2;
  if (int8 == Int8Isa::Amx &&
      syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) != 0) {
    std::fprintf(stderr, "the OS refused the AMX tile state\n");
    return 1;
  }
  for (int a = 2; a + 2 < argc; a += 3) {
    int64_t m = std::atoll(argv[a]), n = std::atoll(argv[a + 1]), k = std::atoll(argv[a + 2]);
    if (winograd) {
      if (kind != "avx512") {
        std::fprintf(stderr, "+winograd: avx512 only\n");
        return 2;
      }
      std::printf("%ld %ld %ld %.1f\n", m, n, k, winogradGflops(m, n, k));
      continue;
    }
    if (conv) {
      std::printf("%ld %ld %ld %.1f\n", m, n, k,
                  int8 ? int8ConvGops(m, n, k, *int8, u8, rows, oneStep) : f32ConvGflops(m, n, k));
      continue;
    }
    if (int8) {
      std::printf("%ld %ld %ld %.1f\n", m, n, k, int8Gops(m, n, k, *int8, gelu, qdqGelu, u8, cold));
      continue;
    }
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
    std::vector<std::vector<float>> copies(
        cold ? std::max<size_t>(2, (96u << 20) / (pw.size() * 4)) : 1, pw);
    const void *args[] = {x.data(), pw.data(), pb.data(), x.data(), c.data()};
    int64_t tasks = GemmKernel::numPanels(n, isa);
    double ops = 2.0 * m * n * k;
    double median = nunc_bench::medianSeconds(
        [&](int r) {
          args[1] = copies[r % copies.size()].data();
          for (int64_t t = 0; t < tasks; ++t)
            kernel->function()(args, t, t);
        },
        ops);
    std::printf("%ld %ld %ld %.1f\n", m, n, k, ops / median / 1e9);
  }
  return 0;
}
