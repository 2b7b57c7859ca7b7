//===- VectorMathTest.cpp - the shared vector math emitters, lane by lane -===//
//
// The attention softmax's base-2 exponential is tested here on its own:
// through the attention kernel its error hides behind the dot products'.
//
//===----------------------------------------------------------------------===//

#include "JitSupport.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

/// y = emitExp2(x) (base2 = 1) or emitExp(x) (0), one vector per task:
/// args {x, y}.
template <typename Vmm> class ExpProbe : public JitKernel {
public:
  static constexpr int kLanes = std::is_same_v<Vmm, Xbyak::Zmm> ? 16 : 8;
  explicit ExpProbe(int base2) : base2(base2) { replicate = kLanes == 16 ? 1 : 8; }
  void generate() {
    prologue();
    mov(rax, ptr[rdi]);
    mov(rcx, ptr[rdi + 8]);
    imul(rsi, rsi, kLanes * 4);
    vmovups(Vmm(0), ptr[rax + rsi]);
    if (base2)
      emitExp2(Vmm(0), Vmm(1), Vmm(2));
    else
      emitExp(Vmm(0), Vmm(1), Vmm(2));
    vmovups(ptr[rcx + rsi], Vmm(0));
    epilogueReturn(0);
    emitConstants();
  }

private:
  int base2;
};

class VectorMathTest : public ::testing::TestWithParam<Isa> {};

/// e^x from the lower bound to past ln(FLT_MAX): within 4e-7 relative of
/// double (the top exponent step included, where AVX2 builds 2^128 as
/// 2 x 2^127), inf where the result passes FLT_MAX (sigmoid and SiLU of
/// large negatives are then 0), NaN stays NaN, far below the bound the
/// smallest normal float (AVX2: twice it, within a rounding).
TEST_P(VectorMathTest, ExpIsAccurateUpToOverflow) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::vector<float> x;
  for (int i = -8660; i <= 8872; ++i)
    x.push_back(i / 100.f);
  for (float v = 88.3f; v < 88.7228f; v += 0.001f)
    x.push_back(v);
  const size_t checked = x.size();
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {88.7229f, 88.8f, 89.f, 100.f, 1e30f, inf, std::nanf(""), -87.f, -100.f,
                  -1e30f, -inf})
    x.push_back(v);
  const int lanes = isa == Isa::Avx512 ? 16 : 8;
  while (x.size() % lanes)
    x.push_back(0.f);
  auto kernel = generatedFor<ExpProbe>(isa, /*base2=*/0);
  ASSERT_TRUE(kernel);
  std::vector<float> y(x.size(), -777.f);
  const void *args[] = {x.data(), y.data()};
  for (size_t t = 0; t < x.size() / lanes; ++t)
    ASSERT_EQ(kernel->function()(args, t, t), 0);
  for (size_t i = 0; i < checked; ++i) {
    const double want = std::exp(static_cast<double>(x[i]));
    ASSERT_LT(std::fabs(y[i] - want) / want, 4e-7) << "x = " << x[i] << ": " << y[i];
  }
  for (size_t i = checked; i < checked + 6; ++i)
    EXPECT_EQ(y[i], inf) << "x = " << x[i];
  EXPECT_TRUE(std::isnan(y[checked + 6]));
  for (size_t i = checked + 7; i < checked + 11; ++i)
    EXPECT_TRUE(y[i] >= 0 && y[i] <= 2.001f * std::numeric_limits<float>::min())
        << "x = " << x[i] << ": " << y[i];
}

/// 2^x over the softmax's range [-126, 0]: every 1/256 (each fraction of an
/// exponent step and every integer), the values just beside the integers,
/// and a dense sweep of [-1, 0]; relative error against double within
/// 1.8e-7 on AVX-512 (the degree-5 polynomial's 1.4e-7, and f = x - floor x
/// rounded where x is just below an integer: 1.7e-7 at x = -0.00096), ~1
/// ulp on AVX2 (degree-7 Taylor). Below -126 and -inf give 2^-126 (the
/// clamp), NaN stays NaN; 0 gives exactly 1.
TEST_P(VectorMathTest, Exp2IsAccurateOverTheSoftmaxRange) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::vector<float> x;
  for (int i = 0; i <= 126 * 256; ++i)
    x.push_back(-i / 256.f);
  for (int n = 0; n <= 126; ++n) {
    x.push_back(std::nextafter(-static_cast<float>(n), 0.f));
    if (n < 126) // below -126 is the clamp's
      x.push_back(std::nextafter(-static_cast<float>(n), -1000.f));
  }
  for (int i = 0; i < 100000; ++i)
    x.push_back(-i / 100000.f);
  const size_t checked = x.size();
  for (float v : {-126.5f, -1000.f, -1e30f, -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN()})
    x.push_back(v);
  const int lanes = isa == Isa::Avx512 ? 16 : 8;
  while (x.size() % lanes)
    x.push_back(0.f);
  auto kernel = generatedFor<ExpProbe>(isa, /*base2=*/1);
  ASSERT_TRUE(kernel);
  std::vector<float> y(x.size(), -777.f);
  const void *args[] = {x.data(), y.data()};
  for (size_t t = 0; t < x.size() / lanes; ++t)
    ASSERT_EQ(kernel->function()(args, t, t), 0);
  double worst = 0;
  float worstAt = 0;
  for (size_t i = 0; i < checked; ++i) {
    double want = std::exp2(static_cast<double>(x[i]));
    double err = std::fabs(y[i] - want) / want;
    if (!(err <= worst)) {
      worst = err;
      worstAt = x[i];
    }
  }
  EXPECT_LT(worst, isa == Isa::Avx512 ? 1.8e-7 : 1.2e-7) << "at x = " << worstAt;
  for (size_t i = checked; i < checked + 4; ++i)
    EXPECT_EQ(y[i], std::ldexp(1.f, -126)) << "x = " << x[i];
  // A NaN score stays NaN, so that its softmax row is NaN, as in
  // onnxruntime and the evaluator.
  EXPECT_TRUE(std::isnan(y[checked + 4]));
  EXPECT_EQ(y[0], 1.f);
}

INSTANTIATE_TEST_SUITE_P(Isas, VectorMathTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
