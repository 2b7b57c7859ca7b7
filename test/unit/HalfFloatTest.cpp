//===- HalfFloatTest.cpp - float16 / bfloat16 conversions -----------------===//

#include "nunc/Interpreter/Tensor.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using mlir::nunc::BFloat16;
using mlir::nunc::Half;

TEST(Half, ExactValuesRoundTrip) {
  for (float f : {0.f, -0.f, 1.f, -2.f, 0.5f, 65504.f, 6.103515625e-05f /*min normal*/,
                  5.960464477539063e-08f /*min subnormal*/})
    EXPECT_EQ(static_cast<float>(Half(f)), f) << f;
  EXPECT_EQ(Half(1.f).bits, 0x3c00);
  EXPECT_EQ(Half(-2.f).bits, 0xc000);
  EXPECT_EQ(Half(65504.f).bits, 0x7bff);
}

TEST(Half, RoundsToNearestEven) {
  // Around 2048 the spacing is 2: 2049 is a tie (-> 2048), 2051 too (-> 2052).
  EXPECT_EQ(static_cast<float>(Half(2049.f)), 2048.f);
  EXPECT_EQ(static_cast<float>(Half(2051.f)), 2052.f);
  EXPECT_EQ(static_cast<float>(Half(2049.5f)), 2050.f);
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): even is 1.
  EXPECT_EQ(Half(1.f + std::ldexp(1.f, -11)).bits, 0x3c00);
  EXPECT_EQ(Half(1.f + 3 * std::ldexp(1.f, -11)).bits, 0x3c02);
}

TEST(Half, OverflowUnderflowAndNan) {
  EXPECT_EQ(Half(65519.f).bits, 0x7bff);  // below the rounding boundary
  EXPECT_EQ(Half(65520.f).bits, 0x7c00);  // rounds to infinity
  EXPECT_EQ(Half(-1e10f).bits, 0xfc00);
  EXPECT_EQ(Half(std::numeric_limits<float>::infinity()).bits, 0x7c00);
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::nanf("")))));
  EXPECT_EQ(Half(1e-10f).bits, 0x0000);   // below half the min subnormal
  EXPECT_EQ(Half(3e-8f).bits, 0x0001);    // just above half the min subnormal
  EXPECT_EQ(Half(-3e-8f).bits, 0x8001);
}

TEST(BFloat16, RoundsToNearestEvenAndKeepsNan) {
  EXPECT_EQ(BFloat16(1.f).bits, 0x3f80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
  EXPECT_EQ(BFloat16(1.f + std::ldexp(1.f, -8)).bits, 0x3f80);
  EXPECT_EQ(BFloat16(1.f + 3 * std::ldexp(1.f, -8)).bits, 0x3f82);
  EXPECT_EQ(static_cast<float>(BFloat16(-3.5f)), -3.5f);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::infinity()).bits, 0x7f80);
}
