//===- ElementwiseKernelTest.cpp - xbyak elementwise vs the evaluator -----===//

#include "ElementwiseKernel.h"
#include "Kernels.h"
#include "TestSupport.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir::nunc;
using namespace mlir::nunc::x86;

namespace {

using nunc_test::hostHas;
using nunc_test::randomTensor;

/// Runs the kernel for `c` on a (and b) into a fresh output of `out` floats.
std::vector<float> runKernel(Isa isa, ElementwiseConfig c, llvm::ArrayRef<int64_t> outShape,
                             const Tensor &a, const Tensor *b, bool inPlace = false) {
  std::vector<int32_t> table =
      ElementwiseKernel::layout(c, outShape, a.shape(), b ? b->shape() : a.shape());
  std::unique_ptr<JitKernel> kernel = ElementwiseKernel::generate(c, isa);
  EXPECT_TRUE(kernel);
  int64_t n = 1;
  for (int64_t d : outShape)
    n *= d;
  std::vector<float> aCopy(a.as<float>(), a.as<float>() + a.numElements());
  std::vector<float> y(n + 1, -777.f);
  float *out = inPlace ? aCopy.data() : y.data();
  const void *bPtr = b ? static_cast<const void *>(b->raw()) : aCopy.data();
  const void *args[] = {aCopy.data(), bPtr, out, table.data()};
  for (int64_t t = 0; t < ElementwiseKernel::numTasks(c); ++t)
    EXPECT_EQ(kernel->function()(args, t, t), 0);
  EXPECT_EQ(y.back(), -777.f) << "wrote past the output";
  if (inPlace)
    return aCopy;
  y.pop_back();
  return y;
}

class ElementwiseKernelTest : public ::testing::TestWithParam<Isa> {};

TEST_P(ElementwiseKernelTest, BroadcastingBinaryOpsMatchTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(41);
  struct Shapes {
    std::vector<int64_t> a, b;
  };
  std::vector<Shapes> cases = {
      {{1, 128, 384}, {384}},      // bias row
      {{1, 128, 384}, {1, 128, 384}},
      {{2, 3, 4, 5}, {3, 1, 5}},   // several outer dims: row table
      {{4, 1}, {1, 3}},            // outer product
      {{17}, {}},                  // scalar operand
      {{}, {}},                    // rank 0
      {{9000}, {9000}},            // cut into rows plus a tail
      {{20000}, {1}},
      {{3, 1, 7}, {3, 5, 1}},
      {{2, 3, 4, 5}, {2, 1, 4, 1}},
      {{1}, {129}},
      {{2, 64, 7, 7}, {1, 64, 1, 1}}, // per-channel, NCHW
  };
  const std::pair<ElementwiseConfig::Op, kernels::BinaryKind> ops[] = {
      {ElementwiseConfig::Add, kernels::BinaryKind::Add},
      {ElementwiseConfig::Sub, kernels::BinaryKind::Sub},
      {ElementwiseConfig::Mul, kernels::BinaryKind::Mul},
      {ElementwiseConfig::Div, kernels::BinaryKind::Div}};
  for (const Shapes &s : cases)
    for (bool swap : {false, true})
      for (auto [op, kind] : ops) {
        Tensor a = randomTensor(rng, swap ? s.b : s.a, -2.f, 2.f);
        Tensor b = randomTensor(rng, swap ? s.a : s.b, 0.5f, 2.f); // no division by ~0
        llvm::Expected<Tensor> want = kernels::binary(kind, a, b);
        ASSERT_TRUE(static_cast<bool>(want));
        ElementwiseConfig c;
        c.op = op;
        c.inputs = 2;
        std::vector<float> y = runKernel(isa, c, want->shape(), a, &b);
        ASSERT_EQ(y.size(), size_t(want->numElements()));
        for (int64_t i = 0; i < want->numElements(); ++i)
          ASSERT_NEAR(y[i], want->as<float>()[i], 1e-6f * std::fabs(want->as<float>()[i]))
              << "op " << op << " case " << (&s - cases.data()) << (swap ? " swapped" : "")
              << " at " << i;
      }
}

TEST_P(ElementwiseKernelTest, InPlaceOverTheFirstOperand) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(42);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{1, 128, 384}, {9000}, {2, 3, 4, 5}}) {
    Tensor a = randomTensor(rng, shape, -2.f, 2.f);
    Tensor b = randomTensor(rng, {shape.back()}, -2.f, 2.f);
    llvm::Expected<Tensor> want = kernels::binary(kernels::BinaryKind::Add, a, b);
    ASSERT_TRUE(static_cast<bool>(want));
    ElementwiseConfig c;
    std::vector<float> y = runKernel(isa, c, shape, a, &b, /*inPlace=*/true);
    for (int64_t i = 0; i < want->numElements(); ++i)
      ASSERT_FLOAT_EQ(y[i], want->as<float>()[i]) << i;
  }
}

