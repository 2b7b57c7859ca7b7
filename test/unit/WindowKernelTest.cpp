//===- WindowKernelTest.cpp - xbyak pooling/depthwise vs the evaluator ----===//

#include "Kernels.h"
#include "TestSupport.h"
#include "WindowKernel.h"

#include "nunc/Dialect/Nunc/ShapeHelpers.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include <sys/mman.h>
#include <unistd.h>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

// Every kernel here runs its tasks one after another in scratch slot 0
// (nunc_rt_task), as one thread does: a task must initialize whatever it
// reads of its scratch, finding the previous task's data there.

namespace {

using nunc_test::hostHas;

struct Case {
  WindowConfig::Kind kind;
  int64_t channels, height, width, kernel, stride, pad, dilation;
  bool ceil = false, includePad = false, bias = false, residual = false;
  const char *activation = "none";
  /// Non-square windows: the W extent and stride when not 0.
  int64_t kernelW = 0, strideW = 0;
  int64_t kw() const { return kernelW ? kernelW : kernel; }
  int64_t sw() const { return strideW ? strideW : stride; }
};

std::string describe(const Case &c) {
  const char *kinds[] = {"max", "average", "depthwise", "global_average"};
  return std::string(kinds[c.kind]) + " C" + std::to_string(c.channels) + " " +
         std::to_string(c.height) + "x" + std::to_string(c.width) + " k" +
         std::to_string(c.kernel) + "x" + std::to_string(c.kw()) + " s" +
         std::to_string(c.stride) + "x" + std::to_string(c.sw()) + " p" +
         std::to_string(c.pad) + " d" + std::to_string(c.dilation) + (c.ceil ? " ceil" : "") +
         (c.includePad ? " include_pad" : "") + (c.bias ? " bias" : "") +
         (c.residual ? " residual" : "") + " " + c.activation;
}

Tensor randomTensor(std::mt19937 &rng, std::vector<int64_t> shape) {
  return nunc_test::randomTensor(rng, std::move(shape), -2.f, 2.f);
}

/// Outputs the u8 checks below saw saturate (their grid must, somewhere).
int64_t u8Saturated = 0;

void check(Isa isa, const Case &k, std::mt19937 &rng) {
  SCOPED_TRACE(describe(k));
  const int64_t batch = 2;
  Tensor x = randomTensor(rng, {batch, k.channels, k.height, k.width});
  std::vector<int64_t> kernel = {k.kernel, k.kw()}, strides = {k.stride, k.sw()},
                       dilations = {k.dilation, k.dilation},
                       pads = {k.pad, k.pad, k.pad, k.pad};
  kernels::WindowAttrs attrs;
  attrs.kernel = kernel;
  attrs.strides = strides;
  attrs.dilations = dilations;
  attrs.pads = pads;
  attrs.ceilMode = k.ceil;
  attrs.countIncludePad = k.includePad;

  WindowConfig c;
  c.kind = k.kind;
  c.batch = batch;
  c.channels = k.channels;
  c.height = k.height;
  c.width = k.width;
  if (k.kind == WindowConfig::GlobalAverage) {
    c.height = k.height * k.width;
    c.width = 1;
  } else {
    llvm::Expected<shape::WindowGeometry> g =
        shape::window({k.height, k.width}, kernel, strides, dilations, pads, "NOTSET", k.ceil);
    ASSERT_TRUE(static_cast<bool>(g));
    c.setGeometry(*g);
  }
  c.countIncludePad = k.includePad;
  c.bias = k.bias;
  c.residual = k.residual;
  c.activation = Activation::fromName(k.activation, 0.f, 1.5f);
  std::vector<float> map;
  if (k.kind == WindowConfig::Average)
    map = WindowKernel::prepareDivisors(c, isa);

  Tensor w = randomTensor(rng, {k.channels, 1, k.kernel, k.kw()});
  Tensor b = randomTensor(rng, {k.channels});
  llvm::Expected<Tensor> want = [&]() -> llvm::Expected<Tensor> {
    switch (k.kind) {
    case WindowConfig::Max:
      return kernels::maxPool(x, attrs);
    case WindowConfig::Average:
      return kernels::averagePool(x, attrs);
    case WindowConfig::GlobalAverage:
      return kernels::globalAveragePool(x);
    default:
      attrs.group = k.channels;
      return kernels::conv(x, w, k.bias ? &b : nullptr, attrs);
    }
  }();
  ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
  int64_t outCount = want->numElements();
  Tensor residual = randomTensor(rng, want->shape());
  if (k.residual) {
    llvm::Expected<Tensor> sum = kernels::binary(kernels::BinaryKind::Add, *want, residual);
    ASSERT_TRUE(static_cast<bool>(sum));
    *want = std::move(*sum);
  }
  if (k.kind == WindowConfig::Depthwise) {
    llvm::Expected<Tensor> act = kernels::activation(*want, {k.activation, 0.f, 1.5f});
    ASSERT_TRUE(static_cast<bool>(act));
    *want = std::move(*act);
  }

  std::unique_ptr<JitKernel> gen = WindowKernel::generate(c, isa);
  ASSERT_TRUE(gen);
  // A guard past y: a kernel must not store beyond its output.
  std::vector<float> y(outCount + 16, -777.f);
  // Scratch starts as large floats (in a library it holds other steps'
  // data): a kernel that reads scratch it did not write fails.
  std::vector<char> scratch(WindowKernel::scratchBytes(c, isa) + 64, char(0x7f));
  const void *args[] = {x.raw(), y.data(), scratch.data(),
                        k.kind == WindowConfig::Depthwise ? w.raw() : (const void *)map.data(),
                        b.raw(), residual.raw()};
  for (int64_t t = 0; t < WindowKernel::numTasks(c); ++t)
    ASSERT_EQ(gen->function()(args, t, 0), 0);
  for (int64_t i = 0; i < outCount; ++i)
    ASSERT_NEAR(y[i], want->as<float>()[i], 2e-5 + 2e-6 * std::fabs(want->as<float>()[i]))
        << "at " << i;
  for (int64_t i = outCount; i < outCount + 16; ++i)
    ASSERT_EQ(y[i], -777.f) << "wrote past the output at " << i;

  // Reading the input in place (stride 1): the border lanes are masked, so
  // an input right after or right before memory the process may not read
  // gives the same output bit for bit.
  if (WindowKernel::readsDirectly(c, isa)) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = (x.numElements() * 4 + page - 1) / page * page;
    for (bool guardAfter : {true, false}) {
      char *mem = static_cast<char *>(mmap(nullptr, bytes + 2 * page, PROT_READ | PROT_WRITE,
                                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      ASSERT_NE(mem, MAP_FAILED);
      ASSERT_EQ(mprotect(mem, page, PROT_NONE), 0);
      ASSERT_EQ(mprotect(mem + page + bytes, page, PROT_NONE), 0);
      char *at = mem + page + (guardAfter ? bytes - x.numElements() * 4 : 0);
      std::memcpy(at, x.raw(), x.numElements() * 4);
      std::vector<float> again(outCount + 16, -777.f);
      const void *dArgs[] = {at, again.data(), args[2], args[3], args[4], args[5]};
      for (int64_t t = 0; t < WindowKernel::numTasks(c); ++t)
        ASSERT_EQ(gen->function()(dArgs, t, 0), 0);
      munmap(mem, bytes + 2 * page);
      for (int64_t i = 0; i < outCount + 16; ++i)
        ASSERT_EQ(again[i], y[i]) << "input by a guard page, at " << i;
    }
  }

  // Reading u8 codes of a grid (an int8 convolution's u8_output): the same
  // output bit for bit as from their f32 values, and no read past the codes
  // (they end where the process may not read).
  if (WindowKernel::readsU8(c, isa)) {
    const float scale = 0.0175f;
    const int32_t zp = 97;
    const int64_t count = x.numElements();
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = (count + page - 1) / page * page;
    void *mem = mmap(nullptr, bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    ASSERT_NE(mem, MAP_FAILED);
    ASSERT_EQ(mprotect(static_cast<char *>(mem) + bytes, page, PROT_NONE), 0);
    uint8_t *codes = static_cast<uint8_t *>(mem) + bytes - count;
    std::vector<float> values(count);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int64_t i = 0; i < count; ++i) {
      codes[i] = static_cast<uint8_t>(byte(rng));
      values[i] = static_cast<float>(codes[i] - zp) * scale;
    }
    WindowConfig u = c;
    u.inputU8 = true;
    u.inputScale = scale;
    u.inputZeroPoint = zp;
    std::unique_ptr<JitKernel> fromCodes = WindowKernel::generate(u, isa);
    ASSERT_TRUE(fromCodes);
    std::vector<float> want(outCount + 16, -777.f), got(outCount + 16, -777.f);
    const void *fArgs[] = {values.data(), want.data(), args[2], args[3], args[4], args[5]};
    // Codes take the padded-copy path (f32 may read its input directly):
    // scratch of their own.
    std::vector<char> uScratch(WindowKernel::scratchBytes(u, isa) + 64, char(0x7f));
    const void *uArgs[] = {codes, got.data(), uScratch.data(), args[3], args[4], args[5]};
    for (int64_t t = 0; t < WindowKernel::numTasks(c); ++t) {
      ASSERT_EQ(gen->function()(fArgs, t, 0), 0);
      ASSERT_EQ(fromCodes->function()(uArgs, t, 0), 0);
    }
    munmap(mem, bytes + page);
    for (int64_t i = 0; i < outCount + 16; ++i)
      ASSERT_EQ(got[i], want[i]) << "from u8 codes, at " << i;
  } else if (k.kind == WindowConfig::Depthwise) {
    WindowConfig u = c;
    u.inputU8 = true;
    EXPECT_FALSE(WindowKernel::generate(u, isa)) << "u8 codes the kernel cannot read";
  }
  // Writing the output rounded to a grid, or as that grid's u8 codes (an
  // int8 convolution's static input): exactly the rounding of y, a grid
  // that saturates on both sides; no byte past the codes.
  if (WindowKernel::readsU8(c, isa) && !k.residual) {
    const float scale = 0.0078125f;
    const int32_t zp = 77;
    WindowConfig rounded = c, coded = c;
    rounded.output = Activation::fakeQuant(scale, -zp, 255 - zp);
    coded.outputU8 = true;
    coded.outputScale = scale;
    coded.outputZeroPoint = zp;
    // Bounded (x here is within +-2): the same codes without the clamp.
    WindowConfig bounded = coded;
    bounded.outputBounded = true;
    std::unique_ptr<JitKernel> r = WindowKernel::generate(rounded, isa),
                               q = WindowKernel::generate(coded, isa),
                               qb = WindowKernel::generate(bounded, isa);
    ASSERT_TRUE(r && q && qb);
    std::vector<float> grid(outCount + 16, -777.f);
    std::vector<uint8_t> codes(outCount + 64, 0xa5), boundedCodes(outCount + 64, 0xa5);
    const void *rArgs[] = {args[0], grid.data(), args[2], args[3], args[4], args[5]};
    const void *qArgs[] = {args[0], codes.data(), args[2], args[3], args[4], args[5]};
    const void *bArgs[] = {args[0], boundedCodes.data(), args[2], args[3], args[4], args[5]};
    for (int64_t t = 0; t < WindowKernel::numTasks(c); ++t) {
      ASSERT_EQ(r->function()(rArgs, t, 0), 0);
      ASSERT_EQ(q->function()(qArgs, t, 0), 0);
      ASSERT_EQ(qb->function()(bArgs, t, 0), 0);
    }
    ASSERT_EQ(codes, boundedCodes) << "codes without the clamp";
    int saturated = 0;
    for (int64_t i = 0; i < outCount; ++i) {
      float v = std::clamp(std::nearbyint(y[i] / scale) + zp, 0.f, 255.f);
      saturated += v == 0.f || v == 255.f;
      ASSERT_EQ(codes[i], static_cast<uint8_t>(v)) << "codes at " << i << " (y " << y[i] << ")";
      ASSERT_EQ(grid[i], (v - zp) * scale) << "rounded at " << i << " (y " << y[i] << ")";
    }
    for (int64_t i = outCount; i < outCount + 64; ++i)
      ASSERT_EQ(codes[i], 0xa5) << "wrote past the codes at " << i;
    u8Saturated += saturated;

    if (!WindowKernel::looksUpTables(c, isa)) {
      WindowConfig tabled = rounded;
      tabled.outputTable.assign(256, 0.5f);
      EXPECT_FALSE(WindowKernel::generate(tabled, isa)) << "a table on the ymm kernel";
    } else {
      // An output table at that grid's codes (a chain tabulated at compile
      // time): its entries as f32, rounded to a second grid, or as that
      // grid's u8 codes (word lookups, four vectors packed or one at a time).
      std::vector<float> table(256);
      for (int i = 0; i < 256; ++i)
        table[i] = 1.7f * std::sin(0.37f * static_cast<float>(i)) + 0.01f * static_cast<float>(i);
      const float scale2 = 0.0123f;
      const int32_t zp2 = 131;
      WindowConfig tabled = rounded;
      tabled.outputTable = table;
      WindowConfig tabledRounded = tabled, tabledCodes = tabled;
      tabledRounded.tableOutput = Activation::fakeQuant(scale2, -zp2, 255 - zp2);
      tabledCodes.outputU8 = true;
      tabledCodes.outputScale = scale2;
      tabledCodes.outputZeroPoint = zp2;
      std::unique_ptr<JitKernel> tf = WindowKernel::generate(tabled, isa),
                                 tr = WindowKernel::generate(tabledRounded, isa),
                                 tq = WindowKernel::generate(tabledCodes, isa);
      ASSERT_TRUE(tf && tr && tq);
      std::vector<float> looked(outCount + 16, -777.f), lookedRounded(outCount + 16, -777.f);
      std::vector<uint8_t> lookedCodes(outCount + 64, 0xa5);
      const void *tfArgs[] = {args[0], looked.data(), args[2], args[3], args[4], args[5]};
      const void *trArgs[] = {args[0], lookedRounded.data(), args[2], args[3], args[4], args[5]};
      const void *tqArgs[] = {args[0], lookedCodes.data(), args[2], args[3], args[4], args[5]};
      for (int64_t t = 0; t < WindowKernel::numTasks(c); ++t) {
        ASSERT_EQ(tf->function()(tfArgs, t, 0), 0);
        ASSERT_EQ(tr->function()(trArgs, t, 0), 0);
        ASSERT_EQ(tq->function()(tqArgs, t, 0), 0);
      }
      for (int64_t i = 0; i < outCount; ++i) {
        const int64_t code = static_cast<int64_t>(std::clamp(std::nearbyint(y[i] / scale) + zp,
                                                             0.f, 255.f));
        const float entry = table[code];
        const float q2 = std::clamp(std::nearbyint(entry / scale2) + zp2, 0.f, 255.f);
        ASSERT_EQ(nunc_test::bits(looked[i]), nunc_test::bits(entry))
            << "looked up at " << i << " (y " << y[i] << ")";
        ASSERT_EQ(nunc_test::bits(lookedRounded[i]), nunc_test::bits((q2 - zp2) * scale2 + 0.f))
            << "looked up and rounded at " << i;
        ASSERT_EQ(lookedCodes[i], static_cast<uint8_t>(q2)) << "looked-up codes at " << i;
      }
      for (int64_t i = outCount; i < outCount + 16; ++i)
        ASSERT_EQ(looked[i], -777.f) << "wrote past the looked-up values at " << i;
      for (int64_t i = outCount; i < outCount + 64; ++i)
        ASSERT_EQ(lookedCodes[i], 0xa5) << "wrote past the looked-up codes at " << i;
      // Tables the kernel refuses: no index grid, a size other than its
      // codes', a table grid without a table.
      WindowConfig noGrid = tabled, shortTable = tabled, gridAlone = rounded;
      noGrid.output = Activation();
      shortTable.outputTable.pop_back();
      gridAlone.tableOutput = tabledRounded.tableOutput;
      EXPECT_FALSE(WindowKernel::generate(noGrid, isa));
      EXPECT_FALSE(WindowKernel::generate(shortTable, isa));
      EXPECT_FALSE(WindowKernel::generate(gridAlone, isa));
    }
  }

  // With the partial ranges (an int8 convolution's input): the same output
  // bit for bit, every task's (max, min) written, together the range of
  // y with 0 in it (stored lanes only: the tails' other lanes hold junk).
  c.ranges = true;
  if (!WindowKernel::canWriteRanges(c, isa))
    return;
  std::unique_ptr<JitKernel> ranged = WindowKernel::generate(c, isa);
  ASSERT_TRUE(ranged);
  int64_t tasks = WindowKernel::numTasks(c);
  std::vector<float> y2(outCount + 16, -777.f), parts(tasks * 2, std::nanf(""));
  const void *rangedArgs[] = {args[0], y2.data(), args[2], args[3], args[4], args[5],
                              parts.data()};
  for (int64_t t = 0; t < tasks; ++t)
    ASSERT_EQ(ranged->function()(rangedArgs, t, 0), 0);
  ASSERT_EQ(std::memcmp(y.data(), y2.data(), y.size() * 4), 0) << "ranges changed the output";
  float hi = 0, lo = 0, partHi = -INFINITY, partLo = INFINITY;
  for (int64_t i = 0; i < outCount; ++i) {
    hi = std::max(hi, y[i]);
    lo = std::min(lo, y[i]);
  }
  for (int64_t t = 0; t < tasks; ++t) {
    ASSERT_FALSE(std::isnan(parts[2 * t]) || std::isnan(parts[2 * t + 1])) << "task " << t;
    ASSERT_GE(parts[2 * t], 0.f);
    ASSERT_LE(parts[2 * t + 1], 0.f);
    partHi = std::max(partHi, parts[2 * t]);
    partLo = std::min(partLo, parts[2 * t + 1]);
  }
  EXPECT_EQ(partHi, hi);
  EXPECT_EQ(partLo, lo);
}

class WindowKernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(WindowKernelTest, MaxAndAveragePoolingMatchTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(11);
  for (auto kind : {WindowConfig::Max, WindowConfig::Average})
    // Widths (size + 2) 3 ... 35: 32 is a whole number of AVX-512 vector
    // pairs (stride 2 splits rows pair by pair), 35 one vector over.
    for (int64_t size : {1, 7, 17, 30, 33})
      for (auto [kernel, stride, pad, dilation] :
           std::vector<std::array<int64_t, 4>>{
               {3, 2, 1, 1}, {2, 2, 0, 1}, {3, 1, 1, 1}, {3, 1, 0, 2}, {5, 2, 2, 1}})
        for (bool ceil : {false, true})
          for (bool includePad : {false, true}) {
            if (kind == WindowConfig::Max && includePad)
              continue;
            // Windows must fit: the reference refuses inputs smaller than them.
            if ((kernel - 1) * dilation + 1 > size + 2 * pad)
              continue;
            check(isa, {kind, 3, size, size + 2, kernel, stride, pad, dilation, ceil, includePad},
                  rng);
          }
}

TEST_P(WindowKernelTest, DepthwiseConvMatchesTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(12);
  u8Saturated = 0;
  for (int64_t channels : {1, 17})
    // Width 64 (size 63): whole vector pairs; 41 rows: blocks in a loop.
    for (int64_t size : {3, 7, 17, 40, 63})
      for (auto [kernel, stride, pad, dilation] : std::vector<std::array<int64_t, 4>>{
               {3, 1, 1, 1}, {3, 2, 1, 1}, {5, 2, 2, 1}, {3, 1, 2, 2}, {1, 1, 0, 1},
               // Filters too large for registers (read as broadcasts).
               {5, 1, 2, 1}, {7, 1, 3, 1}})
        for (int variant = 0; variant < 3; ++variant) {
          Case k{WindowConfig::Depthwise, channels, size, size + 1, kernel, stride, pad,
                 dilation};
          k.bias = variant >= 1;
          k.residual = variant == 2;
          k.activation = variant == 0 ? "none" : variant == 1 ? "relu" : "clip";
          check(isa, k, rng);
        }
  EXPECT_GT(u8Saturated, 1000) << "the u8 output grid hardly saturates";
}

TEST(WindowKernelDirectReads, TakesStrideOneF32DepthwiseWithFewBorderMasks) {
  auto depthwise = [](int64_t width, int64_t kernel, int64_t stride, int64_t pad) {
    WindowConfig c;
    c.kind = WindowConfig::Depthwise;
    c.channels = 8;
    c.height = 20;
    c.width = width;
    c.kernelH = c.kernelW = kernel;
    c.strideH = c.strideW = stride;
    c.padTop = c.padLeft = c.padBottom = c.padRight = pad;
    c.outH = (c.height + 2 * pad - kernel) / stride + 1;
    c.outW = (width + 2 * pad - kernel) / stride + 1;
    return c;
  };
  // MobileNet's stride-1 depthwise convs read their input in place, with
  // no scratch.
  for (int64_t width : {7, 14, 28, 56, 112}) {
    EXPECT_TRUE(WindowKernel::readsDirectly(depthwise(width, 3, 1, 1), Isa::Avx512)) << width;
    EXPECT_EQ(WindowKernel::scratchBytes(depthwise(width, 3, 1, 1), Isa::Avx512), 0) << width;
  }
  // Not: stride 2, AVX2, u8 codes, pooling, and a 7-wide filter over a
  // 4-wide row (7 partial masks for one vector, past k2..k7).
  EXPECT_FALSE(WindowKernel::readsDirectly(depthwise(56, 3, 2, 1), Isa::Avx512));
  EXPECT_FALSE(WindowKernel::readsDirectly(depthwise(56, 3, 1, 1), Isa::Avx2));
  WindowConfig codes = depthwise(56, 3, 1, 1);
  codes.inputU8 = true;
  EXPECT_FALSE(WindowKernel::readsDirectly(codes, Isa::Avx512));
  WindowConfig pool = depthwise(56, 3, 1, 1);
  pool.kind = WindowConfig::Max;
  EXPECT_FALSE(WindowKernel::readsDirectly(pool, Isa::Avx512));
  EXPECT_FALSE(WindowKernel::readsDirectly(depthwise(4, 7, 1, 3), Isa::Avx512));
  EXPECT_GT(WindowKernel::scratchBytes(depthwise(4, 7, 1, 3), Isa::Avx512), 0);
}

TEST_P(WindowKernelTest, UnusualWindowsMatchTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(14);
  for (auto kind : {WindowConfig::Max, WindowConfig::Average, WindowConfig::Depthwise})
    for (int64_t size : {9, 37}) {
      auto make = [&](int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t pad,
                      int64_t dilation) {
        Case k{kind, 5, size, size + 3, kh, sh, pad, dilation};
        k.kernelW = kw;
        k.strideW = sw;
        return k;
      };
      // Strides differing in H and W, a window smaller than its stride,
      // dilation with stride 2.
      check(isa, make(3, 3, 1, 2, 1, 1), rng);
      check(isa, make(3, 3, 2, 1, 1, 1), rng);
      check(isa, make(1, 1, 2, 2, 0, 1), rng);
      check(isa, make(2, 3, 3, 2, 0, 1), rng);
      check(isa, make(3, 3, 2, 2, 2, 2), rng);
      if (kind == WindowConfig::Depthwise) {
        // Padding wider than a vector (windows that see only padding).
        check(isa, make(3, 3, 2, 2, 17, 1), rng);
        check(isa, make(3, 3, 1, 1, 17, 1), rng);
        // Filters past the registers at stride 1 along W: 3 x 5, stride 2
        // down the rows, dilation 2.
        check(isa, make(3, 5, 1, 1, 2, 1), rng);
        check(isa, make(5, 5, 2, 1, 2, 1), rng);
        check(isa, make(5, 5, 1, 1, 4, 2), rng);
        // Activations that use every temporary register, with filters in
        // registers (3 x 3) and read from memory (5 x 5).
        for (const char *activation : {"gelu", "sigmoid", "tanh", "silu", "hard_swish"})
          for (int64_t kernel : {3, 5}) {
            Case k = make(kernel, kernel, 2, 2, 1, 1);
            k.bias = k.residual = true;
            k.activation = activation;
            check(isa, k, rng);
            k.stride = k.strideW = 1;
            check(isa, k, rng);
          }
      }
    }
}

TEST_P(WindowKernelTest, GlobalAveragePoolMatchesTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(13);
  for (auto [h, w] : std::vector<std::array<int64_t, 2>>{{1, 1}, {1, 7}, {7, 7}, {3, 43}, {56, 56}})
    for (int64_t channels : {1, 5, 64})
      check(isa, {WindowConfig::GlobalAverage, channels, h, w, 1, 1, 0, 1}, rng);
}

/// GlobalAverage of a grid's values (averageOfCodes): onnxruntime's
/// QLinearGlobalAveragePool, round_half_even(float(sum of steps) x fl(s_x /
/// fl(s_y N))) within the output grid, as its values; planes of 1 to 4100
/// values (vectors, tails, the unrolled loop), ties included (s_x / (s_y
/// N) = 0.5 on 2x2 planes), saturated ends.
TEST_P(WindowKernelTest, GlobalAverageOfCodesMatchesOnnxruntimesArithmetic) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(17);
  std::uniform_int_distribution<int> code(0, 255);
  int64_t ties = 0, ends = 0;
  struct Case {
    int64_t h, w;
    float sx, sy;
    int32_t zx, zy;
  };
  for (const Case &k : {Case{2, 2, 0.5f, 0.25f, 128, 128}, Case{1, 1, 0.02f, 0.015f, 3, 40},
                        Case{1, 7, 0.03125f, 0.01f, 200, 7}, Case{7, 7, 0.0235294f, 0.0084167f, 0, 0},
                        Case{1, 17, 0.1f, 0.003f, 128, 128}, Case{3, 43, 0.05f, 0.0125f, 77, 250},
                        Case{41, 100, 0.02f, 0.0001f, 128, 128}}) {
    WindowConfig c;
    c.kind = WindowConfig::GlobalAverage;
    c.batch = 2;
    c.channels = 9;
    c.height = k.h * k.w;
    c.width = 1;
    c.averageOfCodes = true;
    c.inputScale = k.sx;
    c.outputScale = k.sy;
    c.outputZeroPoint = k.zy;
    ASSERT_TRUE(WindowKernel::supports(c));
    std::unique_ptr<JitKernel> kernel = WindowKernel::generate(c, isa);
    ASSERT_TRUE(kernel);
    const int64_t n = c.height, planes = c.batch * c.channels;
    std::vector<int32_t> steps(planes * n);
    std::vector<float> x(planes * n), y(planes + 16, -777.f);
    for (int64_t i = 0; i < planes * n; ++i) {
      // A plane of one end's codes now and then: the output's ends.
      const int64_t p = i / n;
      steps[i] = (p % 7 == 3 ? 255 : p % 7 == 5 ? 0 : code(rng)) - k.zx;
      x[i] = static_cast<float>(steps[i]) * k.sx; // DequantizeLinear's value
    }
    const void *args[] = {x.data(), y.data(), nullptr, nullptr, nullptr, nullptr};
    for (int64_t t = 0; t < WindowKernel::numTasks(c); ++t)
      ASSERT_EQ(kernel->function()(args, t, 0), 0);
    const float m = k.sx / (k.sy * static_cast<float>(n));
    for (int64_t p = 0; p < planes; ++p) {
      int64_t acc = 0;
      for (int64_t i = 0; i < n; ++i)
        acc += steps[p * n + i];
      const float scaled = static_cast<float>(acc) * m;
      ties += scaled - std::floor(scaled) == 0.5f;
      const float q = std::clamp(std::nearbyint(scaled), float(-k.zy), float(255 - k.zy));
      ends += q == -k.zy || q == 255 - k.zy;
      ASSERT_EQ(y[p], q * k.sy) << n << " values, plane " << p << ", sum " << acc;
    }
    for (int64_t p = planes; p < planes + 16; ++p)
      ASSERT_EQ(y[p], -777.f) << "wrote past the output";
  }
  EXPECT_GT(ties, 4);
  EXPECT_GT(ends, 10);
  // Sums of steps past 2^24 (f32 exactness): not taken.
  WindowConfig big;
  big.kind = WindowConfig::GlobalAverage;
  big.height = 65794;
  big.averageOfCodes = true;
  EXPECT_FALSE(WindowKernel::supports(big));
}

/// Average with `divide` and an output grid (average_pool's
/// output_quantization): onnxruntime's QLinearAveragePool, written out here
/// as a plain loop: f32 sums in window order (taps outside the input
/// skipped), fl(sum / count), round_half_even(fl(y / s + z)) clamped to the
/// grid, times s. Inputs on a grid of step 1/64 and outputs of the same
/// step make exact ties, which an odd z moves a code (QuantizeLinear's
/// order, z added after, would not): counted. Odd sizes, border windows of
/// fewer taps (the map of counts), ceil_mode and count_include_pad, z the
/// grid's zero point or 128 less (signed codes), both grid ends.
TEST_P(WindowKernelTest, AverageOnAGridMatchesOnnxruntimesArithmetic) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(23);
  std::uniform_int_distribution<int> code(0, 255);
  int64_t ties = 0, ends = 0, cases = 0;
  struct Geometry {
    int64_t kh, kw, sh, sw, pad;
  };
  for (int64_t size : {1, 7, 17, 33})
    for (Geometry g : {Geometry{3, 2, 3, 2, 0}, Geometry{3, 3, 2, 2, 1}, Geometry{2, 2, 2, 2, 0},
                       Geometry{3, 3, 1, 1, 1}, Geometry{1, 4, 1, 2, 0}})
      for (bool ceil : {false, true})
        for (bool includePad : {false, true})
          for (auto [scale, zp, signedCodes] :
               {std::tuple{0.015625f, 5, false}, std::tuple{0.015625f, 133, true},
                std::tuple{0.0112f, 201, false}}) {
            const int64_t h = size, w = size + 2;
            if (g.kh > h + 2 * g.pad || g.kw > w + 2 * g.pad || (includePad && !g.pad))
              continue;
            std::vector<int64_t> kernel = {g.kh, g.kw}, strides = {g.sh, g.sw},
                                 dilations = {1, 1}, pads = {g.pad, g.pad, g.pad, g.pad};
            llvm::Expected<shape::WindowGeometry> geom =
                shape::window({h, w}, kernel, strides, dilations, pads, "NOTSET", ceil);
            ASSERT_TRUE(static_cast<bool>(geom));
            WindowConfig c;
            c.kind = WindowConfig::Average;
            c.batch = 2;
            c.channels = 3;
            c.height = h;
            c.width = w;
            c.setGeometry(*geom);
            c.countIncludePad = includePad;
            c.divide = true;
            c.output = Activation::fakeQuant(scale, float(-zp), float(255 - zp));
            const int32_t z = signedCodes ? zp - 128 : zp;
            c.output.zeroPoint = float(z);
            std::vector<float> counts = WindowKernel::prepareDivisors(c, isa);
            SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " k" +
                         std::to_string(g.kh) + "x" + std::to_string(g.kw) + " s" +
                         std::to_string(g.sh) + "x" + std::to_string(g.sw) + " p" +
                         std::to_string(g.pad) + (ceil ? " ceil" : "") +
                         (includePad ? " include_pad" : "") + " zp " + std::to_string(zp) +
                         " z " + std::to_string(z));
            std::unique_ptr<JitKernel> kernelCode = WindowKernel::generate(c, isa);
            ASSERT_TRUE(kernelCode);
            const int64_t planes = c.batch * c.channels, outCount = planes * c.outH * c.outW;
            std::vector<float> x(planes * h * w), y(outCount + 16, -777.f);
            for (int64_t i = 0; i < planes * h * w; ++i)
              x[i] = static_cast<float>((i / (h * w)) % 5 == 4 ? 255 - 100 : code(rng) - 100) *
                     0.015625f;
            std::vector<char> scratch(WindowKernel::scratchBytes(c, isa) + 64, char(0x7f));
            const void *args[] = {x.data(), y.data(), scratch.data(), counts.data(), nullptr,
                                  nullptr};
            for (int64_t t = 0; t < WindowKernel::numTasks(c); ++t)
              ASSERT_EQ(kernelCode->function()(args, t, 0), 0);
            for (int64_t p = 0; p < planes; ++p)
              for (int64_t oh = 0; oh < c.outH; ++oh)
                for (int64_t ow = 0; ow < c.outW; ++ow) {
                  float sum = 0;
                  int64_t count = 0;
                  for (int64_t a = 0; a < g.kh; ++a)
                    for (int64_t b = 0; b < g.kw; ++b) {
                      const int64_t r = oh * g.sh - g.pad + a, q = ow * g.sw - g.pad + b;
                      const bool inside = r >= 0 && r < h && q >= 0 && q < w;
                      // ceil_mode's overhang past the padding never counts.
                      const bool inPadded = r < h + g.pad && q < w + g.pad;
                      count += includePad ? inPadded : inside;
                      if (inside)
                        sum += x[(p * h + r) * w + q];
                    }
                  const float mean = sum / static_cast<float>(count);
                  const float quotient = mean / scale;
                  float q = std::nearbyint(quotient + float(z)) - float(z);
                  ties += q != std::nearbyint(quotient);
                  q = std::clamp(q, float(-zp), float(255 - zp));
                  ends += q == float(-zp) || q == float(255 - zp);
                  const int64_t at = (p * c.outH + oh) * c.outW + ow;
                  ASSERT_EQ(y[at], q * scale + 0.f) << "plane " << p << " at " << oh << ", " << ow;
                }
            for (int64_t i = outCount; i < outCount + 16; ++i)
              ASSERT_EQ(y[i], -777.f) << "wrote past the output at " << i;
            ++cases;
          }
  EXPECT_GT(cases, 100);
  EXPECT_GT(ties, 50);
  EXPECT_GT(ends, 20);
}

INSTANTIATE_TEST_SUITE_P(Isas, WindowKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
