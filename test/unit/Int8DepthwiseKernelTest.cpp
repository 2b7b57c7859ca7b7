//===- Int8DepthwiseKernelTest.cpp - integer depthwise conv vs a reference ===//
//
// The kernel against an exact integer reference of the same arithmetic:
// s32 sums of the s8 filters (Int8DepthwiseKernel::tables) over the u8
// codes, the padding the input zero point's code, then sum * scale + bias'
// and the activation in double; codes of the output grid or f32. In one
// step (onnxruntime's QLinearConv requantization, from the model's own
// filter scales) the codes must be exact.

#include "Int8DepthwiseKernel.h"
#include "WindowKernel.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>

#include <sys/mman.h>
#include <unistd.h>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

bool hostHasVnni() {
  return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl");
}

/// The ymm kernel runs with VEX vpdpbusd on AVX-VNNI hosts, EVEX-encoded
/// on AVX-512 VNNI hosts without it (the x86_64-avxvnni-evex target).
bool hostRunsYmmVnni() { return __builtin_cpu_supports("avxvnni") || hostHasVnni(); }
bool ymmNeedsEvex() { return !__builtin_cpu_supports("avxvnni"); }

/// Runs every task of the kernel `k` generates for `isa` (the int8
/// depthwise kernel: x codes in, y out, the filters and scales of `t`).
void runAllTasks(const WindowConfig &k, Isa isa, const Int8DepthwiseKernel::Tables &t,
                 const void *x, void *y) {
  std::unique_ptr<JitKernel> kernel = WindowKernel::generate(k, isa);
  ASSERT_TRUE(kernel);
  const void *args[] = {x, y, nullptr, t.filters.data(), t.scaleBias.data(), nullptr};
  for (int64_t task = 0; task < WindowKernel::numTasks(k); ++task)
    ASSERT_EQ(kernel->function()(args, task, 0), 0);
}

struct Shape {
  int64_t channels, height, width, kernelH, kernelW, stride, pad;
  const char *activation;
  bool codes;             // u8 output (else f32)
  int64_t strideH = 0;    // 0: stride
  int64_t padEnd = -1;    // bottom and right padding; -1: pad
  float outputScale = 0.031f;
};

WindowConfig configOf(const Shape &s) {
  WindowConfig c;
  c.kind = WindowConfig::Depthwise;
  c.int8 = true;
  c.inputU8 = true;
  c.inputScale = 0.0213f;
  c.inputZeroPoint = 131;
  c.batch = 2;
  c.channels = s.channels;
  c.height = s.height;
  c.width = s.width;
  c.kernelH = s.kernelH;
  c.kernelW = s.kernelW;
  c.strideW = s.stride;
  c.strideH = s.strideH ? s.strideH : s.stride;
  c.padTop = c.padLeft = s.pad;
  c.padBottom = c.padRight = s.padEnd < 0 ? s.pad : s.padEnd;
  c.outH = (s.height + c.padTop + c.padBottom - s.kernelH) / c.strideH + 1;
  c.outW = (s.width + c.padLeft + c.padRight - s.kernelW) / c.strideW + 1;
  c.bias = true;
  c.activation = Activation::fromName(s.activation, 0.f, 6.f);
  if (s.codes) {
    c.outputU8 = true;
    c.outputScale = s.outputScale;
    c.outputZeroPoint = 9;
  }
  return c;
}

/// Which output codes the checks saw (both saturated ends must occur).
bool codesSeen[256];
/// Shapes checked in one step too.
int oneStepChecks = 0;