TEST_P(ElementwiseKernelTest, UnaryOpsMatchTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(43);
  struct Unary {
    ElementwiseConfig::Op op;
    const char *activation;
    kernels::UnaryKind kind;
    float tolerance; // absolute, on values of magnitude <= ~6
  };
  const Unary ops[] = {
      {ElementwiseConfig::Sqrt, "none", kernels::UnaryKind::Sqrt, 1e-6f},
      {ElementwiseConfig::Erf, "none", kernels::UnaryKind::Erf, 1e-6f},
      {ElementwiseConfig::Activate, "relu", kernels::UnaryKind::Relu, 0.f},
      {ElementwiseConfig::Activate, "sigmoid", kernels::UnaryKind::Sigmoid, 1e-6f},
      {ElementwiseConfig::Activate, "tanh", kernels::UnaryKind::Tanh, 2e-6f},
      {ElementwiseConfig::Activate, "gelu", kernels::UnaryKind::GeluErf, 4e-6f},
      {ElementwiseConfig::Activate, "gelu_tanh", kernels::UnaryKind::GeluTanh, 4e-6f}};
  for (const Unary &u : ops)
    for (std::vector<int64_t> shape : {std::vector<int64_t>{1}, {17}, {129}, {3, 7}, {9000}}) {
      bool sqrt = u.op == ElementwiseConfig::Sqrt;
      Tensor a = randomTensor(rng, shape, sqrt ? 0.f : -6.f, 6.f);
      llvm::Expected<Tensor> want = kernels::unary(u.kind, a);
      ASSERT_TRUE(static_cast<bool>(want));
      ElementwiseConfig c;
      c.op = u.op;
      c.inputs = 1;
      c.activation = Activation::fromName(u.activation, 0, 0);
      std::vector<float> y = runKernel(isa, c, shape, a, nullptr);
      for (int64_t i = 0; i < want->numElements(); ++i)
        ASSERT_NEAR(y[i], want->as<float>()[i], u.tolerance) << u.activation << " at " << i;
    }
}

/// LeakyRelu equals the evaluator bit for bit (alpha x rounded once where
/// x < 0, x elsewhere), for alphas below, at and above 1 and negative; NaN
/// stays NaN (its min with 0 once gave 0) and infinities keep their sign.
TEST_P(ElementwiseKernelTest, LeakyReluMatchesTheReferenceExactly) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(44);
  const float special[] = {std::nanf(""), INFINITY, -INFINITY, -std::nanf("")};
  for (float alpha : {0.01f, 0.1f, 1.f, 2.5f, -0.3f})
    for (std::vector<int64_t> shape : {std::vector<int64_t>{1}, {17}, {129}, {3, 7}, {9000}}) {
      Tensor a = randomTensor(rng, shape, -6.f, 6.f);
      for (int64_t i = 0; i < a.numElements(); i += 5)
        a.mutableAs<float>()[i] = special[(i / 5) % 4];
      llvm::Expected<Tensor> want = kernels::leakyRelu(a, alpha);
      ASSERT_TRUE(static_cast<bool>(want));
      ElementwiseConfig c;
      c.op = ElementwiseConfig::Activate;
      c.inputs = 1;
      c.activation.kind = Activation::LeakyRelu;
      c.activation.alpha = alpha;
      std::vector<float> y = runKernel(isa, c, shape, a, nullptr);
      for (int64_t i = 0; i < want->numElements(); ++i) {
        float w = want->as<float>()[i];
        if (std::isnan(w))
          ASSERT_TRUE(std::isnan(y[i])) << "alpha " << alpha << " at " << i << ": " << y[i];
        else
          ASSERT_EQ(y[i], w) << "alpha " << alpha << " at " << i;
      }
    }
}

/// Erf and GELU keep NaN (ONNX: NaN in, NaN out); erf saturates at +-inf.
/// Their argument clamp once turned NaN into erf = 1.
TEST_P(ElementwiseKernelTest, ErfAndGeluPropagateNaN) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const float nan = std::nanf(""), inf = INFINITY;
  std::vector<float> values = {nan, 1.f, -nan, inf, -inf, 0.5f, nan, -2.f, 3.f, nan,
                               7.f, -7.f, nan, 0.f, -0.f, 2.5f, nan};
  Tensor a = cantFail(Tensor::fromValues<float>(DType::F32, {17}, values));
  for (const char *op : {"erf", "gelu"}) {
    ElementwiseConfig c;
    c.op = std::string(op) == "erf" ? ElementwiseConfig::Erf : ElementwiseConfig::Activate;
    c.inputs = 1;
    c.activation = Activation::fromName(std::string(op) == "erf" ? "none" : op, 0, 0);
    std::vector<float> y = runKernel(isa, c, {17}, a, nullptr);
    for (size_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i])) {
        EXPECT_TRUE(std::isnan(y[i])) << op << " at " << i << ": " << y[i];
        continue;
      }
      if (std::string(op) == "erf") {
        EXPECT_NEAR(y[i], std::erf(values[i]), 1e-6f) << op << " at " << i;
      } else if (!std::isinf(values[i])) { // GELU(-inf) is -inf * 0
        float want = 0.5f * values[i] * (1 + std::erf(values[i] / std::sqrt(2.f)));
        EXPECT_NEAR(y[i], want, 1e-5f) << op << " at " << i;
      }
    }
  }
}

