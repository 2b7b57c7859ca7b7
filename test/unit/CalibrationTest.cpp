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
  for (double v : values)
    h.zeros += v == 0.0;
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

TEST(Calibration, ClippingErrorOfARange) {
  std::vector<double> v = bellWithOutliers();
  ValueHistogram h = histogramOf(v);
  auto [lo, hi] = chooseRange("entropy", h);
  double direct = 0;
  for (double x : v)
    direct += (x - std::clamp(x, lo, hi)) * (x - std::clamp(x, lo, hi));
  direct /= v.size();
  // The four outliers dominate; bins 0.04 wide put each within a bin's
  // width of its value.
  EXPECT_GT(direct, 0.0);
  EXPECT_NEAR(clippingMeanSquare(h, lo, hi), direct, 0.02 * direct);
  EXPECT_EQ(clippingMeanSquare(h, h.lo, h.hi), 0.0);
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

/// A Relu of a bell: half the values are exact zeros, the rest a half
/// normal (sigma 1) up to ~4.5.
std::vector<double> reluOfBell() {
  std::mt19937 rng(9);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> v(200000);
  for (double &x : v)
    x = std::max(0.0, normal(rng));
  return v;
}

TEST(Calibration, EntropyAndMseIgnoreTheExactZerosOfARelu) {
  // The zeros sit in the lowest bin; counted as a shape that the u8 level of
  // 0 blurs, they would pull the range in until that level is one bin wide
  // (below 2 sigma here, clipping ~3 % of the values), though every range
  // represents them exactly.
  ValueHistogram h = histogramOf(reluOfBell());
  ASSERT_GT(h.zeros, 90000);
  for (const char *method : {"entropy", "mse"}) {
    auto [lo, hi] = chooseRange(method, h);
    EXPECT_EQ(lo, 0.0) << method;
    EXPECT_GT(hi, 3.0) << method;
    EXPECT_LE(hi, h.hi) << method;
  }
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

TEST(Calibration, ProfileKeepsChannelMeans) {
  const char *text = R"({"format": "nunc-calibration-1", "method": "minmax", "samples": 2,
    "inputs": {"conv#0": {"scale": 0.5, "zero_point": 3, "channel_mean": [1.25, -0.1, 7]},
               "linear#0": {"scale": 0.25, "zero_point": 0}}})";
  llvm::Expected<CalibrationProfile> p = CalibrationProfile::fromJson(text);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  EXPECT_EQ(p->inputs["conv#0"].channelMean, (std::vector<float>{1.25f, -0.1f, 7.f}));
  EXPECT_TRUE(p->inputs["linear#0"].channelMean.empty()); // older profiles: no correction
  // Written and read back, the means are the same floats (a rebuild from a
  // saved profile corrects the biases identically).
  llvm::Expected<CalibrationProfile> again = CalibrationProfile::fromJson(p->toJson());
  ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(again->inputs["conv#0"].channelMean, p->inputs["conv#0"].channelMean);
  EXPECT_TRUE(again->inputs["linear#0"].channelMean.empty());
}

