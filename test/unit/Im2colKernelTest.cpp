//===- Im2colKernelTest.cpp - xbyak im2col against a plain reference ------===//

#include "GemmKernel.h"
#include "TestSupport.h"
#include "Im2colKernel.h"

#include "gtest/gtest.h"

#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <set>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

// Every kernel here runs its tasks one after another in scratch slot 0
// (nunc_rt_task), as one thread does: a task must initialize whatever it
// reads of its scratch, finding the previous task's data there.

namespace {

using nunc_test::hostHas;

/// The packed im2col, element by element: [image][panel][C*kh*kw][NR],
/// zero in the padding and past the last position.
std::vector<float> reference(const Im2colConfig &c, const std::vector<float> &in) {
  int64_t nr = c.panelWidth, positions = c.outH * c.outW;
  int64_t panels = (positions + nr - 1) / nr, ck = c.channels * c.kernelH * c.kernelW;
  std::vector<float> out(c.batch * panels * ck * nr, 0.f);
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t ch = 0; ch < c.channels; ++ch)
      for (int64_t kh = 0; kh < c.kernelH; ++kh)
        for (int64_t kw = 0; kw < c.kernelW; ++kw)
          for (int64_t oh = 0; oh < c.outH; ++oh)
            for (int64_t ow = 0; ow < c.outW; ++ow) {
              int64_t ih = oh * c.strideH - c.padTop + kh * c.dilationH;
              int64_t iw = ow * c.strideW - c.padLeft + kw * c.dilationW;
              float v = 0;
              if (ih >= 0 && ih < c.height && iw >= 0 && iw < c.width)
                v = in[((n * c.channels + ch) * c.height + ih) * c.width + iw];
              int64_t p = oh * c.outW + ow;
              int64_t row = (ch * c.kernelH + kh) * c.kernelW + kw;
              out[((n * panels + p / nr) * ck + row) * nr + p % nr] = v;
            }
  return out;
}

/// Two images of a square-kernel convolution with the same stride, padding
/// and dilation in both dimensions, panels as the ISA's GEMM takes them.
Im2colConfig geometry(int64_t channels, int64_t height, int64_t width, int64_t kernel,
                      int64_t stride, int64_t pad, int64_t dilation, Isa isa) {
  Im2colConfig c;
  c.batch = 2;
  c.channels = channels;
  c.height = height;
  c.width = width;
  c.kernelH = c.kernelW = kernel;
  c.strideH = c.strideW = stride;
  c.dilationH = c.dilationW = dilation;
  c.padTop = c.padLeft = pad;
  int64_t span = (kernel - 1) * dilation + 1;
  c.outH = (c.height + 2 * pad - span) / stride + 1;
  c.outW = (c.width + 2 * pad - span) / stride + 1;
  c.panelWidth = GemmKernel::panelWidth(isa);
  return c;
}

class Im2colKernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(Im2colKernelTest, MatchesThePlainIm2col) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int tested = 0;
  for (int64_t channels : {1, 3, 17})
    for (int64_t size : {1, 7, 17, 30})
      for (auto [kernel, stride, pad, dilation] : std::vector<std::array<int64_t, 4>>{
               {3, 1, 1, 1}, {3, 2, 1, 1}, {1, 1, 0, 1}, {1, 2, 0, 1}, {7, 2, 3, 1},
               {3, 1, 2, 2}, {2, 2, 0, 1}}) {
        // Not square, not a multiple of the vector width.
        Im2colConfig c = geometry(channels, size, size + 3, kernel, stride, pad, dilation, isa);
        if (c.outH <= 0 || c.outW <= 0)
          continue;
        ASSERT_TRUE(Im2colKernel::supports(c, isa));
        std::vector<float> in(c.batch * channels * c.height * c.width);
        for (float &v : in)
          v = dist(rng);
        std::vector<float> want = reference(c, in);
        // Garbage where the kernel must write zeros.
        std::vector<float> got(want.size(), 12345.f);
        std::vector<float> scratch(Im2colKernel::scratchBytes(c, isa) / 4 + 16, -1.f);
        std::unique_ptr<JitKernel> kernelCode = Im2colKernel::generate(c, isa);
        ASSERT_TRUE(kernelCode);
        const void *args[] = {in.data(), got.data(), scratch.data()};
        for (int64_t t = 0; t < Im2colKernel::numTasks(c); ++t)
          ASSERT_EQ(kernelCode->function()(args, t, 0), 0);
        ASSERT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * 4))
            << "C " << channels << " " << c.height << "x" << c.width << " k" << kernel << " s"
            << stride << " p" << pad << " d" << dilation;
        ++tested;
      }
  EXPECT_GT(tested, 60);
}