/// Clip keeps NaN (ONNX and onnxruntime: NaN in, NaN out) and clamps the
/// rest, infinities included; maxps/minps once returned the bound for NaN.
TEST_P(ElementwiseKernelTest, ClipPropagatesNaN) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const float nan = std::nanf(""), inf = INFINITY;
  std::vector<float> values = {nan, 1.5f, -2.f, 0.3f, inf, -inf, nan, 0.f, -0.f, 7.f,
                               -nan, 0.99f, 0.01f, nan, -0.5f, 2.f, nan};
  Tensor a = cantFail(Tensor::fromValues<float>(DType::F32, {17}, values));
  ElementwiseConfig c;
  c.op = ElementwiseConfig::Activate;
  c.inputs = 1;
  c.activation = Activation::fromName("clip", 0.f, 1.f);
  std::vector<float> y = runKernel(isa, c, {17}, a, nullptr);
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i]))
      EXPECT_TRUE(std::isnan(y[i])) << "at " << i << ": " << y[i];
    else
      EXPECT_EQ(y[i], std::min(std::max(values[i], 0.f), 1.f)) << "at " << i;
  }
}

/// HardSigmoid and HardSwish equal the evaluator bit for bit (alpha x and
/// + beta rounded apart, as ONNX spells them), on both sides of both bounds,
/// with NaN kept, for ONNX's defaults and paddle's 1/6, 1/2.
TEST_P(ElementwiseKernelTest, HardSigmoidAndHardSwishMatchTheReferenceExactly) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(45);
  const float nan = std::nanf("");
  for (auto [alpha, beta] : {std::pair(0.2f, 0.5f), std::pair(1.f / 6.f, 0.5f),
                             std::pair(-0.7f, 0.25f)})
    for (bool swish : {false, true})
      for (std::vector<int64_t> shape : {std::vector<int64_t>{1}, {17}, {129}, {3, 7}, {9000}}) {
        Tensor a = randomTensor(rng, shape, -8.f, 8.f);
        float *v = a.mutableAs<float>();
        v[0] = nan;
        if (a.numElements() > 3) {
          v[1] = -beta / alpha; // exactly at the lower bound where it lands
          v[2] = INFINITY;
          v[3] = -0.f;
        }
        llvm::Expected<Tensor> want = kernels::hardSigmoid(a, alpha, beta, swish);
        ASSERT_TRUE(static_cast<bool>(want));
        ElementwiseConfig c;
        c.op = ElementwiseConfig::Activate;
        c.inputs = 1;
        c.activation.kind = swish ? Activation::HardSwish : Activation::HardSigmoid;
        c.activation.alpha = alpha;
        c.activation.beta = beta;
        std::vector<float> y = runKernel(isa, c, shape, a, nullptr);
        for (int64_t i = 0; i < want->numElements(); ++i) {
          float w = want->as<float>()[i];
          if (std::isnan(w))
            ASSERT_TRUE(std::isnan(y[i])) << (swish ? "hard_swish" : "hard_sigmoid") << " at " << i;
          else
            ASSERT_EQ(y[i], w) << (swish ? "hard_swish" : "hard_sigmoid") << " alpha " << alpha
                               << " at " << i << " x=" << v[i];
        }
      }
}

/// SiLU is x times the kernels' sigmoid: within the sigmoid's error times
/// |x| of the evaluator, NaN kept, over [-20, 20] and odd lengths.
TEST_P(ElementwiseKernelTest, SiluMatchesTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(46);
  for (std::vector<int64_t> shape : {std::vector<int64_t>{1}, {17}, {129}, {3, 7}, {9000}}) {
    Tensor a = randomTensor(rng, shape, -20.f, 20.f);
    a.mutableAs<float>()[0] = std::nanf("");
    llvm::Expected<Tensor> want = kernels::silu(a);
    ASSERT_TRUE(static_cast<bool>(want));
    ElementwiseConfig c;
    c.op = ElementwiseConfig::Activate;
    c.inputs = 1;
    c.activation.kind = Activation::Silu;
    std::vector<float> y = runKernel(isa, c, shape, a, nullptr);
    ASSERT_TRUE(std::isnan(y[0]));
    for (int64_t i = 1; i < want->numElements(); ++i) {
      float w = want->as<float>()[i];
      ASSERT_NEAR(y[i], w, 1e-6f * std::max(1.f, std::fabs(a.as<float>()[i]))) << "at " << i;
    }
  }
}

