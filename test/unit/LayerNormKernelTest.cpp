//===- LayerNormKernelTest.cpp - xbyak LayerNorm against the evaluator ----===//

#include "Kernels.h"
#include "LayerNormKernel.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

class LayerNormKernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(LayerNormKernelTest, MatchesTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  for (int64_t rows : {1, 7, 17, 129})
    for (int64_t n : {1, 3, 7, 16, 17, 64, 129, 384, 768})
      for (bool bias : {false, true}) {
        auto random = [&](std::vector<int64_t> shape, float offset) {
          int64_t count = 1;
          for (int64_t d : shape)
            count *= d;
          std::vector<double> v(count);
          for (double &x : v)
            x = dist(rng) + offset;
          return nunc_test::makeTensor(DType::F32, shape, v);
        };
        // A large common offset makes a one-pass variance lose precision.
        Tensor x = random({rows, n}, 100.f), scale = random({n}, 0), b = random({n}, 0);
        llvm::Expected<llvm::SmallVector<Tensor, 3>> want =
            kernels::layerNorm(x, scale, bias ? &b : nullptr, -1, 1e-5f, DType::F32);
        ASSERT_TRUE(static_cast<bool>(want));
        LayerNormConfig cfg{rows, n, 1e-5f, bias};
        std::unique_ptr<JitKernel> kernel = LayerNormKernel::generate(cfg, isa);
        ASSERT_TRUE(kernel);
        std::vector<float> y(rows * n, -777.f), mean(rows), inv(rows);
        const void *args[] = {x.raw(), scale.raw(), b.raw(), y.data(), mean.data(), inv.data()};
        for (int64_t t = 0; t < LayerNormKernel::numTasks(cfg); ++t)
          ASSERT_EQ(kernel->function()(args, t, t), 0);
        // float32 rounds x and the mean to ~ulp(x)/2 absolute; normalization
        // scales that by inv * |scale|.
        for (int64_t i = 0; i < rows * n; ++i) {
          double tol = 1e-5 + 2e-5 * (*want)[2].as<float>()[i / n] *
                                  std::fabs(scale.as<float>()[i % n]);
          ASSERT_NEAR(y[i], (*want)[0].as<float>()[i], tol)
              << "rows " << rows << " n " << n << " at " << i;
        }
        for (int64_t r = 0; r < rows; ++r) {
          ASSERT_NEAR(mean[r], (*want)[1].as<float>()[r], 1e-4);
          ASSERT_NEAR(inv[r], (*want)[2].as<float>()[r],
                      1e-4 * std::fabs((*want)[2].as<float>()[r]) + 1e-6);
        }
      }
}

// ordered_f32_arithmetic: the kernel rounds every step as the evaluator
// does (onnxruntime's order), bit for bit: values on a quantization grid
// (as between a QDQ model's pairs), and floats of mixed magnitudes whose
// sums round at every step.
TEST_P(LayerNormKernelTest, ComputesOrderedF32ArithmeticExactly) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> code(0, 255);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  for (int64_t rows : {1, 2, 7, 17, 129})
    for (int64_t n : {8, 16, 24, 40, 384, 392, 768})
      for (bool bias : {false, true})
        for (bool onGrid : {false, true}) {
          const float step = 0.0137f, offset = onGrid ? 0.f : 100.f;
          auto values = [&](std::vector<int64_t> shape, bool grid) {
            int64_t count = 1;
            for (int64_t d : shape)
              count *= d;
            std::vector<double> v(count);
            for (double &x : v)
              x = grid ? static_cast<float>(code(rng) - 131) * step
                       : dist(rng) * std::exp2(static_cast<float>(code(rng) % 9)) + offset;
            return nunc_test::makeTensor(DType::F32, shape, v);
          };
          Tensor x = values({rows, n}, onGrid), scale = values({n}, false),
                 b = values({n}, false);
          llvm::Expected<llvm::SmallVector<Tensor, 3>> want = kernels::layerNorm(
              x, scale, bias ? &b : nullptr, -1, 1e-5f, DType::F32, /*ordered=*/true);
          ASSERT_TRUE(static_cast<bool>(want));
          LayerNormConfig cfg{rows, n, 1e-5f, bias, /*ordered=*/true};
          std::unique_ptr<JitKernel> kernel = LayerNormKernel::generate(cfg, isa);
          ASSERT_TRUE(kernel);
          std::vector<float> y(rows * n, -777.f), mean(rows), inv(rows);
          const void *args[] = {x.raw(), scale.raw(), b.raw(), y.data(), mean.data(), inv.data()};
          for (int64_t t = 0; t < LayerNormKernel::numTasks(cfg); ++t)
            ASSERT_EQ(kernel->function()(args, t, t), 0);
          auto same = [](float a, float e) { return std::memcmp(&a, &e, 4) == 0; };
          for (int64_t i = 0; i < rows * n; ++i)
            ASSERT_PRED2(same, y[i], (*want)[0].as<float>()[i])
                << "rows " << rows << " n " << n << " at " << i;
          for (int64_t r = 0; r < rows; ++r) {
            ASSERT_PRED2(same, mean[r], (*want)[1].as<float>()[r]) << "row " << r;
            ASSERT_PRED2(same, inv[r], (*want)[2].as<float>()[r]) << "row " << r;
          }
        }
}

TEST(LayerNormKernel, OrderedNeedsRowsOfAMultipleOf8) {
  EXPECT_FALSE(LayerNormKernel::supports({4, 12, 1e-5f, true, /*ordered=*/true}));
  EXPECT_TRUE(LayerNormKernel::supports({4, 12, 1e-5f, true, /*ordered=*/false}));
}

INSTANTIATE_TEST_SUITE_P(Isas, LayerNormKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
