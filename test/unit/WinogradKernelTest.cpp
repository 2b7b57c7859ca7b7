//===- WinogradKernelTest.cpp - Winograd F(2x2, 3x3) against a direct conv ===//

#include "TestSupport.h"
#include "WinogradKernel.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;

struct Shape {
  int64_t batch, channels, outChannels, height, width;
};

/// activation(conv3x3(x, w) + bias + residual) in double, stride 1, padding
/// 1; `scale` gets each output's sum of |terms|, for the tolerance.
std::vector<double> directConv(const WinogradConfig &c, const std::vector<float> &x,
                               const std::vector<float> &w, const std::vector<float> &bias,
                               const std::vector<float> &residual, std::vector<double> &scale) {
  const int64_t plane = c.height * c.width;
  std::vector<double> out(c.batch * c.outChannels * plane);
  scale.assign(out.size(), 0);
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t o = 0; o < c.outChannels; ++o)
      for (int64_t y = 0; y < c.height; ++y)
        for (int64_t xx = 0; xx < c.width; ++xx) {
          const int64_t at = (n * c.outChannels + o) * plane + y * c.width + xx;
          double sum = c.bias ? bias[o] : 0, mag = std::fabs(sum);
          for (int64_t ch = 0; ch < c.channels; ++ch)
            for (int i = 0; i < 3; ++i)
              for (int j = 0; j < 3; ++j) {
                const int64_t iy = y + i - 1, ix = xx + j - 1;
                if (iy < 0 || iy >= c.height || ix < 0 || ix >= c.width)
                  continue;
                double term = double(w[(o * c.channels + ch) * 9 + i * 3 + j]) *
                              x[(n * c.channels + ch) * plane + iy * c.width + ix];
                sum += term;
                mag += std::fabs(term);
              }
          if (c.residual) {
            sum += residual[at];
            mag += std::fabs(residual[at]);
          }
          if (c.activation.kind == Activation::Relu)
            sum = std::max(sum, 0.0);
          else if (c.activation.kind == Activation::Clip)
            sum = std::clamp(sum, double(c.activation.min), double(c.activation.max));
          else if (c.activation.kind == Activation::Sigmoid)
            sum = 1 / (1 + std::exp(-sum));
          out[at] = sum;
          scale[at] = mag;
        }
  return out;
}

/// Every output of the kernel against the direct convolution, within a few
/// float roundings of the terms' magnitude; the padding pass first, every
/// task in the last scratch slot (its buffer's sentinel after it), C
/// preset to garbage and guarded past its end.
void checkShape(const Shape &shape, bool bias, bool residual, const std::string &activation,
                std::mt19937 &rng) {
  WinogradConfig c;
  c.batch = shape.batch;
  c.channels = shape.channels;
  c.outChannels = shape.outChannels;
  c.height = shape.height;
  c.width = shape.width;
  c.bias = bias;
  c.residual = residual;
  if (!activation.empty())
    c.activation = Activation::fromName(activation, 0, 6);
  SCOPED_TRACE("N " + std::to_string(c.batch) + " C " + std::to_string(c.channels) + " M " +
               std::to_string(c.outChannels) + " " + std::to_string(c.height) + "x" +
               std::to_string(c.width) + (bias ? " +bias" : "") +
               (residual ? " +residual" : "") + " " + activation);
  ASSERT_TRUE(WinogradKernel::supports(c, Isa::Avx512));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  auto random = [&](int64_t n) {
    std::vector<float> v(n);
    for (float &f : v)
      f = dist(rng);
    return v;
  };
  const int64_t plane = c.height * c.width;
  std::vector<float> x = random(c.batch * c.channels * plane);
  std::vector<float> w = random(c.outChannels * c.channels * 9);
  std::vector<float> b = random(c.outChannels);
  std::vector<float> r = random(c.batch * c.outChannels * plane);
  std::vector<double> scale;
  std::vector<double> want = directConv(c, x, w, b, r, scale);

  const Im2colConfig pc = WinogradKernel::paddingConfig(c);
  std::unique_ptr<JitKernel> padding = PanelIm2col::generatePadding(pc);
  std::unique_ptr<JitKernel> kernel = WinogradKernel::generate(c, Isa::Avx512);
  ASSERT_TRUE(padding);
  ASSERT_TRUE(kernel);
  std::vector<float> u = WinogradKernel::transformWeights(w.data(), c.outChannels, c.channels);
  std::vector<uint8_t> planes(PanelIm2col::planesBytes(pc), 0xcd);
  const int64_t tasks = WinogradKernel::numTasks(c), bufferBytes = WinogradKernel::bufferBytes(c);
  std::vector<uint8_t> buffers(tasks * bufferBytes + 64, 0xcd);
  std::vector<float> out(want.size() + 16, -777.f);
  const void *padArgs[] = {x.data(), planes.data()};
  for (int64_t t = 0; t < PanelIm2col::paddingTasks(pc); ++t)
    ASSERT_EQ(padding->function()(padArgs, t, 0), 0);
  const void *args[] = {u.data(), planes.data(), b.data(), r.data(), out.data(), buffers.data()};
  for (int64_t t = 0; t < tasks; ++t)
    ASSERT_EQ(kernel->function()(args, t, tasks - 1), 0);
  for (size_t i = 0; i < want.size(); ++i) {
    const int64_t y = i % plane / c.width, xx = i % c.width;
    ASSERT_NEAR(out[i], want[i], 2e-6 * (scale[i] + 1))
        << "at image " << i / plane / c.outChannels << " channel " << i / plane % c.outChannels
        << " (" << y << ", " << xx << ")";
  }
  for (size_t i = want.size(); i < out.size(); ++i)
    ASSERT_EQ(out[i], -777.f) << "wrote past the output";
  for (size_t i = tasks * bufferBytes; i < buffers.size(); ++i)
    ASSERT_EQ(buffers[i], 0xcd) << "wrote past the last slot's buffer";
}

} // namespace