/// Sigmoid, SiLU and the tanh form of GELU at large magnitudes: e^x
/// overflows to inf past ln(FLT_MAX) as in double, so sigmoid(x) for x far
/// below 0 is 0 and SiLU and GELU are -0 (the exponential's clamp once left
/// sigmoid at 4e-39: SiLU(-1e38) was -0.42); -inf gives NaN (-inf x 0, as
/// onnxruntime's x * sigmoid(x)), NaN stays NaN.
TEST_P(ElementwiseKernelTest, SigmoidFormsAtLargeMagnitudes) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const float inf = INFINITY;
  std::vector<float> values = {-1e38f, -1e34f, -200.f, -100.f, -88.8f, -88.6f, -87.5f, -86.f,
                               -20.f, 0.f,     20.f,   86.f,   88.6f,  88.8f,  100.f,  1e34f,
                               inf,   -inf,    std::nanf("")};
  Tensor a = cantFail(Tensor::fromValues<float>(DType::F32, {19}, values));
  for (Activation::Kind kind : {Activation::Sigmoid, Activation::Silu, Activation::GeluTanh}) {
    ElementwiseConfig c;
    c.op = ElementwiseConfig::Activate;
    c.inputs = 1;
    c.activation.kind = kind;
    std::vector<float> y = runKernel(isa, c, {19}, a, nullptr);
    for (size_t i = 0; i < values.size(); ++i) {
      const double x = values[i];
      double want = kind == Activation::Sigmoid ? 1 / (1 + std::exp(-x))
                    : kind == Activation::Silu
                        ? x / (1 + std::exp(-x))
                        : x / (1 + std::exp(-2 * 0.7978845608028654 * (x + 0.044715 * x * x * x)));
      if (std::isnan(x) || (x == -inf && kind != Activation::Sigmoid))
        want = NAN;
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(y[i])) << kind << " at x = " << x << ": " << y[i];
        continue;
      }
      if (std::isinf(want)) {
        EXPECT_EQ(y[i], want) << kind << " at x = " << x;
        continue;
      }
      // Relative 1e-6, and 1e-35 absolute: x e^x below x = -88.7, where e^x
      // leaves the normal floats, is at most that.
      EXPECT_NEAR(y[i], want, 1e-6 * std::fabs(want) + 1e-35) << kind << " at x = " << x;
      if (x < -100)
        EXPECT_EQ(y[i], 0.f) << kind << " at x = " << x;
    }
  }
}

/// tanh against double precision from 1e-9 to past its clamp, both signs,
/// on non-multiples of the vector width: within 4e-7 relative everywhere,
/// tiny inputs included (2 sigmoid(2x) - 1 cancelled there: 100 % off
/// below 1e-5, 0.6 % at 1e-3); NaN stays NaN, +-inf gives +-1 within it.
TEST_P(ElementwiseKernelTest, TanhIsRelativelyAccurateNearZero) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  for (int64_t n : {1, 7, 17, 129, 4001}) {
    Tensor a = llvm::cantFail(Tensor::create(DType::F32, {n}));
    float *v = a.mutableAs<float>();
    for (int64_t i = 0; i < n; ++i) // 1e-9 .. 20, alternating signs
      v[i] = static_cast<float>((i % 2 ? -1 : 1) *
                                std::pow(10.0, -9.0 + 10.3 * i / std::max<int64_t>(n - 1, 1)));
    if (n >= 7) {
      v[1] = std::nanf("");
      v[2] = std::numeric_limits<float>::infinity();
      v[3] = -std::numeric_limits<float>::infinity();
    }
    ElementwiseConfig c;
    c.op = ElementwiseConfig::Activate;
    c.inputs = 1;
    c.activation.kind = Activation::Tanh;
    std::vector<float> y = runKernel(isa, c, {n}, a, nullptr);
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(v[i])) {
        ASSERT_TRUE(std::isnan(y[i])) << "at " << i;
        continue;
      }
      double want = std::tanh(static_cast<double>(v[i]));
      ASSERT_NEAR(y[i], want, 4e-7 * std::fabs(want)) << "tanh(" << v[i] << ")";
    }
  }
}

/// GELU against double precision at every interval edge of the AVX-512
/// table (32 per 4 sqrt 2; t = |x| 4 sqrt 2 crossing an integer), just
/// beside them, midway, past the clamp (GELU(-1e30) is 0, not x times a
/// rounding error), and densely over [-9, 9]: within 4e-7 absolute, or
/// relative above 1 (the rational the AVX2 code uses: 1.2e-6).
TEST_P(ElementwiseKernelTest, GeluIsAccurateAcrossItsIntervals) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  const float width = 4 * std::sqrt(2.f) / 32;
  std::vector<float> values;
  for (int k = 0; k <= 40; ++k)
    for (float at : {float(k) * width, (k + 0.5f) * width}) {
      for (float v : {at, std::nextafter(at, 0.f), std::nextafter(at, 100.f)}) {
        values.push_back(v);
        values.push_back(-v);
      }
    }
  for (int i = 0; i <= 18000; ++i)
    values.push_back(-9.f + i * 1e-3f);
  for (float v : {1e-30f, -1e-30f, 1e-8f, -1e-8f, 30.f, -30.f, -1e4f, 1e30f, -1e30f})
    values.push_back(v);
  const int64_t n = static_cast<int64_t>(values.size());
  Tensor a = cantFail(Tensor::fromValues<float>(DType::F32, {n}, values));
  ElementwiseConfig c;
  c.op = ElementwiseConfig::Activate;
  c.inputs = 1;
  c.activation = Activation::fromName("gelu", 0, 0);
  std::vector<float> y = runKernel(isa, c, {n}, a, nullptr);
  const double tolerance = isa == Isa::Avx512 ? 4e-7 : 1.2e-6;
  for (int64_t i = 0; i < n; ++i) {
    double x = values[i], want = 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    ASSERT_NEAR(y[i], want, tolerance * std::max(1.0, std::fabs(want))) << "x = " << x;
  }
}

