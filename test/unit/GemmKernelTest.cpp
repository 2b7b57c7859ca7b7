//===- GemmKernelTest.cpp - the xbyak GEMM against a plain reference ------===//
//
// The generator runs in-process (JIT): the same bytes `nunc compile` embeds.
// Every shape combination of awkward sizes, both ISAs, every epilogue.
//
//===----------------------------------------------------------------------===//

#include "GemmKernel.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

// Every kernel here runs its tasks one after another in scratch slot 0
// (nunc_rt_task), as one thread does: a task must initialize whatever it
// reads of its scratch, finding the previous task's data there.

namespace {

using nunc_test::hostHas;

float referenceKind(const Activation &act, float x) {
  const float lo = act.min, hi = act.max;
  switch (act.kind) {
  case Activation::None: return x;
  case Activation::Relu: return std::max(x, 0.f);
  case Activation::LeakyRelu:
    ADD_FAILURE() << "LeakyRelu runs as an elementwise step, not in GEMM epilogues";
    break;
  case Activation::Clip: return std::min(std::max(x, lo), hi);
  case Activation::Sigmoid: return 1.f / (1.f + std::exp(-x));
  case Activation::Tanh: return std::tanh(x);
  case Activation::Gelu: return 0.5f * x * (1.f + std::erf(x / std::sqrt(2.f)));
  case Activation::GeluTanh:
    return 0.5f * x * (1.f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
  case Activation::HardSigmoid:
    return std::min(std::max(x * act.alpha + act.beta, 0.f), 1.f);
  case Activation::HardSwish:
    return x * std::min(std::max(x * act.alpha + act.beta, 0.f), 1.f);
  case Activation::Silu: return x / (1.f + std::exp(-x));
  case Activation::FakeQuant:
    ADD_FAILURE() << "no reference for FakeQuant here (the int8 tests check grids)";
    break;
  }
  return x;
}

/// The activation, then its post Mul and Add.
float reference(const Activation &act, float x) {
  float y = referenceKind(act, x) * act.postMul;
  return y + act.postAdd;
}

Activation withKind(Activation::Kind kind) {
  Activation a;
  a.kind = kind;
  return a;
}

/// Runs the kernel on random data and returns the max abs error relative to
/// max(1, |ref|) against a double-precision reference.
double runCase(Isa isa, int64_t m, int64_t n, int64_t k, bool bias, bool residual,
               Activation act, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int64_t lda = k + (k % 3 == 0 ? 5 : 0); // sometimes a row stride larger than K
  std::vector<float> a(m * lda), w(k * n), b(n), r(m * n), out(m * n, -777.f);
  for (auto *v : {&a, &w, &b, &r})
    for (float &x : *v)
      x = dist(rng);
  GemmConfig cfg;
  cfg.m = m;
  cfg.n = n;
  cfg.k = k;
  cfg.lda = lda;
  cfg.ldc = n;
  cfg.ldr = n;
  cfg.bias = bias;
  cfg.residual = residual;
  cfg.activation = act;
  std::vector<float> pw = GemmKernel::packWeights(w.data(), k, n, isa);
  std::vector<float> pb = GemmKernel::packBias(b.data(), n, isa);
  std::unique_ptr<JitKernel> kernel = GemmKernel::generate(cfg, isa);
  EXPECT_TRUE(kernel);
  if (!kernel)
    return 1e9;
  const void *args[] = {a.data(), pw.data(), pb.data(), r.data(), out.data()};
  for (int64_t t = 0; t < GemmKernel::numPanels(n, isa); ++t)
    EXPECT_EQ(kernel->function()(args, t, 0), 0);
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = bias ? b[j] : 0.0;
      for (int64_t kk = 0; kk < k; ++kk)
        acc += double(a[i * lda + kk]) * w[kk * n + j];
      if (residual)
        acc += r[i * n + j];
      double want = reference(act, (float)acc);
      worst = std::max(worst, std::fabs(out[i * n + j] - want) / std::max(1.0, std::fabs(want)));
    }
  return worst;
}

class GemmKernelTest : public ::testing::TestWithParam<Isa> {};

/// The next-panel prefetch covers the whole next panel over a task's k
/// blocks (a panel's lines / blocks, rounded up), never more per block than
/// a block reads itself, and nothing where there is no k block.
TEST(GemmPrefetchTest, NextPanelLinesCoverThePanel) {
  const int64_t maxLines = 12; // 4 k steps of 192 bytes
  for (int64_t panelBytes : {64, 100, 192 * 3, 36864, 147456})
    for (int64_t tiles : {1, 2, 4, 16, 64})
      for (int64_t blocks : {0, 1, 3, 48, 96, 192}) {
        SCOPED_TRACE(std::to_string(panelBytes) + " B, " + std::to_string(tiles) + " tiles x " +
                     std::to_string(blocks) + " blocks");
        int lines = PanelGemmKernel::nextPanelPrefetchLines(panelBytes, tiles, blocks, maxLines);
        if (!blocks) {
          EXPECT_EQ(lines, 0);
          continue;
        }
        const int64_t panelLines = (panelBytes + 63) / 64;
        EXPECT_GE(lines, 1);
        EXPECT_LE(lines, maxLines);
        if (lines < maxLines) {
          EXPECT_GE(lines * tiles * blocks, panelLines);
        }
        if (lines > 1) {
          EXPECT_LT((lines - 1) * tiles * blocks, panelLines) << "more than the panel needs";
        }
      }
}

TEST_P(GemmKernelTest, AwkwardShapesMatchTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const int64_t sizes[] = {1, 3, 7, 16, 17, 64, 129, 384};
  uint32_t seed = 1;
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : sizes) {
        double err = runCase(isa, m, n, k, false, false, {}, seed++);
        // float accumulation over K <= 384 of products in [-1, 1]
        ASSERT_LT(err, 1e-4) << "M=" << m << " N=" << n << " K=" << k;
      }
}

