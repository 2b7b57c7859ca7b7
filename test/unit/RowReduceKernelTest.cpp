//===- RowReduceKernelTest.cpp - xbyak row sums and means vs a reference --===//

#include "RowReduceKernel.h"
#include "TestSupport.h"
#include "nunc/Dialect/Nunc/OneStepRequantization.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

class RowReduceKernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(RowReduceKernelTest, MatchesADoubleReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-3.f, 5.f);
  // Rows shorter than a vector, with a tail, unrolled and looped (more than
  // 16 vectors); tasks of one and of many rows.
  for (int64_t rows : {1, 7, 17, 129})
    for (int64_t n : {1, 3, 7, 16, 17, 64, 129, 387, 1000, 4099})
      for (bool mean : {false, true}) {
        std::vector<float> x(rows * n);
        for (float &v : x)
          v = dist(rng);
        RowReduceConfig cfg{rows, n, mean};
        std::unique_ptr<JitKernel> kernel = RowReduceKernel::generate(cfg, isa);
        ASSERT_TRUE(kernel);
        // One guard element past the end: the kernel writes rows floats only.
        std::vector<float> y(rows + 1, -777.f);
        const void *args[] = {x.data(), y.data()};
        for (int64_t t = 0; t < RowReduceKernel::numTasks(cfg); ++t)
          ASSERT_EQ(kernel->function()(args, t, t), 0);
        ASSERT_EQ(y[rows], -777.f) << "wrote past the last row";
        for (int64_t r = 0; r < rows; ++r) {
          double want = 0, magnitude = 0;
          for (int64_t i = 0; i < n; ++i) {
            want += x[r * n + i];
            magnitude += std::fabs(x[r * n + i]);
          }
          if (mean) {
            want /= n;
            magnitude /= n;
          }
          // f32 sums of n terms in four chains: a few ulps of the magnitude.
          ASSERT_NEAR(y[r], want, 4e-7 * magnitude * std::sqrt(double(n)) + 1e-30)
              << "rows " << rows << " n " << n << (mean ? " mean" : " sum") << " row " << r;
        }
      }
}

/// onnxruntimeOrder: every row's sum and mean bit for bit
/// onnxruntimeRowSum's (onnxruntime's Eigen order; the e2e test checks
/// that against onnxruntime itself), rows with and without a last odd
/// packet; rows of magnitude-varied values, where the plain kernel's order
/// is an ulp off on many.
TEST_P(RowReduceKernelTest, OnnxruntimeOrderSumsAsItsKernel) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(13);
  std::normal_distribution<float> dist(0.3f, 1.f);
  std::uniform_real_distribution<float> scale(-2.f, 3.f);
  int64_t apart = 0;
  for (int64_t rows : {1, 7, 129})
    for (int64_t n : {8, 12, 16, 20, 388, 768, 772})
      for (bool mean : {false, true}) {
        std::vector<float> x(rows * n);
        for (int64_t r = 0; r < rows; ++r) {
          const float s = std::exp(scale(rng));
          for (int64_t i = 0; i < n; ++i)
            x[r * n + i] = dist(rng) * s;
        }
        auto run = [&](bool ordered) {
          RowReduceConfig cfg{rows, n, mean, ordered};
          std::unique_ptr<JitKernel> kernel = RowReduceKernel::generate(cfg, isa);
          EXPECT_TRUE(kernel);
          std::vector<float> y(rows + 1, -777.f);
          const void *args[] = {x.data(), y.data()};
          for (int64_t t = 0; kernel && t < RowReduceKernel::numTasks(cfg); ++t)
            EXPECT_EQ(kernel->function()(args, t, 0), 0);
          EXPECT_EQ(y[rows], -777.f) << "wrote past the end";
          return y;
        };
        std::vector<float> got = run(true), plain = run(false);
        for (int64_t r = 0; r < rows; ++r) {
          float want = onnxruntimeRowSum(x.data() + r * n, n);
          if (mean)
            want /= static_cast<float>(n);
          ASSERT_EQ(got[r], want) << rows << " rows of " << n << ", row " << r;
          apart += plain[r] != want;
        }
      }
  EXPECT_GT(apart, 20) << "the plain order should differ on some rows";
  EXPECT_FALSE(RowReduceKernel::generate({4, 10, true, true}, isa)) << "10: not whole packets";
  EXPECT_FALSE(RowReduceKernel::generate({4, 4, true, true}, isa)) << "4: fewer than 8";
}

INSTANTIATE_TEST_SUITE_P(Isas, RowReduceKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? "Avx512" : "Avx2";
                         });

} // namespace