TEST_P(ElementwiseKernelTest, FakeQuantizeEqualsQuantizeThenDequantize) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(44);
  // {scale, zero point, qmin, qmax}: u8, s8 with a zero point, s16.
  const float grids[][4] = {{1.f / 128, 100, 0, 255}, {3.f / 128, -3, -128, 127},
                            {0.0371f, 0, -32768, 32767}};
  for (const auto &g : grids)
    for (std::vector<int64_t> shape : {std::vector<int64_t>{1}, {7}, {17}, {129}, {3, 7}, {9000}}) {
      Tensor a = randomTensor(rng, shape, -4.f, 4.f);
      // Every other element a tie of the grid (x / scale = k + 1/2).
      float *x = a.mutableAs<float>();
      for (int64_t i = 0; i < a.numElements(); i += 2)
        x[i] = (std::floor(x[i] / g[0]) + 0.5f) * g[0];
      // Quotients that round to -0 (and -0 itself): the result is +0.
      for (int64_t i = 1; i < a.numElements(); i += 5)
        x[i] = i % 3 ? -0.3f * g[0] : -0.f;
      llvm::Expected<Tensor> want = kernels::fakeQuantize(a, g[0], g[1], g[2], g[3]);
      ASSERT_TRUE(static_cast<bool>(want));
      ElementwiseConfig c;
      c.op = ElementwiseConfig::Activate;
      c.inputs = 1;
      c.activation = Activation::fakeQuant(g[0], g[2] - g[1], g[3] - g[1]);
      for (bool inPlace : {false, true}) {
        std::vector<float> y = runKernel(isa, c, shape, a, nullptr, inPlace);
        for (int64_t i = 0; i < want->numElements(); ++i)
          ASSERT_EQ(nunc_test::bits(y[i]), nunc_test::bits(want->as<float>()[i]))
              << "scale " << g[0] << " x " << x[i] << " -> " << y[i] << " at " << i;
      }
    }
}

/// GELU with a QDQ model's grids after erf, the Add of 1 and the Mul by x:
/// the kernel's erf (within 3.4e-7) may put a value at a tie of the erf
/// grid on the neighbouring point, so almost every value equals the
/// reference and none is more than half a product step off.
TEST_P(ElementwiseKernelTest, GeluWithGridsMatchesTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(45);
  const float erfStep = 2.f / 255, sumStep = 2.f / 255, productStep = 0.05f;
  kernels::GeluGrids grids{kernels::Grid{erfStep, 128, 0, 255}, kernels::Grid{sumStep, 0, 0, 255},
                           kernels::Grid{productStep, 30, 0, 255}};
  ElementwiseConfig c;
  c.op = ElementwiseConfig::Activate;
  c.inputs = 1;
  c.activation = Activation::fromName("gelu", 0, 0);
  c.activation.erfGrid = {erfStep, -128, 127};
  c.activation.sumGrid = {sumStep, 0, 255};
  c.activation.productGrid = {productStep, -30, 225};
  for (std::vector<int64_t> shape : {std::vector<int64_t>{1}, {7}, {17}, {129}, {3, 7}, {9000}}) {
    Tensor a = randomTensor(rng, shape, -6.f, 6.f);
    llvm::Expected<Tensor> want = kernels::geluOnGrids(a, grids);
    ASSERT_TRUE(static_cast<bool>(want));
    std::vector<float> y = runKernel(isa, c, shape, a, nullptr);
    int64_t equal = 0;
    for (int64_t i = 0; i < want->numElements(); ++i) {
      ASSERT_LE(std::fabs(y[i] - want->as<float>()[i]), productStep / 2 * 1.0001f) << "at " << i;
      equal += y[i] == want->as<float>()[i];
    }
    EXPECT_GE(equal, want->numElements() * 0.99) << want->numElements() << " values";
    // AVX-512 runs a long row's vectors four at a time, step by step
    // (emitGeluOnGrids); rows of 9 take them one by one: the same values.
    if (a.numElements() == 9000) {
      std::vector<float> oneByOne = runKernel(isa, c, {1000, 9}, a.reshaped({1000, 9}), nullptr);
      for (int64_t i = 0; i < a.numElements(); ++i)
        ASSERT_EQ(y[i], oneByOne[i]) << "at " << i;
    }
  }
}

