//===- Int8GemmKernelTest.cpp - VNNI GEMM and row quantizer vs references -===//

#include "AmxEmulator.h"
#include "Int8GemmKernel.h"
#include "Kernels.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"
#include "QuantizeRowsKernel.h"

#include "gtest/gtest.h"

#include <cpuid.h>
#include <cstring>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

bool hostHasAmx() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !((d >> 24) & 1) || !((d >> 25) & 1))
    return false;
  // Linux hands out the tile state only on request (as the generated
  // libraries' init does).
  static const bool granted = syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */,
                                      18 /* XTILEDATA */) == 0;
  return granted;
}

bool hostHasAvxVnni() {
  unsigned a, b, c, d;
  return __get_cpuid_count(7, 1, &a, &b, &c, &d) && ((a >> 4) & 1) &&
         __builtin_cpu_supports("avx2");
}

bool hostHasAvx512Vnni() {
  return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

/// AMX kernels run on AMX hosts, else (AVX-512 VNNI hosts) with the tile
/// instructions emulated (AmxEmulator.h).
bool amxEmulated() { return !hostHasAmx(); }

/// Whether the host runs `isa`'s kernels; AvxVnni also runs EVEX-encoded
/// on AVX-512 VNNI hosts (`evex` set then).
bool hostRuns(Int8Isa isa, bool *evex = nullptr) {
  if (evex)
    *evex = false;
  switch (isa) {
  case Int8Isa::Avx2: return __builtin_cpu_supports("avx2");
  case Int8Isa::Avx512Vnni: return hostHasAvx512Vnni();
  case Int8Isa::Amx:
    return hostHasAvx512Vnni() && (hostHasAmx() || nunc_test::installAmxEmulator());
  case Int8Isa::AvxVnni:
    if (hostHasAvxVnni())
      return true;
    if (evex)
      *evex = hostHasAvx512Vnni();
    return hostHasAvx512Vnni();
  }
  return false;
}

/// The row quantizers are AVX-512 BW code for the AMX GEMM too.
bool hostRunsQuantizer(Int8Isa isa) {
  return isa == Int8Isa::Amx ? hostHasAvx512Vnni() : hostRuns(isa);
}

/// Element i of a quantized A row: u8, or the u8 value in 16 bits (AVX2).
int aElement(const std::vector<uint8_t> &a, int64_t offset, int64_t i, Int8Isa isa) {
  if (isa != Int8Isa::Avx2)
    return a[offset + i];
  uint16_t v;
  std::memcpy(&v, &a[offset + 2 * i], 2);
  return v;
}
void setAElement(std::vector<uint8_t> &a, int64_t offset, int64_t i, int v, Int8Isa isa) {
  if (isa != Int8Isa::Avx2) {
    a[offset + i] = static_cast<uint8_t>(v);
    return;
  }
  uint16_t w = static_cast<uint16_t>(v);
  std::memcpy(&a[offset + 2 * i], &w, 2);
}

std::string isaName(Int8Isa isa) { return int8IsaName(isa); }

struct Problem {
  int64_t m, n, k;
  bool perRow, bias, residual;
  int32_t zp; // per-tensor zero point (static)
  /// Output grid step (0: none) and its integer range less the zero point.
  float grid = 0;
  float gridMin = 0, gridMax = 0;
};

/// Exact integer products, then the same float epilogue in double.
void check(const Problem &p, std::mt19937 &rng, bool extremes, Int8Isa isa) {
  SCOPED_TRACE("M " + std::to_string(p.m) + " N " + std::to_string(p.n) + " K " +
               std::to_string(p.k) + (p.perRow ? " per-row" : " per-tensor zp " +
                                                               std::to_string(p.zp)) +
               (extremes ? " extremes" : "") + " " + isaName(isa) +
               (isa == Int8Isa::Amx && amxEmulated() ? " (tile instructions emulated)" : ""));
  // Room past K, filled with junk (the padded weights are 0).
  int64_t lda = Int8GemmKernel::rowBytes(p.k, isa) + 16;
  int64_t width = isa == Int8Isa::Avx2 ? 2 : 1;
  std::vector<uint8_t> a(p.m * lda);
  std::vector<int8_t> w(p.k * p.n);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t kk = 0; kk < lda / width; ++kk)
      setAElement(a, i * lda, kk, extremes ? 255 : rng() % 256, isa);
  for (int8_t &v : w)
    v = extremes ? -128 : static_cast<int8_t>(rng() % 256 - 128);
  std::vector<int32_t> rowZp(p.m);
  std::vector<float> rowScale(p.m), wScale(p.n), bias(p.n), residual(p.m * p.n);
  std::uniform_real_distribution<float> unit(0.001f, 0.02f), sym(-1.f, 1.f);
  for (int64_t i = 0; i < p.m; ++i) {
    rowZp[i] = p.perRow ? static_cast<int32_t>(rng() % 256) : p.zp;
    rowScale[i] = p.perRow ? unit(rng) : 0.013f;
  }
  for (int64_t j = 0; j < p.n; ++j) {
    wScale[j] = unit(rng);
    bias[j] = sym(rng);
  }
  for (float &v : residual)
    v = sym(rng);

  // Column sums and the packed operands.
  std::vector<int32_t> sums(p.n, 0);
  for (int64_t kk = 0; kk < p.k; ++kk)
    for (int64_t j = 0; j < p.n; ++j)
      sums[j] += w[kk * p.n + j];
  std::vector<int32_t> colSums = sums;
  std::vector<float> colScales = wScale;
  if (!p.perRow)
    for (int64_t j = 0; j < p.n; ++j) {
      colSums[j] = p.zp * sums[j];
      colScales[j] = rowScale[0] * wScale[j];
    }
  std::vector<int8_t> packed = Int8GemmKernel::packWeights(w.data(), p.k, p.n, isa);
  std::vector<uint32_t> columns = Int8GemmKernel::packColumns(
      colSums.data(), colScales.data(), p.bias ? bias.data() : nullptr, p.n, isa,
      Int8GemmKernel::compensatesWithWordPairs(isa, p.perRow, p.k));
  std::vector<uint32_t> rows(p.m * 2);
  for (int64_t i = 0; i < p.m; ++i) {
    std::memcpy(&rows[2 * i], &rowZp[i], 4);
    std::memcpy(&rows[2 * i + 1], &rowScale[i], 4);
  }

  Int8GemmConfig cfg;
  cfg.m = p.m;
  cfg.n = p.n;
  cfg.k = p.k;
  cfg.lda = lda;
  cfg.ldc = cfg.ldr = p.n;
  cfg.perRowA = p.perRow;
  cfg.bias = p.bias;
  cfg.residual = p.residual;
  cfg.isa = isa;
  hostRuns(isa, &cfg.evexVnni);
  if (p.grid > 0)
    cfg.output = Activation::fakeQuant(p.grid, p.gridMin, p.gridMax);
  std::unique_ptr<JitKernel> kernel = Int8GemmKernel::generate(cfg);
  ASSERT_TRUE(kernel);
  std::vector<float> out(p.m * p.n + 1, -777.f);
  const void *args[] = {a.data(),    packed.data(),   columns.data(),
                        rows.data(), residual.data(), out.data()};
  int64_t emulatedBefore = nunc_test::emulatedAmxInstructions();
  for (int64_t t = 0; t < Int8GemmKernel::numTasks(cfg); ++t)
    ASSERT_EQ(kernel->function()(args, t, t), 0);
  if (isa == Int8Isa::Amx && amxEmulated()) { // the tiles did the work
    ASSERT_GT(nunc_test::emulatedAmxInstructions(), emulatedBefore);
  }
  EXPECT_EQ(out.back(), -777.f) << "wrote past C";

  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      int64_t acc = 0;
      for (int64_t kk = 0; kk < p.k; ++kk)
        acc += (int64_t(aElement(a, i * lda, kk, isa)) - rowZp[i]) * w[kk * p.n + j];
      double want = double(acc) * rowScale[i] * wScale[j];
      if (p.bias)
        want += bias[j];
      if (p.residual)
        want += residual[i * p.n + j];
      // s32 -> f32 rounds to 24 bits; the scale products round once or twice.
      double tol = 4e-7 * std::fabs(double(acc) * rowScale[i] * wScale[j]) + 1e-6;
      if (p.grid > 0) {
        // On the grid, at the nearest point (either neighbour of a near-tie).
        double steps = want / p.grid, nearest = std::nearbyint(steps);
        auto onGrid = [&](double k) {
          return std::clamp(k, double(p.gridMin), double(p.gridMax)) * p.grid;
        };
        float got = out[i * p.n + j];
        bool nearTie = std::fabs(std::fabs(steps - std::floor(steps)) - 0.5) < tol / p.grid;
        if (nearTie)
          ASSERT_TRUE(got == float(onGrid(std::floor(steps))) ||
                      got == float(onGrid(std::ceil(steps))))
              << "at " << i << ", " << j;
        else
          ASSERT_EQ(got, float(onGrid(nearest))) << "at " << i << ", " << j << " want " << want;
        continue;
      }
      ASSERT_NEAR(out[i * p.n + j], want, tol) << "at " << i << ", " << j;
    }
}

class Int8GemmKernelTest : public ::testing::TestWithParam<Int8Isa> {};

TEST_P(Int8GemmKernelTest, MatchesTheExactIntegerReference) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(51);
  for (int64_t m : {1, 4, 17, 45, 128})
    for (int64_t n : {1, 16, 47, 49, 129})
      for (int64_t k : {1, 3, 7, 64, 129, 384})
        for (bool perRow : {false, true})
          check({m, n, k, perRow, (m + n) % 2 == 0, (m + k) % 2 == 1,
                 static_cast<int32_t>((n * 37 + k) % 256)},
                rng, false, isa);
}

TEST_P(Int8GemmKernelTest, RequantizedOutputLandsOnTheGrid) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(53);
  // A u8 grid with zero point 120 (saturates on both sides: results reach
  // several units) and an s8 one.
  for (auto [grid, lo, hi] : {std::tuple(0.05f, -120.f, 135.f), std::tuple(0.5f, -128.f, 127.f)})
    for (int64_t m : {1, 17})
      for (int64_t n : {7, 49})
        for (int64_t k : {3, 129})
          check({m, n, k, (m + n) % 2 == 0, true, k == 129, 77, grid, lo, hi}, rng, false, isa);
}

TEST_P(Int8GemmKernelTest, ExtremeValuesDoNotSaturate) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(52);
  // 255 x -128 everywhere: vpdpbusd (and the AVX2 form's 16-bit vpmaddwd)
  // sum the products into s32 without the 16-bit saturation of vpmaddubsw.
  for (int64_t k : {4, 3, 3072})
    for (int32_t zp : {0, 255})
      check({17, 49, k, false, false, false, zp}, rng, true, isa);
}

/// Random operands of an M x N x K GEMM in `isa`'s layouts: u8 A rows (the
/// padding past K random too), packed s8 W, a bias, a residual and a row
/// block of random (zero point, scale) pairs. Column sums and scales are
/// per row (dynamic: the sums, scaleW) or folded for one static (zp,
/// scaleA): zp x sums, scaleA x scaleW.
struct RandomOperands {
  int64_t m, n, k, lda;
  Int8Isa isa;
  bool perRow;
  std::vector<uint8_t> a;
  std::vector<int8_t> packed;
  std::vector<int32_t> sums;
  std::vector<float> scales, bias, residual;
  std::vector<uint32_t> rows;