/// Runs the kernel on codes placed right before a page the process may not
/// read (a tap past the plane's end faults), and again right after one (a
/// tap before its start faults), and checks every output. `isa` Avx2: the
/// ymm (AVX-VNNI) kernel, which takes no plane of fewer than 16 codes.
void check(const Shape &s, std::mt19937 &rng, Isa isa = Isa::Avx512) {
  WindowConfig c = configOf(s);
  c.evexVnni = isa == Isa::Avx2 && ymmNeedsEvex();
  SCOPED_TRACE(testing::Message() << "C" << s.channels << " " << s.height << "x" << s.width
                                  << " k" << s.kernelH << "x" << s.kernelW << " s" << c.strideH
                                  << "x" << c.strideW << " p" << s.pad << "/" << c.padBottom
                                  << " " << s.activation
                                  << (s.codes ? " -> u8" : " -> f32")
                                  << (isa == Isa::Avx2 ? " ymm" : " zmm"));
  if (isa == Isa::Avx2 && c.height * c.width < 16) {
    EXPECT_FALSE(Int8DepthwiseKernel::supports(c, isa));
    return;
  }
  ASSERT_TRUE(Int8DepthwiseKernel::supports(c, isa));
  const int64_t planes = c.batch * c.channels, inPlane = c.height * c.width;
  const int64_t outPlane = c.outH * c.outW, taps = c.kernelH * c.kernelW;
  std::uniform_int_distribution<int> byte(0, 255), step(-127, 127);
  std::normal_distribution<float> normal(0.f, 0.4f);
  // Filters on an s8 grid per channel (as a QDQ model's: each value the
  // f32 product of its step and the channel's scale).
  std::vector<float> weights(c.channels * taps), bias(c.channels), scales(c.channels);
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    float scale = scales[ch] = 0.004f + 0.001f * static_cast<float>(ch % 5);
    for (int64_t t = 0; t < taps; ++t)
      weights[ch * taps + t] = static_cast<float>(step(rng)) * scale;
    weights[ch * taps] = 127 * scale;
  }
  for (float &b : bias)
    b = normal(rng);
  // Extremes: a channel of +-127 steps (u8 255 x s8 127 sums), a channel
  // of zeros.
  scales[0] = 0.0118f;
  for (int64_t t = 0; t < taps; ++t) {
    weights[t] = (t % 2 ? -127.f : 127.f) * scales[0];
    if (c.channels > 2)
      weights[2 * taps + t] = 0.f;
  }
  // One step (onnxruntime's QLinearConv): codes out, an activation the
  // codes' bounds express.
  const bool oneStep = s.codes && c.activation.kind != Activation::LeakyRelu;
  std::optional<Int8DepthwiseKernel::Tables> found = Int8DepthwiseKernel::tables(c, weights, bias);
  ASSERT_TRUE(found);
  const Int8DepthwiseKernel::Tables &tables = *found;

  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = (planes * inPlane + page - 1) / page * page;
  char *mem = static_cast<char *>(mmap(nullptr, bytes + 2 * page, PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(mem, MAP_FAILED);
  ASSERT_EQ(mprotect(mem, page, PROT_NONE), 0);
  ASSERT_EQ(mprotect(mem + page + bytes, page, PROT_NONE), 0);
  std::vector<uint8_t> codes(planes * inPlane);
  for (int64_t i = 0; i < planes * inPlane; ++i)
    codes[i] = static_cast<uint8_t>(i % 97 == 0 ? 255 : byte(rng));
  uint8_t *atEnd = reinterpret_cast<uint8_t *>(mem + page + bytes - planes * inPlane);
  uint8_t *atStart = reinterpret_cast<uint8_t *>(mem + page);

  EXPECT_EQ(WindowKernel::scratchBytes(c, isa), 0);
  const int64_t yBytes = s.codes ? 1 : 4, total = planes * outPlane;
  // Codes out: also with every result known bounded (the epilogue in code
  // units), whose tables differ.
  WindowConfig bounded = c;
  bounded.outputBounded = true;
  std::optional<Int8DepthwiseKernel::Tables> boundedTables =
      Int8DepthwiseKernel::tables(bounded, weights, bias);
  ASSERT_TRUE(boundedTables);
  std::vector<std::vector<uint8_t>> outputs, oneStepOutputs;
  // One step writing the codes' f32 values (q - zy) sy instead (a
  // BatchNormalization's input pair after the conv), or (AVX-512) the
  // entries of a table at the codes (an elementwise chain after the pair).
  std::vector<std::vector<float>> oneStepValues, oneStepLookups;
  std::vector<float> lookup(256);
  for (int i = 0; i < 256; ++i)
    lookup[i] = static_cast<float>(i * i % 97) * 0.25f - 3.f;
  for (uint8_t *x : {atEnd, atStart}) {
    std::memcpy(x, codes.data(), codes.size());
    for (bool isBounded : {false, true}) {
      if (isBounded && !s.codes)
        break;
      const WindowConfig &k = isBounded ? bounded : c;
      const Int8DepthwiseKernel::Tables &kt = isBounded ? *boundedTables : tables;
      std::vector<uint8_t> y(total * yBytes + 64, 0xa5);
      ASSERT_NO_FATAL_FAILURE(runAllTasks(k, isa, kt, x, y.data()));
      outputs.push_back(std::move(y));
    }
    // One step, with every result bounded or not (the conversion's clamp).
    for (bool isBounded : {false, true}) {
      if (!oneStep)
        break;
      WindowConfig k = c;
      k.oneStep = true;
      k.outputBounded = isBounded;
      ASSERT_TRUE(Int8DepthwiseKernel::supports(k, isa));
      std::optional<Int8DepthwiseKernel::Tables> kt =
          Int8DepthwiseKernel::tables(k, weights, bias, scales);
      ASSERT_TRUE(kt);
      EXPECT_FALSE(Int8DepthwiseKernel::tables(k, weights, bias))
          << "one step without the model's scales";
      std::vector<uint8_t> y(total + 64, 0xa5);
      ASSERT_NO_FATAL_FAILURE(runAllTasks(k, isa, *kt, x, y.data()));
      oneStepOutputs.push_back(std::move(y));
      if (isBounded)
        continue;
      k.outputU8 = false;
      ASSERT_TRUE(Int8DepthwiseKernel::supports(k, isa));
      std::vector<float> v(total + 16, -777.f);
      ASSERT_NO_FATAL_FAILURE(runAllTasks(k, isa, *kt, x, v.data()));
      oneStepValues.push_back(std::move(v));
      if (isa != Isa::Avx512)
        continue;
      WindowConfig looked = k;
      looked.output = Activation::fakeQuant(c.outputScale, static_cast<float>(-c.outputZeroPoint),
                                            static_cast<float>(255 - c.outputZeroPoint));
      looked.outputTable = lookup;
      ASSERT_TRUE(Int8DepthwiseKernel::supports(looked, isa));
      std::optional<Int8DepthwiseKernel::Tables> lt =
          Int8DepthwiseKernel::tables(looked, weights, bias, scales);
      ASSERT_TRUE(lt);
      std::vector<float> l(total + 16, -777.f);
      ASSERT_NO_FATAL_FAILURE(runAllTasks(looked, isa, *lt, x, l.data()));
      oneStepLookups.push_back(std::move(l));
    }
  }
  munmap(mem, bytes + 2 * page);

  for (int64_t p = 0; p < planes; ++p) {
    const int64_t ch = p % c.channels;
    const int64_t words = Int8DepthwiseKernel::filterWords(c);
    const int32_t *rows = tables.filters.data() + ch * c.kernelH * words;
    for (int64_t oh = 0; oh < c.outH; ++oh)
      for (int64_t ow = 0; ow < c.outW; ++ow) {
        int64_t sum = 0, centered = 0;
        for (int64_t kh = 0; kh < c.kernelH; ++kh)
          for (int64_t kw = 0; kw < c.kernelW; ++kw) {
            int64_t ih = oh * c.strideH - c.padTop + kh, iw = ow * c.strideW - c.padLeft + kw;
            int32_t code = ih >= 0 && ih < c.height && iw >= 0 && iw < c.width
                               ? codes[p * inPlane + ih * c.width + iw]
                               : c.inputZeroPoint;
            const int32_t k = static_cast<int8_t>(rows[kh * words + kw / 4] >> (8 * (kw % 4)) & 0xff);
            sum += k * code;
            // The model's step: the filter value over its scale.
            const float w = weights[ch * taps + kh * c.kernelW + kw];
            centered += static_cast<int64_t>(std::nearbyint(w / scales[ch])) *
                        (code - c.inputZeroPoint);
          }
        if (oneStep) {
          // round(float(acc + bq) x fl(fl(sx sw) / sy)) + zy, within the
          // activation's codes, exactly.
          const float sxw = c.inputScale * scales[ch];
          const double bq = std::nearbyint(double(bias[ch]) / double(sxw));
          const float product = static_cast<float>(centered + static_cast<int64_t>(bq)) *
                                (sxw / c.outputScale);
          double lo = 0, hi = 255;
          if (c.activation.kind != Activation::None)
            lo = c.outputZeroPoint;
          if (c.activation.kind == Activation::Clip)
            hi = std::min(255.0, c.outputZeroPoint + std::nearbyint(double(6.f / c.outputScale)));
          const double q = std::clamp(std::nearbyint(double(product)) + c.outputZeroPoint, lo, hi);
          for (size_t o = 0; o < oneStepOutputs.size(); ++o) {
            ASSERT_EQ(oneStepOutputs[o][p * outPlane + oh * c.outW + ow], q)
                << "one-step code at plane " << p << " (" << oh << ", " << ow << "), output " << o;
            codesSeen[static_cast<int>(q)] = true;
          }
          for (size_t o = 0; o < oneStepValues.size(); ++o)
            ASSERT_EQ(oneStepValues[o][p * outPlane + oh * c.outW + ow],
                      static_cast<float>(q - c.outputZeroPoint) * c.outputScale)
                << "one-step value at plane " << p << " (" << oh << ", " << ow << "), output "
                << o;
          for (size_t o = 0; o < oneStepLookups.size(); ++o)
            ASSERT_EQ(oneStepLookups[o][p * outPlane + oh * c.outW + ow],
                      lookup[static_cast<size_t>(q)])
                << "one-step table entry at plane " << p << " (" << oh << ", " << ow
                << "), output " << o;
        }
        double v = double(sum) * tables.scaleBias[ch] + tables.scaleBias[c.channels + ch];
        if (c.activation.kind == Activation::Relu)
          v = std::max(v, 0.0);
        else if (c.activation.kind == Activation::Clip)
          v = std::clamp(v, 0.0, 6.0);
        const int64_t at = p * outPlane + oh * c.outW + ow;
        if (s.codes) {
          double q = std::clamp(std::nearbyint(v / c.outputScale) + c.outputZeroPoint, 0.0, 255.0);
          // f32 rounding of the product may move a tie by one code.
          for (size_t o = 0; o < outputs.size(); ++o) {
            ASSERT_NEAR(outputs[o][at], q, 1) << "code at plane " << p << " (" << oh << ", "
                                              << ow << "), output " << o;
            codesSeen[outputs[o][at]] = true;
          }
        } else {
          for (size_t o = 0; o < outputs.size(); ++o) {
            float got;
            std::memcpy(&got, outputs[o].data() + at * 4, 4);
            ASSERT_NEAR(got, v, 1e-5 + 1e-5 * std::fabs(v))
                << "at plane " << p << " (" << oh << ", " << ow << "), output " << o;
          }
        }
      }
  }
  for (const std::vector<uint8_t> &y : outputs)
    for (int64_t i = total * yBytes; i < total * yBytes + 64; ++i)
      ASSERT_EQ(y[i], 0xa5) << "wrote past the output at byte " << i;
  for (const std::vector<uint8_t> &y : oneStepOutputs)
    for (int64_t i = total; i < total + 64; ++i)
      ASSERT_EQ(y[i], 0xa5) << "one step wrote past the output at byte " << i;
  for (const std::vector<float> &y : oneStepValues)
    for (int64_t i = total; i < total + 16; ++i)
      ASSERT_EQ(y[i], -777.f) << "one step wrote past the values at " << i;
  for (const std::vector<float> &y : oneStepLookups)
    for (int64_t i = total; i < total + 16; ++i)
      ASSERT_EQ(y[i], -777.f) << "one step's lookup wrote past the values at " << i;
  if (oneStep)
    ++oneStepChecks;
}

void checkAllShapes(Isa isa) {
  std::mt19937 rng(21);
  for (bool codes : {true, false})
    for (int64_t side : {1, 7, 17, 40, 64, 65})
      for (int64_t stride : {1, 2}) {
        check({17, side, side + 1, 3, 3, stride, 1, "clip", codes}, rng, isa);
        check({3, side, side, 3, 3, stride, 1, "relu", codes}, rng, isa);
      }
  // MobileNet's shapes (codes out), other filters and paddings.
  check({32, 112, 112, 3, 3, 1, 1, "clip", true}, rng, isa);
  check({24, 56, 56, 3, 3, 2, 1, "clip", true}, rng, isa);
  check({9, 7, 7, 3, 3, 1, 1, "none", true}, rng, isa);
  check({5, 30, 129, 3, 3, 1, 0, "none", false}, rng, isa);
  check({5, 30, 129, 1, 4, 2, 3, "none", false}, rng, isa);
  check({5, 19, 23, 7, 2, 1, 3, "relu", true}, rng, isa);
  check({5, 19, 23, 5, 4, 2, 2, "clip", false}, rng, isa);
  // Strides that differ across and down, TF-SAME padding (none before, one
  // after), top padding over a whole block of rows, planes 1-3 wide at
  // stride 2, a full 7x4 filter, one channel.
  check({6, 21, 33, 3, 3, 1, 1, "relu", true, /*strideH=*/2}, rng, isa);
  check({6, 21, 33, 3, 3, 2, 1, "clip", false, /*strideH=*/1}, rng, isa);
  check({7, 14, 14, 3, 3, 2, 0, "clip", true, 0, /*padEnd=*/1}, rng, isa);
  check({7, 15, 15, 3, 3, 1, 0, "none", false, 0, /*padEnd=*/2}, rng, isa);
  check({4, 12, 9, 7, 3, 1, 6, "relu", true}, rng, isa);
  for (int64_t width : {1, 2, 3})
    check({3, 9, width, 3, 3, 2, 1, "clip", true}, rng, isa);
  check({3, 11, 10, 7, 4, 1, 3, "none", false}, rng, isa);
  check({1, 5, 5, 3, 3, 1, 1, "clip", true}, rng, isa);
  // Filters 5-8 wide (two dwords a row): 5x5 at strides 1 and 2 and 2x1
  // on PP-LCNet's planes, odd sides, planes narrower than the filter, the
  // widest 7x8 (taps reaching byte 37 of a stride-2 load), a 1x6 row.
  for (bool codes : {true, false}) {
    check({13, 17, 33, 5, 5, 1, 2, "relu", codes}, rng, isa);
    check({13, 17, 33, 5, 5, 2, 2, "clip", codes}, rng, isa);
  }
  check({8, 12, 80, 5, 5, 1, 2, "clip", true, /*strideH=*/2}, rng, isa);
  check({4, 9, 150, 5, 5, 2, 2, "relu", true}, rng, isa); // 5 vectors: unmasked loads
  check({4, 9, 150, 5, 5, 2, 2, "none", false}, rng, isa);
  check({5, 3, 3, 5, 5, 1, 2, "none", false}, rng, isa);
  check({5, 4, 2, 5, 5, 2, 2, "clip", true}, rng, isa);
  check({3, 20, 65, 7, 8, 2, 3, "none", false}, rng, isa);
  check({3, 20, 47, 7, 8, 1, 4, "relu", true, 0, /*padEnd=*/3}, rng, isa);
  check({2, 9, 129, 1, 6, 1, 0, "none", false}, rng, isa);
  // Planes of 16-18 codes (the ymm kernel's loads shifted inside them at
  // both ends), and rows narrower than a lane's load.
  check({3, 4, 4, 3, 3, 1, 1, "clip", true}, rng, isa);
  check({3, 2, 9, 3, 3, 2, 1, "relu", false}, rng, isa);
  check({3, 6, 3, 3, 5, 1, 2, "none", true}, rng, isa);
  check({2, 1, 18, 1, 5, 1, 2, "clip", true}, rng, isa);
  check({2, 3, 6, 3, 3, 2, 1, "none", false}, rng, isa);
  // Codes far past the grid's ends (|y| / scale up to ~10^5, also in code
  // units): 0 and 255, in whole vectors and tails.
  check({3, 9, 13, 3, 3, 1, 1, "relu", true, 0, -1, 1e-5f}, rng, isa);
  check({3, 9, 21, 3, 3, 1, 1, "none", true, 0, -1, 1e-5f}, rng, isa);
  EXPECT_TRUE(codesSeen[0] && codesSeen[255]) << "the output grid hardly saturates";
  EXPECT_GE(oneStepChecks, 40) << "shapes checked in one step";
}

TEST(Int8DepthwiseKernel, MatchesTheIntegerReference) {
  if (!hostHasVnni())
    GTEST_SKIP() << "the host lacks AVX-512 VNNI";
  checkAllShapes(Isa::Avx512);
}

TEST(Int8DepthwiseKernel, MatchesTheIntegerReferenceOnYmm) {
  if (!hostRunsYmmVnni())
    GTEST_SKIP() << "the host lacks AVX-VNNI and AVX-512 VNNI";
  std::fill(std::begin(codesSeen), std::end(codesSeen), false);
  oneStepChecks = 0;
  checkAllShapes(Isa::Avx2);
}


/// One step at exact ties: fl(sx sw) / sy = 0.5, so every odd sum lies
/// half-way between two codes; they round half to even before the zero
/// point (odd, 9) is added, as onnxruntime's requantization does (adding it
/// first would round 2.5 + 9 to 12, not 11), and the bias adds its code.
TEST(Int8DepthwiseKernel, RoundsOneStepTiesBeforeTheZeroPoint) {
  for (Isa isa : {Isa::Avx512, Isa::Avx2}) {
    if (isa == Isa::Avx512 ? !hostHasVnni() : !hostRunsYmmVnni())
      continue;
    WindowConfig c = configOf({3, 9, 37, 3, 3, 1, 1, "relu", true});
    c.evexVnni = isa == Isa::Avx2 && ymmNeedsEvex();
    c.inputScale = 0.5f;
    c.inputZeroPoint = 3;
    c.outputScale = 0.25f;
    c.outputZeroPoint = 9;
    c.oneStep = true;
    const int64_t taps = 9, planes = c.batch * c.channels;
    std::vector<float> weights(c.channels * taps), bias = {0.f, 0.375f, -1.125f};
    const std::vector<float> scales(c.channels, 0.25f);
    for (int64_t i = 0; i < c.channels * taps; ++i)
      weights[i] = static_cast<float>((i * 37) % 11 - 5) * 0.25f;
    std::optional<Int8DepthwiseKernel::Tables> t =
        Int8DepthwiseKernel::tables(c, weights, bias, scales);
    ASSERT_TRUE(t);
    std::vector<uint8_t> x(planes * c.height * c.width);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<uint8_t>((i * 29 + 7) % 17);
    std::vector<uint8_t> y(planes * c.outH * c.outW + 64, 0xa5);
    ASSERT_NO_FATAL_FAILURE(runAllTasks(c, isa, *t, x.data(), y.data()));
    int64_t ties = 0;
    for (int64_t p = 0; p < planes; ++p) {
      const int64_t ch = p % c.channels;
      const int64_t bq = static_cast<int64_t>(bias[ch] / 0.125f);
      for (int64_t oh = 0; oh < c.outH; ++oh)
        for (int64_t ow = 0; ow < c.outW; ++ow) {
          int64_t acc = bq;
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
              int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
              int64_t code = ih >= 0 && ih < c.height && iw >= 0 && iw < c.width
                                 ? x[p * c.height * c.width + ih * c.width + iw]
                                 : c.inputZeroPoint;
              acc += static_cast<int64_t>(weights[ch * taps + kh * 3 + kw] / 0.25f) *
                     (code - c.inputZeroPoint);
            }
          ties += acc % 2 != 0;
          const double q =
              std::clamp(std::nearbyint(0.5 * double(acc)) + c.outputZeroPoint, 9.0, 255.0);
          ASSERT_EQ(y[p * c.outH * c.outW + oh * c.outW + ow], q)
              << (isa == Isa::Avx2 ? "ymm" : "zmm") << " plane " << p << " (" << oh << ", " << ow
              << "), sum " << acc;
        }
    }
    EXPECT_GT(ties, 100);
  }
}