TEST_P(ElementwiseKernelTest, FakeQuantizeDividesExactlyForAnyScale) {
  // The kernel forms x / scale from a reciprocal and an FMA correction;
  // it must round like the division on every scale and value: ties of the
  // grid and the floats next to them, magnitudes far off the grid,
  // infinities.
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(46);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (int trial = 0; trial < 60; ++trial) {
    float scale = std::pow(10.f, -5.f + 7.f * unit(rng));
    int64_t zp = static_cast<int64_t>(unit(rng) * 255.f);
    std::vector<double> v;
    for (int i = 0; i < 400; ++i) {
      float k = std::floor((unit(rng) - 0.5f) * 600.f);
      float tie = (k + 0.5f) * scale;
      v.push_back(tie);
      v.push_back(std::nextafter(tie, INFINITY));
      v.push_back(std::nextafter(tie, -INFINITY));
      float mag = std::pow(10.f, -30.f + 60.f * unit(rng));
      v.push_back(unit(rng) < 0.5f ? mag : -mag);
    }
    for (double x : {0.0, -0.0, double(INFINITY), double(-INFINITY), 3e38, -3e38})
      v.push_back(x);
    Tensor a = nunc_test::makeTensor(DType::F32, {static_cast<int64_t>(v.size())}, v);
    ElementwiseConfig c;
    c.op = ElementwiseConfig::Activate;
    c.inputs = 1;
    c.activation = Activation::fakeQuant(scale, float(0 - zp), float(255 - zp));
    std::vector<float> y = runKernel(isa, c, a.shape(), a, nullptr);
    for (int64_t i = 0; i < a.numElements(); ++i) {
      float x = a.as<float>()[i];
      ASSERT_EQ(y[i], kernels::fakeQuantizeValue(x, scale, zp, 0, 255))
          << "scale " << scale << " zero point " << zp << " x " << x;
    }
  }
}

TEST_P(ElementwiseKernelTest, BatchNormAffineWithGridsMatchesAPlainReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(45);
  // NCHW-like shapes: channels per row (1 or several images: row step or
  // row table), channels innermost (H = W = 1), one channel, long rows.
  const std::vector<int64_t> shapes[] = {{1, 3, 7},    {2, 5, 17},     {1, 4, 129},
                                         {2, 3, 1, 1}, {1, 16, 3, 3},  {3, 1, 9000},
                                         {1, 7},       {2, 2, 4, 33}};
  const float gridA[4] = {3.f / 64, 118, 0, 255}, gridB[4] = {1.f / 32, 0, 0, 255};
  for (const std::vector<int64_t> &shape : shapes) {
    int64_t channels = shape[1], inner = 1;
    for (size_t d = 2; d < shape.size(); ++d)
      inner *= shape[d];
    Tensor x = randomTensor(rng, shape, -3.f, 5.f);
    std::vector<float> params(2 * channels);
    std::uniform_real_distribution<float> dist(-1.5f, 1.5f);
    for (float &p : params)
      p = dist(rng);
    for (bool grids : {false, true}) {
      ElementwiseConfig c;
      c.op = ElementwiseConfig::Affine;
      c.inputs = 2;
      c.affineShift = channels;
      if (grids) {
        c.before = Activation::fakeQuant(gridA[0], gridA[2] - gridA[1], gridA[3] - gridA[1]);
        c.after = Activation::fakeQuant(gridB[0], gridB[2] - gridB[1], gridB[3] - gridB[1]);
      }
      std::vector<int64_t> perChannel(shape.size() - 1, 1);
      perChannel[0] = channels;
      std::vector<float> y;
      {
        std::vector<int32_t> table = ElementwiseKernel::layout(c, shape, shape, perChannel);
        std::unique_ptr<JitKernel> kernel = ElementwiseKernel::generate(c, isa);
        ASSERT_TRUE(kernel);
        std::vector<float> in(x.as<float>(), x.as<float>() + x.numElements());
        y.assign(in.size() + 1, -777.f);
        // params: the scales, then the shifts (affineShift after).
        const void *args[] = {in.data(), params.data(), y.data(), table.data()};
        for (int64_t t = 0; t < ElementwiseKernel::numTasks(c); ++t)
          ASSERT_EQ(kernel->function()(args, t, t), 0);
        ASSERT_EQ(y.back(), -777.f) << "wrote past the output";
      }
      for (int64_t i = 0; i < x.numElements(); ++i) {
        int64_t ch = (i / inner) % channels;
        float v = x.as<float>()[i];
        if (grids)
          v = kernels::fakeQuantizeValue(v, gridA[0], gridA[1], gridA[2], gridA[3]);
        const float product = v * params[ch]; // rounded, then the sum
        v = product + params[channels + ch];
        if (grids)
          v = kernels::fakeQuantizeValue(v, gridB[0], gridB[1], gridB[2], gridB[3]);
        ASSERT_EQ(y[i], v) << "shape [" << shape[0] << "," << shape[1] << ",...] at " << i
                           << (grids ? " with grids" : "");
      }
    }
  }
}