TEST_P(GemmKernelTest, EpiloguesMatchTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  Activation::Kind kinds[] = {Activation::None,        Activation::Relu,
                              Activation::Clip,        Activation::Sigmoid,
                              Activation::Tanh,        Activation::Gelu,
                              Activation::GeluTanh,    Activation::HardSigmoid,
                              Activation::HardSwish,   Activation::Silu};
  uint32_t seed = 100;
  for (Activation::Kind kind : kinds)
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{17, 50, 33},
                           {8, 48, 384}, {1, 7, 3}, {129, 129, 64}})
      for (bool bias : {false, true})
        for (bool residual : {false, true}) {
          Activation act;
          act.kind = kind;
          act.min = -0.3f;
          act.max = 0.6f;
          // Both bounds of the hard sigmoid within the sums' range.
          act.alpha = 0.4f;
          act.beta = 0.5f;
          // Every other case with a post Mul and Add (paddle's affine block).
          if (seed % 2) {
            act.postMul = -1.25f;
            act.postAdd = 0.375f;
          }
          double err = runCase(isa, m, n, k, bias, residual, act, seed++);
          ASSERT_LT(err, 2e-5) << "activation " << kind << " M=" << m << " N=" << n
                               << " K=" << k << " bias " << bias << " residual " << residual;
        }
}

TEST_P(GemmKernelTest, ActivationsAreAccurateOverAWideRange) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  // K = 1 with W = 1: C = A, so the epilogue sees exactly the chosen values.
  const int64_t m = 1, n = 1000, k = 1;
  std::vector<float> a(1), w(n, 0.f), out(n);
  for (Activation::Kind kind : {Activation::Sigmoid, Activation::Tanh, Activation::Gelu,
                                Activation::GeluTanh, Activation::Silu}) {
    GemmConfig cfg;
    cfg.m = m;
    cfg.n = n;
    cfg.k = k;
    cfg.lda = k;
    cfg.ldc = n;
    cfg.ldr = n;
    cfg.bias = true;
    cfg.activation = withKind(kind);
    std::vector<float> bias(n);
    for (int64_t j = 0; j < n; ++j)
      bias[j] = -12.f + 24.f * j / (n - 1); // the epilogue input is the bias
    std::vector<float> pw = GemmKernel::packWeights(w.data(), k, n, isa);
    std::vector<float> pb = GemmKernel::packBias(bias.data(), n, isa);
    std::unique_ptr<JitKernel> kernel = GemmKernel::generate(cfg, isa);
    ASSERT_TRUE(kernel);
    const void *args[] = {a.data(), pw.data(), pb.data(), nullptr, out.data()};
    for (int64_t t = 0; t < GemmKernel::numPanels(n, isa); ++t)
      kernel->function()(args, t, 0);
    for (int64_t j = 0; j < n; ++j) {
      double want = reference(withKind(kind), bias[j]);
      EXPECT_NEAR(out[j], want, 1e-6 + 2e-6 * std::fabs(want))
          << "activation " << kind << " at x=" << bias[j];
    }
  }
}