/// u8 weights of one per-tensor zero point (onnxruntime's QUInt8): a
/// channel's steps q - zp reach past s8 (here -100..155), so the kernel
/// takes them as k1 + d[c] (int8FilterOffsets), d[c] times the window's
/// inputs by one more vpdpbusd per filter row: exact sums, then one step
/// (u8 codes) or f32; 3x3 and 5x5 filters (the offset in both dwords),
/// padding, strides 1 and 2, both ISAs.
TEST(Int8DepthwiseKernel, TakesU8FiltersWhoseStepsLeaveS8) {
  std::mt19937 rng(29);
  std::uniform_int_distribution<int> byte(0, 255);
  for (Isa isa : {Isa::Avx512, Isa::Avx2}) {
    if (isa == Isa::Avx512 ? !hostHasVnni() : !hostRunsYmmVnni())
      continue;
    for (const Shape &shape : {Shape{5, 13, 37, 3, 3, 1, 1, "relu", true},
                               Shape{4, 17, 33, 5, 5, 2, 2, "clip", true},
                               Shape{3, 9, 21, 3, 3, 2, 1, "none", false}})
      for (bool oneStep : {true, false}) {
        if (oneStep && !shape.codes)
          continue;
        WindowConfig c = configOf(shape);
        c.evexVnni = isa == Isa::Avx2 && ymmNeedsEvex();
        c.oneStep = oneStep;
        SCOPED_TRACE(testing::Message() << (isa == Isa::Avx2 ? "ymm " : "zmm ") << c.kernelH
                                        << "x" << c.kernelW << " s" << c.strideW
                                        << (oneStep ? " one step" : ""));
        const int64_t taps = c.kernelH * c.kernelW, planes = c.batch * c.channels;
        const int32_t zw = 100;
        const float sw = 0.0037f;
        std::vector<float> weights(c.channels * taps), bias(c.channels),
            scales(c.channels, sw);
        for (int64_t ch = 0; ch < c.channels; ++ch) {
          for (int64_t t = 0; t < taps; ++t)
            weights[ch * taps + t] = static_cast<float>(byte(rng) - zw) * sw;
          weights[ch * taps] = static_cast<float>(255 - zw) * sw; // step 155
          weights[ch * taps + 1] = static_cast<float>(0 - zw) * sw;
          bias[ch] = 0.05f * static_cast<float>(ch) - 0.1f;
        }
        // Without offsets: no integer form.
        EXPECT_FALSE(Int8DepthwiseKernel::tables(c, weights, bias, scales));
        c.int8FilterOffsets = true;
        ASSERT_TRUE(Int8DepthwiseKernel::supports(c, isa));
        std::optional<Int8DepthwiseKernel::Tables> t =
            Int8DepthwiseKernel::tables(c, weights, bias, scales);
        ASSERT_TRUE(t);
        std::vector<uint8_t> x(planes * c.height * c.width);
        for (uint8_t &v : x)
          v = static_cast<uint8_t>(byte(rng));
        const int64_t outPlane = c.outH * c.outW, yBytes = shape.codes ? 1 : 4;
        std::vector<uint8_t> y(planes * outPlane * yBytes + 64, 0xa5);
        ASSERT_NO_FATAL_FAILURE(runAllTasks(c, isa, *t, x.data(), y.data()));
        for (int64_t p = 0; p < planes; ++p) {
          const int64_t ch = p % c.channels;
          const float s = c.inputScale * sw;
          for (int64_t oh = 0; oh < c.outH; ++oh)
            for (int64_t ow = 0; ow < c.outW; ++ow) {
              int64_t acc = 0; // sum of (x - zx) k
              for (int64_t kh = 0; kh < c.kernelH; ++kh)
                for (int64_t kw = 0; kw < c.kernelW; ++kw) {
                  int64_t ih = oh * c.strideH - c.padTop + kh,
                          iw = ow * c.strideW - c.padLeft + kw;
                  int64_t code = ih >= 0 && ih < c.height && iw >= 0 && iw < c.width
                                     ? x[p * c.height * c.width + ih * c.width + iw]
                                     : c.inputZeroPoint;
                  acc += static_cast<int64_t>(
                             std::nearbyint(weights[ch * taps + kh * c.kernelW + kw] / sw)) *
                         (code - c.inputZeroPoint);
                }
              const int64_t at = p * outPlane + oh * c.outW + ow;
              if (oneStep) {
                const double bq = std::nearbyint(double(bias[ch]) / double(s));
                const float v = static_cast<float>(acc + static_cast<int64_t>(bq)) *
                                (s / c.outputScale);
                double lo = c.activation.kind == Activation::None ? 0 : c.outputZeroPoint;
                double hi = c.activation.kind == Activation::Clip
                                ? std::min(255.0, c.outputZeroPoint +
                                                      std::nearbyint(double(6.f / c.outputScale)))
                                : 255;
                ASSERT_EQ(y[at], std::clamp(std::nearbyint(double(v)) + c.outputZeroPoint, lo, hi))
                    << "plane " << p << " (" << oh << ", " << ow << ")";
              } else {
                double want = double(acc) * s + bias[ch];
                if (c.activation.kind == Activation::Relu)
                  want = std::max(want, 0.0);
                else if (c.activation.kind == Activation::Clip)
                  want = std::clamp(want, 0.0, 6.0);
                if (shape.codes) {
                  // Two steps (an f32 rounding may move a tie by a code).
                  const double q = std::clamp(
                      std::nearbyint(want / c.outputScale) + c.outputZeroPoint, 0.0, 255.0);
                  ASSERT_NEAR(y[at], q, 1) << "plane " << p << " (" << oh << ", " << ow << ")";
                  continue;
                }
                float got;
                std::memcpy(&got, y.data() + at * 4, 4);
                ASSERT_NEAR(got, want, 1e-5 + 1e-5 * std::fabs(want))
                    << "plane " << p << " (" << oh << ", " << ow << ")";
              }
            }
        }
        for (size_t i = planes * outPlane * yBytes; i < y.size(); ++i)
          ASSERT_EQ(y[i], 0xa5) << "wrote past the output";
      }
  }
}