/// The convolution GEMM's config for `c` (M rows, K = channels x taps, N
/// positions, batches of panels).
GemmConfig convolutionGemm(const Im2colConfig &c, int64_t m, int64_t k, Isa isa) {
  GemmConfig cfg;
  cfg.m = m;
  cfg.n = c.outH * c.outW;
  cfg.k = k;
  cfg.lda = k;
  cfg.ldc = cfg.ldr = cfg.n;
  cfg.batch = c.batch;
  cfg.wBatchStride = GemmKernel::numPanels(cfg.n, isa) * c.panelWidth * k;
  cfg.cBatchStride = cfg.rBatchStride = m * cfg.n;
  return cfg;
}

/// Packs the im2col of `in` with its own kernel into `packed` and runs the
/// GEMM `cfg` (no im2col) over it: C, the reference for the GEMM that builds
/// its panels.
std::vector<float> gemmOverPackedIm2col(const Im2colConfig &c, const GemmConfig &cfg, Isa isa,
                                        const std::vector<float> &in, const float *a,
                                        const float *bias, const float *residual,
                                        std::vector<float> &packed) {
  packed.assign(c.batch * cfg.wBatchStride, 0.f);
  std::vector<float> planes(Im2colKernel::scratchBytes(c, isa) / 4 + 16);
  std::unique_ptr<JitKernel> im2col = Im2colKernel::generate(c, isa);
  std::unique_ptr<JitKernel> gemm = GemmKernel::generate(cfg, isa);
  EXPECT_TRUE(im2col && gemm);
  std::vector<float> out(c.batch * cfg.m * cfg.n, -777.f);
  if (!im2col || !gemm)
    return out;
  const void *packArgs[] = {in.data(), packed.data(), planes.data()};
  for (int64_t t = 0; t < Im2colKernel::numTasks(c); ++t)
    EXPECT_EQ(im2col->function()(packArgs, t, 0), 0);
  const void *gemmArgs[] = {a, packed.data(), bias, residual, out.data()};
  for (int64_t t = 0; t < GemmKernel::numTasks(cfg, isa); ++t)
    EXPECT_EQ(gemm->function()(gemmArgs, t, 0), 0);
  return out;
}

/// The convolution GEMM that builds its own panels from padded planes must
/// equal, bit for bit, the GEMM over the separately packed im2col (same
/// panels, same summation order), whatever the scratch held before and
/// with C in the residual's storage; the few last columns it joins to the
/// panel before (dot products over K, in another order) agree with the
/// double-precision convolution.
class PanelIm2colTest : public ::testing::TestWithParam<Isa> {};