/// A QDQ model's grid after an Add/Sub/Mul/Div (nunc-fuse-elementwise-
/// quantization's output_quantization): the op, then the rounding to the
/// grid, on broadcasting shapes with rows cut at awkward lengths, the
/// grid's ties and both clamps reached.
TEST_P(ElementwiseKernelTest, BinaryOpsWithAnOutputGridMatchTheReference) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(47);
  struct Shapes {
    std::vector<int64_t> a, b;
  };
  const std::vector<Shapes> cases = {{{1, 7}, {7}},        {{2, 3, 17}, {3, 1}},
                                     {{129}, {}},          {{1, 16, 3, 3}, {1, 16, 1, 1}},
                                     {{3, 1, 9000}, {1}},  {{4, 1}, {1, 33}}};
  const float grid[4] = {1.f / 16, 37, 0, 255}; // steps of 1/16, clamps at -2.3125 and 13.625
  const std::pair<ElementwiseConfig::Op, kernels::BinaryKind> ops[] = {
      {ElementwiseConfig::Add, kernels::BinaryKind::Add},
      {ElementwiseConfig::Sub, kernels::BinaryKind::Sub},
      {ElementwiseConfig::Mul, kernels::BinaryKind::Mul},
      {ElementwiseConfig::Div, kernels::BinaryKind::Div}};
  for (const Shapes &s : cases)
    for (auto [op, kind] : ops) {
      Tensor a = randomTensor(rng, s.a, -6.f, 16.f);
      Tensor b = randomTensor(rng, s.b, 0.25f, 2.f);
      // Every third element of a on a tie of the grid after the op with b = 1.
      for (int64_t i = 0; i < a.numElements(); i += 3)
        a.mutableAs<float>()[i] = (std::floor(a.as<float>()[i] * 16) + 0.5f) / 16;
      a.mutableAs<float>()[1] = -50.f; // past both clamps, whatever the op and b
      a.mutableAs<float>()[2] = 100.f;
      llvm::Expected<Tensor> plain = kernels::binary(kind, a, b);
      ASSERT_TRUE(static_cast<bool>(plain));
      ElementwiseConfig c;
      c.op = op;
      c.inputs = 2;
      c.after = Activation::fakeQuant(grid[0], grid[2] - grid[1], grid[3] - grid[1]);
      std::vector<float> y = runKernel(isa, c, plain->shape(), a, &b);
      ASSERT_EQ(y.size(), size_t(plain->numElements()));
      bool low = false, high = false;
      for (int64_t i = 0; i < plain->numElements(); ++i) {
        float want =
            kernels::fakeQuantizeValue(plain->as<float>()[i], grid[0], grid[1], grid[2], grid[3]);
        low |= want == (grid[2] - grid[1]) * grid[0];
        high |= want == (grid[3] - grid[1]) * grid[0];
        ASSERT_EQ(y[i], want) << "op " << op << " case " << (&s - cases.data()) << " at " << i;
      }
      EXPECT_TRUE(low && high) << "op " << op << " case " << (&s - cases.data())
                               << ": both clamps of the grid";
    }
}