TEST(Int8DepthwiseKernel, RecoversTheFiltersGridAndFoldsTheZeroPoint) {
  WindowConfig c = configOf({2, 5, 5, 3, 3, 1, 1, "none", false});
  // Channel 0 is an s8 filter times 0.01 (a QDQ model's): it comes back
  // exactly; channel 1 all zeros.
  std::vector<float> w(18, 0.f), bias = {0.5f, -0.25f};
  const int8_t q[9] = {127, -127, 3, 0, -1, 64, -64, 100, 2};
  for (int t = 0; t < 9; ++t)
    w[t] = q[t] * 0.01f;
  std::optional<Int8DepthwiseKernel::Tables> found = Int8DepthwiseKernel::tables(c, w, bias);
  ASSERT_TRUE(found);
  const Int8DepthwiseKernel::Tables &t = *found;
  ASSERT_EQ(t.filters.size(), 6u);
  for (int kh = 0; kh < 3; ++kh)
    for (int kw = 0; kw < 3; ++kw)
      EXPECT_EQ(static_cast<int8_t>(t.filters[kh] >> (8 * kw) & 0xff), q[kh * 3 + kw]);
  for (int kh = 0; kh < 3; ++kh)
    EXPECT_EQ(t.filters[kh] >> 24, 0) << "the fourth tap";
  EXPECT_NEAR(t.scaleBias[0], c.inputScale * 0.01f, 1e-9);
  int sum = 0;
  for (int8_t v : q)
    sum += v;
  EXPECT_NEAR(t.scaleBias[2], 0.5 - double(c.inputScale) * 0.01 * c.inputZeroPoint * sum, 1e-6);
  EXPECT_EQ(t.filters[3], 0);
  EXPECT_EQ(t.scaleBias[3], -0.25f);
  EXPECT_EQ(t.scaleBias[1], c.inputScale); // scale 1 for an all-zero filter

  // A per-tensor grid (channel 1's largest step 50 of 0.01), and an
  // asymmetric one: u8 weights of zero point 128 and scale 0.002 span
  // steps -128..127 (their range / 255); with zero point 100 (steps
  // -100..155, all even) they lie on a grid of 0.01 (-20..31); steps
  // -128..255 fit no s8 grid.
  for (int t = 0; t < 9; ++t)
    w[9 + t] = (50 - 11 * t) * 0.01f;
  found = Int8DepthwiseKernel::tables(c, w, bias);
  ASSERT_TRUE(found);
  EXPECT_EQ(static_cast<int8_t>(found->filters[3] & 0xff), 50);
  EXPECT_NEAR(found->scaleBias[1], c.inputScale * 0.01f, 1e-9);
  std::vector<float> asym(18, 0.f);
  for (int t = 0; t < 9; ++t)
    asym[t] = (t == 0 ? -128 : t == 1 ? 127 : 20 * t - 90) * 0.002f;
  found = Int8DepthwiseKernel::tables(c, asym, bias);
  ASSERT_TRUE(found);
  EXPECT_EQ(static_cast<int8_t>(found->filters[0] & 0xff), -128);
  EXPECT_NEAR(found->scaleBias[0], c.inputScale * 0.002f, 1e-9);
  asym[0] = -100 * 0.002f;
  asym[1] = 155 * 0.002f;
  found = Int8DepthwiseKernel::tables(c, asym, bias);
  ASSERT_TRUE(found);
  EXPECT_EQ(static_cast<int8_t>(found->filters[0] >> 8 & 0xff), 31);
  EXPECT_NEAR(found->scaleBias[0], c.inputScale * 0.01f, 1e-9);
  asym[0] = -128 * 0.002f;
  asym[1] = 255 * 0.002f;
  EXPECT_FALSE(Int8DepthwiseKernel::tables(c, asym, bias)) << "steps -128..255 do not fit s8";
  // reduce_range's 7-bit grid (max |w| / 64, steps -64..64), and a grid
  // whose smallest step count is 3: found from the smallest |w|.
  std::vector<float> seven(18, 0.f);
  const int8_t q7[9] = {64, -64, 3, 0, -1, 33, -17, 50, 2};
  for (int t = 0; t < 9; ++t) {
    seven[t] = q7[t] * (0.9f / 64);
    seven[9 + t] = (3 * (t + 1) - (t == 4 ? 30 : 0)) * 0.0037f;
  }
  found = Int8DepthwiseKernel::tables(c, seven, bias);
  ASSERT_TRUE(found);
  for (int t = 0; t < 9; ++t) {
    const int32_t *rows = found->filters.data();
    int8_t got = static_cast<int8_t>(rows[t / 3] >> (8 * (t % 3)) & 0xff);
    int8_t got1 = static_cast<int8_t>(rows[3 + t / 3] >> (8 * (t % 3)) & 0xff);
    EXPECT_EQ(got, q7[t]) << t;
    EXPECT_NEAR(found->scaleBias[0], 0.9 / 64 * c.inputScale, 1e-9);
    EXPECT_NEAR(got1 * double(found->scaleBias[1]), seven[9 + t] * double(c.inputScale), 1e-9)
        << t;
  }
  // Off every grid (f32 filters of an f32 model): none.
  w[4] = 0.0123456f;
  EXPECT_FALSE(Int8DepthwiseKernel::tables(c, w, bias));
  // A 5-wide filter's taps 4-7 in each row's second dword.
  WindowConfig five = configOf({1, 6, 6, 2, 5, 1, 2, "none", false});
  std::vector<float> w5(10);
  const int8_t q5[10] = {1, -2, 3, -4, 5, -128, 127, 6, 7, -8};
  for (int t = 0; t < 10; ++t)
    w5[t] = q5[t] * 0.5f;
  found = Int8DepthwiseKernel::tables(five, w5, {});
  ASSERT_TRUE(found);
  ASSERT_EQ(found->filters.size(), 4u);
  for (int kh = 0; kh < 2; ++kh) {
    for (int kw = 0; kw < 5; ++kw)
      EXPECT_EQ(static_cast<int8_t>(found->filters[kh * 2 + kw / 4] >> (8 * (kw % 4)) & 0xff),
                q5[kh * 5 + kw]);
    EXPECT_EQ(found->filters[kh * 2 + 1] >> 8, 0) << "taps past the fifth";
  }
  // Not taken: filters wider than two dwords, dilation, a residual, ranges.
  WindowConfig wide = c;
  wide.kernelW = 9;
  EXPECT_FALSE(Int8DepthwiseKernel::supports(wide, Isa::Avx512));
  EXPECT_FALSE(Int8DepthwiseKernel::supports(wide, Isa::Avx2));
  WindowConfig dilated = c;
  dilated.dilationW = 2;
  EXPECT_FALSE(Int8DepthwiseKernel::supports(dilated, Isa::Avx512));
  EXPECT_FALSE(Int8DepthwiseKernel::supports(dilated, Isa::Avx2));
  WindowConfig residual = c;
  residual.residual = true;
  EXPECT_FALSE(Int8DepthwiseKernel::supports(residual, Isa::Avx512));
  EXPECT_FALSE(Int8DepthwiseKernel::supports(residual, Isa::Avx2));
  WindowConfig ranges = c;
  ranges.ranges = true;
  EXPECT_FALSE(Int8DepthwiseKernel::supports(ranges, Isa::Avx512));
  EXPECT_FALSE(Int8DepthwiseKernel::supports(ranges, Isa::Avx2));
  // Output tables: the zmm kernel only; planes under 16 codes: not on ymm.
  WindowConfig table = c;
  table.output = Activation::fakeQuant(0.01f, -128, 127);
  table.outputTable.assign(256, 0.5f);
  EXPECT_TRUE(Int8DepthwiseKernel::supports(table, Isa::Avx512));
  EXPECT_FALSE(Int8DepthwiseKernel::supports(table, Isa::Avx2));
  EXPECT_TRUE(Int8DepthwiseKernel::supports(c, Isa::Avx2)) << "5x5 = 25 codes";
  WindowConfig small = configOf({2, 3, 5, 3, 3, 1, 1, "none", false});
  EXPECT_TRUE(Int8DepthwiseKernel::supports(small, Isa::Avx512));
  EXPECT_FALSE(Int8DepthwiseKernel::supports(small, Isa::Avx2));
}

} // namespace