TEST_P(PanelIm2colTest, ConvolutionGemmEqualsTheOneOverThePackedIm2col) {
  const Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks the ISA";
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int tested = 0, joined = 0, chunked = 0, readInput = 0;
  std::set<int64_t> tails;
  for (int64_t channels : {1, 3, 17})
    for (auto [height, width] : std::vector<std::array<int64_t, 2>>{
             {1, 4}, {7, 10}, {17, 20}, {30, 33}, {7, 7}, {14, 14}, {5, 10}, {3, 17},
             {10, 10}})
      for (auto [kernel, stride, pad, dilation] : std::vector<std::array<int64_t, 4>>{
               {3, 1, 1, 1}, {3, 2, 1, 1}, {1, 1, 0, 1}, {1, 2, 0, 1}, {7, 2, 3, 1},
               {3, 1, 2, 2}, {2, 2, 0, 1}})
        for (int64_t m : {7, 17, 48}) {
          Im2colConfig c =
              geometry(channels, height, width, kernel, stride, pad, dilation, isa);
          if (c.outH <= 0 || c.outW <= 0 || !PanelIm2col::supports(c, isa))
            continue;
          int64_t k = channels * kernel * kernel, n = c.outH * c.outW;
          std::vector<float> in(c.batch * channels * c.height * c.width), a(m * k), bias(m),
              residual(c.batch * m * n);
          for (auto *v : {&in, &a, &bias, &residual})
            for (float &x : *v)
              x = dist(rng);
          GemmConfig cfg = convolutionGemm(c, m, k, isa);
          cfg.bias = cfg.rowBias = cfg.residual = true;
          // Clip, not Relu: negative joined columns are compared too.
          cfg.activation = Activation::fromName("clip", -0.5f, 0.75f);

          // The reference: im2col packed by its own kernel, then the GEMM.
          std::vector<float> packed;
          std::vector<float> want = gemmOverPackedIm2col(c, cfg, isa, in, a.data(), bias.data(),
                                                         residual.data(), packed);

          // The GEMM building its panels, its scratch full of NaNs.
          cfg.im2col = c;
          // Without padding and at stride 1 the panels come from the
          // input itself; else from the padded planes.
          const bool direct = PanelIm2col::readsInput(c);
          std::unique_ptr<JitKernel> padding = PanelIm2col::generatePadding(c);
          std::unique_ptr<JitKernel> fused = GemmKernel::generate(cfg, isa);
          ASSERT_TRUE(fused);
          ASSERT_EQ(!padding, direct);
          std::vector<float> padded(PanelIm2col::planesBytes(c) / 4, std::nanf(""));
          // A sentinel right after the buffers (every task runs in the last
          // scratch slot's) and after the output.
          std::vector<float> buffers(GemmKernel::panelBufferBytes(cfg, isa) / 4 + 1,
                                     std::nanf(""));
          buffers.back() = -555.f;
          const void *padArgs[] = {in.data(), padded.data()};
          for (int64_t t = 0; padding && t < PanelIm2col::paddingTasks(c); ++t)
            ASSERT_EQ(padding->function()(padArgs, t, 0), 0);

          // With row chunks, the chunks share the im2col packed before.
          GemmKernel::Im2colSplit split = GemmKernel::im2colSplit(cfg);
          // The input ends against an inaccessible page: the copies read
          // nothing past it.
          nunc_test::GuardedBytes guardedIn(in.size() * 4, /*atEnd=*/true);
          std::memcpy(guardedIn.data(), in.data(), in.size() * 4);
          const void *panels = !split.packPerItem ? (const void *)packed.data()
                               : direct           ? (const void *)guardedIn.data()
                                                  : (const void *)padded.data();
          readInput += direct && split.packPerItem;
          // C in the residual's storage, as the memory plan may put it.
          std::vector<float> got(residual);
          got.push_back(-777.f);
          const void *fusedArgs[] = {a.data(),   panels,     bias.data(),
                                     got.data(), got.data(), buffers.data()};
          const int64_t tasks = GemmKernel::numTasks(cfg, isa);
          for (int64_t t = 0; t < tasks; ++t)
            ASSERT_EQ(fused->function()(fusedArgs, t, tasks - 1), 0);
          for (int64_t b = 0; b < c.batch; ++b)
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                int64_t at = (b * m + i) * n + j;
                if (j < n - split.tail) {
                  ASSERT_EQ(std::memcmp(&got[at], &want[at], 4), 0)
                      << "C " << channels << " " << c.height << "x" << c.width << " k"
                      << kernel << " s" << stride << " p" << pad << " d" << dilation << " M "
                      << m << " at image " << b << " row " << i << " column " << j;
                  continue;
                }
                // A joined column: the convolution in double precision.
                double acc = bias[i] + residual[at];
                for (int64_t ch = 0; ch < channels; ++ch)
                  for (int64_t ky = 0; ky < kernel; ++ky)
                    for (int64_t kx = 0; kx < kernel; ++kx) {
                      int64_t iy = j / c.outW * stride - pad + ky * dilation;
                      int64_t ix = j % c.outW * stride - pad + kx * dilation;
                      if (iy >= 0 && iy < c.height && ix >= 0 && ix < c.width)
                        acc += double(a[i * k + (ch * kernel + ky) * kernel + kx]) *
                               in[((b * channels + ch) * c.height + iy) * c.width + ix];
                    }
                acc = std::min(std::max(acc, -0.5), 0.75);
                ASSERT_NEAR(got[at], acc, 1e-5 * std::max(1.0, std::fabs(acc)))
                    << "joined column " << j << " of " << n << ", C " << channels << " k"
                    << kernel << " s" << stride << " M " << m << " image " << b << " row " << i;
              }
          ASSERT_EQ(got.back(), -777.f) << "wrote past C";
          ASSERT_EQ(buffers.back(), -555.f) << "wrote past the panel buffers";
          ++tested;
          tails.insert(split.tail);
          joined += split.tail > 0;
          chunked += split.chunks > 1;
        }
  EXPECT_GT(tested, 300);
  EXPECT_GT(chunked, 20);
  EXPECT_GT(readInput, 20);
  if (isa == Isa::Avx512) {
    EXPECT_GT(joined, 20);
    EXPECT_EQ(tails, (std::set<int64_t>{0, 1, 2, 3, 4})) << "joined tails of every width";
  } else {
    EXPECT_EQ(joined, 0) << "panels of 16 join no columns";
  }
}

