//===- LayerNormKernelTest.cpp - xbyak LayerNorm against the evaluator ----===//

#include "Kernels.h"
#include "LayerNormKernel.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

/// An f32 tensor of `shape` with values from `next`.
Tensor tensorOf(const std::vector<int64_t> &shape, const std::function<double()> &next) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  std::vector<double> v(count);
  for (double &x : v)
    x = next();
  return nunc_test::makeTensor(DType::F32, shape, v);
}

struct Outputs {
  std::vector<float> y, mean, inv;
};

/// The kernel's y, means and 1/stddevs, every task run.
Outputs runLayerNorm(const LayerNormConfig &cfg, Isa isa, const Tensor &x, const Tensor &scale,
                     const Tensor &b) {
  std::unique_ptr<JitKernel> kernel = LayerNormKernel::generate(cfg, isa);
  EXPECT_TRUE(kernel);
  Outputs out{std::vector<float>(cfg.rows * cfg.n, -777.f), std::vector<float>(cfg.rows),
              std::vector<float>(cfg.rows)};
  if (!kernel)
    return out;
  const void *args[] = {x.raw(), scale.raw(), b.raw(), out.y.data(), out.mean.data(),
                        out.inv.data()};
  for (int64_t t = 0; t < LayerNormKernel::numTasks(cfg); ++t)
    EXPECT_EQ(kernel->function()(args, t, t), 0);
  return out;
}

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
        auto random = [&](float offset) { return [&, offset] { return dist(rng) + offset; }; };
        // A large common offset makes a one-pass variance lose precision.
        Tensor x = tensorOf({rows, n}, random(100.f)), scale = tensorOf({n}, random(0)),
               b = tensorOf({n}, random(0));
        llvm::Expected<llvm::SmallVector<Tensor, 3>> want =
            kernels::layerNorm(x, scale, bias ? &b : nullptr, -1, 1e-5f, DType::F32);
        ASSERT_TRUE(static_cast<bool>(want));
        LayerNormConfig cfg{rows, n, 1e-5f, bias};
        auto [y, mean, inv] = runLayerNorm(cfg, isa, x, scale, b);
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
          auto gridValue = [&] { return static_cast<float>(code(rng) - 131) * step; };
          auto mixed = [&] {
            return dist(rng) * std::exp2(static_cast<float>(code(rng) % 9)) + offset;
          };
          Tensor x = onGrid ? tensorOf({rows, n}, gridValue) : tensorOf({rows, n}, mixed),
                 scale = tensorOf({n}, mixed), b = tensorOf({n}, mixed);
          llvm::Expected<llvm::SmallVector<Tensor, 3>> want = kernels::layerNorm(
              x, scale, bias ? &b : nullptr, -1, 1e-5f, DType::F32, /*ordered=*/true);
          ASSERT_TRUE(static_cast<bool>(want));
          LayerNormConfig cfg{rows, n, 1e-5f, bias, /*ordered=*/true};
          auto [y, mean, inv] = runLayerNorm(cfg, isa, x, scale, b);
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