/// Shapes with odd and even sides (the last tile row or column half
/// outside), tile rows of 16 tiles (a whole segment) and 17 (a second
/// segment of one), rows of at most 8 tiles in pairs (an odd number of
/// rows: the last pair's second missing), panels of one to three segments,
/// more (image, panel) items than tasks (2 x 56x56: 38 items, so tasks
/// take a second), channels not a multiple of the k loop's unroll, output
/// channels not a multiple of the row tile, two images; no activation,
/// Relu, Clip and Sigmoid (whose temporaries are zmm24-27).
TEST(WinogradKernelTest, MatchesTheDirectConvolution) {
  if (!hostHas(Isa::Avx512))
    GTEST_SKIP() << "the host lacks AVX-512";
  std::mt19937 rng(71);
  const Shape shapes[] = {{1, 1, 1, 3, 3},    {1, 3, 7, 7, 7},    {2, 5, 9, 17, 33},
                          {1, 17, 16, 32, 32}, {1, 8, 17, 6, 40}, {2, 4, 8, 35, 4},
                          {1, 64, 24, 12, 30}, {2, 9, 10, 14, 14}, {1, 6, 8, 13, 16},
                          {1, 5, 3, 40, 17},   {2, 8, 8, 56, 56}};
  const char *activations[] = {"", "relu", "clip", "sigmoid"};
  for (const Shape &s : shapes)
    for (int form = 0; form < 4; ++form)
      ASSERT_NO_FATAL_FAILURE(checkShape(s, form & 1, form & 2, activations[form], rng));
}

/// U = G g G^T: a filter with one 1 at (i, j) transforms into the outer
/// product of G's columns i and j.
TEST(WinogradKernelTest, WeightTransformIsGgGt) {
  const double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      float w[9] = {};
      w[i * 3 + j] = 1;
      std::vector<float> u = WinogradKernel::transformWeights(w, 1, 1);
      for (int l = 0; l < 4; ++l)
        for (int k = 0; k < 4; ++k)
          EXPECT_EQ(u[l * 4 + k], static_cast<float>(g[l][i] * g[k][j]))
              << "tap (" << i << ", " << j << ") position " << l * 4 + k;
    }
}

/// Geometry outside the kernel's: no AVX2 form, sides below 3, grids.
TEST(WinogradKernelTest, RefusesWhatItDoesNotTake) {
  WinogradConfig c;
  c.channels = 4;
  c.outChannels = 8;
  c.height = c.width = 16;
  EXPECT_TRUE(WinogradKernel::supports(c, Isa::Avx512));
  EXPECT_FALSE(WinogradKernel::supports(c, Isa::Avx2));
  WinogradConfig small = c;
  small.width = 2;
  EXPECT_FALSE(WinogradKernel::supports(small, Isa::Avx512));
  WinogradConfig grid = c;
  grid.activation = Activation::fakeQuant(0.1f, -10, 10);
  EXPECT_FALSE(WinogradKernel::supports(grid, Isa::Avx512));
}