/// MLAS's k blocks (GemmConfig::kBlock, an int8 conv's f32 products) with
/// the panels built by the GEMM's tasks: bit for bit the blocked GEMM over
/// the packed im2col (KBlocksSumAsMlasSgemm checks that one against MLAS's
/// order), every column, a last panel of a few columns included (none is
/// joined: dot products would sum in another order).
TEST_P(PanelIm2colTest, KBlocksWithPanelsEqualThoseOverThePackedIm2col) {
  const Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks the ISA";
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int tested = 0, fewLast = 0;
  for (int64_t channels : {3, 17, 40})
    for (auto [height, width] :
         std::vector<std::array<int64_t, 2>>{{7, 7}, {14, 14}, {17, 20}, {9, 11}})
      for (auto [kernel, stride, pad] :
           std::vector<std::array<int64_t, 3>>{{3, 1, 1}, {3, 2, 1}, {1, 1, 0}})
        for (int64_t block : {16, 64, 128}) {
          Im2colConfig c = geometry(channels, height, width, kernel, stride, pad, 1, isa);
          if (!PanelIm2col::supports(c, isa))
            continue;
          const int64_t m = 16, k = channels * kernel * kernel, n = c.outH * c.outW;
          std::vector<float> in(c.batch * channels * c.height * c.width), a(m * k);
          for (auto *v : {&in, &a})
            for (float &x : *v)
              x = dist(rng);
          GemmConfig cfg = convolutionGemm(c, m, k, isa);
          cfg.kBlock = block;
          std::vector<float> packed, unused(1);
          std::vector<float> want = gemmOverPackedIm2col(c, cfg, isa, in, a.data(), unused.data(),
                                                         unused.data(), packed);

          cfg.im2col = c;
          GemmKernel::Im2colSplit split = GemmKernel::im2colSplit(cfg);
          ASSERT_EQ(split.tail, 0);
          std::unique_ptr<JitKernel> fused = GemmKernel::generate(cfg, isa);
          std::unique_ptr<JitKernel> padding = PanelIm2col::generatePadding(c);
          ASSERT_TRUE(fused);
          std::vector<float> padded(PanelIm2col::planesBytes(c) / 4, std::nanf(""));
          const void *padArgs[] = {in.data(), padded.data()};
          for (int64_t t = 0; padding && t < PanelIm2col::paddingTasks(c); ++t)
            ASSERT_EQ(padding->function()(padArgs, t, 0), 0);
          const void *panels = !split.packPerItem         ? (const void *)packed.data()
                               : PanelIm2col::readsInput(c) ? (const void *)in.data()
                                                            : (const void *)padded.data();
          std::vector<float> buffers(GemmKernel::panelBufferBytes(cfg, isa) / 4 + 1,
                                     std::nanf(""));
          std::vector<float> got(c.batch * m * n + 1, -777.f);
          const void *fusedArgs[] = {a.data(),   panels,     unused.data(),
                                     unused.data(), got.data(), buffers.data()};
          const int64_t tasks = GemmKernel::numTasks(cfg, isa);
          for (int64_t t = 0; t < tasks; ++t)
            ASSERT_EQ(fused->function()(fusedArgs, t, tasks - 1), 0);
          ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size() * 4), 0)
              << "C " << channels << " " << height << "x" << width << " k" << kernel << " s"
              << stride << " block " << block;
          ASSERT_EQ(got.back(), -777.f) << "wrote past C";
          ++tested;
          fewLast += n % c.panelWidth != 0 && n % c.panelWidth <= 4;
        }
  EXPECT_GT(tested, 80);
  EXPECT_GT(fewLast, 5);
}

INSTANTIATE_TEST_SUITE_P(Isas, PanelIm2colTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

INSTANTIATE_TEST_SUITE_P(Isas, Im2colKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
