//===- DynamicFakeQuantizeKernelTest.cpp - dynamic_fake_quantize's kernel ---===//
//
// The row quantizer's dequantized form (QuantizeRowsConfig::dequantized),
// as CompileModel runs it for nunc.dynamic_fake_quantize: its range pass or
// a producer's partial ranges, then the rounding tasks. Checked bit for bit
// (signs of zero included) against DequantizeLinear(DynamicQuantizeLinear(x))
// computed plainly.
//
//===----------------------------------------------------------------------===//

#include "QuantizeRowsKernel.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace mlir::nunc::x86;
using mlir::nunc::Int8Isa;

namespace {

/// zmm code (Avx512Vnni) or ymm code (Avx2: the AVX2 and AVX-VNNI
/// targets').
bool hostRuns(Int8Isa isa) {
  if (isa == Int8Isa::Avx2)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

/// DequantizeLinear(DynamicQuantizeLinear(x)) as the evaluator computes it:
/// the range with 0 in it and NaN skipped, scale 1 for an all-zero tensor,
/// NaN to code 0.
std::vector<float> reference(const std::vector<float> &x) {
  float lo = 0, hi = 0;
  for (float v : x) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  float scale = (hi - lo) / 255.f;
  if (scale == 0)
    scale = 1;
  float zp = std::nearbyint(std::clamp(0.f - lo / scale, 0.f, 255.f));
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float code = std::isnan(x[i]) ? 0.f
                                  : std::clamp(std::nearbyint(x[i] / scale) + zp, 0.f, 255.f);
    y[i] = (code - zp) * scale;
  }
  return y;
}

/// Runs the kernel for `c` over x into y (which may be x): the range pass
/// first where the config needs one, else `produced` as the partial
/// ranges; the rounding tasks in reverse order (they must not depend on
/// one another).
void run(const QuantizeRowsConfig &c, const float *x, float *y,
         std::vector<float> produced = {}) {
  std::vector<float> partials = std::move(produced);
  if (QuantizeRowsKernel::needsRangePass(c)) {
    partials.assign(QuantizeRowsKernel::rangeTasks(c) * 2, -12345.f);
    std::unique_ptr<JitKernel> range = QuantizeRowsKernel::generateRange(c);
    ASSERT_TRUE(range);
    const void *args[] = {x, partials.data()};
    for (int64_t t = 0; t < QuantizeRowsKernel::rangeTasks(c); ++t)
      ASSERT_EQ(range->function()(args, t, 0), 0);
  }
  std::unique_ptr<JitKernel> kernel = QuantizeRowsKernel::generate(c);
  ASSERT_TRUE(kernel);
  const void *args[] = {x, y, partials.data()};
  for (int64_t t = QuantizeRowsKernel::numTasks(c) - 1; t >= 0; --t)
    ASSERT_EQ(kernel->function()(args, t, 0), 0);
}

class DynamicFakeQuantizeKernelTest : public ::testing::TestWithParam<Int8Isa> {
protected:
  QuantizeRowsConfig config(int64_t rows, int64_t k) const {
    QuantizeRowsConfig c{rows, k, k, /*perTensor=*/true};
    c.dequantized = true;
    c.isa = GetParam();
    return c;
  }
};

void expectBitIdentical(const std::vector<float> &got, const std::vector<float> &want,
                        const std::string &what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::memcmp(&got[i], &want[i], 4), 0)
        << what << " at " << i << ": " << got[i] << " vs " << want[i];
}

TEST_P(DynamicFakeQuantizeKernelTest, MatchesDequantizeOfDynamicQuantizeLinear) {
  if (!hostRuns(GetParam()))
    GTEST_SKIP() << "the host lacks the ISA";
  std::mt19937 rng(61);
  for (int64_t rows : {1, 7, 17, 129})
    for (int64_t k : {1, 7, 16, 17, 129, 384}) {
      QuantizeRowsConfig c = config(rows, k);
      ASSERT_TRUE(QuantizeRowsKernel::needsRangePass(c));
      std::vector<float> x(rows * k);
      std::uniform_real_distribution<float> dist(-2.f, 3.f);
      for (float &v : x)
        v = dist(rng);
      std::string what = std::to_string(rows) + "x" + std::to_string(k);
      // Out of place, with a sentinel past y.
      std::vector<float> y(x.size() + 16, 777.f);
      ASSERT_NO_FATAL_FAILURE(run(c, x.data(), y.data()));
      for (size_t i = x.size(); i < y.size(); ++i)
        ASSERT_EQ(y[i], 777.f) << "wrote past y, " << what;
      y.resize(x.size());
      expectBitIdentical(y, reference(x), what);
      // In place.
      std::vector<float> inPlace = x;
      ASSERT_NO_FATAL_FAILURE(run(c, inPlace.data(), inPlace.data()));
      expectBitIdentical(inPlace, reference(x), what + " in place");
    }
  // All zeros (scale 1) and all positive (zero point 0).
  for (float base : {0.f, 0.5f}) {
    QuantizeRowsConfig c = config(3, 33);
    std::vector<float> x(99), y(99);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = base ? base + static_cast<float>(i) : 0.f;
    ASSERT_NO_FATAL_FAILURE(run(c, x.data(), y.data()));
    expectBitIdentical(y, reference(x), "base " + std::to_string(base));
  }
}

