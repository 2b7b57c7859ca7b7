//===- DequantizeKernelTest.cpp - u8 codes to f32 values ------------------===//
//
// The generated kernel (JIT) against ONNX DequantizeLinear's (q - zp) x
// scale, bit for bit: lengths around the vector width and the unrolled
// groups, several tasks, zero points at both ends; and from f32 values
// (fromF32), QuantizeLinear then DequantizeLinear: ties, saturation both
// ways, -0 and NaN.
//
//===----------------------------------------------------------------------===//

#include "DequantizeKernel.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

class DequantizeKernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(DequantizeKernelTest, EqualsDequantizeLinear) {
  Isa isa = GetParam();
  if (!nunc_test::hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> code(0, 255);
  for (int64_t count : {1, 7, 8, 17, 63, 64, 65, 129, 16384 + 5, 3 * 16384 + 77})
    for (auto [scale, zeroPoint] : {std::pair{0.0123f, 0}, {0.5f, 255}, {3.1e-5f, 131}}) {
      DequantizeConfig c{count, scale, zeroPoint};
      std::vector<uint8_t> q(count);
      for (uint8_t &v : q)
        v = static_cast<uint8_t>(code(rng));
      std::vector<float> y(count + 1, -777.f);
      std::unique_ptr<JitKernel> kernel = DequantizeKernel::generate(c, isa);
      ASSERT_TRUE(kernel);
      const void *args[] = {q.data(), y.data()};
      for (int64_t t = 0; t < DequantizeKernel::numTasks(c); ++t)
        ASSERT_EQ(kernel->function()(args, t, 0), 0);
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(y[i], static_cast<float>(q[i] - zeroPoint) * scale)
            << count << " codes, at " << i;
      EXPECT_EQ(y[count], -777.f) << "wrote past the end";
    }
  EXPECT_FALSE(DequantizeKernel::generate({16, 0.f, 0}, isa));
  EXPECT_FALSE(DequantizeKernel::generate({16, 1.f, 256}, isa));
}

TEST_P(DequantizeKernelTest, FromF32EqualsQuantizeThenDequantize) {
  Isa isa = GetParam();
  if (!nunc_test::hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(9);
  for (int64_t count : {1, 7, 8, 17, 63, 64, 65, 129, 16384 + 5})
    for (auto [scale, zeroPoint] : {std::pair{0.0123f, 0}, {0.5f, 255}, {0.031f, 123}}) {
      DequantizeConfig c{count, scale, zeroPoint};
      c.fromF32 = true;
      // Values across and past the grid's range, ties among them.
      std::uniform_real_distribution<float> dist(-300.f * scale, 300.f * scale);
      std::vector<float> x(count);
      for (int64_t i = 0; i < count; ++i)
        x[i] = i % 5 == 0 ? (static_cast<float>(i % 41) - 20.5f) * scale : dist(rng);
      const float specials[] = {-0.f, -0.3f * scale, std::numeric_limits<float>::quiet_NaN(),
                                3e38f, -3e38f, 254.5f * scale};
      for (int64_t i = 0; i < count && i < 6; ++i)
        x[count - 1 - i] = specials[i];
      std::vector<float> y(count + 1, -777.f);
      std::unique_ptr<JitKernel> kernel = DequantizeKernel::generate(c, isa);
      ASSERT_TRUE(kernel);
      const void *args[] = {x.data(), y.data()};
      for (int64_t t = 0; t < DequantizeKernel::numTasks(c); ++t)
        ASSERT_EQ(kernel->function()(args, t, 0), 0);
      for (int64_t i = 0; i < count; ++i) {
        // QuantizeLinear (NaN to the low end here), then DequantizeLinear.
        const float t = x[i] / scale;
        const int code =
            std::isnan(t) ? 0
                          : static_cast<int>(std::clamp(std::nearbyint(t) + zeroPoint, 0.f, 255.f));
        const float want = static_cast<float>(code - zeroPoint) * scale;
        ASSERT_EQ(y[i], want) << count << " values, at " << i << " (x " << x[i] << ")";
        ASSERT_FALSE(std::signbit(y[i]) && y[i] == 0.f) << "-0 at " << i;
      }
      EXPECT_EQ(y[count], -777.f) << "wrote past the end";
    }
}

INSTANTIATE_TEST_SUITE_P(Isas, DequantizeKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