TEST_P(GemmKernelTest, RowBiasAndBatchesOfIndependentProblems) {
  // The convolution form: A (weights) shared, W (packed im2col) and C per image.
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (auto [m, n, k, batch] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{9, 50, 27, 3},
                                {64, 3136, 64, 1}, {1, 7, 5, 2}, {17, 129, 9, 2}}) {
    std::vector<float> a(m * k), bias(m);
    for (float &x : a)
      x = dist(rng);
    for (float &x : bias)
      x = dist(rng);
    std::vector<std::vector<float>> w(batch), r(batch);
    std::vector<float> packed, residual, out(batch * m * n, -777.f);
    for (int64_t i = 0; i < batch; ++i) {
      w[i].resize(k * n);
      for (float &x : w[i])
        x = dist(rng);
      std::vector<float> p = GemmKernel::packWeights(w[i].data(), k, n, isa);
      packed.insert(packed.end(), p.begin(), p.end());
      r[i].resize(m * n);
      for (float &x : r[i])
        x = dist(rng);
      residual.insert(residual.end(), r[i].begin(), r[i].end());
    }
    GemmConfig cfg;
    cfg.m = m;
    cfg.n = n;
    cfg.k = k;
    cfg.lda = k;
    cfg.ldc = n;
    cfg.ldr = n;
    cfg.bias = true;
    cfg.rowBias = true;
    cfg.residual = true;
    cfg.activation.kind = Activation::Relu;
    cfg.batch = batch;
    cfg.wBatchStride = GemmKernel::numPanels(n, isa) * GemmKernel::panelWidth(isa) * k;
    cfg.cBatchStride = m * n;
    cfg.rBatchStride = m * n;
    std::unique_ptr<JitKernel> kernel = GemmKernel::generate(cfg, isa);
    ASSERT_TRUE(kernel);
    const void *args[] = {a.data(), packed.data(), bias.data(), residual.data(), out.data()};
    for (int64_t t = 0; t < GemmKernel::numTasks(cfg, isa); ++t)
      ASSERT_EQ(kernel->function()(args, t, 0), 0);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = bias[i] + r[b][i * n + j];
          for (int64_t kk = 0; kk < k; ++kk)
            acc += double(a[i * k + kk]) * w[b][kk * n + j];
          acc = std::max(acc, 0.0);
          ASSERT_NEAR(out[(b * m + i) * n + j], acc, 1e-4 * std::max(1.0, std::fabs(acc)))
              << "M=" << m << " N=" << n << " K=" << k << " image " << b;
        }
  }
}

/// The batched MatMul form (run-time operands): each item its own A (a
/// row stride larger than K too) and W, or a shared A (aBatchStride 0).
TEST_P(GemmKernelTest, BatchesWithTheirOwnA) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  for (auto [m, n, k, batch, sharedA] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t, bool>{7, 17, 5, 3, false},
        {1, 129, 64, 4, false}, {129, 7, 1, 2, false}, {17, 50, 33, 3, true},
        {256, 64, 256, 2, false}}) {
    const int64_t lda = k + (m % 2 ? 3 : 0);
    const int64_t aItems = sharedA ? 1 : batch;
    std::vector<float> a(aItems * m * lda), w(batch * k * n), packed;
    for (float &x : a)
      x = dist(rng);
    for (float &x : w)
      x = dist(rng);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<float> p = GemmKernel::packWeights(w.data() + b * k * n, k, n, isa);
      packed.insert(packed.end(), p.begin(), p.end());
    }
    std::vector<float> out(batch * m * n, -777.f);
    GemmConfig cfg;
    cfg.m = m;
    cfg.n = n;
    cfg.k = k;
    cfg.lda = lda;
    cfg.ldc = n;
    cfg.ldr = n;
    cfg.batch = batch;
    cfg.aBatchStride = sharedA ? 0 : m * lda;
    cfg.wBatchStride = GemmKernel::numPanels(n, isa) * GemmKernel::panelWidth(isa) * k;
    cfg.cBatchStride = m * n;
    std::unique_ptr<JitKernel> kernel = GemmKernel::generate(cfg, isa);
    ASSERT_TRUE(kernel);
    const void *args[] = {a.data(), packed.data(), nullptr, nullptr, out.data()};
    for (int64_t t = 0; t < GemmKernel::numTasks(cfg, isa); ++t)
      ASSERT_EQ(kernel->function()(args, t, 0), 0);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t kk = 0; kk < k; ++kk)
            acc += double(a[(sharedA ? 0 : b * m * lda) + i * lda + kk]) *
                   w[b * k * n + kk * n + j];
          ASSERT_NEAR(out[(b * m + i) * n + j], acc, 1e-4 * std::max(1.0, std::fabs(acc)))
              << "M=" << m << " N=" << n << " K=" << k << " item " << b;
        }
  }
}

