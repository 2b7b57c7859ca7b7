//===- CalibrationTest.cpp - range choice of the calibration methods ------===//

#include "nunc/Quantize/Calibration.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir::nunc;

namespace {

constexpr int kBins = 2048;

ValueHistogram histogramOf(const std::vector<double> &values) {
  ValueHistogram h;
  for (double v : values) {
    h.lo = std::min(h.lo, v);
    h.hi = std::max(h.hi, v);
  }
  h.counts.assign(kBins, 0.0);
  double width = (h.hi - h.lo) / kBins;
  for (double v : values)
    h.counts[std::clamp(static_cast<int>((v - h.lo) / width), 0, kBins - 1)] += 1;
  return h;
}

/// A bell of 200000 values (sigma 1, a GELU-like skew to the right) plus a
/// handful of outliers 40 sigma out: min-max wastes most of the u8 levels
/// on the empty tails.
std::vector<double> bellWithOutliers() {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> v;
  for (int i = 0; i < 200000; ++i) {
    double x = normal(rng);
    v.push_back(x > 0 ? 1.5 * x : x);
  }
  for (double o : {-40.0, -38.0, 41.0, 45.0})
    v.push_back(o);
  return v;
}

TEST(Calibration, EntropyClipsRareOutliers) {
  ValueHistogram h = histogramOf(bellWithOutliers());
  auto [lo, hi] = chooseRange("entropy", h);
  // Most of the levels go to the bell, none of its body is clipped.
  EXPECT_LT(hi - lo, 0.5 * (h.hi - h.lo));
  EXPECT_GT(hi, 4.5);   // 3 sigma on the wide side
  EXPECT_LT(lo, -3.0);  // 3 sigma on the narrow side
  EXPECT_LE(lo, 0.0);
  EXPECT_GE(hi, 0.0);
}

TEST(Calibration, EntropyKeepsAUniformRange) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(-2.0, 10.0);
  std::vector<double> v(100000);
  for (double &x : v)
    x = u(rng);
  ValueHistogram h = histogramOf(v);
  auto [lo, hi] = chooseRange("entropy", h);
  // Clipping a flat distribution only loses information.
  EXPECT_GE(hi - lo, 0.97 * (h.hi - h.lo));
}

TEST(Calibration, PercentileAndMseNarrowToo) {
  ValueHistogram h = histogramOf(bellWithOutliers());
  auto [plo, phi] = chooseRange("percentile=99.99", h);
  EXPECT_LT(phi, 10.0);
  EXPECT_GT(plo, -10.0);
  auto [mlo, mhi] = chooseRange("mse", h);
  EXPECT_LT(mhi - mlo, h.hi - h.lo);
  auto [lo, hi] = chooseRange("minmax", h);
  EXPECT_EQ(lo, h.lo);
  EXPECT_EQ(hi, h.hi);
}

TEST(Calibration, EntropyIsAKnownMethod) {
  llvm::Expected<std::string> m = parseCalibrationMethod("entropy");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(*m, "entropy");
}

} // namespace