/// Quotients at rounding ties (half to even decides), values just below 0
/// with a zero point above 0 (+0, as the code minus the zero point gives,
/// not -0), NaN (code 0; the range skips it), and scales outside the
/// reciprocal's range (tiny, huge: the division).
TEST_P(DynamicFakeQuantizeKernelTest, RoundsTiesZerosNaNAndExtremeScalesAsDefined) {
  if (!hostRuns(GetParam()))
    GTEST_SKIP() << "the host lacks the ISA";
  std::mt19937 rng(62);
  for (float magnitude : {1.f, 1e-37f, 1e36f}) {
    QuantizeRowsConfig c = config(5, 37);
    std::vector<float> x(5 * 37);
    // Range [-127/128, 1] * magnitude: scale magnitude / 128, zero point 127.
    std::uniform_int_distribution<int> step(-127, 127);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = (static_cast<float>(step(rng)) + (i % 2 ? 0.5f : 0.f)) / 128.f * magnitude;
    x[0] = -127.f / 128.f * magnitude;
    x[1] = magnitude;
    x[2] = -0.2f / 128.f * magnitude; // rounds to -0
    x[3] = -0.f;
    x[40] = std::nanf("");
    std::vector<float> y(x.size());
    ASSERT_NO_FATAL_FAILURE(run(c, x.data(), y.data()));
    std::vector<float> want = reference(x);
    ASSERT_FALSE(std::signbit(want[2])) << "the reference gives +0";
    expectBitIdentical(y, want, "magnitude " + std::to_string(magnitude));
  }
}

/// The partial ranges of the kernel that wrote x (a window or int8 conv
/// kernel's, one (max, min) per task of its, each with 0 in it) replace
/// the range pass; how the tensor was split does not matter.
TEST_P(DynamicFakeQuantizeKernelTest, TakesTheProducersPartialRanges) {
  if (!hostRuns(GetParam()))
    GTEST_SKIP() << "the host lacks the ISA";
  std::mt19937 rng(63);
  for (int64_t parts : {1, 3, 32}) {
    QuantizeRowsConfig c = config(17, 129);
    c.producedRanges = parts;
    ASSERT_FALSE(QuantizeRowsKernel::needsRangePass(c));
    std::vector<float> x(17 * 129);
    std::uniform_real_distribution<float> dist(-0.7f, 4.f);
    for (float &v : x)
      v = dist(rng);
    x[100] = std::nanf("");
    std::vector<float> partials(parts * 2);
    int64_t per = (x.size() + parts - 1) / parts;
    for (int64_t p = 0; p < parts; ++p) {
      float hi = 0, lo = 0;
      for (int64_t i = p * per; i < std::min<int64_t>((p + 1) * per, x.size()); ++i)
        if (!std::isnan(x[i])) {
          hi = std::max(hi, x[i]);
          lo = std::min(lo, x[i]);
        }
      partials[2 * p] = hi;
      partials[2 * p + 1] = lo;
    }
    std::vector<float> y(x.size());
    ASSERT_NO_FATAL_FAILURE(run(c, x.data(), y.data(), partials));
    expectBitIdentical(y, reference(x), std::to_string(parts) + " parts");
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, DynamicFakeQuantizeKernelTest,
                         ::testing::Values(Int8Isa::Avx512Vnni, Int8Isa::Avx2),
                         [](const ::testing::TestParamInfo<Int8Isa> &info) {
                           return std::string(mlir::nunc::int8IsaName(info.param));
                         });

} // namespace