  RandomOperands(int64_t m, int64_t n, int64_t k, Int8Isa isa, bool perRow, int32_t zp,
                 float scaleA, std::mt19937 &rng)
      : m(m), n(n), k(k), lda(Int8GemmKernel::rowBytes(k, isa)), isa(isa), perRow(perRow),
        a(m * lda), sums(n, 0), scales(n), bias(n), residual(m * n), rows(m * 2) {
    int64_t width = isa == Int8Isa::Avx2 ? 2 : 1;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < lda / width; ++kk)
        setAElement(a, i * lda, kk, rng() % 256, isa);
    std::vector<int8_t> w(k * n);
    for (int8_t &v : w)
      v = static_cast<int8_t>(rng() % 256 - 128);
    std::uniform_real_distribution<float> unit(0.001f, 0.02f), sym(-1.f, 1.f);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        sums[j] += w[kk * n + j];
    for (int64_t j = 0; j < n; ++j) {
      if (!perRow)
        sums[j] *= zp;
      scales[j] = (perRow ? 1.f : scaleA) * unit(rng);
      bias[j] = sym(rng);
    }
    for (float &v : residual)
      v = sym(rng);
    for (int64_t i = 0; i < m; ++i) {
      int32_t rowZp = static_cast<int32_t>(rng() % 256);
      float rowScale = unit(rng);
      std::memcpy(&rows[2 * i], &rowZp, 4);
      std::memcpy(&rows[2 * i + 1], &rowScale, 4);
    }
    packed = Int8GemmKernel::packWeights(w.data(), k, n, isa);
  }

  Int8GemmConfig config() const {
    Int8GemmConfig c;
    c.m = m;
    c.n = n;
    c.k = k;
    c.lda = lda;
    c.ldc = c.ldr = n;
    c.perRowA = perRow;
    c.isa = isa;
    hostRuns(isa, &c.evexVnni);
    return c;
  }

  /// Runs every task of the kernel for `c` with bias `b` into `out`.
  void run(const Int8GemmConfig &c, const std::vector<float> &b, void *out) const {
    std::vector<uint32_t> columns = Int8GemmKernel::packColumns(
        sums.data(), scales.data(), b.data(), n, isa,
        Int8GemmKernel::compensatesWithWordPairs(isa, perRow, k), nullptr, nullptr,
        Int8GemmKernel::gridInColumns(c) ? &*c.u8Output : nullptr);
    std::unique_ptr<JitKernel> kernel = Int8GemmKernel::generate(c);
    ASSERT_TRUE(kernel);
    const void *args[] = {a.data(), packed.data(), columns.data(), rows.data(), residual.data(),
                          out};
    for (int64_t t = 0; t < Int8GemmKernel::numTasks(c); ++t)
      ASSERT_EQ(kernel->function()(args, t, t), 0);
  }
};

/// The u8-output form (the next GEMM's static input written by this
/// epilogue) equals quantizing the f32 form's output as the static row
/// quantizer does, and writes nothing past its rows: byte for byte, except
/// that after an approximated activation (GELU, SiLU, ...) the quotient is
/// the product by the reciprocal, a few ulps from the division: a code may
/// be one apart where the quotient lies within 1e-4 of a rounding tie.
/// `fixedScale` > 0: that grid instead of one fitted to the results.
void checkU8Output(int64_t m, int64_t n, int64_t k, bool residual, Activation act,
                   std::mt19937 &rng, Int8Isa isa, float fixedScale = 0) {
  SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + " K " +
               std::to_string(k) + " " + isaName(isa) + (residual ? " residual" : ""));
  RandomOperands ops(m, n, k, isa, /*perRow=*/false, 113, 0.011f, rng);
  Int8GemmConfig cfg = ops.config();
  cfg.bias = true;
  cfg.residual = residual;
  cfg.activation = act;
  std::vector<float> f32(m * n);
  ops.run(cfg, ops.bias, f32.data());
  // A grid that saturates at both ends for some of the values.
  float lo = *std::min_element(f32.begin(), f32.end());
  float hi = *std::max_element(f32.begin(), f32.end());
  const float scale = fixedScale > 0 ? fixedScale : std::max((hi - lo) / 200.f, 1e-3f);
  const int32_t zp = static_cast<int32_t>(std::clamp(std::nearbyint(-lo / scale) - 20.f, 0.f, 255.f));
  cfg.u8Output = Int8GemmConfig::U8Output{scale, zp};
  std::vector<uint8_t> u8(m * n + 64, 0xA5);
  ops.run(cfg, ops.bias, u8.data());
  int saturated = 0;
  for (int64_t i = 0; i < m * n; ++i) {
    const float q = f32[i] / scale;
    float v = std::clamp(std::nearbyint(q) + static_cast<float>(zp), 0.f, 255.f);
    saturated += v == 0.f || v == 255.f;
    const bool nearTie = std::fabs(std::fabs(q - std::trunc(q)) - 0.5f) < 1e-4f;
    if (act.approximated() && nearTie && std::abs(int(u8[i]) - int(v)) == 1)
      continue;
    ASSERT_EQ(int(u8[i]), int(v)) << "at " << i / n << ", " << i % n << " from " << f32[i];
  }
  for (int64_t i = m * n; i < m * n + 64; ++i)
    ASSERT_EQ(u8[i], 0xA5) << "wrote past C";
  if (m * n >= 64) {
    EXPECT_GT(saturated, 0) << "the grid should clamp some values";
  }
  // Where every result stays within 2^30 scales (u8Bounded: the compiler
  // proves it from the weights), the same codes without the clamp.
  if (fixedScale == 0) {
    cfg.u8Bounded = true;
    std::vector<uint8_t> bounded(m * n + 64, 0xA5);
    ops.run(cfg, ops.bias, bounded.data());
    ASSERT_EQ(bounded, u8) << "codes without the clamp";
  }
}

TEST_P(Int8GemmKernelTest, U8OutputIsTheStaticQuantizationOfTheResult) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(57);
  for (int64_t m : {1, 4, 17, 45, 128})
    for (int64_t n : {1, 7, 16, 47, 129})
      for (int64_t k : {4, 64, 384})
        checkU8Output(m, n, k, (m + n) % 2 == 1,
                      n % 2 ? Activation::fromName("gelu", 0, 0) : Activation(), rng, isa);
  // Grids far finer than the results: every value saturates, also where
  // the quotient is past 2^31 (1e-20: the reciprocal form; 1e-30, below
  // its range: the division form), which converts to INT_MIN unless
  // clamped first.
  for (float scale : {1e-6f, 1e-20f, 1e-30f})
    checkU8Output(17, 47, 64, true, Activation(), rng, isa, scale);
  // The other approximated activations (the reciprocal quotient too).
  for (const char *name : {"silu", "sigmoid", "tanh"})
    checkU8Output(17, 129, 384, false, Activation::fromName(name, 0, 0), rng, isa);
  // MobileNetV3's and paddle's epilogue: hard swish, then a scalar Mul and Add.
  Activation hardSwish = Activation::fromName("hard_swish", 0, 0);
  hardSwish.alpha = 1.f / 6.f;
  hardSwish.beta = 0.5f;
  hardSwish.postMul = 0.75f;
  hardSwish.postAdd = -0.125f;
  for (int64_t m : {1, 17, 128})
    for (int64_t n : {7, 129})
      checkU8Output(m, n, 64, m == 17, hardSwish, rng, isa);
}

/// The GELU epilogue (FFN1's) equals GELU of the plain result, in double
/// precision, within the kernels' GELU error (AVX-512: 4e-7 absolute, or
/// relative above 1; the rational the AVX2 kernels use: 1.2e-6), for rows
/// of one to three vectors with tails (AVX-512 takes a row's vectors two at
/// a time, step by step) and both activation forms.
TEST_P(Int8GemmKernelTest, GeluEpilogueIsTheGeluOfThePlainResult) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(59);
  const double tolerance = isa == Int8Isa::Avx512Vnni || isa == Int8Isa::Amx ? 4e-7 : 1.2e-6;
  int64_t central = 0, total = 0;
  // M 16, 17, 45: full tiles that leave their GELU to the next tile's k
  // loop (AVX-512 VNNI), then a drain or a rest tile; K 4, 64, 1000: none,
  // some and all of those GELUs woven into the k loop.
  struct Shape {
    int64_t m, k;
  };
  for (bool perRow : {true, false})
    for (Shape shape : {Shape{1, 64}, Shape{7, 64}, Shape{16, 64}, Shape{17, 64}, Shape{45, 4},
                        Shape{16, 1000}, Shape{45, 1000}})
      for (int64_t n : {1, 7, 16, 47, 129}) {
        const int64_t m = shape.m, k = shape.k;
        SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + " K " +
                     std::to_string(k) + (perRow ? " per row" : " static"));
        // Results of one spread whatever K.
        const float scaleA = 0.003f * std::sqrt(64.f / static_cast<float>(k));
        RandomOperands ops(m, n, k, isa, perRow, 113, scaleA, rng);
        Int8GemmConfig cfg = ops.config();
        cfg.bias = true;
        std::vector<float> plain(m * n), gelu(m * n + 16, -777.f);
        ops.run(cfg, ops.bias, plain.data());
        cfg.activation = Activation::fromName("gelu", 0, 0);
        ops.run(cfg, ops.bias, gelu.data());
        total += m * n;
        for (int64_t i = 0; i < m * n; ++i) {
          double x = plain[i], want = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
          central += std::fabs(x) < 4;
          ASSERT_NEAR(gelu[i], want, tolerance * std::max(1.0, std::fabs(want)))
              << "at " << i / n << ", " << i % n << " from " << x;
        }
        ASSERT_EQ(gelu[m * n], -777.f) << "wrote past C";
      }
  EXPECT_GT(central * 3, total) << "a third of the results should be where GELU bends";
}

/// The product grid (a QDQ model's Q/DQ pair between the MatMul and its
/// bias Add) rounds the scaled product before the bias: the kernel equals
/// the plain product, rounded as fake_quantize does, plus the bias; the sum
/// grid rounds that before the residual.
TEST_P(Int8GemmKernelTest, ProductAndSumGridsRoundBeforeBiasAndResidual) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  using mlir::nunc::kernels::fakeQuantizeValue;
  std::mt19937 rng(58);
  for (int64_t m : {1, 17, 45})
    for (int64_t n : {7, 49, 129})
      for (int64_t k : {3, 129})
        for (bool perRow : {false, true}) {
          SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + " K " +
                       std::to_string(k) + (perRow ? " per-row" : " static"));
          RandomOperands ops(m, n, k, isa, perRow, 37, 0.013f, rng);
          Int8GemmConfig cfg = ops.config();
          std::vector<float> plain(m * n), got(m * n), out(m * n);
          ops.run(cfg, std::vector<float>(n, 0.f), plain.data());
          float lo = *std::min_element(plain.begin(), plain.end());
          float hi = *std::max_element(plain.begin(), plain.end());
          // u8 grid, zero point 100, covering ~80 % of the range: both ends clamp.
          float step = std::max((hi - lo) / 205.f, 1e-4f);
          cfg.bias = true;
          cfg.product = Activation::fakeQuant(step, -100.f, 155.f);
          ops.run(cfg, ops.bias, got.data());
          for (int64_t i = 0; i < m * n; ++i)
            ASSERT_EQ(got[i], fakeQuantizeValue(plain[i], step, 100, 0, 255) + ops.bias[i % n])
                << "at " << i / n << ", " << i % n;
          // And the sum rounded again (s8 grid) before a residual: what
          // follows a QDQ bias Add's pair and a residual Add.
          cfg.sum = Activation::fakeQuant(2 * step, -128.f, 127.f);
          cfg.residual = true;
          ops.run(cfg, ops.bias, out.data());
          for (int64_t i = 0; i < m * n; ++i)
            ASSERT_EQ(out[i], fakeQuantizeValue(got[i], 2 * step, 0, -128, 127) +
                                  ops.residual[i])
                << "at " << i / n << ", " << i % n;
        }
}