// rms (RMSNorm): no mean subtracted. Rows whose mean is far from 0 (it
// must not be taken out), the evaluator's f64 result within the f32
// rounding of x * inv * scale; the mean written is 0. Against a plain
// formula too, so that the evaluator's rms cannot drift with the kernel's.
TEST_P(LayerNormKernelTest, NormalizesByTheRootMeanSquare) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  for (int64_t rows : {1, 2, 7, 17, 129})
    for (int64_t n : {1, 3, 7, 16, 17, 64, 129, 384, 768})
      for (bool bias : {false, true}) {
        auto random = [&](float offset) { return [&, offset] { return dist(rng) + offset; }; };
        Tensor x = tensorOf({rows, n}, random(2.f)), scale = tensorOf({n}, random(0)),
               b = tensorOf({n}, random(0));
        const float eps = 1e-3f;
        llvm::Expected<llvm::SmallVector<Tensor, 3>> want = kernels::layerNorm(
            x, scale, bias ? &b : nullptr, -1, eps, DType::F32, /*ordered=*/false, /*rms=*/true);
        ASSERT_TRUE(static_cast<bool>(want));
        LayerNormConfig cfg{rows, n, eps, bias, /*ordered=*/false, /*rms=*/true};
        auto [y, mean, inv] = runLayerNorm(cfg, isa, x, scale, b);
        for (int64_t r = 0; r < rows; ++r) {
          double squares = 0;
          for (int64_t i = 0; i < n; ++i)
            squares += std::pow(double(x.as<float>()[r * n + i]), 2);
          const double root = 1 / std::sqrt(squares / n + eps);
          ASSERT_NEAR((*want)[2].as<float>()[r], root, 1e-6 * root);
          ASSERT_NEAR(inv[r], root, 1e-5 * root) << "rows " << rows << " n " << n;
          ASSERT_EQ(mean[r], 0.f);
          ASSERT_EQ((*want)[1].as<float>()[r], 0.f);
          for (int64_t i = 0; i < n; ++i) {
            const double plain = x.as<float>()[r * n + i] * root * scale.as<float>()[i] +
                                 (bias ? b.as<float>()[i] : 0);
            const double tol = 1e-5 * (1 + std::fabs(plain));
            ASSERT_NEAR((*want)[0].as<float>()[r * n + i], plain, tol);
            ASSERT_NEAR(y[r * n + i], plain, tol) << "rows " << rows << " n " << n << " at " << i;
          }
        }
      }
}

// A row with an element near 1e30 (a huge bias upstream): its squares pass
// FLT_MAX, so f32 statistics (ONNX's stash_type 1, onnxruntime) have an
// infinite variance and the row comes out as the bias. The evaluator agrees
// with the kernels there, and with its f64 sums on the other rows.
TEST_P(LayerNormKernelTest, RowsWhoseSquaresOverflowFloatGiveTheBias) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-3.f, 3.f);
  for (int64_t n : {2, 7, 17, 129, 384}) {
    const int64_t rows = 3;
    int64_t at = 0;
    Tensor x = tensorOf({rows, n}, [&] { return at++ == n + n / 2 ? 1e30 : dist(rng); }),
           scale = tensorOf({n}, [&] { return dist(rng); }),
           b = tensorOf({n}, [&] { return dist(rng); });
    for (bool rms : {false, true}) {
      llvm::Expected<llvm::SmallVector<Tensor, 3>> want =
          kernels::layerNorm(x, scale, &b, -1, 1e-5f, DType::F32, /*ordered=*/false, rms);
      ASSERT_TRUE(static_cast<bool>(want));
      auto [y, mean, inv] = runLayerNorm({rows, n, 1e-5f, true, /*ordered=*/false, rms}, isa, x,
                                         scale, b);
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_EQ((*want)[0].as<float>()[n + i], b.as<float>()[i]) << "n " << n << " at " << i;
        ASSERT_EQ(y[n + i], b.as<float>()[i]) << "n " << n << " rms " << rms << " at " << i;
      }
      EXPECT_EQ((*want)[2].as<float>()[1], 0.f);
      EXPECT_EQ(inv[1], 0.f);
      for (int64_t i : {int64_t(0), 2 * n})
        for (int64_t k = i; k < i + n; ++k)
          ASSERT_NEAR(y[k], (*want)[0].as<float>()[k], 1e-4 * (1 + std::fabs(y[k])));
    }
  }
}

TEST(LayerNormKernel, OrderedNeedsRowsOfAMultipleOf8) {
  EXPECT_FALSE(LayerNormKernel::supports({4, 12, 1e-5f, true, /*ordered=*/true}));
  EXPECT_TRUE(LayerNormKernel::supports({4, 12, 1e-5f, true, /*ordered=*/false}));
  EXPECT_FALSE(LayerNormKernel::supports({4, 16, 1e-5f, true, /*ordered=*/true, /*rms=*/true}));
}

INSTANTIATE_TEST_SUITE_P(Isas, LayerNormKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