/// An output table at the output grid's codes (a QDQ model's elementwise
/// chain, nunc-fuse-chain-into-conv): each result is the entry of the code
/// the grid gives the kernel's own f32 result, as f32, rounded to a grid of
/// the table's own, or as that grid's u8 codes (word lookups: rows of four
/// vectors packed, others one at a time, tails masked).
TEST(Int8DepthwiseKernel, LooksAnOutputTableUp) {
  if (!hostHasVnni())
    GTEST_SKIP() << "the host lacks AVX-512 VNNI";
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> byte(0, 255), step(-127, 127);
  std::vector<float> table(256);
  for (int i = 0; i < 256; ++i)
    table[i] = 2.3f * std::cos(0.29f * static_cast<float>(i)) - 0.004f * static_cast<float>(i);
  const float scale2 = 0.0173f;
  const int32_t zp2 = 117;
  int64_t ends = 0;
  for (const Shape &s : {Shape{17, 17, 18, 3, 3, 1, 1, "clip", false},
                         Shape{13, 17, 33, 5, 5, 2, 2, "relu", false},
                         Shape{5, 9, 129, 3, 3, 1, 0, "none", false},
                         Shape{8, 12, 80, 5, 5, 1, 2, "none", false},
                         Shape{3, 9, 2, 3, 3, 2, 1, "clip", false}}) {
    WindowConfig plain = configOf(s);
    SCOPED_TRACE(testing::Message() << "C" << s.channels << " " << s.height << "x" << s.width
                                    << " k" << s.kernelH << "x" << s.kernelW << " s"
                                    << s.stride);
    const int64_t taps = plain.kernelH * plain.kernelW;
    std::vector<float> weights(plain.channels * taps), bias(plain.channels);
    for (int64_t ch = 0; ch < plain.channels; ++ch) {
      for (int64_t t = 0; t < taps; ++t)
        weights[ch * taps + t] = static_cast<float>(step(rng)) * 0.006f;
      weights[ch * taps] = 127 * 0.006f;
      bias[ch] = 0.1f * static_cast<float>(ch % 7) - 0.3f;
    }
    std::optional<Int8DepthwiseKernel::Tables> tables =
        Int8DepthwiseKernel::tables(plain, weights, bias);
    ASSERT_TRUE(tables);
    // The index grid: 256 codes around the results' range.
    const Activation grid = Activation::fakeQuant(0.011f, -140, 115);
    WindowConfig tf = plain, tr, tq;
    tf.output = grid;
    tf.outputTable = table;
    tr = tq = tf;
    tr.tableOutput = Activation::fakeQuant(scale2, -zp2, 255 - zp2);
    tq.outputU8 = true;
    tq.outputScale = scale2;
    tq.outputZeroPoint = zp2;
    const int64_t planes = plain.batch * plain.channels;
    const int64_t total = planes * plain.outH * plain.outW;
    std::vector<uint8_t> codes(planes * plain.height * plain.width);
    for (uint8_t &q : codes)
      q = static_cast<uint8_t>(byte(rng));
    std::vector<float> y(total + 16, -777.f), looked(total + 16, -777.f),
        rounded(total + 16, -777.f);
    std::vector<uint8_t> coded(total + 64, 0xa5);
    auto run = [&](const WindowConfig &k, void *out) {
      runAllTasks(k, Isa::Avx512, *tables, codes.data(), out);
    };
    ASSERT_NO_FATAL_FAILURE(run(plain, y.data()));
    ASSERT_NO_FATAL_FAILURE(run(tf, looked.data()));
    ASSERT_NO_FATAL_FAILURE(run(tr, rounded.data()));
    ASSERT_NO_FATAL_FAILURE(run(tq, coded.data()));
    for (int64_t i = 0; i < total; ++i) {
      const float code = std::clamp(std::nearbyint(y[i] / grid.scale), grid.min, grid.max);
      const float entry = table[static_cast<int64_t>(code - grid.min)];
      const float q2 = std::clamp(std::nearbyint(entry / scale2) + zp2, 0.f, 255.f);
      ends += q2 == 0.f || q2 == 255.f;
      uint32_t got, want;
      std::memcpy(&got, &looked[i], 4);
      std::memcpy(&want, &entry, 4);
      ASSERT_EQ(got, want) << "entry at " << i << " (y " << y[i] << ")";
      ASSERT_EQ(rounded[i], (q2 - zp2) * scale2) << "rounded entry at " << i;
      ASSERT_EQ(coded[i], static_cast<uint8_t>(q2)) << "entry's code at " << i;
    }
    for (int64_t i = total; i < total + 16; ++i)
      ASSERT_TRUE(looked[i] == -777.f && rounded[i] == -777.f) << "wrote past y at " << i;
    for (int64_t i = total; i < total + 64; ++i)
      ASSERT_EQ(coded[i], 0xa5) << "wrote past the codes at " << i;
  }
  EXPECT_GT(ends, 100) << "the table's u8 grid hardly saturates";
}