/// The QLinearAdd epilogue of Int8GemmConfig::qlinearBias under test: the
/// product's grid (sp, zp), the bias's, their sum's, the residual's and the
/// total's; the bias's code before or after the product's, the residual's
/// before or after the sum's; codes u8 or (offset 128) s8. `want` is the
/// reference value of a product code, from the shared helpers of
/// nunc/Dialect/Nunc/OneStepRequantization.h (the evaluator's too).
struct QLinearEpilogue {
  float sp, sb, sg, sr, s2;
  int32_t zp, zb, zg, zr, z2;
  bool biasFirst, residualFirst;
  int32_t o;
  CodeSumConstants add, radd;
  QLinearEpilogue(float sp, float sb, float sg, float sr, float s2, int32_t zp, int32_t zb,
                  int32_t zg, int32_t zr, int32_t z2, bool biasFirst, bool residualFirst,
                  int32_t o)
      : sp(sp), sb(sb), sg(sg), sr(sr), s2(s2), zp(zp), zb(zb), zg(zg), zr(zr), z2(z2),
        biasFirst(biasFirst), residualFirst(residualFirst), o(o) {
    auto fz = [&](int32_t z) { return static_cast<float>(z - o); };
    add = biasFirst ? codeSumConstants(sb, fz(zb), sp, fz(zp), sg, fz(zg))
                    : codeSumConstants(sp, fz(zp), sb, fz(zb), sg, fz(zg));
    radd = residualFirst ? codeSumConstants(sr, fz(zr), sg, fz(zg), s2, fz(z2))
                         : codeSumConstants(sg, fz(zg), sr, fz(zr), s2, fz(z2));
  }
  /// The bias column the kernel reads for a bias code.
  float biasColumn(int32_t biasCode) const {
    return biasFirst ? static_cast<float>(biasCode - o) : qlinearAddTerm(biasCode, add, o);
  }
  /// cfg's qlinearBias (productScale left to the caller).
  void configure(Int8GemmConfig &cfg, bool withResidual) const {
    cfg.qlinearBias =
        Int8GemmConfig::QLinearBias{zp, add.ratioA, sg, zg, biasFirst, add.ratioB, add.fixed};
    cfg.qlinearBias->offset = o;
    if (withResidual)
      cfg.qlinearBias->residual = Int8GemmConfig::QLinearBias::Residual{
          sr, zr, residualFirst, radd.ratioA, radd.ratioB, radd.fixed, s2, z2};
  }
  /// The result's value for the product's code, the bias's and (if any)
  /// the residual's.
  float want(int32_t code, int32_t biasCode, const int32_t *residualCode) const {
    const int32_t sum = biasFirst
                            ? qlinearAddCode(biasCode, qlinearAddTerm(code, add, o), add, o)
                            : qlinearAddCode(code, qlinearAddTerm(biasCode, add, o), add, o);
    if (!residualCode)
      return static_cast<float>(sum - zg) * sg;
    const int32_t r = *residualCode;
    const int32_t total = residualFirst
                              ? qlinearAddCode(r, qlinearAddTerm(sum, radd, o), radd, o)
                              : qlinearAddCode(sum, qlinearAddTerm(r, radd, o), radd, o);
    return static_cast<float>(total - z2) * s2;
  }
};

/// quantized_linear's one_step_requantization (Int8GemmConfig::qlinearBias):
/// the product's code in one multiply (onnxruntime's QLinearMatMul), the
/// bias's code added as its QLinearAdd adds codes, in either operand
/// order, and with a residual on a grid its code added likewise (either
/// order): equal bit for bit to those steps on the exact sums (the shared
/// helpers of nunc/Dialect/Nunc/OneStepRequantization.h, which the
/// evaluator uses too). Grids with zero points, both ends reached; rows of
/// one to three vectors with tails.
TEST_P(Int8GemmKernelTest, OneStepProductAndCodeSumsAsOnnxruntime) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(61);
  for (int64_t m : {1, 17, 45})
    for (int64_t n : {7, 49, 129})
      for (int64_t k : {3, 129})
        for (int order = 0; order < 8; ++order) {
          // offset 128: signed_codes (QLinearAdd of s8 codes, the u8 ones
          // minus 128; the constants from the s8 zero points).
          const bool biasFirst = order & 1, residualFirst = order & 2;
          const int32_t o = order & 4 ? 128 : 0;
          SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + " K " +
                       std::to_string(k) + (biasFirst ? " bias first" : "") +
                       (residualFirst ? " residual first" : "") + (o ? " s8 codes" : ""));
          RandomOperands ops(m, n, k, isa, /*perRow=*/false, 37, 0.013f, rng);
          // The exact sums (less the zero point's term): unit scales, no bias.
          RandomOperands unit = ops;
          unit.scales.assign(n, 1.f);
          std::vector<float> acc(m * n);
          unit.run(ops.config(), std::vector<float>(n, 0.f), acc.data());
          float lo = 0, hi = 0;
          for (int64_t i = 0; i < m * n; ++i) {
            lo = std::min(lo, acc[i] * ops.scales[i % n]);
            hi = std::max(hi, acc[i] * ops.scales[i % n]);
          }
          // The product's grid: the lowest value ~20 steps below code 0.
          const float sp = std::max((hi - lo) / 250.f, 1e-4f), sb = sp * 0.7f, sg = sp * 1.3f,
                      sr = sp * 0.9f, s2 = sp * 1.7f;
          const int32_t zp =
              std::clamp(static_cast<int32_t>(std::nearbyint(-lo / sp)) - 20, 0, 255);
          const int32_t zb = 120, zg = 90, zr = 140, z2 = 110;
          auto f = [](int32_t z) { return static_cast<float>(z); };
          const QLinearEpilogue e(sp, sb, sg, sr, s2, zp, zb, zg, zr, z2, biasFirst,
                                  residualFirst, o);
          std::vector<int32_t> biasCodes(n), residualCodes(m * n);
          std::vector<float> columns(n);
          RandomOperands q = ops;
          for (int64_t j = 0; j < n; ++j) {
            biasCodes[j] = static_cast<int32_t>(rng() % 256);
            q.scales[j] = ops.scales[j] / sp; // fl(fl(s_x s_w) / s_p)
            columns[j] = e.biasColumn(biasCodes[j]);
          }
          for (int64_t i = 0; i < m * n; ++i) {
            residualCodes[i] = static_cast<int32_t>(rng() % 256);
            q.residual[i] = f(residualCodes[i] - zr) * sr;
          }
          for (bool withResidual : {false, true}) {
            Int8GemmConfig cfg = q.config();
            cfg.bias = true;
            cfg.residual = withResidual;
            e.configure(cfg, withResidual);
            std::vector<float> got(m * n);
            q.run(cfg, columns, got.data());
            int64_t ends = 0;
            for (int64_t i = 0; i < m * n; ++i) {
              const int64_t j = i % n;
              const int32_t code =
                  qlinearMatMulCode(static_cast<int32_t>(acc[i]), q.scales[j], zp);
              ends += code == 0 || code == 255;
              const float want =
                  e.want(code, biasCodes[j], withResidual ? &residualCodes[i] : nullptr);
              ASSERT_EQ(got[i], want) << "at " << i / n << ", " << j
                                      << (withResidual ? " with the residual" : "");
            }
            if (m * n > 300)
              EXPECT_GT(ends, 0) << "the product's codes reach an end of the grid";
          }
        }
}

/// qlinearProduct (quantized_linear's qlinear_product): the product's code
/// in one multiply (QLinearMatMul's), its value then on through an f32
/// bias and the sum's grid, bit for bit; both ends of the grid reached. The
/// two-step rounding (the scaled sum, then its grid) differs somewhere
/// (the multiply matters).
TEST_P(Int8GemmKernelTest, QLinearProductThenF32Bias) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  using mlir::nunc::kernels::fakeQuantizeValue;
  std::mt19937 rng(67);
  int64_t apart = 0;
  for (int64_t m : {1, 17, 45})
    for (int64_t n : {7, 49, 129})
      for (int64_t k : {3, 129, 384}) {
        SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + " K " +
                     std::to_string(k));
        RandomOperands ops(m, n, k, isa, /*perRow=*/false, 37, 0.013f, rng);
        RandomOperands unit = ops;
        unit.scales.assign(n, 1.f);
        std::vector<float> acc(m * n), plain(m * n);
        unit.run(ops.config(), std::vector<float>(n, 0.f), acc.data());
        ops.run(ops.config(), std::vector<float>(n, 0.f), plain.data());
        float lo = 0, hi = 0;
        for (float v : plain) {
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        // The product's step: of 300 near (hi - lo) / 230, the one whose
        // two roundings differ from the one multiply most often (they do
        // near halves only).
        const float base = std::max((hi - lo) / 230.f, 1e-4f);
        float sp = base;
        int64_t most = -1;
        for (int c = 0; c < 300; ++c) {
          const float cand = base * (1.f + 0.00071f * static_cast<float>(c));
          int64_t differ = 0;
          for (int64_t i = 0; i < m * n; ++i)
            differ += std::nearbyint(acc[i] * (ops.scales[i % n] / cand)) !=
                      std::nearbyint(plain[i] / cand);
          if (differ > most) {
            most = differ;
            sp = cand;
          }
        }
        const float ss = sp * 1.3f;
        const int32_t zp = std::clamp(static_cast<int32_t>(std::nearbyint(-lo / sp)) - 10, 0, 255);
        RandomOperands q = ops;
        for (int64_t j = 0; j < n; ++j)
          q.scales[j] = ops.scales[j] / sp;
        Int8GemmConfig cfg = q.config();
        cfg.bias = true;
        cfg.qlinearProduct = Int8GemmConfig::QLinearProduct{zp, sp};
        cfg.sum = Activation::fakeQuant(ss, -100.f, 155.f);
        std::vector<float> got(m * n);
        q.run(cfg, ops.bias, got.data());
        int64_t ends = 0;
        for (int64_t i = 0; i < m * n; ++i) {
          const int64_t j = i % n;
          const int32_t code = qlinearMatMulCode(static_cast<int32_t>(acc[i]), q.scales[j], zp);
          ends += code == 0 || code == 255;
          const float value = static_cast<float>(code - zp) * sp;
          ASSERT_EQ(got[i], fakeQuantizeValue(value + ops.bias[j], ss, 100, 0, 255))
              << "at " << i / n << ", " << j;
          apart += value != fakeQuantizeValue(plain[i], sp, zp, 0, 255);
        }
        if (m * n > 300) {
          EXPECT_GT(ends, 0) << "the product's codes reach an end of the grid";
        }
      }
  EXPECT_GT(apart, 0) << "one multiply and the two-step rounding never differed";
}