/// A QDQ model's Add between pairs as onnxruntime's QLinearAdd computes it
/// (nunc.add's lhs_quantization and rhs_quantization): the operands' codes
/// qa, qb on their grids, q = clamp(round(fma(qa, rA, fma(qb, rB, F)))),
/// rA = fl(sA / sC), rB = fl(sB / sC), F = fl(zC - fma(rA, zA, fl(rB zB))),
/// written as (q - zC) sC; in u8 codes and in the s8 codes of the same grids
/// (signed_codes). And a Mul as its QLinearMul computes it (nunc.mul's):
/// q = clamp(round(fl(fl(fl((qa - zA)(qb - zB)) r) + zC))), r = fl(fl(sA sB)
/// / sC). Operands on their grids, off them (rounded to them first) and
/// past their ends; broadcasting shapes, rows cut at awkward lengths. The
/// evaluator (kernels::addCodes, kernels::mulCodes) gives the same bits.
TEST_P(ElementwiseKernelTest, AddsAndMultipliesCodesAsQLinearOps) {
  Isa isa = GetParam();
  if (!hostHas(isa))
    GTEST_SKIP() << "the host lacks this ISA";
  std::mt19937 rng(53);
  struct Shapes {
    std::vector<int64_t> a, b;
  };
  const std::vector<Shapes> cases = {{{1, 7}, {7}},       {{2, 3, 17}, {3, 1}},
                                     {{129}, {}},         {{1, 16, 3, 3}, {1, 16, 1, 1}},
                                     {{3, 1, 9000}, {1}}, {{4, 1}, {1, 33}}};
  // {scale, zero point} of a, b and the sum (u8 codes).
  const float gridA[2] = {0.05f, 130}, gridB[2] = {0.0375f, 119}, gridC[2] = {0.0557f, 128};
  std::uniform_int_distribution<int> code(0, 255);
  auto onGrid = [&](Tensor &t, const float *g) {
    float *v = t.mutableAs<float>();
    for (int64_t i = 0; i < t.numElements(); ++i)
      v[i] = static_cast<float>(code(rng) - static_cast<int>(g[1])) * g[0];
  };
  bool low[2] = {false, false}, high[2] = {false, false};
  for (const Shapes &s : cases)
    for (int variant = 0; variant < 4; ++variant) {
      const bool signedCodes = variant & 1, mul = variant & 2;
      SCOPED_TRACE("case " + std::to_string(&s - cases.data()) +
                   (signedCodes ? ", s8 codes" : ", u8 codes") + (mul ? ", mul" : ", add"));
      Tensor a = randomTensor(rng, s.a, 0.f, 1.f), b = randomTensor(rng, s.b, 0.f, 1.f);
      onGrid(a, gridA);
      onGrid(b, gridB);
      // Off the grid (rounded to it), past both ends.
      if (a.numElements() > 3) {
        a.mutableAs<float>()[1] = 0.3333f;
        a.mutableAs<float>()[2] = -9.f;
        a.mutableAs<float>()[3] = 9.f;
      }
      const float shift = signedCodes ? 128.f : 0.f;
      const float zA = gridA[1] - shift, zB = gridB[1] - shift, zC = gridC[1] - shift;
      const float lo = 0.f - shift, hi = 255.f - shift;
      const float rA = gridA[0] / gridC[0], rB = gridB[0] / gridC[0];
      // (QLinearAdd's constant: zC - (rA zA + rB zB) with rA zA fused.)
      const float fixed = zC - std::fma(rA, zA, rB * zB);
      const float ratio = gridA[0] * gridB[0] / gridC[0];
      ElementwiseConfig c;
      c.op = mul ? ElementwiseConfig::Mul : ElementwiseConfig::Add;
      c.inputs = 2;
      c.codes = ElementwiseConfig::Codes{gridA[0], zA, gridB[0], zB, mul ? ratio : rA,
                                         mul ? 0.f : rB, mul ? 0.f : fixed, gridC[0], zC, lo,
                                         hi, lo, hi, lo, hi};
      llvm::Expected<Tensor> shape = kernels::binary(kernels::BinaryKind::Add, a, b);
      ASSERT_TRUE(static_cast<bool>(shape));
      std::vector<float> y = runKernel(isa, c, shape->shape(), a, &b);
      llvm::Expected<Tensor> evaluated = (mul ? kernels::mulCodes : kernels::addCodes)(
          a, b, kernels::Grid{gridA[0], int64_t(zA), int64_t(lo), int64_t(hi)},
          kernels::Grid{gridB[0], int64_t(zB), int64_t(lo), int64_t(hi)},
          kernels::Grid{gridC[0], int64_t(zC), int64_t(lo), int64_t(hi)});
      ASSERT_TRUE(static_cast<bool>(evaluated));
      // The operands broadcast as the plain sum's do: index them through it.
      std::vector<int64_t> aIndex(shape->numElements()), bIndex(shape->numElements());
      {
        Tensor ai = llvm::cantFail(Tensor::create(DType::F32, a.shape())),
               bi = llvm::cantFail(Tensor::create(DType::F32, b.shape()));
        for (int64_t i = 0; i < a.numElements(); ++i)
          ai.mutableAs<float>()[i] = static_cast<float>(i);
        for (int64_t i = 0; i < b.numElements(); ++i)
          bi.mutableAs<float>()[i] = 0.f;
        llvm::Expected<Tensor> ia = kernels::binary(kernels::BinaryKind::Add, ai, bi);
        for (int64_t i = 0; i < b.numElements(); ++i)
          bi.mutableAs<float>()[i] = static_cast<float>(i);
        for (int64_t i = 0; i < a.numElements(); ++i)
          ai.mutableAs<float>()[i] = 0.f;
        llvm::Expected<Tensor> ib = kernels::binary(kernels::BinaryKind::Add, ai, bi);
        ASSERT_TRUE(ia && ib);
        for (int64_t i = 0; i < shape->numElements(); ++i) {
          aIndex[i] = static_cast<int64_t>(ia->as<float>()[i]);
          bIndex[i] = static_cast<int64_t>(ib->as<float>()[i]);
        }
      }
      for (int64_t i = 0; i < shape->numElements(); ++i) {
        const float va = a.as<float>()[aIndex[i]], vb = b.as<float>()[bIndex[i]];
        const float qa = std::clamp(std::nearbyint(va / gridA[0]) + zA, lo, hi);
        const float qb = std::clamp(std::nearbyint(vb / gridB[0]) + zB, lo, hi);
        // (Each step rounded to f32: no contraction in a baseline x86-64 build.)
        const float product = (qa - zA) * (qb - zB), scaled = product * ratio;
        const float q =
            mul ? std::clamp(std::nearbyint(scaled + zC), lo, hi)
                : std::clamp(std::nearbyint(std::fma(qa, rA, std::fma(qb, rB, fixed))), lo, hi);
        const float want = (q - zC) * gridC[0];
        low[mul] |= q == lo;
        high[mul] |= q == hi;
        ASSERT_EQ(y[i], want) << "at " << i << " (" << va << " + " << vb << ")";
        ASSERT_EQ(evaluated->as<float>()[i], want) << "the evaluator, at " << i;
      }
    }
  EXPECT_TRUE(low[0] && high[0]) << "both ends of the sum's codes";
  EXPECT_TRUE(low[1] && high[1]) << "both ends of the product's codes";
}

INSTANTIATE_TEST_SUITE_P(Isas, ElementwiseKernelTest, ::testing::Values(Isa::Avx512, Isa::Avx2),
                         [](const auto &info) {
                           return info.param == Isa::Avx512 ? std::string("avx512")
                                                            : std::string("avx2");
                         });

} // namespace