/// The error reading a profile whose one entry, conv#0, has `field`: `value`
/// ("" when it reads).
std::string profileEntryError(const char *field, const char *value) {
  std::string text = std::string(R"({"format": "nunc-calibration-1", "inputs": {"conv#0":
      {"scale": 0.5, "zero_point": 3, ")") + field + "\": " + value + "}}}";
  llvm::Expected<CalibrationProfile> p = CalibrationProfile::fromJson(text);
  return p ? std::string() : llvm::toString(p.takeError());
}

TEST(Calibration, ProfileRejectsBadChannelMeans) {
  for (const char *mean : {R"([1, "x"])", R"(2.0)", R"([1, null])"})
    EXPECT_EQ(profileEntryError("channel_mean", mean),
              "calibration profile entry 'conv#0' has a \"channel_mean\" that is not an array "
              "of finite numbers")
        << mean;
}

TEST(Calibration, ProfileKeepsMeanSquaresForTheGridSnr) {
  const char *text = R"({"format": "nunc-calibration-1", "method": "minmax", "samples": 2,
    "inputs": {"conv#0": {"scale": 0.05, "zero_point": 0, "mean_square": 1.0},
               "conv#1": {"scale": 0.5, "zero_point": 3}}})";
  llvm::Expected<CalibrationProfile> p = CalibrationProfile::fromJson(text);
  ASSERT_TRUE(static_cast<bool>(p)) << llvm::toString(p.takeError());
  // 1 / (0.05^2 / 12) = 4800: 36.81 dB; an older entry has no estimate.
  EXPECT_NEAR(p->inputs["conv#0"].gridSnrDb(), 36.812, 1e-3);
  EXPECT_TRUE(std::isnan(p->inputs["conv#1"].gridSnrDb()));
  ActivationRange silent = p->inputs["conv#0"];
  silent.meanSquare = 0; // an all-zero input: below any positive threshold
  EXPECT_EQ(silent.gridSnrDb(), -std::numeric_limits<double>::infinity());
  llvm::Expected<CalibrationProfile> again = CalibrationProfile::fromJson(p->toJson());
  ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(again->inputs["conv#0"].meanSquare, 1.0);
  EXPECT_TRUE(std::isnan(again->inputs["conv#1"].meanSquare));
  for (const char *bad : {R"(-1)", R"("x")", R"(null)"})
    EXPECT_EQ(profileEntryError("mean_square", bad),
              "calibration profile entry 'conv#0' has a \"mean_square\" that is not a finite "
              "number >= 0")
        << bad;
  EXPECT_EQ(profileEntryError("mean_square", "0"), "");
  // A clipping method's error adds to the rounding noise: 1 / (0.05^2 / 12
  // + 1 / 4800) is 4800 / 2, 3 dB less.
  ActivationRange clipped = p->inputs["conv#0"];
  clipped.clipSquare = 1.0 / 4800;
  EXPECT_NEAR(clipped.gridSnrDb(), 36.812 - 3.0103, 1e-3);
  CalibrationProfile withClip = *p;
  withClip.inputs["conv#0"] = clipped;
  llvm::Expected<CalibrationProfile> read = CalibrationProfile::fromJson(withClip.toJson());
  ASSERT_TRUE(static_cast<bool>(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->inputs["conv#0"].clipSquare, 1.0 / 4800);
  EXPECT_EQ(read->inputs["conv#1"].clipSquare, 0.0);
  for (const char *bad : {R"(-1)", R"("x")"})
    EXPECT_EQ(profileEntryError("clip_square", bad),
              "calibration profile entry 'conv#0' has a \"clip_square\" that is not a finite "
              "number >= 0")
        << bad;
}

TEST(Calibration, EntropyIsAKnownMethod) {
  llvm::Expected<std::string> m = parseCalibrationMethod("entropy");
  ASSERT_TRUE(static_cast<bool>(m)) << llvm::toString(m.takeError());
  EXPECT_EQ(*m, "entropy");
}

TEST(Calibration, MethodNamesAndPercentiles) {
  for (auto [name, want] : {std::pair<const char *, const char *>{"percentile", "percentile=99.99"},
                            {"percentile=99.9", "percentile=99.9"},
                            {"percentile=100", "percentile=100"}}) {
    llvm::Expected<std::string> m = parseCalibrationMethod(name);
    ASSERT_TRUE(static_cast<bool>(m)) << name << ": " << llvm::toString(m.takeError());
    EXPECT_EQ(*m, want);
  }
  for (const char *bad : {"percentile=150", "percentile=0", "percentile=abc", "percentile="}) {
    llvm::Expected<std::string> m = parseCalibrationMethod(bad);
    ASSERT_FALSE(static_cast<bool>(m)) << bad;
    std::string message = llvm::toString(m.takeError());
    EXPECT_NE(message.find("0 < P <= 100"), std::string::npos) << message;
  }
  llvm::Expected<std::string> m = parseCalibrationMethod("kl");
  ASSERT_FALSE(static_cast<bool>(m));
  EXPECT_EQ(llvm::toString(m.takeError()),
            "unknown calibration method 'kl' (expected minmax, percentile[=P], mse or entropy)");
}

} // namespace