/// A QDQ model's GELU in the epilogue (FFN1's): the result rounded to the
/// grid of the Q/DQ pair before the GELU (activationInput), then GELU with
/// its three grids, as f32 and as the next GEMM's u8 codes. Against the
/// plain result taken through the same steps with erf in double: equal but
/// where the kernels' erf (AVX-512 table 4e-7, AVX2 rational 1.2e-6) lands
/// across a grid tie, then off by one product step at most. Rows of one to
/// three vectors with tails, partial row tiles. AVX-512 VNNI looks a GELU
/// up in a table of the input grid's codes (computed with erf as the
/// evaluator takes it: equal to its steps bit for bit) where that grid has
/// at most 256 codes (u8, s8 or narrower), else runs a tile's GELUs four at
/// a time through a stack block (a 401-code grid here). With u8 output, rows
/// of 2 or 3 vectors (N = 30, 47, 129) look their codes up in a table of
/// the entries' codes instead; they must equal the codes of the f32 result.
TEST_P(Int8GemmKernelTest, GeluOnGridsAfterTheOutputGrid) {
  Int8Isa isa = GetParam();
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  using mlir::nunc::kernels::fakeQuantizeValue;
  std::mt19937 rng(61);
  Activation gelu = Activation::fromName("gelu", 0, 0);
  gelu.erfGrid = {1 / 127.5f, -128, 127};
  gelu.sumGrid = {1 / 127.5f, 0, 255};
  gelu.productGrid = {0.0625f, -20, 235};
  struct InputGrid {
    float scale;
    int zeroPoint, codes;
  };
  int64_t differ = 0, total = 0, distinct = 0;
  for (InputGrid in : {InputGrid{0.05f, 128, 256}, InputGrid{0.04f, 60, 128},
                       InputGrid{0.05f, 200, 401}})
    for (int64_t m : {1, 7, 17, 45})
      for (int64_t n : {7, 16, 30, 47, 129}) {
        SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) + ", " +
                     std::to_string(in.codes) + " input codes");
        RandomOperands ops(m, n, 64, isa, /*perRow=*/false, 113, 0.03f, rng);
        Int8GemmConfig cfg = ops.config();
        cfg.bias = true;
        std::vector<float> plain(m * n), got(m * n + 16, -777.f);
        ops.run(cfg, ops.bias, plain.data());
        cfg.activationInput = Activation::fakeQuant(
            in.scale, static_cast<float>(-in.zeroPoint),
            static_cast<float>(in.codes - 1 - in.zeroPoint));
        cfg.activation = gelu;
        ops.run(cfg, ops.bias, got.data());
        const bool table = isa == Int8Isa::Avx512Vnni && in.codes <= 256;
        std::vector<float> want(m * n);
        int64_t clamped = 0;
        for (int64_t i = 0; i < m * n; ++i) {
          float x = fakeQuantizeValue(plain[i], in.scale, in.zeroPoint, 0, in.codes - 1);
          clamped += x != fakeQuantizeValue(plain[i], in.scale, in.zeroPoint, -1000, 1000);
          if (table) {
            // The evaluator's steps (geluOnGrids): erf in float.
            float e = fakeQuantizeValue(std::erf(x * static_cast<float>(M_SQRT1_2)),
                                        1 / 127.5f, 128, 0, 255);
            float sum = fakeQuantizeValue(e + 1, 1 / 127.5f, 0, 0, 255);
            ASSERT_EQ(got[i], fakeQuantizeValue(x * sum, 0.0625f, 20, 0, 255) * 0.5f)
                << "at " << i / n << ", " << i % n << " from " << plain[i];
          }
          float e = fakeQuantizeValue(static_cast<float>(std::erf(x / std::sqrt(2.0))),
                                      1 / 127.5f, 128, 0, 255);
          float sum = fakeQuantizeValue(e + 1, 1 / 127.5f, 0, 0, 255);
          want[i] = fakeQuantizeValue(x * sum, 0.0625f, 20, 0, 255) * 0.5f;
          distinct += i == 0 || want[i] != want[i - 1];
          differ += got[i] != want[i];
          ASSERT_LE(std::fabs(got[i] - want[i]), 0.0625f * 0.5f + 1e-6f)
              << "at " << i / n << ", " << i % n << " from " << plain[i];
        }
        if (in.codes == 128 && m * n > 200) {
          EXPECT_GT(clamped, 0) << "the narrow grid should clamp some results";
        }
        ASSERT_EQ(got[m * n], -777.f) << "wrote past C";
        total += m * n;
        // The same values as the next layer's u8 codes.
        cfg.u8Output = Int8GemmConfig::U8Output{0.03125f, 8};
        std::vector<uint8_t> codes(m * n + 64, 0xA5);
        ops.run(cfg, ops.bias, codes.data());
        for (int64_t i = 0; i < m * n; ++i)
          ASSERT_EQ(int(codes[i]),
                    int(std::clamp(std::nearbyint(got[i] / 0.03125f) + 8.f, 0.f, 255.f)))
              << "at " << i / n << ", " << i % n;
        for (int64_t i = m * n; i < m * n + 64; ++i)
          ASSERT_EQ(codes[i], 0xA5) << "wrote past C";
      }
  EXPECT_LE(differ * 100, total) << "more than 1 % of the values off the reference";
  EXPECT_GT(distinct * 4, total) << "the results should spread over the grid";
}

/// A QDQ model's GELU in onnxruntime's QLinear steps (quantized_linear's
/// gelu_qlinear_arithmetic, Activation::qlinearGelu): each input code's
/// output code as qlinearGeluCode computes it (f32 erf of the value / sqrt 2
/// onto the erf grid, QLinearAdd of the constant 1's code, QLinearMul by the
/// input's code, QLinearMul by the constant 0.5's code), as f32 values and
/// as u8 codes, bit for bit; rounding f32 steps to the same grids differs
/// somewhere (the steps matter). A lookup table of the input grid's codes:
/// AVX-512 VNNI's permutes, the ymm ISAs' gathers; AMX generates no kernel
/// (its epilogues do not take the table).
TEST_P(Int8GemmKernelTest, GeluInQLinearSteps) {
  Int8Isa isa = GetParam();
  using mlir::nunc::kernels::fakeQuantizeValue;
  const float sx = 0.05f, se = 1 / 127.5f, ss = 1 / 127.5f, sp = 0.0625f, s1 = 1 / 255.f,
              sh = 0.5f / 255.f, sy = 0.03125f;
  const int32_t zx = 128, ze = 128, zp = 20, zy = 8;
  Activation gelu = Activation::fromName("gelu", 0, 0);
  gelu.erfGrid = {se, -static_cast<float>(ze), 255.f - ze};
  gelu.sumGrid = {ss, 0, 255};
  gelu.productGrid = {sp, -static_cast<float>(zp), 255.f - zp};
  gelu.qlinearGelu = qlinearGelu(sx, zx, se, ze, s1, 0, u8CodeOf(1.f, s1, 0), ss, 0, sp, zp, sh,
                                 0, u8CodeOf(0.5f, sh, 0), sy, zy);
  const QLinearGelu &steps = *gelu.qlinearGelu;
  std::mt19937 rng(67);
  if (isa == Int8Isa::Amx) {
    RandomOperands ops(7, 16, 64, isa, /*perRow=*/false, 113, 0.03f, rng);
    Int8GemmConfig cfg = ops.config();
    cfg.activationInput = Activation::fakeQuant(sx, -static_cast<float>(zx), 255.f - zx);
    cfg.activation = gelu;
    EXPECT_FALSE(Int8GemmKernel::generate(cfg));
    return;
  }
  if (!hostRuns(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  int64_t apart = 0;
  for (int64_t m : {1, 7, 17, 45})
    for (int64_t n : {7, 16, 30, 47, 129}) {
      SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n));
      RandomOperands ops(m, n, 64, isa, /*perRow=*/false, 113, 0.03f, rng);
      Int8GemmConfig cfg = ops.config();
      cfg.bias = true;
      std::vector<float> plain(m * n), got(m * n + 16, -777.f);
      ops.run(cfg, ops.bias, plain.data());
      cfg.activationInput = Activation::fakeQuant(sx, -static_cast<float>(zx), 255.f - zx);
      cfg.activation = gelu;
      ops.run(cfg, ops.bias, got.data());
      std::vector<int32_t> want(m * n);
      for (int64_t i = 0; i < m * n; ++i) {
        const int32_t x = u8CodeOf(fakeQuantizeValue(plain[i], sx, zx, 0, 255), sx, zx);
        want[i] = qlinearGeluCode(x, steps);
        ASSERT_EQ(got[i], static_cast<float>(want[i] - zy) * sy)
            << "at " << i / n << ", " << i % n << " from code " << x;
        // The f32 steps on the same grids (the evaluator's geluOnGrids).
        const float v = static_cast<float>(x - zx) * sx;
        const float e = fakeQuantizeValue(std::erf(v / 1.41421354f), se, ze, 0, 255);
        const float sum = fakeQuantizeValue(e + 1.f, ss, 0, 0, 255);
        const float product = fakeQuantizeValue(v * sum, sp, zp, 0, 255);
        apart += u8CodeOf(product * 0.5f, sy, zy) != want[i];
      }
      ASSERT_EQ(got[m * n], -777.f) << "wrote past C";
      cfg.u8Output = Int8GemmConfig::U8Output{sy, zy};
      std::vector<uint8_t> codes(m * n + 64, 0xA5);
      ops.run(cfg, ops.bias, codes.data());
      for (int64_t i = 0; i < m * n; ++i)
        ASSERT_EQ(int(codes[i]), want[i]) << "at " << i / n << ", " << i % n;
      for (int64_t i = m * n; i < m * n + 64; ++i)
        ASSERT_EQ(codes[i], 0xA5) << "wrote past C";
    }
  EXPECT_GT(apart, 0) << "the QLinear steps never differed from f32 steps on the grids";
}

/// f32Products (quantized_linear's f32_product_k_block): the epilogue on
/// the f32 products the f32 GEMM summed, from the product's grid on (bias,
/// the sum's grid, a residual, or the u8 codes of the output grid), bit for
/// bit; nothing past C. AMX takes none (its epilogues run on AVX-512 VNNI).
TEST_P(Int8GemmKernelTest, F32ProductsTakeTheEpilogue) {
  Int8Isa isa = GetParam();
  bool evex = false;
  if (!hostRuns(isa, &evex))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  using mlir::nunc::kernels::fakeQuantizeValue;
  std::mt19937 rng(71);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  for (int64_t m : {1, 7, 17, 45})
    for (int64_t n : {1, 7, 16, 47, 129}) {
      SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n));
      std::vector<float> products(m * n), bias(n), residual(m * n);
      for (auto *v : {&products, &bias, &residual})
        for (float &x : *v)
          x = dist(rng);
      Int8GemmConfig cfg;
      cfg.m = m;
      cfg.n = n;
      cfg.k = 64;
      cfg.lda = n * 4;
      cfg.ldc = cfg.ldr = n;
      cfg.isa = isa;
      cfg.evexVnni = evex;
      cfg.f32Products = true;
      cfg.bias = true;
      cfg.product = Activation::fakeQuant(0.0371f, -120.f, 135.f);
      if (isa == Int8Isa::Amx) {
        EXPECT_FALSE(Int8GemmKernel::generate(cfg));
        return;
      }
      std::vector<int32_t> sums(n, 12345);
      std::vector<float> scales(n, 1e9f); // (neither is read)
      auto run = [&](void *c) {
        std::vector<uint32_t> columns = Int8GemmKernel::packColumns(
            sums.data(), scales.data(), bias.data(), n, isa, false, nullptr, nullptr,
            cfg.u8Output ? &*cfg.u8Output : nullptr);
        std::unique_ptr<JitKernel> kernel = Int8GemmKernel::generate(cfg);
        ASSERT_TRUE(kernel);
        const void *args[] = {products.data(), columns.data(), columns.data(),
                              products.data(), residual.data(), c};
        for (int64_t t = 0; t < Int8GemmKernel::numTasks(cfg); ++t)
          ASSERT_EQ(kernel->function()(args, t, 0), 0);
      };
      std::vector<float> got(m * n + 16, -777.f);
      run(got.data());
      for (int64_t i = 0; i < m * n; ++i)
        ASSERT_EQ(got[i], fakeQuantizeValue(products[i], 0.0371f, 120, 0, 255) + bias[i % n])
            << "at " << i / n << ", " << i % n;
      ASSERT_EQ(got[m * n], -777.f) << "wrote past C";
      // The sum's grid, then a residual.
      cfg.sum = Activation::fakeQuant(0.05f, -128.f, 127.f);
      cfg.residual = true;
      std::vector<float> summed(m * n);
      run(summed.data());
      for (int64_t i = 0; i < m * n; ++i)
        ASSERT_EQ(summed[i], fakeQuantizeValue(got[i], 0.05f, 0, -128, 127) + residual[i])
            << "at " << i / n << ", " << i % n;
      // The output grid's u8 codes.
      cfg.sum = Activation();
      cfg.residual = false;
      cfg.u8Output = Int8GemmConfig::U8Output{0.0625f, 131};
      std::vector<uint8_t> codes(m * n + 64, 0xA5);
      run(codes.data());
      for (int64_t i = 0; i < m * n; ++i)
        ASSERT_EQ(int(codes[i]),
                  int(std::clamp(std::nearbyint(got[i] / 0.0625f) + 131.f, 0.f, 255.f)))
            << "at " << i / n << ", " << i % n;
      for (int64_t i = m * n; i < m * n + 64; ++i)
        ASSERT_EQ(codes[i], 0xA5) << "wrote past C";
    }
}

