//===- SoftmaxKernelTest.cpp - xbyak softmax against the evaluator --------===//

#include "Kernels.h"
#include "SoftmaxKernel.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

class SoftmaxKernelTest : public ::testing::TestWithParam<Isa> {};

/// Runs every task of the kernel on x (into y, or in place when y is null).
std::vector<float> runKernel(Isa isa, int64_t rows, int64_t n, std::vector<float> x,
                             bool inPlace) {
  SoftmaxConfig cfg{rows, n};
  std::unique_ptr<JitKernel> kernel = SoftmaxKernel::generate(cfg, isa);
  EXPECT_TRUE(kernel);
  if (!kernel)
    return {};
  std::vector<float> y(rows * n, -777.f);
  float *out = inPlace ? x.data() : y.data();
  const void *args[] = {x.data(), out};
  for (int64_t t = 0; t < SoftmaxKernel::numTasks(cfg); ++t)
    EXPECT_EQ(kernel->function()(args, t, t), 0);
  return inPlace ? x : y;
}

TEST_P(SoftmaxKernelTest, MatchesTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(5);
  for (int64_t rows : {1, 7, 17, 129})
    for (int64_t n : {1, 3, 7, 16, 17, 64, 129, 384, 1000, 4099})
      for (bool inPlace : {false, true}) {
        // Wide logits with a large offset: the max subtraction matters.
        std::uniform_real_distribution<float> dist(-40.f, 40.f);
        std::vector<double> v(rows * n);
        for (double &e : v)
          e = dist(rng) + 60.f;
        Tensor x = nunc_test::makeTensor(DType::F32, {rows, n}, v);
        llvm::Expected<Tensor> want = kernels::softmax(x, -1);
        ASSERT_TRUE(static_cast<bool>(want));
        std::vector<float> in(x.as<float>(), x.as<float>() + rows * n);
        std::vector<float> y = runKernel(isa, rows, n, in, inPlace);
        ASSERT_EQ(y.size(), size_t(rows * n));
        for (int64_t i = 0; i < rows * n; ++i) {
          float w = want->as<float>()[i];
          ASSERT_NEAR(y[i], w, 2e-6f * std::fabs(w) + 1e-12f)
              << "rows " << rows << " n " << n << (inPlace ? " in place" : "") << " at " << i;
        }
      }
}

TEST_P(SoftmaxKernelTest, MinusInfinityGetsZeroProbability) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const float inf = std::numeric_limits<float>::infinity();
  // 19 lanes: a full vector and a tail on both ISAs; masked positions in both.
  std::vector<float> x(19, 0.f);
  for (int i : {0, 5, 16, 18})
    x[i] = -inf;
  std::vector<float> y = runKernel(isa, 1, 19, x, false);
  for (int i = 0; i < 19; ++i)
    EXPECT_FLOAT_EQ(y[i], x[i] == -inf ? 0.f : 1.f / 15) << i;
}

TEST_P(SoftmaxKernelTest, NaNRowsStayNaN) {
  // A NaN logit makes its row NaN, and so does a row of -inf only (-inf
  // minus its max), as in the evaluator and onnxruntime; the exp's range
  // clamp once turned NaN into e^88, the row's whole probability.
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {1, 7, 16, 19, 129}) {
    std::vector<float> x(4 * n);
    for (int64_t i = 0; i < 4 * n; ++i)
      x[i] = 0.25f * static_cast<float>(i % 11);
    for (int64_t at : {int64_t(0), n - 1, n / 2})
      x[at] = nan;               // row 0: NaN in the first lane, the last, the middle
    for (int64_t i = 0; i < n; ++i)
      x[2 * n + i] = -inf;       // row 2: -inf only
    x[3 * n + n / 2] = nan;      // row 3: one NaN
    std::vector<float> y = runKernel(isa, 4, n, x, false);
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_TRUE(std::isnan(y[i])) << "n " << n << " row 0 at " << i;
      EXPECT_TRUE(std::isnan(y[2 * n + i])) << "n " << n << " row 2 at " << i;
      EXPECT_TRUE(std::isnan(y[3 * n + i])) << "n " << n << " row 3 at " << i;
      EXPECT_FALSE(std::isnan(y[n + i])) << "n " << n << " row 1 at " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isas, SoftmaxKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