/// kBlock: each output bit for bit MLAS's sgemm order (a chain of FMAs a
/// block from zero, the blocks' sums added in order; as the evaluator's
/// f32_product_k_block), with an activation and residual after; the plain
/// kernel's one chain over K differs (the blocks matter).
TEST_P(GemmKernelTest, KBlocksSumAsMlasSgemm) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  int64_t apartFromOneChain = 0;
  for (auto [m, n, k, block] :
       {std::tuple<int64_t, int64_t, int64_t, int64_t>{17, 129, 384, 128}, {1, 7, 300, 128},
        {9, 48, 129, 16}, {8, 50, 40, 7}, {3, 17, 64, 128}, {13, 33, 257, 256}}) {
    for (bool residual : {false, true}) {
      std::vector<float> a(m * k), w(k * n), r(m * n), out(m * n, -777.f), plain(m * n);
      for (auto *v : {&a, &w, &r})
        for (float &x : *v)
          x = dist(rng);
      GemmConfig cfg;
      cfg.m = m;
      cfg.n = n;
      cfg.k = k;
      cfg.lda = k;
      cfg.ldc = cfg.ldr = n;
      cfg.residual = residual;
      cfg.activation.kind = residual ? Activation::Relu : Activation::None;
      std::vector<float> pw = GemmKernel::packWeights(w.data(), k, n, isa);
      std::vector<float> pb(GemmKernel::numPanels(n, isa) * GemmKernel::panelWidth(isa), 0.f);
      auto run = [&](int64_t kBlock, std::vector<float> &c) {
        cfg.kBlock = kBlock;
        std::unique_ptr<JitKernel> kernel = GemmKernel::generate(cfg, isa);
        ASSERT_TRUE(kernel);
        const void *args[] = {a.data(), pw.data(), pb.data(), r.data(), c.data()};
        for (int64_t t = 0; t < GemmKernel::numPanels(n, isa); ++t)
          ASSERT_EQ(kernel->function()(args, t, 0), 0);
      };
      run(block, out);
      run(0, plain);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          float total = 0.f;
          for (int64_t k0 = 0; k0 < k; k0 += block) {
            float chain = 0.f;
            for (int64_t kk = k0; kk < std::min(k, k0 + block); ++kk)
              chain = std::fma(a[i * k + kk], w[kk * n + j], chain);
            total = k0 ? total + chain : chain;
          }
          if (residual)
            total = std::max(total + r[i * n + j], 0.f);
          ASSERT_EQ(out[i * n + j], total)
              << "M=" << m << " N=" << n << " K=" << k << " block " << block << " at " << i
              << ", " << j;
          apartFromOneChain += plain[i * n + j] != total;
        }
    }
  }
  EXPECT_GT(apartFromOneChain, 100);
  // A bias would start the first chain: not with blocks.
  GemmConfig biased;
  biased.m = biased.n = biased.k = biased.lda = biased.ldc = biased.ldr = 8;
  biased.bias = true;
  biased.kBlock = 4;
  EXPECT_FALSE(GemmKernel::generate(biased, isa));
}

INSTANTIATE_TEST_SUITE_P(Isas, GemmKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