/// f32Products with qlinearBias (a u8 QDQ model's MatMul of 4-bit weights:
/// onnxruntime's f32 MatMul, then QLinearAdd of the bias's code): the
/// product's code as QuantizeLinear takes it (the quotient by s_p rounded,
/// plus zp, within [0, 255]; QLinearBias::productScale), the bias's code
/// and a residual's added as QLinearAdd adds them (either order, u8 and s8
/// codes), bit for bit; both ends of the product's grid reached; nothing
/// past C.
TEST_P(Int8GemmKernelTest, F32ProductCodesTakeTheCodeSums) {
  Int8Isa isa = GetParam();
  bool evex = false;
  if (!hostRuns(isa, &evex))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(73);
  std::uniform_real_distribution<float> dist(-5.f, 5.f);
  const float sp = 0.0371f, sb = 0.026f, sg = 0.048f, sr = 0.033f, s2 = 0.063f;
  const int32_t zp = 120, zb = 120, zg = 90, zr = 140, z2 = 110;
  int64_t reciprocalApart = 0;
  for (int64_t m : {1, 7, 17})
    for (int64_t n : {1, 7, 16, 47, 129})
      for (int order = 0; order < 8; ++order) {
        const bool biasFirst = order & 1, residualFirst = order & 2;
        const int32_t o = order & 4 ? 128 : 0;
        SCOPED_TRACE("M " + std::to_string(m) + " N " + std::to_string(n) +
                     (biasFirst ? " bias first" : "") + (residualFirst ? " residual first" : "") +
                     (o ? " s8 codes" : ""));
        auto f = [](int32_t z) { return static_cast<float>(z); };
        const QLinearEpilogue e(sp, sb, sg, sr, s2, zp, zb, zg, zr, z2, biasFirst,
                                residualFirst, o);
        std::vector<float> products(m * n), residual(m * n), biasColumn(n);
        std::vector<int32_t> biasCodes(n), residualCodes(m * n);
        // Half of them near a half step of the product's grid (an ulp or
        // two off), where the quotient by s_p and a product by 1 / s_p
        // round apart now and then.
        for (float &x : products) {
          x = dist(rng);
          if (rng() % 2) {
            x = (std::nearbyint(x / sp) + 0.5f) * sp;
            for (int64_t ulps = static_cast<int64_t>(rng() % 5) - 2; ulps; ulps += ulps > 0 ? -1 : 1)
              x = std::nextafter(x, ulps > 0 ? 1e9f : -1e9f);
          }
        }
        for (int64_t j = 0; j < n; ++j) {
          biasCodes[j] = static_cast<int32_t>(rng() % 256);
          biasColumn[j] = e.biasColumn(biasCodes[j]);
        }
        for (int64_t i = 0; i < m * n; ++i) {
          residualCodes[i] = static_cast<int32_t>(rng() % 256);
          residual[i] = f(residualCodes[i] - zr) * sr;
        }
        std::vector<int32_t> sums(n, 12345);
        std::vector<float> scales(n, 1e9f); // (neither is read)
        std::vector<uint32_t> columns = Int8GemmKernel::packColumns(
            sums.data(), scales.data(), biasColumn.data(), n, isa, false);
        for (bool withResidual : {false, true}) {
          Int8GemmConfig cfg;
          cfg.m = m;
          cfg.n = n;
          cfg.k = 64;
          cfg.lda = n * 4;
          cfg.ldc = cfg.ldr = n;
          cfg.isa = isa;
          cfg.evexVnni = evex;
          cfg.f32Products = true;
          cfg.bias = true;
          cfg.residual = withResidual;
          e.configure(cfg, withResidual);
          cfg.qlinearBias->productScale = sp;
          std::unique_ptr<JitKernel> kernel = Int8GemmKernel::generate(cfg);
          if (isa == Int8Isa::Amx) {
            EXPECT_FALSE(kernel);
            return;
          }
          ASSERT_TRUE(kernel);
          std::vector<float> got(m * n + 16, -777.f);
          const void *args[] = {products.data(), columns.data(), columns.data(),
                                products.data(), residual.data(), got.data()};
          for (int64_t t = 0; t < Int8GemmKernel::numTasks(cfg); ++t)
            ASSERT_EQ(kernel->function()(args, t, 0), 0);
          int64_t ends = 0;
          for (int64_t i = 0; i < m * n; ++i) {
            const int64_t j = i % n;
            const int32_t code = u8CodeOf(products[i], sp, zp);
            ends += code == 0 || code == 255;
            reciprocalApart +=
                std::clamp(std::nearbyint(products[i] * (1.f / sp)) + f(zp), 0.f, 255.f) !=
                f(code);
            const float want =
                e.want(code, biasCodes[j], withResidual ? &residualCodes[i] : nullptr);
            ASSERT_EQ(got[i], want) << "at " << i / n << ", " << j
                                    << (withResidual ? " with the residual" : "");
          }
          ASSERT_EQ(got[m * n], -777.f) << "wrote past C";
          if (m * n >= 100)
            EXPECT_GT(ends, 0) << "the product's codes reach an end of the grid";
        }
      }
  EXPECT_GT(reciprocalApart, 0) << "a product by 1 / s_p never rounded apart from the quotient";
}

/// The convolution form on f32 products (quantized_conv's
/// f32_product_k_block): each output channel's row of products [M][N] per
/// image, in the residual's argument, + bias, Relu, the output grid; then
/// with a normalization and u8 codes of its grid. No dot products (the
/// weights and panels are not read).
TEST_P(Int8GemmKernelTest, ConvF32ProductsTakeTheEpilogue) {
  Int8Isa isa = GetParam();
  bool evex = false;
  if (!hostRuns(isa, &evex))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  using mlir::nunc::kernels::fakeQuantizeValue;
  std::mt19937 rng(73);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  for (int64_t batch : {1, 2})
    for (int64_t m : {1, 7, 17, 45})
      for (int64_t n : {1, 7, 17, 49, 129})
        for (bool broadcast : {false, true}) {
          if (broadcast && Int8GemmKernel::zmm(isa))
            continue; // (a ymm form)
          SCOPED_TRACE("batch " + std::to_string(batch) + " M " + std::to_string(m) + " N " +
                       std::to_string(n) + (broadcast ? " broadcast rows" : ""));
          std::vector<float> products(batch * m * n), bias(m), a(m), b(m);
          for (auto *v : {&products, &bias, &a, &b})
            for (float &x : *v)
              x = dist(rng);
          Int8GemmConfig cfg;
          cfg.m = m;
          cfg.n = n;
          cfg.k = 36;
          cfg.lda = cfg.k * Int8ConvGemm::weightBytes(isa);
          cfg.ldc = cfg.ldr = n;
          cfg.convolution = true;
          cfg.batch = batch;
          cfg.isa = isa;
          cfg.evexVnni = evex;
          cfg.f32Products = true;
          cfg.bias = true;
          cfg.broadcastRows = broadcast;
          cfg.activation = Activation::fromName("relu", 0, 0, 0);
          cfg.output = Activation::fakeQuant(0.0371f, -120.f, 135.f);
          if (isa == Int8Isa::Amx) {
            EXPECT_FALSE(Int8GemmKernel::generate(cfg));
            return;
          }
          const std::vector<int8_t> weights(m * cfg.k, 0); // (not read)
          const std::vector<float> scales{1e9f};
          auto run = [&](void *c, bool normalize) {
            std::vector<uint32_t> rows = Int8ConvGemm::packRows(
                weights, m, scales.data(), false, bias.data(), normalize ? a.data() : nullptr,
                normalize ? b.data() : nullptr);
            if (broadcast)
              rows = Int8ConvGemm::broadcastRows(rows, m, 7, 1e9f);
            std::unique_ptr<JitKernel> kernel = Int8GemmKernel::generate(cfg);
            ASSERT_TRUE(kernel);
            const void *args[] = {rows.data(), rows.data(), rows.data(),
                                  rows.data(), products.data(), c};
            for (int64_t t = 0; t < Int8ConvGemm::numTasks(cfg); ++t)
              ASSERT_EQ(kernel->function()(args, t, 0), 0);
          };
          std::vector<float> got(batch * m * n + 16, -777.f);
          run(got.data(), false);
          std::vector<float> want(batch * m * n);
          for (int64_t i = 0; i < batch * m * n; ++i) {
            const int64_t row = i / n % m;
            want[i] = fakeQuantizeValue(std::max(products[i] + bias[row], 0.f), 0.0371f, 120, 0,
                                        255);
            ASSERT_EQ(got[i], want[i]) << "at " << i / n << ", " << i % n;
          }
          ASSERT_EQ(got[batch * m * n], -777.f) << "wrote past C";
          if (broadcast)
            continue; // (the ymm forms normalize without broadcast rows)
          // The normalization (a product, then a sum) and its grid's codes.
          cfg.normalize = true;
          cfg.u8Output = Int8GemmConfig::U8Output{0.0625f, 131};
          std::vector<uint8_t> codes(batch * m * n + 64, 0xA5);
          run(codes.data(), true);
          for (int64_t i = 0; i < batch * m * n; ++i) {
            const int64_t row = i / n % m;
            const float y = want[i] * a[row] + b[row];
            ASSERT_EQ(int(codes[i]), int(std::clamp(std::nearbyint(y / 0.0625f) + 131.f, 0.f,
                                                    255.f)))
                << "at " << i / n << ", " << i % n;
          }
          for (int64_t i = batch * m * n; i < batch * m * n + 64; ++i)
            ASSERT_EQ(codes[i], 0xA5) << "wrote past C";
        }
}

/// The row quantizer for `c` run over x: its u8 rows (then `sentinel`
/// bytes of 0xcd) and row block.
void runQuantizer(const QuantizeRowsConfig &c, const std::vector<float> &x,
                  std::vector<uint8_t> &q, std::vector<uint32_t> &block, size_t sentinel = 0) {
  std::unique_ptr<JitKernel> kernel = QuantizeRowsKernel::generate(c);
  ASSERT_TRUE(kernel);
  q.assign(c.rows * c.lda + sentinel, 0xcd);
  block.assign(c.rows * 2, 0);
  const std::array<uint32_t, 2> grid = QuantizeRowsKernel::staticParameters(c);
  const void *args[] = {x.data(), q.data(), block.data(), grid.data()};
  for (int64_t t = 0; t < QuantizeRowsKernel::numTasks(c); ++t)
    ASSERT_EQ(kernel->function()(args, t, t), 0);
}

/// Row r's (zero point, scale) in a row block.
std::pair<int32_t, float> rowParameters(const std::vector<uint32_t> &block, int64_t r) {
  int32_t zp;
  float scale;
  std::memcpy(&zp, &block[2 * r], 4);
  std::memcpy(&scale, &block[2 * r + 1], 4);
  return {zp, scale};
}

TEST_P(Int8GemmKernelTest, StaticParametersQuantizeEveryRowAlike) {
  Int8Isa isa = GetParam();
  if (!hostRunsQuantizer(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(54);
  for (int64_t rows : {1, 7, 129})
    for (int64_t k : {1, 17, 384}) {
      QuantizeRowsConfig c{rows, k, Int8GemmKernel::rowBytes(k, isa)};
      c.isa = isa;
      c.fixed = true;
      c.scale = 0.0375f;
      c.zeroPoint = 97;
      std::vector<float> x(rows * k);
      std::uniform_real_distribution<float> dist(-6.f, 9.f); // beyond the range: saturates
      for (float &v : x)
        v = dist(rng);
      // Far beyond it: quotients past 2^31 saturate too (once 0 for +x).
      const float outliers[] = {1e30f, -1e30f, 3e38f, -3e38f, INFINITY, -INFINITY, 1e10f};
      for (size_t i = 0; i < x.size(); i += 5)
        x[i] = outliers[(i / 5) % 7];
      std::vector<uint8_t> q;
      std::vector<uint32_t> block;
      ASSERT_NO_FATAL_FAILURE(runQuantizer(c, x, q, block));
      for (int64_t r = 0; r < rows; ++r) {
        auto [zp, scale] = rowParameters(block, r);
        ASSERT_EQ(zp, 97);
        ASSERT_EQ(scale, 0.0375f);
        for (int64_t i = 0; i < k; ++i) {
          float v = std::nearbyint(x[r * k + i] / 0.0375f) + 97;
          ASSERT_EQ(aElement(q, r * c.lda, i, isa),
                    static_cast<int>(std::min(255.f, std::max(0.f, v))));
        }
      }
    }
}

TEST_P(Int8GemmKernelTest, QuantizeRowsMatchesDynamicQuantizeLinear) {
  Int8Isa isa = GetParam();
  if (!hostRunsQuantizer(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(53);
  for (bool perTensor : {false, true})
  for (int64_t rows : {1, 7, 129})
    for (int64_t k : {1, 15, 16, 17, 384, 1000}) {
      QuantizeRowsConfig c{rows, k, Int8GemmKernel::rowBytes(k, isa), perTensor};
      c.isa = isa;
      std::vector<float> x(rows * k);
      std::uniform_real_distribution<float> dist(-3.f, 5.f);
      for (float &v : x)
        v = dist(rng);
      for (int64_t i = 0; i < k; ++i)
        x[i] = 0.f; // an all-zero first row
      if (rows > 1)
        for (int64_t i = 0; i < k; ++i)
          x[k + i] = 0.5f + i; // all positive: min clamps to 0
      std::vector<uint8_t> q;
      std::vector<uint32_t> block;
      ASSERT_NO_FATAL_FAILURE(runQuantizer(c, x, q, block, 1));
      EXPECT_EQ(q.back(), 0xcd) << "wrote past q";
      for (int64_t r = 0; r < rows; ++r) {
        float mx = 0, mn = 0;
        for (int64_t i = perTensor ? 0 : r * k; i < (perTensor ? rows : r + 1) * k; ++i) {
          mx = std::max(mx, x[i]);
          mn = std::min(mn, x[i]);
        }
        float scale = (mx - mn) / 255.f;
        if (scale == 0)
          scale = 1;
        float zpf = std::nearbyint(std::min(255.f, std::max(0.f, (0.f - mn) / scale)));
        int32_t zp = static_cast<int32_t>(zpf);
        auto [gotZp, gotScale] = rowParameters(block, r);
        ASSERT_EQ(gotZp, zp) << "row " << r << (perTensor ? " per tensor" : "");
        ASSERT_EQ(gotScale, scale) << "row " << r;
        for (int64_t i = 0; i < k; ++i) {
          float v = std::nearbyint(x[r * k + i] / scale) + zp;
          int want = static_cast<int>(std::min(255.f, std::max(0.f, v)));
          ASSERT_EQ(aElement(q, r * c.lda, i, isa), want) << "row " << r << " at " << i;
        }
        // Padding: 0 (u8 rows) or the zero point (16-bit rows); either way
        // it meets zero weights.
        bool zeroPadded = isa == Int8Isa::Avx512Vnni || isa == Int8Isa::Amx;
        int64_t elements = isa == Int8Isa::Avx2 ? c.lda / 2 : c.lda;
        for (int64_t i = k; i < elements; ++i)
          ASSERT_EQ(aElement(q, r * c.lda, i, isa), zeroPadded ? 0 : zp)
              << "padding of row " << r;
      }
    }
}

/// NaN takes no part in a dynamic range: the row's other values quantize
/// as DynamicQuantizeLinear of the row without it (the evaluator's
/// std::min/max skip it too), and NaN itself gives 0. The row's extremes
/// lie before the NaN in the same lane, where a range chain that kept the
/// NaN and then took the next value would lose them.
TEST_P(Int8GemmKernelTest, QuantizeRowsSkipsNaNInTheRange) {
  Int8Isa isa = GetParam();
  if (!hostRunsQuantizer(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(58);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (bool perTensor : {false, true})
    for (int64_t k : {1, 17, 129, 384}) {
      const int64_t rows = 3;
      QuantizeRowsConfig c{rows, k, Int8GemmKernel::rowBytes(k, isa), perTensor};
      c.isa = isa;
      std::vector<float> x(rows * k);
      for (float &v : x)
        v = dist(rng);
      std::vector<int64_t> nans;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t at = r * k + k / 2;
        x[at] = std::nanf("");
        nans.push_back(at);
        // The same lane and range chain (4 zmm or 2 ymm chains), earlier.
        if (at - 64 >= r * k)
          x[at - 64] = 40.f + static_cast<float>(r);
        if (at - 128 >= r * k)
          x[at - 128] = -7.f;
      }
      std::vector<uint8_t> q;
      std::vector<uint32_t> block;
      ASSERT_NO_FATAL_FAILURE(runQuantizer(c, x, q, block));
      for (int64_t r = 0; r < rows; ++r) {
        float mx = 0, mn = 0;
        for (int64_t i = perTensor ? 0 : r * k; i < (perTensor ? rows : r + 1) * k; ++i)
          if (!std::isnan(x[i])) {
            mx = std::max(mx, x[i]);
            mn = std::min(mn, x[i]);
          }
        float scale = (mx - mn) / 255.f;
        if (scale == 0)
          scale = 1;
        int32_t zp = static_cast<int32_t>(
            std::nearbyint(std::min(255.f, std::max(0.f, (0.f - mn) / scale))));
        auto [gotZp, gotScale] = rowParameters(block, r);
        ASSERT_EQ(gotScale, scale) << "row " << r << " k " << k;
        ASSERT_EQ(gotZp, zp) << "row " << r << " k " << k;
        for (int64_t i = 0; i < k; ++i) {
          float v = x[r * k + i];
          int want = std::isnan(v) ? 0
                                   : static_cast<int>(std::min(
                                         255.f, std::max(0.f, std::nearbyint(v / scale) + zp)));
          ASSERT_EQ(aElement(q, r * c.lda, i, isa), want)
              << "row " << r << " k " << k << " at " << i << (perTensor ? " per tensor" : "");
        }
      }
    }
}

/// The row quantizer forms x / scale from a reciprocal and an FMA
/// correction where the scale allows it: it must round as the division on
/// quotients at and next to rounding ties, for each row's own scale (the
/// rows take the reciprocal or the division code by their scale: subnormal
/// ones divide), per tensor, and for static scales either side of the
/// reciprocal's range.
TEST_P(Int8GemmKernelTest, QuantizeRowsRoundsAsDivision) {
  Int8Isa isa = GetParam();
  if (!hostRunsQuantizer(isa))
    GTEST_SKIP() << "the host lacks " << isaName(isa);
  std::mt19937 rng(57);
  const float ranges[] = {5.f, 3.7e-3f, 1.9e30f, 2e-38f, 0.f, 11.f, 1e-6f};
  for (int64_t k : {1, 17, 384}) {
    const int64_t rows = 7;
    std::vector<float> x(rows * k);
    for (int64_t r = 0; r < rows; ++r) {
      float range = ranges[r], scale = (range + range * 0.4f) / 255.f;
      std::uniform_int_distribution<int> step(-100, 150);
      for (int64_t i = 0; i < k; ++i) {
        float tie = (static_cast<float>(step(rng)) + 0.5f) * scale;
        int side = static_cast<int>(rng() % 3);
        float v = side == 0 ? tie : std::nextafter(tie, side == 1 ? 1e38f : -1e38f);
        x[r * k + i] = std::clamp(v, -range * 0.4f, range);
      }
      if (k > 1) { // the range the scale above assumes
        x[r * k] = range;
        x[r * k + k - 1] = -range * 0.4f;
      }
    }
    auto check = [&](const QuantizeRowsConfig &c) {
      std::vector<uint8_t> q;
      std::vector<uint32_t> block;
      ASSERT_NO_FATAL_FAILURE(runQuantizer(c, x, q, block));
      for (int64_t r = 0; r < rows; ++r) {
        auto [zp, scale] = rowParameters(block, r);
        for (int64_t i = 0; i < k; ++i) {
          float v = std::nearbyint(x[r * k + i] / scale) + static_cast<float>(zp);
          ASSERT_EQ(aElement(q, r * c.lda, i, isa),
                    static_cast<int>(std::min(255.f, std::max(0.f, v))))
              << "row " << r << " at " << i << ": " << x[r * k + i] << " / " << scale;
        }
      }
    };
    for (bool perTensor : {false, true}) {
      SCOPED_TRACE("k " + std::to_string(k) + (perTensor ? " per tensor" : " per row"));
      QuantizeRowsConfig c{rows, k, Int8GemmKernel::rowBytes(k, isa), perTensor};
      c.isa = isa;
      check(c);
    }
    {
      // A whole tensor of tiny values: its one scale is below the
      // reciprocal's range (the per-tensor division code).
      std::vector<float> kept = x;
      std::uniform_real_distribution<float> tiny(-1e-38f, 2e-38f);
      for (float &v : x)
        v = tiny(rng);
      SCOPED_TRACE("k " + std::to_string(k) + " per tensor, subnormal scale");
      QuantizeRowsConfig c{rows, k, Int8GemmKernel::rowBytes(k, isa), true};
      c.isa = isa;
      check(c);
      x = kept;
    }
    for (float scale : {0.0375f, 0x1p-110f, 0x1p101f}) {
      SCOPED_TRACE("k " + std::to_string(k) + " static scale " + std::to_string(scale));
      // Ties of this grid and their neighbours, and values far past it.
      std::uniform_int_distribution<int> step(-120, 200);
      for (size_t i = 0; i < x.size(); ++i) {
        float tie = (static_cast<float>(step(rng)) + 0.5f) * scale;
        int side = static_cast<int>(rng() % 3);
        x[i] = side == 0 ? tie : std::nextafter(tie, side == 1 ? 1e38f : -1e38f);
        if (i % 11 == 0)
          x[i] = i % 2 ? 1e38f : -INFINITY;
      }
      QuantizeRowsConfig c{rows, k, Int8GemmKernel::rowBytes(k, isa)};
      c.isa = isa;
      c.fixed = true;
      c.scale = scale;
      c.zeroPoint = 77;
      check(c);
    }
  }
}

/// AVX-VNNI kernels must use the VEX `vpdpbusd` (Alder Lake-class CPUs have
/// no EVEX); the test hook switches to EVEX.
/// u8 weights with zero points (Int8GemmConfig::u8Weights): the row
/// quantizer writes each row's code sum beside its (zero point, scale), the
/// GEMM multiplies by the codes minus 128 and adds (128 - zw) times that
/// sum. Against sum (a - za)(w - zw) in integers and the epilogue's float
/// operations: bit for bit. Zero points 0, 255 and per column; the extreme
/// sums (codes 255 times weights 0 with zero point 255, over K = 3072).
/// Every form: the ymm ones' rows are padded with the zero point (taken off
/// the sum), AVX2's hold 16-bit elements.
TEST(Int8GemmKernelU8WeightsTest, MatchTheExactIntegerReference) {
  int forms = 0;
  for (Int8Isa isa : {Int8Isa::Avx512Vnni, Int8Isa::Amx, Int8Isa::AvxVnni, Int8Isa::Avx2}) {
    SCOPED_TRACE(isaName(isa));
    bool evex = false;
    if (!hostRuns(isa, &evex) || !hostRunsQuantizer(isa))
      continue;
    ++forms;
    std::mt19937 rng(71);
    struct Case {
      int64_t m, n, k;
      int zeroPoints; // 0: all 0, 1: all 255, 2: random per column
      bool extremes;
      bool fixed = false; // static activations (scale 0.03, zero point 37)
    };
    std::vector<Case> cases;
    for (int64_t m : {1, 4, 17, 128})
      for (int64_t n : {1, 47, 129})
        for (int64_t k : {1, 7, 129, 384})
          for (bool fixed : {false, true})
            cases.push_back({m, n, k, static_cast<int>((m + n + k) % 3), false, fixed});
    cases.push_back({17, 49, 3072, 1, true});
    cases.push_back({4, 48, 3072, 0, true});
    cases.push_back({17, 49, 3072, 1, true, true});
    for (const Case &cs : cases) {
      SCOPED_TRACE("M " + std::to_string(cs.m) + " N " + std::to_string(cs.n) + " K " +
                   std::to_string(cs.k) + " zero points " + std::to_string(cs.zeroPoints) +
                   (cs.extremes ? " extremes" : "") + (cs.fixed ? " static" : " dynamic"));
      int64_t lda = Int8GemmKernel::rowBytes(cs.k, isa);
      std::vector<float> x(cs.m * cs.k);
      std::uniform_real_distribution<float> dist(-3.f, 5.f);
      for (float &v : x)
        // Extremes: all equal and positive (dynamic), or past the static
        // grid's top: every code 255.
        v = cs.extremes ? (cs.fixed ? 10.f : 2.5f) : dist(rng);
      QuantizeRowsConfig qc{cs.m, cs.k, lda, /*perTensor=*/true};
      qc.isa = isa;
      qc.rowSums = true;
      qc.fixed = cs.fixed;
      qc.scale = 0.03f;
      qc.zeroPoint = 37; // [-3, 5] saturates at both ends
      std::unique_ptr<JitKernel> quantizer = QuantizeRowsKernel::generate(qc);
      ASSERT_TRUE(quantizer);
      std::vector<uint8_t> a(cs.m * lda);
      std::vector<uint32_t> rows(cs.m * 4, 0xdeadbeef);
      const std::array<uint32_t, 2> grid = QuantizeRowsKernel::staticParameters(qc);
      const void *qargs[] = {x.data(), a.data(), rows.data(), grid.data()};
      for (int64_t t = 0; t < QuantizeRowsKernel::numTasks(qc); ++t)
        ASSERT_EQ(quantizer->function()(qargs, t, t), 0);
      for (int64_t i = 0; i < cs.m; ++i) {
        int64_t sum = 0;
        for (int64_t kk = 0; kk < cs.k; ++kk)
          sum += aElement(a, i * lda, kk, isa);
        if (cs.extremes) {
          ASSERT_EQ(sum, 255 * cs.k);
        }
        ASSERT_EQ(rows[4 * i + 2], static_cast<uint32_t>(sum % 128 | (sum / 128) << 16))
            << "row " << i << "'s code sum";
        ASSERT_EQ(rows[4 * i + 3], 0u);
      }
      if (cs.fixed && (isa == Int8Isa::Avx512Vnni || isa == Int8Isa::Amx)) {
        // Rows handed over as codes (a producer's u8 output): the row-sum
        // step writes the same row block from them.
        QuantizeRowsConfig sc = qc;
        sc.sumsOnly = true;
        std::unique_ptr<JitKernel> sumsStep = QuantizeRowsKernel::generate(sc);
        ASSERT_TRUE(sumsStep);
        std::vector<uint32_t> summed(cs.m * 4, 0xdeadbeef);
        const void *sargs[] = {a.data(), a.data(), summed.data(), grid.data()};
        for (int64_t t = 0; t < QuantizeRowsKernel::numTasks(sc); ++t)
          ASSERT_EQ(sumsStep->function()(sargs, t, t), 0);
        ASSERT_EQ(summed, rows) << "the row-sum step's row block";
      }

      std::vector<uint8_t> w(cs.k * cs.n);
      for (uint8_t &v : w)
        v = cs.extremes ? (cs.zeroPoints == 1 ? 0 : 255) : static_cast<uint8_t>(rng() % 256);
      std::vector<int32_t> zw(cs.n);
      for (int32_t &z : zw)
        z = cs.zeroPoints == 0 ? 0 : cs.zeroPoints == 1 ? 255 : static_cast<int32_t>(rng() % 256);
      std::vector<float> wScale(cs.n), bias(cs.n);
      std::uniform_real_distribution<float> unit(0.001f, 0.02f), sym(-1.f, 1.f);
      for (int64_t j = 0; j < cs.n; ++j) {
        wScale[j] = unit(rng);
        bias[j] = sym(rng);
      }
      std::vector<int8_t> shifted(w.size());
      std::vector<int32_t> sums(cs.n, 0);
      for (int64_t i = 0; i < cs.k * cs.n; ++i) {
        shifted[i] = static_cast<int8_t>(w[i] - 128);
        sums[i % cs.n] += w[i] - zw[i % cs.n];
      }
      std::vector<int8_t> packed = Int8GemmKernel::packWeights(shifted.data(), cs.k, cs.n, isa);
      // Static: the zero point's compensation and the scale product folded
      // per column, as CompileModel does.
      std::vector<int32_t> compensation = sums;
      std::vector<float> columnScale = wScale;
      if (cs.fixed)
        for (int64_t j = 0; j < cs.n; ++j) {
          compensation[j] *= qc.zeroPoint;
          columnScale[j] = qc.scale * wScale[j];
        }
      std::vector<uint32_t> columns = Int8GemmKernel::packColumns(
          compensation.data(), columnScale.data(), bias.data(), cs.n, isa,
          Int8GemmKernel::compensatesWithWordPairs(isa, !cs.fixed, cs.k), zw.data());
      Int8GemmConfig cfg;
      cfg.m = cs.m;
      cfg.n = cs.n;
      cfg.k = cs.k;
      cfg.lda = lda;
      cfg.ldc = cfg.ldr = cs.n;
      cfg.perRowA = !cs.fixed;
      cfg.u8Weights = true;
      cfg.bias = true;
      cfg.isa = isa;
      cfg.evexVnni = evex;
      std::unique_ptr<JitKernel> kernel = Int8GemmKernel::generate(cfg);
      ASSERT_TRUE(kernel);
      std::vector<float> out(cs.m * cs.n + 1, -777.f);
      const void *args[] = {a.data(),    packed.data(), columns.data(),
                            rows.data(), nullptr,       out.data()};
      for (int64_t t = 0; t < Int8GemmKernel::numTasks(cfg); ++t)
        ASSERT_EQ(kernel->function()(args, t, t), 0);
      EXPECT_EQ(out.back(), -777.f) << "wrote past C";
      for (int64_t i = 0; i < cs.m; ++i) {
        auto [za, scale] =
            rowParameters(std::vector<uint32_t>(rows.begin() + 4 * i, rows.begin() + 4 * i + 2), 0);
        if (cs.fixed) {
          ASSERT_EQ(za, 37);
          ASSERT_EQ(scale, 0.03f);
        }
        for (int64_t j = 0; j < cs.n; ++j) {
          int64_t acc = 0;
          for (int64_t kk = 0; kk < cs.k; ++kk)
            acc += (int64_t(aElement(a, i * lda, kk, isa)) - za) *
                   (int64_t(w[kk * cs.n + j]) - zw[j]);
          float want = static_cast<float>(acc) * (scale * wScale[j]) + bias[j];
          ASSERT_EQ(out[i * cs.n + j], want) << "at " << i << ", " << j << " (sum " << acc << ")";
        }
      }
    }
  }
  if (!forms)
    GTEST_SKIP() << "the host runs none of the int8 GEMMs";
}

/// A16W8: static u16 inputs (QuantizeRowsConfig::u16Planes, then
/// Int8GemmConfig::u16Input). The quantizer's codes must be
/// clamp(round_half_even(x / scale) + zp, 0, 65535) in their two planes;
/// the GEMM's result the exact integer sum of (code - zp) w, scaled, within
/// the few f32 roundings of its two parts. Zero points 0, 65535 and in
/// between; the extreme sums (codes 65535 or 0 against weights -128 over
/// K = 1536: 2^33, past s32 as a whole); M and N off the tile and panel
/// sizes; bias, residual and an output grid.
TEST(Int8GemmKernelU16InputTest, MatchesTheExactIntegerReference) {
  if (!hostRuns(Int8Isa::Avx512Vnni))
    GTEST_SKIP() << "the host lacks AVX-512 VNNI";
  const Int8Isa isa = Int8Isa::Avx512Vnni;
  std::mt19937 rng(83);
  struct Case {
    int64_t m, n, k;
    int32_t zp;
    bool extremes, bias, residual;
    float grid = 0; // output grid step (codes 0..65535 less 30000: steps -30000..35535)
    float u8Scale = 0; // u8 output codes on this scale, zero point 100 (a u8 GEMM's input)
  };
  std::vector<Case> cases;
  for (int64_t m : {1, 7, 17, 128})
    for (int64_t n : {1, 17, 48, 129})
      for (int64_t k : {1, 3, 7, 64, 129, 384})
        cases.push_back({m, n, k, static_cast<int32_t>((m * 977 + n * 31 + k) % 65536),
                         false, (m + n) % 2 == 0, (n + k) % 2 == 1});
  for (int32_t zp : {0, 65535, 32768})
    cases.push_back({9, 50, 1536, zp, true, true, false});
  cases.push_back({17, 100, 384, 12345, false, true, true, 1e-4f}); // clamps too
  cases.push_back({9, 50, 129, 40000, false, true, true, 0, 20.f}); // saturates too
  for (const Case &t : cases) {
    SCOPED_TRACE("M " + std::to_string(t.m) + " N " + std::to_string(t.n) + " K " +
                 std::to_string(t.k) + " zp " + std::to_string(t.zp) +
                 (t.extremes ? " extremes" : ""));
    const float scale = 0.0007f;
    const int64_t plane = Int8GemmKernel::rowBytes(t.k, isa) + 4; // junk-free padding
    QuantizeRowsConfig qc{t.m, t.k, 2 * plane};
    qc.isa = isa;
    qc.fixed = true;
    qc.u16Planes = true;
    qc.scale = scale;
    qc.zeroPoint = t.zp;
    std::vector<float> x(t.m * t.k);
    std::uniform_real_distribution<float> dist(-30.f, 30.f); // past the grid at both ends
    for (size_t i = 0; i < x.size(); ++i) {
      if (t.extremes)
        x[i] = t.zp == 0 ? 1e9f : -1e9f; // codes 65535 (zp 0) or 0
      else
        x[i] = i % 97 == 5 ? std::nearbyint(dist(rng) / scale) * scale + scale / 2 // ties
                           : dist(rng);
    }
    if (!t.extremes && x.size() > 3) {
      x[1] = NAN;
      x[2] = INFINITY;
      x[3] = -INFINITY;
    }
    std::vector<uint8_t> a;
    std::vector<uint32_t> block;
    ASSERT_NO_FATAL_FAILURE(runQuantizer(qc, x, a, block, /*sentinel=*/16));
    std::vector<int32_t> codes(t.m * t.k);
    for (int64_t r = 0; r < t.m; ++r) {
      for (int64_t i = 0; i < t.k; ++i) {
        float v = x[r * t.k + i];
        int32_t want = std::isnan(v) ? 0
                                     : static_cast<int32_t>(std::clamp(
                                           double(std::nearbyint(v / scale)) + t.zp, 0.0, 65535.0));
        int32_t got = a[r * qc.lda + i] * 256 + a[r * qc.lda + plane + i];
        ASSERT_EQ(got, want) << "code of row " << r << " element " << i << " (" << v << ")";
        codes[r * t.k + i] = got;
      }
      for (int64_t i = t.k; i < plane; ++i)
        ASSERT_TRUE(a[r * qc.lda + i] == 0 && a[r * qc.lda + plane + i] == 0) << "padding";
    }
    for (size_t i = t.m * qc.lda; i < a.size(); ++i)
      ASSERT_EQ(a[i], 0xcd) << "wrote past the rows";

    std::vector<int8_t> w(t.k * t.n);
    for (int8_t &v : w)
      v = t.extremes ? -128 : static_cast<int8_t>(rng() % 256 - 128);
    std::vector<float> wScale(t.n), bias(t.n), residual(t.m * t.n);
    std::uniform_real_distribution<float> unit(0.001f, 0.02f), sym(-1.f, 1.f);
    for (int64_t j = 0; j < t.n; ++j) {
      wScale[j] = unit(rng);
      bias[j] = sym(rng);
    }
    for (float &v : residual)
      v = sym(rng);
    std::vector<int32_t> lowSums(t.n, 0), highSums(t.n, 0);
    std::vector<float> colScales(t.n);
    for (int64_t j = 0; j < t.n; ++j) {
      int32_t sum = 0;
      for (int64_t kk = 0; kk < t.k; ++kk)
        sum += w[kk * t.n + j];
      lowSums[j] = (t.zp & 255) * sum;
      highSums[j] = (t.zp >> 8) * sum;
      colScales[j] = scale * wScale[j];
    }
    std::vector<int8_t> packed = Int8GemmKernel::packWeights(w.data(), t.k, t.n, isa);
    const Int8GemmConfig::U8Output grid{t.u8Scale, 100};
    std::vector<uint32_t> columns = Int8GemmKernel::packColumns(
        lowSums.data(), colScales.data(), t.bias ? bias.data() : nullptr, t.n, isa,
        /*wordPairs=*/false, nullptr, highSums.data(), t.u8Scale > 0 ? &grid : nullptr);
    Int8GemmConfig cfg;
    cfg.m = t.m;
    cfg.n = t.n;
    cfg.k = t.k;
    cfg.lda = qc.lda;
    cfg.ldc = cfg.ldr = t.n;
    cfg.bias = t.bias;
    cfg.residual = t.residual;
    cfg.isa = isa;
    cfg.u16Input = true;
    if (t.grid > 0)
      cfg.output = Activation::fakeQuant(t.grid, -30000.f, 35535.f);
    if (t.u8Scale > 0)
      cfg.u8Output = grid;
    std::unique_ptr<JitKernel> kernel = Int8GemmKernel::generate(cfg);
    ASSERT_TRUE(kernel);
    std::vector<float> out(t.m * t.n + 1, -777.f);
    std::vector<uint8_t> codesOut(t.m * t.n + 1, 0xcd);
    const void *args[] = {a.data(),     packed.data(),   columns.data(),
                          block.data(), residual.data(),
                          t.u8Scale > 0 ? static_cast<void *>(codesOut.data()) : out.data()};
    for (int64_t task = 0; task < Int8GemmKernel::numTasks(cfg); ++task)
      ASSERT_EQ(kernel->function()(args, task, task), 0);
    EXPECT_EQ(out.back(), -777.f) << "wrote past C";
    EXPECT_EQ(codesOut.back(), 0xcd) << "wrote past C";
    if (t.u8Scale > 0) { // mostly codes, some saturated
      ASSERT_GT(std::count_if(codesOut.begin(), codesOut.end() - 1,
                              [](uint8_t c) { return c > 0 && c < 255; }),
                t.m * t.n / 2);
    }
    for (int64_t i = 0; i < t.m; ++i)
      for (int64_t j = 0; j < t.n; ++j) {
        int64_t acc = 0, high = 0, low = 0;
        for (int64_t kk = 0; kk < t.k; ++kk) {
          int64_t c = codes[i * t.k + kk], wv = w[kk * t.n + j];
          acc += (c - t.zp) * wv;
          high += ((c >> 8) - (t.zp >> 8)) * wv;
          low += ((c & 255) - (t.zp & 255)) * wv;
        }
        ASSERT_EQ(acc, 256 * high + low);
        double want = double(acc) * scale * wScale[j];
        if (t.bias)
          want += bias[j];
        if (t.residual)
          want += residual[i * t.n + j];
        // Each part rounds to f32 once, their sum once, the scale products
        // once or twice.
        double parts = (256 * std::fabs(double(high)) + std::fabs(double(low))) * scale * wScale[j];
        double tol = 5e-7 * parts + 1e-6;
        if (t.u8Scale > 0) {
          // The nearest code (either neighbour of a near-tie), saturated.
          double steps = want / t.u8Scale;
          auto code = [](double k) { return static_cast<int>(std::clamp(k + 100, 0.0, 255.0)); };
          int got = codesOut[i * t.n + j];
          bool nearTie = std::fabs(std::fabs(steps - std::floor(steps)) - 0.5) < tol / t.u8Scale;
          if (nearTie)
            ASSERT_TRUE(got == code(std::floor(steps)) || got == code(std::ceil(steps)));
          else
            ASSERT_EQ(got, code(std::nearbyint(steps))) << "at " << i << ", " << j;
          continue;
        }
        float got = out[i * t.n + j];
        if (t.grid > 0) {
          double steps = std::clamp(want / t.grid, -30000.0, 35535.0);
          ASSERT_TRUE(got == float(std::floor(steps) * t.grid) ||
                      got == float(std::ceil(steps) * t.grid))
              << "at " << i << ", " << j << " want " << want;
          ASSERT_NEAR(got, steps * t.grid, t.grid / 2 + tol);
          continue;
        }
        ASSERT_NEAR(got, want, tol) << "at " << i << ", " << j;
      }
  }
}

/// That `generate` refuses `base` once `change` (named `what`) is applied.
template <typename Config, typename Generate, typename Change>
void expectRefused(const Config &base, Generate generate, const char *what, Change change) {
  Config c = base;
  change(c);
  EXPECT_FALSE(generate(c)) << what;
}

/// The u16 forms take only what they compute: static AVX-512 VNNI rows in
/// two whole planes. Each change to a form they take is refused alone.
TEST(Int8GemmKernelU16InputTest, RejectsTheFormsItDoesNotCover) {
  Int8GemmConfig base;
  base.m = base.n = 16;
  base.k = 17;
  base.lda = 2 * 20;
  base.ldc = base.ldr = 16;
  base.u16Input = true;
  ASSERT_TRUE(Int8GemmKernel::generate(base));
  auto refuses = [&](const char *what, auto change) {
    expectRefused(base, Int8GemmKernel::generate, what, change);
  };
  refuses("AMX", [](Int8GemmConfig &c) { c.isa = Int8Isa::Amx; });
  refuses("AVX-VNNI", [](Int8GemmConfig &c) { c.isa = Int8Isa::AvxVnni; });
  refuses("AVX2", [](Int8GemmConfig &c) { c.isa = Int8Isa::Avx2; });
  refuses("dynamic rows", [](Int8GemmConfig &c) { c.perRowA = true; });
  refuses("u8 weights", [](Int8GemmConfig &c) { c.u8Weights = true; });
  refuses("a convolution", [](Int8GemmConfig &c) { c.convolution = true; });
  refuses("an odd row", [](Int8GemmConfig &c) { c.lda = 41; });
  refuses("short planes", [](Int8GemmConfig &c) { c.lda = 2 * 19; });

  QuantizeRowsConfig qbase{4, 17, 2 * 20};
  qbase.u16Planes = true;
  qbase.fixed = true;
  ASSERT_TRUE(QuantizeRowsKernel::generate(qbase));
  auto quantizerRefuses = [&](const char *what, auto change) {
    expectRefused(qbase, QuantizeRowsKernel::generate, what, change);
  };
  quantizerRefuses("dynamic", [](QuantizeRowsConfig &c) { c.fixed = false; });
  quantizerRefuses("per tensor", [](QuantizeRowsConfig &c) { c.perTensor = true; });
  quantizerRefuses("row sums", [](QuantizeRowsConfig &c) { c.rowSums = true; });
  quantizerRefuses("dequantized", [](QuantizeRowsConfig &c) { c.dequantized = true; });
  quantizerRefuses("channels", [](QuantizeRowsConfig &c) { c.channels = 4; });
  quantizerRefuses("AVX2", [](QuantizeRowsConfig &c) { c.isa = Int8Isa::Avx2; });
  quantizerRefuses("an odd row", [](QuantizeRowsConfig &c) { c.lda = 41; });
  quantizerRefuses("short planes", [](QuantizeRowsConfig &c) { c.lda = 2 * 16; });
}

TEST(Int8GemmKernelEncodingTest, AvxVnniUsesTheVexDotProduct) {
  auto count = [](bool evex) {
    Int8GemmConfig cfg;
    cfg.m = 6;
    cfg.n = 16;
    cfg.k = 16;
    cfg.lda = cfg.ldc = cfg.ldr = 16;
    cfg.perRowA = true;
    cfg.isa = Int8Isa::AvxVnni;
    cfg.evexVnni = evex;
    std::unique_ptr<JitKernel> kernel = Int8GemmKernel::generate(cfg);
    std::vector<uint8_t> code = kernel ? kernel->bytes() : std::vector<uint8_t>();
    // VEX.256.66.0F38.W0 50 /r: C4, RXB.00010, W.vvvv.L.pp = 0.vvvv.1.01, 50.
    int vex = 0;
    for (size_t i = 0; i + 3 < code.size(); ++i)
      vex += code[i] == 0xc4 && (code[i + 1] & 0x1f) == 0x02 && (code[i + 2] & 0x87) == 0x05 &&
             code[i + 3] == 0x50;
    return std::pair<bool, int>(kernel != nullptr, vex);
  };
  auto [built, vex] = count(false);
  ASSERT_TRUE(built);
  // 4 groups of k x 6 rows x 2 vectors.
  EXPECT_EQ(vex, 48);
  EXPECT_EQ(count(true).second, 0);
}

INSTANTIATE_TEST_SUITE_P(Isas, Int8GemmKernelTest,
                         ::testing::Values(Int8Isa::Avx512Vnni, Int8Isa::Amx, Int8Isa::AvxVnni,
                                           Int8Isa::Avx2),
                         [](const auto &info) { return isaName(info.param); });

} // namespace
